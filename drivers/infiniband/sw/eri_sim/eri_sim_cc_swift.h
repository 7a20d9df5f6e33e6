/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * eri_sim congestion control: Swift's parameters and state, private to
 * eri_sim_cc_swift.c and its KUnit cases.
 */
#ifndef _ERI_SIM_CC_SWIFT_H_
#define _ERI_SIM_CC_SWIFT_H_

#include "eri_sim_cc.h"

/*
 * Swift: a delay target of min_rtt plus the larger of QDELAY_NS and
 * min_rtt >> QDELAY_SHIFT; the delay compared with it is the standing delay,
 * the smallest sample of about the last srtt; additive increase of AI
 * packets per RTT below it (slow start, doubling per RTT, below ssthresh);
 * above it a cut of BETA * (delay - target) / delay, at most MAX_MDF, at
 * most once per RTT.  Windows stay in [MIN_CWND, ERI_SIM_CC_MAX_WND]; at
 * MIN_CWND, one packet, pacing spaces packets srtt apart.  Losses cut (by
 * MAX_MDF, once per RTT) only when the delay was above target or when more
 * than one in LOSS_DIV of the window's packets was lost within one RTT: an
 * isolated loss does not.
 * A timeout collapses the window to one packet; slow start recovers to half
 * the window the timeout found.  Ratios are in 1/1024.
 */
#define ERI_SIM_CC_SWIFT_INIT_CWND	16
#define ERI_SIM_CC_SWIFT_MIN_CWND	ERI_SIM_CC_ONE
#define ERI_SIM_CC_SWIFT_AI		ERI_SIM_CC_ONE
#define ERI_SIM_CC_SWIFT_BETA		819	/* 0.8 */
#define ERI_SIM_CC_SWIFT_MAX_MDF	512	/* 0.5 */
#define ERI_SIM_CC_SWIFT_QDELAY_NS	(100ULL * 1000)
#define ERI_SIM_CC_SWIFT_QDELAY_SHIFT	1
#define ERI_SIM_CC_SWIFT_LOSS_DIV	8
#define ERI_SIM_CC_SWIFT_LOSS_MIN	2
#define ERI_SIM_CC_SWIFT_PACE_GAIN	1280	/* 1.25, window above a packet */
#define ERI_SIM_CC_SWIFT_SS_PACE_GAIN	2048	/* 2, in slow start */

struct eri_sim_cc_swift {
	u32 ssthresh;		/* fixed point; slow start below it */
	u32 round_losses;	/* losses since round_start_ns */
	u64 round_start_ns;
	u64 next_cut_ns;	/* no cut before this */
	u64 delay_ns;		/* standing delay; 0: no sample yet */
	struct eri_sim_cc_wmin standing;	/* behind delay_ns */
};

static inline struct eri_sim_cc_swift *eri_sim_cc_swift(struct eri_sim_cc *cc)
{
	return eri_sim_cc_priv(cc, struct eri_sim_cc_swift);
}

#endif /* _ERI_SIM_CC_SWIFT_H_ */
