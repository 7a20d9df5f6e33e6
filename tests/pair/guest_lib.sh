# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for the guest side of the two-instance tests (instance.sh,
# migration_instance.sh): sourced after tests/vm/lib.sh, not run.  Sets
# $role, $self, $peer and $pt from the environment vm-run passes; the
# helpers use those and the script's $dev.

role=${ERI_ROLE:?server or client}
self=${ERI_SELF:?} peer=${ERI_PEER:?}
pt=${ERI_PERFTEST:?the bin directory of perftest}

# load MODULE: MODULE loaded; a migratable guest has its modules loaded
# before it left the host's root (vm-run --preload), not their files.
load() { [ -d "/sys/module/$1" ] || modprobe "$1"; }

link_up() {
	load virtio_net &&
	wait_for 20 test -e /sys/class/net/eth0 &&
	ip addr add "$self/24" dev eth0 &&
	ip link set eth0 up
}

# bring_up: eth0 up with $self, the other instance reachable, $dev on eth0
# with a RoCE v2 GID for $self, whose index it sets in $gid.
bring_up() {
	check "virtio-net eth0 up with $self" link_up
	check "the other instance answers ping" wait_for 120 ping -c 1 -W 1 "$peer"
	load rdma_ucm
	check "rdma link add $dev on eth0" rdma link add "$dev" type eri netdev eth0
	check "$dev has a RoCE v2 GID for $self" wait_for 20 gid_index "$dev" "$self"
	gid=$(gid_index "$dev" "$self")
	gid=${gid:-1}
}
