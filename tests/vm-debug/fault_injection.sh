#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# On a kernel with failslab and kmemleak (the debug kernel; make check runs
# it there): fail every slab and page allocation ERI makes in device
# creation in turn and check that each failure ends in a clean error with
# nothing left behind; then the same for the creation of PDs, CQs, QPs and
# MRs and the QP's way to RTS; then unload the modules (vm-run's kmemleak
# scan after the script must find nothing).  Both loops run in one process,
# tests/verbs/eri_failnth_test.c, arming /proc/thread-self/fail-nth before
# each call.  Elsewhere it skips (exit 77).
#
# About 75 device creations (40 to 45 fail, the rest absorb their failure:
# ib_core carries on without its MAD agent) take about 50 s on the debug
# kernel under TCG, the verbs about 10 s; with boot, the setup and vm-run's
# leak scan the run took 261 to 291 s of wall time on 2026-11-30 (an exec
# of ip and rdma per allocation, as before, took 3 to 10 s a round: up to
# 15 minutes for device creation alone).
# It found a use-after-free when a probe failed after registering the IB
# device (fixed in eri_sim_newlink()).  By hand:
#   scripts/build-modules.sh $ERI_CACHE/kernels/<debug release>/build DIR
#   scripts/vm-run --kernel 6.12-debug --modules DIR \
#       --rdma-core PREFIX tests/vm-debug/fault_injection.sh
# check-timeout: 1200
set -u
. "$(dirname "$0")/../vm/lib.sh"

DBG=/sys/kernel/debug
if [ ! -d "$DBG/failslab" ] || [ ! -e "$DBG/kmemleak" ] || [ ! -e /proc/self/fail-nth ]; then
	echo "# skip: this kernel has no failslab or kmemleak"
	exit 77
fi

NS=eri_fi

# Leaks from before the test are not ours: vm-init scanned and cleared
# just before it started the script (a scan takes a minute under TCG).

# Fail only what fail-nth asks for, quietly (no stack dumps in dmesg), slab
# and page allocations alike, sleeping ones too.
for fa in "$DBG/failslab" "$DBG/fail_page_alloc"; do
	echo 0 > "$fa/ignore-gfp-wait"
	echo 0 > "$fa/verbose"
	echo 0 > "$fa/probability"
	echo -1 > "$fa/times"
done

modprobe eri_sim
# Count (and fail) only allocations ERI's code makes: the address range of
# the eri and eri_sim modules near the top of the stack (failslab's stack
# trace filter; fail-nth counts only what passes it).  Otherwise most of the
# failure points would be in exec, the dynamic loader and netlink.
lo='' hi=''
while read -r name size _ _ _ addr _; do
	s=$((addr)) e=$((addr + size))
	if [ -z "$lo" ] || [ "$s" -lt "$lo" ]; then lo=$s; fi
	if [ -z "$hi" ] || [ "$e" -gt "$hi" ]; then hi=$e; fi
done < <(grep -E '^eri(_sim)? ' /proc/modules)
if [ -z "$lo" ]; then
	echo "# cannot read the modules' addresses from /proc/modules"
	exit 1
fi
# (Kernel addresses are negative in bash's signed arithmetic; their order
# is kept, and printf %x prints them as the unsigned values they are; so
# no bound starts at 0, which is above them all.)
# fail-nth is one counter for every kind of fault: page allocations
# (fail_page_alloc) get the same filter, or they would use up the count
# (and fail quietly) outside ERI.
# kmemleak allocates its own record of each allocation (with our code still
# on the stack); when that fails it quietly uses its reserve, so such
# failure points would look like successes: reject kmemleak's frames.
# failslab has one reject range: from the first to the end of the last of
# the functions every such allocation passes (kmemleak.c's own text; its
# exported kmemleak_alloc* lie elsewhere, and a range up to them would
# take in the allocator and reject everything).  A function ends where the
# next symbol starts (the kernel's symbols are listed in address order).
# grep reads /proc/kallsyms in large blocks; bash's read builtin would seek
# back after every line, and each seek of a seq_file walks it again from
# the start: quadratic, hours on the debug kernel under TCG.
klo='' khi='' want=0
while read -r addr _ sym _; do
	case $addr in *[!0-9a-fA-F]*|'') continue ;; esac	# grep's "--"
	a=$((0x$addr))
	if [ "$want" = 1 ] && { [ -z "$khi" ] || [ "$a" -gt "$khi" ]; }; then
		khi=$a
	fi
	want=0
	case $sym in
	__create_object|create_object|__alloc_object|mem_pool_alloc)
		want=1
		if [ -z "$klo" ] || [ "$a" -lt "$klo" ]; then klo=$a; fi ;;
	esac
done < <(grep -A1 -E ' (__create_object|create_object|__alloc_object|mem_pool_alloc)$' /proc/kallsyms)
# The allocator's own entry points must stay outside it.
while read -r addr _ sym _; do
	a=$((0x$addr))
	if [ -n "$klo" ] && [ -n "$khi" ] && [ "$a" -ge "$klo" ] &&
	   [ "$a" -lt "$khi" ]; then
		echo "# the kmemleak reject range takes in $sym: not usable"
		klo=''
	fi
done < <(grep -E ' (should_failslab|should_fail_ex|should_fail_alloc_page)$' /proc/kallsyms)
for fa in "$DBG/failslab" "$DBG/fail_page_alloc"; do
	printf '%#x\n' "$lo" > "$fa/require-start"
	printf '%#x\n' "$hi" > "$fa/require-end"
	if [ -n "$klo" ] && [ -n "$khi" ] && [ "$khi" -gt "$klo" ]; then
		printf '%#x\n' "$klo" > "$fa/reject-start"
		printf '%#x\n' "$khi" > "$fa/reject-end"
	fi
	# ERI's own allocations, not everything ib_core does when ERI calls
	# it: our frame must be among the first few above the allocator.
	echo 8 > "$fa/stacktrace-depth"
done
grep -E '^eri(_sim)? ' /proc/modules | sed 's/^/#   /'
echo "# failing allocations with a frame in $(printf '%#x-%#x' "$lo" "$hi") among the first 8${klo:+, none in $(printf '%#x-%#x' "$klo" "$khi")}"
ip netns add "$NS"
ip link add veA netns "$NS" type veth peer name veB
ip -n "$NS" link set veA up
ip link set veB up

uptime_s() { local u; read -r u _ < /proc/uptime; echo "${u%.*}"; }
src=$(dirname "$0")/../verbs/eri_failnth_test.c
bin=$(mktemp -d)/eri_failnth_test
prefix=${ERI_RDMA_CORE:-/usr}
check "build eri_failnth_test" gcc -O2 -Wall -Wextra -Werror -o "$bin" "$src" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs

# Fail the n-th ERI allocation of device creation (RDMA netlink's NEWLINK;
# it probes the device in the caller's context), for every n, until twice
# in a row no failure was injected: past its last allocation.  One process
# loops over n (eri_failnth_test --link): an exec of ip and rdma per n cost
# 3 to 10 s on the debug kernel under TCG, a creation that fails costs
# little, one that succeeds (and its deletion) about a second.
t0=$(uptime_s)
ip netns exec "$NS" "$bin" --link eri0 veA > /tmp/failnth.out 2>&1
rc=$?
sed 's/^/#   /' /tmp/failnth.out
echo "# device creation: $(($(uptime_s) - t0)) s"
check "device creation fails cleanly at every allocation (exit $rc)" test "$rc" = 0
check "ibv_devinfo still sees eri0" sh -c "ibv_devinfo -d eri0 | grep -q PORT_ACTIVE"

# Verbs that create objects, through uverbs, the driver and the device.
ip -n "$NS" addr add 198.18.7.1/24 dev veA
wait_for 10 sh -c "cat /sys/class/infiniband/eri0/ports/1/gids/* | grep -q ':ffff:c612:0701$'"
t0=$(uptime_s)
ip netns exec "$NS" "$bin" eri0 > /tmp/failnth.out 2>&1
rc=$?
sed 's/^/#   /' /tmp/failnth.out
echo "# verbs: $(($(uptime_s) - t0)) s"
check "PD, CQ, QP, MR creation and modify_qp fail cleanly at every allocation (exit $rc)" test "$rc" = 0
check "ibv_devinfo still sees eri0 afterwards" sh -c "ibv_devinfo -d eri0 | grep -q PORT_ACTIVE"

check "delete" ip netns exec "$NS" rdma link delete eri0
wait_for 5 sh -c "test \$(ls /sys/bus/auxiliary/devices | grep -c '^eri_sim\\.') = 0"

check "rmmod eri_sim" rmmod eri_sim
check "rmmod eri" rmmod eri
ip netns del "$NS"
ip link del veB 2>/dev/null
# The kmemleak scans (two: an object is reported once it was found
# unreferenced twice) are vm-run's, after the script: it fails the run on
# any report (its unload and scans take about 40 s here; scanning here too
# would find nothing more).
finish
