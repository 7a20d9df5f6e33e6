#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench.sh [--quick] [options]   ERI side by side with rdma_rxe, siw and TCP
#
# Builds what it needs (siw.ko from Debian's linux-source, the ERI modules if
# missing, rdma-core with liberi), boots one VM and runs every contender
# through the same grid there (tests/bench/guest.py: the topology, netem
# conditions, alternation and timeouts are described at its top), then turns
# the runs into results.json, table.md and PNG plots (tests/bench/report.py).
#
#   --quick            the quick grid (under ten minutes); default: full grid
#   --kernel FLAVOUR   6.1 (default; see scripts/kernel.sh)
#   --contenders LIST  comma-separated subset of eri,rxe,siw,tcp
#   --set KEY=VALUES   override a grid entry (see GRIDS in tests/bench/guest.py),
#                      e.g. --set conditions=loss0,loss5 --set repeats=5
#   --timeout SEC      VM timeout (default: 570 quick, 86400 full); the guest
#                      starts no run that could end later than 60 s before it
#                      and records the rest as skipped
#   --out DIR          results directory (default build/bench/<date>-<time>)
#   --modules DIR      the ERI modules: every *.ko under DIR, e.g. a private
#                      build (scripts/build-modules.sh KDIR DIR); default
#                      build/<release>, built there if missing
#   --rdma-core PREFIX rdma-core with liberi installed in PREFIX (default:
#                      $ERI_RDMA_CORE_PREFIX, else scripts/rdma-core.sh's)
#   --no-docs          do not copy table and plots to docs/bench/
#
# Results: DIR/results.json (every run), DIR/table.md, DIR/*.png, DIR/vm/
# (vm-run's logs), DIR/logs/ (every tool's output).  The table and plots are
# copied to docs/bench/ for README.  Exit status: 0 when the harness ran
# (contenders failing in cells is a result, not an error), non-zero when the
# harness itself failed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
export ERI_CACHE
cd "$top"

say() { echo "bench: $*" >&2; }
die() { echo "bench: $*" >&2; exit 1; }

mode=full flavour=6.1 contenders=eri,rxe,siw,tcp timeout='' out='' docs=1 eri_mods=''
sets=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick)      mode=quick; shift ;;
	--kernel)     flavour=${2:?}; shift 2 ;;
	--contenders) contenders=${2:?}; shift 2 ;;
	--set)        sets+=(--set "${2:?}"); shift 2 ;;
	--timeout)    timeout=${2:?}; shift 2 ;;
	--out)        out=${2:?}; shift 2 ;;
	--modules)    eri_mods=${2:?}; shift 2 ;;
	--rdma-core)  ERI_RDMA_CORE_PREFIX=${2:?}; shift 2 ;;
	--no-docs)    docs=0; shift ;;
	-h|--help)    sed -n '3,34s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done
[ -n "$timeout" ] || { [ "$mode" = quick ] && timeout=570 || timeout=86400; }
t0=$SECONDS

# ------------------------------------------------------------------ host tools
# perftest runs in the guest from the host's root; gnuplot draws the plots;
# ethtool records the veths' offloads.
pkgs=(perftest iperf3 sockperf gnuplot-nox python3 iproute2 iputils-ping ethtool)
scripts/debian-packages.sh "${pkgs[@]}" || die "cannot install ${pkgs[*]}"

# ------------------------------------------------------------------ builds
rel=$(scripts/kernel.sh version "$flavour")
scripts/kernel.sh fetch "$flavour" >/dev/null
if [ -n "${ERI_RDMA_CORE_PREFIX:-}" ]; then
	prefix=$ERI_RDMA_CORE_PREFIX
else
	prefix=$(scripts/rdma-core.sh | tail -n1)
fi
[ -d "$prefix/lib" ] || die "no rdma-core prefix at '$prefix'"

ts=$(date -u +%Y-%m-%d-%H%M%S)
[ -n "$out" ] || out=build/bench/$ts
mkdir -p "$out"
out=$(realpath "$out")
mods=$out/modules
rm -rf "$mods"
mkdir -p "$mods"

# The ERI modules: built by `make` (build/<release>/); build them if missing.
# --modules DIR: a build of the caller's, taken as it is.
if [ -n "$eri_mods" ]; then
	[ -n "$(find "$eri_mods" -name 'eri.ko')" ] && [ -n "$(find "$eri_mods" -name 'eri_sim.ko')" ] ||
		die "no eri.ko and eri_sim.ko under $eri_mods"
else
	eri_mods=build/$rel
	if ! compgen -G "$eri_mods/drivers/infiniband/*/*/eri*.ko" >/dev/null ||
		[ "$(find "$eri_mods" -name '*.ko' | wc -l)" -lt 2 ]; then
		say "ERI modules missing in $eri_mods: building"
		scripts/build-modules.sh "/lib/modules/$rel/build" "$eri_mods" >&2
	fi
fi
find "$eri_mods" -name '*.ko' -exec cp {} "$mods/" \;
siw_note=
if siw_ko=$(scripts/build-siw.sh "$flavour" 2> >(tee "$out/build-siw.log" >&2) | tail -n1) &&
	[ -f "$siw_ko" ]; then
	cp "$siw_ko" "$mods/siw.ko"
	siw_note=$(cat "$(dirname "$siw_ko")/source-version" 2>/dev/null || true)
else
	say "siw.ko could not be built: siw will be recorded as unavailable"
fi
say "modules for $rel: $(cd "$mods" && echo *.ko)"

# ------------------------------------------------------------------ the VM
# The guest starts a run only if it can end, cell timeout included, within
# the budget; boot (about 25 s under TCG) and power-off take the rest.
budget=$((timeout - 60))
[ "$budget" -gt 60 ] || die "--timeout $timeout is too short"
say "mode $mode, kernel $rel, results in $out (VM timeout ${timeout}s)"
# The noisy condition's load outside the VM (tests/bench/guest.py,
# host_load()): while the guest's $out/vm/bench/host-load says "on", one
# busy process per host core beside the VM's vCPU threads.
host_load_watch() {
	local req=$out/vm/bench/host-load pids=() want i
	set +e		# a killed busy process's status is no error
	trap '[ ${#pids[@]} = 0 ] || kill "${pids[@]}" 2>/dev/null; exit 0' TERM
	while :; do
		want=$(cat "$req" 2>/dev/null || true)
		if [ "$want" = on ] && [ ${#pids[@]} = 0 ]; then
			for i in $(seq "$(nproc)"); do
				(trap - TERM; while :; do :; done) &
				pids+=($!)
			done
		elif [ "$want" != on ] && [ ${#pids[@]} -gt 0 ]; then
			kill "${pids[@]}" 2>/dev/null
			wait "${pids[@]}" 2>/dev/null
			pids=()
		fi
		[ -z "$want" ] || echo "$want" > "$req.ack"
		sleep 0.2
	done
}
rm -f "$out/vm/bench/host-load" "$out/vm/bench/host-load.ack"
host_load_watch &
watch_pid=$!
trap 'kill "$watch_pid" 2>/dev/null' EXIT
set +e
# A benchmarked tool that crashes (perftest in librdmacm when siw fails to
# connect under heavy loss) is that run's result, recorded by the guest;
# the kernel's note of the user-space fault is no harness failure.
scripts/vm-run --kernel "$flavour" --timeout "$timeout" --out "$out/vm" \
	--allow '(ib_[a-z_]+|rping|iperf3|sockperf)\[[0-9]+\]:? (general protection fault|segfault|trap)' \
	--modules "$mods" --rdma-core "$prefix" \
	tests/bench/guest.sh --mode "$mode" --out /eri-out/bench --budget "$budget" \
	--contenders "$contenders" "${sets[@]}"
vrc=$?
set -e
kill "$watch_pid" 2>/dev/null || true
wait "$watch_pid" 2>/dev/null || true
trap - EXIT
say "vm-run exit status $vrc"

# ------------------------------------------------------------------ report
[ -f "$out/vm/bench/runs.jsonl" ] || die "the guest wrote no results (see $out/vm/console.log)"
rm -rf "$out/logs"
[ -d "$out/vm/bench/logs" ] && mv "$out/vm/bench/logs" "$out/logs"
python3 tests/bench/report.py --runs "$out/vm/bench/runs.jsonl" --out "$out" \
	--vm-status "$vrc" --siw-source "$siw_note" \
	--rdma-core "$prefix" --git "$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
if [ "$docs" = 1 ]; then
	mkdir -p docs/bench
	rm -f docs/bench/*.png docs/bench/table.md
	cp "$out"/table.md docs/bench/
	if compgen -G "$out/*.png" >/dev/null; then cp "$out"/*.png docs/bench/; fi
	say "latest table and plots copied to docs/bench/"
fi
say "results: $out/results.json, $out/table.md, $out/*.png ($((SECONDS - t0))s wall)"
case $vrc in
0) exit 0 ;;
124) say "the VM timed out: the results are partial"; exit 124 ;;
*) say "vm-run failed ($vrc): see $out/vm/"; exit "$vrc" ;;
esac
