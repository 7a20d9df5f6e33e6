/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * eri_sim congestion control: DCQCN's parameters and state, private to
 * eri_sim_cc_dcqcn.c and its KUnit cases.
 */
#ifndef _ERI_SIM_CC_DCQCN_H_
#define _ERI_SIM_CC_DCQCN_H_

#include "eri_sim_cc.h"

/*
 * DCQCN: rates in payload bytes per second (pacing adds each packet's
 * headers), starting at LINE_RATE.  A CNP (ECN echo)
 * cuts the rate by alpha / 2 at most once per max(CUT_INTERVAL_NS, min_rtt) and
 * raises alpha by G; every period without a CNP alpha decays by G.  A
 * period is max(ALPHA_PERIOD_NS or INC_PERIOD_NS, srtt, the time
 * PERIOD_PKTS packets take at the rate).  Every period and every INC_BYTES
 * acknowledged is an increase event: the first FR_STEPS of either kind are
 * fast recovery (rate halfway back to the target), then additive increase
 * (target + RAI, at most target >> AI_SHIFT), once both kinds passed
 * FR_STEPS hyper increase (target + i * RHAI, at most i * target >>
 * HAI_SHIFT).  Alpha and G are in 1/1024.
 *
 * The timers and steps are DCQCN's for a data centre, where a round trip is
 * shorter than a period and RAI a thousandth of the line rate.  On a path
 * whose RTT is milliseconds, periods of 55 us increase the rate tens of
 * times before a mark can come back, and on a path of a few MB/s one step
 * of RAI is more than the path: so at most one period per smoothed RTT,
 * and steps at most a sixteenth (an eighth for hyper increase) of the
 * target.  Cuts, at most one per min_rtt rather than per srtt, do not slow
 * down as the queue they answer grows.  Where the marking queue waits
 * before it marks (fq_codel: 10 ms), a round trip of an empty queue is no
 * feedback delay: a period is also at least PERIOD_PKTS packets at the
 * rate, so that steps follow the packets sent, as DCQCN's 55 us (about 200
 * packets at 40 Gbit/s) do.  At the line rate, with an MTU up to 4 KiB and
 * an RTT under 50 us, nothing changes.
 */
#define ERI_SIM_CC_DCQCN_LINE_RATE	1250000000ULL	/* 10 Gbit/s */
#define ERI_SIM_CC_DCQCN_MIN_RATE	1250000ULL	/* 10 Mbit/s */
#define ERI_SIM_CC_DCQCN_RAI		5000000ULL	/* 40 Mbit/s */
#define ERI_SIM_CC_DCQCN_RHAI		25000000ULL	/* 200 Mbit/s */
#define ERI_SIM_CC_DCQCN_G		4		/* 1/256 */
#define ERI_SIM_CC_DCQCN_ALPHA_ONE	1024
#define ERI_SIM_CC_DCQCN_ALPHA_PERIOD_NS (55ULL * 1000)
#define ERI_SIM_CC_DCQCN_INC_PERIOD_NS	(55ULL * 1000)
#define ERI_SIM_CC_DCQCN_INC_BYTES	(10ULL * 1024 * 1024)
#define ERI_SIM_CC_DCQCN_CUT_INTERVAL_NS (50ULL * 1000)
#define ERI_SIM_CC_DCQCN_FR_STEPS	5
#define ERI_SIM_CC_DCQCN_AI_SHIFT	4	/* RAI <= rt / 16 */
#define ERI_SIM_CC_DCQCN_HAI_SHIFT	3	/* RHAI <= rt / 8 */
/* Increase or decay periods one call applies at most (after long idling). */
#define ERI_SIM_CC_DCQCN_MAX_CATCHUP	64
#define ERI_SIM_CC_DCQCN_PERIOD_PKTS	16	/* a period: at least 16 packets */

struct eri_sim_cc_dcqcn {
	u64 rc;			/* current rate, bytes per second */
	u64 rt;			/* target rate */
	u32 alpha;		/* 1/1024 */
	u32 timer_steps;	/* increase events since the last cut, by time */
	u32 byte_steps;		/* and by bytes acknowledged */
	u64 bytes;		/* acknowledged since the last byte event */
	u64 next_cut_ns;
	u64 alpha_ns;		/* start of the current alpha period */
	u64 inc_ns;		/* start of the current increase period */
	bool cnp_in_period;	/* a CNP arrived in the current alpha period */
};

static inline struct eri_sim_cc_dcqcn *eri_sim_cc_dcqcn(struct eri_sim_cc *cc)
{
	return eri_sim_cc_priv(cc, struct eri_sim_cc_dcqcn);
}

#endif /* _ERI_SIM_CC_DCQCN_H_ */
