#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# rdma-core's own test suite (tests/ of the rdma-core 56.1 source, through
# pyverbs as scripts/rdma-core.sh builds it) against eri0, in the guest:
# eri0 and eri1 in two namespaces (the suite uses eri0 alone, its QPs
# talking to each other through eri0's RoCEv2 GID).  The suite must end
# without a failure or an error; what it skips, and why, is summed up.
# liberi's own tests (rdma-core/tests/test_eri.py, which scripts/rdma-core.sh
# puts in rdma-core's tests/) must all run: none may skip on eri0.
#
# By hand:
#   scripts/vm-run --kernel 6.12 --modules build/<release> \
#       --rdma-core $ERI_CACHE/rdma-core/56.1/prefix tests/vm/pyverbs.sh
# 2026-12-04: 329 tests on 6.1 and 6.12 (47 and 60 s), 90 pass (the 8 of
# test_eri.py among them), the rest skip
# (mlx5- and EFA-only tests, device memory, ODP, dmabuf, XRC, memory
# windows, UC and raw packet QPs, rereg_mr, resizing CQs and SRQs, parent
# domains, CQE timestamps, multicast, CUDA, huge pages), none fails.
# make check runs it on 6.1 only (Debian 12's kernel; on 6.12 by hand).
# check-flavours: 6.1
# check-timeout: 1500
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/eri_pair.sh"

prefix=${ERI_RDMA_CORE:?run through vm-run --rdma-core}
build=$(dirname "$prefix")/build
check "rdma-core's run_tests.py was built (pyverbs)" test -x "$build/bin/run_tests.py"
check "modprobe rdma_ucm" modprobe rdma_ucm
pair_up eri_py

# ERI_PYVERBS_TESTS: the tests to run (unittest names such as test_eri or
# test_eri.EriTestCase.test_eri_cq_ex), all by default.
# shellcheck disable=SC2086 # a list of names
in0 timeout 1200 "$build/bin/run_tests.py" --dev "$D0" --gid "$G0" -v \
	${ERI_PYVERBS_TESTS:-} > /tmp/pyverbs.out 2>&1
rc=$?
grep -E '^(Ran|OK|FAILED)' /tmp/pyverbs.out | sed 's/^/#   /'
grep -E '\.\.\. (FAIL|ERROR)' /tmp/pyverbs.out | sed 's/^/#   /'
# Each failure's and error's report: the test and the end of its traceback.
awk 'function flush() { if (name != "") { print name; for (i = n - 4; i < n; i++) if (i >= 0) print "    " tail[i % 4] } name = "" }
     /^=====+$/ { flush(); next }
     /^Ran [0-9]+ tests? in/ { flush(); exit }
     /^(FAIL|ERROR): / { name = $0; n = 0; next }
     name != "" && NF && !/^-----+$/ { tail[n++ % 4] = $0 }
     END { flush() }' /tmp/pyverbs.out | sed 's/^/#   /'
echo "# skipped, by reason:"
sed -n "s/.*\.\.\. skipped '\(.*\)'$/\1/p" /tmp/pyverbs.out | cut -c1-100 | sort | uniq -c | sort -rn | sed 's/^/#   /'
check "rdma-core's tests: no failure, no error (exit $rc)" test "$rc" = 0
check "rdma-core's tests: some ran and passed" grep -Eq '^Ran [1-9]' /tmp/pyverbs.out
# liberi's own tests (tests/test_eri.py) must all run on eri0, none skip.
n_eri=$(grep -c '^    def test_eri_' "$(dirname "$prefix")/src/tests/test_eri.py")
# A test's line is "NAME (tests.test_eri.CLASS.NAME)", its verdict ("... ok")
# on the line of its docstring's first line that follows.
ok_eri=$(awk '/^test_eri_[a-z0-9_]+ \(tests\.test_eri\./ { t = 1 }
	t && / \.\.\. / { if ($0 ~ / \.\.\. ok$/) n++; t = 0 }
	END { print n + 0 }' /tmp/pyverbs.out)
[ -n "${ERI_PYVERBS_TESTS:-}" ] ||
	check "liberi's tests (tests/test_eri.py): $ok_eri of $n_eri ran and passed" \
		test "$n_eri" -gt 0 -a "$ok_eri" = "$n_eri"

pair_down
finish
