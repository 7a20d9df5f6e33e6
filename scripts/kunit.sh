#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# kunit.sh [VERSION...] [-- KUNIT_PY_ARGS...]
#     Run ERI's KUnit suites with the kernel's own tools/testing/kunit/kunit.py
#     in QEMU (x86_64, TCG: no KVM needed), ERI placed in-tree by
#     scripts/kernel-tree.sh.  VERSION: 6.12 (default) and/or 6.1.
#     VERSION "debug" instead runs the suites on ERI's debug kernel
#     (scripts/debug-kernel.sh: 6.12 with KUnit built in, KASAN, lockdep,
#     kmemleak): eri.ko and eri_sim.ko are built out of tree with their suites
#     linked in, loaded in a VM (tests/vm-debug/kunit.sh), where the suites
#     run; the modules are then unloaded and kmemleak must find nothing.
#     kunit.py parse reads the results.  After --, a filter glob
#     ("suite" or "suite.test") selects suites in both modes.
#     Exits non-zero if a build fails, a test fails or crashes, or no test ran.
#
# Environment:
#   ERI_CACHE      cache root (default /var/cache/eri)
#   KUNITCONFIG    the .kunitconfig to use (default drivers/infiniband/hw/eri/.kunitconfig)
#   JOBS           make -j (default: nproc)
#   KUNIT_TIMEOUT  seconds QEMU may run (default 900; TCG is slow)
#
# Symbols of KUNITCONFIG that the tree's Kconfig does not define (e.g. test
# symbols not written yet) are dropped with a warning, since kunit.py would
# refuse the whole config otherwise.  Extra arguments after -- go to
# kunit.py run, e.g.  -- --kconfig_add CONFIG_LIST_KUNIT_TEST=y 'list*'
#
# Paths: $ERI_CACHE/kunit/<VERSION>/build (kept: later runs are incremental),
#        $ERI_CACHE/kunit/<VERSION>/kunit.log (output of the last run).
set -euo pipefail

ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KUNITCONFIG=${KUNITCONFIG:-$REPO/drivers/infiniband/hw/eri/.kunitconfig}
JOBS=${JOBS:-$(nproc)}
KUNIT_TIMEOUT=${KUNIT_TIMEOUT:-900}

die() { echo "kunit.sh: $*" >&2; exit 1; }
log() { echo "kunit.sh: $*" >&2; }

versions=()
while [ $# -gt 0 ]; do
	case $1 in
	--) shift; break ;;
	6.12|6.1|debug) versions+=("$1"); shift ;;
	-h|--help) sed -n '3,28s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown argument '$1' (versions: 6.12 6.1 debug; kunit.py arguments after --)" ;;
	esac
done
[ ${#versions[@]} -gt 0 ] || versions=(6.12)
extra=("$@")

[ -f "$KUNITCONFIG" ] || die "no kunitconfig at $KUNITCONFIG"
KUNITCONFIG=$(cd "$(dirname "$KUNITCONFIG")" && pwd)/$(basename "$KUNITCONFIG")

# kunit.py needs a python3; use Debian's, not whatever is first in PATH.
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
	log "installing python3"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 >&2 ||
		{ apt-get update -qq >&2 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 >&2; }
fi
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"

# effective_kunitconfig SRC OUT: KUNITCONFIG without symbols SRC does not define.
effective_kunitconfig() {
	local src=$1 out=$2 known line sym
	known=$(find "$src" -name 'Kconfig*' -type f -print0 |
		xargs -0 grep -hoE '^[[:space:]]*(menu)?config[[:space:]]+[A-Za-z0-9_]+' |
		awk '{ print "CONFIG_" $2 }' | sort -u)
	: > "$out.tmp"
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
		*) echo "$line" >> "$out.tmp"; continue ;;
		esac
		if grep -qxF "$sym" <<<"$known"; then
			echo "$line" >> "$out.tmp"
		else
			log "warning: $sym is not defined in $src: dropped from the kunitconfig"
		fi
	done < "$KUNITCONFIG"
	# Rewrite only on change, so kunit.py sees the same file on a warm run.
	if cmp -s "$out.tmp" "$out"; then rm -f "$out.tmp"; else mv "$out.tmp" "$out"; fi
}

# summarize VERSION LOG RC SECONDS: add kunit.py's summary line of LOG to
# the totals and to the summaries; sets status on failure.
summarize() {
	local v=$1 log=$2 rc=$3 secs=$4 line ran p f c s verdict
	line=$(sed -n 's/.*Testing complete\. \(Ran .*\)$/\1/p' "$log" | tail -n1)
	count() { sed -n "s/.*[ :,]$1: \([0-9]*\).*/\1/p" <<<"$line" | head -n1; }
	ran=$(sed -n 's/^Ran \([0-9]*\) tests.*/\1/p' <<<"$line")
	p=$(count passed); f=$(count failed); c=$(count crashed); s=$(count skipped)
	p=${p:-0} f=${f:-0} c=${c:-0} s=${s:-0} ran=${ran:-0}
	tot_pass=$((tot_pass + p)); tot_fail=$((tot_fail + f + c)); tot_skip=$((tot_skip + s))
	verdict=ok
	if [ "$rc" -ne 0 ]; then verdict="exit status $rc"; fi
	if [ -z "$line" ]; then verdict="no summary (build or boot failed?)"
	elif [ "$ran" -eq 0 ]; then verdict="no tests ran"
	elif [ $((f + c)) -ne 0 ]; then verdict="failures"
	fi
	[ "$verdict" = ok ] || status=1
	summaries+=("$v: ${line:-no result} [$verdict] ($secs s)")
}

# The debug kernel: suites linked into the out-of-tree modules, run on load.
run_debug() {
	local work=$ERI_CACHE/kunit/debug rel kdir mods t0 rc=0
	mkdir -p "$work"
	t0=$(date +%s)
	rel=$("$REPO/scripts/debug-kernel.sh" | tail -n1) || { summaries+=("debug: debug kernel build failed"); status=1; return; }
	kdir=$ERI_CACHE/kernels/$rel/build
	mods=$REPO/build/$rel-kunit
	log "debug: building the modules with their KUnit suites in $mods"
	if ! "$REPO/scripts/build-modules.sh" "$kdir" "$mods" \
		CONFIG_INFINIBAND_ERI_KUNIT_TEST=y CONFIG_INFINIBAND_ERI_SIM_KUNIT_TEST=y \
		> "$work/build.log" 2>&1; then
		tail -n 30 "$work/build.log" >&2
		summaries+=("debug: module build failed ($work/build.log)"); status=1; return
	fi
	log "debug: loading them on $rel (vm-run, results in $work/vm)"
	set +e
	"$REPO/scripts/vm-run" --kernel 6.12-debug --modules "$mods" \
		--timeout $((KUNIT_TIMEOUT > 1800 ? KUNIT_TIMEOUT : 1800)) --out "$work/vm" \
		"$REPO/tests/vm-debug/kunit.sh" \
		"${extra[@]:0:1}" >&2
	rc=$?
	set -e
	if [ -s "$work/vm/ktap.txt" ]; then
		(cd "$("$REPO/scripts/kernel-tree.sh" 6.12)" &&
			"$PY" tools/testing/kunit/kunit.py parse "$work/vm/ktap.txt") 2>&1 |
			tee "$work/kunit.log"
	else
		echo "no KTAP results from the guest ($work/vm)" | tee "$work/kunit.log"
	fi
	summarize debug "$work/kunit.log" "$rc" $(($(date +%s) - t0))
}

status=0
summaries=()
tot_pass=0 tot_fail=0 tot_skip=0
for v in "${versions[@]}"; do
	if [ "$v" = debug ]; then
		run_debug
		continue
	fi
	work=$ERI_CACHE/kunit/$v
	bd=$work/build
	mkdir -p "$work"
	# Held from copying ERI into the tree until kunit.py is done: another
	# run must not put other sources in between.
	exec 7>"$work/.lock"
	flock 7
	src=$("$REPO/scripts/kernel-tree.sh" "$v")
	pkgver=$(cat "$src/.eri-pkgversion")
	if [ -f "$work/.eri-pkgversion" ] && [ "$(cat "$work/.eri-pkgversion")" != "$pkgver" ]; then
		log "linux-source-$v changed to $pkgver: wiping $bd"
		rm -rf "$bd"
	fi
	echo "$pkgver" > "$work/.eri-pkgversion"
	effective_kunitconfig "$src" "$work/kunitconfig"

	log "$v: kunit.py run (build dir $bd, log $work/kunit.log)"
	t0=$(date +%s)
	set +e
	(cd "$src" && "$PY" tools/testing/kunit/kunit.py run \
		--arch=x86_64 \
		--kunitconfig="$work/kunitconfig" \
		--build_dir="$bd" \
		--jobs="$JOBS" \
		--timeout="$KUNIT_TIMEOUT" \
		"${extra[@]}") 2>&1 | tee "$work/kunit.log"
	rc=${PIPESTATUS[0]}
	set -e
	t1=$(date +%s)
	exec 7>&-

	summarize "$v" "$work/kunit.log" "$rc" $((t1 - t0))
done

echo
echo "ERI KUnit summary:"
for l in "${summaries[@]}"; do echo "  $l"; done
echo "kunit: $tot_pass passed, $tot_fail failed, $tot_skip skipped"
exit "$status"
