// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the congestion-control engine: each algorithm is stepped
 * through scripted sequences of ACKs (with RTT samples), ECN echoes, losses
 * and timeouts on a scripted clock, and its window, rate and pacing are
 * checked against the arithmetic eri_sim_cc.h specifies.
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/win_minmax.h>

#include "eri_sim_cc.h"
#include "eri_sim_cc_bbr.h"
#include "eri_sim_cc_dcqcn.h"
#include "eri_sim_cc_swift.h"
#include "eri_sim_rel.h"

#define T_MTU		4096U
/* Headers of a packet on the wire, what pacing counts beside the payload. */
#define T_HDRS		ERI_PKT_OVERHEAD_IPV4
#define T_WIRE		(T_MTU + T_HDRS)
#define T_US		1000ULL
#define T_MS_STEP	(1000 * T_US)
#define T_FP(pkts)	((u32)(pkts) << ERI_SIM_CC_FP_SHIFT)

/* A window of acknowledgements, one ACK per packet. */
static void t_ack_pkts(struct eri_sim_cc *cc, u64 *now, u64 step, u64 rtt,
		       u32 pkts, u32 inflight)
{
	u32 i;

	for (i = 0; i < pkts; i++) {
		*now += step;
		eri_sim_cc_on_ack(cc, *now, rtt, 1, inflight);
	}
}

/* Swift's standing delay forgets its samples: the next one sets it. */
static void t_swift_fresh_delay(struct eri_sim_cc *cc, u64 now)
{
	eri_sim_cc_wmin_reset(&eri_sim_cc_swift(cc)->standing, now);
	eri_sim_cc_swift(cc)->delay_ns = 0;
}

/* ------------------------------------------------------------ RTT estimator */

static void eri_sim_cc_test_rtt(struct kunit *test)
{
	struct eri_sim_cc cc;
	u64 srtt, rttvar;

	eri_sim_cc_init(&cc, &eri_sim_cc_fixed_ops, T_MTU, T_HDRS, 0, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_srtt_ns(&cc), 0);
	/* Before a sample: the initial RTO, clamped. */
	KUNIT_EXPECT_EQ(test, eri_sim_cc_rto_ns(&cc, 0, U64_MAX),
			ERI_SIM_CC_INIT_RTO_NS);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_rto_ns(&cc, 0, 1000), 1000);

	eri_sim_cc_on_ack(&cc, 10, 800 * T_US, 1, 0);
	KUNIT_EXPECT_EQ(test, cc.srtt_ns, 800 * T_US);
	KUNIT_EXPECT_EQ(test, cc.rttvar_ns, 400 * T_US);
	KUNIT_EXPECT_EQ(test, cc.min_rtt_ns, 800 * T_US);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_rto_ns(&cc, 0, U64_MAX),
			(800 + 4 * 400) * T_US);

	/* RFC 6298: rttvar = 3/4 rttvar + 1/4 |srtt - r|, srtt = 7/8 + 1/8. */
	eri_sim_cc_on_ack(&cc, 20, 400 * T_US, 1, 0);
	rttvar = 400 * T_US - 100 * T_US + 100 * T_US;
	srtt = 800 * T_US - 100 * T_US + 50 * T_US;
	KUNIT_EXPECT_EQ(test, cc.rttvar_ns, rttvar);
	KUNIT_EXPECT_EQ(test, cc.srtt_ns, srtt);
	KUNIT_EXPECT_EQ(test, cc.min_rtt_ns, 400 * T_US);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_rto_ns(&cc, 0, U64_MAX),
			srtt + 4 * rttvar);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_rto_ns(&cc, 5 * NSEC_PER_SEC,
						10 * NSEC_PER_SEC),
			5 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_rto_ns(&cc, 0, 100 * T_US),
			100 * T_US);

	/* No sample, or a bogus one, leaves the estimate alone. */
	eri_sim_cc_on_ack(&cc, 30, 0, 1, 0);
	eri_sim_cc_on_ack(&cc, 40, ERI_SIM_CC_MAX_RTT_NS + 1, 1, 0);
	KUNIT_EXPECT_EQ(test, cc.srtt_ns, srtt);
	KUNIT_EXPECT_EQ(test, cc.rttvar_ns, rttvar);
	KUNIT_EXPECT_EQ(test, cc.acks, 4);

	/* Converges on a steady RTT; rttvar decays towards 0. */
	t_ack_pkts(&cc, &(u64){ 50 }, 1, 300 * T_US, 200, 0);
	/* Integer smoothing settles within 8 ns of the sample. */
	KUNIT_EXPECT_GE(test, cc.srtt_ns, 300 * T_US);
	KUNIT_EXPECT_LT(test, cc.srtt_ns, 300 * T_US + 8);
	KUNIT_EXPECT_LT(test, cc.rttvar_ns, 1 * T_US);
	KUNIT_EXPECT_EQ(test, cc.min_rtt_ns, 300 * T_US);

	/* Tiny samples keep srtt at least 1 ns (it means "sampled"). */
	t_ack_pkts(&cc, &(u64){ 1000 }, 1, 1, 500, 0);
	KUNIT_EXPECT_GE(test, cc.srtt_ns, 1);
	KUNIT_EXPECT_EQ(test, cc.min_rtt_ns, 1);
}

/* min_rtt is a windowed minimum; the engine sums samples and deliveries. */
static void eri_sim_cc_test_min_rtt_window(struct kunit *test)
{
	const u64 win = ERI_SIM_CC_MIN_RTT_WIN_NS;
	struct eri_sim_cc_wmin w;
	struct eri_sim_cc cc;
	u64 now = 0;

	eri_sim_cc_init(&cc, &eri_sim_cc_fixed_ops, T_MTU, T_HDRS, 0, 0);
	eri_sim_cc_on_ack(&cc, now, 100 * T_US, 3, 0);
	eri_sim_cc_on_ack(&cc, now += T_US, 0, 2, 0);
	eri_sim_cc_on_ack(&cc, now += T_US, 300 * T_US, 0, 0);
	KUNIT_EXPECT_EQ(test, cc.min_rtt_ns, 100 * T_US);
	KUNIT_EXPECT_EQ(test, cc.rtt_samples, 2);
	KUNIT_EXPECT_EQ(test, cc.rtt_sum_ns, 400 * T_US);
	KUNIT_EXPECT_EQ(test, cc.delivered, 5);

	/* Kept for at least half the window... */
	for (now = T_MS_STEP; now < win / 2; now += T_MS_STEP)
		eri_sim_cc_on_ack(&cc, now, 300 * T_US, 1, 0);
	KUNIT_EXPECT_EQ(test, cc.min_rtt_ns, 100 * T_US);
	/* ...and forgotten within the window: the base RTT may rise. */
	for (; now <= win; now += T_MS_STEP)
		eri_sim_cc_on_ack(&cc, now, 300 * T_US, 1, 0);
	KUNIT_EXPECT_EQ(test, cc.min_rtt_ns, 300 * T_US);
	/* A smaller sample wins at once. */
	eri_sim_cc_on_ack(&cc, now, 200 * T_US, 1, 0);
	KUNIT_EXPECT_EQ(test, cc.min_rtt_ns, 200 * T_US);

	/* The buckets: a sample counts for [win / 2, win). */
	eri_sim_cc_wmin_reset(&w, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_wmin_update(&w, 0, 100, U64_MAX),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_wmin_update(&w, 49, 100, 7), 7);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_wmin_update(&w, 99, 100, 9), 7);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_wmin_update(&w, 100, 100, 9), 9);
	/* A long gap forgets both buckets. */
	KUNIT_EXPECT_EQ(test, eri_sim_cc_wmin_update(&w, 1000, 100, 11), 11);
}

/* The clock is a plain u64: times near 2^63 and beyond work the same. */
static void eri_sim_cc_test_large_clock(struct kunit *test)
{
	const u64 t0 = U64_MAX / 2 + 12345;
	struct eri_sim_cc cc;
	u64 now = t0;
	u32 cwnd;

	eri_sim_cc_init(&cc, &eri_sim_cc_swift_ops, T_MTU, T_HDRS, t0, 0);
	t_ack_pkts(&cc, &now, 10 * T_US, 100 * T_US, 16, 16);
	KUNIT_EXPECT_EQ(test, cc.srtt_ns, 100 * T_US);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 32);
	/* One cut per RTT, as at small times. */
	t_swift_fresh_delay(&cc, now);
	eri_sim_cc_on_ack(&cc, now, 1000 * T_US, 1, 32);
	cwnd = cc.cwnd;
	KUNIT_EXPECT_EQ(test, cc.cuts, 1);
	eri_sim_cc_on_ack(&cc, now + 10 * T_US, 1000 * T_US, 1, 32);
	KUNIT_EXPECT_EQ(test, cc.cwnd, cwnd);
	KUNIT_EXPECT_GE(test, eri_sim_cc_next_send_ns(&cc), t0);

	eri_sim_cc_init(&cc, &eri_sim_cc_dcqcn_ops, T_MTU, T_HDRS, t0, 0);
	eri_sim_cc_on_ecn(&cc, t0 + 1);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc, ERI_SIM_CC_DCQCN_LINE_RATE / 2);
	eri_sim_cc_on_ack(&cc, t0 + 2 * ERI_SIM_CC_DCQCN_INC_PERIOD_NS, 0, 1, 1);
	KUNIT_EXPECT_GT(test, eri_sim_cc_dcqcn(&cc)->rc, ERI_SIM_CC_DCQCN_LINE_RATE / 2);
}

/* ------------------------------------------------------------------ fixed */

/*
 * Segments larger than the path MTU: the packet and wire sizes follow, the
 * window and what the algorithm learned stay.
 */
static void eri_sim_cc_test_set_mtu(struct kunit *test)
{
	struct eri_sim_cc cc;
	u32 cwnd;

	eri_sim_cc_init(&cc, &eri_sim_cc_swift_ops, T_MTU, T_HDRS, 0, 0);
	cwnd = cc.cwnd;
	eri_sim_cc_set_mtu(&cc, 1344);
	KUNIT_EXPECT_EQ(test, cc.mtu, 1344U);
	KUNIT_EXPECT_EQ(test, cc.wire, (u32)(1344 + T_HDRS));
	KUNIT_EXPECT_EQ(test, cc.cwnd, cwnd);
	eri_sim_cc_set_mtu(&cc, T_MTU);
	KUNIT_EXPECT_EQ(test, cc.wire, (u32)(T_MTU + T_HDRS));
	eri_sim_cc_set_mtu(&cc, 0);
	KUNIT_EXPECT_EQ(test, cc.wire, (u32)(1 + T_HDRS));
}

static void eri_sim_cc_test_fixed(struct kunit *test)
{
	struct eri_sim_cc cc;
	u64 now = 0;

	eri_sim_cc_init(&cc, &eri_sim_cc_fixed_ops, T_MTU, T_HDRS, 0, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), ERI_SIM_CC_FIXED_WND);
	KUNIT_EXPECT_STREQ(test, cc.ops->name, "fixed");
	t_ack_pkts(&cc, &now, T_US, 100 * T_US, 64, 64);
	eri_sim_cc_on_ecn(&cc, now);
	eri_sim_cc_on_loss(&cc, now);
	eri_sim_cc_on_timeout(&cc, now, 0);
	eri_sim_cc_sent(&cc, now, T_WIRE);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), ERI_SIM_CC_FIXED_WND);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), 0);
	KUNIT_EXPECT_EQ(test, cc.pacing_rate, 0);
	KUNIT_EXPECT_EQ(test, cc.ecn_echoes, 1);
	KUNIT_EXPECT_EQ(test, cc.losses, 1);
	KUNIT_EXPECT_EQ(test, cc.timeouts, 1);
	KUNIT_EXPECT_EQ(test, cc.cuts, 0);
	/* The RTT estimator runs for every algorithm. */
	KUNIT_EXPECT_EQ(test, eri_sim_cc_srtt_ns(&cc), 100 * T_US);

	/* No algorithm gives fixed. */
	eri_sim_cc_init(&cc, NULL, T_MTU, T_HDRS, 0, 0);
	KUNIT_EXPECT_PTR_EQ(test, cc.ops,
			    (const struct eri_sim_cc_ops *)&eri_sim_cc_fixed_ops);
}

/* ------------------------------------------------------------ QUERY_QP_CC */

/*
 * What QUERY_QP_CC answers: the engine's state in the ABI's units, each
 * algorithm's mode, estimate and bounds where it has them, zero elsewhere.
 */
static void eri_sim_cc_test_query(struct kunit *test)
{
	struct eri_sim_cc_bbr *b;
	struct eri_sim_cc cc;
	struct eri_qp_cc q;
	u64 now = 0;

	eri_sim_cc_init(&cc, &eri_sim_cc_fixed_ops, T_MTU, T_HDRS, 0, 0);
	t_ack_pkts(&cc, &now, T_US, 100 * T_US, 64, 64);
	eri_sim_cc_on_ecn(&cc, now);
	eri_sim_cc_on_loss(&cc, now);
	eri_sim_cc_on_timeout(&cc, now, 0);
	memset(&q, 0xa5, sizeof(q));
	eri_sim_cc_query(&cc, &q);
	KUNIT_EXPECT_EQ(test, q.algo, eri_sim_cc_fixed_ops.index);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.cwnd), T_FP(ERI_SIM_CC_FIXED_WND));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q.pacing_rate), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q.bw), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.srtt_us), 100);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.min_rtt_us), 100);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q.rtt_samples), 64);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q.rtt_sum_us), 6400);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.inflight_hi), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.inflight_lo), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.quantum), ERI_SIM_CC_QUANTUM_MAX);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.ecn_echoes), 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.losses), 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.timeouts), 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.cuts), 0);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(q.mode, 0, sizeof(q.mode)), NULL);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(q.reserved1, 0,
					     sizeof(q.reserved1)), NULL);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(q.reserved2, 0,
					     sizeof(q.reserved2)), NULL);

	/* bbr: no bounds and no estimate yet, then 1 packet per us. */
	eri_sim_cc_init(&cc, &eri_sim_cc_bbr_ops, T_MTU, T_HDRS, 0, 7);
	eri_sim_cc_query(&cc, &q);
	KUNIT_EXPECT_EQ(test, q.algo, eri_sim_cc_bbr_ops.index);
	KUNIT_EXPECT_STREQ(test, q.mode, "startup");
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.inflight_hi), ERI_QP_CC_NONE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.inflight_lo), ERI_QP_CC_NONE);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q.bw), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.min_rtt_us), 0);
	KUNIT_EXPECT_GT(test, le64_to_cpu(q.pacing_rate), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.cwnd), cc.cwnd);
	b = eri_sim_cc_bbr(&cc);
	minmax_reset(&b->max_bw, 0, BIT(ERI_SIM_CC_BW_SHIFT));
	b->mode = ERI_SIM_CC_BBR_PROBE_BW;
	b->inflight_hi = 40;
	eri_sim_cc_query(&cc, &q);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q.bw), (u64)T_WIRE * USEC_PER_SEC);
	KUNIT_EXPECT_STREQ(test, q.mode, "probe_bw");
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.inflight_hi), 40);
	KUNIT_EXPECT_STREQ(test, eri_sim_cc_mode(&cc), "probe_bw");

	/* swift: slow start below ssthresh, then congestion avoidance. */
	eri_sim_cc_init(&cc, &eri_sim_cc_swift_ops, T_MTU, T_HDRS, 0, 0);
	KUNIT_EXPECT_STREQ(test, eri_sim_cc_mode(&cc), "ss");
	eri_sim_cc_swift(&cc)->ssthresh = cc.cwnd;
	KUNIT_EXPECT_STREQ(test, eri_sim_cc_mode(&cc), "ca");
	eri_sim_cc_query(&cc, &q);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q.bw), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q.inflight_hi), 0);
}

/* ------------------------------------------------------------- registry */

static void t_nop_init(struct eri_sim_cc *cc, u64 now_ns, u32 seed)
{
}

static void t_nop_on_ack(struct eri_sim_cc *cc,
			 const struct eri_sim_cc_ack *ack)
{
}

static void t_nop_on_timeout(struct eri_sim_cc *cc, u64 now_ns, u32 lost)
{
}

static u32 t_nop_window(const struct eri_sim_cc *cc)
{
	return 1;
}

#define T_NOP_OPS(n) {							\
	.name = n,							\
	.init = t_nop_init,						\
	.on_ack = t_nop_on_ack,						\
	.on_timeout = t_nop_on_timeout,					\
	.window = t_nop_window,						\
}

/*
 * Names are checked, unique and bounded in number; indexes never move.
 * The built-ins are registered (at module load): 0-2 as always, bbr 3.
 */
static void eri_sim_cc_test_register(struct kunit *test)
{
	struct eri_sim_cc_ops bad[] = {
		T_NOP_OPS(""), T_NOP_OPS("Swift"), T_NOP_OPS("a-b"),
		T_NOP_OPS("a b"), T_NOP_OPS("sixteen_chars_16"),
	};
	struct eri_sim_cc_ops dup = T_NOP_OPS("swift");
	struct eri_sim_cc_ops *ops;
	unsigned int i, n = 0, first = ERI_CC_MAX_ALGOS;
	u32 algos;
	int ret;

	KUNIT_ASSERT_PTR_EQ(test, eri_sim_cc_find("swift"),
			    (const struct eri_sim_cc_ops *)&eri_sim_cc_swift_ops);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_swift_ops.index, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn_ops.index, 1);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_fixed_ops.index, 2);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_bbr_ops.index, 3);
	KUNIT_EXPECT_PTR_EQ(test, eri_sim_cc_get(1),
			    (const struct eri_sim_cc_ops *)&eri_sim_cc_dcqcn_ops);
	KUNIT_EXPECT_PTR_EQ(test, eri_sim_cc_default(),
			    eri_sim_cc_find(ERI_SIM_CC_DEFAULT));
	KUNIT_EXPECT_NULL(test, eri_sim_cc_find("nosuch"));
	KUNIT_EXPECT_NULL(test, eri_sim_cc_get(ERI_CC_MAX_ALGOS));

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ(test, eri_sim_cc_register(&bad[i]), -EINVAL);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_register(&dup), -EEXIST);
	dup.on_ack = NULL;
	strscpy(dup.name, "t_nocb", sizeof(dup.name));
	KUNIT_EXPECT_EQ(test, eri_sim_cc_register(&dup), -EINVAL);

	/* Fill every free slot, then one more. */
	algos = eri_sim_cc_algos();
	ops = kunit_kcalloc(test, ERI_CC_MAX_ALGOS + 1, sizeof(*ops),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ops);
	for (i = 0; i <= ERI_CC_MAX_ALGOS; i++) {
		ops[i] = (struct eri_sim_cc_ops)T_NOP_OPS("");
		snprintf(ops[i].name, sizeof(ops[i].name), "t_%u", i);
		ret = eri_sim_cc_register(&ops[i]);
		if (ret) {
			KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
			break;
		}
		KUNIT_EXPECT_FALSE(test, algos & BIT(ops[i].index));
		first = min_t(unsigned int, first, ops[i].index);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, ERI_CC_MAX_ALGOS - hweight32(algos));
	KUNIT_EXPECT_EQ(test, eri_sim_cc_algos(), U32_MAX);

	/* A freed slot is taken again; the others keep their indexes. */
	eri_sim_cc_unregister(&ops[0]);
	KUNIT_EXPECT_NULL(test, eri_sim_cc_find("t_0"));
	KUNIT_EXPECT_EQ(test, eri_sim_cc_register(&ops[n]), 0);
	KUNIT_EXPECT_EQ(test, ops[n].index, first);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_swift_ops.index, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_fixed_ops.index, 2);

	for (i = 1; i <= n; i++)
		eri_sim_cc_unregister(&ops[i]);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_algos(), algos);
}

/* ------------------------------------------------------------------ swift */

/*
 * Swift at @cwnd packets in congestion avoidance, srtt and min_rtt 100 us,
 * the standing delay not yet sampled.
 */
static void t_swift_ca(struct eri_sim_cc *cc, u64 *now, u32 cwnd)
{
	eri_sim_cc_init(cc, &eri_sim_cc_swift_ops, T_MTU, T_HDRS, 0, 0);
	*now = 0;
	eri_sim_cc_on_ack(cc, ++*now, 100 * T_US, 0, 0);
	cc->cwnd = T_FP(cwnd);
	eri_sim_cc_swift(cc)->ssthresh = T_FP(cwnd);
	t_swift_fresh_delay(cc, *now);
}

static void eri_sim_cc_test_swift_growth(struct kunit *test)
{
	struct eri_sim_cc cc;
	u64 now = 0;
	u32 w;

	eri_sim_cc_init(&cc, &eri_sim_cc_swift_ops, T_MTU, T_HDRS, 0, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc),
			ERI_SIM_CC_SWIFT_INIT_CWND);
	/* No RTT yet: not paced. */
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), 0);

	/* Slow start below target (100 us + max(100 us, 50 us) = 200 us). */
	t_ack_pkts(&cc, &now, T_US, 100 * T_US, 16, 16);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 32);
	t_ack_pkts(&cc, &now, T_US, 190 * T_US, 32, 32);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 64);
	KUNIT_EXPECT_EQ(test, cc.cuts, 0);

	/* Congestion avoidance: one packet per window of ACKs. */
	t_swift_ca(&cc, &now, 40);
	t_ack_pkts(&cc, &now, T_US, 150 * T_US, 40, 40);
	w = cc.cwnd;
	KUNIT_EXPECT_GE(test, w, T_FP(40) + ERI_SIM_CC_ONE * 95 / 100);
	KUNIT_EXPECT_LE(test, w, T_FP(41));
	t_ack_pkts(&cc, &now, T_US, 150 * T_US, 41, 41);
	KUNIT_EXPECT_GE(test, cc.cwnd, w + ERI_SIM_CC_ONE * 95 / 100);
	KUNIT_EXPECT_LE(test, cc.cwnd, w + ERI_SIM_CC_ONE);

	/* An application-limited sender does not grow its window. */
	w = cc.cwnd;
	t_ack_pkts(&cc, &now, T_US, 150 * T_US, 50, 2);
	KUNIT_EXPECT_EQ(test, cc.cwnd, w);

	/* The ceiling. */
	t_swift_ca(&cc, &now, 250);
	t_ack_pkts(&cc, &now, T_US, 150 * T_US, 20 * 256, 256);
	KUNIT_EXPECT_EQ(test, cc.cwnd, T_FP(ERI_SIM_CC_MAX_WND));
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), ERI_SIM_CC_MAX_WND);
}

static void eri_sim_cc_test_swift_cut(struct kunit *test)
{
	struct eri_sim_cc cc;
	u64 now, target = 200 * T_US, delay, t_cut, srtt;
	u32 mdf;

	/* 400 us against 200 us: cut by 0.8 * 200 / 400 = 0.4. */
	t_swift_ca(&cc, &now, 100);
	delay = 400 * T_US;
	eri_sim_cc_on_ack(&cc, ++now, delay, 1, 100);
	mdf = div64_u64((delay - target) * ERI_SIM_CC_SWIFT_BETA, delay);
	KUNIT_EXPECT_EQ(test, mdf, 409);
	KUNIT_EXPECT_EQ(test, cc.cwnd, (u32)((u64)T_FP(100) * (1024 - mdf) >> 10));
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 60);
	KUNIT_EXPECT_EQ(test, cc.cuts, 1);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_swift(&cc)->ssthresh, cc.cwnd);

	/* Proportional: a smaller overshoot cuts less. */
	t_swift_ca(&cc, &now, 100);
	delay = 250 * T_US;
	eri_sim_cc_on_ack(&cc, ++now, delay, 1, 100);
	mdf = div64_u64((delay - target) * ERI_SIM_CC_SWIFT_BETA, delay);
	KUNIT_EXPECT_EQ(test, cc.cwnd, (u32)((u64)T_FP(100) * (1024 - mdf) >> 10));
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 84);

	/* A huge overshoot cuts by MAX_MDF (half), no more. */
	t_swift_ca(&cc, &now, 100);
	eri_sim_cc_on_ack(&cc, ++now, 100 * 1000 * T_US, 1, 100);
	KUNIT_EXPECT_EQ(test, cc.cwnd, T_FP(50));

	/* At most once per (smoothed) RTT. */
	t_swift_ca(&cc, &now, 100);
	cc.srtt_ns = 500 * T_US;
	eri_sim_cc_on_ack(&cc, ++now, 400 * T_US, 1, 100);
	t_cut = now;
	srtt = cc.srtt_ns;
	KUNIT_EXPECT_EQ(test, cc.cuts, 1);
	mdf = cc.cwnd;
	t_ack_pkts(&cc, &now, 10 * T_US, 400 * T_US, 20, 100);
	KUNIT_EXPECT_EQ(test, cc.cuts, 1);
	KUNIT_EXPECT_EQ(test, cc.cwnd, mdf);
	KUNIT_EXPECT_LT(test, now - t_cut, srtt);
	eri_sim_cc_on_ack(&cc, t_cut + srtt - 1, 400 * T_US, 1, 100);
	KUNIT_EXPECT_EQ(test, cc.cuts, 1);
	now = t_cut + srtt;
	eri_sim_cc_on_ack(&cc, now, 400 * T_US, 1, 100);
	KUNIT_EXPECT_EQ(test, cc.cuts, 2);
	KUNIT_EXPECT_LT(test, cc.cwnd, mdf);

	/* Back below target, the window grows again. */
	mdf = cc.cwnd;
	t_ack_pkts(&cc, &now, 10 * T_US, 120 * T_US, 100, 100);
	KUNIT_EXPECT_GT(test, cc.cwnd, mdf);
}

static void eri_sim_cc_test_swift_loss(struct kunit *test)
{
	struct eri_sim_cc cc;
	u64 now;
	u32 i;

	/* An isolated loss on a short queue: no cut. */
	t_swift_ca(&cc, &now, 64);
	t_ack_pkts(&cc, &now, T_US, 110 * T_US, 10, 64);
	eri_sim_cc_on_loss(&cc, ++now);
	KUNIT_EXPECT_EQ(test, cc.cuts, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 64);
	KUNIT_EXPECT_EQ(test, cc.losses, 1);
	/* One loss per RTT, RTT after RTT (1% at this window): still none. */
	for (i = 0; i < 20; i++) {
		t_ack_pkts(&cc, &now, 2 * T_US, 110 * T_US, 64, 64);
		eri_sim_cc_on_loss(&cc, ++now);
	}
	KUNIT_EXPECT_EQ(test, cc.cuts, 0);
	KUNIT_EXPECT_GE(test, eri_sim_cc_window(&cc), 64);

	/* A burst (window / 8 within an RTT) is congestion: halve, once. */
	t_swift_ca(&cc, &now, 64);
	for (i = 0; i < 64 / ERI_SIM_CC_SWIFT_LOSS_DIV - 1; i++)
		eri_sim_cc_on_loss(&cc, ++now);
	KUNIT_EXPECT_EQ(test, cc.cuts, 0);
	eri_sim_cc_on_loss(&cc, ++now);
	KUNIT_EXPECT_EQ(test, cc.cuts, 1);
	KUNIT_EXPECT_EQ(test, cc.cwnd, T_FP(32));
	for (i = 0; i < 8; i++)
		eri_sim_cc_on_loss(&cc, ++now);
	KUNIT_EXPECT_EQ(test, cc.cuts, 1);

	/* A loss while the delay is over target: halve. */
	t_swift_ca(&cc, &now, 64);
	cc.srtt_ns = 300 * T_US;
	eri_sim_cc_on_ack(&cc, ++now, 350 * T_US, 0, 64);
	KUNIT_EXPECT_EQ(test, cc.cuts, 1);
	/* ...but not twice in that RTT. */
	eri_sim_cc_on_loss(&cc, ++now);
	KUNIT_EXPECT_EQ(test, cc.cuts, 1);
	now += cc.srtt_ns;
	i = cc.cwnd;
	eri_sim_cc_on_loss(&cc, now);
	KUNIT_EXPECT_EQ(test, cc.cuts, 2);
	KUNIT_EXPECT_EQ(test, cc.cwnd, i / 2);

	/* ECN marks alone do not move Swift's window. */
	t_swift_ca(&cc, &now, 64);
	eri_sim_cc_on_ecn(&cc, ++now);
	KUNIT_EXPECT_EQ(test, cc.cwnd, T_FP(64));
	KUNIT_EXPECT_EQ(test, cc.ecn_echoes, 1);
}

static void eri_sim_cc_test_swift_timeout(struct kunit *test)
{
	struct eri_sim_cc cc;
	u32 rtts = 0, w;
	u64 now;

	t_swift_ca(&cc, &now, 100);
	eri_sim_cc_on_timeout(&cc, ++now, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 1);
	KUNIT_EXPECT_EQ(test, cc.cwnd, ERI_SIM_CC_ONE);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_swift(&cc)->ssthresh, T_FP(50));
	KUNIT_EXPECT_EQ(test, cc.timeouts, 1);
	/* A second timeout in a row: still one packet, ssthresh 2. */
	eri_sim_cc_on_timeout(&cc, ++now, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 1);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_swift(&cc)->ssthresh, T_FP(2));

	/* Recovery: slow start (doubling per RTT) back to ssthresh. */
	t_swift_ca(&cc, &now, 100);
	eri_sim_cc_on_timeout(&cc, ++now, 0);
	while (eri_sim_cc_window(&cc) < 50 && rtts < 20) {
		u32 w = eri_sim_cc_window(&cc);

		t_ack_pkts(&cc, &now, T_US, 100 * T_US, w, w);
		rtts++;
	}
	/* 1 2 4 8 16 32, then 50 and additive increase for the rest. */
	KUNIT_EXPECT_EQ(test, rtts, 6);
	KUNIT_EXPECT_GE(test, cc.cwnd, T_FP(50));
	KUNIT_EXPECT_LT(test, cc.cwnd, T_FP(51));
	/* Then additive increase: a packet per window of ACKs. */
	w = cc.cwnd;
	t_ack_pkts(&cc, &now, T_US, 100 * T_US, 50, 50);
	KUNIT_EXPECT_GE(test, cc.cwnd, w + ERI_SIM_CC_ONE * 95 / 100);
	KUNIT_EXPECT_LE(test, cc.cwnd, w + ERI_SIM_CC_ONE);
}

/* Timeouts found spurious: the algorithm takes back its reaction. */
static void eri_sim_cc_test_undo(struct kunit *test)
{
	struct eri_sim_cc_bbr *b;
	struct eri_sim_cc cc;
	u64 now;

	/* Swift: the window before the first of two timeouts comes back. */
	t_swift_ca(&cc, &now, 100);
	eri_sim_cc_on_timeout(&cc, ++now, 100);
	eri_sim_cc_on_timeout(&cc, ++now, 1);
	KUNIT_EXPECT_EQ(test, cc.cwnd, ERI_SIM_CC_ONE);
	KUNIT_EXPECT_EQ(test, cc.prior_cwnd, T_FP(100));
	eri_sim_cc_undo(&cc);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 100);
	KUNIT_EXPECT_STREQ(test, eri_sim_cc_mode(&cc), "ca");
	KUNIT_EXPECT_GT(test, cc.pacing_rate, 0);
	KUNIT_EXPECT_EQ(test, cc.undos, 1);
	KUNIT_EXPECT_EQ(test, cc.timeouts, 2);
	KUNIT_EXPECT_EQ(test, cc.prior_cwnd, 0);
	/* A genuine timeout: its cut stays, even past a later undo. */
	eri_sim_cc_on_timeout(&cc, ++now, 100);
	eri_sim_cc_keep(&cc);
	KUNIT_EXPECT_EQ(test, cc.prior_cwnd, 0);
	eri_sim_cc_undo(&cc);
	KUNIT_EXPECT_EQ(test, cc.cwnd, ERI_SIM_CC_ONE);

	/* bbr: the losses leave the round, the streak starts again. */
	eri_sim_cc_init(&cc, &eri_sim_cc_bbr_ops, 1024, 64, 0, 1);
	b = eri_sim_cc_bbr(&cc);
	eri_sim_cc_on_timeout(&cc, 1, 50);
	KUNIT_EXPECT_EQ(test, b->round_lost, 50);
	KUNIT_EXPECT_EQ(test, b->rto_streak, 1);
	eri_sim_cc_undo(&cc);
	KUNIT_EXPECT_EQ(test, b->round_lost, 0);
	KUNIT_EXPECT_EQ(test, b->rto_streak, 0);
	/* So a timeout after it keeps the model (the second would not). */
	eri_sim_cc_on_timeout(&cc, 2, 10);
	KUNIT_EXPECT_EQ(test, b->rto_streak, 1);
	KUNIT_EXPECT_EQ(test, b->round_lost, 10);
}

static void eri_sim_cc_test_swift_pacing(struct kunit *test)
{
	struct eri_sim_cc cc;
	u64 now, rate, gap, t;
	u32 i;

	/* At or above a packet: cwnd * mtu / srtt * 1.25. */
	t_swift_ca(&cc, &now, 32);
	cc.srtt_ns = 1000 * T_US;
	/* The base RTT becomes 1 ms: the 100 us sample is forgotten. */
	eri_sim_cc_wmin_reset(&cc.min_rtt, now);
	eri_sim_cc_on_ack(&cc, ++now, 1000 * T_US, 0, 32);
	/*
	 * 32 packets of 4204 B on the wire (4096 B and their headers) per ms
	 * = 134528000 B/s, times 1.25.
	 */
	KUNIT_EXPECT_EQ(test, cc.pacing_rate, 168160000ULL);
	/* In slow start, twice the window's rate. */
	eri_sim_cc_swift(&cc)->ssthresh = T_FP(64);
	eri_sim_cc_on_ack(&cc, ++now, 1000 * T_US, 0, 32);
	KUNIT_EXPECT_EQ(test, cc.pacing_rate, 269056000ULL);

	/*
	 * A packet time is a full packet's wire bytes at the rate, 1/64 of
	 * srtt; a quantum is 1 ms of the rate, 64 packets.  Quanta leave a
	 * quantum's packet times apart, after a burst of two (the credit of
	 * an idle sender, and the quantum due now).
	 */
	rate = cc.pacing_rate;
	gap = div64_u64((u64)T_WIRE * NSEC_PER_SEC, rate);
	KUNIT_EXPECT_EQ(test, gap, 1000 * T_US / 64);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_quantum(&cc), 64);
	now = 10 * NSEC_PER_SEC;
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_LE(test, eri_sim_cc_next_send_ns(&cc), now);
		eri_sim_cc_sent(&cc, now, 64 * T_WIRE);
	}
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), now + 64 * gap);
	t = eri_sim_cc_next_send_ns(&cc);
	eri_sim_cc_sent(&cc, t, 64 * T_WIRE);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), t + 64 * gap);
	/* A part of a quantum (the window was full) takes its packet times. */
	t = eri_sim_cc_next_send_ns(&cc);
	eri_sim_cc_sent(&cc, t, 8 * T_WIRE);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), t + 8 * gap);

	/* At the floor, one packet: one packet per srtt, no burst. */
	t_swift_ca(&cc, &now, 2);
	cc.srtt_ns = 100 * T_US;
	for (i = 0; i < 10; i++) {
		/* A cut per RTT: the huge sample made srtt 12.6 ms. */
		now += 20 * NSEC_PER_MSEC;
		eri_sim_cc_on_ack(&cc, now, 100 * 1000 * T_US, 0, 1);
		cc.srtt_ns = 100 * T_US;
	}
	KUNIT_EXPECT_EQ(test, cc.cwnd, ERI_SIM_CC_SWIFT_MIN_CWND);
	KUNIT_EXPECT_EQ(test, cc.cwnd, ERI_SIM_CC_ONE);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 1);
	eri_sim_cc_on_ack(&cc, ++now, 0, 0, 1);
	KUNIT_EXPECT_EQ(test, cc.pacing_rate, (u64)T_WIRE * 10000);
	eri_sim_cc_sent(&cc, now, T_WIRE);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), now + 100 * T_US);
	eri_sim_cc_sent(&cc, now + 100 * T_US, T_WIRE);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), now + 200 * T_US);

	/* From the floor, additive increase: a packet per window of ACKs. */
	eri_sim_cc_on_ack(&cc, ++now, 100 * T_US, 1, 0);
	KUNIT_EXPECT_EQ(test, cc.cwnd,
			ERI_SIM_CC_SWIFT_MIN_CWND + ERI_SIM_CC_SWIFT_AI);
}

/*
 * A release later than its time by more than the credit reports what the
 * credit does not cover; time owed then goes at up to twice the rate, at
 * most srtt of it (1 ms before a sample), less the srtt - min_rtt that the
 * queue covered.
 */
static void eri_sim_cc_test_pacing_late(struct kunit *test)
{
	struct eri_sim_cc cc;
	u64 t = 10 * NSEC_PER_SEC, ms = NSEC_PER_MSEC;

	eri_sim_cc_init(&cc, NULL, T_MTU, T_HDRS, 0, 1);
	/* A packet per ms, two a quantum: the credit is 2 ms. */
	cc.pacing_rate = (u64)T_WIRE * 1000;
	cc.quantum = 2;
	eri_sim_cc_sent(&cc, t, 2 * T_WIRE);
	t = eri_sim_cc_next_send_ns(&cc);
	/* On time, and late by the credit: nothing reported. */
	KUNIT_EXPECT_EQ(test, eri_sim_cc_sent(&cc, t, 2 * T_WIRE), 0ULL);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), t + 2 * ms);
	t += 4 * ms;
	KUNIT_EXPECT_EQ(test, eri_sim_cc_sent(&cc, t, 2 * T_WIRE), 0ULL);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), t);
	/* 3 ms later than the credit covers. */
	t += 5 * ms;
	KUNIT_EXPECT_EQ(test, eri_sim_cc_sent(&cc, t, 2 * T_WIRE), 3 * ms);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), t);
	/* Owed: half of each gap until it is made up. */
	eri_sim_cc_owe(&cc, 3 * ms);
	KUNIT_EXPECT_EQ(test, cc.pace_debt_ns, 1 * ms);
	cc.srtt_ns = 10 * ms;
	eri_sim_cc_owe(&cc, 2 * ms);
	KUNIT_EXPECT_EQ(test, cc.pace_debt_ns, 3 * ms);
	eri_sim_cc_sent(&cc, t, 2 * T_WIRE);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), t + 1 * ms);
	KUNIT_EXPECT_EQ(test, cc.pace_debt_ns, 2 * ms);
	t += ms;
	eri_sim_cc_sent(&cc, t, 2 * T_WIRE);
	eri_sim_cc_sent(&cc, t + ms, 2 * T_WIRE);
	KUNIT_EXPECT_EQ(test, cc.pace_debt_ns, 0ULL);
	t += 2 * ms;
	eri_sim_cc_sent(&cc, t, 2 * T_WIRE);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), t + 2 * ms);
	/* At most srtt owed. */
	eri_sim_cc_owe(&cc, 100 * ms);
	KUNIT_EXPECT_EQ(test, cc.pace_debt_ns, 10 * ms);
	/* A queue of srtt - min_rtt covered that much of a stall. */
	cc.pace_debt_ns = 0;
	cc.min_rtt_ns = 4 * ms;
	eri_sim_cc_owe(&cc, 5 * ms);
	KUNIT_EXPECT_EQ(test, cc.pace_debt_ns, 0ULL);
	eri_sim_cc_owe(&cc, 8 * ms);
	KUNIT_EXPECT_EQ(test, cc.pace_debt_ns, 2 * ms);
}

/*
 * The standing delay: with one early sample in each RTT (reordering over a
 * delayed path), Swift neither cuts nor starves; once every sample of an RTT
 * is late, it cuts.
 */
static void eri_sim_cc_test_swift_standing(struct kunit *test)
{
	struct eri_sim_cc cc;
	u64 now;
	u32 i;

	t_swift_ca(&cc, &now, 40);
	/* min_rtt 100 us, target 200 us; srtt climbs towards 800 us. */
	for (i = 0; i < 4000; i++) {
		now += 25 * T_US;
		eri_sim_cc_on_ack(&cc, now, i % 4 ? 1000 * T_US : 100 * T_US,
				  1, 40);
	}
	KUNIT_EXPECT_EQ(test, cc.cuts, 0);
	KUNIT_EXPECT_GE(test, eri_sim_cc_window(&cc), 40);
	KUNIT_EXPECT_EQ(test, cc.min_rtt_ns, 100 * T_US);

	/* Only late samples for two srtt: the standing delay is late. */
	for (i = 0; i < 200; i++) {
		now += 25 * T_US;
		eri_sim_cc_on_ack(&cc, now, 1000 * T_US, 1, 40);
	}
	KUNIT_EXPECT_GE(test, cc.cuts, 1);

	/* The floor holds against any delay: a packet per RTT, never less. */
	for (i = 0; i < 2000; i++) {
		now += 100 * T_US;
		eri_sim_cc_on_ack(&cc, now, 5000 * T_US, 1, 1);
	}
	KUNIT_EXPECT_EQ(test, cc.cwnd, ERI_SIM_CC_SWIFT_MIN_CWND);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 1);
	KUNIT_EXPECT_GT(test, cc.pacing_rate, 0);
}

/* ---------------------------------------------------------- send quantum */

/* An algorithm whose window is 16 packets and whose rate is its seed. */
static void t_paced_init(struct eri_sim_cc *cc, u64 now_ns, u32 seed)
{
	cc->cwnd = T_FP(16);
	cc->pacing_rate = seed;
}

static struct eri_sim_cc_ops t_paced_ops = {
	.name = "t_paced",
	.flags = ERI_CC_DESC_PACED,
	.init = t_paced_init,
	.on_ack = t_nop_on_ack,
	.on_timeout = t_nop_on_timeout,
	.window = t_nop_window,
};

/*
 * The quantum is 1 ms of the pacing rate in full packets, 2 to 64; pacing
 * takes one step per quantum (a super-packet) by its bytes on the wire.
 */
static void eri_sim_cc_test_quantum(struct kunit *test)
{
	const u64 wire = 1024 + T_HDRS;		/* 1132 */
	struct eri_sim_cc cc;
	u64 now, t, q_ns;

	/* 3 MB/s: 2.65 packets per ms, so 2. */
	eri_sim_cc_init(&cc, &t_paced_ops, 1024, T_HDRS, 0, 3000000);
	KUNIT_EXPECT_EQ(test, cc.wire, wire);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_quantum(&cc), 2);
	/* 1 GB/s: 883 packets per ms, a super-packet's 64 at most. */
	eri_sim_cc_init(&cc, &t_paced_ops, 1024, T_HDRS, 0, 1000000000);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_quantum(&cc), 64);
	/* Not paced: 64, as many as a super-packet holds. */
	eri_sim_cc_init(&cc, &eri_sim_cc_fixed_ops, 1024, T_HDRS, 0, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_quantum(&cc), 64);

	/* It follows the algorithm's rate: Swift's, once it has an RTT. */
	eri_sim_cc_init(&cc, &eri_sim_cc_swift_ops, T_MTU, T_HDRS, 0, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_quantum(&cc), 64);
	eri_sim_cc_on_ack(&cc, 1, 1000 * T_US, 0, 16);
	/* 16 packets of 4204 B per ms, twice in slow start: 32 per ms. */
	KUNIT_EXPECT_EQ(test, cc.pacing_rate, 134528000ULL);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_quantum(&cc), 32);

	/* 40 MB/s: 35 packets per ms, 990.5 us of the rate. */
	eri_sim_cc_init(&cc, &t_paced_ops, 1024, T_HDRS, 0, 40000000);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_quantum(&cc), 35);
	q_ns = 35 * wire * NSEC_PER_SEC / 40000000;
	KUNIT_EXPECT_EQ(test, q_ns, 990500);
	/* Idle: a quantum leaves, and the credit lets the next one follow. */
	now = 10 * NSEC_PER_SEC;
	KUNIT_EXPECT_LE(test, eri_sim_cc_next_send_ns(&cc), now);
	eri_sim_cc_sent(&cc, now, 35 * wire);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), now);
	eri_sim_cc_sent(&cc, now, 35 * wire);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), now + q_ns);
	/* Then one step per super-packet, by its wire bytes. */
	t = eri_sim_cc_next_send_ns(&cc);
	eri_sim_cc_sent(&cc, t, 35 * wire);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), t + q_ns);
	t = eri_sim_cc_next_send_ns(&cc);
	eri_sim_cc_sent(&cc, t, 10 * wire);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), t + 283000);
	/* A header-only packet costs its headers: 108 B at 40 MB/s. */
	t = eri_sim_cc_next_send_ns(&cc);
	eri_sim_cc_sent(&cc, t, T_HDRS);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), t + 2700);

	/* A window of one packet has no credit: pacing enforces it. */
	cc.cwnd = ERI_SIM_CC_ONE;
	now += NSEC_PER_SEC;
	eri_sim_cc_sent(&cc, now, wire);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_next_send_ns(&cc), now + 28300);
}

/* ------------------------------------------------------------------ DCQCN */

static u32 t_alpha_up(u32 a)
{
	return (a * (1024 - ERI_SIM_CC_DCQCN_G) + ERI_SIM_CC_DCQCN_G * 1024) /
	       1024;
}

static u32 t_alpha_down(u32 a)
{
	return a - DIV_ROUND_UP(a * ERI_SIM_CC_DCQCN_G, 1024);
}

/* DCQCN's rate is payload; its pacing rate counts the headers too. */
static u64 t_dcqcn_pace(u64 rc)
{
	return div_u64(rc * T_WIRE, T_MTU);
}

/*
 * A timer period at rate @rc with a smoothed RTT of @srtt_ns: 55 us, the
 * RTT, or PERIOD_PKTS packets at @rc, whichever is longest.
 */
static u64 t_dcqcn_period(u64 rc, u64 srtt_ns)
{
	u64 pkts_ns = div64_u64(ERI_SIM_CC_DCQCN_PERIOD_PKTS * T_MTU *
				NSEC_PER_SEC, rc);

	return max3(ERI_SIM_CC_DCQCN_INC_PERIOD_NS, srtt_ns, pkts_ns);
}

static void eri_sim_cc_test_dcqcn_cut(struct kunit *test)
{
	struct eri_sim_cc cc;
	u64 rc, now = 0;
	u32 alpha;

	eri_sim_cc_init(&cc, &eri_sim_cc_dcqcn_ops, T_MTU, T_HDRS, 0, 0);
	KUNIT_EXPECT_EQ(test, cc.pacing_rate,
			t_dcqcn_pace(ERI_SIM_CC_DCQCN_LINE_RATE));
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), ERI_SIM_CC_MAX_WND);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->alpha, 1024);

	/* The first CNP halves the rate (alpha 1). */
	eri_sim_cc_on_ecn(&cc, ++now);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc, ERI_SIM_CC_DCQCN_LINE_RATE / 2);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rt, ERI_SIM_CC_DCQCN_LINE_RATE);
	KUNIT_EXPECT_EQ(test, cc.pacing_rate,
			t_dcqcn_pace(eri_sim_cc_dcqcn(&cc)->rc));
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->alpha, t_alpha_up(1024));
	KUNIT_EXPECT_EQ(test, cc.cuts, 1);

	/* Within the cut interval: counted, no cut. */
	eri_sim_cc_on_ecn(&cc, now + ERI_SIM_CC_DCQCN_CUT_INTERVAL_NS - 1);
	KUNIT_EXPECT_EQ(test, cc.cuts, 1);
	KUNIT_EXPECT_EQ(test, cc.ecn_echoes, 2);

	/*
	 * Alpha decays each period without a CNP: 3 periods (of 16 packets
	 * at the rate), one had CNPs.
	 */
	now = 3 * t_dcqcn_period(ERI_SIM_CC_DCQCN_LINE_RATE / 2, 0) + 1;
	alpha = t_alpha_down(t_alpha_down(eri_sim_cc_dcqcn(&cc)->alpha));
	eri_sim_cc_on_loss(&cc, now);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->alpha, alpha);

	/* The next CNP cuts by alpha / 2, then raises alpha. */
	rc = eri_sim_cc_dcqcn(&cc)->rc;
	eri_sim_cc_on_ecn(&cc, now);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rt, rc);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc, rc * (1024 - alpha / 2) / 1024);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->alpha, t_alpha_up(alpha));

	/* A long quiet time: alpha decays to 0. */
	now += 10 * NSEC_PER_SEC;
	eri_sim_cc_on_loss(&cc, now);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->alpha, 0);
	/* Losses do not cut. */
	KUNIT_EXPECT_EQ(test, cc.cuts, 2);

	/* The rate never falls below the floor. */
	eri_sim_cc_init(&cc, &eri_sim_cc_dcqcn_ops, T_MTU, T_HDRS, 0, 0);
	for (now = 1; now < 100 * ERI_SIM_CC_DCQCN_CUT_INTERVAL_NS;
	     now += ERI_SIM_CC_DCQCN_CUT_INTERVAL_NS)
		eri_sim_cc_on_ecn(&cc, now);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc, ERI_SIM_CC_DCQCN_MIN_RATE);

	/*
	 * With an RTT, cuts are at most once per min_rtt, increase periods
	 * once per srtt (both 200 us here, longer than 16 packets at the
	 * rate); the window follows the rate.
	 */
	eri_sim_cc_init(&cc, &eri_sim_cc_dcqcn_ops, T_MTU, T_HDRS, 0, 0);
	eri_sim_cc_on_ack(&cc, 1, 200 * T_US, 1, 1);
	eri_sim_cc_on_ecn(&cc, 2);
	eri_sim_cc_on_ecn(&cc, 2 + 100 * T_US);
	KUNIT_EXPECT_EQ(test, cc.cuts, 1);
	/* No increase period ended: 2 * 625 MB/s * 200 us / 4096 B = 61. */
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc,
			ERI_SIM_CC_DCQCN_LINE_RATE / 2);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 61);
	/* One did: the rate halfway back, the window at once. */
	eri_sim_cc_on_ack(&cc, 2 + 200 * T_US, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc,
			(ERI_SIM_CC_DCQCN_LINE_RATE +
			 ERI_SIM_CC_DCQCN_LINE_RATE / 2) / 2);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&cc), 91);
	eri_sim_cc_on_ecn(&cc, 2 + 200 * T_US);
	KUNIT_EXPECT_EQ(test, cc.cuts, 2);

	/* A timeout halves the rate (once the elapsed periods are applied). */
	eri_sim_cc_on_loss(&cc, 10 * NSEC_PER_MSEC);
	rc = eri_sim_cc_dcqcn(&cc)->rc;
	eri_sim_cc_on_timeout(&cc, 10 * NSEC_PER_MSEC, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc, rc / 2);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rt, rc);
	KUNIT_EXPECT_EQ(test, cc.timeouts, 1);
}

static void eri_sim_cc_test_dcqcn_increase(struct kunit *test)
{
	const u64 p = ERI_SIM_CC_DCQCN_INC_PERIOD_NS;
	struct eri_sim_cc cc;
	u64 rc, rt, now = 0;
	u32 i;

	eri_sim_cc_init(&cc, &eri_sim_cc_dcqcn_ops, T_MTU, T_HDRS, 0, 0);
	eri_sim_cc_on_ecn(&cc, 0);
	rt = eri_sim_cc_dcqcn(&cc)->rt;
	rc = eri_sim_cc_dcqcn(&cc)->rc;

	/*
	 * Fast recovery: FR_STEPS timer events halve the gap to the target,
	 * one a period of the rate each is taken at.
	 */
	for (i = 1; i <= ERI_SIM_CC_DCQCN_FR_STEPS; i++) {
		now += t_dcqcn_period(rc, 0);
		eri_sim_cc_on_ack(&cc, now, 0, 0, 0);
		rc = (rt + rc) / 2;
		KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rt, rt);
		KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc, rc);
		KUNIT_EXPECT_EQ(test, cc.pacing_rate, t_dcqcn_pace(rc));
	}

	/* Second cut so the target is below the line rate. */
	eri_sim_cc_on_ecn(&cc, now);
	rt = eri_sim_cc_dcqcn(&cc)->rt;
	rc = eri_sim_cc_dcqcn(&cc)->rc;
	KUNIT_EXPECT_LT(test, rt, ERI_SIM_CC_DCQCN_LINE_RATE);
	/* Several periods at once are caught up in one call. */
	now += ERI_SIM_CC_DCQCN_FR_STEPS * t_dcqcn_period(rc, 0);
	eri_sim_cc_on_ack(&cc, now, 0, 0, 0);
	for (i = 0; i < ERI_SIM_CC_DCQCN_FR_STEPS; i++)
		rc = (rt + rc) / 2;
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc, rc);

	/* Additive increase: the target rises by RAI per event. */
	eri_sim_cc_dcqcn(&cc)->rt = ERI_SIM_CC_DCQCN_LINE_RATE / 4;
	eri_sim_cc_dcqcn(&cc)->rc = ERI_SIM_CC_DCQCN_LINE_RATE / 4;
	rt = eri_sim_cc_dcqcn(&cc)->rt;
	rc = eri_sim_cc_dcqcn(&cc)->rc;
	now += t_dcqcn_period(rc, 0);
	eri_sim_cc_on_ack(&cc, now, 0, 0, 0);
	rt += ERI_SIM_CC_DCQCN_RAI;
	rc = (rt + rc) / 2;
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rt, rt);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc, rc);

	/* Byte events: FR_STEPS + 1 of them bring on hyper increase. */
	for (i = 1; i <= ERI_SIM_CC_DCQCN_FR_STEPS + 1; i++) {
		eri_sim_cc_on_ack(&cc, now,  0,
				  ERI_SIM_CC_DCQCN_INC_BYTES / T_MTU, 0);
		if (i <= ERI_SIM_CC_DCQCN_FR_STEPS)
			rt += ERI_SIM_CC_DCQCN_RAI;
		else
			rt += ERI_SIM_CC_DCQCN_RHAI;
		rc = (rt + rc) / 2;
		KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rt, rt);
		KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc, rc);
	}

	/* Recovery ends at the line rate, never above. */
	now += NSEC_PER_SEC;
	for (i = 0; i < 100; i++)
		eri_sim_cc_on_ack(&cc, now + i * 64 * p, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rt, ERI_SIM_CC_DCQCN_LINE_RATE);
	KUNIT_EXPECT_LE(test, eri_sim_cc_dcqcn(&cc)->rc, ERI_SIM_CC_DCQCN_LINE_RATE);
	KUNIT_EXPECT_GE(test, eri_sim_cc_dcqcn(&cc)->rc, ERI_SIM_CC_DCQCN_LINE_RATE - 1);
}

/*
 * A slow path (fq_codel's marks come 10 ms late): the RTT of an empty queue
 * is 100 us, yet the rate rises once per 16 packets it sends, not ten times
 * a millisecond.
 */
static void eri_sim_cc_test_dcqcn_slow_path(struct kunit *test)
{
	const u64 rate = 2000000;	/* 16 Mbit/s */
	u64 now = 1, period = t_dcqcn_period(rate, 100 * T_US);
	struct eri_sim_cc cc;

	eri_sim_cc_init(&cc, &eri_sim_cc_dcqcn_ops, T_MTU, T_HDRS, 0, 0);
	eri_sim_cc_on_ack(&cc, now, 100 * T_US, 1, 1);
	eri_sim_cc_on_ecn(&cc, now);
	eri_sim_cc_dcqcn(&cc)->rt = 2 * rate;
	eri_sim_cc_dcqcn(&cc)->rc = rate;
	/* 16 packets of 4 KiB at 2 MB/s: 32.8 ms. */
	KUNIT_EXPECT_EQ(test, period, 32768000);

	/* Ten RTTs are no period: no increase. */
	eri_sim_cc_on_ack(&cc, now + 10 * 100 * T_US, 100 * T_US, 1, 1);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc, rate);
	/* A period is one fast-recovery step. */
	eri_sim_cc_on_ack(&cc, now + period, 100 * T_US, 1, 1);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rc, (2 * rate + rate) / 2);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_dcqcn(&cc)->rt, 2 * rate);
}

/* ------------------------------------------------------------ rate samples */

/*
 * A path for the scoreboard's rate samples: a sender that sends one PSN
 * every T_RS_GAP while it has data, a base RTT of T_RS_RTT, an ACK every
 * 8 PSNs (every PSN when @ack_all) echoing the cumulative PSN, and ACKs
 * held from @hold_from to @hold_until then released in one burst.
 */
#define T_RS_GAP	(10 * T_US)
#define T_RS_RTT	(300 * T_US)
#define T_RS_ACKS	1024

struct t_rs_path {
	struct eri_sim_sb sb;
	u64 ack_at[T_RS_ACKS];
	u32 ack_psn[T_RS_ACKS];
	u32 ack_head, ack_tail;
	u64 hold_from, hold_until;
	/* max_bw as a model-based sender keeps it (eri.rst, "Update rules"). */
	struct minmax max_bw;
	u64 next_round_delivered;
	u32 round;
	u32 samples, app_limited, over, held;
};

static void t_rs_send(struct t_rs_path *p, u64 now, bool ack_all)
{
	u32 psn = p->sb.nxt;

	eri_sim_sb_sent(&p->sb, psn, false, now);
	if (ack_all || !((psn + 1) % 8)) {
		p->ack_at[p->ack_tail % T_RS_ACKS] = now + T_RS_RTT;
		p->ack_psn[p->ack_tail % T_RS_ACKS] = eri_psn_add(psn, 1);
		p->ack_tail++;
	}
}

/* Take in the ACKs due at @now; check each sample against @max_bw. */
static void t_rs_acks(struct kunit *test, struct t_rs_path *p, u64 now,
		      u32 max_bw)
{
	static const __be64 no_sack[ERI_WIRE_SACK_BITS / 64];
	struct eri_sim_cc_rs rs;

	while (p->ack_head != p->ack_tail) {
		u64 at = p->ack_at[p->ack_head % T_RS_ACKS];

		if (at >= p->hold_from && at < p->hold_until)
			at = p->hold_until;
		if (at > now)
			break;
		eri_sim_sb_ack(&p->sb, p->ack_psn[p->ack_head % T_RS_ACKS], 0,
			       no_sack);
		eri_sim_sb_advance(&p->sb);
		p->ack_head++;
		eri_sim_sb_rate_sample(&p->sb, now, T_RS_RTT, &rs);
		if (!rs.valid)
			continue;
		p->samples++;
		if (rs.bw > max_bw)
			p->over++;
		if (now == p->hold_until)
			p->held++;
		if (rs.app_limited)
			p->app_limited++;
		if (rs.prior_delivered >= p->next_round_delivered) {
			p->next_round_delivered = p->sb.rate.delivered;
			p->round++;
		}
		if (!rs.app_limited || rs.bw >= minmax_get(&p->max_bw))
			minmax_running_max(&p->max_bw, 10, p->round, rs.bw);
	}
}

static void eri_sim_cc_test_rate_sample(struct kunit *test)
{
	static const __be64 no_sack[ERI_WIRE_SACK_BITS / 64];
	struct t_rs_path *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	/* One PSN per T_RS_GAP: the send rate, in bw units. */
	u32 send_bw = div_u64(1ULL << ERI_SIM_CC_BW_SHIFT,
			      div_u64(T_RS_GAP, NSEC_PER_USEC));
	struct eri_sim_cc_rs rs;
	u32 round;
	u64 now;

	KUNIT_ASSERT_NOT_NULL(test, p);
	/* ACKs held 5 ms, then released at once: no sample above the rate. */
	eri_sim_sb_init(&p->sb, 0xfffff0);
	p->hold_from = 20 * T_MS_STEP;
	p->hold_until = 25 * T_MS_STEP;
	for (now = 0; now < 40 * T_MS_STEP; now += T_RS_GAP) {
		t_rs_acks(test, p, now, send_bw);
		t_rs_send(p, now, false);
	}
	KUNIT_EXPECT_GT(test, p->samples, 450U);
	/*
	 * 62 ACKs come in the burst; those of PSNs sent 2.56 ms before the
	 * newest (ERI_SIM_RATE_SNAPS PSNs) lost their snapshots: 28 samples.
	 */
	KUNIT_EXPECT_GE(test, p->held, 25U);
	KUNIT_EXPECT_EQ(test, p->over, 0U);
	KUNIT_EXPECT_EQ(test, p->app_limited, 0U);
	KUNIT_EXPECT_EQ(test, minmax_get(&p->max_bw), send_bw);
	KUNIT_EXPECT_EQ(test, p->sb.rate.lost_total, 0ULL);
	/* Every PSN sent was delivered, the last ones excepted. */
	KUNIT_EXPECT_LE(test, eri_sim_sb_span(&p->sb), 32U);

	/*
	 * Then the application sends one PSN per millisecond: 30 rounds of
	 * samples 100 times below the path's, marked application limited,
	 * which leave max_bw where the bulk transfer put it.
	 */
	for (; now < 41 * T_MS_STEP; now += T_RS_GAP)
		t_rs_acks(test, p, now, send_bw);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_span(&p->sb), 0U);
	eri_sim_sb_app_limited(&p->sb, 0);
	p->samples = 0;
	round = p->round;
	for (; now < 71 * T_MS_STEP; now += T_RS_GAP) {
		t_rs_acks(test, p, now, send_bw);
		if (!(now % T_MS_STEP)) {
			t_rs_send(p, now, true);
			eri_sim_sb_app_limited(&p->sb,
					       eri_sim_sb_pipe(&p->sb));
		}
	}
	KUNIT_EXPECT_GE(test, p->samples, 28U);
	KUNIT_EXPECT_EQ(test, p->app_limited, p->samples);
	KUNIT_EXPECT_GE(test, p->round, round + 28);
	KUNIT_EXPECT_EQ(test, minmax_get(&p->max_bw), send_bw);

	/* The mark ends once what was in flight at the last mark arrived. */
	t_rs_send(p, now, true);
	now += T_RS_GAP;
	t_rs_send(p, now, true);
	now += 2 * T_RS_RTT;
	t_rs_acks(test, p, now, send_bw);
	KUNIT_EXPECT_EQ(test, p->sb.rate.app_limited_until, 0ULL);

	/* An interval below min_rtt is no sample; nor is an ACK of nothing. */
	eri_sim_sb_init(&p->sb, 100);
	eri_sim_sb_sent(&p->sb, 100, false, 0);
	eri_sim_sb_ack(&p->sb, 101, 0, no_sack);
	eri_sim_sb_rate_sample(&p->sb, 50 * T_US, T_RS_RTT, &rs);
	KUNIT_EXPECT_FALSE(test, rs.valid);
	KUNIT_EXPECT_EQ(test, rs.delivered, 1U);
	KUNIT_EXPECT_EQ(test, p->sb.rate.delivered, 1ULL);
	eri_sim_sb_rate_sample(&p->sb, 60 * T_US, T_RS_RTT, &rs);
	KUNIT_EXPECT_FALSE(test, rs.valid);
	KUNIT_EXPECT_EQ(test, rs.delivered, 0U);

	/* A PSN whose slot a later one took gives no sample of its own. */
	eri_sim_sb_init(&p->sb, 0);
	for (now = 0; now <= ERI_SIM_RATE_SNAPS; now++)
		eri_sim_sb_sent(&p->sb, now, false, now * T_US);
	eri_sim_sb_ack(&p->sb, 1, 0, no_sack);
	eri_sim_sb_rate_sample(&p->sb, T_MS_STEP, 0, &rs);
	KUNIT_EXPECT_FALSE(test, rs.valid);
	KUNIT_EXPECT_EQ(test, p->sb.rate.delivered, 1ULL);
	eri_sim_sb_ack(&p->sb, 2, 0, no_sack);
	eri_sim_sb_rate_sample(&p->sb, T_MS_STEP, 0, &rs);
	KUNIT_EXPECT_TRUE(test, rs.valid);
	KUNIT_EXPECT_EQ(test, rs.delivered, 2U);
	KUNIT_EXPECT_EQ(test, rs.tx_in_flight, 2U);
	KUNIT_EXPECT_EQ(test, rs.interval_ns, T_MS_STEP);
}

/*
 * A bottleneck that serves one PSN per T_SPAN_SVC, a sender that sends
 * bursts of T_SPAN_BURST PSNs at that rate on average (a few PSNs in
 * flight, as on a slow link), every PSN acknowledged T_SPAN_BACK after it
 * was served plus a jitter of up to T_SPAN_JITTER, in order: an ACK held
 * by its jitter releases the ones behind it at once.
 */
#define T_SPAN_SVC	(100 * T_US)
#define T_SPAN_BACK	(200 * T_US)
#define T_SPAN_JITTER	150		/* us */
#define T_SPAN_BURST	4
#define T_SPAN_PSNS	2000

/* Each sample spans enough PSNs that one ACK's jitter does not lift it. */
static void eri_sim_cc_test_rate_sample_span(struct kunit *test)
{
	static const __be64 no_sack[ERI_WIRE_SACK_BITS / 64];
	struct eri_sim_sb *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	u64 *ack_at = kunit_kcalloc(test, T_SPAN_PSNS, sizeof(*ack_at),
				    GFP_KERNEL);
	u32 link_bw = div_u64(1ULL << ERI_SIM_CC_BW_SHIFT,
			      div_u64(T_SPAN_SVC, NSEC_PER_USEC));
	u32 sent = 0, acked = 0, samples = 0, narrow = 0, max_bw = 0;
	u64 served = 0, last_ack = 0, now;
	struct eri_sim_cc_rs rs;
	u32 seed = 1, i;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	KUNIT_ASSERT_NOT_NULL(test, ack_at);
	eri_sim_sb_init(sb, 0);
	for (now = 0; acked < T_SPAN_PSNS; now += T_RS_GAP) {
		while (acked < sent && ack_at[acked] <= now) {
			eri_sim_sb_ack(sb, acked + 1, 0, no_sack);
			eri_sim_sb_advance(sb);
			acked++;
			eri_sim_sb_rate_sample(sb, now, T_SPAN_SVC + T_SPAN_BACK,
					       &rs);
			if (!rs.valid)
				continue;
			samples++;
			/* Few in flight: the newest PSN's flight is short. */
			if (rs.tx_in_flight <= 2 * T_SPAN_BURST)
				narrow++;
			/* Past the first PSNs, which have no older snapshots. */
			if (acked > 2 * ERI_SIM_RATE_MIN_PKTS)
				max_bw = max(max_bw, rs.bw);
		}
		if (now % (T_SPAN_BURST * T_SPAN_SVC) ||
		    sent + T_SPAN_BURST > T_SPAN_PSNS)
			continue;
		for (i = 0; i < T_SPAN_BURST; i++, sent++) {
			eri_sim_sb_sent(sb, sent, false, now);
			served = max(served, now) + T_SPAN_SVC;
			seed = seed * 1103515245 + 12345;
			last_ack = max(last_ack, served + T_SPAN_BACK +
				       (seed >> 16) % (T_SPAN_JITTER + 1) * T_US);
			ack_at[sent] = last_ack;
		}
	}
	kunit_info(test, "%u samples, %u of few PSNs in flight, max %u (link %u)",
		   samples, narrow, max_bw, link_bw);
	KUNIT_EXPECT_GT(test, samples, T_SPAN_PSNS / 2);
	KUNIT_EXPECT_GT(test, narrow, samples / 2);
	/* Within 1/8 of the link (1.25x, flights alone sampled). */
	KUNIT_EXPECT_LE(test, max_bw, link_bw + link_bw / 8);
	KUNIT_EXPECT_GE(test, max_bw, link_bw - link_bw / 16);
}

static struct kunit_case eri_sim_cc_test_cases[] = {
	KUNIT_CASE(eri_sim_cc_test_rtt),
	KUNIT_CASE(eri_sim_cc_test_min_rtt_window),
	KUNIT_CASE(eri_sim_cc_test_large_clock),
	KUNIT_CASE(eri_sim_cc_test_set_mtu),
	KUNIT_CASE(eri_sim_cc_test_fixed),
	KUNIT_CASE(eri_sim_cc_test_query),
	KUNIT_CASE(eri_sim_cc_test_register),
	KUNIT_CASE(eri_sim_cc_test_swift_growth),
	KUNIT_CASE(eri_sim_cc_test_swift_cut),
	KUNIT_CASE(eri_sim_cc_test_swift_loss),
	KUNIT_CASE(eri_sim_cc_test_swift_timeout),
	KUNIT_CASE(eri_sim_cc_test_undo),
	KUNIT_CASE(eri_sim_cc_test_swift_pacing),
	KUNIT_CASE(eri_sim_cc_test_pacing_late),
	KUNIT_CASE(eri_sim_cc_test_swift_standing),
	KUNIT_CASE(eri_sim_cc_test_quantum),
	KUNIT_CASE(eri_sim_cc_test_dcqcn_cut),
	KUNIT_CASE(eri_sim_cc_test_dcqcn_increase),
	KUNIT_CASE(eri_sim_cc_test_dcqcn_slow_path),
	KUNIT_CASE(eri_sim_cc_test_rate_sample),
	KUNIT_CASE(eri_sim_cc_test_rate_sample_span),
	{}
};

static struct kunit_suite eri_sim_cc_test_suite = {
	.name = "eri_sim_cc",
	.test_cases = eri_sim_cc_test_cases,
};

kunit_test_suite(eri_sim_cc_test_suite);
