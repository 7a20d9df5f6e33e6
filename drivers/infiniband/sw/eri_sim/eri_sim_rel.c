// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim reliability logic: PSN bitmaps, the SACK encoding, and the
 * requester's scoreboard with its loss detector and the backoff of the
 * retransmission timeout.
 * Documentation/infiniband/eri.rst ("Reliability") describes the scheme.
 *
 * Pure logic, serialized by the caller (qp->lock for a QP's state).
 */
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "eri_sim_rel.h"

#define ERI_SIM_REL_MASK	(ERI_SIM_REL_WIN - 1)
#define ERI_SIM_SNAP_MASK	(ERI_SIM_RATE_SNAPS - 1)

static_assert(ERI_SIM_RATE_SNAPS <= ERI_SIM_REL_WIN);

void eri_sim_psn_map_init(struct eri_sim_psn_map *m, u32 base)
{
	m->base = base & ERI_PSN_MASK;
	m->span = 0;
	bitmap_zero(m->bits, ERI_SIM_REL_WIN);
}

/**
 * eri_sim_psn_map_set - note that @psn arrived
 * @m: the map
 * @psn: the PSN
 *
 * Return: ERI_SIM_PSN_NEW when it was not noted before, ERI_SIM_PSN_DUP
 * when it was (or lies before the window), ERI_SIM_PSN_FAR when it lies
 * past the window (nothing noted).
 */
enum eri_sim_psn_set eri_sim_psn_map_set(struct eri_sim_psn_map *m, u32 psn)
{
	s32 d = eri_psn_diff(psn, m->base);

	if (d < 0)
		return ERI_SIM_PSN_DUP;
	if (d >= ERI_SIM_REL_WIN)
		return ERI_SIM_PSN_FAR;
	if (__test_and_set_bit(d, m->bits))
		return ERI_SIM_PSN_DUP;
	m->span = max_t(u32, m->span, d + 1);
	return ERI_SIM_PSN_NEW;
}

/* Return: @psn arrived (every PSN before the window did). */
bool eri_sim_psn_map_test(const struct eri_sim_psn_map *m, u32 psn)
{
	s32 d = eri_psn_diff(psn, m->base);

	if (d < 0)
		return true;
	return d < ERI_SIM_REL_WIN && test_bit(d, m->bits);
}

/* Return: how many PSNs from @base on arrived without a gap. */
u32 eri_sim_psn_map_run(const struct eri_sim_psn_map *m)
{
	return find_first_zero_bit(m->bits, m->span);
}

/* Move the window @n PSNs on, forgetting the PSNs it leaves. */
void eri_sim_psn_map_advance(struct eri_sim_psn_map *m, u32 n)
{
	m->base = eri_psn_add(m->base, n);
	if (n >= m->span) {
		bitmap_zero(m->bits, m->span);
		m->span = 0;
	} else {
		/* Bits past @span are clear: shifting the words below is all. */
		bitmap_shift_right(m->bits, m->bits, n, m->span);
		m->span -= n;
	}
}

/**
 * eri_sim_sack_encode - the SACK field of an ACK whose ack_psn is @m->base
 * @m: the receive map
 * @sack: ERI_WIRE_SACK_BITS / 64 words: bit j (least significant first) of
 *	word j / 64 set when PSN base + 1 + offset + j arrived
 *
 * The words end with the newest PSN that arrived when it lies more than
 * ERI_WIRE_SACK_BITS past the base: an ACK always reports the newest
 * arrivals; earlier ACKs reported the older ones.
 *
 * Return: the offset.
 */
u32 eri_sim_sack_encode(const struct eri_sim_psn_map *m, __be64 *sack)
{
	u32 last = find_last_bit(m->bits, ERI_SIM_REL_WIN), off = 0;
	DECLARE_BITMAP(t, ERI_SIM_REL_WIN);
	u64 w[ERI_WIRE_SACK_BITS / 64];
	unsigned int i;

	if (last < ERI_SIM_REL_WIN && last > ERI_WIRE_SACK_BITS)
		off = last - ERI_WIRE_SACK_BITS;
	bitmap_shift_right(t, m->bits, 1 + off, ERI_SIM_REL_WIN);
	bitmap_to_arr64(w, t, ERI_WIRE_SACK_BITS);
	for (i = 0; i < ARRAY_SIZE(w); i++)
		sack[i] = cpu_to_be64(w[i]);
	return off;
}

/**
 * eri_sim_sack_decode - what an ACK acknowledges, as a bitmap from @base
 * @base: PSN of bit 0 of @out
 * @ack_psn: the ACK's cumulative PSN: everything before it arrived
 * @off: the ACK's SACK offset (hostile: any value)
 * @sack: the ACK's SACK words
 * @out: ERI_SIM_REL_WIN bits; bit i set when PSN @base + i is acknowledged
 */
void eri_sim_sack_decode(u32 base, u32 ack_psn, u32 off, const __be64 *sack,
			 unsigned long *out)
{
	DECLARE_BITMAP(t, ERI_SIM_REL_WIN);
	u64 w[ERI_WIRE_SACK_BITS / 64];
	s32 cum = eri_psn_diff(ack_psn, base);
	s64 first = (s64)cum + 1 + off;	/* bit of @out for SACK bit 0 */
	unsigned int i;

	bitmap_zero(out, ERI_SIM_REL_WIN);
	if (cum > 0)
		bitmap_set(out, 0, min_t(s32, cum, ERI_SIM_REL_WIN));
	if (off >= ERI_SIM_REL_WIN || first >= ERI_SIM_REL_WIN ||
	    first <= -ERI_WIRE_SACK_BITS)
		return;
	for (i = 0; i < ARRAY_SIZE(w); i++)
		w[i] = be64_to_cpu(sack[i]);
	bitmap_zero(t, ERI_SIM_REL_WIN);
	bitmap_from_arr64(t, w, ERI_WIRE_SACK_BITS);
	if (first >= 0)
		bitmap_shift_left(t, t, first, ERI_SIM_REL_WIN);
	else
		bitmap_shift_right(t, t, -first, ERI_SIM_REL_WIN);
	bitmap_or(out, out, t, ERI_SIM_REL_WIN);
}

void eri_sim_sb_init(struct eri_sim_sb *sb, u32 psn)
{
	memset(sb, 0, sizeof(*sb));
	sb->una = psn & ERI_PSN_MASK;
	sb->nxt = sb->una;
	sb->reorder = ERI_SIM_DUP_THRESH;
}

/* Return: PSNs sent and not yet delivered in order (@una to @nxt). */
u32 eri_sim_sb_span(const struct eri_sim_sb *sb)
{
	return eri_psn_diff(sb->nxt, sb->una);
}

/* Return: PSNs in the network: sent, neither delivered nor lost. */
u32 eri_sim_sb_pipe(const struct eri_sim_sb *sb)
{
	u32 span = eri_sim_sb_span(sb);

	return span - bitmap_weight(sb->sacked, span) -
	       bitmap_weight(sb->lost, span);
}

/* @now_ns - @then_ns in a u32, 0 when it lies ahead, at most U32_MAX. */
static u32 eri_sim_rate_since(u64 now_ns, u64 then_ns)
{
	return now_ns > then_ns ? min_t(u64, now_ns - then_ns, U32_MAX) : 0;
}

/* @s is @psn's snapshot, not one of a later PSN in the same slot. */
static bool eri_sim_snap_own(const struct eri_sim_rate_snap *s, u32 psn)
{
	return (s->tag & (ERI_SIM_SNAP_VALID | ERI_SIM_SNAP_PSN)) ==
	       (psn | ERI_SIM_SNAP_VALID);
}

/* The ACK interval at @now_ns of snapshot @s, whose PSN left at @sent_ns. */
static u64 eri_sim_snap_ack_ns(const struct eri_sim_rate_snap *s,
			       u64 sent_ns, u64 now_ns)
{
	return (u64)eri_sim_rate_since(now_ns, sent_ns) + s->since_delivered_ns;
}

/* Take @psn's delivery snapshot: it was just sent at @now_ns. */
static void eri_sim_sb_snap(struct eri_sim_sb *sb, u32 psn, u64 now_ns)
{
	struct eri_sim_rate *r = &sb->rate;
	struct eri_sim_rate_snap *s = &r->snap[psn & ERI_SIM_SNAP_MASK];

	s->tag = psn | ERI_SIM_SNAP_VALID;
	if (r->app_limited_until)
		s->tag |= ERI_SIM_SNAP_APP_LIMITED;
	if (r->ambiguous)
		s->tag |= ERI_SIM_SNAP_AMBIGUOUS;
	if (r->early)
		s->tag |= ERI_SIM_SNAP_EARLY;
	s->delivered = (u32)r->delivered;
	s->lost = (u32)r->lost_total;
	s->tx_in_flight = eri_sim_sb_pipe(sb);
	s->since_delivered_ns = eri_sim_rate_since(now_ns, r->delivered_ns);
	s->since_first_tx_ns = eri_sim_rate_since(now_ns, r->first_tx_ns);
}

/**
 * eri_sim_sb_sent - note that @psn left, for the first time or again
 * @sb: the scoreboard
 * @psn: at most @nxt (a new PSN then), at least @una
 * @read: it asks for a READ response
 * @now_ns: the time
 */
void eri_sim_sb_sent(struct eri_sim_sb *sb, u32 psn, bool read, u64 now_ns)
{
	s32 d = eri_psn_diff(psn, sb->una);

	if (d < 0 || d > (s32)eri_sim_sb_span(sb) || d >= ERI_SIM_REL_WIN)
		return;
	/* Nothing outstanding: a flight, and its intervals, start now. */
	if (!d && sb->una == sb->nxt) {
		sb->rate.first_tx_ns = now_ns;
		sb->rate.delivered_ns = now_ns;
	}
	__assign_bit(d, sb->retx, psn != sb->nxt);
	if (psn == sb->nxt)
		sb->nxt = eri_psn_add(sb->nxt, 1);
	__assign_bit(d, sb->read, read);
	__clear_bit(d, sb->lost);
	sb->sent_ns[psn & ERI_SIM_REL_MASK] = now_ns;
	eri_sim_sb_snap(sb, psn, now_ns);
}

/*
 * Mark the PSNs of @newly (not yet delivered, in the span) delivered.  A PSN
 * sent once that arrives after a later one (the newest delivered before
 * this ACK) was reordered, not lost: the duplicate threshold grows to cover
 * that distance.  READ PSNs are left out: their responses may trail ACKs for
 * later requests without any reordering in the network.
 */
static u32 eri_sim_sb_mark(struct eri_sim_sb *sb, const unsigned long *newly)
{
	u32 span = eri_sim_sb_span(sb), n = 0;
	u32 top = find_last_bit(sb->sacked, span);
	unsigned int i;

	for_each_set_bit(i, newly, span) {
		u32 psn = eri_psn_add(sb->una, i);
		u64 sent = sb->sent_ns[psn & ERI_SIM_REL_MASK];

		if (sent > sb->rack_ns ||
		    (sent == sb->rack_ns &&
		     eri_psn_diff(psn, sb->rack_psn) > 0)) {
			sb->rack_ns = sent;
			sb->rack_psn = psn;
		}
		/* The sample is of the PSN sent last (the later PSN on a tie). */
		if (eri_sim_snap_own(&sb->rate.snap[psn & ERI_SIM_SNAP_MASK],
				     psn) &&
		    (!sb->rate.newest || sent >= sb->rate.newest_sent_ns)) {
			sb->rate.newest = true;
			sb->rate.newest_psn = psn;
			sb->rate.newest_sent_ns = sent;
		}
		if (top < span && i < top && !test_bit(i, sb->retx) &&
		    !test_bit(i, sb->read))
			sb->reorder = clamp(top - i + 1, sb->reorder,
					    (u32)ERI_SIM_REORDER_MAX);
		n++;
	}
	bitmap_or(sb->sacked, sb->sacked, newly, span);
	bitmap_andnot(sb->lost, sb->lost, newly, span);
	sb->rate.acked += n;
	return n;
}

/**
 * eri_sim_sb_ack - apply an ACK's cumulative PSN and SACK words
 * @sb: the scoreboard
 * @ack_psn: the ACK's ack_psn
 * @off: its SACK offset
 * @sack: its SACK words
 *
 * PSNs of READs are not delivered by ACKs, only by their responses.
 * Return: the PSNs newly delivered.
 */
u32 eri_sim_sb_ack(struct eri_sim_sb *sb, u32 ack_psn, u32 off,
		   const __be64 *sack)
{
	DECLARE_BITMAP(newly, ERI_SIM_REL_WIN);
	u32 span = eri_sim_sb_span(sb);

	eri_sim_sack_decode(sb->una, ack_psn, off, sack, newly);
	if (span < ERI_SIM_REL_WIN)
		bitmap_clear(newly, span, ERI_SIM_REL_WIN - span);
	bitmap_andnot(newly, newly, sb->read, ERI_SIM_REL_WIN);
	bitmap_andnot(newly, newly, sb->sacked, ERI_SIM_REL_WIN);
	return eri_sim_sb_mark(sb, newly);
}

/* A READ response for @psn arrived. */
enum eri_sim_psn_set eri_sim_sb_deliver(struct eri_sim_sb *sb, u32 psn)
{
	s32 d = eri_psn_diff(psn, sb->una);
	DECLARE_BITMAP(one, ERI_SIM_REL_WIN);

	if (d < 0)
		return ERI_SIM_PSN_DUP;
	if (d >= (s32)eri_sim_sb_span(sb))
		return ERI_SIM_PSN_FAR;
	if (test_bit(d, sb->sacked))
		return ERI_SIM_PSN_DUP;
	bitmap_zero(one, ERI_SIM_REL_WIN);
	__set_bit(d, one);
	eri_sim_sb_mark(sb, one);
	return ERI_SIM_PSN_NEW;
}

/* Return: @psn was delivered (every PSN before @una was). */
bool eri_sim_sb_delivered(const struct eri_sim_sb *sb, u32 psn)
{
	s32 d = eri_psn_diff(psn, sb->una);

	if (d < 0)
		return true;
	return d < (s32)eri_sim_sb_span(sb) && test_bit(d, sb->sacked);
}

/* Move @una over the PSNs delivered in order.  Return: how many. */
u32 eri_sim_sb_advance(struct eri_sim_sb *sb)
{
	u32 n = find_first_zero_bit(sb->sacked, eri_sim_sb_span(sb));

	if (!n)
		return 0;
	bitmap_shift_right(sb->sacked, sb->sacked, n, ERI_SIM_REL_WIN);
	bitmap_shift_right(sb->lost, sb->lost, n, ERI_SIM_REL_WIN);
	bitmap_shift_right(sb->read, sb->read, n, ERI_SIM_REL_WIN);
	bitmap_shift_right(sb->retx, sb->retx, n, ERI_SIM_REL_WIN);
	sb->una = eri_psn_add(sb->una, n);
	return n;
}

/*
 * Was PSN @una + @i, last sent at @sent, sent before the newest packet
 * known delivered?  On a tie of times, the lower PSN left first.
 */
static bool eri_sim_sb_sent_before(const struct eri_sim_sb *sb, u32 i,
				   u64 sent)
{
	return sent < sb->rack_ns ||
	       (sent == sb->rack_ns &&
		eri_psn_diff(eri_psn_add(sb->una, i), sb->rack_psn) < 0);
}

/* How long a PSN is out before later evidence makes it lost by time. */
static u64 eri_sim_sb_loss_wait(const struct eri_sim_sb *sb, u64 srtt_ns)
{
	return srtt_ns + (sb->reorder > ERI_SIM_DUP_THRESH ? srtt_ns :
			  srtt_ns / 4);
}

/**
 * eri_sim_sb_detect_loss - declare holes lost
 * @sb: the scoreboard
 * @now_ns: the time
 * @srtt_ns: the smoothed RTT, 0 when unknown (no time-based detection)
 *
 * A PSN not delivered is lost once a packet sent after it (after its last
 * transmission; of packets sent at one time, a higher PSN) was delivered,
 * and either @sb->reorder later PSNs were delivered or it has been out for
 * longer than an RTT plus a reordering window of a quarter RTT (a whole RTT
 * once reordering was seen).  So a PSN sent again is not declared lost
 * again before something sent after the resend arrives.
 * Return: the PSNs newly declared lost.
 */
u32 eri_sim_sb_detect_loss(struct eri_sim_sb *sb, u64 now_ns, u64 srtt_ns)
{
	DECLARE_BITMAP(holes, ERI_SIM_REL_WIN);
	u64 wait = eri_sim_sb_loss_wait(sb, srtt_ns);
	u32 span = eri_sim_sb_span(sb), last, sacked, n = 0;
	unsigned int i;

	/* Only holes below the newest delivered PSN are candidates. */
	last = find_last_bit(sb->sacked, span);
	if (last >= span)
		return 0;
	bitmap_or(holes, sb->sacked, sb->lost, last);
	bitmap_complement(holes, holes, last);
	if (bitmap_empty(holes, last))
		return 0;
	sacked = bitmap_weight(sb->sacked, last + 1);
	for_each_set_bit(i, holes, last) {
		u64 sent = sb->sent_ns[(sb->una + i) & ERI_SIM_REL_MASK];
		u32 above = sacked - bitmap_weight(sb->sacked, i);

		if (!eri_sim_sb_sent_before(sb, i, sent))
			continue;
		if (above >= sb->reorder ||
		    (srtt_ns && now_ns >= sent + wait)) {
			__set_bit(i, sb->lost);
			n++;
		}
	}
	sb->rate.lost_total += n;
	return n;
}

/**
 * eri_sim_sb_stalled - a responder waiting for a PSN reports a later request
 * @sb: the scoreboard
 * @ack_psn: the ACK's PSN: the first the responder has not received
 * @trig: the PSN whose arrival the ACK answers
 * @now_ns: the time
 * @srtt_ns: the smoothed RTT, 0 when unknown (no time-based detection)
 *
 * A READ or ATOMIC request that arrives past a gap is kept for its turn
 * and answered with an ACK at once, but no SACK bit reports it and no
 * response delivers it: a stream of READs whose request was lost delivers
 * nothing after the gap, and eri_sim_sb_detect_loss() has no evidence.
 * The ACK's trigger is that evidence when it was sent after @ack_psn's
 * last transmission: @ack_psn is lost once @sb->reorder such requests
 * were reported (each counted once), or when it has been out as long as
 * the loss detector waits.  A copy of @ack_psn sent since starts the
 * count again.
 * Return: 1 when @ack_psn is newly declared lost, else 0.
 */
u32 eri_sim_sb_stalled(struct eri_sim_sb *sb, u32 ack_psn, u32 trig,
		       u64 now_ns, u64 srtt_ns)
{
	s32 span = eri_sim_sb_span(sb);
	s32 a = eri_psn_diff(ack_psn, sb->una);
	s32 t = eri_psn_diff(trig, sb->una);
	u64 sent;

	if (a < 0 || t <= a || t >= span || test_bit(t, sb->sacked) ||
	    test_bit(a, sb->sacked) || test_bit(a, sb->lost))
		return 0;
	sent = sb->sent_ns[ack_psn & ERI_SIM_REL_MASK];
	if (sb->sent_ns[trig & ERI_SIM_REL_MASK] < sent)
		return 0;
	if (sb->stall_psn != ack_psn || sb->stall_sent_ns != sent) {
		sb->stall_psn = ack_psn;
		sb->stall_sent_ns = sent;
		sb->stall_top = ack_psn;
		sb->stall_n = 0;
	}
	if (eri_psn_diff(trig, sb->stall_top) > 0) {
		sb->stall_top = trig;
		sb->stall_n++;
	}
	if (sb->stall_n < sb->reorder &&
	    (!srtt_ns || now_ns < sent + eri_sim_sb_loss_wait(sb, srtt_ns)))
		return 0;
	__set_bit(a, sb->lost);
	sb->rate.lost_total++;
	return 1;
}

/* A timeout: every PSN not delivered is lost.  Return: newly lost. */
u32 eri_sim_sb_lose_all(struct eri_sim_sb *sb)
{
	u32 span = eri_sim_sb_span(sb), n = 0;
	unsigned int i;

	for (i = 0; i < span; i++) {
		if (test_bit(i, sb->sacked) || test_bit(i, sb->lost))
			continue;
		__set_bit(i, sb->lost);
		n++;
	}
	sb->rate.lost_total += n;
	if (n) {
		sb->rate.ambiguous = true;
		sb->rate.ambiguous_nxt = sb->nxt;
	}
	return n;
}

/*
 * The timeouts were spurious: no PSN in flight is known lost any more (the
 * loss detector finds again the ones that were, eri_sim_sb_detect_loss()).
 * Return: PSNs that were declared lost and are in flight again.
 */
u32 eri_sim_sb_unlose(struct eri_sim_sb *sb)
{
	u32 span = eri_sim_sb_span(sb);
	u32 n = bitmap_weight(sb->lost, span);

	bitmap_zero(sb->lost, ERI_SIM_REL_WIN);
	sb->rate.lost_total -= min_t(u64, sb->rate.lost_total, n);
	return n;
}

/* The oldest PSN lost and not sent again.  Return: there is one. */
bool eri_sim_sb_next_lost(const struct eri_sim_sb *sb, u32 *psn)
{
	u32 span = eri_sim_sb_span(sb);
	u32 i = find_first_bit(sb->lost, span);

	if (i >= span)
		return false;
	*psn = eri_psn_add(sb->una, i);
	return true;
}

/* The oldest PSN not delivered is lost and not sent again. */
bool eri_sim_sb_una_lost(const struct eri_sim_sb *sb)
{
	/* Bit 0 of the maps is @una. */
	return eri_sim_sb_span(sb) && test_bit(0, sb->lost);
}

/* The newest PSN sent and not delivered.  Return: there is one. */
bool eri_sim_sb_last_unsacked(const struct eri_sim_sb *sb, u32 *psn)
{
	int i;

	for (i = (int)eri_sim_sb_span(sb) - 1; i >= 0; i--) {
		if (!test_bit(i, sb->sacked)) {
			*psn = eri_psn_add(sb->una, i);
			return true;
		}
	}
	return false;
}

/**
 * eri_sim_sb_app_limited - the requester found nothing to send
 * @sb: the scoreboard
 * @pipe: eri_sim_sb_pipe(), below the window
 *
 * Samples of the PSNs in flight and of those sent before @pipe more are
 * delivered may be below what the path delivers: they are marked
 * application limited.
 */
void eri_sim_sb_app_limited(struct eri_sim_sb *sb, u32 pipe)
{
	sb->rate.app_limited_until = max(sb->rate.delivered + pipe, 1ULL);
}

/**
 * eri_sim_sb_early - whether the PSNs sent from now on leave ahead of pacing
 * @sb: the scoreboard
 * @early: the sender makes up time a late host took from its schedule
 *
 * Their ACKs come as fast as the burst left or the path drains it, not at
 * the rate the sender paced at: their samples are marked early
 * (&eri_sim_cc_rs.early), so that a burst cannot raise the modelled
 * bandwidth, yet still tell what the path delivered.
 */
void eri_sim_sb_early(struct eri_sim_sb *sb, bool early)
{
	sb->rate.early = early;
}

/*
 * The PSNs @rs's rate spans: its own delivered PSNs, or, when they are fewer
 * than ERI_SIM_RATE_MIN_PKTS, those since the snapshot of the PSN sent that
 * many PSNs before the newest delivered one (if still its own, not
 * ambiguous and sent before it); @rs's interval and application-limited
 * mark then cover that span.  One ACK's jitter moves a sample of a flight of
 * a few PSNs by a third (eri.rst, "Rate samples").
 */
static u32 eri_sim_rate_span(const struct eri_sim_sb *sb, u64 now_ns,
			     struct eri_sim_cc_rs *rs)
{
	const struct eri_sim_rate *r = &sb->rate;
	const struct eri_sim_rate_snap *o;
	u64 sent, send_ns;
	u32 psn;

	if (rs->delivered >= ERI_SIM_RATE_MIN_PKTS)
		return rs->delivered;
	psn = eri_psn_add(r->newest_psn,
			  rs->delivered - ERI_SIM_RATE_MIN_PKTS);
	o = &r->snap[psn & ERI_SIM_SNAP_MASK];
	/* A snapshot still its own: so is sent_ns, whose ring is longer. */
	sent = sb->sent_ns[psn & ERI_SIM_REL_MASK];
	if (!eri_sim_snap_own(o, psn) || (o->tag & ERI_SIM_SNAP_AMBIGUOUS) ||
	    sent > r->newest_sent_ns)
		return rs->delivered;
	send_ns = o->since_first_tx_ns + (r->newest_sent_ns - sent);
	rs->interval_ns = max(send_ns, eri_sim_snap_ack_ns(o, sent, now_ns));
	if (o->tag & ERI_SIM_SNAP_APP_LIMITED)
		rs->app_limited = true;
	if (o->tag & ERI_SIM_SNAP_EARLY)
		rs->early = true;
	return (u32)r->delivered - o->delivered;
}

/**
 * eri_sim_sb_rate_sample - the delivery-rate sample of an ACK
 * @sb: the scoreboard, after eri_sim_sb_ack() and eri_sim_sb_deliver()
 *	took in the ACK (or response) and eri_sim_sb_detect_loss() its losses
 * @now_ns: the time
 * @min_rtt_ns: the base RTT, 0 when unknown: a shorter interval is no sample
 * @rs: the sample
 *
 * Counts the PSNs the ACK delivered and samples the rate from the PSN sent
 * last among them whose snapshot is still its own, over the longer of its
 * send interval and its ACK interval, so that ACKs released in a burst do
 * not raise the rate above that of the sending, and over at least
 * ERI_SIM_RATE_MIN_PKTS PSNs where the snapshots allow.  A snapshot taken
 * while a timeout's PSNs were ambiguous (&eri_sim_rate.ambiguous) gives the
 * counts and no rate; one taken while the sender made up lost time
 * (&eri_sim_rate.early) gives a rate marked early.  Call once per ACK.
 */
void eri_sim_sb_rate_sample(struct eri_sim_sb *sb, u64 now_ns,
			    u64 min_rtt_ns, struct eri_sim_cc_rs *rs)
{
	struct eri_sim_rate *r = &sb->rate;
	const struct eri_sim_rate_snap *s;
	u32 span;
	u64 us;

	memset(rs, 0, sizeof(*rs));
	if (!r->acked)
		return;
	r->delivered += r->acked;
	r->delivered_ns = now_ns;
	r->acked = 0;
	if (r->app_limited_until && r->delivered > r->app_limited_until)
		r->app_limited_until = 0;
	if (r->ambiguous && eri_psn_diff(sb->una, r->ambiguous_nxt) >= 0)
		r->ambiguous = false;
	if (!r->newest)
		return;
	r->newest = false;
	s = &r->snap[r->newest_psn & ERI_SIM_SNAP_MASK];
	rs->delivered = (u32)r->delivered - s->delivered;
	rs->prior_delivered = r->delivered - rs->delivered;
	/* Losses undone since the snapshot (eri_sim_sb_unlose()) count 0. */
	rs->lost = max_t(s32, (u32)r->lost_total - s->lost, 0);
	rs->tx_in_flight = s->tx_in_flight;
	rs->app_limited = s->tag & ERI_SIM_SNAP_APP_LIMITED;
	rs->interval_ns = max_t(u64, s->since_first_tx_ns,
				eri_sim_snap_ack_ns(s, r->newest_sent_ns,
						    now_ns));
	r->first_tx_ns = r->newest_sent_ns;
	if (s->tag & ERI_SIM_SNAP_AMBIGUOUS)
		return;
	rs->early = s->tag & ERI_SIM_SNAP_EARLY;
	span = eri_sim_rate_span(sb, now_ns, rs);
	us = div_u64(rs->interval_ns, NSEC_PER_USEC);
	if (!us || rs->interval_ns < min_rtt_ns || rs->interval_ns > BIT(31))
		return;
	rs->bw = min_t(u64, div64_u64((u64)span <<
				      ERI_SIM_CC_BW_SHIFT, us), U32_MAX);
	rs->valid = true;
}

/**
 * eri_sim_rto_backoff - a timeout after @backoff timeouts in a row
 * @rto_ns: the timeout the RTT estimate gives
 * @backoff: timeouts since the last progress; each doubles it
 * @min_ns: lower bound
 * @max_ns: upper bound, also of the doubled value
 *
 * Return: clamp(@rto_ns, @min_ns, @max_ns) * 2^@backoff, at most @max_ns.
 */
u64 eri_sim_rto_backoff(u64 rto_ns, u32 backoff, u64 min_ns, u64 max_ns)
{
	u64 rto = clamp(rto_ns, min_ns, max_ns);

	if (backoff >= 63 || rto > (max_ns >> backoff))
		return max_ns;
	return rto << backoff;
}

/**
 * eri_sim_retry_budget_ns - how long a requester waits for an answer
 * @retry_cnt: the QP's retry count
 * @ack_timeout_ns: the QP's local ACK timeout, 4.096 us * 2^timeout
 *
 * Return: the time an InfiniBand requester waits before it reports
 * RETRY_EXC_ERR, one local ACK timeout and @retry_cnt more.
 */
u64 eri_sim_retry_budget_ns(u32 retry_cnt, u64 ack_timeout_ns)
{
	return (u64)(retry_cnt + 1) * ack_timeout_ns;
}

/**
 * eri_sim_retry_exhausted - whether a requester gives up at a timeout
 * @retries: retransmission timeouts since the last progress
 * @retry_cnt: the QP's retry count
 * @quiet_ns: time since the last progress
 * @ack_timeout_ns: the QP's local ACK timeout
 *
 * The RTO follows the measured RTT and so expires far more often than the
 * local ACK timeout would; a slow peer (or a slow host) must not turn that
 * into an error sooner than the QP's attributes allow.
 *
 * Return: true once @retry_cnt timeouts went unanswered and nothing was
 * delivered for eri_sim_retry_budget_ns().
 */
bool eri_sim_retry_exhausted(u32 retries, u32 retry_cnt, u64 quiet_ns,
			     u64 ack_timeout_ns)
{
	return retries >= retry_cnt &&
	       quiet_ns >= eri_sim_retry_budget_ns(retry_cnt, ack_timeout_ns);
}

/**
 * eri_sim_ares_init - forget every atomic result
 * @r: the results
 */
void eri_sim_ares_init(struct eri_sim_ares *r)
{
	memset(r, 0, sizeof(*r));
}

/**
 * eri_sim_ares_save - keep the result of the atomic executed at @psn
 * @r: the results
 * @psn: its request's PSN
 * @orig: the original value it returned
 *
 * The oldest result goes once ERI_SIM_ATOMIC_RES are kept.
 */
void eri_sim_ares_save(struct eri_sim_ares *r, u32 psn, u64 orig)
{
	r->psn[r->next] = psn & ERI_PSN_MASK;
	r->orig[r->next] = orig;
	r->next = (r->next + 1) % ERI_SIM_ATOMIC_RES;
	if (r->used < ERI_SIM_ATOMIC_RES)
		r->used++;
}

/**
 * eri_sim_ares_find - the result of the atomic executed at @psn
 * @r: the results
 * @psn: its request's PSN
 * @orig: where the original value goes
 *
 * Return: true when it is kept.
 */
bool eri_sim_ares_find(const struct eri_sim_ares *r, u32 psn, u64 *orig)
{
	u32 i;

	psn &= ERI_PSN_MASK;
	for (i = 0; i < r->used; i++) {
		/* Newest first: a PSN reused after the wrap wins. */
		u32 slot = (r->next + ERI_SIM_ATOMIC_RES - 1 - i) %
			   ERI_SIM_ATOMIC_RES;

		if (r->psn[slot] == psn) {
			*orig = r->orig[slot];
			return true;
		}
	}
	return false;
}
