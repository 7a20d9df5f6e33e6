#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The applications people run on RDMA, with their defaults, over two ERI
# devices, in the guest; each run's bytes shown on ERI's counters (the
# volume it moved at least, in rdma statistic's tx_bytes of eri0 and eri1).
#
# Two network namespaces (eri_app0: eri0 on veA, 198.18.0.1; eri_app1:
# eri1 on veB, 198.18.0.2), as two hosts would be:
#   UCX 1.13: ucx_info, UCP tag_lat, tag_bw at a rendezvous size, put_bw
#      and am_bw, UCT am_lat over rc_verbs and am_bw over ud_verbs;
#   libfabric's RDM endpoint (verbs;ofi_rxm): fi_pingpong -e rdm, tagged,
#      at an eager and a rendezvous size, data checked (-c);
#   SMC-R: AF_SMC sockets (tests/apps/eri_smc_test.c) finding ERI by
#      themselves, no pnet table, 2 MiB each way checked.
# Each process of a pair sits in its own IPC namespace as well, as on two
# hosts: UCX and libfabric would otherwise take shared memory between
# them.  In the default ("shared") rdma netns mode a process sees both
# devices; UCX is told its own (UCX_NET_DEVICES), libfabric and rdma_cm
# find it from the address.
#
# Then both devices in the initial namespace, where the kernel's ULPs
# (nvme-rdma, nvmet-rdma, NFS) create their rdma_cm IDs: policy routing
# makes traffic between the two addresses cross the veth, and lets
# rdma_cm's passive side find the peer through the device's netdev
# (its route lookup with the output interface set):
#   Open MPI 4.1 with pml ucx, two ranks (one per device, each in its own
#      IPC namespace): tests/apps/eri_mpi_test.c, ping-pong and allreduce
#      with every byte checked;
#   NVMe over Fabrics: nvmet-rdma exports a 32 MiB file, nvme-rdma
#      connects, fio writes 4 MiB and reads it back with crc32c verify;
#   NFS v4.2 over RDMA: 4 MiB written and read back after a remount,
#      compared on the client and on the server.
#
# make check runs it on 6.1 and 6.12.
# check-flavours: 6.1 6.12
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

prefix=${ERI_RDMA_CORE:?run through vm-run --rdma-core}
apps=$(dirname "$0")/../apps
bin=$(mktemp -d)
T=90

check "build eri_smc_test" gcc -O2 -Wall -Wextra -Werror \
	-o "$bin/eri_smc_test" "$apps/eri_smc_test.c"
check "build eri_mpi_test" mpicc -O2 -Wall -Wextra -Werror \
	-o "$bin/eri_mpi_test" "$apps/eri_mpi_test.c"

# section NAME: how long the section before took, and NAME's start.
t_section=$SECONDS
section() {
	echo "# ---- $1 (the section before: $((SECONDS - t_section)) s)"
	t_section=$SECONDS
}

# sent BEFORE VOLUME NAME: eri0 and eri1 sent at least VOLUME bytes more
# than BEFORE (hwstat tx_bytes) while NAME ran.
sent() {
	local now
	now=$(hwstat tx_bytes)
	check "$3 went over ERI ($((now - $1)) bytes sent, >= $2)" \
		test $((now - $1)) -ge "$2"
}

# ------------------------------------------------------------------ UCX
# ucx NAME SERVER_ARGS -- CLIENT_ARGS: ucx_perftest between the namespaces,
# each on its own device; the client prints the UCP lanes it chose
# (UCX_LOG_LEVEL=info), which must be ERI's.
ucx() {
	local name=$1 srv=() t0
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	t0=$(hwstat tx_bytes)
	server_client_port "$name" 13337 \
		env UCX_NET_DEVICES="$D1:1" unshare --ipc \
		ucx_perftest -p 13337 "${srv[@]}" -- \
		env UCX_NET_DEVICES="$D0:1" UCX_LOG_LEVEL=info unshare --ipc \
		ucx_perftest "$B" -p 13337 "$@"
	grep -o 'ep_cfg.*' /tmp/cli.out | sed 's/^/#   /'
	if grep -q 'ep_cfg' /tmp/cli.out; then
		check "$name: UCP's lanes are ERI's" \
			sh -c '! grep ep_cfg /tmp/cli.out | grep -qv "_verbs/eri0:1"'
	fi
	sent "$t0" "$UCX_VOLUME" "$name"
}

section UCX
pair_up eri_app
in0 timeout "$T" ucx_info -d > /tmp/ucx_info 2>&1
check "ucx_info -d: rc_verbs and ud_verbs on $D0" sh -c \
	"grep -A1 'Transport: rc_verbs' /tmp/ucx_info | grep -q 'Device: $D0:1' &&
	 grep -A1 'Transport: ud_verbs' /tmp/ucx_info | grep -q 'Device: $D0:1'"
UCX_VOLUME=$((300 * 64))
ucx "UCP tag_lat 64 B" -- -t tag_lat -s 64 -n 300
UCX_VOLUME=$((4 << 20))
ucx "UCP tag_bw 1 MiB (rendezvous)" -- -t tag_bw -s 1048576 -n 4
UCX_VOLUME=$((2 << 20))
ucx "UCP put_bw 64 KiB" -- -t ucp_put_bw -s 65536 -n 32
UCX_VOLUME=$((200 * 4096))
ucx "UCP am_bw 4 KiB" -- -t ucp_am_bw -s 4096 -n 200
UCX_VOLUME=$((300 * 64))
ucx "UCT am_lat 64 B over rc_verbs" -x rc_verbs -d "$D1:1" -- \
	-t am_lat -x rc_verbs -d "$D0:1" -s 64 -n 300
UCX_VOLUME=$((300 * 1000))
ucx "UCT am_bw 1000 B over ud_verbs (bcopy)" -x ud_verbs -d "$D1:1" -- \
	-t am_bw -x ud_verbs -d "$D0:1" -D bcopy -s 1000 -n 300

# ------------------------------------------------------------------ libfabric
section libfabric
check "fi_info: verbs;ofi_rxm offers an RDM endpoint on $D0" sh -c \
	"ip netns exec $NS0 fi_info -p 'verbs;ofi_rxm' -t FI_EP_RDM | grep -q 'domain: $D0'"
port=47600
for run in "tagged 1024 50" "tagged 262144 4"; do
	read -r mode size iters <<<"$run"
	port=$((port + 1))
	t0=$(hwstat tx_bytes)
	server_client_port "fi_pingpong -e rdm -m $mode -S $size -I $iters -c" "$port" \
		unshare --ipc fi_pingpong -p 'verbs;ofi_rxm' -e rdm -d "$D1" \
		-m "$mode" -S "$size" -I "$iters" -c -B "$port" -- \
		unshare --ipc fi_pingpong -p 'verbs;ofi_rxm' -e rdm -d "$D0" \
		-m "$mode" -S "$size" -I "$iters" -c -P "$port" "$B"
	sent "$t0" $((2 * size * iters)) "fi_pingpong $mode $size B"
done

# ------------------------------------------------------------------ SMC-R
# SMC-R version 2 (ERI's GIDs are RoCEv2 ones) needs a UEID both peers
# share; nothing else is configured: no pnet table entry.
section SMC-R
check "modprobe smc" modprobe smc
check "UEID for SMC-Rv2" "$bin/eri_smc_test" ueid ERI-APPS-TEST
SMC_BYTES=$((2 << 20))
t0=$(hwstat tx_bytes)
server_client_port "SMC-R: $SMC_BYTES bytes each way over AF_SMC, checked" 5000 \
	"$bin/eri_smc_test" server 5000 "$SMC_BYTES" -- \
	"$bin/eri_smc_test" client "$B" 5000 "$SMC_BYTES"
sent "$t0" $((2 * SMC_BYTES)) "SMC-R"
check "SMC-R link group on $D0 and $D1 (kernel log)" sh -c \
	"dmesg | grep -q 'SMC-R lg.*link added.*ibdev $D0' &&
	 dmesg | grep -q 'SMC-R lg.*link added.*ibdev $D1'"
pair_down

# ------------------------------------------------------------------ initial namespace
# Both devices in the initial namespace, as rc.sh's rxe mode sets them up.
section "initial namespace, NFS server"
NS0='' NS1=''
check "modprobe eri_sim" modprobe eri_sim
veth_up_local
check "rdma link add $D0 (initial namespace)" rdma link add "$D0" type eri netdev veA
check "rdma link add $D1 (initial namespace)" rdma link add "$D1" type eri netdev veB
check "$D1 gets the RoCEv2 GID of $B" wait_for 10 gid_index "$D1" "$B"

# The NFS server first: it starts with a grace period (10 s, the least).
check "modprobe nfsd rpcrdma" modprobe -a nfsd rpcrdma
NFS_DIR=/srv/eri_nfs
mkdir -p "$NFS_DIR" /mnt/eri_nfs
mount -t tmpfs tmpfs "$NFS_DIR"
mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
echo 10 > /proc/fs/nfsd/nfsv4leasetime
echo 10 > /proc/fs/nfsd/nfsv4gracetime
# The export is the NFSv4 root itself: its parents are the guest's overlay.
echo "$NFS_DIR 198.18.0.0/24(rw,no_root_squash,no_subtree_check,fsid=0)" > /etc/exports
check "exportfs" exportfs -ra
rpc.mountd -F -N 2 -N 3 > /dev/null 2>&1 &
mountd=$!
check "rpc.nfsd (NFSv4.2)" rpc.nfsd -N 3 -V 4.2 2
check "nfsd listens for RDMA on 20049" sh -c \
	'echo "rdma 20049" > /proc/fs/nfsd/portlist && grep -q "rdma 20049" /proc/fs/nfsd/portlist'

# ------------------------------------------------------------------ Open MPI
section "Open MPI"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(hwstat tx_bytes)
timeout 180 mpirun --mca pml ucx --mca btl self --bind-to none \
	-np 1 unshare --ipc env UCX_NET_DEVICES="$D0:1" "$bin/eri_mpi_test" : \
	-np 1 unshare --ipc env UCX_NET_DEVICES="$D1:1" "$bin/eri_mpi_test" \
	> /tmp/mpi.out 2>&1
rc=$?
sed 's/^/#   /' /tmp/mpi.out | tail -n 20
check "Open MPI (pml ucx) ping-pong and allreduce, checked (exit $rc)" test "$rc" = 0
check "eri_mpi_test reported every check" grep -q '^# 8 passed, 0 failed' /tmp/mpi.out
sent "$t0" $((2 << 20)) "Open MPI"

# ------------------------------------------------------------------ NVMe-oF
section NVMe-oF
NQN=nqn.2026-12.org.eri:apps
check "modprobe nvmet-rdma nvme-rdma" modprobe -a nvmet nvmet-rdma nvme-rdma
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
S=/sys/kernel/config/nvmet/subsystems/$NQN
P=/sys/kernel/config/nvmet/ports/1
truncate -s 32M /dev/shm/eri_nvme.img
nvmet_up() {
	mkdir "$S" && echo 1 > "$S/attr_allow_any_host" &&
		mkdir "$S/namespaces/1" &&
		echo /dev/shm/eri_nvme.img > "$S/namespaces/1/device_path" &&
		echo 1 > "$S/namespaces/1/buffered_io" &&
		echo 1 > "$S/namespaces/1/enable" && mkdir "$P" &&
		echo rdma > "$P/addr_trtype" && echo ipv4 > "$P/addr_adrfam" &&
		echo "$B" > "$P/addr_traddr" && echo 4420 > "$P/addr_trsvcid" &&
		ln -s "$S" "$P/subsystems/"
}
check "nvmet-rdma exports a namespace at $B:4420" nvmet_up
t0=$(hwstat tx_bytes)
check "nvme connect -t rdma" nvme connect -t rdma -a "$B" -s 4420 -n "$NQN"
nvme_dev() { grep -lx "$NQN" /sys/class/nvme/nvme*/subsysnqn 2>/dev/null | head -n1; }
dev=$(nvme_dev)
dev=/dev/$(basename "$(dirname "$dev")")n1
check "its namespace appears ($dev)" wait_for 20 test -b "$dev"
check "fio writes 4 MiB to $dev and verifies it (crc32c)" \
	fio --name=eri --filename="$dev" --direct=1 --ioengine=libaio \
	--iodepth=8 --rw=randwrite --bsrange=4k-128k --size=4M \
	--verify=crc32c --verify_fatal=1 --do_verify=1
sed 's/^/#   /' /tmp/t.out | grep -E 'WRITE:|READ:|err'
sent "$t0" $((8 << 20)) "NVMe-oF"
check "nvme disconnect" nvme disconnect -n "$NQN"
rm -f "$P/subsystems/$NQN"
rmdir "$P" "$S/namespaces/1" "$S" 2>/dev/null
rm -f /dev/shm/eri_nvme.img

# ------------------------------------------------------------------ NFS
section NFS
head -c $((4 << 20)) /dev/urandom > /dev/shm/eri_nfs_data
t0=$(hwstat tx_bytes)
nfs_mount() { mount -t nfs -o rdma,port=20049,vers=4.2 "$B:/" /mnt/eri_nfs; }
check "mount -t nfs -o rdma,vers=4.2" nfs_mount
check "... over RDMA" sh -c "grep ' /mnt/eri_nfs ' /proc/mounts | grep -q 'proto=rdma'"
check "4 MiB written over NFS" cp /dev/shm/eri_nfs_data /mnt/eri_nfs/data
check "umount" umount /mnt/eri_nfs
check "the server has every byte" cmp /dev/shm/eri_nfs_data "$NFS_DIR/data"
check "mount again" nfs_mount
check "read back over NFS, every byte" cmp /dev/shm/eri_nfs_data /mnt/eri_nfs/data
check "umount" umount /mnt/eri_nfs
sent "$t0" $((8 << 20)) "NFS over RDMA"
rpc.nfsd 0
kill "$mountd"
exportfs -ua
umount "$NFS_DIR"
rm -f /dev/shm/eri_nfs_data

section end
echo "# rdma statistic show:"
rdma statistic show link "$D0/1" 2>&1 | sed 's/^/#   /'
rdma statistic show link "$D1/1" 2>&1 | sed 's/^/#   /'
check "delete $D0" rdma link delete "$D0"
check "delete $D1" rdma link delete "$D1"
ip link del veA
finish
