#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# RC atomics, in the guest: tests/verbs/eri_atomic_test.c (built here
# against rdma-core with liberi) between eri0 and eri1 (two namespaces, one
# veth):
#   a  CMP_SWP and FETCH_ADD semantics and returned values, both ways;
#   b  contention: 4 QPs from eri0 and a loopback QP on eri1, 1000
#      FETCH_ADDs of 1 each on one word of eri1: exact result, every
#      original value once;
#   c  the same (fewer) and a QP alone under netem loss 10% on both ends:
#      retransmitted atomics are answered from the responder's kept results,
#      never executed twice.  One atomic is in flight per QP
#      (max_rd_atomic 1), so each attempt is lost with p = 1 - 0.9^2 = 0.19,
#      and retry_cnt 7 allows 8 attempts: an operation fails with
#      p^8 = 1.7e-6, a run of 900 with 0.15%.  At 20% loss (p = 0.36,
#      p^8 = 2.8e-4) one run in eight failed with RETRY_EXC_ERR, as
#      InfiniBand's retry count says it must;
#   d  errors: misaligned (REM_INV_REQ_ERR), no REMOTE_ATOMIC on the MR or
#      the QP, bad rkey, out of range (REM_ACCESS_ERR), local SGE not 8
#      bytes (LOC_LEN_ERR).
#
# make check runs it on 6.12 only: it tests the device's own transport,
# which does not differ between kernels.
# check-flavours: 6.12
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

prefix=${ERI_RDMA_CORE:?run through vm-run --rdma-core}
src=$(dirname "$0")/../verbs/eri_atomic_test.c
bin=$(mktemp -d)/eri_atomic_test

# run NAME ARGS...: eri_atomic_test ARGS; its checks count as ours.
run() {
	local name=$1 rc s0=$SECONDS out
	shift
	out=$(mktemp)
	timeout 600 "$bin" "$@" "$D0" "$G0" "$D1" "$G1" > "$out" 2>&1
	rc=$?
	cat "$out"
	check "$name (exit $rc, $((SECONDS - s0)) s)" test "$rc" = 0
	rm -f "$out"
}

check "build eri_atomic_test" gcc -O2 -Wall -Wextra -Werror -o "$bin" "$src" \
	-I"$prefix/include" -L"$prefix/lib" -libverbs
dmesg -C
pair_up eri_at
ibv_devinfo -v -d "$D0" 2>&1 | grep -E 'atomic_cap|max_qp_rd_atom|max_qp_init_rd_atom|max_res_rd_atom' | sed 's/^/#   /'
check "ibv_devinfo: atomic_cap ATOMIC_HCA" sh -c "ibv_devinfo -v -d $D0 | grep -q 'atomic_cap:.*ATOMIC_HCA'"

run "eri_atomic_test -T abd (semantics, contention, errors)" -T abd -n 1000

check "netem loss 10%" netem loss 10%
r0=$(hwstat retrans_pkts) d0=$(hwstat dup_pkts)
run "eri_atomic_test -T c under loss 10% (no double execution)" -T c -n 400 -t 60
r=$(( $(hwstat retrans_pkts) - r0 )) d=$(( $(hwstat dup_pkts) - d0 ))
echo "#   under loss: retrans_pkts $r, dup_pkts $d"
check "under loss: requests were sent again ($r) and duplicates answered ($d)" \
	test "$r" -gt 0 -a "$d" -gt 0
netem

if dmesg | grep -i "eri" | grep -qiv "out-of-tree\|verification failed"; then
	dmesg | grep -i "eri" | sed 's/^/#   dmesg: /' | tail -n 20
fi
check "no warning, BUG or splat in dmesg" sh -c '! dmesg | grep -qE "WARNING|BUG|Oops|lockdep|KASAN|UBSAN"'
pair_down
finish
