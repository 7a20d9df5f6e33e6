#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Devices removed while applications use them, in the guest: an
# ibv_rc_pingpong runs between eri0 and eri1 (two namespaces, one veth),
# waiting for completion events (-e) or busy-polling its CQ, and while it
# runs,
#   1. "rdma link delete" removes eri1: it returns at once (ib_core does
#      not wait for the processes: the driver lets it disassociate their
#      contexts), the process on eri1 ends (its wait for a completion event
#      fails), and a new eri1 on the same netdev works;
#   2. the same with busy-polling processes: the one on eri1 ends within
#      5 s with an error, by itself: ibv_poll_cq fails once its CQ is empty
#      (its context's status page reads zeros once the device is gone),
#      where on other RDMA devices it would find the CQ empty for ever;
#   3. the veth is deleted: both devices go with their netdevs, both
#      processes end;
#   4. eri_sim is unloaded under busy-polling processes: the devices go,
#      both processes end within 5 s, eri unloads.
# The process on eri0 in 1. and 2. waits for its peer's message for ever,
# as RC has no keepalive.
# No warning, BUG or splat in the kernel log (on the debug kernel, vm-run
# then scans for leaks).
# make check runs it on 6.1 and 6.12 (6.1-cloud is 6.1 with fewer drivers).
# check-flavours: 6.1 6.12
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

: "${ERI_RDMA_CORE:?run through vm-run --rdma-core}"
N=100000000	# iterations: the pingpong runs until its device goes

dmesg -C
pair_up eri_unplug

# rc_qp_rts NS DEV: DEV (seen from namespace NS) has an RC QP in RTS.
rc_qp_rts() {
	ip netns exec "$1" rdma resource show qp link "$2/1" 2>/dev/null |
		grep -q 'type RC .*state RTS'
}
both_rts() { rc_qp_rts "$NS0" "$D0" && rc_qp_rts "$NS1" "$D1"; }

# start_pp PORT [poll]: a pingpong of $N iterations in the background,
# server on eri1, client on eri0, waiting for completion events (poll:
# busy-polling); sets SPID and CPID; both QPs must reach RTS.
start_pp() {
	local ev=-e

	[ "${2:-}" = poll ] && ev=
	in1 timeout 300 ibv_rc_pingpong -d "$D1" -g "$G1" -p "$1" -n "$N" $ev > /tmp/pps.out 2>&1 &
	SPID=$!
	wait_for 30 listening "$1"
	in0 timeout 300 ibv_rc_pingpong -d "$D0" -g "$G0" -p "$1" -n "$N" $ev "$B" > /tmp/ppc.out 2>&1 &
	CPID=$!
	check "pingpong on port $1 runs (RC QPs in RTS on both devices)" \
		wait_for 30 both_rts
}

# ended PID: the process is gone.
ended() { ! kill -0 "$1" 2>/dev/null; }

# both_end WHAT [server] [SECONDS]: the two pingpong processes (or the
# server only) end within SECONDS (30); what is left is killed.  Sets SST
# and CST, their exit statuses (143: killed here).
both_end() {
	local s=${3:-30}

	check "$1: the server process ends within $s s" wait_for "$s" ended "$SPID"
	[ "${2:-}" = server ] ||
		check "$1: the client process ends within $s s" wait_for "$s" ended "$CPID"
	kill "$SPID" "$CPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	SST=$?
	wait "$CPID" 2>/dev/null
	CST=$?
	echo "# exit status: server $SST, client $CST"
	tail -n 4 /tmp/pps.out | sed 's/^/#   server: /'
	tail -n 4 /tmp/ppc.out | sed 's/^/#   client: /'
}

# failed_itself STATUS: a pingpong ended on its own, with an error (not
# killed, nor timed out).
failed_itself() { [ "$1" -ge 1 ] && [ "$1" -lt 124 ]; }

no_dev() { ! ibv_devices 2>/dev/null | grep -qw "$1"; }

# 1. rdma link delete under a running process.
start_pp 18801
s0=$SECONDS
check "rdma link delete $D1 while it is in use returns" in1 timeout 60 rdma link delete "$D1"
echo "# rdma link delete took $((SECONDS - s0)) s"
check "$D1 is gone" no_dev "$D1"
both_end "link delete" server
check "$D1 again on veB" in1 rdma link add "$D1" type eri netdev veB
check "$D1 gets the RoCEv2 GID of $B again" wait_for 10 gid_index "$D1" "$B"
G1=$(gid_index "$D1" "$B") || G1=
server_client_port "ibv_rc_pingpong on the new $D1" 18802 \
	ibv_rc_pingpong -d "$D1" -g "$G1" -p 18802 -n 100 -- \
	ibv_rc_pingpong -d "$D0" -g "$G0" -p 18802 -n 100 "$B"

# 2. rdma link delete under a busy-polling process.
start_pp 18805 poll
check "rdma link delete $D1 under a busy-polling process" in1 timeout 60 rdma link delete "$D1"
both_end "link delete, polling" server 5
check "the busy-polling server was told: it failed by itself" failed_itself "$SST"
check "$D1 again on veB" in1 rdma link add "$D1" type eri netdev veB
check "$D1 gets the RoCEv2 GID of $B again" wait_for 10 gid_index "$D1" "$B"
G1=$(gid_index "$D1" "$B") || G1=

# 3. The netdevs go (deleting one end of a veth deletes both).
start_pp 18803
check "ip link delete veA while both devices are in use" in0 timeout 60 ip link delete veA
check "$D0 goes with veA" wait_for 30 no_dev "$D0"
check "$D1 goes with veB" wait_for 30 no_dev "$D1"
both_end "netdev delete"

# 4. eri_sim unloaded under busy-polling processes.
ip link add veA netns "$NS0" type veth peer name veB netns "$NS1"
in0 ip addr add "$A/24" dev veA
in1 ip addr add "$B/24" dev veB
in0 ip link set veA up
in1 ip link set veB up
check "$D0 on the new veA" in0 rdma link add "$D0" type eri netdev veA
check "$D1 on the new veB" in1 rdma link add "$D1" type eri netdev veB
wait_for 10 gid_index "$D0" "$A"
wait_for 10 gid_index "$D1" "$B"
G0=$(gid_index "$D0" "$A") || G0=
G1=$(gid_index "$D1" "$B") || G1=
check "GIDs on the new devices ($G0, $G1)" test -n "$G0" -a -n "$G1"
start_pp 18804 poll
check "modprobe -r eri_sim while both devices are in use" timeout 60 modprobe -r eri_sim
check "both devices are gone" sh -c "! ibv_devices 2>/dev/null | grep -q eri"
both_end "eri_sim unload, polling" "" 5
check "the busy-polling server was told: it failed by itself" failed_itself "$SST"
check "the busy-polling client was told: it failed by itself" failed_itself "$CST"
check "eri unloads" timeout 60 modprobe -r eri
ip netns del "$NS0" 2>/dev/null
ip netns del "$NS1" 2>/dev/null

dmesg > /tmp/unplug.dmesg
check "no WARNING, BUG or splat in the kernel log" \
	sh -c "! grep -E 'WARNING|BUG|Oops|Call Trace|refcount|hung_task|blocked for more' /tmp/unplug.dmesg"
grep -E 'WARNING|BUG|Oops|Call Trace' -A20 /tmp/unplug.dmesg | head -n 60 | sed 's/^/#   /'
finish
