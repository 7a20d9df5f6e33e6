#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of "scripts/kunit.sh debug": on the debug kernel (KUnit built in,
# KASAN, lockdep, kmemleak), load eri and eri_sim built with their KUnit
# suites linked in; the suites run as each module loads.  The results of
# every suite (debugfs, /sys/kernel/debug/kunit/<suite>/results) are joined
# into one KTAP document, $ERI_OUT/ktap.txt, which the host feeds to
# kunit.py parse.  vm-run checks the kernel log for sanitizer and lockdep
# reports, and (on this kernel) unloads the modules and scans for leaks.
#
# Usage: kunit.sh [GLOB]: only the suites (and tests, "suite.test") GLOB
# matches, as kunit.py's filter glob.
set -u

KU=/sys/kernel/debug/kunit
OUT=${ERI_OUT:-/eri-out}
if [ ! -d "$KU" ]; then
	echo "# skip: this kernel has no KUnit debugfs ($KU)"
	exit 77
fi

if [ -n "${1:-}" ]; then
	# No newline: a charp parameter keeps it, and no suite would match.
	printf '%s' "$1" > /sys/module/kunit/parameters/filter_glob ||
		{ echo "cannot set KUnit's filter_glob"; exit 1; }
fi
rc=0
for m in eri eri_sim; do
	modprobe "$m" || { echo "modprobe $m failed"; rc=1; }
done

# One KTAP document: a plan over all suites, each suite as debugfs
# prints it (its own "KTAP version 1" and "1..1" lines dropped, its result
# line renumbered).
suites=()
for d in "$KU"/*/; do
	[ -r "$d/results" ] && suites+=("$(basename "$d")")
done
{
	echo "KTAP version 1"
	echo "1..${#suites[@]}"
	i=0
	for s in "${suites[@]}"; do
		i=$((i + 1))
		sed -e '1{/^KTAP version/d}' -e '/^1\.\.1$/d' \
		    -e "s/^\(\(not \)\{0,1\}ok\) 1 $s\$/\1 $i $s/" "$KU/$s/results"
	done
} > "$OUT/ktap.txt"
echo "# ${#suites[@]} suites: ${suites[*]}"
cat "$OUT/ktap.txt"
[ "${#suites[@]}" -gt 0 ] || { echo "no KUnit suite registered"; rc=1; }
exit "$rc"
