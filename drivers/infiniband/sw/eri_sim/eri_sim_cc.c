// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim congestion control: the engine.  It dispatches a QP's events to
 * its algorithm, keeps the RTT estimator the algorithms share and paces
 * departures at the rate the algorithm set.  See eri_sim_cc.h for the rules
 * (caller holds qp->lock, time passed in, no allocation).
 */
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "eri_sim_cc.h"

static const struct eri_sim_cc_ops eri_sim_cc_fixed_ops;

static const struct eri_sim_cc_ops *const eri_sim_cc_algos[ERI_SIM_CC_NUM] = {
	[ERI_SIM_CC_SWIFT] = &eri_sim_cc_swift_ops,
	[ERI_SIM_CC_DCQCN] = &eri_sim_cc_dcqcn_ops,
	[ERI_SIM_CC_FIXED] = &eri_sim_cc_fixed_ops,
};

static const struct eri_sim_cc_ops *eri_sim_cc_ops(const struct eri_sim_cc *cc)
{
	return eri_sim_cc_algos[cc->algo];
}

/**
 * eri_sim_cc_algo_name() - name of a congestion-control algorithm
 * @algo: the algorithm
 *
 * Return: its name ("swift", "dcqcn", "fixed"), or "unknown".
 */
const char *eri_sim_cc_algo_name(enum eri_sim_cc_algo algo)
{
	if ((unsigned int)algo >= ERI_SIM_CC_NUM)
		return "unknown";
	return eri_sim_cc_algos[algo]->name;
}

/**
 * eri_sim_cc_rate() - bytes per second of a window sent once per RTT
 * @cwnd: window in packets, ERI_SIM_CC_FP_SHIFT fraction bits
 * @mtu: bytes of a packet
 * @rtt_ns: round-trip time; 0 gives 0 (unknown, not paced)
 * @gain: factor in 1/1024
 *
 * Return: cwnd * mtu / rtt * gain in bytes per second, at least 1 when
 * @rtt_ns is known.
 */
u64 eri_sim_cc_rate(u32 cwnd, u32 mtu, u64 rtt_ns, u32 gain)
{
	u64 rate;

	if (!rtt_ns)
		return 0;
	/*
	 * No overflow: cwnd < 2^25, mtu <= 2^16 and gain < 2^12 give a product
	 * below 2^53; rtt < 2^35 shifted by 26 stays below 2^61.
	 */
	rate = mul_u64_u64_div_u64((u64)cwnd * mtu * gain, NSEC_PER_SEC,
				   min(rtt_ns, ERI_SIM_CC_MAX_RTT_NS) <<
				   (ERI_SIM_CC_FP_SHIFT + 10));
	return max(rate, 1ULL);
}

/**
 * eri_sim_cc_wmin_reset() - forget a windowed minimum's samples
 * @w: the minimum
 * @now_ns: the current time, the start of its first bucket
 */
void eri_sim_cc_wmin_reset(struct eri_sim_cc_wmin *w, u64 now_ns)
{
	w->v[0] = U64_MAX;
	w->v[1] = U64_MAX;
	w->start_ns = now_ns;
}

/**
 * eri_sim_cc_wmin_update() - add a sample to a windowed minimum
 * @w: the minimum
 * @now_ns: the current time, not before that of earlier calls
 * @win_ns: the window, at least 2 ns
 * @sample: the sample; U64_MAX adds none (ages the buckets only)
 *
 * Buckets last @win_ns / 2 each, back to back from the reset; the minimum is
 * that of the current bucket and of the one before it.  So a sample counts
 * for at least @win_ns / 2 and less than @win_ns, and
 * the minimum follows a rise of the samples within a window without keeping
 * any per-sample history.
 *
 * Return: the smallest sample of the current and the previous bucket,
 * U64_MAX for none.
 */
u64 eri_sim_cc_wmin_update(struct eri_sim_cc_wmin *w, u64 now_ns,
			   u64 win_ns, u64 sample)
{
	u64 half = max(win_ns / 2, 1ULL), n;

	if (now_ns - w->start_ns >= half) {
		n = div64_u64(now_ns - w->start_ns, half);
		/* The current bucket becomes the previous one, or is too old. */
		w->v[1] = n == 1 ? w->v[0] : U64_MAX;
		w->v[0] = U64_MAX;
		w->start_ns += n * half;
	}
	w->v[0] = min(w->v[0], sample);
	return min(w->v[0], w->v[1]);
}

/**
 * eri_sim_cc_init() - start a QP's congestion control
 * @cc: the state, of a QP not yet sending (or under qp->lock)
 * @algo: the algorithm; an unknown one gives ERI_SIM_CC_DEFAULT
 * @mtu: payload bytes of a full packet (at least 1 is used)
 * @now_ns: the current time
 */
void eri_sim_cc_init(struct eri_sim_cc *cc, enum eri_sim_cc_algo algo,
		     u32 mtu, u64 now_ns)
{
	memset(cc, 0, sizeof(*cc));
	if ((unsigned int)algo >= ERI_SIM_CC_NUM)
		algo = ERI_SIM_CC_DEFAULT;
	cc->algo = algo;
	cc->mtu = clamp(mtu, 1U, 65536U);
	cc->next_send_ns = now_ns;
	eri_sim_cc_wmin_reset(&cc->min_rtt, now_ns);
	eri_sim_cc_ops(cc)->init(cc, now_ns);
}

/*
 * RFC 6298 smoothing with gains 1/8 and 1/4, in nanoseconds; the windowed
 * minimum; the sums behind the mean RTT.
 */
static void eri_sim_cc_rtt_sample(struct eri_sim_cc *cc, u64 now_ns,
				  u64 rtt_ns)
{
	u64 delta;

	cc->rtt_samples++;
	cc->rtt_sum_ns += rtt_ns;
	cc->min_rtt_ns = eri_sim_cc_wmin_update(&cc->min_rtt, now_ns,
						ERI_SIM_CC_MIN_RTT_WIN_NS,
						rtt_ns);
	if (!cc->srtt_ns) {
		cc->srtt_ns = rtt_ns;
		cc->rttvar_ns = rtt_ns / 2;
		return;
	}
	delta = cc->srtt_ns > rtt_ns ? cc->srtt_ns - rtt_ns :
				       rtt_ns - cc->srtt_ns;
	cc->rttvar_ns = cc->rttvar_ns - cc->rttvar_ns / 4 + delta / 4;
	/* srtt stays at least 1: it was, and loses at most an eighth. */
	cc->srtt_ns = cc->srtt_ns - cc->srtt_ns / 8 + rtt_ns / 8;
}

/**
 * eri_sim_cc_on_ack() - an ACK advanced the window
 * @cc: the state, under qp->lock
 * @now_ns: the current time
 * @rtt_ns: RTT sample from the echoed timestamp, 0 for none; samples above
 *	ERI_SIM_CC_MAX_RTT_NS are ignored
 * @acked_pkts: packets newly acknowledged, cumulatively or selectively
 * @inflight_pkts: packets still in flight after the ACK
 */
void eri_sim_cc_on_ack(struct eri_sim_cc *cc, u64 now_ns, u64 rtt_ns,
		       u32 acked_pkts, u32 inflight_pkts)
{
	if (rtt_ns > ERI_SIM_CC_MAX_RTT_NS)
		rtt_ns = 0;
	cc->acks++;
	cc->delivered += acked_pkts;
	if (rtt_ns)
		eri_sim_cc_rtt_sample(cc, now_ns, rtt_ns);
	eri_sim_cc_ops(cc)->on_ack(cc, now_ns, rtt_ns, acked_pkts,
				   inflight_pkts);
}

/**
 * eri_sim_cc_on_ecn() - an ACK echoed an ECN CE mark (a CNP)
 * @cc: the state, under qp->lock
 * @now_ns: the current time
 */
void eri_sim_cc_on_ecn(struct eri_sim_cc *cc, u64 now_ns)
{
	cc->ecn_echoes++;
	eri_sim_cc_ops(cc)->on_ecn(cc, now_ns);
}

/**
 * eri_sim_cc_on_loss() - a fast retransmit: loss inferred from SACK
 * @cc: the state, under qp->lock
 * @now_ns: the current time
 */
void eri_sim_cc_on_loss(struct eri_sim_cc *cc, u64 now_ns)
{
	cc->losses++;
	eri_sim_cc_ops(cc)->on_loss(cc, now_ns);
}

/**
 * eri_sim_cc_on_timeout() - the retransmission timer fired
 * @cc: the state, under qp->lock
 * @now_ns: the current time
 */
void eri_sim_cc_on_timeout(struct eri_sim_cc *cc, u64 now_ns)
{
	cc->timeouts++;
	eri_sim_cc_ops(cc)->on_timeout(cc, now_ns);
}

/**
 * eri_sim_cc_window() - packets the QP may have in flight
 * @cc: the state, under qp->lock
 *
 * Return: a window in [ERI_SIM_CC_MIN_WND, ERI_SIM_CC_MAX_WND].
 */
u32 eri_sim_cc_window(const struct eri_sim_cc *cc)
{
	return clamp(eri_sim_cc_ops(cc)->window(cc), (u32)ERI_SIM_CC_MIN_WND,
		     (u32)ERI_SIM_CC_MAX_WND);
}

/**
 * eri_sim_cc_next_send_ns() - when the next packet may leave
 * @cc: the state, under qp->lock
 *
 * The caller sends when its clock has reached the returned time, else it
 * arms a timer for it.
 *
 * Return: the earliest departure time; 0 when the QP is not paced.
 */
u64 eri_sim_cc_next_send_ns(const struct eri_sim_cc *cc)
{
	return cc->pacing_rate ? cc->next_send_ns : 0;
}

/**
 * eri_sim_cc_sent() - a packet left
 * @cc: the state, under qp->lock
 * @now_ns: the current time
 * @bytes: the packet's payload bytes (a header-only packet counts as one)
 *
 * The next departure is one packet time at the pacing rate after this one.
 * A sender that was idle gets a credit of up to ERI_SIM_CC_PACE_BURST - 1
 * packet times, so it may send that many back to back; a window of one
 * packet or less gets none, since pacing is what enforces it.
 */
void eri_sim_cc_sent(struct eri_sim_cc *cc, u64 now_ns, u32 bytes)
{
	u64 gap, credit, base;

	if (!cc->pacing_rate)
		return;
	gap = div64_u64((u64)max(bytes, 1U) * NSEC_PER_SEC, cc->pacing_rate);
	credit = cc->cwnd <= ERI_SIM_CC_ONE ? 0 :
		 gap * (ERI_SIM_CC_PACE_BURST - 1);
	base = now_ns > credit ? now_ns - credit : 0;
	base = max(base, cc->next_send_ns);
	cc->next_send_ns = base + gap;
}

/**
 * eri_sim_cc_srtt_ns() - the smoothed RTT
 * @cc: the state, under qp->lock
 *
 * Return: the smoothed RTT in ns, 0 before the first sample.
 */
u64 eri_sim_cc_srtt_ns(const struct eri_sim_cc *cc)
{
	return cc->srtt_ns;
}

/**
 * eri_sim_cc_rto_ns() - the retransmission timeout
 * @cc: the state, under qp->lock
 * @min_ns: lower bound
 * @max_ns: upper bound, wins over @min_ns
 *
 * Return: srtt + 4 * rttvar, or ERI_SIM_CC_INIT_RTO_NS before the first
 * sample, clamped to [@min_ns, @max_ns].
 */
u64 eri_sim_cc_rto_ns(const struct eri_sim_cc *cc, u64 min_ns, u64 max_ns)
{
	u64 rto = ERI_SIM_CC_INIT_RTO_NS;

	/* Samples are below 2^34, so neither sum can overflow. */
	if (cc->srtt_ns)
		rto = cc->srtt_ns + 4 * cc->rttvar_ns;
	return min(max(rto, min_ns), max_ns);
}

/* ERI_SIM_CC_FIXED: the window the transport had before the engine. */
static void eri_sim_cc_fixed_init(struct eri_sim_cc *cc, u64 now_ns)
{
	cc->cwnd = ERI_SIM_CC_FIXED_WND << ERI_SIM_CC_FP_SHIFT;
}

static void eri_sim_cc_fixed_on_ack(struct eri_sim_cc *cc, u64 now_ns,
				    u64 rtt_ns, u32 acked_pkts,
				    u32 inflight_pkts)
{
}

static void eri_sim_cc_fixed_on_event(struct eri_sim_cc *cc, u64 now_ns)
{
}

static u32 eri_sim_cc_fixed_window(const struct eri_sim_cc *cc)
{
	return ERI_SIM_CC_FIXED_WND;
}

static const struct eri_sim_cc_ops eri_sim_cc_fixed_ops = {
	.name = "fixed",
	.init = eri_sim_cc_fixed_init,
	.on_ack = eri_sim_cc_fixed_on_ack,
	.on_ecn = eri_sim_cc_fixed_on_event,
	.on_loss = eri_sim_cc_fixed_on_event,
	.on_timeout = eri_sim_cc_fixed_on_event,
	.window = eri_sim_cc_fixed_window,
};
