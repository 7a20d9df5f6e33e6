# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for the host side of the two-instance tests (two_instances.sh,
# live_migration.sh): sourced, not run.  They use the scripts' $top.

# default_instance FLAVOUR: FLAVOUR=build/<its release>
default_instance() {
	echo "$1=$top/build/$("$top/scripts/kernel.sh" version "$1")"
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
