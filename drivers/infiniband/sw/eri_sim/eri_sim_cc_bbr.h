/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * eri_sim congestion control: bbr's parameters and state, private to
 * eri_sim_cc_bbr.c and its KUnit cases.
 */
#ifndef _ERI_SIM_CC_BBR_H_
#define _ERI_SIM_CC_BBR_H_

#include <linux/win_minmax.h>

#include "eri_sim_cc.h"

/*
 * bbr: a path model of the bottleneck's bandwidth (the largest delivery
 * rate of the last BW_WIN_ROUNDS rounds) and its base RTT (the smallest RTT
 * of the last MIN_RTT_WIN_NS); it paces at the bandwidth times a gain and
 * keeps CWND_GAIN bandwidth-delay products in flight, plus the ACK
 * aggregation it measured and three send quanta.  Gains and ratios are in
 * 1/1024 (BBR_UNIT); bandwidths in packets per microsecond with
 * ERI_SIM_CC_BW_SHIFT fraction bits.
 *
 * STARTUP doubles the rate each round until FULL_BW_ROUNDS rounds in a
 * row grew the bandwidth by less than FULL_BW_GROWTH (or too much loss or
 * marking; a round whose sample is application limited counts only with
 * more than FULL_PIPE_GAIN BDPs in flight), DRAIN empties the queue it
 * built, PROBE_BW cycles through the pacing gains 1.25, 0.75 and six of 1,
 * one phase per base RTT, and PROBE_RTT drains to BDP / 2 for
 * PROBE_RTT_NS when the base RTT was not seen for MIN_RTT_WIN_NS.  Losses
 * above LOSS_PCT of a probing flight and ECN marks set bounds on what is in
 * flight (BBRv3's inflight_hi and inflight_lo); random losses below it only
 * lower bw_lo to what the last round delivered.
 */
#define ERI_SIM_CC_BBR_UNIT		1024
#define ERI_SIM_CC_BBR_STARTUP_GAIN	2837	/* 2.77 = 4 ln 2 */
#define ERI_SIM_CC_BBR_DRAIN_GAIN	358	/* 0.35 */
#define ERI_SIM_CC_BBR_CWND_GAIN	2048	/* 2 */
#define ERI_SIM_CC_BBR_PROBE_UP_GAIN	1280	/* CYCLE[0], 1.25 */
#define ERI_SIM_CC_BBR_PROBE_DOWN_GAIN	768	/* CYCLE[1], 0.75 */
#define ERI_SIM_CC_BBR_CYCLE_LEN	8
#define ERI_SIM_CC_BBR_BW_WIN_ROUNDS	10
#define ERI_SIM_CC_BBR_MIN_RTT_WIN_NS	(5ULL * 1000 * 1000 * 1000)
#define ERI_SIM_CC_BBR_PROBE_RTT_NS	(200ULL * 1000 * 1000)
#define ERI_SIM_CC_BBR_PROBE_RTT_GAIN	512	/* cwnd BDP / 2 */
#define ERI_SIM_CC_BBR_FULL_BW_GROWTH	1280	/* 1.25 */
#define ERI_SIM_CC_BBR_FULL_BW_ROUNDS	3
#define ERI_SIM_CC_BBR_FULL_PIPE_GAIN	1280	/* 1.25 BDP in flight */
#define ERI_SIM_CC_BBR_MIN_CWND		4
#define ERI_SIM_CC_BBR_INIT_CWND	16
#define ERI_SIM_CC_BBR_INIT_SRTT_NS	(1000ULL * 1000)
#define ERI_SIM_CC_BBR_PACING_PCT	99	/* 1% margin */
#define ERI_SIM_CC_BBR_LOSS_PCT		2	/* LOSS_THRESH */
#define ERI_SIM_CC_BBR_LOSS_MIN		2
#define ERI_SIM_CC_BBR_STARTUP_LOSS_MIN	6
#define ERI_SIM_CC_BBR_BETA		717	/* 0.7 */
#define ERI_SIM_CC_BBR_HEADROOM		154	/* 0.15 */
#define ERI_SIM_CC_BBR_ECN_ALPHA_SHIFT	4	/* gain 1/16 */
#define ERI_SIM_CC_BBR_ECN_FACTOR_DIV	3	/* 1/3 */
#define ERI_SIM_CC_BBR_ECN_THRESH	512	/* 0.5 */
#define ERI_SIM_CC_BBR_STARTUP_CE_ROUNDS 2
#define ERI_SIM_CC_BBR_ACK_AGG_ROUNDS	5	/* per slot; two slots */
#define ERI_SIM_CC_BBR_ACK_AGG_MAX_NS	(100ULL * 1000 * 1000)
#define ERI_SIM_CC_BBR_QUANTA		3	/* send quanta in the window */
#define ERI_SIM_CC_BBR_PROBE_UP_EXTRA	2	/* packets more in phase 0 */
#define ERI_SIM_CC_BBR_QUEUE_GAIN	2048	/* 2 min_rtt */
#define ERI_SIM_CC_BBR_QUEUE_SAMPLES	16	/* RTT samples, while cruising */
#define ERI_SIM_CC_BBR_QUEUE_BETA	870	/* 0.85 */
#define ERI_SIM_CC_BBR_NONE		U32_MAX	/* no bound, no min_rtt */

enum eri_sim_cc_bbr_mode {
	ERI_SIM_CC_BBR_STARTUP,
	ERI_SIM_CC_BBR_DRAIN,
	ERI_SIM_CC_BBR_PROBE_BW,
	ERI_SIM_CC_BBR_PROBE_RTT,
};

/**
 * struct eri_sim_cc_bbr - bbr's state per QP
 * @max_bw: windowed maximum of delivery-rate samples, by round
 * @delivered: PSNs delivered, on the scoreboard's count (rate samples)
 * @next_round_delivered: @delivered at which the current round ends
 * @phase_ns: when PROBE_BW's phase started
 * @min_rtt_stamp_ns: when @min_rtt_us was taken (or PROBE_RTT ended)
 * @probe_rtt_ns: end of the current PROBE_RTT; 0 until it is timed
 * @ack_epoch_ns: start of the ACK-aggregation epoch
 * @min_rtt_us: the base RTT; ERI_SIM_CC_BBR_NONE before a sample
 * @round: rounds (round trips of delivery) since init
 * @full_bw: the best @max_bw of STARTUP's growth check
 * @inflight_hi: upper bound on packets in flight; NONE: none
 * @inflight_lo: lower-bound model of packets in flight; NONE: none
 * @bw_lo: lower-bound model of the bandwidth; NONE: none
 * @probe_up_step: packets @inflight_hi grows by next in phase 0
 * @bw_latest: largest rate sample of the current round
 * @inflight_latest: largest rs.delivered of the current round
 * @round_lost: PSNs declared lost in the current round
 * @round_acked: PSNs delivered in the current round
 * @round_ce_acked: of those, delivered by ACKs that echoed CE
 * @queue_min_rtt_us: the least RTT sample taken while cruising since the
 *	standing-queue check last ran, @min_rtt_us was taken or the model
 *	was reset; NONE: none
 * @ecn_alpha: EWMA of the rounds' CE ratios, 1/1024
 * @extra_acked: ACK aggregation: PSNs acknowledged beyond the model's
 *	expectation, largest of each of two slots of ACK_AGG_ROUNDS rounds
 * @extra_acked_round: the round the current slot started
 * @ack_epoch_acked: PSNs acknowledged in the epoch
 * @rto_streak: timeouts since the last delivery
 * @probe_rtt_round: the round PROBE_RTT's timing started in
 * @probe_rtt_cwnd: the window, in packets, when PROBE_RTT started
 * @seed: the QP's seed, for PROBE_BW's first phase
 * @mode: enum eri_sim_cc_bbr_mode
 * @phase: PROBE_BW's phase, index into the cycle of gains
 * @full_bw_cnt: rounds in a row @max_bw grew by less than FULL_BW_GROWTH
 * @startup_ce_rounds: rounds in a row with a CE ratio above ECN_THRESH
 * @extra_slot: the current slot of @extra_acked
 * @queue_samples: RTT samples in @queue_min_rtt_us, up to QUEUE_SAMPLES
 * @full_bw_reached: STARTUP ended
 * @round_start: this ACK started a round
 * @cut_in_round: a cut was counted in the current round
 */
struct eri_sim_cc_bbr {
	struct minmax max_bw;
	u64 delivered;
	u64 next_round_delivered;
	u64 phase_ns;
	u64 min_rtt_stamp_ns;
	u64 probe_rtt_ns;
	u64 ack_epoch_ns;
	u32 min_rtt_us;
	u32 round;
	u32 full_bw;
	u32 inflight_hi;
	u32 inflight_lo;
	u32 bw_lo;
	u32 probe_up_step;
	u32 bw_latest;
	u32 inflight_latest;
	u32 round_lost;
	u32 round_acked;
	u32 round_ce_acked;
	u32 queue_min_rtt_us;
	u32 ecn_alpha;
	u32 extra_acked[2];
	u32 extra_acked_round;
	u32 ack_epoch_acked;
	u32 rto_streak;
	u32 probe_rtt_round;
	u32 probe_rtt_cwnd;
	u32 seed;
	u8 mode;
	u8 phase;
	u8 full_bw_cnt;
	u8 startup_ce_rounds;
	u8 extra_slot;
	u8 queue_samples;
	bool full_bw_reached;
	bool round_start;
	bool cut_in_round;
};

static inline struct eri_sim_cc_bbr *eri_sim_cc_bbr(struct eri_sim_cc *cc)
{
	return eri_sim_cc_priv(cc, struct eri_sim_cc_bbr);
}

static inline const struct eri_sim_cc_bbr *
eri_sim_cc_bbr_c(const struct eri_sim_cc *cc)
{
	return eri_sim_cc_priv(cc, const struct eri_sim_cc_bbr);
}

#endif /* _ERI_SIM_CC_BBR_H_ */
