#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# RC queue pairs end to end, in the guest: tests/verbs/eri_rc_test.c (built
# here against the rdma-core prefix) between two devices on the two ends of
# a veth pair; with eri, tests/verbs/eri_exverbs_test.c (the extended verbs:
# ibv_qp_ex posting, ibv_cq_ex polling); then the standard tools across the
# same link:
# ibv_rc_pingpong (polling and with events), perftest (send/write/read,
# bandwidth and latency), perftest through rdma_cm and rping with
# verification; every run under `timeout`.
# Ends with `rdma statistic show` and removes everything it made.
#
#   tests/vm/rc.sh [eri|rxe] [quick]   (or ERI_RC_TYPE=eri|rxe; default eri)
#
# quick (what make check runs on the debug kernel, where KASAN and lockdep
# under TCG make everything several times slower): eri_rc_test moves
# messages up to 256 KiB only, with six times its usual completion timeout.
#
# eri (the default, what `make check` runs): eri0 and eri1 in two network
# namespaces, eri_rc0 (veA, 198.18.0.1/24) and eri_rc1 (veB, 198.18.0.2/24).
# Failing to load eri_sim or to create a device is a failure, never a skip.
#
# rxe: validation of this test against Linux's soft-RoCE, as
#   scripts/vm-run --kernel 6.12 --rdma-core PREFIX tests/vm/rc.sh rxe
# rdma_rxe (6.1) works only in the initial network namespace, so rxe0 and
# rxe1 sit on veA and veB there, and policy routing (as in tests/bench/
# guest.py) makes the traffic between the two local addresses cross the
# veth instead of lo: two devices, a real wire, not loopback through one
# device.  eri_rc_test then runs with "-q rxe": the checks rdma_rxe is known
# to fail print "# TODO rxe" instead of counting (see eri_rc_test.c).
# make check runs it on 6.1 and 6.12 (on 6.1-cloud, kverbs.sh moves data).
# check-flavours: 6.1 6.12
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"	# in0/in1, server_client_port (not pair_up)

type=${1:-${ERI_RC_TYPE:-eri}}
quick=${2:-}
prefix=${ERI_RDMA_CORE:?run through vm-run --rdma-core}
src=$(dirname "$0")/../verbs/eri_rc_test.c
bin=$(mktemp -d)/eri_rc_test
T=120		# seconds for one tool run
quirks=()

case $type in
eri)
	D0=eri0 D1=eri1 NS0=eri_rc0 NS1=eri_rc1 mod=eri_sim ;;
rxe)
	D0=rxe0 D1=rxe1 NS0='' NS1='' mod=rdma_rxe
	quirks=(-q rxe) ;;
*)
	echo "usage: $0 [eri|rxe] [quick]" >&2
	exit 2 ;;
esac
# The integrity checks alone move about 46 MiB, in both directions (quick:
# about 2 MiB).
min_bytes=41943040 min_each=1048576
case $quick in
"") ;;
quick)
	quirks+=(-M 262144 -t 60)
	min_bytes=1048576 min_each=262144 ;;
*)
	echo "usage: $0 [eri|rxe] [quick]" >&2
	exit 2 ;;
esac
echo "# device type $type: $D0 on veA ($A), $D1 on veB ($B)"

tx_bytes() { in0 cat /sys/class/net/veA/statistics/tx_bytes; }
rx_bytes() { in0 cat /sys/class/net/veA/statistics/rx_bytes; }

check "build eri_rc_test" gcc -O2 -Wall -Wextra -Werror -o "$bin" "$src" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs
xsrc=$(dirname "$0")/../verbs/eri_exverbs_test.c
xbin=$(dirname "$bin")/eri_exverbs_test
check "build eri_exverbs_test" gcc -O2 -Wall -Wextra -Werror -o "$xbin" "$xsrc" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs

# ------------------------------------------------------------------ link
if [ "$type" = eri ]; then
	check "modprobe eri_sim" modprobe eri_sim
	veth_up
else
	check "modprobe rdma_rxe" modprobe rdma_rxe
	veth_up_local
fi
t0=$(tx_bytes)
check "ping $B from $A" in0 ping -c 2 -W 5 -I "$A" "$B"
check "... crosses the veth" test "$(tx_bytes)" -gt "$t0"

check "rdma link add $D0" in0 rdma link add "$D0" type "$type" netdev veA
check "rdma link add $D1" in1 rdma link add "$D1" type "$type" netdev veB
check "ibv_devices lists $D0 and $D1" sh -c "ibv_devices | grep -qw $D0 && ibv_devices | grep -qw $D1"
check "$D0 gets the GID of $A" wait_for 10 has_gid "$D0" "$(gid_of $A)"
check "$D1 gets the GID of $B" wait_for 10 has_gid "$D1" "$(gid_of $B)"
G0=$(gid_index "$D0" "$A") || G0=
G1=$(gid_index "$D1" "$B") || G1=
check "RoCEv2 GID indexes: $D0 ${G0:-none}, $D1 ${G1:-none}" test -n "$G0" -a -n "$G1"
if [ "$T_FAIL" -gt 0 ]; then
	# No devices: nothing below can work.  A failure, not a skip.
	ibv_devices 2>&1 | sed 's/^/#   /'
	finish
	exit 1
fi
ibv_devinfo -v -d "$D0" 2>&1 | grep -E 'max_qp_wr|max_sge|active_mtu|max_qp_rd_atom|state:' | sed 's/^/#   /'

# ------------------------------------------------------------------ eri_rc_test
tx0=$(tx_bytes) rx0=$(rx_bytes) s0=$SECONDS
timeout 600 "$bin" "${quirks[@]}" "$D0" "$D1" > /tmp/rc.out 2>&1
rc=$?
cat /tmp/rc.out
check "eri_rc_test $D0 $D1 (exit $rc, $((SECONDS - s0)) s)" test "$rc" = 0
tx=$(( $(tx_bytes) - tx0 )) rx=$(( $(rx_bytes) - rx0 ))
echo "# veA: $tx bytes sent, $rx bytes received during eri_rc_test"
check "its traffic crossed the veth (> $((min_bytes >> 10)) KiB, > $((min_each >> 10)) KiB each way)" \
	test $((tx + rx)) -gt "$min_bytes" -a "$tx" -gt "$min_each" -a "$rx" -gt "$min_each"

# ------------------------------------------------------------------ extended verbs
# ERI's own contract (what liberi offers and refuses); rdma_rxe offers more.
if [ "$type" = eri ]; then
	s0=$SECONDS
	timeout 300 "$xbin" "$D0" "$G0" "$D1" "$G1" > /tmp/exverbs.out 2>&1
	rc=$?
	cat /tmp/exverbs.out
	check "eri_exverbs_test: ibv_qp_ex and ibv_cq_ex (exit $rc, $((SECONDS - s0)) s)" \
		test "$rc" = 0
fi

# ------------------------------------------------------------------ tools
port=18515
for size in 4096 65536; do
	port=$((port + 1))
	server_client_port "ibv_rc_pingpong $size bytes, 5 iterations, checked" "$port" \
		ibv_rc_pingpong -d "$D1" -g "$G1" -s "$size" -n 5 -c -p "$port" -- \
		ibv_rc_pingpong -d "$D0" -g "$G0" -s "$size" -n 5 -c -p "$port" "$B"
done
# With -e the pingpong sleeps on the completion channel: CQ events.
port=$((port + 1))
server_client_port "ibv_rc_pingpong -e 8192 bytes, 5 iterations, checked" "$port" \
	ibv_rc_pingpong -d "$D1" -g "$G1" -s 8192 -n 5 -c -e -p "$port" -- \
	ibv_rc_pingpong -d "$D0" -g "$G0" -s 8192 -n 5 -c -e -p "$port" "$B"

for tool in ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat ib_read_lat; do
	port=$((port + 1))
	server_client_port "$tool -n 200" "$port" \
		"$tool" -d "$D1" -x "$G1" -n 200 -F -p "$port" -- \
		"$tool" -d "$D0" -x "$G0" -n 200 -F -p "$port" "$B"
done

# rdma_cm: the CM's MADs over QP1 (tests/vm/rdma_cm.sh has more).
check "modprobe rdma_ucm" modprobe rdma_ucm
server_client_port "ib_write_bw -R (rdma_cm) -n 200" - \
	ib_write_bw -R -d "$D1" -n 200 -F -- \
	ib_write_bw -R -d "$D0" -n 200 -F "$B"

server_client_port "rping -C 10 -V (rdma_cm, verified)" - \
	rping -s -a "$B" -C 10 -V -- \
	rping -c -a "$B" -C 10 -V

# Per-QP counters (doorbells, packets) of a QP with traffic in flight, in
# `rdma resource show qp -dd`: an ERI driver attribute.
if [ "$type" = eri ]; then
	port=$((port + 1))
	# The pingpong runs until the look is done (up to 30 s on a loaded
	# host, where the client alone may take seconds to connect).
	in1 timeout 90 ibv_rc_pingpong -d "$D1" -g "$G1" -n 1000000 -p "$port" > /tmp/res-srv.out 2>&1 &
	rsrv=$!
	wait_for 30 listening "$port"
	in0 timeout 90 ibv_rc_pingpong -d "$D0" -g "$G0" -n 1000000 -p "$port" "$B" > /tmp/res-cli.out 2>&1 &
	rcli=$!
	res=
	deadline=$((SECONDS + 30))
	while [ "$SECONDS" -lt "$deadline" ]; do
		res=$(in0 rdma resource show qp link "$D0/1" -dd 2>&1 | grep -A3 'type RC' || true)
		grep -q 'drv_sq_kicks [1-9]' <<<"$res" && break
		sleep 0.2
	done
	sed 's/^/#   /' <<<"$res"
	has_kicks() { grep -q 'drv_sq_kicks [1-9]' <<<"$res"; }
	check "rdma resource show qp shows the QP's doorbells and packets" has_kicks
	kill "$rcli" "$rsrv" 2>/dev/null
	wait "$rcli" "$rsrv"
fi

# ------------------------------------------------------------------ counters
echo "# rdma statistic show:"
rdma statistic show 2>&1 | sed 's/^/#   /'
if [ "$type" = eri ]; then
	in0 rdma statistic show link "$D0/1" 2>&1 | sed 's/^/#   ns0: /'
	in1 rdma statistic show link "$D1/1" 2>&1 | sed 's/^/#   ns1: /'
fi

# ------------------------------------------------------------------ teardown
check "delete $D0" in0 rdma link delete "$D0"
check "delete $D1" in1 rdma link delete "$D1"
check "devices are gone" wait_for 10 sh -c "! test -e /sys/class/infiniband/$D0 && ! test -e /sys/class/infiniband/$D1"
if [ "$type" = eri ]; then
	ip netns del "$NS0"
	ip netns del "$NS1"
	check "rmmod eri_sim" rmmod eri_sim
	check "rmmod eri" rmmod eri
else
	ip link del veA
	ip rule del pref 9 iif veA lookup local
	ip rule del pref 9 iif veB lookup local
	ip rule del pref 10 to "$B" lookup 1001
	ip rule del pref 10 to "$A" lookup 1002
	ip rule add pref 0 lookup local
	ip rule del pref 100 lookup local
	check "rmmod rdma_rxe" rmmod rdma_rxe
fi
finish
