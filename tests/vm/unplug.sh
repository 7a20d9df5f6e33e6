#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Devices removed while applications use them, in the guest: an
# ibv_rc_pingpong with completion events (-e) runs between eri0 and eri1
# (two namespaces, one veth) and, while it runs,
#   1. "rdma link delete" removes eri1: it returns at once (ib_core does
#      not wait for the processes: the driver lets it disassociate their
#      contexts), the process on eri1 ends (its wait for a completion event
#      fails), and a new eri1 on the same netdev works;
#   2. the veth is deleted: both devices go with their netdevs, both
#      processes end;
#   3. eri_sim is unloaded: the devices go, both processes end, eri unloads.
# A process that only polls its CQ is not told: its rings and doorbells are
# a dummy page from then on, as on every RDMA device; and the process on
# eri0 in 1. waits for its peer's message for ever, as RC has no keepalive.
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

# start_pp PORT: a pingpong of $N iterations in the background, server on
# eri1, client on eri0; sets SPID and CPID; both QPs must reach RTS.
start_pp() {
	in1 timeout 300 ibv_rc_pingpong -d "$D1" -g "$G1" -p "$1" -n "$N" -e > /tmp/pps.out 2>&1 &
	SPID=$!
	wait_for 30 listening "$1"
	in0 timeout 300 ibv_rc_pingpong -d "$D0" -g "$G0" -p "$1" -n "$N" -e "$B" > /tmp/ppc.out 2>&1 &
	CPID=$!
	check "pingpong on port $1 runs (RC QPs in RTS on both devices)" \
		wait_for 30 both_rts
}

# ended PID: the process is gone.
ended() { ! kill -0 "$1" 2>/dev/null; }

# both_end WHAT [server]: the two pingpong processes (or the server only)
# end within 30 s; what is left is killed.
both_end() {
	check "$1: the server process ends" wait_for 30 ended "$SPID"
	[ "${2:-}" = server ] ||
		check "$1: the client process ends" wait_for 30 ended "$CPID"
	kill "$SPID" "$CPID" 2>/dev/null
	wait "$SPID" "$CPID" 2>/dev/null
	tail -n 2 /tmp/pps.out | sed 's/^/#   server: /'
	tail -n 2 /tmp/ppc.out | sed 's/^/#   client: /'
}

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

# 2. The netdevs go (deleting one end of a veth deletes both).
start_pp 18803
check "ip link delete veA while both devices are in use" in0 timeout 60 ip link delete veA
check "$D0 goes with veA" wait_for 30 no_dev "$D0"
check "$D1 goes with veB" wait_for 30 no_dev "$D1"
both_end "netdev delete"

# 3. eri_sim unloaded under a running process.
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
start_pp 18804
check "modprobe -r eri_sim while both devices are in use" timeout 60 modprobe -r eri_sim
check "both devices are gone" sh -c "! ibv_devices 2>/dev/null | grep -q eri"
both_end "eri_sim unload"
check "eri unloads" timeout 60 modprobe -r eri
ip netns del "$NS0" 2>/dev/null
ip netns del "$NS1" 2>/dev/null

dmesg > /tmp/unplug.dmesg
check "no WARNING, BUG or splat in the kernel log" \
	sh -c "! grep -E 'WARNING|BUG|Oops|Call Trace|refcount|hung_task|blocked for more' /tmp/unplug.dmesg"
grep -E 'WARNING|BUG|Oops|Call Trace' -A20 /tmp/unplug.dmesg | head -n 60 | sed 's/^/#   /'
finish
