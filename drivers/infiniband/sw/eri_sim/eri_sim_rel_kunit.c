// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of eri_sim's reliability logic (eri_sim_rel.c): PSN
 * arithmetic across the 2^24 wrap, the receive map and the SACK encoding,
 * the requester's scoreboard and its loss detector (duplicate threshold and
 * reordering window), the retransmission timeout's backoff and the
 * responder's atomic results.  Time is
 * scripted: no clock is read.
 */
#include <kunit/test.h>

#include "eri_sim_rel.h"

#define T_US	1000ULL
#define T_MS	1000000ULL

static void eri_sim_rel_test_psn(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, eri_psn_add(0xfffffe, 1), 0xffffffU);
	KUNIT_EXPECT_EQ(test, eri_psn_add(0xffffff, 1), 0U);
	KUNIT_EXPECT_EQ(test, eri_psn_add(0xfffff0, 0x20), 0x10U);
	KUNIT_EXPECT_EQ(test, eri_psn_diff(0, 0xffffff), 1);
	KUNIT_EXPECT_EQ(test, eri_psn_diff(0xffffff, 0), -1);
	KUNIT_EXPECT_EQ(test, eri_psn_diff(0x10, 0xfffff0), 0x20);
	KUNIT_EXPECT_EQ(test, eri_psn_diff(0xfffff0, 0x10), -0x20);
	KUNIT_EXPECT_EQ(test, eri_psn_diff(5, 5), 0);
	/* Half the space apart is the most negative distance. */
	KUNIT_EXPECT_EQ(test, eri_psn_diff(0x800000, 0), -0x800000);
	KUNIT_EXPECT_EQ(test, eri_psn_diff(0x7fffff, 0), 0x7fffff);
	/* Bits above the 24 do not matter. */
	KUNIT_EXPECT_EQ(test, eri_psn_diff(0x1000005, 3), 2);
}

static void eri_sim_rel_test_map(struct kunit *test)
{
	struct eri_sim_psn_map m;
	u32 base = 0xfffffe;	/* the window straddles the wrap */
	u32 psn;

	eri_sim_psn_map_init(&m, base);
	KUNIT_EXPECT_EQ(test, eri_sim_psn_map_run(&m), 0U);
	KUNIT_EXPECT_FALSE(test, eri_sim_psn_map_test(&m, base));
	KUNIT_EXPECT_TRUE(test, eri_sim_psn_map_test(&m, base - 1));
	KUNIT_EXPECT_EQ(test, eri_sim_psn_map_set(&m, base - 1),
			ERI_SIM_PSN_DUP);
	KUNIT_EXPECT_EQ(test, eri_sim_psn_map_set(&m, 1), ERI_SIM_PSN_NEW);
	KUNIT_EXPECT_EQ(test, eri_sim_psn_map_set(&m, 1), ERI_SIM_PSN_DUP);
	KUNIT_EXPECT_EQ(test, eri_sim_psn_map_set(&m,
						  eri_psn_add(base, ERI_SIM_REL_WIN)),
			ERI_SIM_PSN_FAR);
	KUNIT_EXPECT_EQ(test, eri_sim_psn_map_set(&m,
						  eri_psn_add(base, ERI_SIM_REL_WIN - 1)),
			ERI_SIM_PSN_NEW);
	KUNIT_EXPECT_TRUE(test, eri_sim_psn_map_test(&m, 1));
	KUNIT_EXPECT_FALSE(test, eri_sim_psn_map_test(&m, 0));
	/* A gap at base: nothing in order yet. */
	KUNIT_EXPECT_EQ(test, eri_sim_psn_map_run(&m), 0U);
	eri_sim_psn_map_set(&m, base);
	eri_sim_psn_map_set(&m, 0xffffff);
	KUNIT_EXPECT_EQ(test, eri_sim_psn_map_run(&m), 2U);
	eri_sim_psn_map_set(&m, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_psn_map_run(&m), 4U);
	eri_sim_psn_map_advance(&m, 4);
	KUNIT_EXPECT_EQ(test, m.base, 2U);
	KUNIT_EXPECT_EQ(test, eri_sim_psn_map_run(&m), 0U);
	KUNIT_EXPECT_TRUE(test, eri_sim_psn_map_test(&m, 1));
	/* The last bit moved down with the window. */
	psn = eri_psn_add(0xfffffe, ERI_SIM_REL_WIN - 1);
	KUNIT_EXPECT_TRUE(test, eri_sim_psn_map_test(&m, psn));
	KUNIT_EXPECT_EQ(test, eri_sim_psn_map_set(&m,
						  eri_psn_add(0xfffffe, ERI_SIM_REL_WIN)),
			ERI_SIM_PSN_NEW);
	eri_sim_psn_map_advance(&m, ERI_SIM_REL_WIN + 5);
	KUNIT_EXPECT_EQ(test, eri_sim_psn_map_run(&m), 0U);
	KUNIT_EXPECT_EQ(test, m.base, eri_psn_add(2, ERI_SIM_REL_WIN + 5));
}

/*
 * The map against a plain bitmap of the whole window, over a scripted mix of
 * arrivals in order, out of order, far ahead, and moves of the window: the
 * same answers, and nothing set at or past its span, whatever the order.
 */
static void eri_sim_rel_test_map_span(struct kunit *test)
{
	DECLARE_BITMAP(ref, ERI_SIM_REL_WIN);
	struct eri_sim_psn_map m;
	u32 rnd = 12345, base = 0xfffff0, i, d, n;

	eri_sim_psn_map_init(&m, base);
	bitmap_zero(ref, ERI_SIM_REL_WIN);
	for (i = 0; i < 4000; i++) {
		rnd = rnd * 1103515245 + 12345;
		d = (rnd >> 8) % 8 ? (rnd >> 12) % 4 : (rnd >> 12) % ERI_SIM_REL_WIN;
		if (eri_sim_psn_map_set(&m, eri_psn_add(base, d)) ==
		    ERI_SIM_PSN_NEW)
			KUNIT_EXPECT_FALSE(test, __test_and_set_bit(d, ref));
		else
			KUNIT_EXPECT_TRUE(test, test_bit(d, ref));
		n = find_first_zero_bit(ref, ERI_SIM_REL_WIN);
		KUNIT_ASSERT_EQ(test, eri_sim_psn_map_run(&m), n);
		if ((rnd >> 20) % 3)
			continue;
		/* The run, or now and then a READ's jump past it. */
		if (!((rnd >> 24) % 5))
			n += (rnd >> 16) % 40;
		eri_sim_psn_map_advance(&m, n);
		base = eri_psn_add(base, n);
		if (n >= ERI_SIM_REL_WIN)
			bitmap_zero(ref, ERI_SIM_REL_WIN);
		else
			bitmap_shift_right(ref, ref, n, ERI_SIM_REL_WIN);
		KUNIT_ASSERT_EQ(test, m.base, base);
		KUNIT_ASSERT_TRUE(test, bitmap_equal(m.bits, ref,
						     ERI_SIM_REL_WIN));
		KUNIT_ASSERT_LE(test, m.span, (u32)ERI_SIM_REL_WIN);
		KUNIT_ASSERT_EQ(test, find_next_bit(ref, ERI_SIM_REL_WIN,
						    m.span),
				(unsigned long)ERI_SIM_REL_WIN);
	}
}

static void eri_sim_rel_test_sack(struct kunit *test)
{
	__be64 sack[ERI_WIRE_SACK_BITS / 64];
	DECLARE_BITMAP(out, ERI_SIM_REL_WIN);
	struct eri_sim_psn_map m;
	u32 base = 0xffffc0;

	eri_sim_psn_map_init(&m, base);
	KUNIT_EXPECT_EQ(test, eri_sim_sack_encode(&m, sack), 0U);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sack[0]), 0ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sack[1]), 0ULL);
	eri_sim_psn_map_set(&m, eri_psn_add(base, 1));	/* SACK bit 0 */
	eri_sim_psn_map_set(&m, eri_psn_add(base, 64));	/* bit 63 */
	eri_sim_psn_map_set(&m, eri_psn_add(base, 65));	/* bit 64 */
	eri_sim_psn_map_set(&m, eri_psn_add(base, 128));	/* bit 127 */
	KUNIT_EXPECT_EQ(test, eri_sim_sack_encode(&m, sack), 0U);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sack[0]), BIT_ULL(0) | BIT_ULL(63));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sack[1]), BIT_ULL(0) | BIT_ULL(63));

	/* Decoded against a base 3 before ack_psn (a READ held it). */
	eri_sim_sack_decode(eri_psn_add(base, -3 & ERI_PSN_MASK), base, 0, sack,
			    out);
	KUNIT_EXPECT_EQ(test, bitmap_weight(out, ERI_SIM_REL_WIN), 3U + 4U);
	KUNIT_EXPECT_TRUE(test, test_bit(0, out) && test_bit(2, out));
	KUNIT_EXPECT_FALSE(test, test_bit(3, out));	/* ack_psn itself */
	KUNIT_EXPECT_TRUE(test, test_bit(4, out));
	KUNIT_EXPECT_TRUE(test, test_bit(3 + 64, out));
	KUNIT_EXPECT_TRUE(test, test_bit(3 + 65, out));
	KUNIT_EXPECT_TRUE(test, test_bit(3 + 128, out));
	KUNIT_EXPECT_FALSE(test, test_bit(3 + 129, out));

	/* A base past ack_psn: the bits before it fall away. */
	eri_sim_sack_decode(eri_psn_add(base, 64), base, 0, sack, out);
	KUNIT_EXPECT_EQ(test, bitmap_weight(out, ERI_SIM_REL_WIN), 3U);
	KUNIT_EXPECT_TRUE(test, test_bit(0, out));

	/* One past the first 128: the words move by one. */
	eri_sim_psn_map_set(&m, eri_psn_add(base, 129));
	KUNIT_EXPECT_EQ(test, eri_sim_sack_encode(&m, sack), 1U);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sack[0]), BIT_ULL(62) | BIT_ULL(63));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sack[1]), BIT_ULL(62) | BIT_ULL(63));

	/*
	 * The newest arrival far past the base: the words end with it, so
	 * PSNs up to the window's end are reported (offset 900 - 128 = 772).
	 */
	eri_sim_psn_map_set(&m, eri_psn_add(base, 772));	/* before the words */
	eri_sim_psn_map_set(&m, eri_psn_add(base, 773));	/* SACK bit 0 */
	eri_sim_psn_map_set(&m, eri_psn_add(base, 900));	/* bit 127 */
	KUNIT_EXPECT_EQ(test, eri_sim_sack_encode(&m, sack), 772U);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sack[0]), BIT_ULL(0));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sack[1]), BIT_ULL(63));
	eri_sim_sack_decode(base, base, 772, sack, out);
	KUNIT_EXPECT_EQ(test, bitmap_weight(out, ERI_SIM_REL_WIN), 2U);
	KUNIT_EXPECT_TRUE(test, test_bit(773, out) && test_bit(900, out));
	/* Decoded from a base 10 later: the same PSNs, 10 bits lower. */
	eri_sim_sack_decode(eri_psn_add(base, 10), base, 772, sack, out);
	KUNIT_EXPECT_TRUE(test, test_bit(763, out) && test_bit(890, out));
	/* Words that would end past the window are cut there. */
	eri_sim_sack_decode(eri_psn_add(base, -200 & ERI_PSN_MASK), base, 772,
			    sack, out);
	KUNIT_EXPECT_EQ(test, bitmap_weight(out, ERI_SIM_REL_WIN), 200U + 1U);
	KUNIT_EXPECT_TRUE(test, test_bit(973, out));
	/* A hostile offset: only the cumulative part counts. */
	eri_sim_sack_decode(eri_psn_add(base, -3 & ERI_PSN_MASK), base,
			    0xffffffff, sack, out);
	KUNIT_EXPECT_EQ(test, bitmap_weight(out, ERI_SIM_REL_WIN), 3U);
	eri_sim_sack_decode(eri_psn_add(base, -3 & ERI_PSN_MASK), base,
			    ERI_SIM_REL_WIN, sack, out);
	KUNIT_EXPECT_EQ(test, bitmap_weight(out, ERI_SIM_REL_WIN), 3U);
}

/* A scoreboard with @n PSNs sent from @psn, 10 us apart from @t0. */
static void t_sb_send(struct eri_sim_sb *sb, u32 psn, u32 n, u64 t0)
{
	u32 i;

	eri_sim_sb_init(sb, psn);
	for (i = 0; i < n; i++)
		eri_sim_sb_sent(sb, eri_psn_add(psn, i), false, t0 + i * 10 * T_US);
}

/* An ACK of @ack_psn with SACK bits for the PSN offsets of @sacked. */
static void t_ack(struct eri_sim_sb *sb, u32 ack_psn, const u32 *sacked,
		  u32 n)
{
	__be64 sack[ERI_WIRE_SACK_BITS / 64] = {};
	u64 w[ERI_WIRE_SACK_BITS / 64] = {};
	u32 i;

	for (i = 0; i < n; i++) {
		u32 j = eri_psn_diff(sacked[i], ack_psn) - 1;

		w[j / 64] |= BIT_ULL(j % 64);
	}
	for (i = 0; i < ARRAY_SIZE(w); i++)
		sack[i] = cpu_to_be64(w[i]);
	eri_sim_sb_ack(sb, ack_psn, 0, sack);
}

static void eri_sim_rel_test_scoreboard(struct kunit *test)
{
	struct eri_sim_sb *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	u32 base = 0xfffffa, psn;
	u32 s1[] = { 0xfffffd, 0xffffff };

	KUNIT_ASSERT_NOT_NULL(test, sb);
	t_sb_send(sb, base, 10, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_span(sb), 10U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_pipe(sb), 10U);
	KUNIT_EXPECT_EQ(test, sb->nxt, 4U);
	/* ACK of two, SACK of two more past a hole. */
	t_ack(sb, 0xfffffc, s1, ARRAY_SIZE(s1));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_pipe(sb), 6U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_advance(sb), 2U);
	KUNIT_EXPECT_EQ(test, sb->una, 0xfffffcU);
	KUNIT_EXPECT_TRUE(test, eri_sim_sb_delivered(sb, 0xfffffd));
	KUNIT_EXPECT_FALSE(test, eri_sim_sb_delivered(sb, 0xfffffe));
	KUNIT_EXPECT_TRUE(test, eri_sim_sb_delivered(sb, 0xfffffb));
	KUNIT_EXPECT_TRUE(test, eri_sim_sb_last_unsacked(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, 3U);
	/* An ACK past everything sent stops at nxt. */
	t_ack(sb, 100, NULL, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_advance(sb), 8U);
	KUNIT_EXPECT_EQ(test, sb->una, 4U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_span(sb), 0U);
	KUNIT_EXPECT_FALSE(test, eri_sim_sb_last_unsacked(sb, &psn));

	/* READ PSNs are delivered by responses only. */
	eri_sim_sb_init(sb, 0xfffffe);
	eri_sim_sb_sent(sb, 0xfffffe, true, 0);
	eri_sim_sb_sent(sb, 0xffffff, true, 0);
	eri_sim_sb_sent(sb, 0, false, 0);
	t_ack(sb, 1, NULL, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_advance(sb), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_deliver(sb, 0xffffff), ERI_SIM_PSN_NEW);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_deliver(sb, 0xffffff), ERI_SIM_PSN_DUP);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_deliver(sb, 1), ERI_SIM_PSN_FAR);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_deliver(sb, 0xfffffe), ERI_SIM_PSN_NEW);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_advance(sb), 3U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_deliver(sb, 0xfffffe), ERI_SIM_PSN_DUP);
}

static void eri_sim_rel_test_dup_thresh(struct kunit *test)
{
	struct eri_sim_sb *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	u32 two[] = { 0xfffffe, 0xffffff };
	u32 three[] = { 0xfffffe, 0xffffff, 0 };
	u32 psn;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	/* No RTT sample yet: only the duplicate threshold applies. */
	t_sb_send(sb, 0xfffffc, 8, 0);
	t_ack(sb, 0xfffffd, two, ARRAY_SIZE(two));
	eri_sim_sb_advance(sb);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 10 * T_MS, 0), 0U);
	KUNIT_EXPECT_FALSE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_FALSE(test, eri_sim_sb_una_lost(sb));
	t_ack(sb, 0xfffffd, three, ARRAY_SIZE(three));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 10 * T_MS, 0), 1U);
	KUNIT_EXPECT_TRUE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, 0xfffffdU);
	/* The PSN lost is the oldest not delivered. */
	KUNIT_EXPECT_TRUE(test, eri_sim_sb_una_lost(sb));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_pipe(sb), 8U - 1 - 3 - 1);
	/* Declared once; PSNs above the highest SACK are never lost. */
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 10 * T_MS, 0), 0U);
	/* Sent again: back in the pipe, no longer lost. */
	eri_sim_sb_sent(sb, 0xfffffd, false, 11 * T_MS);
	KUNIT_EXPECT_FALSE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_FALSE(test, eri_sim_sb_una_lost(sb));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_pipe(sb), 8U - 1 - 3);
	/* Not lost again while nothing sent after the resend arrived. */
	t_ack(sb, 0xfffffd, three, ARRAY_SIZE(three));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 20 * T_MS, 0), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 20 * T_MS, T_MS), 0U);
	/* The original arrives late after all: delivered, never lost. */
	t_ack(sb, 1, NULL, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_advance(sb), 4U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_pipe(sb), 3U);
}

/*
 * A PSN sent once that is delivered after later ones was reordered: the
 * duplicate threshold grows to that distance, so the same reordering is
 * not taken for a loss again.  A resent PSN or a READ's proves nothing.
 */
static void eri_sim_rel_test_reorder_thresh(struct kunit *test)
{
	struct eri_sim_sb *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	u32 late[] = { 5, 6, 7, 8, 9 };
	u32 five[] = { 15, 16, 17, 18, 19 };
	u32 six[] = { 15, 16, 17, 18, 19, 20 };
	__be64 far[ERI_WIRE_SACK_BITS / 64] = { cpu_to_be64(1) };
	u32 psn;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	t_sb_send(sb, 0, 30, 0);
	KUNIT_EXPECT_EQ(test, sb->reorder, (u32)ERI_SIM_DUP_THRESH);
	/* 0-3 arrive, then 5-9: 4 is declared lost (5 above it)... */
	t_ack(sb, 4, late, ARRAY_SIZE(late));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, T_MS, 0), 1U);
	/* ...but its first transmission arrives: reordered by 9 - 4. */
	t_ack(sb, 10, NULL, 0);
	KUNIT_EXPECT_EQ(test, sb->reorder, 9U - 4U + 1U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_advance(sb), 10U);
	KUNIT_EXPECT_FALSE(test, eri_sim_sb_next_lost(sb, &psn));
	/* Holes at 10-14 with 5 PSNs above: no loss by count any more... */
	t_ack(sb, 10, five, ARRAY_SIZE(five));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, T_MS, 0), 0U);
	/*
	 * By time (srtt 1 ms, 10-14 sent at 100-140 us) the reordering window
	 * is a whole RTT now, no longer a quarter: 10 is lost at 2.1 ms.
	 */
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 1400 * T_US, T_MS), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 2100 * T_US, T_MS), 1U);
	/* With 6 above, the others are. */
	t_ack(sb, 10, six, ARRAY_SIZE(six));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 2100 * T_US, 0), 4U);

	/* A resent PSN delivered late raises nothing. */
	t_sb_send(sb, 100, 10, 0);
	eri_sim_sb_sent(sb, 101, false, T_MS);
	t_ack(sb, 101, (u32[]){ 105 }, 1);
	t_ack(sb, 102, NULL, 0);
	KUNIT_EXPECT_EQ(test, sb->reorder, (u32)ERI_SIM_DUP_THRESH);
	/* Nor does a READ's PSN answered after a later ACK. */
	t_sb_send(sb, 200, 0, 0);
	eri_sim_sb_sent(sb, 200, true, 0);
	eri_sim_sb_sent(sb, 201, false, 0);
	t_ack(sb, 200, (u32[]){ 201 }, 1);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_deliver(sb, 200), ERI_SIM_PSN_NEW);
	KUNIT_EXPECT_EQ(test, sb->reorder, (u32)ERI_SIM_DUP_THRESH);
	/* The threshold has a ceiling: 201 (SACK offset 200), then 0. */
	t_sb_send(sb, 0, 400, 0);
	eri_sim_sb_ack(sb, 0, 200, far);
	t_ack(sb, 202, NULL, 0);
	KUNIT_EXPECT_EQ(test, sb->reorder, (u32)ERI_SIM_REORDER_MAX);
}

/*
 * Packets sent at one time (a run of the requester, a READ's responses)
 * left in PSN order: a hole among them is found from the ones after it.
 */
static void eri_sim_rel_test_rack_tie(struct kunit *test)
{
	struct eri_sim_sb *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	u32 burst[] = { 0xfffffd, 0xfffffe, 0xffffff, 0, 1 };
	u32 tail[] = { 3 };
	u32 psn, i;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	/* A READ of 32 PSNs from 0xfffff0: one request, one send time. */
	eri_sim_sb_init(sb, 0xfffff0);
	for (i = 0; i < 32; i++)
		eri_sim_sb_sent(sb, eri_psn_add(0xfffff0, i), true, T_MS);
	for (i = 0; i < 32; i++)
		if (i != 10)
			eri_sim_sb_deliver(sb, eri_psn_add(0xfffff0, i));
	KUNIT_EXPECT_EQ(test, sb->rack_psn, 0xfU);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 2 * T_MS, 0), 1U);
	KUNIT_EXPECT_TRUE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, 0xfffffaU);

	/*
	 * A burst of SENDs at one time, 0xfffffb and 0xfffffc lost: the five
	 * after them arrived.
	 */
	eri_sim_sb_init(sb, 0xfffffb);
	for (i = 0; i < 7; i++)
		eri_sim_sb_sent(sb, eri_psn_add(0xfffffb, i), false, T_MS);
	t_ack(sb, 0xfffffb, burst, ARRAY_SIZE(burst));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 2 * T_MS, 0), 2U);
	/*
	 * Sent again in one run with 2 and 3, then 4 in the next: nothing of
	 * theirs arrived, nothing is lost.  Then 3 arrives: the two resent
	 * before it in its run are lost again; not 2, with one later PSN
	 * delivered, nor 4, sent after it.
	 */
	eri_sim_sb_sent(sb, 0xfffffb, false, 3 * T_MS);
	eri_sim_sb_sent(sb, 0xfffffc, false, 3 * T_MS);
	eri_sim_sb_sent(sb, 2, false, 3 * T_MS);
	eri_sim_sb_sent(sb, 3, false, 3 * T_MS);
	eri_sim_sb_sent(sb, 4, false, 4 * T_MS);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 5 * T_MS, 0), 0U);
	t_ack(sb, 0xfffffb, tail, ARRAY_SIZE(tail));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 5 * T_MS, 0), 2U);
	KUNIT_EXPECT_TRUE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, 0xfffffbU);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_pipe(sb), 2U);

	/* A hole at the tail of a burst: nothing after it, not lost. */
	eri_sim_sb_init(sb, 100);
	for (i = 0; i < 4; i++)
		eri_sim_sb_sent(sb, 100 + i, false, T_MS);
	t_ack(sb, 103, NULL, 0);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 100 * T_MS, T_MS), 0U);
	KUNIT_EXPECT_FALSE(test, eri_sim_sb_next_lost(sb, &psn));
}

static void eri_sim_rel_test_reorder_window(struct kunit *test)
{
	struct eri_sim_sb *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	u32 one[] = { 11 };
	u32 psn;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	/* srtt 1 ms: a hole waits srtt * 5 / 4 after it was sent. */
	t_sb_send(sb, 10, 4, 0);
	t_ack(sb, 10, one, ARRAY_SIZE(one));	/* PSN 11, sent at 10 us */
	KUNIT_EXPECT_EQ(test, sb->rack_ns, 10 * T_US);
	/* One later packet arrived: reordering until the window is over. */
	/* Without an RTT estimate only the duplicate threshold counts. */
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 100 * T_MS, 0), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 1 * T_MS, T_MS), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 1250 * T_US - 1, T_MS), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 1250 * T_US, T_MS), 1U);
	KUNIT_EXPECT_TRUE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, 10U);
	/* 12 and 13 were sent after the newest delivered one: not lost. */
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 100 * T_MS, T_MS), 0U);
	/* The timeout takes every PSN not delivered as lost. */
	KUNIT_EXPECT_EQ(test, eri_sim_sb_lose_all(sb), 2U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_pipe(sb), 0U);
	eri_sim_sb_sent(sb, 10, false, 101 * T_MS);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_pipe(sb), 1U);
	KUNIT_EXPECT_TRUE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, 12U);
}

/* Spurious timeouts: the PSNs they declared lost are in flight again. */
static void eri_sim_rel_test_unlose(struct kunit *test)
{
	struct eri_sim_sb *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	struct eri_sim_cc_rs rs;
	u32 three[] = { 23 }, five[] = { 25 };
	u64 lost_before;
	u32 psn;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	/* 20..27 sent; 20, 21 delivered in order, 23 selectively. */
	t_sb_send(sb, 20, 8, 0);
	t_ack(sb, 22, three, ARRAY_SIZE(three));
	eri_sim_sb_advance(sb);
	eri_sim_sb_rate_sample(sb, T_MS, 0, &rs);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_pipe(sb), 5U);
	lost_before = sb->rate.lost_total;
	/* The timeout: 22 and 24..27 lost; 22 sent again. */
	KUNIT_EXPECT_EQ(test, eri_sim_sb_lose_all(sb), 5U);
	KUNIT_EXPECT_EQ(test, sb->rate.lost_total, lost_before + 5);
	eri_sim_sb_sent(sb, 22, false, 10 * T_MS);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_pipe(sb), 1U);
	/* Spurious: 24..27 are in flight again, 22 once. */
	KUNIT_EXPECT_EQ(test, eri_sim_sb_unlose(sb), 4U);
	KUNIT_EXPECT_FALSE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_pipe(sb), 5U);
	KUNIT_EXPECT_EQ(test, sb->rate.lost_total, lost_before + 1);
	/* Nothing lost: nothing to give back, and it stays so. */
	KUNIT_EXPECT_EQ(test, eri_sim_sb_unlose(sb), 0U);
	KUNIT_EXPECT_EQ(test, sb->rate.lost_total, lost_before + 1);
	/*
	 * The copy of 22 sent after the timeout took its snapshot then: its
	 * delivery counts no loss, rather than a negative one.
	 */
	t_ack(sb, 23, NULL, 0);
	eri_sim_sb_advance(sb);
	eri_sim_sb_rate_sample(sb, 11 * T_MS, 0, &rs);
	KUNIT_EXPECT_EQ(test, rs.lost, 0U);
	/* The loss detector finds a hole that was lost after all. */
	t_ack(sb, 24, five, ARRAY_SIZE(five));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_detect_loss(sb, 20 * T_MS, T_MS), 1U);
	KUNIT_EXPECT_TRUE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, 24U);
}

/*
 * A READ request lost in a stream of READs: the responder keeps the later
 * ones and answers each with an ACK naming it past the gap, the only
 * evidence there is.  The duplicate threshold of them, or the loss
 * detector's wait, makes the gap lost; requests sent before its copy do
 * not count for that copy.
 */
static void eri_sim_rel_test_stalled(struct kunit *test)
{
	struct eri_sim_sb *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	u32 a = 0xfffffe, psn, i;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	/* Eight one-PSN READ requests from 0xfffffe, 10 us apart. */
	eri_sim_sb_init(sb, a);
	for (i = 0; i < 8; i++)
		eri_sim_sb_sent(sb, eri_psn_add(a, i), true, i * 10 * T_US);
	/* Not evidence: the trigger at or before ack_psn, or never sent. */
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, a, a, T_MS, T_MS), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, 0, a, T_MS, T_MS), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, a, 6, T_MS, T_MS), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, a, 0, T_MS, 0), 0U);
	/* A second report of the same request counts once. */
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, a, 0, T_MS, 0), 0U);
	KUNIT_EXPECT_FALSE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, a, 1, T_MS, 0), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, a, 3, T_MS, 0), 1U);
	KUNIT_EXPECT_TRUE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, a);
	KUNIT_EXPECT_EQ(test, sb->rate.lost_total, 1ULL);
	/* Declared once. */
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, a, 4, T_MS, 0), 0U);

	/* Asked again at 2 ms: reports of requests sent before prove nothing. */
	eri_sim_sb_sent(sb, a, true, 2 * T_MS);
	KUNIT_EXPECT_FALSE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, a, 4, 10 * T_MS, T_MS),
			0U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, a, 5, 10 * T_MS, T_MS),
			0U);
	/*
	 * One sent after the copy: evidence, lost once the copy has been out
	 * for srtt and a quarter (1.25 ms at an srtt of 1 ms), not before.
	 */
	eri_sim_sb_sent(sb, 6, true, 2 * T_MS + 10 * T_US);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, a, 6, 3 * T_MS, T_MS), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, a, 6, 3 * T_MS + 250 * T_US,
						 T_MS), 1U);
	KUNIT_EXPECT_TRUE(test, eri_sim_sb_next_lost(sb, &psn));
	KUNIT_EXPECT_EQ(test, psn, a);

	/* A gap delivered is not lost. */
	eri_sim_sb_sent(sb, a, true, 4 * T_MS);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_deliver(sb, a), ERI_SIM_PSN_NEW);
	eri_sim_sb_sent(sb, 7, true, 5 * T_MS);
	KUNIT_EXPECT_EQ(test, eri_sim_sb_stalled(sb, a, 7, 20 * T_MS, T_MS), 0U);
	KUNIT_EXPECT_FALSE(test, eri_sim_sb_next_lost(sb, &psn));
}

/* A cumulative ACK of @ack_psn taken in at @now_ns: its rate sample. */
static void t_ack_rate(struct eri_sim_sb *sb, u32 ack_psn, u64 now_ns,
		       struct eri_sim_cc_rs *rs)
{
	t_ack(sb, ack_psn, NULL, 0);
	eri_sim_sb_advance(sb);
	eri_sim_sb_rate_sample(sb, now_ns, 0, rs);
}

/*
 * A scoreboard with @n PSNs from 0 sent 10 us apart, 0 and 1 delivered at
 * 1 ms: a rate.
 */
static struct eri_sim_sb *t_sb_sampled(struct kunit *test, u32 n)
{
	struct eri_sim_sb *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	struct eri_sim_cc_rs rs;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	t_sb_send(sb, 0, n, 0);
	t_ack_rate(sb, 2, T_MS, &rs);
	KUNIT_EXPECT_TRUE(test, rs.valid);
	return sb;
}

/*
 * Karn's rule for delivery rates: between a timeout and the delivery of
 * every PSN sent before it, whose copy an ACK delivers is unknown, and the
 * snapshots taken meanwhile give counts but no rate.
 */
static void eri_sim_rel_test_ambiguous_rate(struct kunit *test)
{
	/* 0..7 sent, 0 and 1 delivered: a rate. */
	struct eri_sim_sb *sb = t_sb_sampled(test, 8);
	struct eri_sim_cc_rs rs;

	/* A timeout at 5 ms: 2..7 lost, 2 sent again. */
	KUNIT_EXPECT_EQ(test, eri_sim_sb_lose_all(sb), 6U);
	eri_sim_sb_sent(sb, 2, false, 5 * T_MS);
	/*
	 * The first copies of 2..5 arrive 0.2 ms later: 4 delivered in
	 * 0.2 ms from the resending's snapshot would be 20000 packets/s.
	 */
	t_ack_rate(sb, 6, 5 * T_MS + 200 * T_US, &rs);
	KUNIT_EXPECT_EQ(test, rs.delivered, 4U);
	KUNIT_EXPECT_FALSE(test, rs.valid);
	KUNIT_EXPECT_EQ(test, rs.bw, 0U);
	/* A new PSN sent while 6 and 7 are still out: ambiguous too. */
	eri_sim_sb_sent(sb, 8, false, 5 * T_MS + 300 * T_US);
	/* 6 and 7 arrive: their snapshots predate the timeout. */
	t_ack_rate(sb, 8, 5 * T_MS + 400 * T_US, &rs);
	KUNIT_EXPECT_TRUE(test, rs.valid);
	KUNIT_EXPECT_FALSE(test, sb->rate.ambiguous);
	/* 9 leaves after the episode; 8's sample is ambiguous, 9's not. */
	eri_sim_sb_sent(sb, 9, false, 6 * T_MS);
	t_ack_rate(sb, 9, 6 * T_MS + 500 * T_US, &rs);
	KUNIT_EXPECT_EQ(test, rs.delivered, 3U);
	KUNIT_EXPECT_FALSE(test, rs.valid);
	t_ack_rate(sb, 10, 7 * T_MS, &rs);
	KUNIT_EXPECT_EQ(test, rs.delivered, 2U);
	KUNIT_EXPECT_TRUE(test, rs.valid);
}

/*
 * PSNs sent ahead of pacing, making up time a late host took, give a rate
 * marked early: their burst may show more than the path delivers.
 */
static void eri_sim_rel_test_early_rate(struct kunit *test)
{
	/* 0..3 sent, 0 and 1 delivered: a rate. */
	struct eri_sim_sb *sb = t_sb_sampled(test, 4);
	struct eri_sim_cc_rs rs;

	/* 4 and 5 leave early, 6 on time again. */
	eri_sim_sb_early(sb, true);
	eri_sim_sb_sent(sb, 4, false, 2 * T_MS);
	eri_sim_sb_sent(sb, 5, false, 2 * T_MS);
	eri_sim_sb_early(sb, false);
	eri_sim_sb_sent(sb, 6, false, 3 * T_MS);
	/* 2 and 3 were sent on time: a rate. */
	t_ack_rate(sb, 4, 3 * T_MS, &rs);
	KUNIT_EXPECT_TRUE(test, rs.valid);
	KUNIT_EXPECT_FALSE(test, rs.early);
	/* 4 and 5: counted (2 to 5 since 5 left), a rate marked early. */
	t_ack_rate(sb, 6, 3 * T_MS + 100 * T_US, &rs);
	KUNIT_EXPECT_EQ(test, rs.delivered, 4U);
	KUNIT_EXPECT_TRUE(test, rs.valid);
	KUNIT_EXPECT_TRUE(test, rs.early);
	KUNIT_EXPECT_NE(test, rs.bw, 0U);
	t_ack_rate(sb, 7, 4 * T_MS, &rs);
	KUNIT_EXPECT_TRUE(test, rs.valid);
	KUNIT_EXPECT_FALSE(test, rs.early);
}

static void eri_sim_rel_test_rto(struct kunit *test)
{
	u64 min = T_MS, max = 67 * T_MS;

	/* Backoff doubles, capped by the maximum. */
	KUNIT_EXPECT_EQ(test, eri_sim_rto_backoff(5 * T_MS, 0, min, max),
			5 * T_MS);
	KUNIT_EXPECT_EQ(test, eri_sim_rto_backoff(5 * T_MS, 1, min, max),
			10 * T_MS);
	KUNIT_EXPECT_EQ(test, eri_sim_rto_backoff(5 * T_MS, 3, min, max),
			40 * T_MS);
	KUNIT_EXPECT_EQ(test, eri_sim_rto_backoff(5 * T_MS, 4, min, max), max);
	KUNIT_EXPECT_EQ(test, eri_sim_rto_backoff(5 * T_MS, 63, min, max), max);
	KUNIT_EXPECT_EQ(test, eri_sim_rto_backoff(5 * T_MS, 200, min, max), max);
	/* The lower bound applies before the doubling. */
	KUNIT_EXPECT_EQ(test, eri_sim_rto_backoff(10 * T_US, 0, min, max), min);
	KUNIT_EXPECT_EQ(test, eri_sim_rto_backoff(10 * T_US, 2, min, max),
			4 * min);
	KUNIT_EXPECT_EQ(test, eri_sim_rto_backoff(U64_MAX, 0, min, max), max);
	/* The upper bound (retry_cnt timeouts of at most it) wins. */
	KUNIT_EXPECT_EQ(test, eri_sim_rto_backoff(10 * T_US, 0, min, T_MS / 2),
			T_MS / 2);
}

static void eri_sim_rel_test_retry_budget(struct kunit *test)
{
	/* timeout 14: 67.1 ms; retry_cnt 7: eight of them. */
	u64 ack = 4096ULL << 14, budget = 8 * ack;

	KUNIT_EXPECT_EQ(test, eri_sim_retry_budget_ns(7, ack), budget);
	KUNIT_EXPECT_EQ(test, eri_sim_retry_budget_ns(0, ack), ack);
	/* The largest attributes do not overflow. */
	KUNIT_EXPECT_EQ(test, eri_sim_retry_budget_ns(7, 4096ULL << 31),
			8 * (4096ULL << 31));
	/* Timeouts alone are not enough while the time is not up ... */
	KUNIT_EXPECT_FALSE(test, eri_sim_retry_exhausted(7, 7, 100 * T_MS, ack));
	KUNIT_EXPECT_FALSE(test, eri_sim_retry_exhausted(20, 7, budget - 1, ack));
	/* ... nor is the time without retry_cnt timeouts ... */
	KUNIT_EXPECT_FALSE(test, eri_sim_retry_exhausted(6, 7, 10 * budget, ack));
	KUNIT_EXPECT_FALSE(test, eri_sim_retry_exhausted(0, 1, budget, ack));
	/* ... both are. */
	KUNIT_EXPECT_TRUE(test, eri_sim_retry_exhausted(7, 7, budget, ack));
	KUNIT_EXPECT_TRUE(test, eri_sim_retry_exhausted(9, 7, 2 * budget, ack));
	/* retry_cnt 0: the first timeout after one local ACK timeout. */
	KUNIT_EXPECT_TRUE(test, eri_sim_retry_exhausted(0, 0, ack, ack));
	KUNIT_EXPECT_FALSE(test, eri_sim_retry_exhausted(0, 0, ack - 1, ack));
}

static void eri_sim_rel_test_ares(struct kunit *test)
{
	struct eri_sim_ares r;
	u64 orig = 0;
	u32 i;

	eri_sim_ares_init(&r);
	/* Nothing kept, not even PSN 0. */
	KUNIT_EXPECT_FALSE(test, eri_sim_ares_find(&r, 0, &orig));
	/* Across the PSN wrap. */
	for (i = 0; i < ERI_SIM_ATOMIC_RES; i++)
		eri_sim_ares_save(&r, eri_psn_add(0xfffff8, i), 100 + i);
	for (i = 0; i < ERI_SIM_ATOMIC_RES; i++) {
		KUNIT_EXPECT_TRUE(test,
				  eri_sim_ares_find(&r, eri_psn_add(0xfffff8, i),
						    &orig));
		KUNIT_EXPECT_EQ(test, orig, 100ULL + i);
	}
	/* Bits above the 24 do not matter. */
	KUNIT_EXPECT_TRUE(test, eri_sim_ares_find(&r, 0x1fffff8, &orig));
	KUNIT_EXPECT_EQ(test, orig, 100ULL);
	/* One more evicts the oldest, and only it. */
	eri_sim_ares_save(&r, 8, 0xdeadbeefcafef00dULL);
	KUNIT_EXPECT_FALSE(test, eri_sim_ares_find(&r, 0xfffff8, &orig));
	KUNIT_EXPECT_TRUE(test, eri_sim_ares_find(&r, 0xfffff9, &orig));
	KUNIT_EXPECT_EQ(test, orig, 101ULL);
	KUNIT_EXPECT_TRUE(test, eri_sim_ares_find(&r, 8, &orig));
	KUNIT_EXPECT_EQ(test, orig, 0xdeadbeefcafef00dULL);
	KUNIT_EXPECT_FALSE(test, eri_sim_ares_find(&r, 9, &orig));
	/* A PSN kept twice (after a wrap): the newest result answers. */
	eri_sim_ares_save(&r, 3, 7);
	KUNIT_EXPECT_TRUE(test, eri_sim_ares_find(&r, 3, &orig));
	KUNIT_EXPECT_EQ(test, orig, 7ULL);
	KUNIT_EXPECT_TRUE(test, eri_sim_ares_find(&r, 2, &orig));
	KUNIT_EXPECT_EQ(test, orig, 110ULL);
	/* A reset forgets everything. */
	eri_sim_ares_init(&r);
	KUNIT_EXPECT_FALSE(test, eri_sim_ares_find(&r, 8, &orig));
}

static struct kunit_case eri_sim_rel_test_cases[] = {
	KUNIT_CASE(eri_sim_rel_test_psn),
	KUNIT_CASE(eri_sim_rel_test_map),
	KUNIT_CASE(eri_sim_rel_test_map_span),
	KUNIT_CASE(eri_sim_rel_test_sack),
	KUNIT_CASE(eri_sim_rel_test_scoreboard),
	KUNIT_CASE(eri_sim_rel_test_dup_thresh),
	KUNIT_CASE(eri_sim_rel_test_reorder_thresh),
	KUNIT_CASE(eri_sim_rel_test_rack_tie),
	KUNIT_CASE(eri_sim_rel_test_reorder_window),
	KUNIT_CASE(eri_sim_rel_test_unlose),
	KUNIT_CASE(eri_sim_rel_test_stalled),
	KUNIT_CASE(eri_sim_rel_test_ambiguous_rate),
	KUNIT_CASE(eri_sim_rel_test_early_rate),
	KUNIT_CASE(eri_sim_rel_test_rto),
	KUNIT_CASE(eri_sim_rel_test_retry_budget),
	KUNIT_CASE(eri_sim_rel_test_ares),
	{}
};

static struct kunit_suite eri_sim_rel_test_suite = {
	.name = "eri_sim_rel",
	.test_cases = eri_sim_rel_test_cases,
};

kunit_test_suite(eri_sim_rel_test_suite);
