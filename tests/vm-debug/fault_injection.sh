#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# For the debug kernel; make check does not run it yet (issue 4).
# On a kernel with failslab and kmemleak (the debug kernel): fail every
# slab allocation of device creation in turn and check that each failure
# ends in a clean error with nothing left behind; then unload the modules
# and check that kmemleak finds nothing.  Elsewhere it skips (exit 77).
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

# Fail only what fail-nth asks for, quietly (no stack dumps in dmesg).
echo 0 > "$DBG/failslab/ignore-gfp-wait"
echo 0 > "$DBG/failslab/verbose"
echo 0 > "$DBG/failslab/probability"
echo -1 > "$DBG/failslab/times"

modprobe eri_sim
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
done
echo "# device creation failed cleanly at $failed allocation points of $n"
check "some allocation failures were injected" test "$failed" -gt 0
check "failed creations left nothing behind" test "$leftovers" = 0
check "creation works after the injected failures" ip netns exec "$NS" rdma link add eri0 type eri netdev veA
check "ibv_devinfo still sees eri0" sh -c "ibv_devinfo -d eri0 | grep -q PORT_ACTIVE"
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
