#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Memory regions from userspace: tests/verbs/eri_mr_test.c, built here
# against the rdma-core prefix, on eri0; queue memory charged to the
# process (RLIMIT_MEMLOCK) and a CQ of max_cqe entries:
# tests/verbs/eri_memlock_test.c; read-only mappings of the uverbs file
# that stay read-only: tests/verbs/eri_mmap_test.c; then the device
# unloads cleanly.
# make check runs it on 6.1 and 6.12 (6.1-cloud is 6.1 with fewer drivers).
# check-flavours: 6.1 6.12
set -u
. "$(dirname "$0")/lib.sh"

prefix=${ERI_RDMA_CORE:?run through vm-run --rdma-core}
bin=$(mktemp -d)/eri_mr_test
NS=eri_mr

check "build eri_mr_test" gcc -O2 -Wall -Werror -o "$bin" \
	"$(dirname "$0")/../verbs/eri_mr_test.c" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs
mbin=$(dirname "$bin")/eri_memlock_test
check "build eri_memlock_test" gcc -O2 -Wall -Werror -o "$mbin" \
	"$(dirname "$0")/../verbs/eri_memlock_test.c" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs
pbin=$(dirname "$bin")/eri_mmap_test
check "build eri_mmap_test" gcc -O2 -Wall -Werror -o "$pbin" \
	"$(dirname "$0")/../verbs/eri_mmap_test.c" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs
modprobe eri_sim
ip netns add "$NS"
ip link add veA netns "$NS" type veth peer name veB
ip -n "$NS" link set veA up
check "rdma link add eri0" ip netns exec "$NS" rdma link add eri0 type eri netdev veA
# A few huge pages, if the kernel offers them.
echo 4 > /proc/sys/vm/nr_hugepages 2>/dev/null

"$bin" eri0 > /tmp/mr.out 2>&1
rc=$?
cat /tmp/mr.out
check "eri_mr_test on eri0" test "$rc" = 0

# The child drops to nobody: it needs to reach the program.
chmod -R a+rx "$(dirname "$mbin")"
"$mbin" eri0 > /tmp/memlock.out 2>&1
rc=$?
cat /tmp/memlock.out
check "eri_memlock_test on eri0" test "$rc" = 0

"$pbin" eri0 > /tmp/mmap.out 2>&1
rc=$?
cat /tmp/mmap.out
check "eri_mmap_test on eri0" test "$rc" = 0

check "delete eri0" ip netns exec "$NS" rdma link delete eri0
wait_for 5 sh -c "! test -e /sys/class/infiniband/eri0"
ip netns del "$NS"
check "rmmod eri_sim" rmmod eri_sim
check "rmmod eri" rmmod eri
finish
