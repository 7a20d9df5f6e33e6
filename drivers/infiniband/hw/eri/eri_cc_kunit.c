// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of what the driver accepts from a device's QUERY_QP_CC
 * (eri_cc_qp_ok()): an answer is shown only when its algorithm is an
 * index, its mode a NUL-padded [a-z0-9_]* name and its reserved bytes
 * zero; anything else a device writes is not passed on to the user.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "eri.h"

static void t_good(struct eri_qp_cc *cc)
{
	memset(cc, 0, sizeof(*cc));
	cc->algo = 3;
	cc->cwnd = cpu_to_le32(16 << 16);
	cc->inflight_hi = cpu_to_le32(ERI_QP_CC_NONE);
	cc->inflight_lo = cpu_to_le32(ERI_QP_CC_NONE);
	strscpy_pad(cc->mode, "probe_bw", sizeof(cc->mode));
}

static void eri_cc_test_qp_ok(struct kunit *test)
{
	struct eri_qp_cc cc;

	t_good(&cc);
	KUNIT_EXPECT_TRUE(test, eri_cc_qp_ok(&cc));
	/* No mode at all is fine: an algorithm without modes. */
	memset(cc.mode, 0, sizeof(cc.mode));
	KUNIT_EXPECT_TRUE(test, eri_cc_qp_ok(&cc));
	/* The longest mode, 15 characters and its NUL. */
	strscpy_pad(cc.mode, "abcdefghij_0123", sizeof(cc.mode));
	KUNIT_EXPECT_TRUE(test, eri_cc_qp_ok(&cc));

	t_good(&cc);
	cc.algo = ERI_CC_MAX_ALGOS;
	KUNIT_EXPECT_FALSE(test, eri_cc_qp_ok(&cc));

	t_good(&cc);
	memset(cc.mode, 'a', sizeof(cc.mode));	/* unterminated */
	KUNIT_EXPECT_FALSE(test, eri_cc_qp_ok(&cc));

	t_good(&cc);
	cc.mode[3] = '\n';
	KUNIT_EXPECT_FALSE(test, eri_cc_qp_ok(&cc));

	t_good(&cc);
	cc.mode[0] = 'A';
	KUNIT_EXPECT_FALSE(test, eri_cc_qp_ok(&cc));

	t_good(&cc);
	cc.mode[sizeof(cc.mode) - 1] = 'x';	/* past the NUL: not padding */
	KUNIT_EXPECT_FALSE(test, eri_cc_qp_ok(&cc));

	t_good(&cc);
	cc.reserved1[2] = 1;
	KUNIT_EXPECT_FALSE(test, eri_cc_qp_ok(&cc));

	t_good(&cc);
	cc.reserved2[31] = 0x80;
	KUNIT_EXPECT_FALSE(test, eri_cc_qp_ok(&cc));
}

static struct kunit_case eri_cc_test_cases[] = {
	KUNIT_CASE(eri_cc_test_qp_ok),
	{}
};

static struct kunit_suite eri_cc_test_suite = {
	.name = "eri_cc",
	.test_cases = eri_cc_test_cases,
};

kunit_test_suite(eri_cc_test_suite);
