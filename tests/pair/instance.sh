#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# One of two instances (tests/pair/two_instances.sh): a guest whose NIC is
# a virtio-net device joined to the other guest's, ERI on it, and the
# standard tools run against the other instance, as two cloud instances
# would.  The "server" instance runs the listening side of each step, the
# "client" the other; a client that fails within a few seconds (its server
# is not up yet: the two guests boot and go through the steps at their own
# pace) is started again, for up to a minute.  The steps:
# ibv_rc_pingpong with data checked (polling, then with events),
# ib_write_bw and ib_send_lat (connected over TCP), rping with verification
# and ib_send_bw through rdma_cm, TCP's iperf3 for comparison, then 1% loss
# on the server's NIC (netem) with ibv_rc_pingpong checking 64 KiB messages
# and ib_write_bw.  Both instances print what they measured and their
# device counters.
#
#   run through scripts/vm-run --netdev ... --rdma-core PREFIX
#   environment: ERI_ROLE server|client, ERI_SELF and ERI_PEER (IPv4
#   addresses of this instance and of the other), ERI_PERFTEST (perftest's
#   bin directory)
set -u
. "$(dirname "$0")/../vm/lib.sh"
. "$(dirname "$0")/guest_lib.sh"

dev=eri0
T=300
echo "# instance: $role, $(uname -r), $self -> $peer"

bring_up
# What the NIC offers: its driver, MTU and offloads.
nic_info() {
	local drv offl
	drv=$(readlink /sys/class/net/eth0/device/driver)
	offl=$(ethtool -k eth0 2>/dev/null |
		grep -E '^(tx-checksumming|generic-segmentation-offload|generic-receive-offload):' |
		tr '\n' ' ' | tr -s ' ')
	echo "# eth0: driver ${drv##*/}, mtu $(cat /sys/class/net/eth0/mtu), $offl"
}
nic_info

# step NAME SERVER... -- CLIENT...: this instance's side of one step.
step() {
	local name=$1 srv=() cli=() t0 rc
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	if [ "$role" = server ]; then
		timeout "$T" "${srv[@]}" > /tmp/step.out 2>&1
		rc=$?
	else
		local deadline=$((SECONDS + 60))
		while :; do
			t0=$SECONDS
			timeout "$T" "${cli[@]}" > /tmp/step.out 2>&1
			rc=$?
			[ "$rc" = 0 ] || [ $((SECONDS - t0)) -ge 5 ] || [ "$SECONDS" -ge "$deadline" ] && break
			sleep 1
		done
	fi
	if [ "$rc" = 0 ]; then
		ok "$name ($role)"
	else
		not_ok "$name ($role): exit $rc"
		sed 's/^/#   /' /tmp/step.out | tail -n 20
	fi
	cp /tmp/step.out "/tmp/step-${name// /_}.out"
}

# A perftest result line: size, iterations, then the figures.
bw_line() { awk '$1 ~ /^[0-9]+$/ && NF >= 5 { l = $0 } END { print l }' "/tmp/step-$1.out"; }

step pingpong ibv_rc_pingpong -d "$dev" -g "$gid" -p 18515 -s 4096 -n 1000 -c -- \
	ibv_rc_pingpong -d "$dev" -g "$gid" -p 18515 -s 4096 -n 1000 -c "$peer"
step pingpong_events ibv_rc_pingpong -d "$dev" -g "$gid" -p 18516 -s 1024 -n 500 -c -e -- \
	ibv_rc_pingpong -d "$dev" -g "$gid" -p 18516 -s 1024 -n 500 -c -e "$peer"
step write_bw "$pt/ib_write_bw" -d "$dev" -x "$gid" -s 65536 -n 2000 -F -p 18517 -- \
	"$pt/ib_write_bw" -d "$dev" -x "$gid" -s 65536 -n 2000 -F -p 18517 "$peer"
[ "$role" = client ] && echo "# ib_write_bw 64 KiB (bytes, iterations, peak, average MB/s, msg/s): $(bw_line write_bw)"
step send_lat "$pt/ib_send_lat" -d "$dev" -x "$gid" -s 2 -n 2000 -F -p 18518 -- \
	"$pt/ib_send_lat" -d "$dev" -x "$gid" -s 2 -n 2000 -F -p 18518 "$peer"
[ "$role" = client ] && echo "# ib_send_lat 2 B (bytes, iterations, t_min, t_max, t_typical, t_avg, t_stdev, p99, p99.9 us): $(bw_line send_lat)"
step rping rping -s -a "$self" -p 18519 -C 200 -S 4096 -V -- \
	rping -c -a "$peer" -p 18519 -C 200 -S 4096 -V
step send_bw_rdma_cm "$pt/ib_send_bw" -R -d "$dev" -s 4096 -n 1000 -F -p 18520 -- \
	"$pt/ib_send_bw" -R -d "$dev" -s 4096 -n 1000 -F -p 18520 "$peer"
# TCP over the same path, for comparison (figures only).
if command -v iperf3 >/dev/null; then
	step tcp_iperf3 iperf3 -s -1 -p 18523 -- iperf3 -c "$peer" -p 18523 -t 3 -f M
	[ "$role" = client ] &&
		echo "# TCP (iperf3, 3 s): $(awk '/sender$/ { print $7, $8 }' /tmp/step-tcp_iperf3.out)"
fi

# 1% loss on the server's NIC, both directions of its traffic through it.
if [ "$role" = server ]; then
	check "netem loss 1% on eth0" tc qdisc add dev eth0 root netem loss 1%
fi
step pingpong_loss1 ibv_rc_pingpong -d "$dev" -g "$gid" -p 18521 -s 65536 -n 300 -c -- \
	ibv_rc_pingpong -d "$dev" -g "$gid" -p 18521 -s 65536 -n 300 -c "$peer"
step write_bw_loss1 "$pt/ib_write_bw" -d "$dev" -x "$gid" -s 65536 -n 1000 -F -p 18522 -- \
	"$pt/ib_write_bw" -d "$dev" -x "$gid" -s 65536 -n 1000 -F -p 18522 "$peer"
[ "$role" = client ] && echo "# ib_write_bw 64 KiB at 1% loss: $(bw_line write_bw_loss1)"
if [ "$role" = server ]; then
	tc -s qdisc show dev eth0 | sed -n 's/^ *\(Sent .*dropped [0-9]*\).*/# netem on eth0: \1/p'
	tc qdisc del dev eth0 root
fi
rdma statistic show link "$dev/1" 2>/dev/null | tr -s ' ' | fold -s -w 120 | sed 's/^/# /'
check "rdma link delete $dev" rdma link delete "$dev"
finish
