/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * eri_sim congestion control: a per-QP engine with pluggable algorithms.
 *
 * The transport reports events (an ACK with an RTT sample, an ECN echo, a
 * loss inferred from SACK, a retransmission timeout) and asks for a window
 * (packets allowed in flight) and a pacing time (when the next packet may
 * leave).  The engine is pure logic: it takes no lock (the caller holds the
 * QP's lock, qp->lock, around every call, which serializes all of a QP's
 * state), allocates nothing and never reads a clock: time comes in as
 * @now_ns, nanoseconds on one monotonic u64 clock (ktime_get_ns() in the
 * device), so tests can script it.
 *
 * Windows are kept in fixed point, ERI_SIM_CC_FP_SHIFT fraction bits, so a
 * window can shrink below one packet; pacing enforces such a window.
 */
#ifndef _ERI_SIM_CC_H_
#define _ERI_SIM_CC_H_

#include <linux/bits.h>
#include <linux/types.h>

enum eri_sim_cc_algo {
	ERI_SIM_CC_SWIFT = 0,	/* delay-based window (Swift-style) */
	ERI_SIM_CC_DCQCN = 1,	/* ECN-driven rate (DCQCN-like) */
	ERI_SIM_CC_FIXED = 2,	/* constant window, no pacing */
	ERI_SIM_CC_NUM
};

/*
 * The default: Swift's delay target does not cope with hosts whose RTT
 * swings by milliseconds (an emulated or overcommitted CPU), where it cuts
 * the window to a fraction of a packet.  A fixed window does.
 */
#define ERI_SIM_CC_DEFAULT	ERI_SIM_CC_FIXED

/* Fraction bits of a window in packets. */
#define ERI_SIM_CC_FP_SHIFT	16
#define ERI_SIM_CC_ONE		BIT(ERI_SIM_CC_FP_SHIFT)

/* Most packets any algorithm lets a QP have in flight. */
#define ERI_SIM_CC_MAX_WND	256
/* Fewest packets eri_sim_cc_window() allows in flight. */
#define ERI_SIM_CC_MIN_WND	1
/* The window of ERI_SIM_CC_FIXED, the transport's window before the engine. */
#define ERI_SIM_CC_FIXED_WND	128
/* Packets a paced sender may send back to back after being idle. */
#define ERI_SIM_CC_PACE_BURST	4
/* RTT samples above this are taken as bogus and ignored (about 17 s). */
#define ERI_SIM_CC_MAX_RTT_NS	BIT_ULL(34)
/* min_rtt is the smallest RTT sampled within about this long (10 s). */
#define ERI_SIM_CC_MIN_RTT_WIN_NS (10ULL * 1000 * 1000 * 1000)
/* Retransmission timeout before the first RTT sample (before clamping). */
#define ERI_SIM_CC_INIT_RTO_NS	(10ULL * 1000 * 1000)

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

/*
 * DCQCN: rates in bytes per second, starting at LINE_RATE.  A CNP (ECN echo)
 * cuts the rate by alpha / 2 at most once per max(CUT_INTERVAL_NS, srtt) and
 * raises alpha by G; every ALPHA_PERIOD_NS without a CNP alpha decays by G.
 * Every INC_PERIOD_NS and every INC_BYTES acknowledged is an increase event:
 * the first FR_STEPS of either kind are fast recovery (rate halfway back to
 * the target), then additive increase (target + RAI), once both kinds passed
 * FR_STEPS hyper increase (target + i * RHAI).  Alpha and G are in 1/1024.
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
/* Increase or decay periods one call applies at most (after long idling). */
#define ERI_SIM_CC_DCQCN_MAX_CATCHUP	64

/**
 * struct eri_sim_cc_wmin - a windowed minimum of u64 samples
 * @v: the smallest sample of the current bucket ([0]) and of the one before
 *	([1]); U64_MAX for none
 * @start_ns: when the current bucket started
 *
 * Time is cut into buckets of half the window; the minimum is that of the
 * current and the previous bucket, so it covers the last half window at
 * least and the last window at most.  See eri_sim_cc_wmin_update().
 */
struct eri_sim_cc_wmin {
	u64 v[2];
	u64 start_ns;
};

struct eri_sim_cc_swift {
	u32 ssthresh;		/* fixed point; slow start below it */
	u32 round_losses;	/* losses since round_start_ns */
	u64 round_start_ns;
	u64 next_cut_ns;	/* no cut before this */
	u64 delay_ns;		/* standing delay; 0: no sample yet */
	struct eri_sim_cc_wmin standing;	/* behind delay_ns */
};

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

/**
 * struct eri_sim_cc - congestion-control state of one queue pair
 * @algo: the algorithm, fixed at eri_sim_cc_init()
 * @mtu: payload bytes of a full packet
 * @cwnd: congestion window in packets, ERI_SIM_CC_FP_SHIFT fraction bits
 * @pacing_rate: bytes per second; 0: not paced
 * @next_send_ns: earliest departure of the next packet
 * @srtt_ns: smoothed RTT (RFC 6298, in ns, shared by the algorithms); 0
 *	before the first sample
 * @rttvar_ns: RTT variation (RFC 6298, in ns)
 * @min_rtt_ns: the lowest RTT sampled within the last ERI_SIM_CC_MIN_RTT_WIN_NS
 *	(at least half of it); 0 before the first sample
 * @min_rtt: the windowed minimum behind @min_rtt_ns
 * @rtt_samples: RTT samples taken since eri_sim_cc_init()
 * @rtt_sum_ns: their sum, for a mean RTT
 * @delivered: packets acknowledged since eri_sim_cc_init()
 * @acks: eri_sim_cc_on_ack() calls since eri_sim_cc_init()
 * @ecn_echoes: ACKs that echoed a CE mark since eri_sim_cc_init()
 * @losses: fast retransmits (loss inferred from SACK) since eri_sim_cc_init()
 * @timeouts: retransmission timeouts since eri_sim_cc_init()
 * @cuts: window or rate reductions since eri_sim_cc_init()
 * @swift: Swift's own state
 * @dcqcn: DCQCN's own state
 *
 * Embedded in the QP and serialized by its lock (qp->lock): every function
 * below must be called with it held.  The fields above the union may be read
 * for counters under the same lock.
 */
struct eri_sim_cc {
	enum eri_sim_cc_algo algo;
	u32 mtu;
	u32 cwnd;
	u64 pacing_rate;
	u64 next_send_ns;
	u64 srtt_ns;
	u64 rttvar_ns;
	u64 min_rtt_ns;
	struct eri_sim_cc_wmin min_rtt;
	u64 rtt_samples;
	u64 rtt_sum_ns;
	u64 delivered;
	u64 acks;
	u64 ecn_echoes;
	u64 losses;
	u64 timeouts;
	u64 cuts;
	union {
		struct eri_sim_cc_swift swift;
		struct eri_sim_cc_dcqcn dcqcn;
	};
};

void eri_sim_cc_init(struct eri_sim_cc *cc, enum eri_sim_cc_algo algo,
		     u32 mtu, u64 now_ns);
void eri_sim_cc_on_ack(struct eri_sim_cc *cc, u64 now_ns, u64 rtt_ns,
		       u32 acked_pkts, u32 inflight_pkts);
void eri_sim_cc_on_ecn(struct eri_sim_cc *cc, u64 now_ns);
void eri_sim_cc_on_loss(struct eri_sim_cc *cc, u64 now_ns);
void eri_sim_cc_on_timeout(struct eri_sim_cc *cc, u64 now_ns);
u32 eri_sim_cc_window(const struct eri_sim_cc *cc);
u64 eri_sim_cc_next_send_ns(const struct eri_sim_cc *cc);
void eri_sim_cc_sent(struct eri_sim_cc *cc, u64 now_ns, u32 bytes);
u64 eri_sim_cc_srtt_ns(const struct eri_sim_cc *cc);
u64 eri_sim_cc_rto_ns(const struct eri_sim_cc *cc, u64 min_ns, u64 max_ns);
const char *eri_sim_cc_algo_name(enum eri_sim_cc_algo algo);

/* Internal: the algorithms, for eri_sim_cc.c and the KUnit tests. */
struct eri_sim_cc_ops {
	const char *name;
	void (*init)(struct eri_sim_cc *cc, u64 now_ns);
	void (*on_ack)(struct eri_sim_cc *cc, u64 now_ns, u64 rtt_ns,
		       u32 acked_pkts, u32 inflight_pkts);
	void (*on_ecn)(struct eri_sim_cc *cc, u64 now_ns);
	void (*on_loss)(struct eri_sim_cc *cc, u64 now_ns);
	void (*on_timeout)(struct eri_sim_cc *cc, u64 now_ns);
	u32 (*window)(const struct eri_sim_cc *cc);
};

extern const struct eri_sim_cc_ops eri_sim_cc_swift_ops;
extern const struct eri_sim_cc_ops eri_sim_cc_dcqcn_ops;

void eri_sim_cc_wmin_reset(struct eri_sim_cc_wmin *w, u64 now_ns);
u64 eri_sim_cc_wmin_update(struct eri_sim_cc_wmin *w, u64 now_ns,
			   u64 win_ns, u64 sample);
u64 eri_sim_cc_rate(u32 cwnd, u32 mtu, u64 rtt_ns, u32 gain);

#endif /* _ERI_SIM_CC_H_ */
