#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# check.sh: everything CI runs (make check).
#
# A list of named steps; each prints "PASS <name>", "FAIL <name>" (with the
# tail of its output and the path of its full log) or "SKIP <name> (why)".
# Full logs go to build/logs/<name>.log.  The last line of the run is
# "N passed, N failed, N skipped"; the exit status is 0 only if nothing failed.
#
# Environment:
#   ERI_CHECK_FLAVOURS  kernel flavours to build for (default "6.1 6.1-cloud 6.12")
#   ERI_VM_FLAVOURS     flavours to run tests/vm/*.sh on (default "6.1 6.12 6.1-cloud")
#   ERI_VM_TIMEOUT      per-test time limit in seconds (default 600)
#   ERI_SWIOTLB_FLAVOURS  of ERI_VM_FLAVOURS, those whose series boots with
#                       swiotlb=force (default "6.12"): every DMA mapping of
#                       a device without DMA ops of its own is bounced, so
#                       a device that reached memory by physical address
#                       would miss the driver's data
#   ERI_INSTALL_MODE    "dkms": tests/vm/install.sh installs eri-dkms and
#                       builds in the guest (7-8 minutes a kernel) instead
#                       of eri-modules-<release>
#   ERI_VM_TESTS        space-separated test scripts (default: the executable
#                       tests/vm/*.sh; non-executable ones like lib.sh are helpers)
#
# A test script may narrow what make check does with it by header lines:
#   "# check-flavours: 6.12"  run it on these of ERI_VM_FLAVOURS only (for a
#                             long test of the device's own transport, which
#                             does not differ between kernels); "none"
#                             for a test only the debug kernel runs
#                             (DEBUG_VM_TESTS below)
#   "# check-timeout: 900"    its time limit, when it needs more than the default
#   "# check-packages: yes"   ERI's Debian packages (the deb step) as
#                             ERI_DEBS, and no --modules, --rdma-core or
#                             perftest (tests/vm/install.sh)
#   "# check-fs: virtiofs"    (with check-packages) the host's root over
#                             virtiofs on every kernel (vm-run --fs)
#   ERI_DEBUG_TESTS     scripts run on the debug kernel, SCRIPT[:ARG...] each
#                       (default: the tests/vm scripts named in DEBUG_VM_TESTS
#                       below and the executable tests/vm-debug/*.sh except
#                       kunit.sh); "none" skips the debug kernel altogether
#   ERI_TWO_INSTANCES   "no" skips tests/pair/two_instances.sh and live_migration.sh
#   ERI_KUNIT_VERSIONS  also run kunit.py on ERI placed in-tree for these
#                       linux-source versions (default: none; "6.12 6.1"; each
#                       costs a kernel build of 15-35 minutes when cold)
set -euo pipefail
# The whole script is one block, parsed before it runs: editing this file
# while a run is in progress does not disturb that run.
{

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
export ERI_CACHE
FLAVOURS=${ERI_CHECK_FLAVOURS:-"6.1 6.1-cloud 6.12"}
VM_FLAVOURS=${ERI_VM_FLAVOURS:-"6.1 6.12 6.1-cloud"}
VM_TIMEOUT=${ERI_VM_TIMEOUT:-600}
SWIOTLB_FLAVOURS=${ERI_SWIOTLB_FLAVOURS-6.12}
logs=$top/build/logs
rm -rf "$logs"
mkdir -p "$logs"

npass=0 nfail=0 nskip=0
t_start=$SECONDS

pass() { echo "PASS $1 ($2s)"; npass=$((npass + 1)); }
skip() { echo "SKIP $1 ($2)"; nskip=$((nskip + 1)); }
fail() {
	local name=$1 log=$2 why=$3
	echo "FAIL $name: $why"
	if [ -s "$log" ]; then
		# CI keeps only this output: the lines that say what went
		# wrong, wherever they are, then the end of the log.
		echo "---- error lines of $log:"
		grep -nE "not ok|FAIL|[Ff]ail|[Ee]rror|Couldn't|Can't|r\^2|syndrom|BUG|WARNING|Call Trace|timed out" \
			"$log" | head -n 40 | sed 's/^/  | /'
		echo "---- last lines of $log:"
		tail -n 25 "$log" | sed 's/^/  | /'
		echo "----"
	fi
	nfail=$((nfail + 1))
}

# run_step NAME CHECKER CMD...: runs CMD with output to build/logs/NAME.log;
# then "CHECKER LOG" (if not "-") must succeed: it prints why it failed.
run_step() {
	local name=$1 checker=$2 rc t0=$SECONDS
	shift 2
	echo "---- $name: $*" >&2
	set +e
	"$@" > "$logs/$name.log" 2>&1 < /dev/null
	rc=$?
	set -e
	step_verdict "$name" "$checker" "$rc" $((SECONDS - t0))
}

# step_verdict NAME CHECKER STATUS SECONDS: run_step's verdict on a command
# that ended with STATUS after SECONDS, its output in build/logs/NAME.log.
step_verdict() {
	local name=$1 checker=$2 rc=$3 secs=$4 log=$logs/$1.log why
	if [ "$rc" -eq 77 ]; then
		# A test that does not apply here (as automake's convention).
		skip "$name" "$(grep -m1 '^# skip' "$log" | sed 's/^# skip: //')"
		return 0
	fi
	if [ "$rc" -ne 0 ]; then
		fail "$name" "$log" "exit status $rc"
		return 1
	fi
	if [ "$checker" != - ] && ! why=$("$checker" "$log"); then
		fail "$name" "$log" "$why"
		return 1
	fi
	pass "$name" "$secs"
}

# ------------------------------------------------------------------ checkers
no_warnings() {
	local n
	n=$(grep -ci 'warning:' "$1" || true)
	[ "$n" -eq 0 ] || { echo "$n compiler/modpost warning line(s):"; grep -i 'warning:' "$1" | head -n 10; return 1; }
}

# Sparse findings in our own files (kernel headers are not ours to fix).
ours='(drivers/infiniband/(hw/eri|sw/eri_sim)/|tests/kmod/|include/linux/eri/|include/uapi/rdma/eri-abi\.h)'
no_sparse_findings() {
	local hits
	hits=$(grep -E "${ours}[^:]*:[0-9]+:([0-9]+:)? (warning|error):" "$1" || true)
	[ -z "$hits" ] || { echo "sparse findings:"; head -n 10 <<<"$hits"; return 1; }
}

# ------------------------------------------------------------------ steps
# build_modules RELEASE [KDIR] [kbuild args]: into build/RELEASE.
build_modules() {
	local ver=$1 kdir=/lib/modules/$1/build
	shift
	case ${1:-} in /*) kdir=$1; shift ;; esac
	# W=1 warnings only show when a file compiles: drop our objects so that
	# every run sees them all (a few files, a few seconds).
	if [ -d "build/$ver" ]; then
		find "build/$ver" \( -name '*.o' -o -name '*.ko' -o -name '.*.o.cmd' \) -delete
	fi
	scripts/build-modules.sh "$kdir" "build/$ver" "$@"
}

rdma_core_prefix=
rdma_core() {
	scripts/rdma-core.sh > "$logs/rdma-core.stdout"
	rdma_core_prefix=$(tail -n1 "$logs/rdma-core.stdout")
	cat "$logs/rdma-core.stdout"
	[ -d "$rdma_core_prefix" ] || { echo "rdma-core.sh printed no prefix directory (got '$rdma_core_prefix')"; return 1; }
}

setup_ok=1
run_step setup - scripts/setup.sh || setup_ok=0

declare -A ver_of
for fl in $FLAVOURS; do
	if ! ver=$(scripts/kernel.sh version "$fl" 2>"$logs/version-$fl.log"); then
		fail "version-$fl" "$logs/version-$fl.log" "cannot resolve flavour $fl"
		continue
	fi
	ver_of[$fl]=$ver
	if [ ! -d "/lib/modules/$ver/build" ]; then
		fail "build-$fl" /dev/null "no headers at /lib/modules/$ver/build (setup failed?)"
		continue
	fi
	run_step "build-$fl" no_warnings build_modules "$ver" W=1 || true
	run_step "sparse-$fl" no_sparse_findings \
		scripts/build-modules.sh "/lib/modules/$ver/build" "build/$ver" W=1 C=2 || true
done

run_step checkpatch - scripts/checkpatch.sh || true
# checkpatch.sh covers drivers/ and include/; the test modules separately.
run_step checkpatch-kmod - scripts/checkpatch.sh tests/kmod/*.c || true
run_step kernel-doc - scripts/kernel-doc.sh || true
run_step layering - scripts/check-layering.sh || true
# The upstream series (scripts/series.sh): each applied with git am to a
# pristine linux-source-6.12 or rdma-core 56.1, checkpatch --strict per
# kernel patch, and a build after every patch (W=1 and sparse for the
# kernel's objects, the modules once hooked in; ninja for rdma-core).
run_step series - scripts/series.sh check || true

# kunit.py on ERI placed in-tree (a kernel build each): on request only.  The
# suites always run on the debug kernel below (kunit-debug), one kernel for
# KUnit and the sanitizers, which is what fits CI's time on a fresh machine.
for v in ${ERI_KUNIT_VERSIONS:-}; do
	run_step "kunit-$v" - scripts/kunit.sh "$v" || true
done

rdma_ok=0
if [ -x scripts/rdma-core.sh ] || [ -f scripts/rdma-core.sh ]; then
	# run in this shell so that rdma_core_prefix is set
	t0=$SECONDS
	echo "---- rdma-core: scripts/rdma-core.sh" >&2
	if rdma_core > "$logs/rdma-core.log" 2>&1 < /dev/null; then
		pass rdma-core $((SECONDS - t0))
		rdma_ok=1
	else
		fail rdma-core "$logs/rdma-core.log" "scripts/rdma-core.sh failed"
	fi
else
	skip rdma-core "scripts/rdma-core.sh does not exist yet"
fi
# Debian trixie's perftest, built against that rdma-core: for rdma_cm over
# IPv6 (tests/vm/ipv6.sh), which Debian 12's perftest cannot do.  The VM
# tests get its bin directory as ERI_PERFTEST.
perftest_env=()
perftest() {
	scripts/perftest.sh "$rdma_core_prefix" > "$logs/perftest.stdout"
	cat "$logs/perftest.stdout"
	perftest_env=(--env "ERI_PERFTEST=$(tail -n1 "$logs/perftest.stdout")")
}
if [ "$rdma_ok" = 1 ]; then
	t0=$SECONDS
	echo "---- perftest: scripts/perftest.sh" >&2
	if perftest > "$logs/perftest.log" 2>&1 < /dev/null; then
		pass perftest $((SECONDS - t0))
	else
		perftest_env=()
		fail perftest "$logs/perftest.log" "scripts/perftest.sh failed"
	fi
else
	skip perftest "rdma-core did not build"
fi
# liberi's data path on plain memory, no VM (rdma-core/providers/eri/test):
# built against the rdma-core tree of the step above.
if [ "$rdma_ok" = 1 ]; then
	run_step liberi-datapath - rdma-core/providers/eri/test/run.sh || true
else
	skip liberi-datapath "rdma-core did not build"
fi

# The Debian packages (scripts/deb.sh: rdma-core 56.1-1+eri1 with liberi,
# cached by its inputs; eri-dkms, eri-utils, eri-modules-<release> for each
# kernel built above), for the VM tests whose header says
# "# check-packages: yes" (tests/vm/install.sh): they get ERI_DEBS instead of
# --modules and --rdma-core.  --test-extras: Debian 12's dkms and rdma-core
# packages, cached, for the guest.
debs_ok=0
debs() {
	local fl margs=()
	for fl in $FLAVOURS; do
		[ -n "${ver_of[$fl]:-}" ] && [ -f "build/${ver_of[$fl]}/drivers/infiniband/sw/eri_sim/eri_sim.ko" ] &&
			margs+=(--modules "${ver_of[$fl]}=build/${ver_of[$fl]}")
	done
	scripts/deb.sh --test-extras "${margs[@]}" build/deb
}
if [ "$setup_ok" = 1 ]; then
	run_step deb - debs && debs_ok=1
else
	skip deb "setup failed"
fi
# eri-dkms's sources built as dkms builds them (its dkms.conf's MAKE in
# dkms's tree layout), on the host for one kernel: a DKMS build in a TCG
# guest takes 7 minutes (ERI_INSTALL_MODE=dkms makes tests/vm/install.sh
# do one on every kernel).
if [ "$debs_ok" = 1 ] && [ -n "${ver_of[6.12]:-}" ]; then
	run_step dkms-build-6.12 no_warnings scripts/dkms-build.sh \
		"$(compgen -G 'build/deb/eri-dkms_*.deb' | head -n1)" "${ver_of[6.12]}" || true
else
	skip dkms-build-6.12 "no packages or no 6.12 kernel"
fi

if [ -n "${ERI_VM_TESTS:-}" ]; then
	read -r -a tests <<<"$ERI_VM_TESTS"
else
	# Executable scripts only: helpers such as tests/vm/lib.sh are sourced.
	mapfile -t tests < <(find tests/vm -maxdepth 1 -name '*.sh' -type f -perm -u+x 2>/dev/null | sort)
fi
# test_meta KEY SCRIPT: the value of SCRIPT's "# check-KEY: VALUE" line.
test_meta() {
	sed -n "s/^# check-$1: *//p" "$2" | head -n 1
}
# vm_series FLAVOUR MODULES TEST...: the tests in one boot of FLAVOUR
# (tests/vm/series.sh), each test still its own step, from its results in the
# series' output: a boot and vm-run's checks cost 10-25 s under TCG (over a
# minute on the debug kernel, with its leak scan), as much as a short test.
# The step vm-series-FLAVOUR is the boot, vm-run's dmesg check of the whole
# run and, on the debug kernel, the unload and the kmemleak scan at its end.
# Between tests series.sh deletes links, namespaces and veths and unloads the
# modules, and fails a test whose kernel lines show a problem.  Entries are
# SCRIPT[:ARG...] (colon-separated arguments to the script).  The guest's
# time limit is the tests' own ("# check-timeout:" or ERI_VM_TIMEOUT) summed,
# at most ERI_SERIES_TIMEOUT (default 2700 s): a kernel that hangs costs
# that much of CI's time, not hours.
vm_series() {
	local fl=$1 mods=$2 t tmo total=300 name d st args out
	shift 2
	out=$logs/vm-series-$fl
	for t in "$@"; do
		tmo=$(test_meta timeout "${t%%:*}")
		total=$((total + ${tmo:-$VM_TIMEOUT}))
	done
	[ "$total" -le "${ERI_SERIES_TIMEOUT:-2700}" ] || total=${ERI_SERIES_TIMEOUT:-2700}
	args=(--kernel "$fl" --timeout "$total" --out "$out" --env "ERI_TEST_TIMEOUT=$VM_TIMEOUT")
	[ -d "$mods" ] && args+=(--modules "$mods")
	[ "$rdma_ok" = 1 ] && args+=(--rdma-core "$rdma_core_prefix")
	[[ " $SWIOTLB_FLAVOURS " == *" $fl "* ]] && args+=(--append swiotlb=force)
	run_step "vm-series-$fl" - scripts/vm-run "${args[@]}" "${perftest_env[@]}" \
		tests/vm/series.sh "$@" || true
	for t in "$@"; do
		name=vm-$(basename "${t%%:*}" .sh)-$fl
		d=$out/series/$(basename "${t%%:*}" .sh)
		if [ ! -f "$d/status" ]; then
			fail "$name" /dev/null "did not run: the series ended before it (see $out.log)"
			continue
		fi
		cat "$d/stdout.txt" "$d/stderr.txt" > "$logs/$name.log"
		st=$(cat "$d/status")
		if [ -f "$d/unload-failed" ]; then
			cat "$d/unload-failed" >> "$logs/$name.log"
			fail "$name" "$logs/$name.log" "the modules did not unload after it"
		elif [ -f "$d/dmesg-failed" ]; then
			sed 's/^/dmesg: /' "$d/dmesg-failed" >> "$logs/$name.log"
			# The first report whole, last: CI shows a log's end.
			grep -m1 -A 24 -E -f "$top/scripts/dmesg-problems" \
				"$d/dmesg.txt" | sed 's/^/dmesg: /' >> "$logs/$name.log"
			fail "$name" "$logs/$name.log" "the kernel log shows problems during it"
		elif [ "$st" = 77 ]; then
			skip "$name" "$(grep -m1 '^# skip' "$logs/$name.log" | sed 's/^# skip: //')"
		elif [ "$st" = 124 ]; then
			fail "$name" "$logs/$name.log" "timed out"
		elif [ "$st" != 0 ]; then
			fail "$name" "$logs/$name.log" "exit status $st"
		else
			pass "$name" "$(cat "$d/seconds")"
		fi
	done
}

# package_test NAME FLAVOUR SCRIPT: SCRIPT (a "check-packages" test) in a
# guest of its own; its exit status and seconds go to build/logs/NAME.status.
package_test() {
	local name=$1 fl=$2 t=$3 tmo tfs args rc=0 t0=$SECONDS
	tmo=$(test_meta timeout "$t") tfs=$(test_meta fs "$t")
	args=(--kernel "$fl" --timeout "${tmo:-$VM_TIMEOUT}" --out "$logs/$name")
	[ -z "$tfs" ] || args+=(--fs "$tfs")
	[ -n "${ERI_INSTALL_MODE:-}" ] && args+=(--env "ERI_INSTALL_MODE=$ERI_INSTALL_MODE")
	scripts/vm-run "${args[@]}" --env "ERI_DEBS=$top/build/deb" "$t" \
		> "$logs/$name.log" 2>&1 < /dev/null || rc=$?
	echo "$rc $((SECONDS - t0))" > "$logs/$name.status"
}
# package_tests: the tests collected in pk_name, pk_fl and pk_test, two
# guests at a time, then their verdicts in order.  Nothing in them is timed
# (dpkg and depmod), unlike the other guest tests, which run alone: side by
# side each guest is slower, yet the three kernels' install.sh took 442 s
# where one after another took 534 (2026-12-04).
package_tests() {
	local i rc secs running=0
	for i in "${!pk_name[@]}"; do
		if [ "$running" -ge 2 ]; then
			wait -n || true
			running=$((running - 1))
		fi
		echo "---- ${pk_name[$i]}: ${pk_test[$i]} on ${pk_fl[$i]} (in the background)" >&2
		package_test "${pk_name[$i]}" "${pk_fl[$i]}" "${pk_test[$i]}" &
		running=$((running + 1))
	done
	wait || true
	for i in "${!pk_name[@]}"; do
		read -r rc secs < "$logs/${pk_name[$i]}.status" || { rc=1 secs=0; }
		step_verdict "${pk_name[$i]}" - "$rc" "$secs" || true
	done
}
pk_name=() pk_fl=() pk_test=()
for fl in $VM_FLAVOURS; do
	ver=${ver_of[$fl]:-}
	[ -n "$ver" ] || ver=$(scripts/kernel.sh version "$fl" 2>/dev/null) || ver=
	stests=()
	for t in "${tests[@]}"; do
		name=vm-$(basename "$t" .sh)-$fl
		only=$(test_meta flavours "$t")
		if [ -n "$only" ] && [[ " $only " != *" $fl "* ]]; then
			continue
		fi
		if [ "$setup_ok" = 0 ] || [ -z "$ver" ]; then
			skip "$name" "setup failed"
			continue
		fi
		if [ "$(test_meta packages "$t")" != yes ]; then
			stests+=("$t")
			continue
		fi
		# Installs packages: a boot of its own, after the series.
		if [ "$debs_ok" = 0 ]; then
			skip "$name" "the packages did not build"
			continue
		fi
		pk_name+=("$name") pk_fl+=("$fl") pk_test+=("$t")
	done
	[ "${#stests[@]}" -eq 0 ] || vm_series "$fl" "build/$ver" "${stests[@]}"
done
[ "${#pk_name[@]}" -eq 0 ] || package_tests

# ------------------------------------------------------------------ two instances
# tests/pair/two_instances.sh: a 6.1-cloud and a 6.12 guest at once, each
# with a virtio-net NIC, joined by a datagram network on the host's
# loopback, run the standard tools against each other (issue 25 item 4).
# tests/pair/live_migration.sh: the same pair, the 6.12 guest live-migrated
# to a second QEMU in the middle of a byte-checked transfer and a perftest
# run (issue 25 item 5).
pair_srv=${ver_of[6.1-cloud]:-} pair_cli=${ver_of[6.12]:-}
if [ "${ERI_TWO_INSTANCES:-yes}" = no ]; then
	skip two-instances "ERI_TWO_INSTANCES=no"
	skip live-migration "ERI_TWO_INSTANCES=no"
elif [ "$rdma_ok" = 1 ] && [ "${#perftest_env[@]}" -gt 0 ] &&
	[ -n "$pair_srv" ] && [ -f "build/$pair_srv/drivers/infiniband/sw/eri_sim/eri_sim.ko" ] &&
	[ -n "$pair_cli" ] && [ -f "build/$pair_cli/drivers/infiniband/sw/eri_sim/eri_sim.ko" ]; then
	pair_args=(--server "6.1-cloud=$top/build/$pair_srv" --client "6.12=$top/build/$pair_cli"
		--rdma-core "$rdma_core_prefix" --perftest "${perftest_env[1]#ERI_PERFTEST=}")
	run_step two-instances - tests/pair/two_instances.sh "${pair_args[@]}" \
		"$logs/two-instances" || true
	run_step live-migration - tests/pair/live_migration.sh "${pair_args[@]}" \
		"$logs/live-migration" || true
else
	skip two-instances "no rdma-core, perftest, or modules for 6.1-cloud and 6.12"
	skip live-migration "no rdma-core, perftest, or modules for 6.1-cloud and 6.12"
fi

# ------------------------------------------------------------------ debug kernel
# 6.12 with KASAN, lockdep, kmemleak, UBSAN, debugobjects, failslab and the
# KUnit framework (scripts/debug-kernel.sh; about 30 minutes cold, cached).
# The KUnit suites run as their modules load (kunit-debug); then integration
# tests, each followed by unloading the modules, and the executable
# tests/vm-debug/*.sh (the failslab pass), all in one boot, with a kmemleak
# scan at its end (vm_series above).
DEBUG_VM_TESTS="kverbs frwr mr rc:eri:quick unplug gso:inflight admin_fault hostile_net hostile_user"
if [ -n "${ERI_DEBUG_TESTS:-}" ]; then
	read -r -a dtests <<<"$ERI_DEBUG_TESTS"
else
	dtests=()
	for t in $DEBUG_VM_TESTS; do dtests+=("tests/vm/${t%%:*}.sh${t#"${t%%:*}"}"); done
	mapfile -t -O "${#dtests[@]}" dtests < <(find tests/vm-debug -maxdepth 1 -name '*.sh' \
		! -name kunit.sh -type f -perm -u+x 2>/dev/null | sort)
fi
dbg_rel=
debug_kernel() {
	scripts/debug-kernel.sh > "$logs/debug-kernel.stdout"
	dbg_rel=$(tail -n1 "$logs/debug-kernel.stdout")
	[ -d "$ERI_CACHE/kernels/$dbg_rel/build" ] || { echo "debug-kernel.sh printed no release (got '$dbg_rel')"; return 1; }
}
if [ "${dtests[*]}" != none ]; then
	t0=$SECONDS
	echo "---- debug-kernel: scripts/debug-kernel.sh" >&2
	if [ "$setup_ok" = 1 ] && debug_kernel > "$logs/debug-kernel.log" 2>&1 < /dev/null; then
		pass debug-kernel $((SECONDS - t0))
		dbg_ok=1
		run_step build-6.12-debug no_warnings \
			build_modules "$dbg_rel" "$ERI_CACHE/kernels/$dbg_rel/build" W=1 || dbg_ok=0
		run_step kunit-debug - scripts/kunit.sh debug || true
		if [ "$dbg_ok" = 0 ]; then
			for t in "${dtests[@]}"; do
				skip "vm-$(basename "${t%%:*}" .sh)-6.12-debug" "the modules did not build"
			done
		else
			vm_series 6.12-debug "build/$dbg_rel" "${dtests[@]}"
		fi
	else
		fail debug-kernel "$logs/debug-kernel.log" "scripts/debug-kernel.sh failed"
	fi
fi

echo "check: finished in $((SECONDS - t_start))s, logs in $logs"
echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" -eq 0 ]
exit
}
