// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim congestion control: the engine.  It dispatches a QP's events to
 * its algorithm, keeps the RTT estimator the algorithms share and paces
 * departures at the rate the algorithm set.  See eri_sim_cc.h for the rules
 * (caller holds qp->lock, time passed in, no allocation).
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/time64.h>

#include <asm/byteorder.h>

#include "eri_sim_cc.h"

/*
 * The registry: algorithms by slot.  A slot's index is the number the
 * device's admin commands carry; an unregistered slot stays empty, so
 * indexes never move.  Built-in algorithms are registered at module load
 * and unregistered at module exit, after every device is gone: a QP's ops
 * pointer, taken under the mutex at CREATE_QP, stays valid for its life.
 */
static DEFINE_MUTEX(eri_sim_cc_lock);
static struct eri_sim_cc_ops *eri_sim_cc_slots[ERI_CC_MAX_ALGOS];

static bool eri_sim_cc_name_ok(const char *name)
{
	size_t i, len = strnlen(name, ERI_CC_NAME_MAX);

	if (!len || len == ERI_CC_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!islower(name[i]) && !isdigit(name[i]) && name[i] != '_')
			return false;
	return true;
}

static struct eri_sim_cc_ops *eri_sim_cc_find_locked(const char *name)
{
	unsigned int i;

	lockdep_assert_held(&eri_sim_cc_lock);
	for (i = 0; i < ERI_CC_MAX_ALGOS; i++)
		if (eri_sim_cc_slots[i] &&
		    !strcmp(eri_sim_cc_slots[i]->name, name))
			return eri_sim_cc_slots[i];
	return NULL;
}

/**
 * eri_sim_cc_register() - offer a congestion-control algorithm
 * @ops: the algorithm; its @name and callbacks set, @index is set here
 *
 * It takes the first free slot, which is its index until it is
 * unregistered.  Devices offer it from their next QUERY_DEVICE on.
 *
 * Return: 0; -EINVAL for a name outside [a-z0-9_]{1,15} or a missing
 * callback, -EEXIST for a name already registered, -ENOSPC with all
 * ERI_CC_MAX_ALGOS slots taken.
 */
int eri_sim_cc_register(struct eri_sim_cc_ops *ops)
{
	unsigned int i;
	int ret = -ENOSPC;

	if (!eri_sim_cc_name_ok(ops->name) || !ops->init || !ops->on_ack ||
	    !ops->on_timeout || !ops->window)
		return -EINVAL;
	mutex_lock(&eri_sim_cc_lock);
	if (eri_sim_cc_find_locked(ops->name)) {
		ret = -EEXIST;
		goto out_unlock;
	}
	for (i = 0; i < ERI_CC_MAX_ALGOS; i++) {
		if (!eri_sim_cc_slots[i]) {
			ops->index = i;
			eri_sim_cc_slots[i] = ops;
			ret = 0;
			break;
		}
	}
out_unlock:
	mutex_unlock(&eri_sim_cc_lock);
	return ret;
}

/**
 * eri_sim_cc_unregister() - withdraw an algorithm
 * @ops: a registered algorithm, used by no QP and no device
 *
 * Its slot stays empty until a registration takes it.
 */
void eri_sim_cc_unregister(struct eri_sim_cc_ops *ops)
{
	mutex_lock(&eri_sim_cc_lock);
	if (!WARN_ON_ONCE(ops->index >= ERI_CC_MAX_ALGOS ||
			  eri_sim_cc_slots[ops->index] != ops))
		eri_sim_cc_slots[ops->index] = NULL;
	mutex_unlock(&eri_sim_cc_lock);
}

/**
 * eri_sim_cc_find() - an algorithm by name
 * @name: its name
 *
 * Context: process, may sleep.
 * Return: the algorithm, or NULL.
 */
const struct eri_sim_cc_ops *eri_sim_cc_find(const char *name)
{
	const struct eri_sim_cc_ops *ops;

	mutex_lock(&eri_sim_cc_lock);
	ops = eri_sim_cc_find_locked(name);
	mutex_unlock(&eri_sim_cc_lock);
	return ops;
}

/**
 * eri_sim_cc_get() - an algorithm by index
 * @index: its slot
 *
 * Context: process, may sleep.
 * Return: the algorithm, or NULL for an empty slot or an index out of range.
 */
const struct eri_sim_cc_ops *eri_sim_cc_get(unsigned int index)
{
	const struct eri_sim_cc_ops *ops = NULL;

	if (index >= ERI_CC_MAX_ALGOS)
		return NULL;
	mutex_lock(&eri_sim_cc_lock);
	ops = eri_sim_cc_slots[index];
	mutex_unlock(&eri_sim_cc_lock);
	return ops;
}

/**
 * eri_sim_cc_default() - the algorithm a device starts with
 *
 * Context: process, may sleep.
 * Return: ERI_SIM_CC_DEFAULT's algorithm, which the built-ins include.
 */
const struct eri_sim_cc_ops *eri_sim_cc_default(void)
{
	return eri_sim_cc_find(ERI_SIM_CC_DEFAULT) ?: &eri_sim_cc_fixed_ops;
}

/**
 * eri_sim_cc_algos() - the registered algorithms
 *
 * Context: process, may sleep.
 * Return: BIT(index) of each, QUERY_DEVICE's cc_algos.
 */
u32 eri_sim_cc_algos(void)
{
	unsigned int i;
	u32 algos = 0;

	mutex_lock(&eri_sim_cc_lock);
	for (i = 0; i < ERI_CC_MAX_ALGOS; i++)
		if (eri_sim_cc_slots[i])
			algos |= BIT(i);
	mutex_unlock(&eri_sim_cc_lock);
	return algos;
}

/*
 * In this order: the indexes 0 to 2 are those SET_CC always carried; later
 * algorithms take the next ones.
 */
static struct eri_sim_cc_ops *const eri_sim_cc_builtins[] = {
	&eri_sim_cc_swift_ops,
	&eri_sim_cc_dcqcn_ops,
	&eri_sim_cc_fixed_ops,
	&eri_sim_cc_bbr_ops,
};

/**
 * eri_sim_cc_register_builtins() - register the module's algorithms
 *
 * Return: 0 or a negative errno, nothing registered then.
 */
int eri_sim_cc_register_builtins(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(eri_sim_cc_builtins); i++) {
		ret = eri_sim_cc_register(eri_sim_cc_builtins[i]);
		if (ret)
			goto err_unregister;
	}
	return 0;

err_unregister:
	while (i--)
		eri_sim_cc_unregister(eri_sim_cc_builtins[i]);
	return ret;
}

/**
 * eri_sim_cc_unregister_builtins() - undo eri_sim_cc_register_builtins()
 */
void eri_sim_cc_unregister_builtins(void)
{
	unsigned int i = ARRAY_SIZE(eri_sim_cc_builtins);

	while (i--)
		eri_sim_cc_unregister(eri_sim_cc_builtins[i]);
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

/*
 * The send quantum follows the pacing rate, which only the algorithm's
 * callbacks change: QUANTUM_NS of it in full packets.
 */
static void eri_sim_cc_set_quantum(struct eri_sim_cc *cc)
{
	u64 q = ERI_SIM_CC_QUANTUM_MAX;

	if (cc->pacing_rate)
		q = div64_u64(cc->pacing_rate, (u64)cc->wire *
			      (NSEC_PER_SEC / ERI_SIM_CC_QUANTUM_NS));
	cc->quantum = clamp_t(u64, q, ERI_SIM_CC_QUANTUM_MIN,
			      ERI_SIM_CC_QUANTUM_MAX);
}

/**
 * eri_sim_cc_init() - start a QP's congestion control
 * @cc: the state, of a QP not yet sending (or under qp->lock)
 * @ops: the algorithm (it may be @cc->ops); NULL gives fixed
 * @mtu: payload bytes of a full packet (at least 1 is used)
 * @hdrs: bytes of headers each packet adds on the wire (IP, UDP, ERI:
 *	ERI_PKT_OVERHEAD_IPV4 or _IPV6)
 * @now_ns: the current time
 * @seed: differs between a device's QPs (the QPN), for algorithms that
 *	spread QPs apart
 */
void eri_sim_cc_init(struct eri_sim_cc *cc, const struct eri_sim_cc_ops *ops,
		     u32 mtu, u32 hdrs, u64 now_ns, u32 seed)
{
	memset(cc, 0, sizeof(*cc));
	cc->ops = ops ?: &eri_sim_cc_fixed_ops;
	cc->mtu = clamp(mtu, 1U, 65536U);
	cc->wire = cc->mtu + min(hdrs, 65536U);
	cc->next_send_ns = now_ns;
	eri_sim_cc_wmin_reset(&cc->min_rtt, now_ns);
	cc->ops->init(cc, now_ns, seed);
	eri_sim_cc_set_quantum(cc);
}

/**
 * eri_sim_cc_set_mtu() - a QP's packets change size
 * @cc: the state, under qp->lock
 * @mtu: payload bytes of a full packet from now on (at least 1 is used)
 *
 * The QP's segments grew past its path MTU (or came back to it): the
 * conversions between packets and bytes follow (a bandwidth counted in
 * packets paced as packets of the old size would send too slowly or too
 * fast); what the algorithm learned stays.
 */
void eri_sim_cc_set_mtu(struct eri_sim_cc *cc, u32 mtu)
{
	u32 hdrs = cc->wire - cc->mtu;

	cc->mtu = clamp(mtu, 1U, 65536U);
	cc->wire = cc->mtu + hdrs;
	eri_sim_cc_set_quantum(cc);
}

/*
 * RFC 6298 smoothing with gains 1/8 and 1/4, in nanoseconds; the windowed
 * minimum; the sums behind the mean RTT.
 */
static void eri_sim_cc_rtt_update(struct eri_sim_cc *cc, u64 now_ns,
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
 * eri_sim_cc_rtt_sample() - an ACK that delivered PSNs echoed a timestamp
 * @cc: the state, under qp->lock
 * @now_ns: the current time
 * @rtt_ns: the RTT sample; 0 and samples above ERI_SIM_CC_MAX_RTT_NS are
 *	ignored
 *
 * Updates the estimator the algorithms share (srtt, rttvar, min_rtt) and
 * nothing else: the transport feeds it before it times the ACK's losses
 * and its timeout, and gives the algorithm the whole ACK afterwards with
 * eri_sim_cc_ack().
 */
void eri_sim_cc_rtt_sample(struct eri_sim_cc *cc, u64 now_ns, u64 rtt_ns)
{
	if (rtt_ns && rtt_ns <= ERI_SIM_CC_MAX_RTT_NS)
		eri_sim_cc_rtt_update(cc, now_ns, rtt_ns);
}

/**
 * eri_sim_cc_ack() - an ACK's events, all at once
 * @cc: the state, under qp->lock
 * @ack: what the ACK delivered, declared lost and echoed, and its rate
 *	sample; its RTT sample already went to eri_sim_cc_rtt_sample()
 *
 * Counts an ACK that delivered PSNs, an ECN echo and a loss (one per ACK
 * that declared PSNs lost), then hands the ACK to the algorithm.
 */
void eri_sim_cc_ack(struct eri_sim_cc *cc, const struct eri_sim_cc_ack *ack)
{
	struct eri_sim_cc_ack a = *ack;

	if (a.rtt_ns > ERI_SIM_CC_MAX_RTT_NS)
		a.rtt_ns = 0;
	if (a.acked)
		cc->acks++;
	cc->delivered += a.acked;
	if (a.ce)
		cc->ecn_echoes++;
	if (a.lost)
		cc->losses++;
	cc->ops->on_ack(cc, &a);
	eri_sim_cc_set_quantum(cc);
}

/**
 * eri_sim_cc_on_ack() - an ACK advanced the window
 * @cc: the state, under qp->lock
 * @now_ns: the current time
 * @rtt_ns: RTT sample from the echoed timestamp, 0 for none; samples above
 *	ERI_SIM_CC_MAX_RTT_NS are ignored
 * @acked_pkts: packets newly acknowledged, cumulatively or selectively
 * @inflight_pkts: packets still in flight after the ACK
 *
 * eri_sim_cc_rtt_sample() and eri_sim_cc_ack() of an ACK without a rate
 * sample, losses or marks.
 */
void eri_sim_cc_on_ack(struct eri_sim_cc *cc, u64 now_ns, u64 rtt_ns,
		       u32 acked_pkts, u32 inflight_pkts)
{
	struct eri_sim_cc_ack ack = {
		.now_ns = now_ns,
		.rtt_ns = rtt_ns,
		.acked = acked_pkts,
		.inflight = inflight_pkts,
	};

	eri_sim_cc_rtt_sample(cc, now_ns, rtt_ns);
	eri_sim_cc_ack(cc, &ack);
}

/**
 * eri_sim_cc_on_ecn() - an ACK echoed an ECN CE mark (a CNP)
 * @cc: the state, under qp->lock
 * @now_ns: the current time
 *
 * eri_sim_cc_ack() of an ACK that delivered nothing and echoed a mark.
 */
void eri_sim_cc_on_ecn(struct eri_sim_cc *cc, u64 now_ns)
{
	struct eri_sim_cc_ack ack = { .now_ns = now_ns, .ce = true };

	eri_sim_cc_ack(cc, &ack);
}

/**
 * eri_sim_cc_on_loss() - a fast retransmit: loss inferred from SACK
 * @cc: the state, under qp->lock
 * @now_ns: the current time
 *
 * eri_sim_cc_ack() of an ACK that delivered nothing and declared one PSN
 * lost.
 */
void eri_sim_cc_on_loss(struct eri_sim_cc *cc, u64 now_ns)
{
	struct eri_sim_cc_ack ack = { .now_ns = now_ns, .lost = 1 };

	eri_sim_cc_ack(cc, &ack);
}

/**
 * eri_sim_cc_on_timeout() - the retransmission timer fired
 * @cc: the state, under qp->lock
 * @now_ns: the current time
 * @lost: PSNs the timeout declared lost (eri_sim_sb_lose_all())
 */
void eri_sim_cc_on_timeout(struct eri_sim_cc *cc, u64 now_ns, u32 lost)
{
	cc->timeouts++;
	if (!cc->prior_cwnd) {
		cc->prior_cwnd = cc->cwnd;
		cc->undo_lost = 0;
	}
	cc->undo_lost += lost;
	cc->ops->on_timeout(cc, now_ns, lost);
	eri_sim_cc_set_quantum(cc);
}

/**
 * eri_sim_cc_undo() - the timeouts since the last eri_sim_cc_keep() or
 * eri_sim_cc_undo() were spurious
 * @cc: the state, under qp->lock
 *
 * A delivery proved that nothing was lost: the path was only slow (a host
 * that stalled, a queue behind a busy CPU).  The algorithm takes back the
 * cut it made (&eri_sim_cc_ops.undo).
 */
void eri_sim_cc_undo(struct eri_sim_cc *cc)
{
	cc->undos++;
	if (cc->ops->undo && cc->prior_cwnd)
		cc->ops->undo(cc, cc->prior_cwnd, cc->undo_lost);
	cc->prior_cwnd = 0;
	eri_sim_cc_set_quantum(cc);
}

/**
 * eri_sim_cc_keep() - the timeouts since the last eri_sim_cc_keep() or
 * eri_sim_cc_undo() were genuine
 * @cc: the state, under qp->lock
 *
 * A packet sent again after them was delivered, not its first copy: what
 * they changed stays.
 */
void eri_sim_cc_keep(struct eri_sim_cc *cc)
{
	cc->prior_cwnd = 0;
}

/**
 * eri_sim_cc_window() - packets the QP may have in flight
 * @cc: the state, under qp->lock
 *
 * Return: a window in [ERI_SIM_CC_MIN_WND, ERI_SIM_CC_MAX_WND].
 */
u32 eri_sim_cc_window(const struct eri_sim_cc *cc)
{
	return clamp(cc->ops->window(cc), (u32)ERI_SIM_CC_MIN_WND,
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
 * eri_sim_cc_quantum() - packets pacing releases at once
 * @cc: the state, under qp->lock
 *
 * When eri_sim_cc_next_send_ns() has come, the sender may send this many
 * packets (or fewer: the window, the route's segmentation offload) without
 * looking at the clock again, then calls eri_sim_cc_sent() once for them.
 * At high rates it is about a super-packet per millisecond.
 *
 * Return: ERI_SIM_CC_QUANTUM_NS of the pacing rate in full packets, within
 * [ERI_SIM_CC_QUANTUM_MIN, ERI_SIM_CC_QUANTUM_MAX]; ERI_SIM_CC_QUANTUM_MAX
 * when the QP is not paced.
 */
u32 eri_sim_cc_quantum(const struct eri_sim_cc *cc)
{
	return cc->quantum;
}

/**
 * eri_sim_cc_sent() - a quantum's packets left
 * @cc: the state, under qp->lock
 * @now_ns: the current time, when they left
 * @bytes: what they put on the wire, headers included (a READ or ATOMIC
 *	request: what its responses bring back too)
 *
 * The next departure is @bytes at the pacing rate after this one.  A
 * sender that was idle has a credit of one quantum's time (a quantum of
 * full packets at the rate), so after idling its next quantum may follow
 * at once; a window of one packet or less gets none, since pacing is what
 * enforces it.
 *
 * Time owed (eri_sim_cc_owe()) shortens the step by up to half.
 *
 * Return: how much later than their time they left beyond the credit (ns):
 * time the QP did not send at its pacing rate.  That is idling, or, for a
 * QP that was waiting for its time, a host that ran it late.  0 for a QP
 * not paced.
 */
u64 eri_sim_cc_sent(struct eri_sim_cc *cc, u64 now_ns, u32 bytes)
{
	u64 gap, credit = 0, base, repay, late;

	if (!cc->pacing_rate)
		return 0;
	gap = div64_u64((u64)max(bytes, 1U) * NSEC_PER_SEC, cc->pacing_rate);
	/* No overflow: quantum * wire < 2^24. */
	if (cc->cwnd > ERI_SIM_CC_ONE)
		credit = div64_u64((u64)cc->quantum * cc->wire * NSEC_PER_SEC,
				   cc->pacing_rate);
	base = now_ns > credit ? now_ns - credit : 0;
	late = base > cc->next_send_ns ? base - cc->next_send_ns : 0;
	/* Time owed goes at up to twice the rate. */
	repay = min(gap / 2, cc->pace_debt_ns);
	cc->pace_debt_ns -= repay;
	cc->next_send_ns = max(base, cc->next_send_ns) + gap - repay;
	return late;
}

/**
 * eri_sim_cc_owe() - a host that ran the QP late took sending time from it
 * @cc: the state, under qp->lock
 * @ns: what eri_sim_cc_sent() reported for a release that waited for its
 *	time
 *
 * The queue the flight held, about srtt - min_rtt of sending, kept the
 * bottleneck busy for that long of the stall: only the rest took time
 * from the path.  It is made up by the releases that follow, each at most
 * half its own time earlier, so at up to twice the pacing rate: a queue
 * that the stall emptied is filled again (eri.rst, "Pacing a late host").
 * At most the smoothed RTT (1 ms before the first sample) is owed.
 */
void eri_sim_cc_owe(struct eri_sim_cc *cc, u64 ns)
{
	u64 queued = 0;

	if (cc->min_rtt_ns && cc->srtt_ns > cc->min_rtt_ns)
		queued = cc->srtt_ns - cc->min_rtt_ns;
	if (ns <= queued)
		return;
	cc->pace_debt_ns = min(cc->pace_debt_ns + ns - queued,
			       max_t(u64, cc->srtt_ns, NSEC_PER_MSEC));
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

/**
 * eri_sim_cc_mode() - the algorithm's mode, for QUERY_QP_CC and tracing
 * @cc: the state, under qp->lock
 *
 * Return: a name of at most ERI_CC_NAME_MAX - 1 characters; "" for an
 * algorithm without modes.
 */
const char *eri_sim_cc_mode(const struct eri_sim_cc *cc)
{
	return cc->ops->mode ? cc->ops->mode(cc) : "";
}

/**
 * eri_sim_cc_bw() - the algorithm's bandwidth estimate
 * @cc: the state, under qp->lock
 *
 * Return: wire bytes per second; 0 for none.
 */
u64 eri_sim_cc_bw(const struct eri_sim_cc *cc)
{
	return cc->ops->bw ? cc->ops->bw(cc) : 0;
}

static u32 eri_sim_cc_us(u64 ns)
{
	return min_t(u64, div_u64(ns, NSEC_PER_USEC), U32_MAX);
}

/**
 * eri_sim_cc_query() - a QP's congestion-control state for QUERY_QP_CC
 * @cc: the state, under qp->lock
 * @out: the device's answer, little endian; its reserved bytes zero
 */
void eri_sim_cc_query(const struct eri_sim_cc *cc, struct eri_qp_cc *out)
{
	u32 hi = 0, lo = 0;

	memset(out, 0, sizeof(*out));
	out->algo = cc->ops->index;
	out->cwnd = cpu_to_le32(min_t(u32, cc->cwnd, ERI_SIM_CC_MAX_WND <<
				      ERI_SIM_CC_FP_SHIFT));
	out->pacing_rate = cpu_to_le64(cc->pacing_rate);
	out->bw = cpu_to_le64(eri_sim_cc_bw(cc));
	out->srtt_us = cpu_to_le32(eri_sim_cc_us(cc->srtt_ns));
	out->rttvar_us = cpu_to_le32(eri_sim_cc_us(cc->rttvar_ns));
	out->min_rtt_us = cpu_to_le32(eri_sim_cc_us(cc->min_rtt_ns));
	if (cc->ops->bounds)
		cc->ops->bounds(cc, &hi, &lo);
	out->inflight_hi = cpu_to_le32(hi);
	out->inflight_lo = cpu_to_le32(lo);
	out->rtt_samples = cpu_to_le64(cc->rtt_samples);
	out->rtt_sum_us = cpu_to_le64(div_u64(cc->rtt_sum_ns, NSEC_PER_USEC));
	strscpy_pad(out->mode, eri_sim_cc_mode(cc), sizeof(out->mode));
	out->cuts = cpu_to_le32(lower_32_bits(cc->cuts));
	out->losses = cpu_to_le32(lower_32_bits(cc->losses));
	out->ecn_echoes = cpu_to_le32(lower_32_bits(cc->ecn_echoes));
	out->timeouts = cpu_to_le32(lower_32_bits(cc->timeouts));
	out->quantum = cpu_to_le32(cc->quantum);
}

/* fixed: the window the transport had before the engine, never paced. */
static void eri_sim_cc_fixed_init(struct eri_sim_cc *cc, u64 now_ns, u32 seed)
{
	cc->cwnd = ERI_SIM_CC_FIXED_WND << ERI_SIM_CC_FP_SHIFT;
}

static void eri_sim_cc_fixed_on_ack(struct eri_sim_cc *cc,
				    const struct eri_sim_cc_ack *ack)
{
}

static void eri_sim_cc_fixed_on_timeout(struct eri_sim_cc *cc, u64 now_ns,
					u32 lost)
{
}

static u32 eri_sim_cc_fixed_window(const struct eri_sim_cc *cc)
{
	return ERI_SIM_CC_FIXED_WND;
}

struct eri_sim_cc_ops eri_sim_cc_fixed_ops = {
	.name = "fixed",
	.init = eri_sim_cc_fixed_init,
	.on_ack = eri_sim_cc_fixed_on_ack,
	.on_timeout = eri_sim_cc_fixed_on_timeout,
	.window = eri_sim_cc_fixed_window,
};
