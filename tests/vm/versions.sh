#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Peers of different wire protocol versions (Documentation/infiniband/eri.rst,
# "Versions"), in the guest: eri0 and eri1 in two namespaces on one veth,
# eri1 set through eri_sim's debugfs knob to speak version 4, which eri0
# (version 3) does not accept, nor eri1 version 3.
#   1. an ibv_rc_pingpong client on eri0 against a server on eri1 fails with
#      a completion error (remote invalid request) within 10 s, far sooner
#      than the retry timeout would (7 retries);
#   2. eri1 received no payload byte (rx_bytes), counted the packets of
#      another version (rx_version_drops) and eri0 took the VERSION_NAK
#      (version_naks): on both sides the counters say why;
#   3. the same the other way (eri1's client, eri0's server): an RDMA WRITE
#      stream (ib_write_bw) fails, and eri0 placed nothing;
#   4. eri1 back to version 3: the same pingpong passes, with no new drop.
# check-flavours: 6.12
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
dmesg -C
pair_up eri_ver

# counter DEV NAME: the hw counter NAME of DEV.
counter() {
	rdma statistic show link "$1/1" | tr -s ' ' '\n' |
		awk -v k="$2" 'p { print; exit } $0 == k { p = 1 }'
}

adev=$(basename "$(readlink -f "/sys/class/infiniband/$D1/device")")
V=/sys/kernel/debug/eri_sim/$adev/wire_version
check "eri1's wire version knob ($V) says 3" test "$(cat "$V" 2>/dev/null)" = 3
echo 4 > "$V"
check "eri1 speaks version 4" test "$(cat "$V")" = 4

# mark RECV SEND: the counters a refusal moves, before it: RECV gets the
# packets of another version, SEND takes the VERSION_NAK.
mark() {
	mb=$(counter "$1" rx_bytes) md=$(counter "$1" rx_version_drops)
	mn=$(counter "$2" version_naks)
}
# refused RECV SEND WHAT: since mark, RECV placed no byte of WHAT and counted
# the packets of another version; SEND took a VERSION_NAK.
refused() {
	local b d n
	b=$(($(counter "$1" rx_bytes) - mb))
	d=$(($(counter "$1" rx_version_drops) - md))
	n=$(($(counter "$2" version_naks) - mn))
	echo "# $1: $b payload bytes received, $d packets of another version; $2: $n VERSION_NAKs"
	check "$1 placed no byte of $3 ($b)" test "$b" -eq 0
	check "$1 counted the packets of another version ($d)" test "$d" -gt 0
	check "$2 took a VERSION_NAK ($n)" test "$n" -ge 1
}
# failed_fast WHAT RC SECONDS: the client of WHAT failed by itself in 10 s.
failed_fast() {
	check "$1 fails (exit $2)" test "$2" -ne 0 -a "$2" -ne 124
	check "within 10 s ($3 s)" test "$3" -le 10
}

mark "$D1" "$D0"
in1 timeout 30 ibv_rc_pingpong -d "$D1" -g "$G1" -n 5 > /tmp/srv.out 2>&1 &
spid=$!
wait_for 10 listening 18515
t0=$SECONDS
in0 timeout 30 ibv_rc_pingpong -d "$D0" -g "$G0" -n 5 "$B" > /tmp/cli.out 2>&1
rc=$?
t=$((SECONDS - t0))
sed 's/^/#   client: /' /tmp/cli.out | tail -n 3
failed_fast "the pingpong between versions 3 and 4" "$rc" "$t"
check "with a remote invalid request error" \
	grep -qi 'remote invalid request' /tmp/cli.out
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
refused "$D1" "$D0" "the sends"

# The other way: eri1 (version 4) writes to eri0 (version 3).
mark "$D0" "$D1"
in0 timeout 60 ib_write_bw -d "$D0" -x "$G0" -F -s 4096 -n 200 -p 18660 \
	> /tmp/srv.out 2>&1 &
spid=$!
wait_for 10 eval 'in0 ss -Hltn "sport = :18660" | grep -q .'
t0=$SECONDS
in1 timeout 60 ib_write_bw -d "$D1" -x "$G1" -F -s 4096 -n 200 -p 18660 "$A" \
	> /tmp/cli.out 2>&1
rc=$?
t=$((SECONDS - t0))
grep -iE 'fail|error|status' /tmp/cli.out | head -n 3 | sed 's/^/#   client: /'
failed_fast "ib_write_bw from version 4 to version 3" "$rc" "$t"
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
refused "$D0" "$D1" "the writes"

# Both at version 3 again.
echo 3 > "$V"
d1=$(counter "$D1" rx_version_drops) d0=$(counter "$D0" rx_version_drops)
server_client_port "ibv_rc_pingpong, both at version 3 again" 18515 \
	ibv_rc_pingpong -d "$D1" -g "$G1" -n 20 -- \
	ibv_rc_pingpong -d "$D0" -g "$G0" -n 20 "$B"
d=$(($(counter "$D1" rx_version_drops) - d1 + $(counter "$D0" rx_version_drops) - d0))
check "and no packet of another version ($d)" test "$d" -eq 0

if dmesg | grep -i "eri" | grep -qiv "out-of-tree\|verification failed"; then
	dmesg | grep -i "eri" | sed 's/^/#   dmesg: /' | tail -n 20
fi
pair_down
finish
