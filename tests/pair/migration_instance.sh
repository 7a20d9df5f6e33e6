#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# One of the two instances of tests/pair/live_migration.sh: the "server"
# stays where it is; the "client" (started with vm-run --migratable) is
# live-migrated to another QEMU while it moves data.  Both bring ERI up on
# their virtio-net NIC as tests/pair/instance.sh does, then run at once: a
# byte-checked RC transfer (rping -V: every 32 KiB ping RDMA-read by the
# server, written back and compared, over rdma_cm), a perftest run
# (ib_write_bw, 64 KiB, for a fixed time) and, on the client, an ICMP ping
# every 100 ms that shows the pause.  Once they are under way the client
# prints "# ready for migration" for the host.  Every program must end
# with its data intact; the client prints what it measured and ERI's
# counters.
#
#   run through scripts/vm-run --netdev ... --rdma-core PREFIX
#   environment: ERI_ROLE server|client, ERI_SELF and ERI_PEER (IPv4
#   addresses), ERI_PERFTEST (perftest's bin directory), ERI_MIG_SECS (how
#   long the transfers run, default 30)
set -u
. "$(dirname "$0")/../vm/lib.sh"
. "$(dirname "$0")/guest_lib.sh"

secs=${ERI_MIG_SECS:-30}
dev=eri0
echo "# instance: $role, $(uname -r), $self -> $peer"

bring_up

# counter NAME: one of ERI's port counters.
counter() {
	rdma statistic show link "$dev/1" 2>/dev/null |
		tr -s ' ' '\n' | awk -v n="$1" 'p { print; exit } $0 == n { p = 1 }'
}

# The pings of the byte-checked transfer: how many fit in about SECS
# seconds, from ten of them.  rping has no time limit of its own.
if [ "$role" = server ]; then
	# Ten pings to calibrate, then the transfer (the client counts and
	# compares: rping's server takes what comes); the perftest server.
	timeout 120 rping -s -a "$self" -p 18531 -C 10 -S 32768 -V > /tmp/rping-cal.out 2>&1
	timeout $((secs * 6)) rping -s -a "$self" -p 18532 -S 32768 -V > /tmp/rping.out 2>&1 &
	rping_pid=$!
	timeout $((secs * 6)) "$pt/ib_write_bw" -d "$dev" -x "$gid" -s 65536 -D "$secs" -F -p 18533 \
		> /tmp/write_bw.out 2>&1 &
	bw_pid=$!
	wait "$rping_pid"
	rping_rc=$?
	wait "$bw_pid"
	bw_rc=$?
	# Without a count rping's server ends in an error when the client
	# disconnects; 124 would be the timeout.
	check "rping server ended with the client (exit $rping_rc)" test "$rping_rc" != 124
	check "ib_write_bw server: exit 0" test "$bw_rc" = 0
	[ "$bw_rc" = 0 ] || sed 's/^/#   /' /tmp/write_bw.out | tail -n 20
else
	# retry CMD...: CMD again while it fails within 5 s (the server is
	# not up yet), for up to a minute.
	retry() {
		local deadline=$((SECONDS + 60)) t0 rc
		while :; do
			t0=$SECONDS
			"$@"
			rc=$?
			[ "$rc" = 0 ] || [ $((SECONDS - t0)) -ge 5 ] || [ "$SECONDS" -ge "$deadline" ] && return "$rc"
			sleep 1
		done
	}
	t0=$(date +%s%N)
	check "rping -V, 10 pings of 32 KiB (calibration)" \
		retry timeout 120 rping -c -a "$peer" -p 18531 -C 10 -S 32768 -V
	per_ping=$((($(date +%s%N) - t0) / 10))
	count=$((secs * 1000000000 / (per_ping > 0 ? per_ping : 1)))
	[ "$count" -ge 50 ] || count=50
	[ "$count" -le 20000 ] || count=20000
	echo "# calibration: $((per_ping / 1000)) us a ping; the transfer: $count pings (32 KiB each)"
	retrans0=$(counter retrans_pkts) timeouts0=$(counter timeouts)
	sleep 1	# the servers restart
	retry timeout $((secs * 6)) rping -c -a "$peer" -p 18532 -C "$count" -S 32768 -V \
		> /tmp/rping.out 2>&1 &
	rping_pid=$!
	sleep 2
	retry timeout $((secs * 6)) "$pt/ib_write_bw" -d "$dev" -x "$gid" -s 65536 -D "$secs" -F -p 18533 "$peer" \
		> /tmp/write_bw.out 2>&1 &
	bw_pid=$!
	ping -i 0.1 -W 1 -w "$secs" "$peer" > /tmp/ping.out 2>&1 &
	ping_pid=$!
	sleep 4
	echo "# ready for migration at $(cut -d' ' -f1 /proc/uptime)s"
	wait "$rping_pid"
	rping_rc=$?
	wait "$bw_pid"
	bw_rc=$?
	wait "$ping_pid"
	check "byte-checked RC transfer across the migration (rping -V, $count x 32 KiB): exit $rping_rc" \
		test "$rping_rc" = 0
	[ "$rping_rc" = 0 ] || sed 's/^/#   /' /tmp/rping.out | tail -n 20
	check "ib_write_bw across the migration: exit $bw_rc" test "$bw_rc" = 0
	[ "$bw_rc" = 0 ] || sed 's/^/#   /' /tmp/write_bw.out | tail -n 20
	# perftest's own rate comes from the time-stamp counter, which the
	# migration may move (one run printed 0.00 MB/s): from its count.
	awk -v s="$secs" '$1 ~ /^[0-9]+$/ && NF >= 5 { b = $1; n = $2 }
		END { printf "# ib_write_bw %d B writes for %d s: %d completed, %.2f MB/s\n", b, s, n, b * n / s / 1e6 }' \
		/tmp/write_bw.out
	# The pause as ICMP sees it: the longest run of pings without an answer.
	awk -F'icmp_seq=' '/icmp_seq=/ { split($2, a, " "); s = a[1] + 0
		if (last && s - last - 1 > gap) gap = s - last - 1; last = s }
		END { printf "# ping every 100 ms: longest run without an answer %d pings (%.1f s)\n", gap, gap / 10 }' \
		/tmp/ping.out
	grep -E 'packets transmitted' /tmp/ping.out | sed 's/^/# ping: /'
	echo "# ERI during the transfers, the migration included: $(($(counter retrans_pkts) - retrans0)) packets sent again, $(($(counter timeouts) - timeouts0)) retransmission timeouts"
fi
rdma statistic show link "$dev/1" 2>/dev/null | tr -s ' ' | fold -s -w 120 | sed 's/^/# /'
check "rdma link delete $dev" rdma link delete "$dev"
finish
