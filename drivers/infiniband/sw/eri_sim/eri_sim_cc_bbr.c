// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim congestion control: a model-based sender in the manner of BBR
 * (Cardwell et al., ACM Queue 2016; draft-ietf-ccwg-bbr), counted in
 * packets.  It models the path by the largest delivery rate of the last
 * rounds and the smallest RTT of the last 5 s; it paces at that rate times
 * a gain that averages 1 over a cycle and bounds what is in flight by twice
 * their product plus the ACK aggregation it measured and three send quanta.
 * Losses beyond 2% of a probing flight and ECN marks bound what is in
 * flight (BBRv3); a random loss changes the rate only as far as the round
 * it fell in delivered less.  Documentation/infiniband/eri.rst, "The bbr
 * algorithm", specifies the rules; parameters and state are in
 * eri_sim_cc_bbr.h.
 */
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>

#include "eri_sim_cc_bbr.h"

#define BBR_SCALE	10
#define BBR_NONE	ERI_SIM_CC_BBR_NONE

static_assert(sizeof(struct eri_sim_cc_bbr) <=
	      sizeof_field(struct eri_sim_cc, priv));

/* PROBE_BW's pacing gains, one per phase. */
static const u16 bbr_cycle[ERI_SIM_CC_BBR_CYCLE_LEN] = {
	ERI_SIM_CC_BBR_PROBE_UP_GAIN, ERI_SIM_CC_BBR_PROBE_DOWN_GAIN,
	ERI_SIM_CC_BBR_UNIT, ERI_SIM_CC_BBR_UNIT, ERI_SIM_CC_BBR_UNIT,
	ERI_SIM_CC_BBR_UNIT, ERI_SIM_CC_BBR_UNIT, ERI_SIM_CC_BBR_UNIT,
};

static u32 bbr_max_bw(const struct eri_sim_cc_bbr *b)
{
	return minmax_get(&b->max_bw);
}

/* The bandwidth paced at: the model's, bounded by the loss model's. */
static u32 bbr_bw(const struct eri_sim_cc_bbr *b)
{
	return min(bbr_max_bw(b), b->bw_lo);
}

static bool bbr_has_model(const struct eri_sim_cc_bbr *b)
{
	return bbr_max_bw(b) && b->min_rtt_us != BBR_NONE;
}

/* PROBE_BW at the model's rate: after probing up and draining. */
static bool bbr_cruising(const struct eri_sim_cc_bbr *b)
{
	return b->mode == ERI_SIM_CC_BBR_PROBE_BW && b->phase > 1;
}

/*
 * @gain (1/1024) times the bandwidth-delay product, in packets rounded up.
 * No overflow: bw < 2^32 and min_rtt_us < 2^25 (RTT samples stay below
 * 2^34 ns); their product shifted by 14 stays below 2^43, times a gain
 * below 2^12.
 */
static u32 bbr_bdp(const struct eri_sim_cc_bbr *b, u32 gain)
{
	u64 x;

	if (!bbr_has_model(b))
		return ERI_SIM_CC_BBR_INIT_CWND;
	x = (u64)bbr_max_bw(b) * b->min_rtt_us >> (ERI_SIM_CC_BW_SHIFT - 10);
	x = (x * gain + BIT_ULL(10 + BBR_SCALE) - 1) >> (10 + BBR_SCALE);
	return min_t(u64, x, U32_MAX);
}

/* @v * @ratio / 1024, for bounds and windows in packets. */
static u32 bbr_ratio(u32 v, u32 ratio)
{
	return (u64)v * ratio >> BBR_SCALE;
}

static void bbr_cut(struct eri_sim_cc *cc, struct eri_sim_cc_bbr *b)
{
	if (b->cut_in_round)
		return;
	b->cut_in_round = true;
	cc->cuts++;
}

static u32 bbr_pacing_gain(const struct eri_sim_cc_bbr *b)
{
	switch (b->mode) {
	case ERI_SIM_CC_BBR_STARTUP:
		return ERI_SIM_CC_BBR_STARTUP_GAIN;
	case ERI_SIM_CC_BBR_DRAIN:
		return ERI_SIM_CC_BBR_DRAIN_GAIN;
	case ERI_SIM_CC_BBR_PROBE_BW:
		return bbr_cycle[b->phase];
	default:
		return ERI_SIM_CC_BBR_UNIT;
	}
}

static u64 bbr_srtt_ns(const struct eri_sim_cc *cc)
{
	return cc->srtt_ns ?: ERI_SIM_CC_BBR_INIT_SRTT_NS;
}

/*
 * The pacing rate, in wire bytes per second: the gain times the bandwidth,
 * 1% under it, at least 4 packets per smoothed RTT.  Without a model it is
 * STARTUP's gain on the window per smoothed RTT.
 */
static void bbr_set_pacing(struct eri_sim_cc *cc, struct eri_sim_cc_bbr *b)
{
	u64 rate;

	if (!bbr_max_bw(b)) {
		cc->pacing_rate = eri_sim_cc_rate(cc->cwnd, cc->wire,
						  bbr_srtt_ns(cc),
						  ERI_SIM_CC_BBR_STARTUP_GAIN);
		return;
	}
	/* No overflow: bw * wire < 2^49, 10^6 * gain * 99 < 2^42. */
	rate = mul_u64_u64_div_u64((u64)bbr_bw(b) * cc->wire,
				   (u64)USEC_PER_SEC * bbr_pacing_gain(b) *
				   ERI_SIM_CC_BBR_PACING_PCT,
				   100ULL << (ERI_SIM_CC_BW_SHIFT + BBR_SCALE));
	rate = max(rate, eri_sim_cc_rate(ERI_SIM_CC_BBR_MIN_CWND <<
					 ERI_SIM_CC_FP_SHIFT, cc->wire,
					 bbr_srtt_ns(cc), ERI_SIM_CC_BBR_UNIT));
	cc->pacing_rate = rate;
}

/*
 * The window's target, in packets: twice the BDP, the ACK aggregation
 * measured, three send quanta, and in phase 0 a little more.
 */
static u32 bbr_target(const struct eri_sim_cc *cc,
		      const struct eri_sim_cc_bbr *b)
{
	bool probe_up = b->mode == ERI_SIM_CC_BBR_PROBE_BW && !b->phase;

	return min_t(u64, (u64)bbr_bdp(b, ERI_SIM_CC_BBR_CWND_GAIN) +
		     max(b->extra_acked[0], b->extra_acked[1]) +
		     ERI_SIM_CC_BBR_QUANTA * cc->quantum +
		     (probe_up ? ERI_SIM_CC_BBR_PROBE_UP_EXTRA : 0),
		     ERI_SIM_CC_MAX_WND);
}

/* The window, in packets (eri.rst, "Window and pacing"). */
static void bbr_set_cwnd(struct eri_sim_cc *cc, struct eri_sim_cc_bbr *b,
			 u32 acked)
{
	bool probe_up = b->mode == ERI_SIM_CC_BBR_PROBE_BW && !b->phase;
	u32 cwnd = cc->cwnd >> ERI_SIM_CC_FP_SHIFT, target, cap;

	if (!bbr_has_model(b)) {
		cc->cwnd = ERI_SIM_CC_BBR_INIT_CWND << ERI_SIM_CC_FP_SHIFT;
		return;
	}
	target = bbr_target(cc, b);
	acked = min_t(u32, acked, ERI_SIM_CC_MAX_WND);
	/*
	 * After STARTUP up to the target; in STARTUP towards it, or beyond
	 * while the first window is not yet delivered (as Linux's BBR).
	 */
	if (b->full_bw_reached)
		cwnd = min(cwnd + acked, target);
	else if (cwnd < target || b->delivered < ERI_SIM_CC_BBR_INIT_CWND)
		cwnd += acked;
	cap = b->inflight_hi;
	if (!probe_up && cap != BBR_NONE)
		cap -= bbr_ratio(cap, ERI_SIM_CC_BBR_HEADROOM);
	cwnd = min3(cwnd, cap, b->inflight_lo);
	if (b->mode == ERI_SIM_CC_BBR_PROBE_RTT)
		cwnd = min(cwnd, max_t(u32, ERI_SIM_CC_BBR_MIN_CWND,
				       bbr_bdp(b, ERI_SIM_CC_BBR_PROBE_RTT_GAIN)));
	cwnd = clamp_t(u32, cwnd, ERI_SIM_CC_BBR_MIN_CWND, ERI_SIM_CC_MAX_WND);
	cc->cwnd = cwnd << ERI_SIM_CC_FP_SHIFT;
}

/* The standing-queue check's samples start again. */
static void bbr_reset_queue(struct eri_sim_cc_bbr *b)
{
	b->queue_min_rtt_us = BBR_NONE;
	b->queue_samples = 0;
}

/* Forget the model: the path may have changed (timeouts in a row). */
static void bbr_reset_model(struct eri_sim_cc_bbr *b)
{
	minmax_reset(&b->max_bw, b->round, 0);
	b->inflight_hi = BBR_NONE;
	b->inflight_lo = BBR_NONE;
	b->bw_lo = BBR_NONE;
	b->full_bw = 0;
	b->full_bw_cnt = 0;
	b->startup_ce_rounds = 0;
	b->full_bw_reached = false;
	b->mode = ERI_SIM_CC_BBR_STARTUP;
	bbr_reset_queue(b);
}

static void bbr_init(struct eri_sim_cc *cc, u64 now_ns, u32 seed)
{
	struct eri_sim_cc_bbr *b = eri_sim_cc_bbr(cc);

	bbr_reset_model(b);
	b->min_rtt_us = BBR_NONE;
	b->min_rtt_stamp_ns = now_ns;
	b->ack_epoch_ns = now_ns;
	b->probe_up_step = 1;
	b->ecn_alpha = ERI_SIM_CC_BBR_UNIT;
	b->seed = seed;
	cc->cwnd = ERI_SIM_CC_BBR_INIT_CWND << ERI_SIM_CC_FP_SHIFT;
	bbr_set_pacing(cc, b);
}

static void bbr_start_phase(struct eri_sim_cc_bbr *b, u8 phase, u64 now_ns)
{
	b->phase = phase;
	b->phase_ns = now_ns;
	if (!phase) {
		/* Probing up: the loss model's bounds no longer hold. */
		b->bw_lo = BBR_NONE;
		b->inflight_lo = BBR_NONE;
		b->probe_up_step = 1;
	}
}

/* PROBE_BW from a phase of cruising the seed picks: QPs probe apart. */
static void bbr_enter_probe_bw(struct eri_sim_cc_bbr *b, u64 now_ns)
{
	b->mode = ERI_SIM_CC_BBR_PROBE_BW;
	bbr_start_phase(b, 2 + b->seed % (ERI_SIM_CC_BBR_CYCLE_LEN - 2),
			now_ns);
}

/* Step 4: PSNs acknowledged beyond what the bandwidth explains. */
static void bbr_ack_aggregation(struct eri_sim_cc *cc,
				struct eri_sim_cc_bbr *b,
				const struct eri_sim_cc_ack *ack)
{
	u64 expected, us;
	u32 extra;

	if (b->round_start &&
	    b->round - b->extra_acked_round >= ERI_SIM_CC_BBR_ACK_AGG_ROUNDS) {
		b->extra_acked_round = b->round;
		b->extra_slot ^= 1;
		b->extra_acked[b->extra_slot] = 0;
	}
	if (!ack->acked || !bbr_max_bw(b))
		return;
	us = div_u64(ack->now_ns - b->ack_epoch_ns, NSEC_PER_USEC);
	/* No overflow: bw < 2^32, the epoch is shorter than 2^27 us. */
	expected = (u64)bbr_max_bw(b) *
		   min_t(u64, us, ERI_SIM_CC_BBR_ACK_AGG_MAX_NS / 1000) >>
		   ERI_SIM_CC_BW_SHIFT;
	if (b->ack_epoch_acked <= expected ||
	    ack->now_ns - b->ack_epoch_ns > ERI_SIM_CC_BBR_ACK_AGG_MAX_NS) {
		b->ack_epoch_acked = 0;
		b->ack_epoch_ns = ack->now_ns;
		expected = 0;
	}
	b->ack_epoch_acked = min_t(u64, (u64)b->ack_epoch_acked + ack->acked,
				   U32_MAX);
	if (b->ack_epoch_acked <= expected)
		return;
	extra = min_t(u64, b->ack_epoch_acked - expected,
		      cc->cwnd >> ERI_SIM_CC_FP_SHIFT);
	b->extra_acked[b->extra_slot] = max(b->extra_acked[b->extra_slot],
					    extra);
}

/* What the round that just ended saw. */
struct bbr_round {
	u32 lost;
	u32 acked;
	u32 ce_ratio;		/* 1/1024 */
	u32 inflight_latest;
	bool cut;
};

static u32 bbr_ce_ratio(u32 ce_acked, u32 acked)
{
	return acked ? div_u64((u64)ce_acked << BBR_SCALE, acked) : 0;
}

/*
 * A queue that stood while cruising: even the least of QUEUE_SAMPLES RTT
 * samples was twice the base.  The bandwidth estimate runs ahead of the
 * path (a burst of ACKs), and the window, not pacing, holds the flight:
 * bound it, as a mark would.  The least sample, not the mean: a stalled
 * sender or receiver delays some samples, never all of them; and sixteen,
 * not a round's: a round on a slow path is two or three ACKs, and a path
 * that delays most packets (reordering, two routes) gives rounds of late
 * samples alone.
 */
static void bbr_check_queue(struct eri_sim_cc *cc, struct eri_sim_cc_bbr *b)
{
	u32 lo = min(b->inflight_lo, cc->cwnd >> ERI_SIM_CC_FP_SHIFT);

	if (b->min_rtt_us != BBR_NONE &&
	    b->queue_min_rtt_us > bbr_ratio(b->min_rtt_us,
					    ERI_SIM_CC_BBR_QUEUE_GAIN)) {
		b->inflight_lo = max3(ERI_SIM_CC_BBR_MIN_CWND,
				      bbr_bdp(b, ERI_SIM_CC_BBR_UNIT),
				      bbr_ratio(lo, ERI_SIM_CC_BBR_QUEUE_BETA));
		bbr_cut(cc, b);
	}
	bbr_reset_queue(b);
}

/* Step 6: the round's losses and marks lower the bounds, outside probing. */
static void bbr_end_round(struct eri_sim_cc *cc, struct eri_sim_cc_bbr *b,
			  struct bbr_round *r)
{
	bool probing = b->mode == ERI_SIM_CC_BBR_STARTUP ||
		       (b->mode == ERI_SIM_CC_BBR_PROBE_BW && !b->phase);
	bool cruising = bbr_cruising(b);
	u32 cwnd = cc->cwnd >> ERI_SIM_CC_FP_SHIFT;

	r->lost = b->round_lost;
	r->acked = b->round_acked;
	r->ce_ratio = bbr_ce_ratio(b->round_ce_acked, b->round_acked);
	r->inflight_latest = b->inflight_latest;
	r->cut = b->cut_in_round;
	b->ecn_alpha = b->ecn_alpha -
		       (b->ecn_alpha >> ERI_SIM_CC_BBR_ECN_ALPHA_SHIFT) +
		       (r->ce_ratio >> ERI_SIM_CC_BBR_ECN_ALPHA_SHIFT);
	if (!probing && r->lost) {
		if (b->bw_lo == BBR_NONE)
			b->bw_lo = bbr_max_bw(b);
		if (b->inflight_lo == BBR_NONE)
			b->inflight_lo = cwnd;
		b->bw_lo = max(b->bw_latest,
			       bbr_ratio(b->bw_lo, ERI_SIM_CC_BBR_BETA));
		b->inflight_lo = max(b->inflight_latest,
				     bbr_ratio(b->inflight_lo,
					       ERI_SIM_CC_BBR_BETA));
		bbr_cut(cc, b);
	}
	if (!probing && r->ce_ratio) {
		u32 lo = min(b->inflight_lo, cwnd);

		b->inflight_lo = max_t(u32, ERI_SIM_CC_BBR_MIN_CWND,
				       bbr_ratio(lo, ERI_SIM_CC_BBR_UNIT -
						 b->ecn_alpha /
						 ERI_SIM_CC_BBR_ECN_FACTOR_DIV));
		bbr_cut(cc, b);
	}
	if (cruising &&
	    b->queue_samples >= ERI_SIM_CC_BBR_QUEUE_SAMPLES)
		bbr_check_queue(cc, b);
	b->bw_latest = 0;
	b->inflight_latest = 0;
	b->round_lost = 0;
	b->round_acked = 0;
	b->round_ce_acked = 0;
	b->cut_in_round = false;
}

/* Step 7: in phase 0, too much loss or marking ends the probe. */
static void bbr_check_probe_up(struct eri_sim_cc *cc, struct eri_sim_cc_bbr *b,
			       const struct eri_sim_cc_ack *ack,
			       const struct bbr_round *r)
{
	const struct eri_sim_cc_rs *rs = &ack->rs;
	u32 ce_ratio = b->round_start ? r->ce_ratio :
		       bbr_ce_ratio(b->round_ce_acked, b->round_acked);
	bool lossy = rs->delivered &&
		     rs->lost > max_t(u32, ERI_SIM_CC_BBR_LOSS_MIN,
				      (u64)rs->tx_in_flight *
				      ERI_SIM_CC_BBR_LOSS_PCT / 100);

	if (b->mode != ERI_SIM_CC_BBR_PROBE_BW || b->phase)
		return;
	if (b->round_start && !r->cut && b->inflight_hi != BBR_NONE &&
	    cc->cwnd >> ERI_SIM_CC_FP_SHIFT >= b->inflight_hi) {
		/* The bound held the window a whole round: raise it. */
		b->inflight_hi = min_t(u64, (u64)b->inflight_hi +
				       b->probe_up_step, BBR_NONE - 1);
		b->probe_up_step = min_t(u32, b->probe_up_step * 2,
					 ERI_SIM_CC_MAX_WND);
	}
	if (!lossy && ce_ratio <= ERI_SIM_CC_BBR_ECN_THRESH)
		return;
	/* What was in flight when the sampled PSN left; else the window. */
	b->inflight_hi = max_t(u32, ERI_SIM_CC_BBR_MIN_CWND,
			       bbr_ratio(rs->delivered ? rs->tx_in_flight :
					 cc->cwnd >> ERI_SIM_CC_FP_SHIFT,
					 ERI_SIM_CC_BBR_BETA));
	b->probe_up_step = 1;
	bbr_cut(cc, b);
	bbr_start_phase(b, 1, ack->now_ns);
}

/* STARTUP's exits: the bandwidth stopped growing, or too much loss or CE. */
static void bbr_check_startup(struct eri_sim_cc_bbr *b,
			      const struct eri_sim_cc_ack *ack,
			      const struct bbr_round *r)
{
	const struct eri_sim_cc_rs *rs = &ack->rs;
	bool bound = false;

	if (b->mode != ERI_SIM_CC_BBR_STARTUP || !b->round_start)
		return;
	/*
	 * The growth check skips application-limited rounds, unless the
	 * sampled PSN left with more than FULL_PIPE_GAIN BDPs in flight: the
	 * pipe was full then, and the bottleneck's queue, not the application,
	 * set the rate (an application that keeps the window's worth posted
	 * finds its send queue dry at every ACK, the window is never the limit
	 * and every sample is application limited).
	 */
	if (!rs->app_limited ||
	    rs->tx_in_flight > bbr_bdp(b, ERI_SIM_CC_BBR_FULL_PIPE_GAIN)) {
		if ((u64)bbr_max_bw(b) << BBR_SCALE >=
		    (u64)b->full_bw * ERI_SIM_CC_BBR_FULL_BW_GROWTH) {
			b->full_bw = bbr_max_bw(b);
			b->full_bw_cnt = 0;
		} else if (++b->full_bw_cnt >= ERI_SIM_CC_BBR_FULL_BW_ROUNDS) {
			b->full_bw_reached = true;
		}
	}
	if (r->lost > max_t(u32, ERI_SIM_CC_BBR_STARTUP_LOSS_MIN,
			    (u64)(r->acked + r->lost) *
			    ERI_SIM_CC_BBR_LOSS_PCT / 100))
		bound = true;
	if (r->ce_ratio > ERI_SIM_CC_BBR_ECN_THRESH) {
		if (++b->startup_ce_rounds >= ERI_SIM_CC_BBR_STARTUP_CE_ROUNDS)
			bound = true;
	} else {
		b->startup_ce_rounds = 0;
	}
	if (bound) {
		b->inflight_hi = max(bbr_bdp(b, ERI_SIM_CC_BBR_UNIT),
				     r->inflight_latest);
		b->full_bw_reached = true;
	}
	if (b->full_bw_reached)
		b->mode = ERI_SIM_CC_BBR_DRAIN;
}

/*
 * inflight_hi, not the model's target, bounds the window: the bound, not
 * the path, limits the flight.  A window-limited flow in a queue another
 * sender keeps full always has more than 1.25 BDP in flight (its delivery
 * rate is its window over an RTT the queue inflates), so that is no sign of
 * a full pipe then.
 */
static bool bbr_hi_binds(const struct eri_sim_cc *cc,
			 const struct eri_sim_cc_bbr *b)
{
	return b->inflight_hi != BBR_NONE && bbr_target(cc, b) > b->inflight_hi;
}

/*
 * PROBE_BW's phases: each lasts min_rtt; 0 and 1 have conditions.  Phase 0
 * goes on while inflight_hi bounds the window (raised each round, step 7)
 * until a loss.  Phase 1 drains what the flight holds beyond the BDP, for
 * up to one smoothed RTT (which includes the queue): a bandwidth estimate a
 * little high keeps a queue that a drain of min_rtt alone would never
 * empty.
 */
static void bbr_advance_phase(const struct eri_sim_cc *cc,
			      struct eri_sim_cc_bbr *b,
			      const struct eri_sim_cc_ack *ack)
{
	u64 min_rtt_ns = (u64)b->min_rtt_us * NSEC_PER_USEC;
	u64 elapsed = ack->now_ns - b->phase_ns;
	bool next;

	if (b->mode != ERI_SIM_CC_BBR_PROBE_BW)
		return;
	if (!b->phase)
		next = elapsed > min_rtt_ns &&
		       (ack->lost ||
			(!bbr_hi_binds(cc, b) && ack->inflight >=
			 bbr_bdp(b, ERI_SIM_CC_BBR_PROBE_UP_GAIN)));
	else if (b->phase == 1)
		next = elapsed > max(min_rtt_ns, cc->srtt_ns) ||
		       ack->inflight <= bbr_bdp(b, ERI_SIM_CC_BBR_UNIT);
	else
		next = elapsed > min_rtt_ns;
	if (next)
		bbr_start_phase(b, (b->phase + 1) % ERI_SIM_CC_BBR_CYCLE_LEN,
				ack->now_ns);
}

/*
 * Step 3 and PROBE_RTT: the base RTT, and draining to see it again; the
 * window it drains from comes back when it ends.
 */
static void bbr_update_min_rtt(const struct eri_sim_cc *cc,
			       struct eri_sim_cc_bbr *b,
			       const struct eri_sim_cc_ack *ack)
{
	bool expired = ack->now_ns - b->min_rtt_stamp_ns >
		       ERI_SIM_CC_BBR_MIN_RTT_WIN_NS;
	u32 us;

	if (ack->rtt_ns) {
		us = clamp_t(u64, div_u64(ack->rtt_ns, NSEC_PER_USEC), 1,
			     BBR_NONE - 1);
		if (us < b->min_rtt_us || expired) {
			b->min_rtt_us = us;
			b->min_rtt_stamp_ns = ack->now_ns;
			bbr_reset_queue(b);
		}
	}
	if (expired && b->mode != ERI_SIM_CC_BBR_PROBE_RTT &&
	    b->min_rtt_us != BBR_NONE) {
		b->mode = ERI_SIM_CC_BBR_PROBE_RTT;
		b->probe_rtt_ns = 0;
		b->probe_rtt_cwnd = cc->cwnd >> ERI_SIM_CC_FP_SHIFT;
	}
}

static void bbr_check_probe_rtt(struct eri_sim_cc *cc,
				struct eri_sim_cc_bbr *b,
				const struct eri_sim_cc_ack *ack)
{
	u32 floor = max_t(u32, ERI_SIM_CC_BBR_MIN_CWND,
			  bbr_bdp(b, ERI_SIM_CC_BBR_PROBE_RTT_GAIN));

	if (b->mode != ERI_SIM_CC_BBR_PROBE_RTT)
		return;
	if (!b->probe_rtt_ns) {
		/* Timed from when the flight fits the smaller window. */
		if (ack->inflight > floor)
			return;
		b->probe_rtt_ns = ack->now_ns + ERI_SIM_CC_BBR_PROBE_RTT_NS;
		b->probe_rtt_round = b->round;
		b->next_round_delivered = b->delivered;
		return;
	}
	/* At least PROBE_RTT_NS and a whole round. */
	if (b->round == b->probe_rtt_round || ack->now_ns < b->probe_rtt_ns)
		return;
	b->min_rtt_stamp_ns = ack->now_ns;
	b->probe_rtt_ns = 0;
	/*
	 * The window comes back, and the loss model's bounds go: losses or
	 * marks of the flight before the drain may have set them from the
	 * drained window (BBRv3).
	 */
	cc->cwnd = max_t(u32, cc->cwnd,
			 b->probe_rtt_cwnd << ERI_SIM_CC_FP_SHIFT);
	b->bw_lo = BBR_NONE;
	b->inflight_lo = BBR_NONE;
	if (b->full_bw_reached)
		bbr_enter_probe_bw(b, ack->now_ns);
	else
		b->mode = ERI_SIM_CC_BBR_STARTUP;
}

static void bbr_on_ack(struct eri_sim_cc *cc, const struct eri_sim_cc_ack *ack)
{
	struct eri_sim_cc_bbr *b = eri_sim_cc_bbr(cc);
	const struct eri_sim_cc_rs *rs = &ack->rs;
	struct bbr_round r = {};

	/* 1: a round ends when a PSN sent after its start is delivered. */
	b->round_start = false;
	if (rs->delivered) {
		b->delivered = rs->prior_delivered + rs->delivered;
		if (rs->prior_delivered >= b->next_round_delivered) {
			b->next_round_delivered = b->delivered;
			b->round++;
			b->round_start = true;
		}
	} else {
		b->delivered += ack->acked;
	}
	if (ack->acked)
		b->rto_streak = 0;
	/*
	 * 2: the bandwidth, a windowed maximum of the rate samples; an early
	 * sample only shows what a round delivered (bw_latest, the loss
	 * bounds' floor).
	 */
	if (rs->valid) {
		if (!rs->early &&
		    (!rs->app_limited || rs->bw >= bbr_max_bw(b)))
			minmax_running_max(&b->max_bw,
					   ERI_SIM_CC_BBR_BW_WIN_ROUNDS,
					   b->round, rs->bw);
		b->bw_latest = max(b->bw_latest, rs->bw);
		b->inflight_latest = max(b->inflight_latest, rs->delivered);
	}
	/* 3 */
	bbr_update_min_rtt(cc, b, ack);
	/* 4 */
	bbr_ack_aggregation(cc, b, ack);
	/* 5 */
	if (ack->rtt_ns && bbr_cruising(b)) {
		b->queue_min_rtt_us = min_t(u64, b->queue_min_rtt_us,
					    div_u64(ack->rtt_ns, NSEC_PER_USEC));
		if (b->queue_samples < ERI_SIM_CC_BBR_QUEUE_SAMPLES)
			b->queue_samples++;
	}
	b->round_lost = min_t(u64, (u64)b->round_lost + ack->lost, U32_MAX);
	b->round_acked = min_t(u64, (u64)b->round_acked + ack->acked, U32_MAX);
	if (ack->ce)
		b->round_ce_acked = min_t(u64, (u64)b->round_ce_acked +
					  ack->acked, U32_MAX);
	/* 6 */
	if (b->round_start)
		bbr_end_round(cc, b, &r);
	/* 7 */
	bbr_check_probe_up(cc, b, ack, &r);
	/* 8 */
	bbr_check_startup(b, ack, &r);
	if (b->mode == ERI_SIM_CC_BBR_DRAIN &&
	    ack->inflight <= bbr_bdp(b, ERI_SIM_CC_BBR_UNIT))
		bbr_enter_probe_bw(b, ack->now_ns);
	bbr_advance_phase(cc, b, ack);
	bbr_check_probe_rtt(cc, b, ack);
	/* 9 */
	bbr_set_cwnd(cc, b, ack->acked);
	bbr_set_pacing(cc, b);
}

/*
 * The transport's own post-timeout window already restarts the flight from
 * one packet, so the window stays; the model is kept through one timeout (a
 * host that stalled) and forgotten at the second without a delivery between.
 */
static void bbr_on_timeout(struct eri_sim_cc *cc, u64 now_ns, u32 lost)
{
	struct eri_sim_cc_bbr *b = eri_sim_cc_bbr(cc);

	b->round_lost = min_t(u64, (u64)b->round_lost + lost, U32_MAX);
	if (++b->rto_streak < 2)
		return;
	bbr_reset_model(b);
	bbr_set_pacing(cc, b);
}

/*
 * The window was never cut (the transport's was); the losses counted
 * against the round go, so that they lower no bound at its end.
 */
static void bbr_undo(struct eri_sim_cc *cc, u32 prior_cwnd, u32 lost)
{
	struct eri_sim_cc_bbr *b = eri_sim_cc_bbr(cc);

	b->round_lost -= min(b->round_lost, lost);
	b->rto_streak = 0;
}

static u32 bbr_window(const struct eri_sim_cc *cc)
{
	return cc->cwnd >> ERI_SIM_CC_FP_SHIFT;
}

static const char *bbr_mode(const struct eri_sim_cc *cc)
{
	switch (eri_sim_cc_bbr_c(cc)->mode) {
	case ERI_SIM_CC_BBR_STARTUP:
		return "startup";
	case ERI_SIM_CC_BBR_DRAIN:
		return "drain";
	case ERI_SIM_CC_BBR_PROBE_BW:
		return "probe_bw";
	default:
		return "probe_rtt";
	}
}

/* max_bw in wire bytes per second; no overflow: bw * wire < 2^49. */
static u64 bbr_bw_bytes(const struct eri_sim_cc *cc)
{
	return mul_u64_u64_div_u64((u64)bbr_max_bw(eri_sim_cc_bbr_c(cc)) *
				   cc->wire, USEC_PER_SEC,
				   BIT_ULL(ERI_SIM_CC_BW_SHIFT));
}

static void bbr_bounds(const struct eri_sim_cc *cc, u32 *hi, u32 *lo)
{
	const struct eri_sim_cc_bbr *b = eri_sim_cc_bbr_c(cc);

	*hi = b->inflight_hi;
	*lo = b->inflight_lo;
}

struct eri_sim_cc_ops eri_sim_cc_bbr_ops = {
	.name = "bbr",
	.flags = ERI_CC_DESC_ECN | ERI_CC_DESC_PACED,
	.init = bbr_init,
	.on_ack = bbr_on_ack,
	.on_timeout = bbr_on_timeout,
	.undo = bbr_undo,
	.window = bbr_window,
	.mode = bbr_mode,
	.bw = bbr_bw_bytes,
	.bounds = bbr_bounds,
};
