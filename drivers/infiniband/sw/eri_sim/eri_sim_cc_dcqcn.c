// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim congestion control: an ECN-driven rate in the style of DCQCN's
 * reaction point (Zhu et al., SIGCOMM 2015).  An ECN echo (the device's CNP)
 * cuts the current rate by alpha / 2, alpha being an EWMA of how often the
 * network marks; without marks alpha decays and the rate climbs back in
 * stages (fast recovery, additive, hyper increase) driven by elapsed time and
 * bytes acknowledged.  There are no timers: the periods elapsed are worked
 * out from the @now_ns of each event.  Losses alone do not change the rate;
 * a timeout halves it.  Parameters and their values: eri_sim_cc_dcqcn.h.
 */
#include <linux/limits.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>

#include "eri_sim_cc_dcqcn.h"

#define DCQCN_MAX_CWND	((u32)ERI_SIM_CC_MAX_WND << ERI_SIM_CC_FP_SHIFT)
/* Alpha decays from 1 to 0 in fewer periods than this (rounding up). */
#define DCQCN_ALPHA_MAX_DECAYS	2048

/*
 * Pacing follows the rate, a rate of payload: on the wire each packet's
 * headers come on top.  The window allows twice the rate's BDP.
 */
static void dcqcn_apply(struct eri_sim_cc *cc)
{
	struct eri_sim_cc_dcqcn *d = eri_sim_cc_dcqcn(cc);
	u64 cwnd = DCQCN_MAX_CWND;

	/* No overflow: rc <= LINE_RATE < 2^31, wire < 2^18. */
	cc->pacing_rate = div_u64(d->rc * cc->wire, cc->mtu);
	if (cc->srtt_ns)
		cwnd = mul_u64_u64_div_u64(2 * d->rc,
					   cc->srtt_ns << ERI_SIM_CC_FP_SHIFT,
					   (u64)cc->mtu * NSEC_PER_SEC);
	cc->cwnd = clamp_t(u64, cwnd, ERI_SIM_CC_ONE, DCQCN_MAX_CWND);
}

static void dcqcn_increase(struct eri_sim_cc_dcqcn *d)
{
	u32 t = d->timer_steps, b = d->byte_steps;

	/* No overflow: steps < 2^32, rt >> 3 < 2^28. */
	if (t > ERI_SIM_CC_DCQCN_FR_STEPS && b > ERI_SIM_CC_DCQCN_FR_STEPS)
		d->rt += (u64)(min(t, b) - ERI_SIM_CC_DCQCN_FR_STEPS) *
			 min(ERI_SIM_CC_DCQCN_RHAI,
			     d->rt >> ERI_SIM_CC_DCQCN_HAI_SHIFT);
	else if (t > ERI_SIM_CC_DCQCN_FR_STEPS || b > ERI_SIM_CC_DCQCN_FR_STEPS)
		d->rt += min(ERI_SIM_CC_DCQCN_RAI,
			     d->rt >> ERI_SIM_CC_DCQCN_AI_SHIFT);
	d->rt = min(d->rt, ERI_SIM_CC_DCQCN_LINE_RATE);
	d->rc = (d->rt + d->rc) / 2;
}

/*
 * The least period of the alpha and increase timers: one smoothed RTT, and
 * the time PERIOD_PKTS packets take at the current rate.
 */
static u64 dcqcn_least_period_ns(const struct eri_sim_cc *cc,
				 const struct eri_sim_cc_dcqcn *d)
{
	/* No overflow: PERIOD_PKTS * mtu * 10^9 < 2^50; rc >= MIN_RATE. */
	u64 pkts_ns = div64_u64((u64)ERI_SIM_CC_DCQCN_PERIOD_PKTS * cc->mtu *
				NSEC_PER_SEC, d->rc);

	return max(cc->srtt_ns, pkts_ns);
}

/* Apply the alpha and increase periods that ended by @now_ns. */
static void dcqcn_advance(const struct eri_sim_cc *cc,
			  struct eri_sim_cc_dcqcn *d, u64 now_ns)
{
	u64 least = dcqcn_least_period_ns(cc, d);
	u64 alpha_period = max(ERI_SIM_CC_DCQCN_ALPHA_PERIOD_NS, least);
	u64 inc_period = max(ERI_SIM_CC_DCQCN_INC_PERIOD_NS, least);
	u64 n, i;

	if (now_ns >= d->alpha_ns + alpha_period) {
		n = div64_u64(now_ns - d->alpha_ns, alpha_period);
		d->alpha_ns += n * alpha_period;
		/* The period that saw a CNP raised alpha instead. */
		if (d->cnp_in_period)
			n--;
		d->cnp_in_period = false;
		for (i = 0; i < min_t(u64, n, DCQCN_ALPHA_MAX_DECAYS) &&
		     d->alpha; i++)
			d->alpha -= DIV_ROUND_UP(d->alpha * ERI_SIM_CC_DCQCN_G,
						 ERI_SIM_CC_DCQCN_ALPHA_ONE);
	}
	if (now_ns >= d->inc_ns + inc_period) {
		n = div64_u64(now_ns - d->inc_ns, inc_period);
		d->inc_ns += n * inc_period;
		for (i = 0; i < min_t(u64, n, ERI_SIM_CC_DCQCN_MAX_CATCHUP);
		     i++) {
			if (d->timer_steps < U32_MAX)
				d->timer_steps++;
			dcqcn_increase(d);
		}
	}
}

static void dcqcn_init(struct eri_sim_cc *cc, u64 now_ns, u32 seed)
{
	struct eri_sim_cc_dcqcn *d = eri_sim_cc_dcqcn(cc);

	d->rc = ERI_SIM_CC_DCQCN_LINE_RATE;
	d->rt = ERI_SIM_CC_DCQCN_LINE_RATE;
	d->alpha = ERI_SIM_CC_DCQCN_ALPHA_ONE;
	d->alpha_ns = now_ns;
	d->inc_ns = now_ns;
	dcqcn_apply(cc);
}

static void dcqcn_on_delivery(struct eri_sim_cc *cc, u64 now_ns,
			      u32 acked_pkts)
{
	struct eri_sim_cc_dcqcn *d = eri_sim_cc_dcqcn(cc);
	u32 i;

	dcqcn_advance(cc, d, now_ns);
	d->bytes += (u64)acked_pkts * cc->mtu;
	for (i = 0; d->bytes >= ERI_SIM_CC_DCQCN_INC_BYTES; i++) {
		d->bytes -= ERI_SIM_CC_DCQCN_INC_BYTES;
		if (i >= ERI_SIM_CC_DCQCN_MAX_CATCHUP)
			continue;
		if (d->byte_steps < U32_MAX)
			d->byte_steps++;
		dcqcn_increase(d);
	}
	dcqcn_apply(cc);
}

/* Cut to (1 - @factor / 1024) of the rate; a new recovery starts. */
static void dcqcn_cut(struct eri_sim_cc *cc, u64 now_ns, u32 factor)
{
	struct eri_sim_cc_dcqcn *d = eri_sim_cc_dcqcn(cc);

	d->rt = d->rc;
	d->rc = max(d->rc * (ERI_SIM_CC_DCQCN_ALPHA_ONE - factor) /
		    ERI_SIM_CC_DCQCN_ALPHA_ONE, ERI_SIM_CC_DCQCN_MIN_RATE);
	d->timer_steps = 0;
	d->byte_steps = 0;
	d->bytes = 0;
	d->inc_ns = now_ns;
	d->next_cut_ns = now_ns + max(ERI_SIM_CC_DCQCN_CUT_INTERVAL_NS,
				      cc->min_rtt_ns);
	cc->cuts++;
	dcqcn_apply(cc);
}

static void dcqcn_on_ecn(struct eri_sim_cc *cc, u64 now_ns)
{
	struct eri_sim_cc_dcqcn *d = eri_sim_cc_dcqcn(cc);

	dcqcn_advance(cc, d, now_ns);
	d->cnp_in_period = true;
	if (now_ns < d->next_cut_ns)
		return;
	/* alpha = (1 - g) * alpha + g, then rc *= 1 - alpha / 2. */
	dcqcn_cut(cc, now_ns, d->alpha / 2);
	d->alpha = (d->alpha * (ERI_SIM_CC_DCQCN_ALPHA_ONE - ERI_SIM_CC_DCQCN_G) +
		    ERI_SIM_CC_DCQCN_G * ERI_SIM_CC_DCQCN_ALPHA_ONE) /
		   ERI_SIM_CC_DCQCN_ALPHA_ONE;
}

/*
 * The mark first, as the CNP reaches a reaction point before the data it
 * was sent for is acknowledged.  Marks, not losses, are the congestion
 * signal on a lossy network: a loss only advances the periods.
 */
static void dcqcn_on_ack(struct eri_sim_cc *cc,
			 const struct eri_sim_cc_ack *ack)
{
	if (ack->ce)
		dcqcn_on_ecn(cc, ack->now_ns);
	dcqcn_on_delivery(cc, ack->now_ns, ack->acked);
}

static void dcqcn_on_timeout(struct eri_sim_cc *cc, u64 now_ns, u32 lost)
{
	dcqcn_advance(cc, eri_sim_cc_dcqcn(cc), now_ns);
	dcqcn_cut(cc, now_ns, ERI_SIM_CC_DCQCN_ALPHA_ONE / 2);
}

static u32 dcqcn_window(const struct eri_sim_cc *cc)
{
	return cc->cwnd >> ERI_SIM_CC_FP_SHIFT;
}

struct eri_sim_cc_ops eri_sim_cc_dcqcn_ops = {
	.name = "dcqcn",
	.flags = ERI_CC_DESC_ECN | ERI_CC_DESC_PACED,
	.init = dcqcn_init,
	.on_ack = dcqcn_on_ack,
	.on_timeout = dcqcn_on_timeout,
	.window = dcqcn_window,
};
