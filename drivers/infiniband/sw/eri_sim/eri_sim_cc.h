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
#include <linux/build_bug.h>
#include <linux/eri/eri_admin_defs.h>
#include <linux/stddef.h>
#include <linux/types.h>

/*
 * The default algorithm, by name: bbr models the path by its delivery rate
 * and least RTT, which RTT samples that swing by milliseconds (an emulated
 * or overcommitted CPU) and random losses leave standing; Swift's delay
 * target does not cope with such samples, and DCQCN needs ECN marks that
 * most paths never set.  A fixed window never backs off.
 */
#define ERI_SIM_CC_DEFAULT	"bbr"

/* Fraction bits of a window in packets. */
#define ERI_SIM_CC_FP_SHIFT	16
#define ERI_SIM_CC_ONE		BIT(ERI_SIM_CC_FP_SHIFT)

/* Most packets any algorithm lets a QP have in flight. */
#define ERI_SIM_CC_MAX_WND	256
/* Fewest packets eri_sim_cc_window() allows in flight. */
#define ERI_SIM_CC_MIN_WND	1
/* The window of ERI_SIM_CC_FIXED, the transport's window before the engine. */
#define ERI_SIM_CC_FIXED_WND	128
/*
 * The send quantum: the packets pacing releases at once, the pacing rate's
 * bytes of QUANTUM_NS in full packets, within [QUANTUM_MIN, QUANTUM_MAX];
 * QUANTUM_MAX for a QP that is not paced.  QUANTUM_MAX is what one
 * super-packet holds at most (ERI_SIM_GSO_MAX_SEGS).
 */
#define ERI_SIM_CC_QUANTUM_NS	(1000ULL * 1000)
#define ERI_SIM_CC_QUANTUM_MIN	2
#define ERI_SIM_CC_QUANTUM_MAX	64
/* RTT samples above this are taken as bogus and ignored (about 17 s). */
#define ERI_SIM_CC_MAX_RTT_NS	BIT_ULL(34)
/* min_rtt is the smallest RTT sampled within about this long (10 s). */
#define ERI_SIM_CC_MIN_RTT_WIN_NS (10ULL * 1000 * 1000 * 1000)
/* Retransmission timeout before the first RTT sample (before clamping). */
#define ERI_SIM_CC_INIT_RTO_NS	(10ULL * 1000 * 1000)

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

/**
 * struct eri_sim_cc - congestion-control state of one queue pair
 * @ops: the algorithm, fixed at eri_sim_cc_init()
 * @mtu: payload bytes of a full packet
 * @wire: bytes of a full packet on the wire: @mtu and its headers
 *	(ERI_PKT_OVERHEAD_*), what pacing counts
 * @cwnd: congestion window in packets, ERI_SIM_CC_FP_SHIFT fraction bits
 * @quantum: packets pacing releases at once (eri_sim_cc_quantum())
 * @pacing_rate: bytes per second on the wire, headers included; 0: not
 *	paced
 * @next_send_ns: earliest departure of the next packet
 * @pace_debt_ns: sending time a late host took from the QP and not yet
 *	made up (eri_sim_cc_owe()), at most @srtt_ns
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
 * @undos: timeouts found spurious (eri_sim_cc_undo()) since
 *	eri_sim_cc_init()
 * @prior_cwnd: @cwnd before the first of the timeouts not yet found
 *	genuine or spurious; 0: none
 * @undo_lost: PSNs those timeouts declared lost
 * @priv: the algorithm's own state (eri_sim_cc_priv())
 *
 * Embedded in the QP and serialized by its lock (qp->lock): every function
 * below must be called with it held.  The fields above @priv may be read
 * for counters under the same lock.
 */
struct eri_sim_cc {
	const struct eri_sim_cc_ops *ops;
	u32 mtu;
	u32 wire;
	u32 cwnd;
	u32 quantum;
	u64 pacing_rate;
	u64 next_send_ns;
	u64 pace_debt_ns;
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
	u64 undos;
	u32 prior_cwnd;
	u32 undo_lost;
	u64 priv[24];
};

/* Fraction bits of a delivery rate in packets per microsecond. */
#define ERI_SIM_CC_BW_SHIFT	24

/**
 * struct eri_sim_cc_rs - a delivery-rate sample (as TCP's tcp_rate.c)
 * @prior_delivered: PSNs delivered when the sampled PSN was sent
 * @interval_ns: max(send interval, ACK interval) @bw spans
 * @delivered: PSNs delivered since the sampled PSN was sent
 * @lost: PSNs declared lost over it
 * @tx_in_flight: the pipe after the sampled PSN was sent
 * @bw: PSNs delivered over @interval_ns in packets per microsecond,
 *	ERI_SIM_CC_BW_SHIFT fraction bits, at most U32_MAX: @delivered, or at
 *	least ERI_SIM_RATE_MIN_PKTS PSNs when @delivered is fewer and the
 *	snapshots allow (eri_sim_sb_rate_sample())
 * @app_limited: the sampled PSN was sent while application limited, so
 *	the sample may be below what the path delivers
 * @early: the span's PSNs include some sent ahead of the pacing rate
 *	(eri_sim_sb_early()), whose ACKs a host's stall may have bunched, so
 *	@bw may be up to twice what the path delivers: it shows what was
 *	delivered, never a bandwidth to model
 * @valid: the fields above hold a sample; false: no sample (nothing
 *	delivered, none of the PSNs delivered has its snapshot, or the
 *	interval is shorter than min_rtt, under 1 us or longer than 2^31 ns)
 */
struct eri_sim_cc_rs {
	u64 prior_delivered;
	u64 interval_ns;
	u32 delivered;
	u32 lost;
	u32 tx_in_flight;
	u32 bw;
	bool app_limited;
	bool early;
	bool valid;
};

/**
 * struct eri_sim_cc_ack - what one ACK tells the algorithm
 * @now_ns: the current time
 * @rtt_ns: RTT sample from the echoed timestamp, 0 for none
 * @acked: packets newly acknowledged, cumulatively or selectively
 * @lost: packets newly declared lost by the ACK (fast retransmit)
 * @inflight: packets still in flight after the ACK's deliveries (the pipe
 *	before the PSNs it declared lost are taken out)
 * @ce: the ACK echoed an ECN CE mark (or a response arrived CE marked)
 * @rs: the ACK's delivery-rate sample; @rs.valid false: none
 */
struct eri_sim_cc_ack {
	u64 now_ns;
	u64 rtt_ns;
	u32 acked;
	u32 lost;
	u32 inflight;
	bool ce;
	struct eri_sim_cc_rs rs;
};

/**
 * struct eri_sim_cc_ops - a congestion-control algorithm
 * @name: unique, [a-z0-9_], at most ERI_CC_NAME_MAX - 1 characters; what
 *	QUERY_CC tells the driver and the driver's knob shows
 * @flags: ERI_CC_DESC_ECN (reacts to ECN marks), ERI_CC_DESC_PACED (paces)
 * @init: start a QP's state; the engine has zeroed it and the shared
 *	fields.  @seed differs between the QPs of a device (their QPN)
 * @on_ack: an ACK's events, after the engine updated the RTT estimator
 *	and its counters
 * @on_timeout: the retransmission timer fired; @lost: packets it declared
 *	lost, 0 if not known
 * @undo: optional: the timeouts since @prior_cwnd was the window were
 *	spurious, the @lost packets they declared lost were delivered: take
 *	back what they changed.  Without it the state after them stays.
 * @window: packets allowed in flight (the engine clamps it)
 * @mode: optional: the algorithm's mode, [a-z0-9_], at most
 *	ERI_CC_NAME_MAX - 1 characters (QUERY_QP_CC, the tracepoint)
 * @bw: optional: the algorithm's bandwidth estimate, wire bytes per
 *	second; 0: none yet
 * @bounds: optional: its bounds on packets in flight, ERI_QP_CC_NONE for
 *	one it has not set (bbr's inflight_hi and inflight_lo)
 * @index: the registry's slot, set by eri_sim_cc_register(); the number
 *	SET_CC, QUERY_QP and QUERY_DEVICE's cc_algos use
 *
 * Every callback runs under the QP's lock, must not sleep nor allocate, and
 * keeps its state in &eri_sim_cc.priv.
 */
struct eri_sim_cc_ops {
	char name[ERI_CC_NAME_MAX];
	u32 flags;
	void (*init)(struct eri_sim_cc *cc, u64 now_ns, u32 seed);
	void (*on_ack)(struct eri_sim_cc *cc, const struct eri_sim_cc_ack *ack);
	void (*on_timeout)(struct eri_sim_cc *cc, u64 now_ns, u32 lost);
	void (*undo)(struct eri_sim_cc *cc, u32 prior_cwnd, u32 lost);
	u32 (*window)(const struct eri_sim_cc *cc);
	const char *(*mode)(const struct eri_sim_cc *cc);
	u64 (*bw)(const struct eri_sim_cc *cc);
	void (*bounds)(const struct eri_sim_cc *cc, u32 *hi, u32 *lo);
	u8 index;
};

/* An algorithm's state in &eri_sim_cc.priv, checked for size at build time. */
#define eri_sim_cc_priv(cc, type)					\
	({								\
		static_assert(sizeof(type) <=				\
			      sizeof_field(struct eri_sim_cc, priv));	\
		(type *)(cc)->priv;					\
	})

int eri_sim_cc_register(struct eri_sim_cc_ops *ops);
void eri_sim_cc_unregister(struct eri_sim_cc_ops *ops);
const struct eri_sim_cc_ops *eri_sim_cc_find(const char *name);
const struct eri_sim_cc_ops *eri_sim_cc_get(unsigned int index);
const struct eri_sim_cc_ops *eri_sim_cc_default(void);
u32 eri_sim_cc_algos(void);
int eri_sim_cc_register_builtins(void);
void eri_sim_cc_unregister_builtins(void);

void eri_sim_cc_init(struct eri_sim_cc *cc, const struct eri_sim_cc_ops *ops,
		     u32 mtu, u32 hdrs, u64 now_ns, u32 seed);
void eri_sim_cc_set_mtu(struct eri_sim_cc *cc, u32 mtu);
void eri_sim_cc_rtt_sample(struct eri_sim_cc *cc, u64 now_ns, u64 rtt_ns);
void eri_sim_cc_ack(struct eri_sim_cc *cc, const struct eri_sim_cc_ack *ack);
void eri_sim_cc_on_ack(struct eri_sim_cc *cc, u64 now_ns, u64 rtt_ns,
		       u32 acked_pkts, u32 inflight_pkts);
void eri_sim_cc_on_ecn(struct eri_sim_cc *cc, u64 now_ns);
void eri_sim_cc_on_loss(struct eri_sim_cc *cc, u64 now_ns);
void eri_sim_cc_on_timeout(struct eri_sim_cc *cc, u64 now_ns, u32 lost);
void eri_sim_cc_undo(struct eri_sim_cc *cc);
void eri_sim_cc_keep(struct eri_sim_cc *cc);
u32 eri_sim_cc_window(const struct eri_sim_cc *cc);
u64 eri_sim_cc_next_send_ns(const struct eri_sim_cc *cc);
u32 eri_sim_cc_quantum(const struct eri_sim_cc *cc);
u64 eri_sim_cc_sent(struct eri_sim_cc *cc, u64 now_ns, u32 bytes);
void eri_sim_cc_owe(struct eri_sim_cc *cc, u64 ns);
u64 eri_sim_cc_srtt_ns(const struct eri_sim_cc *cc);
u64 eri_sim_cc_rto_ns(const struct eri_sim_cc *cc, u64 min_ns, u64 max_ns);
const char *eri_sim_cc_mode(const struct eri_sim_cc *cc);
u64 eri_sim_cc_bw(const struct eri_sim_cc *cc);
void eri_sim_cc_query(const struct eri_sim_cc *cc, struct eri_qp_cc *out);

/* The built-in algorithms, for eri_sim_cc.c and the KUnit tests. */
extern struct eri_sim_cc_ops eri_sim_cc_swift_ops;
extern struct eri_sim_cc_ops eri_sim_cc_dcqcn_ops;
extern struct eri_sim_cc_ops eri_sim_cc_fixed_ops;
extern struct eri_sim_cc_ops eri_sim_cc_bbr_ops;

void eri_sim_cc_wmin_reset(struct eri_sim_cc_wmin *w, u64 now_ns);
u64 eri_sim_cc_wmin_update(struct eri_sim_cc_wmin *w, u64 now_ns,
			   u64 win_ns, u64 sample);
u64 eri_sim_cc_rate(u32 cwnd, u32 mtu, u64 rtt_ns, u32 gain);

#endif /* _ERI_SIM_CC_H_ */
