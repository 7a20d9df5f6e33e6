# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for the host side of the two-instance tests (two_instances.sh,
# live_migration.sh): sourced, not run.  They use the scripts' $top.

# default_instance FLAVOUR: FLAVOUR=build/<its release>
default_instance() {
	echo "$1=$top/build/$("$top/scripts/kernel.sh" version "$1")"
}

# The options both tests take, into $server, $client, $rdma_core,
# $perftest and $timeout.
server='' client='' rdma_core='' perftest='' timeout=900
# pair_option NAME VALUE: takes NAME if it is one of them (status 0).
pair_option() {
	case $1 in
	--server)    server=$2 ;;
	--client)    client=$2 ;;
	--rdma-core) rdma_core=$2 ;;
	--perftest)  perftest=$2 ;;
	--timeout)   timeout=$2 ;;
	*)           return 1 ;;
	esac
}
# pair_defaults: after the options, the defaults; --rdma-core and
# --perftest are needed.
pair_defaults() {
	[ -n "$rdma_core" ] && [ -n "$perftest" ] ||
		{ echo "${0##*/}: --rdma-core and --perftest are needed" >&2; exit 2; }
	[ -n "$server" ] || server=$(default_instance 6.1-cloud)
	[ -n "$client" ] || client=$(default_instance 6.12)
}

# free_ports N: N UDP ports of the loopback nobody uses now, on one line.
free_ports() {
	python3 -c '
import socket, sys
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))' "$1"
}

# dgram LOCAL REMOTE: a QEMU datagram netdev from loopback port LOCAL to
# loopback port REMOTE.
dgram() {
	echo "dgram,local.type=inet,local.host=127.0.0.1,local.port=$1,remote.type=inet,remote.host=127.0.0.1,remote.port=$2"
}
