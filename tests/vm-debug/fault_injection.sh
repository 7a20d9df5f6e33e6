#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# On a kernel with failslab and kmemleak (the debug kernel; make check runs
# it there): fail every slab allocation of device creation in turn and check
# that each failure ends in a clean error with nothing left behind; then the
# same for the creation of PDs, CQs, QPs and MRs and the QP's way to RTS
# (tests/verbs/eri_failnth_test.c); then unload the modules and check that
# kmemleak finds nothing.  Elsewhere it skips (exit 77).
#
# Not in make check yet (not executable): on 2026-11-30, with failures
# limited to ERI's own allocations, the device-creation loop ran for more
# than 27 minutes without finishing on a loaded machine; whether it hangs
# in an error path or is only slow is not known yet (it now prints its
# progress every 20 allocations).  Run it by hand:
#   scripts/vm-run --kernel 6.12-debug --modules build/<debug release> \
#       --rdma-core PREFIX tests/vm-debug/fault_injection.sh
set -u
. "$(dirname "$0")/../vm/lib.sh"

DBG=/sys/kernel/debug
if [ ! -d "$DBG/failslab" ] || [ ! -e "$DBG/kmemleak" ] || [ ! -e /proc/self/fail-nth ]; then
	echo "# skip: this kernel has no failslab or kmemleak"
	exit 77
fi

NS=eri_fi
ib_count() { ls /sys/class/infiniband 2>/dev/null | grep -c '^eri'; }

# Leaks from before the test are not ours.
echo scan > "$DBG/kmemleak"
echo clear > "$DBG/kmemleak"

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
lo=0 hi=0
while read -r name size _ _ _ addr _; do
	case $name in eri|eri_sim) ;; *) continue ;; esac
	s=$((addr)) e=$((addr + size))
	if [ "$lo" = 0 ] || [ "$s" -lt "$lo" ]; then lo=$s; fi
	if [ "$e" -gt "$hi" ]; then hi=$e; fi
done < /proc/modules
if [ "$lo" = 0 ]; then
	echo "# cannot read the modules' addresses from /proc/modules"
	exit 1
fi
# (Kernel addresses are negative in bash's signed arithmetic; their order
# is kept, and printf %x prints them as the unsigned values they are.)
# fail-nth is one counter for every kind of fault: page allocations
# (fail_page_alloc) get the same filter, or they would use up the count
# (and fail quietly) outside ERI.
# kmemleak allocates its own record of each allocation (with our code still
# on the stack); when that fails it quietly uses its reserve, so such
# failure points would look like successes: reject kmemleak's frames.
klo=0 khi=0
while read -r addr _ sym; do
	case $sym in
	kmemleak_alloc|kmemleak_alloc_percpu|kmemleak_vmalloc|create_object|__create_object|__alloc_object|mem_pool_alloc) ;;
	*) continue ;;
	esac
	a=$((0x$addr))
	if [ "$klo" = 0 ] || [ "$a" -lt "$klo" ]; then klo=$a; fi
	if [ "$a" -gt "$khi" ]; then khi=$a; fi
done < /proc/kallsyms
for fa in "$DBG/failslab" "$DBG/fail_page_alloc"; do
	printf '%#x\n' "$lo" > "$fa/require-start"
	printf '%#x\n' "$hi" > "$fa/require-end"
	if [ "$klo" != 0 ]; then
		# The last function's body: at most a page past its start.
		printf '%#x\n' "$klo" > "$fa/reject-start"
		printf '%#x\n' $((khi + 4096)) > "$fa/reject-end"
	fi
	# ERI's own allocations, not everything ib_core does when ERI calls
	# it: our frame must be among the first few above the allocator.
	echo 8 > "$fa/stacktrace-depth"
done
grep -E '^eri(_sim)? ' /proc/modules | sed 's/^/#   /'
ip netns add "$NS"
ip link add veA netns "$NS" type veth peer name veB
ip -n "$NS" link set veA up
ip link set veB up

# Fail the n-th slab allocation of "rdma link add" (it probes the device in
# its own context: the exec'd process is the one that counts), for every n,
# until creation succeeds ten times in a row: past its last allocation.
# exec by absolute path: with a bare name the shell tries execve on every PATH
# entry and carries on after an ENOMEM, so the PATH search swallows the
# injected failures (on 6.12-debug no failure was ever injected that way).
RDMA=$(command -v rdma) || { echo "# no rdma tool"; exit 1; }
failed=0 leftovers=0 n=0 in_a_row=0
while [ "$in_a_row" -lt 10 ] && [ "$n" -lt 3000 ]; do
	n=$((n + 1))
	if ip netns exec "$NS" sh -c "echo $n > /proc/self/fail-nth && exec $RDMA link add eri0 type eri netdev veA" 2>/dev/null; then
		in_a_row=$((in_a_row + 1))
		ip netns exec "$NS" rdma link delete eri0 || leftovers=$((leftovers + 1))
	else
		in_a_row=0
		failed=$((failed + 1))
	fi
	wait_for 5 sh -c "test \$(ls /sys/bus/auxiliary/devices | grep -c '^eri_sim\\.') = 0" || leftovers=$((leftovers + 1))
	[ "$(ib_count)" = 0 ] || leftovers=$((leftovers + 1))
	[ $((n % 20)) = 0 ] && echo "# ... allocation $n, $failed failed so far, at $(cut -d' ' -f1 /proc/uptime) s"
done
echo "# device creation failed cleanly at $failed allocation points of $n"
check "some allocation failures were injected" test "$failed" -gt 0
check "failed creations left nothing behind" test "$leftovers" = 0
check "creation works after the injected failures" ip netns exec "$NS" rdma link add eri0 type eri netdev veA
check "ibv_devinfo still sees eri0" sh -c "ibv_devinfo -d eri0 | grep -q PORT_ACTIVE"

# Verbs that create objects, through uverbs, the driver and the device.
src=$(dirname "$0")/../verbs/eri_failnth_test.c
bin=$(mktemp -d)/eri_failnth_test
prefix=${ERI_RDMA_CORE:-/usr}
check "build eri_failnth_test" gcc -O2 -Wall -Wextra -Werror -o "$bin" "$src" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs
ip -n "$NS" addr add 198.18.7.1/24 dev veA
wait_for 10 sh -c "cat /sys/class/infiniband/eri0/ports/1/gids/* | grep -q ':ffff:c612:0701$'"
ip netns exec "$NS" "$bin" eri0 > /tmp/failnth.out 2>&1
rc=$?
sed 's/^/#   /' /tmp/failnth.out
check "PD, CQ, QP, MR creation and modify_qp fail cleanly at every allocation (exit $rc)" test "$rc" = 0
check "ibv_devinfo still sees eri0 afterwards" sh -c "ibv_devinfo -d eri0 | grep -q PORT_ACTIVE"

check "delete" ip netns exec "$NS" rdma link delete eri0
wait_for 5 sh -c "test \$(ls /sys/bus/auxiliary/devices | grep -c '^eri_sim\\.') = 0"

check "rmmod eri_sim" rmmod eri_sim
check "rmmod eri" rmmod eri
ip netns del "$NS"
ip link del veB 2>/dev/null

# Two scans: kmemleak reports an object only once it was unreferenced twice.
echo scan > "$DBG/kmemleak"
sleep 1
echo scan > "$DBG/kmemleak"
cat "$DBG/kmemleak" > /tmp/kmemleak.txt
sed 's/^/#   /' /tmp/kmemleak.txt | head -60
check "kmemleak reports nothing after unload" test ! -s /tmp/kmemleak.txt
finish
