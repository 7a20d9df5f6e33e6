#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# checkpatch.sh [FILE...]
#
# Runs the kernel's checkpatch.pl (from linux-source-6.12, extracted by
# scripts/setup.sh into $ERI_CACHE/checkpatch) with --strict --no-tree -f over
# every .c/.h and Kconfig under drivers/, include/ and compat/ and every .rst
# under Documentation/ (or the files given).  Fails on any ERROR, WARNING or CHECK.
# The top-level Kconfig is this repository's, not the kernel's (in a kernel
# tree drivers/infiniband/Kconfig sources the drivers' own): not checked.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
cp=$ERI_CACHE/checkpatch/checkpatch.pl
[ -x "$cp" ] || { echo "checkpatch.sh: $cp missing (run scripts/setup.sh)" >&2; exit 1; }

cd "$top"
if [ $# -gt 0 ]; then
	files=("$@")
else
	mapfile -t files < <({
		find drivers include compat -type f \( -name '*.c' -o -name '*.h' -o -name Kconfig \)
		find Documentation -type f -name '*.rst'
	} 2>/dev/null | sort)
fi
if [ ${#files[@]} -eq 0 ]; then
	echo "checkpatch.sh: no files to check under drivers/ include/ Documentation/"
	exit 0
fi

bad=0
for f in "${files[@]}"; do
	# checkpatch exits non-zero on ERROR/WARNING; CHECKs only show in the
	# output, so judge by the output.
	outp=$(perl "$cp" --strict --no-tree --no-summary --terse --show-types \
		--no-color -f "$f" 2>&1 || true)
	if grep -Eq '(ERROR|WARNING|CHECK):' <<<"$outp"; then
		printf '%s\n' "$outp"
		bad=$((bad + 1))
	fi
done
echo "checkpatch.sh: ${#files[@]} files checked, $bad with findings"
[ "$bad" -eq 0 ]
