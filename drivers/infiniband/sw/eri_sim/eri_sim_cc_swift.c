// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim congestion control: a delay-based window in the style of Swift
 * (Kumar et al., SIGCOMM 2020).  The standing delay (the smallest RTT sample
 * of about the last smoothed RTT, so that one late sample is not taken for a
 * queue) is compared with a target; below it the window grows additively
 * (after slow start), above it the window is cut in proportion to how far
 * the delay overshot, at most once per RTT.  Random losses that come
 * without queueing delay are not taken as congestion.  Parameters and their
 * values: eri_sim_cc_swift.h.
 */
#include <linux/math64.h>
#include <linux/minmax.h>

#include "eri_sim_cc_swift.h"

#define SWIFT_MAX_CWND	((u32)ERI_SIM_CC_MAX_WND << ERI_SIM_CC_FP_SHIFT)

/* Delay the window may build up to: the base RTT plus a queueing allowance. */
static u64 swift_target_ns(const struct eri_sim_cc *cc)
{
	u64 base = cc->min_rtt_ns;

	return base + max(ERI_SIM_CC_SWIFT_QDELAY_NS,
			  base >> ERI_SIM_CC_SWIFT_QDELAY_SHIFT);
}

static void swift_set_cwnd(struct eri_sim_cc *cc, u64 cwnd)
{
	struct eri_sim_cc_swift *s = eri_sim_cc_swift(cc);
	u32 gain;

	cc->cwnd = clamp_t(u64, cwnd, ERI_SIM_CC_SWIFT_MIN_CWND,
			   SWIFT_MAX_CWND);
	if (cc->cwnd <= ERI_SIM_CC_ONE)
		gain = 1024;
	else if (cc->cwnd < s->ssthresh)
		gain = ERI_SIM_CC_SWIFT_SS_PACE_GAIN;
	else
		gain = ERI_SIM_CC_SWIFT_PACE_GAIN;
	/* On the wire: a window's packets with their headers. */
	cc->pacing_rate = eri_sim_cc_rate(cc->cwnd, cc->wire, cc->srtt_ns,
					  gain);
}

/* Multiply the window by (1024 - @mdf) / 1024, at most once per RTT. */
static bool swift_cut(struct eri_sim_cc *cc, u64 now_ns, u32 mdf)
{
	struct eri_sim_cc_swift *s = eri_sim_cc_swift(cc);
	u64 cwnd;

	if (now_ns < s->next_cut_ns)
		return false;
	mdf = min_t(u32, mdf, ERI_SIM_CC_SWIFT_MAX_MDF);
	cwnd = (u64)cc->cwnd * (1024 - mdf) >> 10;
	s->ssthresh = max_t(u64, cwnd, ERI_SIM_CC_SWIFT_MIN_CWND);
	s->next_cut_ns = now_ns + cc->srtt_ns;
	cc->cuts++;
	swift_set_cwnd(cc, cwnd);
	return true;
}

static void swift_init(struct eri_sim_cc *cc, u64 now_ns, u32 seed)
{
	struct eri_sim_cc_swift *s = eri_sim_cc_swift(cc);

	s->ssthresh = SWIFT_MAX_CWND;
	s->round_start_ns = now_ns;
	eri_sim_cc_wmin_reset(&s->standing, now_ns);
	swift_set_cwnd(cc, (u64)ERI_SIM_CC_SWIFT_INIT_CWND << ERI_SIM_CC_FP_SHIFT);
}

static void swift_grow(struct eri_sim_cc *cc, u32 acked_pkts)
{
	struct eri_sim_cc_swift *s = eri_sim_cc_swift(cc);
	u64 cwnd = cc->cwnd;

	if (cwnd < s->ssthresh) {
		/* Slow start: a packet more per packet acknowledged. */
		cwnd = min_t(u64, cwnd + ((u64)acked_pkts << ERI_SIM_CC_FP_SHIFT),
			     s->ssthresh);
	} else {
		/* AI packets per window's worth of ACKs: AI per RTT. */
		cwnd += div64_u64((u64)ERI_SIM_CC_SWIFT_AI * acked_pkts <<
				  ERI_SIM_CC_FP_SHIFT, cwnd);
	}
	swift_set_cwnd(cc, cwnd);
}

static void swift_on_delivery(struct eri_sim_cc *cc, u64 now_ns, u64 rtt_ns,
			      u32 acked_pkts, u32 inflight_pkts)
{
	struct eri_sim_cc_swift *s = eri_sim_cc_swift(cc);
	u64 delay, target, cwnd_pkts;

	/* The standing delay: the smallest sample of about the last srtt. */
	if (rtt_ns)
		s->delay_ns = eri_sim_cc_wmin_update(&s->standing, now_ns,
						     cc->srtt_ns, rtt_ns);
	delay = s->delay_ns;
	target = swift_target_ns(cc);

	if (!delay || delay < target) {
		if (!acked_pkts)
			goto out;
		/* Grow only a window in use: not while application limited. */
		cwnd_pkts = cc->cwnd >> ERI_SIM_CC_FP_SHIFT;
		if (2 * ((u64)inflight_pkts + acked_pkts) < cwnd_pkts)
			goto out;
		swift_grow(cc, acked_pkts);
		return;
	}
	/* Over target: cut by beta * (delay - target) / delay. */
	if (swift_cut(cc, now_ns,
		      div64_u64((delay - target) * ERI_SIM_CC_SWIFT_BETA, delay)))
		return;
out:
	/* The RTT estimate may have moved: keep the pacing rate current. */
	swift_set_cwnd(cc, cc->cwnd);
}

static void swift_on_loss(struct eri_sim_cc *cc, u64 now_ns, u32 lost)
{
	struct eri_sim_cc_swift *s = eri_sim_cc_swift(cc);
	u32 burst;

	if (now_ns - s->round_start_ns >= cc->srtt_ns ||
	    now_ns < s->round_start_ns) {
		s->round_start_ns = now_ns;
		s->round_losses = 0;
	}
	s->round_losses += lost;
	burst = max_t(u32, ERI_SIM_CC_SWIFT_LOSS_MIN,
		      (cc->cwnd >> ERI_SIM_CC_FP_SHIFT) /
		      ERI_SIM_CC_SWIFT_LOSS_DIV);
	/*
	 * A loss while the queue is over target, or a burst of them within an
	 * RTT, is congestion; an isolated loss on a short queue is noise.
	 */
	if ((s->delay_ns && s->delay_ns >= swift_target_ns(cc)) ||
	    s->round_losses >= burst)
		swift_cut(cc, now_ns, ERI_SIM_CC_SWIFT_MAX_MDF);
}

/*
 * Losses first: one over target halves the window and so takes this RTT's
 * cut.  ECN marks only count (the engine does): Swift reads queueing from
 * delay.
 */
static void swift_on_ack(struct eri_sim_cc *cc,
			 const struct eri_sim_cc_ack *ack)
{
	/* Loss events, one per ACK that declares losses, as Swift was tuned. */
	if (ack->lost)
		swift_on_loss(cc, ack->now_ns, 1);
	swift_on_delivery(cc, ack->now_ns, ack->rtt_ns, ack->acked,
			  ack->inflight);
}

static void swift_on_timeout(struct eri_sim_cc *cc, u64 now_ns, u32 lost)
{
	struct eri_sim_cc_swift *s = eri_sim_cc_swift(cc);

	/* Collapse to one packet; slow start back to half of the window. */
	s->ssthresh = max_t(u32, cc->cwnd / 2, 2 * ERI_SIM_CC_ONE);
	s->next_cut_ns = now_ns + cc->srtt_ns;
	s->round_start_ns = now_ns;
	s->round_losses = 0;
	/* Delay samples from before the timeout say nothing of now. */
	s->delay_ns = 0;
	eri_sim_cc_wmin_reset(&s->standing, now_ns);
	cc->cuts++;
	swift_set_cwnd(cc, ERI_SIM_CC_ONE);
}

/* Only a stall: the window before it, and the slow start's target. */
static void swift_undo(struct eri_sim_cc *cc, u32 prior_cwnd, u32 lost)
{
	struct eri_sim_cc_swift *s = eri_sim_cc_swift(cc);

	s->ssthresh = max(s->ssthresh, prior_cwnd);
	if (prior_cwnd > cc->cwnd)
		swift_set_cwnd(cc, prior_cwnd);
}

static u32 swift_window(const struct eri_sim_cc *cc)
{
	return cc->cwnd >> ERI_SIM_CC_FP_SHIFT;
}

/* Slow start below ssthresh, else congestion avoidance, as TCP's names. */
static const char *swift_mode(const struct eri_sim_cc *cc)
{
	const struct eri_sim_cc_swift *s =
		eri_sim_cc_priv(cc, const struct eri_sim_cc_swift);

	return cc->cwnd < s->ssthresh ? "ss" : "ca";
}

struct eri_sim_cc_ops eri_sim_cc_swift_ops = {
	.name = "swift",
	.flags = ERI_CC_DESC_PACED,
	.init = swift_init,
	.on_ack = swift_on_ack,
	.on_timeout = swift_on_timeout,
	.undo = swift_undo,
	.window = swift_window,
	.mode = swift_mode,
};
