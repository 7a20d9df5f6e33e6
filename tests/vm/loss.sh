#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# ERI's transport on a faulty link, in the guest: eri0 and eri1 in two
# network namespaces on the ends of a veth pair (as tests/vm/rc.sh), with
# `tc netem` on both ends of the veth.
#
#   1. Integrity: tests/verbs/eri_rc_test's data check (every opcode:
#      SEND, SEND_IMM, WRITE, WRITE_IMM, READ; 0 B to 1 MiB, random payload,
#      byte-exact with guards) and its several-QP check, lossless and under
#      1% and 10% loss, reordering, duplication and corruption.  The
#      device's counters must move as the fault says (retransmissions and
#      fast retransmits under loss, out-of-order arrivals under reordering,
#      duplicates under duplication) and stay near zero without faults.
#   2. Link cut (netem loss 100%): a WRITE, a SEND and a READ end in
#      RETRY_EXC_ERR (eri_rc_test -T x): the status, not the time.
#   3. ib_write_bw under 1% loss keeps at least half its lossless
#      throughput, both measured in this run (a ratio, never a figure).
#   4. Two ib_write_bw flows through one netem rate limit share it: the
#      smaller moves at least half as many packets as the larger over the
#      second half of the run (per-QP tx_pkts from rdma resource show).
#
#   tests/vm/loss.sh [ALGO]   congestion control of both devices (swift,
#                             dcqcn, fixed; default: the devices' default)
#
# Failing to load eri_sim or to create a device is a failure, never a skip.
#
# Not in make check yet (not executable; issue 6): a 1 MiB READ under 1% and
# 10% loss and corruption still ends in RETRY_EXC_ERR, and the fairness
# sample (4.) comes back empty.  Run it by hand:
#   scripts/vm-run --kernel 6.12 --modules DIR --rdma-core PREFIX tests/vm/loss.sh
set -u
. "$(dirname "$0")/lib.sh"

prefix=${ERI_RDMA_CORE:?run through vm-run --rdma-core}
src=$(dirname "$0")/../verbs/eri_rc_test.c
bin=$(mktemp -d)/eri_rc_test
A=198.18.0.1
B=198.18.0.2
D0=eri0 D1=eri1 NS0=eri_loss0 NS1=eri_loss1
algo=${1:-}
BW_SECS=4	# seconds of each ib_write_bw run
FAIR_SECS=10	# seconds of the two competing flows

in0() { ip netns exec "$NS0" "$@"; }
in1() { ip netns exec "$NS1" "$@"; }
gid_of() { printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${1//./ }; }
has_gid() { cat /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null | grep -qx "$2"; }
gid_index() {
	local f i want
	want=$(gid_of "$2")
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		i=${f##*/}
		[ "$(cat "$f" 2>/dev/null)" = "$want" ] || continue
		if [ "$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"$i" 2>/dev/null)" = "RoCE v2" ]; then
			echo "$i"
			return 0
		fi
	done
	return 1
}

# netem ARGS...: the same fault on both ends (data one way, ACKs the other);
# no arguments: no fault.
netem() {
	in0 tc qdisc del dev veA root 2>/dev/null
	in1 tc qdisc del dev veB root 2>/dev/null
	[ $# -eq 0 ] && return 0
	in0 tc qdisc add dev veA root netem "$@" &&
		in1 tc qdisc add dev veB root netem "$@"
}

# hwstat NAME: the hw counter NAME summed over both devices.
hwstat() {
	local n=0 v d
	for d in 0 1; do
		if [ $d = 0 ]; then
			v=$(in0 rdma statistic show link "$D0/1" 2>/dev/null)
		else
			v=$(in1 rdma statistic show link "$D1/1" 2>/dev/null)
		fi
		v=$(tr -s ' ' '\n' <<<"$v" | awk -v k="$1" 'p { print; exit } $0 == k { p = 1 }')
		n=$((n + ${v:-0}))
	done
	echo "$n"
}
COUNTERS="tx_pkts retrans_pkts fast_retrans tail_loss_probes timeouts ooo_pkts dup_pkts"
declare -A before delta
snap() { local c; for c in $COUNTERS; do before[$c]=$(hwstat "$c"); done; }
deltas() {
	local c line="#   counters:"
	for c in $COUNTERS; do
		delta[$c]=$(( $(hwstat "$c") - ${before[$c]} ))
		line+=" $c ${delta[$c]}"
	done
	echo "$line"
}

check "build eri_rc_test" gcc -O2 -Wall -Wextra -Werror -o "$bin" "$src" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs

# ------------------------------------------------------------------ link
check "modprobe eri_sim" modprobe eri_sim
ip netns add "$NS0"
ip netns add "$NS1"
ip link add veA netns "$NS0" type veth peer name veB netns "$NS1"
in0 ip link set lo up
in1 ip link set lo up
in0 ip addr add "$A/24" dev veA
in1 ip addr add "$B/24" dev veB
in0 ip link set veA up
in1 ip link set veB up
check "ping $B from $A" in0 ping -c 2 -W 5 -I "$A" "$B"
check "rdma link add $D0" in0 rdma link add "$D0" type eri netdev veA
check "rdma link add $D1" in1 rdma link add "$D1" type eri netdev veB
check "$D0 gets the GID of $A" wait_for 10 has_gid "$D0" "$(gid_of $A)"
check "$D1 gets the GID of $B" wait_for 10 has_gid "$D1" "$(gid_of $B)"
G0=$(gid_index "$D0" "$A") || G0=
G1=$(gid_index "$D1" "$B") || G1=
check "RoCEv2 GID indexes: $D0 ${G0:-none}, $D1 ${G1:-none}" test -n "$G0" -a -n "$G1"
if [ -n "$algo" ]; then
	check "congestion control $algo on $D0" sh -c "echo $algo > /sys/class/infiniband/$D0/cc_algo"
	check "congestion control $algo on $D1" sh -c "echo $algo > /sys/class/infiniband/$D1/cc_algo"
fi
echo "# cc_algo: $(cat /sys/class/infiniband/$D0/cc_algo)"
if [ "$T_FAIL" -gt 0 ]; then
	finish
	exit 1
fi

# ------------------------------------------------------------------ integrity
# integrity NAME NETEM-ARGS...: eri_rc_test's data and several-QP checks.
integrity() {
	local name=$1 rc s0=$SECONDS
	shift
	check "netem $name" netem "$@"
	snap
	timeout 900 "$bin" -T ag -i 1 -M 1100000 -t 60 "$D0" "$D1" > /tmp/loss.out 2>&1
	rc=$?
	grep -E '^not ok|^# [0-9]+ passed' /tmp/loss.out | sed 's/^/#   /'
	check "$name: every opcode byte-exact, several QPs (exit $rc, $((SECONDS - s0)) s)" \
		test "$rc" = 0
	deltas
	netem
}

integrity "lossless"
# A lossless link moves without retransmissions; a stalled (TCG) guest
# may time one out now and then: at most 1 in 200 packets.
check "lossless: retransmissions at most 0.5% of packets (${delta[retrans_pkts]} of ${delta[tx_pkts]})" \
	test $((delta[retrans_pkts] * 200)) -le "${delta[tx_pkts]}"
check "lossless: duplicates at most 0.5% of packets (${delta[dup_pkts]})" \
	test $((delta[dup_pkts] * 200)) -le "${delta[tx_pkts]}"

integrity "loss 1%" loss 1%
check "loss 1%: packets were sent again (${delta[retrans_pkts]})" test "${delta[retrans_pkts]}" -gt 0
check "loss 1%: losses were found before a timeout (${delta[fast_retrans]} fast retransmits)" \
	test "${delta[fast_retrans]}" -gt 0
check "loss 1%: packets arrived out of order (${delta[ooo_pkts]})" test "${delta[ooo_pkts]}" -gt 0

integrity "loss 10%" loss 10%
check "loss 10%: packets were sent again (${delta[retrans_pkts]})" test "${delta[retrans_pkts]}" -gt 0

integrity "reorder (25% sent ahead of a 1 ms delay)" delay 1ms reorder 25% 50%
check "reorder: packets arrived out of order (${delta[ooo_pkts]})" test "${delta[ooo_pkts]}" -gt 0

integrity "duplicate 5%" duplicate 5%
check "duplicate: duplicates dropped (${delta[dup_pkts]})" test "${delta[dup_pkts]}" -gt 0

integrity "corrupt 2%" corrupt 2%
check "corrupt: packets were sent again (${delta[retrans_pkts]})" test "${delta[retrans_pkts]}" -gt 0

integrity "all at once" delay 200us loss 2% duplicate 2% corrupt 1% reorder 10% 25%

# ------------------------------------------------------------------ link cut
check "netem loss 100%" netem loss 100%
snap
timeout 300 "$bin" -T x -t 30 "$D0" "$D1" > /tmp/loss.out 2>&1
rc=$?
grep -E 'ok -|^# [0-9]+ passed' /tmp/loss.out | sed 's/^/#   /'
check "cut link: WRITE, SEND, READ end in RETRY_EXC_ERR, QP in ERR (exit $rc)" test "$rc" = 0
deltas
check "cut link: the retransmission timer fired (${delta[timeouts]})" test "${delta[timeouts]}" -gt 0
netem

# ------------------------------------------------------------------ throughput
listening() { in1 ss -Hltn "sport = :$1" | grep -q .; }

# write_bw PORT: one ib_write_bw run of BW_SECS seconds, 64 KiB messages;
# prints its average bandwidth in MB/s (0 when it failed).
write_bw() {
	local srv bw port=$1
	in1 timeout 60 ib_write_bw -d "$D1" -x "$G1" -s 65536 -D "$BW_SECS" -F -p "$port" > /tmp/bws.out 2>&1 &
	srv=$!
	wait_for 30 listening "$port"
	in0 timeout 60 ib_write_bw -d "$D0" -x "$G0" -s 65536 -D "$BW_SECS" -F -p "$port" "$B" > /tmp/bwc.out 2>&1
	wait "$srv"
	bw=$(awk '$1 == 65536 && NF >= 5 { print $4 }' /tmp/bwc.out | tail -n 1)
	echo "${bw:-0}"
}

bw0=$(write_bw 18601)
check "netem loss 1%" netem loss 1%
snap
bw1=$(write_bw 18602)
deltas
netem
echo "# ib_write_bw 64 KiB, $BW_SECS s: lossless $bw0 MB/s, 1% loss $bw1 MB/s (this run)"
check "ib_write_bw ran lossless ($bw0 MB/s)" awk -v a="$bw0" 'BEGIN { exit !(a > 0) }'
check "ib_write_bw under 1% loss keeps >= 50% of lossless throughput ($bw1 / $bw0)" \
	awk -v a="$bw0" -v b="$bw1" 'BEGIN { exit !(a > 0 && b >= a / 2) }'

# ------------------------------------------------------------------ fairness
# Two flows through one bottleneck: netem's rate limit on veA (data) with a
# queue of 200 packets.  Each flow is one QP on eri0; their tx_pkts over
# the second half of the run must be within a factor of two.
qp_tx() {
	in0 rdma resource show qp link "$D0/1" -dd 2>/dev/null |
		awk '/type RC/ { q = "" } { for (i = 1; i < NF; i++) { if ($i == "lqpn") q = $(i + 1); if ($i == "drv_tx_pkts" && q != "") print q, $(i + 1) } }' |
		sort -n
}
check "netem rate 40mbit on $D0's link" in0 tc qdisc add dev veA root netem rate 40mbit limit 200
p1=18603 p2=18604
for p in $p1 $p2; do
	in1 timeout 60 ib_write_bw -d "$D1" -x "$G1" -s 65536 -D "$FAIR_SECS" -F -p "$p" > "/tmp/fs$p.out" 2>&1 &
done
wait_for 30 listening "$p1"
wait_for 30 listening "$p2"
in0 timeout 60 ib_write_bw -d "$D0" -x "$G0" -s 65536 -D "$FAIR_SECS" -F -p "$p1" "$B" > /tmp/fc1.out 2>&1 &
c1=$!
in0 timeout 60 ib_write_bw -d "$D0" -x "$G0" -s 65536 -D "$FAIR_SECS" -F -p "$p2" "$B" > /tmp/fc2.out 2>&1 &
c2=$!
sleep $((FAIR_SECS / 2 + 2))
mid=$(qp_tx)
sleep $((FAIR_SECS / 2 - 3))
end=$(qp_tx)
wait $c1 $c2
wait
in0 rdma resource show qp link "$D0/1" -dd 2>/dev/null | sed 's/^/#   /'
netem
echo "# per-QP tx_pkts at mid-run: $(tr '\n' ' ' <<<"$mid"); near the end: $(tr '\n' ' ' <<<"$end")"
shares=$(join <(echo "$mid") <(echo "$end") | awk '{ print $3 - $2 }' | sort -n | tr '\n' ' ')
echo "# second-half packets of each flow: $shares"
fair() {
	set -- $shares
	[ $# -eq 2 ] && [ "$1" -gt 0 ] && [ $(( $1 * 2 )) -ge "$2" ]
}
check "two flows through one bottleneck: min/max share >= 0.5 ($shares)" fair

# ------------------------------------------------------------------ teardown
echo "# rdma statistic show:"
in0 rdma statistic show link "$D0/1" 2>&1 | sed 's/^/#   ns0: /'
in1 rdma statistic show link "$D1/1" 2>&1 | sed 's/^/#   ns1: /'
check "delete $D0" in0 rdma link delete "$D0"
check "delete $D1" in1 rdma link delete "$D1"
ip netns del "$NS0"
ip netns del "$NS1"
check "rmmod eri_sim" rmmod eri_sim
check "rmmod eri" rmmod eri
finish
