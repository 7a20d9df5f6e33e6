#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# kernel-doc.sh [FILE...]
#
# Runs the kernel's scripts/kernel-doc (from linux-source-6.12, extracted by
# scripts/setup.sh into $ERI_CACHE/kernel-doc) with -Wall over every .c/.h
# under drivers/, include/ and compat/ (or the files given): every /** comment must
# parse as kernel-doc and describe each parameter, member and return value.
# Fails on any warning or error.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
kd=$ERI_CACHE/kernel-doc/kernel-doc
[ -f "$kd" ] || { echo "kernel-doc.sh: $kd missing (run scripts/setup.sh)" >&2; exit 1; }

cd "$top"
if [ $# -gt 0 ]; then
	files=("$@")
else
	mapfile -t files < <(find drivers include compat -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | sort)
fi
if [ ${#files[@]} -eq 0 ]; then
	echo "kernel-doc.sh: no .c/.h files under drivers/ include/"
	exit 0
fi

# With -none kernel-doc only checks and prints nothing but what it finds;
# its exit status says little (0 whatever it finds, without -Werror): judge
# by the output, any line of which is a finding.
outp=$(perl "$kd" -none -Wall "${files[@]}" 2>&1 || true)
n=0
if [ -n "$outp" ]; then
	printf '%s\n' "$outp"
	n=$(wc -l <<<"$outp")
fi
echo "kernel-doc.sh: ${#files[@]} files checked, $n findings"
[ "$n" -eq 0 ]
