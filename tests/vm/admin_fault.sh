#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Admin commands that time out, and a device that stops answering, driven
# by eri_sim's fault knob (/sys/kernel/debug/eri_sim/<device>/admin_*) with
# tests/verbs/eri_admin_fault_test.c, built here, on eri0:
#   1. DESTROY_QP answered past the admin timeout (2 s): the destroy is
#      sent again, NOT_FOUND says the first one ran, ibv_destroy_qp
#      succeeds, then the CQ and PD go; the device is not declared dead;
#   2. a stalled device takes commands once it is released, in time;
#   3. a CREATE_CQ the device fails: a clean ENOMEM, the next one works;
#   4. completions dropped until the device is declared dead: a process
#      holding a QP and a CQ gets IBV_EVENT_DEVICE_FATAL and ends cleanly,
#      eri0 goes away, a new eri0 on the same netdev works;
#   5. "rdma link delete" of a stalled device under such a process: its
#      destroys time out until the device is declared dead, then succeed;
#   6. eri_sim and eri unload; no WARNING (vm-run's dmesg check; on the
#      debug kernel its kmemleak scan).
# make check runs it on the debug kernel only (KASAN, lockdep, kmemleak).
# check-flavours: none
set -u
. "$(dirname "$0")/lib.sh"

prefix=${ERI_RDMA_CORE:?run through vm-run --rdma-core}
bin=$(mktemp -d)/eri_admin_fault_test
NS=eri_af
D=eri0

check "build eri_admin_fault_test" gcc -O2 -Wall -Werror -o "$bin" \
	"$(dirname "$0")/../verbs/eri_admin_fault_test.c" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
dmesg -C
modprobe eri_sim
ip netns add "$NS"
ip link add veA netns "$NS" type veth peer name veB netns "$NS"
ip -n "$NS" link set veA up
ip -n "$NS" link set veB up
inns() { ip netns exec "$NS" "$@"; }
check "rdma link add $D" inns rdma link add "$D" type eri netdev veA

# knob_dir: the debugfs directory of eri0's device (named after it).
knob_dir() {
	local adev
	adev=$(basename "$(readlink -f /sys/class/infiniband/$D/device)") &&
		[ -d "/sys/kernel/debug/eri_sim/$adev" ] &&
		echo "/sys/kernel/debug/eri_sim/$adev"
}
K=$(knob_dir) || K=/nonexistent
check "the fault knob of $D ($K)" test -w "$K/admin_delay_next" -a \
	-w "$K/admin_drop_next" -a -w "$K/admin_fail_next" -a \
	-w "$K/admin_fail_status" -a -w "$K/admin_stall"

# run_app MODE [ARGS...]: the program in the background, its stdin a FIFO
# held open on fd 3; sets APP; waits for its "ready".
run_app() {
	rm -f /tmp/af.fifo /tmp/af.out
	mkfifo /tmp/af.fifo
	inns "$bin" "$D" "$@" < /tmp/af.fifo > /tmp/af.out 2>&1 &
	APP=$!
	exec 3> /tmp/af.fifo
	wait_for 30 grep -qx ready /tmp/af.out
}
# app_done NAME: let it go on, wait (at most 120 s) and check its verdict.
app_done() {
	local rc
	echo go >&3
	exec 3>&-
	wait_for 120 sh -c "! kill -0 $APP 2>/dev/null"
	kill "$APP" 2>/dev/null
	wait "$APP"
	rc=$?
	sed 's/^/#   /' /tmp/af.out
	if [ "$rc" = 0 ]; then ok "$1"; else not_ok "$1 (exit $rc)"; fi
}
timeouts() { dmesg | grep -c "admin command $1 timed out"; }
dead() { dmesg | grep -q "declared dead"; }

# 1. A late answer to DESTROY_QP (opcode 12).
run_app destroy
echo 3000 > "$K/admin_delay_ms"
echo 1 > "$K/admin_delay_next"
t0=$SECONDS
app_done "destroy with its answer 3 s late: QP, CQ and PD destroyed"
echo "# took $((SECONDS - t0)) s"
check "DESTROY_QP timed out once" test "$(timeouts 12)" = 1
check_fails "the device is not declared dead" dead
echo 0 > "$K/admin_delay_ms"

# 2. A stalled device (QUERY_STATS, from rdma statistic), released in time.
echo 1 > "$K/admin_stall"
inns timeout 30 rdma statistic show link "$D/1" > /tmp/af.stat 2>&1 &
st=$!
sleep 1
check "nothing is answered while stalled" kill -0 "$st"
echo 0 > "$K/admin_stall"
wait "$st"
check "released, the stalled command completes" test $? = 0
check "no timeout while stalled for 1 s" test "$(timeouts 13)" = 0

# 3. A command the device fails: NO_RESOURCE (3) on CREATE_CQ.
run_app create
echo 3 > "$K/admin_fail_status"
echo 1 > "$K/admin_fail_next"
app_done "CREATE_CQ failed by the device: clean error, then it works"

# 4. Every answer lost: after three timeouts in a row the device is dead.
run_app watch 90
echo 1000 > "$K/admin_drop_next"
for i in 1 2 3 4; do
	inns timeout 30 rdma statistic show link "$D/1" > /dev/null 2>&1
	dead && break
done
check "the device is declared dead" dead
app_done "IBV_EVENT_DEVICE_FATAL reaches the process, which ends cleanly"
check "$D goes away" wait_for 30 test ! -e "/sys/class/infiniband/$D"
check "a new $D on veA" inns rdma link add "$D" type eri netdev veA
check "the new $D has its port up" wait_for 15 sh -c \
	"ip netns exec $NS ibv_devinfo -d $D | grep -q PORT_ACTIVE"
run_app destroy
app_done "objects on the new $D are created and destroyed"

# 5. Removal of a stalled device under a process holding a QP and a CQ: its
#    destroys time out until the device is declared dead, then succeed.
K=$(knob_dir) || K=/nonexistent
run_app watch 90
echo 1 > "$K/admin_stall"
check "rdma link delete of the stalled $D returns" inns timeout 90 rdma link delete "$D"
check "the stalled device is declared dead" \
	test "$(dmesg | grep -c 'declared dead')" = 2
app_done "the process on the removed device gets IBV_EVENT_DEVICE_FATAL and ends"
check "a new $D on veA again" inns rdma link add "$D" type eri netdev veA

# 6. Unload.
check "rdma link delete $D" inns rdma link delete "$D"
check "eri_sim unloads" timeout 60 modprobe -r eri_sim
check "eri unloads" timeout 60 modprobe -r eri
ip netns del "$NS"
check "no WARNING or splat in the kernel log" \
	sh -c "! dmesg | grep -E -f scripts/dmesg-problems"
finish
