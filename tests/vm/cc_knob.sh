#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The congestion-control knob, in the guest: /sys/class/infiniband/eri0/cc_algo
# lists the algorithms the device names (QUERY_CC) with the active one in
# brackets, a write of a name selects it (SET_CC), a bogus name fails and
# changes nothing, QPs take the algorithm active when they are created and
# keep it, and each device has its own.  The names are read from the knob:
# only the default, bbr, and the algorithms the checks pick are named
# here.  Then, on a pair of devices, a QP running ib_write_bw
# shows its congestion-control state (QUERY_QP_CC) in "rdma resource show
# qp -dd", with values that fit bbr and fixed, and the eri_sim_cc
# tracepoint shows bbr's ACKs.
# make check runs it on 6.12 only: the knob is the device's, the same on
# every kernel.
# check-flavours: 6.12
set -u
. "$(dirname "$0")/lib.sh"

F=/sys/class/infiniband/eri0/cc_algo
# CC_KNOB_QP_CHECKS=0 skips the per-QP checks.
QP_CHECKS=${CC_KNOB_QP_CHECKS:-1}
NS=eri_cc
in_ns() { ip netns exec "$NS" "$@"; }
shows() { test "$(cat "$F")" = "$1"; }
# names FILE: the knob's names, brackets removed, one per line.
names() { tr ' ' '\n' <"$1" | tr -d '[]'; }
# active FILE: the bracketed name.
active() { tr ' ' '\n' <"$1" | sed -n 's/^\[\(.*\)\]$/\1/p'; }
# well_formed FILE: names of [a-z0-9_]{1,15} separated by single spaces,
# none twice, exactly one in brackets.
well_formed() {
	local line
	line=$(cat "$1")
	echo "$line" | grep -Eq '^\[?[a-z0-9_]{1,15}\]?( \[?[a-z0-9_]{1,15}\]?)*$' &&
		test "$(echo "$line" | grep -o '\[' | wc -l)" = 1 &&
		test "$(names "$1" | sort | uniq -d | wc -l)" = 0
}
# offered NAME: the knob lists NAME.
offered() { names "$F" | grep -qx "$1"; }
# qp_algo: the drv_cc_algo of the QP with local QPN $1.
qp_algo() {
	in_ns rdma resource show qp link eri0/1 -dd 2>/dev/null |
		awk -v q="$1" '{
			for (i = 1; i < NF; i++) {
				if ($i == "lqpn") n = $(i + 1)
				if ($i == "drv_cc_algo" && n == q) print $(i + 1)
			}
		}'
}
# start_qp PORT: a pingpong server whose QP waits for a peer; prints its QPN.
start_qp() {
	# Not through in_ns: $! must be timeout itself, which passes on the kill.
	ip netns exec "$NS" timeout 60 stdbuf -oL \
		ibv_rc_pingpong -d eri0 -g 0 -p "$1" >/tmp/cc-pp-$1.out 2>&1 &
	echo $! >/tmp/cc-pp-$1.pid
	wait_for 10 grep -q "local address" /tmp/cc-pp-$1.out &&
		sed -n 's/.*QPN 0x\([0-9a-f]*\).*/\1/p' /tmp/cc-pp-$1.out | head -1
}
stop_qp() {
	[ -f /tmp/cc-pp-$1.pid ] || return 0
	kill "$(cat /tmp/cc-pp-$1.pid)" 2>/dev/null
	wait "$(cat /tmp/cc-pp-$1.pid)" 2>/dev/null
	sed 's/^/#   /' /tmp/cc-pp-$1.out
}

modprobe eri_sim
ip netns add "$NS"
ip link add veA netns "$NS" type veth peer name veB
ip link set veB up
in_ns ip link set lo up
in_ns ip link set veA up
in_ns ip addr add 198.18.0.1/24 dev veA
check "rdma link add eri0" in_ns rdma link add eri0 type eri netdev veA
check "cc_algo exists" test -f "$F"
echo "# cc_algo: $(cat "$F")"
check "the knob is well formed" well_formed "$F"
check "the default is active: bbr" test "$(active "$F")" = bbr
default_line=$(cat "$F")
# same_names: the knob lists the names it listed at first, in that order.
same_names() { test "$(names "$F" | tr '\n' ' ')" = "$(echo "$default_line" | tr -d '[]') "; }
# Every name the device offers can be selected.
for n in $(names "$F"); do
	check "select $n" sh -c "echo $n > $F"
	check "$n is active" test "$(active "$F")" = "$n"
	check "the knob lists the same names" same_names
done
check "select bbr without a newline" sh -c "printf bbr > $F"
check "bbr is active" shows "$default_line"
# refused VALUE: writing VALUE fails with EINVAL.
refused() { ! /bin/echo "$1" > "$F" 2>/tmp/cc-w.err && grep -q "Invalid argument" /tmp/cc-w.err; }
first=$(names "$F" | head -1)
check "a bogus name is refused with EINVAL" refused no_such_algo
check "an empty line is refused with EINVAL" refused ""
check "a prefix of a name is refused with EINVAL" refused "${first%?}"
check "a name with a suffix is refused with EINVAL" refused "${first}x"
check "a refused write changes nothing" shows "$default_line"
check "swift is offered" offered swift
check "dcqcn is offered" offered dcqcn
check "bbr is offered" offered bbr
check "select dcqcn again" sh -c "echo dcqcn > $F"

# QPs take the algorithm active when they are created, and keep it.
qpn1=$(start_qp 18515)
check "a QP is created (QPN ${qpn1:-none})" test -n "$qpn1"
if [ -n "$qpn1" ]; then
	n1=$((16#$qpn1))
	wait_for 5 sh -c "ip netns exec $NS rdma resource show qp link eri0/1 | grep -q 'lqpn $n1 '"
	in_ns rdma resource show qp link eri0/1 -dd 2>&1 | sed 's/^/#   /'
	if [ "$QP_CHECKS" = 1 ]; then
		check "the QP shows dcqcn" test "$(qp_algo "$n1")" = dcqcn
		check "select swift" sh -c "echo swift > $F"
		qpn2=$(start_qp 18516)
		check "a second QP is created" test -n "$qpn2"
		check "the new QP shows swift" test "$(qp_algo "$((16#${qpn2:-0}))")" = swift
		check "the first QP kept dcqcn" test "$(qp_algo "$n1")" = dcqcn
		check "select bbr" sh -c "echo bbr > $F"
		qpn3=$(start_qp 18517)
		check "a third QP is created" test -n "$qpn3"
		check "the new QP shows bbr" test "$(qp_algo "$((16#${qpn3:-0}))")" = bbr
	else
		echo "ok - # SKIP per-QP algorithm: eri_sim QPs do not take sdev->cc_algo yet"
	fi
fi
stop_qp 18517
stop_qp 18516
stop_qp 18515

# The knob is per device: a second device starts at the default, and
# choosing for one leaves the other alone.
check "select swift on eri0" sh -c "echo swift > $F"
swift_line=$(cat "$F")
ip link add veC netns "$NS" type veth peer name veD
in_ns ip link set veC up
check "rdma link add eri1" in_ns rdma link add eri1 type eri netdev veC
F1=/sys/class/infiniband/eri1/cc_algo
check "eri1 starts at the default, bbr" test "$(cat $F1)" = "$default_line"
check "select dcqcn on eri1" sh -c "echo dcqcn > $F1"
check "eri0 kept swift" shows "$swift_line"
check "rdma link delete eri1" rdma link delete eri1

check "rdma link delete eri0" rdma link delete eri0
check "rmmod eri_sim eri" sh -c "rmmod eri_sim && rmmod eri"
ip netns del "$NS"

# A running QP shows its congestion-control state (QUERY_QP_CC) by name in
# "rdma resource show qp -dd": bbr its model, fixed its constant window.
# The sending QP (eri0's) is read half way through an ib_write_bw; the
# eri_sim:eri_sim_cc tracepoint is read over the bbr run.
. "$(dirname "$0")/eri_pair.sh"
DD_SECS=8
pair_up eri_ccdd
TR=/sys/kernel/tracing
[ -d $TR/events ] || mount -t tracefs nodev $TR 2>/dev/null
EV=$TR/events/eri_sim/eri_sim_cc
# dd_val FILE NAME: the value of drv_NAME of the RC QP in FILE ("" if none).
dd_val() {
	tr -s ' \t' '\n\n' <"$1" | awk -v k="drv_$2" '
		$0 == "type" { getline t; rc = (t == "RC"); next }
		rc && p { print; exit }
		rc && $0 == k { p = 1 }'
}
# num_in FILE NAME LO HI: drv_NAME is a number within [LO, HI].
num_in() {
	local v
	v=$(dd_val "$1" "$2")
	[[ "$v" =~ ^[0-9]+$ ]] && [ "$v" -ge "$3" ] && [ "$v" -le "$4" ]
}
# pos FILE NAME: drv_NAME is a number above 0 (a u64: no shell arithmetic).
pos() { [[ "$(dd_val "$1" "$2")" =~ ^[1-9][0-9]*$ ]]; }
# running_dd ALGO PORT: ALGO on both devices; eri0's QPs during a write.
running_dd() {
	local algo=$1 port=$2 out=/tmp/cc-dd-$1.txt
	echo "$algo" > /sys/class/infiniband/eri0/cc_algo
	echo "$algo" > /sys/class/infiniband/eri1/cc_algo
	in1 timeout 60 ib_write_bw -d "$D1" -x "$G1" -s 65536 -D "$DD_SECS" -F \
		-p "$port" > /tmp/cc-bws.out 2>&1 &
	wait_for 30 listening "$port"
	in0 timeout 60 ib_write_bw -d "$D0" -x "$G0" -s 65536 -D "$DD_SECS" -F \
		-p "$port" "$B" > /tmp/cc-bwc.out 2>&1 &
	sleep $((DD_SECS / 2 + 2))
	in0 rdma resource show qp link "$D0/1" -dd > "$out" 2>&1
	wait
	sed 's/^/#   /' "$out"
	grep -h -E '^ *65536' /tmp/cc-bwc.out | sed 's/^/#   ib_write_bw: /'
}
if [ -d $EV ]; then
	echo 0 > $TR/trace
	echo 1 > $EV/enable
fi
running_dd bbr 18531
F=/tmp/cc-dd-bbr.txt
check "bbr: the running QP shows bbr" test "$(dd_val $F cc_algo)" = bbr
check "bbr: a mode of bbr's ($(dd_val $F cc_mode))" \
	grep -Eqx 'startup|drain|probe_bw|probe_rtt' <<<"$(dd_val $F cc_mode)"
check "bbr: paced ($(dd_val $F pacing_rate) B/s)" pos $F pacing_rate
check "bbr: a bandwidth estimate ($(dd_val $F bw) B/s)" pos $F bw
check "bbr: RTT samples ($(dd_val $F rtt_samples))" pos $F rtt_samples
samples=$(dd_val $F rtt_samples) sum=$(dd_val $F rtt_sum_us)
mean=$(( ${sum:-0} / ${samples:-1} + 1 ))
check "bbr: 0 < min_rtt_us ($(dd_val $F min_rtt_us)) <= mean RTT ($mean us)" \
	num_in $F min_rtt_us 1 $mean
# shown FILE NAME...: each drv_NAME is there with a number.
shown() {
	local f=$1 k
	shift
	for k; do [[ "$(dd_val "$f" "$k")" =~ ^[0-9]+$ ]] || return 1; done
}
check "bbr: srtt_us and rttvar_us shown" shown $F srtt_us rttvar_us
check "bbr: quantum within 2-64" num_in $F cc_quantum 2 64
check "bbr: window of at least 4 packets" num_in $F cwnd 4 256
check "bbr: inflight_hi shown" num_in $F inflight_hi 1 4294967295
check "bbr: inflight_lo shown" num_in $F inflight_lo 1 4294967295
check "bbr: cuts, losses, ECN echoes, timeouts shown" \
	shown $F cc_cuts cc_losses cc_ecn_echoes cc_timeouts
if [ -d $EV ]; then
	echo 0 > $EV/enable
	grep -m 3 eri_sim_cc: $TR/trace | sed 's/^/#   /'
	check "the eri_sim_cc tracepoint shows bbr's ACKs" \
		grep -Eq "eri_sim_cc: eri0 qpn=[0-9]+ ack algo=3 mode=[a-z_]+ cwnd=" $TR/trace
	echo 0 > $TR/trace
else
	echo "ok - # SKIP the eri_sim_cc tracepoint: no tracefs"
fi
running_dd fixed 18532
F=/tmp/cc-dd-fixed.txt
check "fixed: the running QP shows fixed" test "$(dd_val $F cc_algo)" = fixed
check "fixed: not paced" test "$(dd_val $F pacing_rate)" = 0
check "fixed: no bandwidth estimate" test "$(dd_val $F bw)" = 0
check "fixed: a window of 128" test "$(dd_val $F cwnd)" = 128
check "fixed: quantum 64" test "$(dd_val $F cc_quantum)" = 64
check "fixed: RTT samples ($(dd_val $F rtt_samples))" pos $F rtt_samples
check "fixed: min_rtt_us > 0" num_in $F min_rtt_us 1 4294967295
# The RC QP's line only: the GSI QP has the device's default, bbr.
check "fixed: no mode, no bounds" sh -c "! grep ' type RC ' $F |
	grep -Eq 'drv_(cc_mode|inflight_hi|inflight_lo) '"
pair_down
finish
