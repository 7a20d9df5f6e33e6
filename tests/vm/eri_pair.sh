# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Two ERI devices on the two ends of a veth pair, each in its own network
# namespace, for guest-side test scripts: sourced (after lib.sh), not run.
#
#   pair_up PREFIX     eri0 in ${PREFIX}0 (veA, $A), eri1 in ${PREFIX}1
#                      (veB, $B); sets G0/G1, the RoCEv2 GID indexes of the
#                      two addresses, and fails the test if anything is
#                      missing
#   pair_down          removes devices, namespaces and modules
#   in0/in1 CMD...     runs CMD in the namespace of eri0/eri1
#   server_client NAME SERVER... -- CLIENT...
#                      server in ns1, client in ns0 (after a pause, with
#                      retries while the server waits), both under timeout
#                      $T; both must exit 0
#   server_client_port NAME PORT SERVER... -- CLIENT...
#                      the same for a server on TCP port PORT: the client
#                      starts once it listens
#   veth_up            only the namespaces $NS0/$NS1 and the veth between
#   listening PORT     a TCP server listens on PORT in ns1
#   netem ARGS...      the same tc netem qdisc on veA and veB (none: removed)
#   hwstat NAME        the hw counter NAME of eri0 and eri1, summed
#   neigh_pin          fixed neighbour entries for $A and $B on the veth, so
#                      that a lossy or cut link never leaves RoCE address
#                      resolution (modify QP to RTR) waiting on ARP
# The GID helpers (gid_of, has_gid, gid_index) are lib.sh's.
A=198.18.0.1
B=198.18.0.2
D0=eri0
D1=eri1
T=${T:-120}

# (An empty NS0/NS1 is the initial namespace: tests/vm/rc.sh's rxe mode.)
in0() { if [ -n "${NS0:-}" ]; then ip netns exec "$NS0" "$@"; else "$@"; fi; }
in1() { if [ -n "${NS1:-}" ]; then ip netns exec "$NS1" "$@"; else "$@"; fi; }
# listening PORT: a TCP server listens on PORT in the namespace of eri1.
listening() { in1 ss -Hltn "sport = :$1" | grep -q .; }

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

# neigh_pin: each end's neighbour entry for the other, fixed.
neigh_pin() {
	in0 ip neigh replace "$B" lladdr "$(in1 cat /sys/class/net/veB/address)" \
		dev veA nud permanent
	in1 ip neigh replace "$A" lladdr "$(in0 cat /sys/class/net/veA/address)" \
		dev veB nud permanent
}

# veth_up: namespaces $NS0 and $NS1 joined by veA ($A) and veB ($B), up.
veth_up() {
	ip netns add "$NS0"
	ip netns add "$NS1"
	ip link add veA netns "$NS0" type veth peer name veB netns "$NS1"
	in0 ip link set lo up
	in1 ip link set lo up
	in0 ip addr add "$A/24" dev veA
	in1 ip addr add "$B/24" dev veB
	in0 ip link set veA up
	in1 ip link set veB up
}

# veth_up_local: veA (A) and veB (B) in the initial namespace, as rdma_rxe on
# 6.1 and the kernel ULPs (NFS, NVMe-oF) need them.  The local table sits
# behind our rules: packets arriving on the veth meet it first (pref 9) and
# are delivered; any other lookup of B (locally generated traffic, and
# rdma_cm's check that the peer of a connection request is reached through
# the device's netdev, a lookup without iif) goes out through veA, of A
# through veB (pref 10).
veth_up_local() {
	local d
	sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.conf.all.accept_local=1
	ip link add veA type veth peer name veB
	for d in veA veB; do
		sysctl -qw "net.ipv6.conf.$d.disable_ipv6=1" \
			"net.ipv4.conf.$d.rp_filter=0" "net.ipv4.conf.$d.accept_local=1"
		ip link set "$d" up
	done
	ip addr add "$A/32" dev veA
	ip addr add "$B/32" dev veB
	ip rule add pref 100 lookup local
	ip rule del pref 0 lookup local
	ip route add "$B" dev veA src "$A" table 1001
	ip route add "$A" dev veB src "$B" table 1002
	ip rule add pref 9 iif veA lookup local
	ip rule add pref 9 iif veB lookup local
	ip rule add pref 10 to "$B" lookup 1001
	ip rule add pref 10 to "$A" lookup 1002
	ip neigh replace "$B" lladdr "$(cat /sys/class/net/veB/address)" dev veA nud permanent
	ip neigh replace "$A" lladdr "$(cat /sys/class/net/veA/address)" dev veB nud permanent
}

pair_up() {
	NS0=${1}0
	NS1=${1}1
	check "modprobe eri_sim" modprobe eri_sim
	veth_up
	check "ping $B from $A" in0 ping -c 2 -W 5 "$B"
	check "rdma link add $D0" in0 rdma link add "$D0" type eri netdev veA
	check "rdma link add $D1" in1 rdma link add "$D1" type eri netdev veB
	check "$D0 gets the RoCEv2 GID of $A" wait_for 10 gid_index "$D0" "$A"
	check "$D1 gets the RoCEv2 GID of $B" wait_for 10 gid_index "$D1" "$B"
	G0=$(gid_index "$D0" "$A") || G0=
	G1=$(gid_index "$D1" "$B") || G1=
	if [ "$T_FAIL" -gt 0 ]; then
		# No devices: nothing can work.  A failure, not a skip.
		finish
		exit 1
	fi
}

pair_down() {
	check "delete $D0" in0 rdma link delete "$D0"
	check "delete $D1" in1 rdma link delete "$D1"
	ip netns del "$NS0" 2>/dev/null
	ip netns del "$NS1" 2>/dev/null
	check "rmmod eri_sim" rmmod eri_sim
	check "rmmod eri" rmmod eri
}

server_client() {
	local name=$1
	shift
	server_client_port "$name" - "$@"
}

# server_client_port NAME PORT SERVER... -- CLIENT...: server_client for a
# server that listens on TCP port PORT (perftest, ibv_*_pingpong): the
# client starts once it listens, and is not retried.  PORT "-": as
# server_client.
server_client_port() {
	local name=$1 port=$2 srv=() spid crc src try
	shift 2
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	# $! is timeout's own pid (ip netns exec execs it): killing it ends
	# the server too.
	if [ -n "${NS1:-}" ]; then
		ip netns exec "$NS1" timeout "$T" "${srv[@]}" > /tmp/srv.out 2>&1 &
	else
		timeout "$T" "${srv[@]}" > /tmp/srv.out 2>&1 &
	fi
	spid=$!
	if [ "$port" != - ]; then
		wait_for 30 listening "$port"
	else
		sleep 2
	fi
	for try in 1 2 3; do
		in0 timeout "$T" "$@" > /tmp/cli.out 2>&1
		crc=$?
		# Retry only while the server still waits for a client.
		[ "$crc" = 0 ] || ! kill -0 "$spid" 2>/dev/null || [ "$port" != - ] && break
		sleep 2
	done
	# A failed client leaves the server waiting: do not wait for its timeout.
	if [ "$crc" != 0 ]; then
		sleep 1
		kill "$spid" 2>/dev/null
	fi
	wait "$spid"
	src=$?
	if [ "$crc" = 0 ] && [ "$src" = 0 ]; then
		ok "$name"
		tail -n 4 /tmp/cli.out | sed 's/^/#   /'
	else
		not_ok "$name (client exit $crc, server exit $src)"
		sed 's/^/#   server: /' /tmp/srv.out | tail -n 60
		sed 's/^/#   client: /' /tmp/cli.out | tail -n 60
	fi
}
