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

b1=$(counter "$D1" rx_bytes) d1=$(counter "$D1" rx_version_drops)
n0=$(counter "$D0" version_naks)
in1 timeout 30 ibv_rc_pingpong -d "$D1" -g "$G1" -n 5 > /tmp/srv.out 2>&1 &
spid=$!
wait_for 10 listening 18515
t0=$SECONDS
in0 timeout 30 ibv_rc_pingpong -d "$D0" -g "$G0" -n 5 "$B" > /tmp/cli.out 2>&1
rc=$?
t=$((SECONDS - t0))
sed 's/^/#   client: /' /tmp/cli.out | tail -n 3
check "the pingpong between versions 3 and 4 fails (exit $rc)" \
	test "$rc" -ne 0 -a "$rc" -ne 124
check "with a remote invalid request error" \
	grep -qi 'remote invalid request' /tmp/cli.out
check "within 10 s ($t s)" test "$t" -le 10
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
b=$(($(counter "$D1" rx_bytes) - b1)) d=$(($(counter "$D1" rx_version_drops) - d1))
n=$(($(counter "$D0" version_naks) - n0))
echo "# eri1: $b payload bytes received, $d packets of another version; eri0: $n VERSION_NAKs"
check "eri1 received no payload byte ($b)" test "$b" -eq 0
check "eri1 counted the packets of version 3 ($d)" test "$d" -gt 0
check "eri0 took a VERSION_NAK ($n)" test "$n" -ge 1

# The other way: eri1 (version 4) writes to eri0 (version 3).
b0=$(counter "$D0" rx_bytes) d0=$(counter "$D0" rx_version_drops)
n1=$(counter "$D1" version_naks)
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
check "ib_write_bw from version 4 to version 3 fails (exit $rc)" \
	test "$rc" -ne 0 -a "$rc" -ne 124
check "within 10 s ($t s)" test "$t" -le 10
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
b=$(($(counter "$D0" rx_bytes) - b0)) d=$(($(counter "$D0" rx_version_drops) - d0))
n=$(($(counter "$D1" version_naks) - n1))
echo "# eri0: $b payload bytes received, $d packets of another version; eri1: $n VERSION_NAKs"
check "eri0 placed no byte of the writes ($b)" test "$b" -eq 0
check "eri0 counted the packets of version 4 ($d)" test "$d" -gt 0
check "eri1 took a VERSION_NAK ($n)" test "$n" -ge 1

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
