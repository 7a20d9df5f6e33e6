// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim requester: copies send WQEs out of the send queue, cuts them into
 * packets, keeps a window of packets in flight, and completes WQEs as the
 * responder acknowledges them.
 *
 * Reliability is that of wire protocol version 3 (Documentation/infiniband/
 * eri.rst, "Reliability"): a scoreboard (qp->sb, eri_sim_rel.c) of the PSNs
 * in flight that ACKs (cumulative PSN plus SACK words) and READ responses
 * mark delivered; selective repeat of the PSNs declared lost, by SACK
 * evidence or time (fast retransmit), by a tail-loss probe, or by the
 * retransmission timeout, which backs off exponentially.  The window, the
 * pacing and the RTT estimate come from the QP's congestion control
 * (qp->cc, eri_sim_cc.c), which learns of every ACK, ECN echo, loss and
 * timeout.
 *
 * Everything here runs with qp->lock held.
 */
#include <kunit/visibility.h>
#include <linux/bitfield.h>
#include <linux/log2.h>

#include "eri_sim_qp.h"
#include "eri_sim_trace.h"

/* InfiniBand RNR timer encodings, in units of 10 us. */
static const u16 eri_sim_rnr_10us[32] = {
	65535, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
	16384, 24576, 32768, 49152,
};

u64 eri_sim_rnr_ns(u8 timer)
{
	return (u64)eri_sim_rnr_10us[timer & 31] * 10 * NSEC_PER_USEC;
}

/*
 * The QP's local ACK timeout, 4.096 us * 2^timeout, with 0 (infinite)
 * taken as the default.
 */
u64 eri_sim_ack_timeout_ns(const struct eri_sim_qp *qp)
{
	u32 t = qp->timeout ? qp->timeout : ERI_SIM_DEFAULT_TIMEOUT;

	return 4096ULL << t;
}

/**
 * eri_sim_req_reset_locked - forget the requester's state
 * @qp: the QP
 * @psn: the next PSN to send
 *
 * qp->lock held.
 */
void eri_sim_req_reset_locked(struct eri_sim_qp *qp, u32 psn)
{
	lockdep_assert_held(&qp->lock);
	eri_sim_sb_init(qp->sb, psn);
	qp->snd_msn = 0;
	qp->inv_out = false;
	qp->retries = 0;
	qp->rnr_retries = 0;
	qp->rnr_wait = false;
	qp->rto_win = 0;
	qp->undo_ns = 0;
	qp->probe_out = false;
	qp->timer_probe = false;
	qp->deadline = KTIME_MAX;
	qp->pace_pkts = 0;
	qp->pace_bytes = 0;
	qp->pace_wait = false;
	qp->sq_poll_until_ns = 0;
	qp->sq_poll_window_ns = ERI_SIM_SQ_POLL_WINDOW_NS;
	qp->sq_streak = 0;
	qp->sq_asked = false;
	qp->sq_poll_lapsed = false;
	qp->sq_read_done = false;
	hrtimer_try_to_cancel(&qp->timer);
	hrtimer_try_to_cancel(&qp->pace_timer);
	hrtimer_try_to_cancel(&qp->sq_poll_timer);
}

/* The congestion window, within what the scoreboard can track. */
static u32 eri_sim_req_cc_window(const struct eri_sim_qp *qp)
{
	return min_t(u32, eri_sim_cc_window(&qp->cc), ERI_SIM_REL_WIN);
}

/*
 * Packets the QP may have in the network: the congestion window, or less
 * while the window after a timeout grows back to it.
 */
static u32 eri_sim_req_window(const struct eri_sim_qp *qp)
{
	u32 win = eri_sim_req_cc_window(qp);

	return qp->rto_win ? min(win, qp->rto_win) : win;
}

/*
 * Packets one release of the pacer may take: the congestion control's
 * quantum, within what one super-packet of the route takes.  The window
 * bounds it further, packet by packet.
 */
static u32 eri_sim_req_quantum(const struct eri_sim_qp *qp)
{
	return min(eri_sim_cc_quantum(&qp->cc), qp->route_segs);
}

/* @psns PSNs went out, @bytes on the wire: the current release's. */
static void eri_sim_req_count_locked(struct eri_sim_qp *qp, u32 psns,
				     u32 bytes)
{
	lockdep_assert_held(&qp->lock);
	qp->pace_pkts += psns;
	qp->pace_bytes += bytes;
}

/*
 * The release is over: one pacing step for what it sent.  A release that
 * waited for its time and left later than the pacer's credit covers was
 * held by the host (a descheduled vCPU, softirqs behind a busy task): the
 * PSNs in flight then sample the host's rate, not the path's, and are
 * marked as when the send queue runs dry, so that they cannot lower the
 * bandwidth the congestion control models; and the time is owed, made up
 * by releases ahead of the rate, whose PSNs cannot raise it either.
 */
static void eri_sim_req_paced_locked(struct eri_sim_qp *qp, u64 now)
{
	u64 slipped;
	bool early;

	lockdep_assert_held(&qp->lock);
	if (!qp->pace_pkts)
		return;
	early = qp->cc.pace_debt_ns != 0;
	slipped = eri_sim_cc_sent(&qp->cc, now, qp->pace_bytes);
	if (slipped && qp->pace_wait) {
		eri_sim_sb_app_limited(qp->sb, eri_sim_sb_pipe(qp->sb));
		eri_sim_cc_owe(&qp->cc, slipped);
		early = true;
	}
	eri_sim_sb_early(qp->sb, early);
	qp->pace_wait = false;
	qp->pace_pkts = 0;
	qp->pace_bytes = 0;
}

/*
 * After a timeout the requester resends from a window of one packet that
 * grows by the PSNs delivered, as TCP's slow start after an RTO: when the
 * peer is only slow, its ACKs are queued behind what was sent, and a whole
 * window sent again would push them later still.
 */
static void eri_sim_req_grow_rto_win_locked(struct eri_sim_qp *qp, u32 acked)
{
	lockdep_assert_held(&qp->lock);
	if (!qp->rto_win)
		return;
	qp->rto_win += acked;
	if (qp->rto_win >= eri_sim_req_cc_window(qp))
		qp->rto_win = 0;
}

/*
 * Have the QP's timer fire @ns after @now.  A timer queued to fire no
 * later stays as it is: it finds the deadline ahead when it fires and
 * waits on (eri_sim_req_timeout_locked()), so the timeout that every ACK
 * pushes back costs no timer operation, and no reading of the clock.
 */
static void eri_sim_req_arm_locked(struct eri_sim_qp *qp, u64 now, u64 ns)
{
	ktime_t deadline = ns_to_ktime(now + ns);

	lockdep_assert_held(&qp->lock);
	qp->deadline = deadline;
	/* Only qp->lock holders start the timer: its expiry is stable here. */
	if (hrtimer_is_queued(&qp->timer) &&
	    !ktime_after(hrtimer_get_expires(&qp->timer), deadline))
		return;
	hrtimer_start(&qp->timer, deadline, HRTIMER_MODE_ABS_SOFT);
}

/*
 * Nothing to time: a queued timer stays and finds no deadline when it
 * fires, rather than being cancelled and started again for every message.
 */
static void eri_sim_req_disarm_locked(struct eri_sim_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->deadline = KTIME_MAX;
}

/*
 * (Re)start the retransmission timeout from now, and before it the
 * tail-loss probe unless one is out already.
 */
static void eri_sim_req_arm_rto_locked(struct eri_sim_qp *qp, u64 now)
{
	u64 budget = eri_sim_retry_budget_ns(qp->retry_cnt,
					     eri_sim_ack_timeout_ns(qp));
	u64 max = clamp_t(u64, budget, ERI_SIM_MIN_RTO_NS, ERI_SIM_MAX_RTO_NS);
	u64 srtt = eri_sim_cc_srtt_ns(&qp->cc);
	u64 rto = eri_sim_rto_backoff(eri_sim_cc_rto_ns(&qp->cc,
							ERI_SIM_MIN_RTO_NS,
							max),
				      qp->retries, ERI_SIM_MIN_RTO_NS, max);
	u64 end = qp->progress_ns + budget, pto;

	lockdep_assert_held(&qp->lock);
	/* The last timeout allowed expires when the QP's time is up. */
	if (qp->retries >= qp->retry_cnt)
		rto = end > now ? min(rto, end - now) : 0;
	qp->rto_at = now + rto;
	qp->timer_probe = false;
	if (!qp->probe_out && srtt && !qp->retries) {
		pto = max_t(u64, 2 * srtt + ERI_SIM_DELACK_NS,
			    ERI_SIM_MIN_PTO_NS);
		if (pto < rto) {
			qp->timer_probe = true;
			eri_sim_req_arm_locked(qp, now, pto);
			return;
		}
	}
	eri_sim_req_arm_locked(qp, now, rto);
}

/**
 * eri_sim_seg_max - the largest payload a packet may carry on a link
 * @link_mtu: the netdev's MTU
 *
 * What is left of @link_mtu after the headers of either family, in steps of
 * ERI_WIRE_SEG_ALIGN, at most ERI_SIM_MAX_PAYLOAD: what the device says it
 * takes (an ACK's seg_max) and the most it sends.  Pure.
 *
 * Return: the payload in bytes, or 0 when not even 256 bytes fit.
 */
u32 eri_sim_seg_max(u32 link_mtu)
{
	if (link_mtu < ERI_PKT_OVERHEAD_IPV6 + 256)
		return 0;
	return min_t(u32, round_down(link_mtu - ERI_PKT_OVERHEAD_IPV6,
				     ERI_WIRE_SEG_ALIGN),
		     ERI_SIM_MAX_PAYLOAD);
}

/**
 * eri_sim_seg_pick - payload per packet of an RC QP's next messages
 * @path_mtu: the QP's path MTU, a power of two from 256 to 4096
 * @own_max: eri_sim_seg_max() of the QP's own link
 * @peer_max: the peer's latest seg_max (0: none said)
 *
 * The IB MTU is a power of two: at a netdev MTU of 1500 a packet of the
 * path MTU (1024) leaves a quarter of the datagram unused.  Packets grow to
 * what both ends take when the QP's path MTU is the largest power of two
 * its link carries (a QP given less was told the path carries no more, and
 * keeps it), never beyond what the peer said it takes.  Pure.
 *
 * Return: a payload of @path_mtu bytes at least.
 */
u32 eri_sim_seg_pick(u32 path_mtu, u32 own_max, u32 peer_max)
{
	u32 seg = round_down(min(own_max, peer_max), ERI_WIRE_SEG_ALIGN);

	if (!own_max || path_mtu < rounddown_pow_of_two(own_max) ||
	    seg <= path_mtu)
		return path_mtu;
	return min_t(u32, seg, ERI_SIM_MAX_PAYLOAD);
}

/*
 * An ACK said how large a payload the peer takes: the messages that start
 * from now on use what both ends take.  qp->lock held.
 */
static void eri_sim_req_peer_seg_locked(struct eri_sim_qp *qp, u32 peer_max)
{
	lockdep_assert_held(&qp->lock);
	if (peer_max == qp->peer_seg_max)
		return;
	qp->peer_seg_max = peer_max;
	qp->seg = eri_sim_seg_pick(qp->mtu, eri_sim_dev_seg_max(qp->sdev),
				   peer_max);
	if (qp->seg != qp->cc.mtu)
		eri_sim_cc_set_mtu(&qp->cc, qp->seg);
}

/* Packets (and so PSNs) a started WQE takes: one at least. */
static u32 eri_sim_req_npkts(const struct eri_sim_swqe *w)
{
	return w->length ? DIV_ROUND_UP(w->length, w->seg) : 1;
}

static bool eri_sim_req_is_atomic(const struct eri_sim_swqe *w)
{
	return w->opcode == ERI_SQ_OP_CMP_SWP ||
	       w->opcode == ERI_SQ_OP_FETCH_ADD;
}

/* READs and atomics: only their responses deliver their PSNs. */
static bool eri_sim_req_is_rd_atomic(const struct eri_sim_swqe *w)
{
	return w->opcode == ERI_SQ_OP_READ || eri_sim_req_is_atomic(w);
}

/* Decode and check one WQE the producer wrote; @raw is our copy. */
static void eri_sim_req_decode(struct eri_sim_swqe *w, const u8 *raw)
{
	const struct eri_sq_wqe_hdr *h = (const void *)raw;
	const struct eri_sge *sge = (const void *)(h + 1);
	u32 hdr = le32_to_cpu(h->hdr);

	memset(w, 0, sizeof(*w));
	w->opcode = FIELD_GET(ERI_SQ_WQE_HDR_OPCODE, hdr);
	w->signaled = hdr & ERI_SQ_WQE_HDR_SIGNALED;
	w->solicited = hdr & ERI_SQ_WQE_HDR_SOLICITED;
	w->fence = hdr & ERI_SQ_WQE_HDR_FENCE;
	w->inline_data = hdr & ERI_SQ_WQE_HDR_INLINE;
	w->num_sge = FIELD_GET(ERI_SQ_WQE_HDR_NUM_SGE, hdr);
	w->imm = h->imm_data;
	w->inv_rkey = le32_to_cpu(h->inv_rkey);
	w->rkey = le32_to_cpu(h->rkey);
	w->raddr = le64_to_cpu(h->remote_addr);

	if (w->opcode > ERI_SQ_OP_FETCH_ADD) {
		w->status = ERI_CQE_STS_LOC_QP_OP_ERR;
		return;
	}
	if (eri_sim_req_is_atomic(w)) {
		const struct eri_sq_atomic *a = (const void *)(h + 1);

		w->swap_add = le64_to_cpu(a->swap_add);
		w->compare = le64_to_cpu(a->compare);
		sge = (const void *)(a + 1);
		w->length = ERI_ATOMIC_LEN;
		if (w->inline_data || w->num_sge != 1) {
			w->status = ERI_CQE_STS_LOC_QP_OP_ERR;
			return;
		}
		w->sge[0].addr = le64_to_cpu(sge->addr);
		w->sge[0].length = le32_to_cpu(sge->length);
		w->sge[0].lkey = le32_to_cpu(sge->lkey);
		if (w->sge[0].length != ERI_ATOMIC_LEN)
			w->status = ERI_CQE_STS_LOC_LEN_ERR;
		return;
	}
	if (w->opcode == ERI_SQ_OP_REG_MR) {
		const struct eri_sq_reg_mr *r = (const void *)(h + 1);
		u32 cfg = le32_to_cpu(r->cfg);

		w->reg.iova = le64_to_cpu(r->iova);
		w->reg.length = le64_to_cpu(r->length);
		w->reg.pbl_addr = le64_to_cpu(r->pbl_addr);
		w->reg.npages = le32_to_cpu(r->npages);
		w->reg.page_shift = FIELD_GET(ERI_SQ_REG_MR_PAGE_SHIFT, cfg);
		w->reg.access = FIELD_GET(ERI_SQ_REG_MR_ACCESS, cfg);
		return;
	}
	if (w->opcode == ERI_SQ_OP_LOCAL_INV)
		return;
	if (w->inline_data) {
		w->length = le32_to_cpu(h->length);
		if (w->length > ERI_SQ_WQE_MAX_INLINE ||
		    w->opcode == ERI_SQ_OP_READ) {
			w->status = ERI_CQE_STS_LOC_QP_OP_ERR;
			return;
		}
		memcpy(w->data, sge, w->length);
		return;
	}
	w->status = eri_sim_swqe_sges(w, sge, ERI_SQ_WQE_MAX_SGE,
				      ERI_SIM_MAX_MSG_LEN);
}

/*
 * The drained send queue asks its producer for a kick (sq_need_kick is
 * set): when, and after how many packets since the last kick.  A request
 * that arrived since the last WQE was taken (sq_rx_seen) stays counted
 * even when it came before the asking: the peer's answer may overtake the
 * ACK of what it answers (sent from another CPU), and its kick still
 * answers the peer.  A producer whose last completed WQE was a READ or an
 * ATOMIC waited for its data, and its next post may answer it (an
 * ib_read_lat loop), as a post answering a request does: its kick counts
 * as one that came after a request arrived, so that the device does not
 * start looking at the queue for it, which would add up to a look's
 * interval to every exchange.
 */
VISIBLE_IF_KUNIT void eri_sim_req_ask_locked(struct eri_sim_qp *qp, u64 now)
{
	lockdep_assert_held(&qp->lock);
	qp->sq_asked = true;
	qp->sq_asked_ns = now;
	qp->sq_asked_pkts = qp->tx_pkts - qp->sq_kick_pkts;
	if (qp->sq_read_done)
		qp->sq_rx_seen = true;
}

/*
 * Whether the device looks at the drained send queue again by itself
 * (its poll timer armed) instead of asking the producer for a kick.
 */
static bool eri_sim_req_poll_locked(struct eri_sim_qp *qp, u64 now)
{
	if (qp->sq_streak < ERI_SIM_SQ_POLL_STREAK)
		return false;
	if (!qp->sq_poll_until_ns)
		qp->sq_poll_until_ns = now + qp->sq_poll_window_ns;
	if (now >= qp->sq_poll_until_ns) {
		/*
		 * Nothing came for the window: ask.  The kick that answers
		 * tells whether the window was too short.
		 */
		qp->sq_poll_until_ns = 0;
		qp->sq_streak = 0;
		qp->sq_poll_lapsed = true;
		return false;
	}
	if (!hrtimer_is_queued(&qp->sq_poll_timer))
		hrtimer_start(&qp->sq_poll_timer,
			      ns_to_ktime(ERI_SIM_SQ_POLL_NS),
			      HRTIMER_MODE_REL_SOFT);
	return true;
}

/*
 * Copy the next WQE out of the send queue.  Return: false when the queue
 * is empty (sq_need_kick is then set, unless the device polls it) or broken
 * (the QP is then in ERR).
 */
static bool eri_sim_req_fetch_locked(struct eri_sim_qp *qp, u64 now)
{
	bool idle = !eri_sim_sb_span(qp->sb) && !qp->rnr_wait;
	u8 raw[ERI_SQ_WQE_SIZE];
	int slot;

	slot = eri_sim_sq_fetch_locked(qp, false, raw);
	if (slot == -ENOENT && idle) {
		if (eri_sim_req_poll_locked(qp, now))
			return false;
		slot = eri_sim_sq_fetch_locked(qp, true, raw);
		if (slot == -ENOENT)
			eri_sim_req_ask_locked(qp, now);
	}
	if (slot < 0)
		return false;
	/* A request arriving from now on may be what the next post answers. */
	qp->sq_rx_seen = false;
	/* Work found while polling: the window starts again. */
	if (qp->sq_poll_until_ns)
		qp->sq_poll_until_ns = now + qp->sq_poll_window_ns;
	eri_sim_req_decode(&qp->swqe[slot], raw);
	return true;
}

/**
 * eri_sim_req_kicked_locked - the producer rang the send queue's doorbell
 * @qp: the QP
 * @now: the time
 *
 * qp->lock held.  A kick that came within the largest poll window of the
 * device asking for it, with no request arriving since the producer's
 * previous WQE was taken from the queue, after a kick that sent at most
 * ERI_SIM_SQ_POLL_MAX_PKTS packets, is one of a producer streaming small
 * messages, whose system calls cost as much as the messages;
 * ERI_SIM_SQ_POLL_STREAK of them in a row make the device poll the drained
 * queue rather than ask.  The largest window, not the current one: on a
 * slow host a streaming producer's posts come further apart than the
 * window starts at, and the window grows to them only while the device
 * polls.
 *
 * A kick answering the asking that ended the looks says whether they
 * ended too soon (in the manner of a NAPI budget): if it came within the
 * window, the producer paused for only a little longer than the window,
 * which doubles, and the looks start again at once; if not, the looks went
 * on for nothing, and the window halves.
 */
void eri_sim_req_kicked_locked(struct eri_sim_qp *qp, u64 now)
{
	bool lapsed = qp->sq_poll_lapsed;
	u64 waited;

	lockdep_assert_held(&qp->lock);
	qp->sq_kick_pkts = qp->tx_pkts;
	if (!qp->sq_asked)
		return;
	qp->sq_asked = false;
	qp->sq_poll_lapsed = false;
	/* A request the post may answer: as good as an endless wait. */
	waited = qp->sq_rx_seen ? U64_MAX : now - qp->sq_asked_ns;
	if (lapsed) {
		/* What the looks sent says nothing of the message size. */
		if (waited <= qp->sq_poll_window_ns) {
			qp->sq_poll_window_ns =
				min_t(u32, 2 * qp->sq_poll_window_ns,
				      ERI_SIM_SQ_POLL_WINDOW_MAX_NS);
			qp->sq_streak = ERI_SIM_SQ_POLL_STREAK;
		} else {
			qp->sq_poll_window_ns =
				max_t(u32, qp->sq_poll_window_ns / 2,
				      ERI_SIM_SQ_POLL_WINDOW_MIN_NS);
			qp->sq_streak = 0;
		}
		return;
	}
	if (waited <= ERI_SIM_SQ_POLL_WINDOW_MAX_NS &&
	    qp->sq_asked_pkts <= ERI_SIM_SQ_POLL_MAX_PKTS) {
		if (qp->sq_streak < ERI_SIM_SQ_POLL_STREAK)
			qp->sq_streak++;
	} else {
		qp->sq_streak = 0;
	}
}

/**
 * eri_sim_req_sq_poll_locked - the device's look at the drained send queue
 * @qp: the QP
 *
 * qp->lock held.  Runs the requester; counts the look if it found work.
 */
void eri_sim_req_sq_poll_locked(struct eri_sim_qp *qp)
{
	u16 fetched = qp->sq_fetch;

	lockdep_assert_held(&qp->lock);
	eri_sim_req_run_locked(qp);
	if (qp->sq_fetch != fetched)
		eri_sim_stat_add(qp->sdev, ERI_STAT_SQ_POLLS, 1);
}

static u8 eri_sim_req_cqe_opcode(u8 opcode)
{
	switch (opcode) {
	case ERI_SQ_OP_WRITE:
	case ERI_SQ_OP_WRITE_IMM:
		return ERI_CQE_OP_WRITE;
	case ERI_SQ_OP_READ:
		return ERI_CQE_OP_READ;
	case ERI_SQ_OP_REG_MR:
		return ERI_CQE_OP_REG_MR;
	case ERI_SQ_OP_LOCAL_INV:
		return ERI_CQE_OP_LOCAL_INV;
	case ERI_SQ_OP_CMP_SWP:
		return ERI_CQE_OP_CMP_SWP;
	case ERI_SQ_OP_FETCH_ADD:
		return ERI_CQE_OP_FETCH_ADD;
	default:
		return ERI_CQE_OP_SEND;
	}
}

/**
 * eri_sim_req_complete_locked - complete the oldest send WQE
 * @qp: the QP
 * @w: its copy, qp->swqe[slot of qp->sq_comp]
 * @status: enum eri_cqe_status
 *
 * qp->lock held.  Successful unsignaled WQEs complete silently.
 */
void eri_sim_req_complete_locked(struct eri_sim_qp *qp,
				 struct eri_sim_swqe *w, u8 status)
{
	struct eri_cqe cqe = {
		.hdr = cpu_to_le32(ERI_CQE_HDR_SQ |
				   FIELD_PREP(ERI_CQE_HDR_OPCODE,
					      eri_sim_req_cqe_opcode(w->opcode)) |
				   FIELD_PREP(ERI_CQE_HDR_STATUS, status)),
		.qpn = cpu_to_le32(qp->qpn),
		.wqe_idx = cpu_to_le32(qp->sq_comp),
		.byte_len = cpu_to_le32(w->length),
	};

	lockdep_assert_held(&qp->lock);
	qp->sq_comp++;
	qp->sq_read_done = w->opcode == ERI_SQ_OP_READ ||
			   w->opcode == ERI_SQ_OP_CMP_SWP ||
			   w->opcode == ERI_SQ_OP_FETCH_ADD;
	if (!status && !w->signaled && !qp->sig_all)
		return;
	if (eri_sim_cq_post(qp->scq, &cqe) && qp->state != ERI_QPS_ERR)
		eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
}

/* Fail the oldest WQE with @status and put the QP in ERR. */
static void eri_sim_req_fail_locked(struct eri_sim_qp *qp, u8 status)
{
	struct eri_sim_swqe *w =
		&qp->swqe[eri_ring_slot(qp->sq_comp, qp->sq_depth_log)];

	lockdep_assert_held(&qp->lock);
	if (qp->sq_comp == qp->sq_fetch)
		return;
	eri_sim_req_complete_locked(qp, w, status);
	/* The completion says why. */
	eri_sim_qp_error_locked(qp, 0);
}

/* Whether the started WQE @w's PSNs include @psn. */
static bool eri_sim_req_holds(const struct eri_sim_swqe *w, u32 psn)
{
	return eri_psn_diff(psn, w->first_psn) >= 0 &&
	       eri_psn_diff(psn, w->end_psn) < 0;
}

/*
 * The started WQE whose PSNs include @psn, or NULL.  The responses of a
 * READ come one packet after another: the WQE found last is tried first.
 */
static struct eri_sim_swqe *eri_sim_req_find_locked(struct eri_sim_qp *qp,
						    u32 psn)
{
	u16 out = qp->sq_fetch - qp->sq_comp, i;
	struct eri_sim_swqe *w;

	lockdep_assert_held(&qp->lock);
	if ((u16)(qp->sq_found - qp->sq_comp) < out) {
		w = &qp->swqe[eri_ring_slot(qp->sq_found, qp->sq_depth_log)];
		if (w->started && eri_sim_req_holds(w, psn))
			return w;
	}
	for (i = qp->sq_comp; i != qp->sq_fetch; i++) {
		w = &qp->swqe[eri_ring_slot(i, qp->sq_depth_log)];
		if (!w->started)
			return NULL;
		if (eri_sim_req_holds(w, psn)) {
			qp->sq_found = i;
			return w;
		}
	}
	return NULL;
}

static bool eri_sim_req_uses_rq(u8 opcode)
{
	return opcode == ERI_SQ_OP_SEND || opcode == ERI_SQ_OP_SEND_IMM ||
	       opcode == ERI_SQ_OP_SEND_INV || opcode == ERI_SQ_OP_WRITE_IMM;
}

/*
 * Complete the WQEs at the head whose every PSN was delivered, then look
 * for losses.  Return: PSNs newly declared lost.
 */
static u32 eri_sim_req_settle_locked(struct eri_sim_qp *qp, u64 now)
{
	u32 lost;

	lockdep_assert_held(&qp->lock);
	if (eri_sim_sb_advance(qp->sb)) {
		qp->retries = 0;
		qp->rnr_retries = 0;
		qp->probe_out = false;
		if (eri_sim_sb_span(qp->sb))
			eri_sim_req_arm_rto_locked(qp, now);
		else
			eri_sim_req_disarm_locked(qp);
	}
	if (qp->inv_out && eri_psn_diff(qp->sb->una, qp->inv_end_psn) >= 0)
		qp->inv_out = false;
	while (qp->sq_comp != qp->sq_send) {
		struct eri_sim_swqe *w =
			&qp->swqe[eri_ring_slot(qp->sq_comp, qp->sq_depth_log)];

		if (!w->started)
			break;
		if (w->status) {
			eri_sim_req_fail_locked(qp, w->status);
			return 0;
		}
		if (eri_psn_diff(qp->sb->una, w->end_psn) < 0)
			break;
		eri_sim_req_complete_locked(qp, w, ERI_CQE_STS_SUCCESS);
		if (qp->state == ERI_QPS_ERR)
			return 0;
	}
	lost = eri_sim_sb_detect_loss(qp->sb, now,
				      eri_sim_cc_srtt_ns(&qp->cc));
	if (lost)
		eri_sim_stat_add(qp->sdev, ERI_STAT_FAST_RETRANS, lost);
	return lost;
}

static u8 eri_sim_req_wire_opcode(u8 opcode)
{
	switch (opcode) {
	case ERI_SQ_OP_SEND_IMM:
		return ERI_OP_SEND_IMM;
	case ERI_SQ_OP_SEND_INV:
		return ERI_OP_SEND_INV;
	case ERI_SQ_OP_WRITE:
		return ERI_OP_WRITE;
	case ERI_SQ_OP_WRITE_IMM:
		return ERI_OP_WRITE_IMM;
	case ERI_SQ_OP_READ:
		return ERI_OP_READ_REQ;
	case ERI_SQ_OP_CMP_SWP:
	case ERI_SQ_OP_FETCH_ADD:
		return ERI_OP_ATOMIC_REQ;
	default:
		return ERI_OP_SEND;
	}
}

static void eri_sim_req_fill_hdr(struct eri_sim_qp *qp,
				 const struct eri_sim_swqe *w,
				 struct eri_wire_hdr *hdr, u32 psn, u32 off,
				 u8 flags, u64 now)
{
	hdr->opcode = eri_sim_req_wire_opcode(w->opcode);
	hdr->dqpn = cpu_to_be32(qp->dest_qpn);
	hdr->sqpn = cpu_to_be32(qp->qpn);
	hdr->psn = cpu_to_be32(psn);
	hdr->offset = cpu_to_be32(off);
	hdr->rkey = cpu_to_be32(w->rkey);
	hdr->raddr = cpu_to_be64(w->raddr);
	hdr->msn = cpu_to_be32(w->msn);
	hdr->ts = cpu_to_be32((u32)now);
	if (w->opcode == ERI_SQ_OP_SEND_INV)
		hdr->imm = cpu_to_be32(w->inv_rkey);
	else
		hdr->imm = w->imm;
	/* After a SEND_INV not yet delivered, nothing overtakes it. */
	if (qp->inv_out && eri_psn_diff(psn, qp->inv_end_psn) >= 0)
		flags |= ERI_WIRE_INORDER;
	hdr->flags = flags;
}

/*
 * Whether the packet of @off and @len bytes of @w is all the requester has
 * to send: the whole message, and no other WQE fetched or posted after it.
 */
static bool eri_sim_req_alone_locked(struct eri_sim_qp *qp,
				     const struct eri_sim_swqe *w, u32 off,
				     u32 len)
{
	lockdep_assert_held(&qp->lock);
	return !off && len == w->length &&
	       (u16)(qp->sq_send + 1) == qp->sq_fetch &&
	       (u16)le32_to_cpu(READ_ONCE(qp->dbrec->sq_pi)) == qp->sq_fetch;
}

/*
 * Send the packet of @w at @psn: into the QP's super-packet, which the
 * caller sends (eri_sim_txb_flush()) before it lets go of qp->lock.
 */
static int eri_sim_req_send_data_locked(struct eri_sim_qp *qp,
					struct eri_sim_swqe *w, u32 psn,
					u8 flags, u64 now)
{
	u32 off = eri_psn_diff(psn, w->first_psn) * w->seg;
	u32 len = min(w->seg, w->length - off), win;
	struct eri_wire_hdr hdr = {
		.version = READ_ONCE(qp->sdev->wire_version),
	};
	int ret;

	lockdep_assert_held(&qp->lock);
	hdr.msg_len = cpu_to_be32(w->length);
	if (!off)
		flags |= ERI_WIRE_FIRST;
	if (off + len == w->length) {
		flags |= ERI_WIRE_LAST | ERI_WIRE_ACK_REQ;
		if (w->solicited)
			flags |= ERI_WIRE_SOLICITED;
	}
	/*
	 * A window too small for the responder's ACK every ERI_SIM_ACK_EVERY
	 * packets: the packet that fills it asks for one.  Larger windows keep
	 * flowing on those ACKs, and asking on every packet while the window
	 * is full would double the packets on the path.
	 */
	win = eri_sim_req_window(qp);
	if (!((psn + 1) % ERI_SIM_ACK_EVERY) ||
	    (win < 2 * ERI_SIM_ACK_EVERY &&
	     eri_sim_sb_pipe(qp->sb) + 1 >= win))
		flags |= ERI_WIRE_ACK_REQ;
	eri_sim_req_fill_hdr(qp, w, &hdr, psn, off, flags, now);
	ret = eri_sim_txb_add(qp, &hdr, w, off, len,
			      eri_sim_req_alone_locked(qp, w, off, len));
	if (ret)
		return ret;
	trace_eri_sim_req_pkt(qp->sdev->ibdev_name, qp->qpn, psn,
			      hdr.opcode, len);
	eri_sim_stat_add(qp->sdev, ERI_STAT_TX_BYTES, len);
	eri_sim_sb_sent(qp->sb, psn, false, now);
	eri_sim_req_count_locked(qp, 1, len + eri_sim_qp_hdrs(qp));
	return 0;
}

/* Ask for @pkts response packets of the READ @w from @psn on. */
static int eri_sim_req_send_read_locked(struct eri_sim_qp *qp,
					struct eri_sim_swqe *w, u32 psn,
					u32 pkts, u8 flags, u64 now)
{
	u32 off = eri_psn_diff(psn, w->first_psn) * w->seg;
	u32 len = min_t(u64, (u64)pkts * w->seg, w->length - off);
	struct eri_wire_hdr *hdr;
	struct sk_buff *skb;
	u32 i;

	lockdep_assert_held(&qp->lock);
	/* After the data packets before it, as the requester made them. */
	eri_sim_txb_flush(qp);
	skb = eri_sim_pkt_alloc(qp, 0, &hdr);
	if (!skb)
		return -ENOMEM;
	eri_sim_req_fill_hdr(qp, w, hdr, psn, off,
			     flags | ERI_WIRE_FIRST | ERI_WIRE_LAST, now);
	hdr->msg_len = cpu_to_be32(len);
	hdr->raddr = cpu_to_be64(w->raddr + off);
	/* The path MTU as its log2, as every version-3 responder reads it. */
	hdr->aux = cpu_to_be32(w->seg == qp->mtu ? qp->mtu_log : w->seg);
	eri_sim_pkt_xmit(qp, skb);
	for (i = 0; i < pkts; i++)
		eri_sim_sb_sent(qp->sb, eri_psn_add(psn, i), true, now);
	/*
	 * Paced by the bytes it asks for, the responses with their headers:
	 * they come back on the same path.
	 */
	eri_sim_req_count_locked(qp, pkts, len + pkts * eri_sim_qp_hdrs(qp));
	return 0;
}

/* Send the ATOMIC request @w (its one PSN). */
static int eri_sim_req_send_atomic_locked(struct eri_sim_qp *qp,
					  struct eri_sim_swqe *w, u8 flags,
					  u64 now)
{
	struct eri_wire_atomic *a;
	struct eri_wire_hdr *hdr;
	struct sk_buff *skb;

	lockdep_assert_held(&qp->lock);
	eri_sim_txb_flush(qp);
	skb = eri_sim_pkt_alloc(qp, sizeof(*a), &hdr);
	if (!skb)
		return -ENOMEM;
	eri_sim_req_fill_hdr(qp, w, hdr, w->first_psn, 0,
			     flags | ERI_WIRE_FIRST | ERI_WIRE_LAST |
			     ERI_WIRE_ACK_REQ, now);
	hdr->msg_len = cpu_to_be32(ERI_ATOMIC_LEN);
	hdr->aux = cpu_to_be32(w->opcode == ERI_SQ_OP_CMP_SWP ?
			       ERI_ATOMIC_CMP_SWP : ERI_ATOMIC_FETCH_ADD);
	a = (void *)(hdr + 1);
	a->swap_add = cpu_to_be64(w->swap_add);
	a->compare = cpu_to_be64(w->compare);
	eri_sim_stat_add(qp->sdev, ERI_STAT_TX_BYTES, sizeof(*a));
	eri_sim_pkt_xmit(qp, skb);
	eri_sim_sb_sent(qp->sb, w->first_psn, true, now);
	/* The request and its response, headers included. */
	eri_sim_req_count_locked(qp, 1, sizeof(*a) + ERI_ATOMIC_LEN +
				 2 * eri_sim_qp_hdrs(qp));
	return 0;
}

/*
 * Send @psn again.  A READ asks again for the responses from @psn to the
 * next one delivered or not yet asked for (at most ERI_SIM_READ_CHUNK_PKTS).
 */
static int eri_sim_req_resend_locked(struct eri_sim_qp *qp, u32 psn,
				     u8 flags, u64 now)
{
	struct eri_sim_swqe *w = eri_sim_req_find_locked(qp, psn);
	u32 pkts = 1;
	int ret;

	lockdep_assert_held(&qp->lock);
	if (!w) {
		/* Nothing to send: forget it (cannot happen). */
		eri_sim_sb_sent(qp->sb, psn, false, now);
		return 0;
	}
	flags |= ERI_WIRE_RETX | ERI_WIRE_ACK_REQ;
	if (w->opcode == ERI_SQ_OP_READ) {
		while (pkts < ERI_SIM_READ_CHUNK_PKTS &&
		       eri_psn_diff(w->end_psn, eri_psn_add(psn, pkts)) > 0 &&
		       eri_psn_diff(qp->sb->nxt, eri_psn_add(psn, pkts)) > 0 &&
		       !eri_sim_sb_delivered(qp->sb, eri_psn_add(psn, pkts)))
			pkts++;
		ret = eri_sim_req_send_read_locked(qp, w, psn, pkts, flags,
						   now);
	} else if (eri_sim_req_is_atomic(w)) {
		ret = eri_sim_req_send_atomic_locked(qp, w, flags, now);
	} else {
		ret = eri_sim_req_send_data_locked(qp, w, psn, flags, now);
	}
	if (ret)
		return ret;
	eri_sim_stat_add(qp->sdev, ERI_STAT_RETRANS_PKTS, 1);
	qp->retrans_pkts++;
	return 0;
}

static bool eri_sim_req_is_local(const struct eri_sim_swqe *w)
{
	return w->opcode == ERI_SQ_OP_REG_MR ||
	       w->opcode == ERI_SQ_OP_LOCAL_INV;
}

/*
 * Execute a REG_MR or LOCAL_INV WQE at the head of the send queue (every
 * WQE before it completed) and complete it.
 */
static void eri_sim_req_local_locked(struct eri_sim_qp *qp,
				     struct eri_sim_swqe *w)
{
	int ret;

	lockdep_assert_held(&qp->lock);
	if (w->opcode == ERI_SQ_OP_REG_MR)
		ret = eri_sim_mr_fast_reg(qp->sdev, qp->pdn, w->inv_rkey,
					  &w->reg);
	else
		ret = eri_sim_mr_invalidate(qp->sdev, qp->pdn, w->inv_rkey);
	if (ret) {
		eri_sim_req_fail_locked(qp, ERI_CQE_STS_LOC_PROT_ERR);
		return;
	}
	w->length = 0;
	eri_sim_req_complete_locked(qp, w, ERI_CQE_STS_SUCCESS);
	qp->sq_send = qp->sq_comp;
}

/*
 * Whether one more READ or atomic may start: at most max_rd_atomic (1 when
 * 0) are started and not completed.  They are among the WQEs from sq_comp
 * to sq_send, at most ERI_SIM_REL_WIN of them (one PSN each at least).
 */
static bool eri_sim_req_rd_atomic_room(const struct eri_sim_qp *qp)
{
	u32 limit = max_t(u32, qp->max_rd_atomic, 1), n = 0;
	u16 i;

	for (i = qp->sq_comp; i != qp->sq_send; i++) {
		const struct eri_sim_swqe *w =
			&qp->swqe[eri_ring_slot(i, qp->sq_depth_log)];

		if (w->started && eri_sim_req_is_rd_atomic(w) && ++n >= limit)
			return false;
	}
	return true;
}

/*
 * Send the next new packet (or READ request) of the send queue.  Return:
 * 1 when one was sent, 0 when there is nothing to send, -ENOMEM.
 */
static int eri_sim_req_send_new_locked(struct eri_sim_qp *qp, u32 room,
				       u64 now)
{
	u32 span = eri_sim_sb_span(qp->sb);
	struct eri_sim_swqe *w;
	u32 psn = qp->sb->nxt;
	int ret;

	lockdep_assert_held(&qp->lock);
	for (;;) {
		if (span >= ERI_SIM_REL_WIN)
			return 0;
		if (qp->sq_send == qp->sq_fetch &&
		    !eri_sim_req_fetch_locked(qp, now))
			return 0;
		w = &qp->swqe[eri_ring_slot(qp->sq_send, qp->sq_depth_log)];
		if (w->status) {
			/* A bad WQE fails once all before it completed. */
			if (qp->sq_comp == qp->sq_send)
				eri_sim_req_fail_locked(qp, w->status);
			return 0;
		}
		if (w->started)
			break;
		if (qp->state == ERI_QPS_SQD)
			return 0;
		if ((w->fence || eri_sim_req_is_local(w)) &&
		    qp->sq_comp != qp->sq_send)
			return 0;
		if (eri_sim_req_is_local(w)) {
			eri_sim_req_local_locked(qp, w);
			if (qp->state == ERI_QPS_ERR)
				return 0;
			continue;
		}
		/* Its response comes, and it starts, once one is free. */
		if (eri_sim_req_is_rd_atomic(w) &&
		    !eri_sim_req_rd_atomic_room(qp))
			return 0;
		w->first_psn = psn;
		w->seg = qp->seg;
		w->end_psn = eri_psn_add(psn, eri_sim_req_npkts(w));
		if (eri_sim_req_uses_rq(w->opcode))
			w->msn = qp->snd_msn++;
		if (w->opcode == ERI_SQ_OP_SEND_INV) {
			qp->inv_out = true;
			qp->inv_end_psn = w->end_psn;
		}
		w->started = true;
		break;
	}
	if (w->opcode == ERI_SQ_OP_READ) {
		/*
		 * The responses come back as one burst: no more than the
		 * send quantum allows, but not so few that the requests
		 * crowd the path.
		 */
		u32 chunk = clamp_t(u32, eri_sim_cc_quantum(&qp->cc),
				    ERI_SIM_READ_MIN_PKTS,
				    ERI_SIM_READ_CHUNK_PKTS);
		u32 pkts = min3((u32)eri_psn_diff(w->end_psn, psn), chunk,
				ERI_SIM_REL_WIN - span);

		ret = eri_sim_req_send_read_locked(qp, w, psn,
						   clamp(room, 1U, pkts), 0,
						   now);
	} else if (eri_sim_req_is_atomic(w)) {
		ret = eri_sim_req_send_atomic_locked(qp, w, 0, now);
	} else {
		ret = eri_sim_req_send_data_locked(qp, w, psn, 0, now);
	}
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		/*
		 * Its local buffer is refused: it fails at the head, once
		 * its packets sent so far are delivered.
		 */
		w->status = ERI_CQE_STS_LOC_PROT_ERR;
		w->end_psn = psn;
		w->started = psn != w->first_psn;
	}
	if (w->started && qp->sb->nxt == w->end_psn)
		qp->sq_send++;
	return 1;
}

/*
 * Send lost packets again first, then new ones, while the congestion
 * window and pacing allow; at most ERI_SIM_TX_BUDGET packets, the rest is
 * left to the QP's work (or its pacing timer).  The data packets go into
 * the QP's super-packet.  Pacing releases a quantum at a time: once its
 * time has come, the packets of a quantum go without a look at the clock,
 * and the pacer takes one step for all of them.
 */
static void eri_sim_req_send_locked(struct eri_sim_qp *qp, u64 now)
{
	u32 budget = ERI_SIM_TX_BUDGET, quantum = 0;

	lockdep_assert_held(&qp->lock);
	if ((qp->state != ERI_QPS_RTS && qp->state != ERI_QPS_SQD) ||
	    qp->rnr_wait || qp->dead)
		return;
	/* Nothing in flight: the time to wait for an answer starts now. */
	if (!eri_sim_sb_span(qp->sb))
		qp->progress_ns = now;
	while (budget) {
		u32 pipe = eri_sim_sb_pipe(qp->sb);
		u32 win = eri_sim_req_window(qp);
		u32 psn;
		int ret;

		/*
		 * The oldest PSN not delivered, when lost, goes again even
		 * with the window full, as TCP's fast retransmit sends the
		 * lost segment at once: everything after it waits for it (a
		 * lost READ request makes the responder hold every request
		 * behind it, whose PSNs stay in the pipe until it is
		 * repaired), and a window the loss cut may be below them.
		 */
		if (pipe >= win && !eri_sim_sb_una_lost(qp->sb)) {
			/* The window, not pacing, holds it now. */
			qp->pace_wait = false;
			break;
		}
		if (qp->pace_pkts >= quantum) {
			u64 next;

			/* A new release, when the last one's step allows. */
			eri_sim_req_paced_locked(qp, now);
			next = eri_sim_cc_next_send_ns(&qp->cc);
			if (next > now) {
				/*
				 * Paced: the timer runs the requester then.
				 * Not hrtimer_active(): it is true inside the
				 * pace timer's own callback, which would then
				 * end without a timer.
				 */
				if (!hrtimer_is_queued(&qp->pace_timer))
					hrtimer_start(&qp->pace_timer,
						      ns_to_ktime(next - now),
						      HRTIMER_MODE_REL_SOFT);
				qp->pace_wait = true;
				break;
			}
			quantum = eri_sim_req_quantum(qp);
		}
		if (eri_sim_sb_next_lost(qp->sb, &psn)) {
			ret = eri_sim_req_resend_locked(qp, psn, 0, now);
		} else {
			ret = eri_sim_req_send_new_locked(qp, win - pipe, now);
			/*
			 * Nothing to send, none lost, room in the window: the
			 * rate the PSNs in flight sample is the application's.
			 */
			if (!ret && eri_sim_sb_span(qp->sb) < ERI_SIM_REL_WIN)
				eri_sim_sb_app_limited(qp->sb, pipe);
		}
		if (ret == -ENOMEM) {
			eri_sim_req_paced_locked(qp, now);
			/* Try again when the timer fires. */
			eri_sim_req_arm_rto_locked(qp, now);
			return;
		}
		if (ret <= 0 || qp->state == ERI_QPS_ERR)
			break;
		budget--;
	}
	/* The release ends with the run: the next one starts afresh. */
	eri_sim_req_paced_locked(qp, now);
	if (qp->state == ERI_QPS_ERR)
		return;
	if (eri_sim_sb_span(qp->sb) && qp->deadline == KTIME_MAX)
		eri_sim_req_arm_rto_locked(qp, now);
	if (!budget)
		queue_work(qp->sdev->qp_wq, &qp->tx_work);
	if (qp->state == ERI_QPS_SQD && qp->sq_comp == qp->sq_send &&
	    !qp->drained_sent) {
		qp->drained_sent = true;
		eri_sim_aeq_post(qp->sdev, ERI_AEQE_SQ_DRAINED, qp->qpn, 0);
	}
}

/* What a requester that sent packets does before it lets go of qp->lock. */
static void eri_sim_req_sent_locked(struct eri_sim_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	eri_sim_txb_flush(qp);
	eri_sim_mr_cache_drop(&qp->tx_mrc);
}

/**
 * eri_sim_req_run_at_locked - eri_sim_req_run_locked() at a time read already
 * @qp: the QP
 * @now: ktime_get_ns() of a moment ago, in the caller's run (an ACK's
 *	arrival): one clock read less per ACK
 *
 * qp->lock held.
 */
void eri_sim_req_run_at_locked(struct eri_sim_qp *qp, u64 now)
{
	lockdep_assert_held(&qp->lock);
	if (qp->type != ERI_QPT_RC) {
		eri_sim_ud_run_locked(qp);
		return;
	}
	eri_sim_req_send_locked(qp, now);
	eri_sim_req_sent_locked(qp);
}

/**
 * eri_sim_req_run_locked - send what the window and the send queue allow
 * @qp: the QP
 *
 * qp->lock held.  Sends lost packets again first, then new ones, while the
 * congestion window and pacing allow; at most ERI_SIM_TX_BUDGET packets,
 * the rest is left to the QP's work (or its pacing timer).
 */
void eri_sim_req_run_locked(struct eri_sim_qp *qp)
{
	eri_sim_req_run_at_locked(qp, ktime_get_ns());
}

/* A READ response at @psn: place it wherever it falls.  Return: delivered. */
static u32 eri_sim_req_read_resp_locked(struct eri_sim_qp *qp, u32 psn,
					const struct eri_sim_rx_pkt *pkt)
{
	u32 off, len = pkt->len;
	struct eri_sim_swqe *w;

	lockdep_assert_held(&qp->lock);
	if (eri_sim_sb_delivered(qp->sb, psn)) {
		eri_sim_stat_add(qp->sdev, ERI_STAT_DUP_PKTS, 1);
		return 0;
	}
	w = eri_sim_req_find_locked(qp, psn);
	if (!w || w->opcode != ERI_SQ_OP_READ || w->status)
		return 0;	/* not asked for */
	off = eri_psn_diff(psn, w->first_psn) * w->seg;
	if (len != min(w->seg, w->length - off))
		return 0;
	if (eri_sim_sgl_place(qp, qp->pdn, w->sge, w->num_sge, off, pkt,
			      qp->rx_batch ? &qp->rx_mrc : NULL)) {
		/* It fails when it reaches the head. */
		w->status = ERI_CQE_STS_LOC_PROT_ERR;
		return 0;
	}
	eri_sim_stat_add(qp->sdev, ERI_STAT_RX_BYTES, len);
	return eri_sim_sb_deliver(qp->sb, psn) == ERI_SIM_PSN_NEW;
}

/*
 * An ATOMIC response at @psn: the original value goes to the WQE's SGE.
 * Return: delivered.
 */
static u32 eri_sim_req_atomic_resp_locked(struct eri_sim_qp *qp, u32 psn,
					  const struct eri_sim_rx_pkt *pkt)
{
	struct eri_wire_atomic_resp ar;
	struct eri_sim_swqe *w;
	u64 orig;

	lockdep_assert_held(&qp->lock);
	if (eri_sim_sb_delivered(qp->sb, psn)) {
		eri_sim_stat_add(qp->sdev, ERI_STAT_DUP_PKTS, 1);
		return 0;
	}
	w = eri_sim_req_find_locked(qp, psn);
	if (!w || !eri_sim_req_is_atomic(w) || w->status ||
	    pkt->len != sizeof(ar) ||
	    eri_sim_skb_cur_copy(pkt->cur, pkt->off, &ar, sizeof(ar)))
		return 0;	/* not asked for */
	orig = be64_to_cpu(ar.orig);
	if (eri_sim_sgl_copy(qp, qp->pdn, w->sge, 1, 0, &orig, sizeof(orig),
			     true)) {
		/* It fails when it reaches the head. */
		w->status = ERI_CQE_STS_LOC_PROT_ERR;
		return 0;
	}
	eri_sim_stat_add(qp->sdev, ERI_STAT_RX_BYTES, sizeof(ar));
	return eri_sim_sb_deliver(qp->sb, psn) == ERI_SIM_PSN_NEW;
}

/* The timeouts since qp->undo_ns, if any, stand: none will be undone. */
static void eri_sim_req_timeouts_stand_locked(struct eri_sim_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (!qp->undo_ns)
		return;
	qp->undo_ns = 0;
	eri_sim_cc_keep(&qp->cc);
}

/* A NAK about @psn, every PSN before which arrived. */
static void eri_sim_req_nak_locked(struct eri_sim_qp *qp, u8 syndrome,
				   u32 psn, u32 aux, u64 now)
{
	struct eri_sim_swqe *w;

	lockdep_assert_held(&qp->lock);
	if (eri_psn_diff(psn, qp->sb->una) < 0 ||
	    eri_psn_diff(psn, qp->sb->nxt) >= 0 ||
	    eri_sim_sb_delivered(qp->sb, psn))
		return;		/* stale */
	switch (syndrome) {
	case ERI_SYN_RNR_NAK:
		if (qp->rnr_wait)
			return;
		/* rnr_retry 7 means retry forever. */
		if (qp->rnr_retry != 7 && qp->rnr_retries >= qp->rnr_retry) {
			eri_sim_req_fail_locked(qp, ERI_CQE_STS_RNR_RETRY_EXC_ERR);
			return;
		}
		qp->rnr_retries++;
		/* The peer answers: its time to answer starts again. */
		qp->retries = 0;
		qp->progress_ns = now;
		/* Everything not delivered goes again after the wait. */
		eri_sim_sb_lose_all(qp->sb);
		/* Lost to the peer's asking: no timeout is undone any more. */
		eri_sim_req_timeouts_stand_locked(qp);
		qp->rnr_wait = true;
		qp->timer_probe = false;
		eri_sim_req_arm_locked(qp, now, eri_sim_rnr_ns(aux));
		return;
	case ERI_SYN_SEQ_NAK:
		return;		/* version 1 only */
	default:
		break;
	}
	/* A refusal: it is about the oldest WQE once all before arrived. */
	w = &qp->swqe[eri_ring_slot(qp->sq_comp, qp->sq_depth_log)];
	if (psn != qp->sb->una || qp->sq_comp == qp->sq_fetch ||
	    eri_sim_req_find_locked(qp, psn) != w)
		return;
	switch (syndrome) {
	case ERI_SYN_INV_REQ_NAK:
		eri_sim_req_fail_locked(qp, ERI_CQE_STS_REM_INV_REQ_ERR);
		break;
	case ERI_SYN_ACCESS_NAK:
		eri_sim_req_fail_locked(qp, ERI_CQE_STS_REM_ACCESS_ERR);
		break;
	default:
		eri_sim_req_fail_locked(qp, ERI_CQE_STS_REM_OP_ERR);
		break;
	}
}

/**
 * eri_sim_req_version_nak_locked - the peer cannot read the QP's packets
 * @qp: the QP
 *
 * qp->lock held.  A VERSION_NAK of another version from the QP's peer:
 * with requests outstanding, the oldest WQE completes with REM_INV_REQ_ERR
 * and the QP goes to ERR; without, nothing the QP sent is lost.  A QP that
 * has received a packet of its own version from the peer knows the peer
 * speaks it: the NAK is forged, and changes nothing.
 */
void eri_sim_req_version_nak_locked(struct eri_sim_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if ((qp->state != ERI_QPS_RTS && qp->state != ERI_QPS_SQD) ||
	    !eri_sim_sb_span(qp->sb) || qp->rx_pkts)
		return;
	eri_sim_req_fail_locked(qp, ERI_CQE_STS_REM_INV_REQ_ERR);
}

/*
 * Whether the timeouts since qp->undo_ns were spurious (RFC 3522's Eifel
 * detection, with the echoed send time): decided by the first answer that
 * delivers qp->undo_psn, the oldest PSN in flight when the first of them
 * fired.  Its echo (@rtt ago) older than that timeout: it answers a copy
 * sent before the timeout, which was delivered, so the path was only slow
 * (a stalled host, a queue behind a busy CPU).  Then the PSNs declared
 * lost are in flight again (the loss detector finds the ones that were),
 * the window of one packet and the congestion control's cut go.  Else a
 * copy sent after the timeout was delivered: it stands.  An answer without
 * an echo tells nothing and lets it stand too, as does a READ or ATOMIC
 * response (@rtt 0, eri_sim_req_account_locked()).
 */
static void eri_sim_req_undo_locked(struct eri_sim_qp *qp, u64 now, u32 rtt)
{
	lockdep_assert_held(&qp->lock);
	if (!qp->undo_ns ||
	    !eri_sim_sb_delivered(qp->sb, qp->undo_psn))
		return;
	if (!rtt || rtt <= now - qp->undo_ns) {
		eri_sim_req_timeouts_stand_locked(qp);
		return;
	}
	qp->undo_ns = 0;
	eri_sim_sb_unlose(qp->sb);
	qp->rto_win = 0;
	eri_sim_cc_undo(&qp->cc);
	eri_sim_stat_add(qp->sdev, ERI_STAT_RTO_UNDOS, 1);
}

/*
 * A positive ACK that answers a PSN past the one it acknowledges up to: the
 * responder holds a request past a gap.  Return: PSNs that makes lost.
 */
static u32 eri_sim_req_stalled_locked(struct eri_sim_qp *qp, u64 now,
				      const struct eri_wire_hdr *hdr)
{
	u32 lost;

	lockdep_assert_held(&qp->lock);
	if (!hdr || hdr->syndrome != ERI_SYN_ACK)
		return 0;
	lost = eri_sim_sb_stalled(qp->sb,
				  be32_to_cpu(hdr->ack_psn) & ERI_PSN_MASK,
				  be32_to_cpu(hdr->psn) & ERI_PSN_MASK, now,
				  eri_sim_cc_srtt_ns(&qp->cc));
	if (lost)
		eri_sim_stat_add(qp->sdev, ERI_STAT_FAST_RETRANS, lost);
	return lost;
}

/*
 * What an ACK, or the READ responses of a received batch together, tell
 * the sender: @acked PSNs delivered, the RTT sample @rtt (0: none), a
 * congestion mark @ce.  Its losses, its delivery rate and the congestion
 * control's step; the timeout rearmed.  @hdr: the ACK, NULL for READ and
 * ATOMIC responses.  An ACK's echo is of the last request its sender took;
 * responses decide no timeout spurious: a responder holds READs behind a
 * hole and answers them once the resent request fills it, each with its
 * own, older, echo.
 */
static void eri_sim_req_account_locked(struct eri_sim_qp *qp, u64 now,
				       u32 rtt, u32 acked, bool ce,
				       const struct eri_wire_hdr *hdr)
{
	struct eri_sim_cc_ack ack = { .now_ns = now, .ce = ce };
	u32 lost;

	lockdep_assert_held(&qp->lock);
	if (acked) {
		/* The peer answers: timeouts so far were no dead link. */
		qp->retries = 0;
		qp->progress_ns = now;
		eri_sim_req_grow_rto_win_locked(qp, acked);
		eri_sim_req_undo_locked(qp, now, hdr ? rtt : 0);
		/* Before the timeout and the loss detector read it. */
		eri_sim_cc_rtt_sample(&qp->cc, now, rtt);
		ack.rtt_ns = rtt;
	}
	/* The pipe after the ACK's deliveries, before its losses. */
	ack.inflight = eri_sim_sb_pipe(qp->sb);
	lost = eri_sim_req_settle_locked(qp, now);
	if (qp->state == ERI_QPS_ERR)
		return;
	lost += eri_sim_req_stalled_locked(qp, now, hdr);
	/* The whole ACK at once: its losses, its mark, its delivery. */
	eri_sim_sb_rate_sample(qp->sb, now, qp->cc.min_rtt_ns, &ack.rs);
	if (acked || lost || ack.ce) {
		ack.acked = acked;
		ack.lost = lost;
		eri_sim_cc_ack(&qp->cc, &ack);
		trace_eri_sim_cc(qp->sdev->ibdev_name, qp->qpn, &qp->cc, false,
				 eri_sim_sb_pipe(qp->sb), ack.rtt_ns, acked,
				 lost, ack.ce, &ack.rs);
	}
	/*
	 * PSNs past a hole arrive: the path works, and the hole is being
	 * repaired by fast retransmission.  The timeout is for when nothing
	 * arrives any more; left running from the last move of @una it
	 * would fire while a resent hole is still on its way and send the
	 * whole window again.
	 */
	if (acked && eri_sim_sb_span(qp->sb))
		eri_sim_req_arm_rto_locked(qp, now);
}

/**
 * eri_sim_req_rx_batch_end_locked - account a batch's READ responses
 * @qp: the QP
 *
 * qp->lock held, at the end of a received batch (or before a packet of it
 * that is not a READ response).  The READ responses of a batch count as
 * one ACK: one settling of the send queue, one rate sample, one step of
 * the congestion control for all of them, as for an ACK that covers as
 * many PSNs.
 */
void eri_sim_req_rx_batch_end_locked(struct eri_sim_qp *qp)
{
	struct eri_sim_rd_acct a = qp->rd_acct;

	lockdep_assert_held(&qp->lock);
	if (!a.due)
		return;
	qp->rd_acct = (struct eri_sim_rd_acct){};
	if (qp->state == ERI_QPS_RTS || qp->state == ERI_QPS_SQD)
		eri_sim_req_account_locked(qp, a.now, a.rtt, a.acked, a.ce,
					   NULL);
}

/**
 * eri_sim_req_rx_locked - an ACK or READ response for the requester
 * @qp: the QP
 * @hdr: the packet's header
 * @pkt: its payload
 *
 * qp->lock held.  Within a received batch (qp->rx_batch) the requester
 * runs once, at the batch's end, and READ responses are placed at once
 * but accounted together there (eri_sim_req_rx_batch_end_locked()).
 */
void eri_sim_req_rx_locked(struct eri_sim_qp *qp,
			   const struct eri_wire_hdr *hdr,
			   const struct eri_sim_rx_pkt *pkt)
{
	static const __be64 no_sack[ERI_WIRE_SACK_BITS / 64];
	u32 psn = be32_to_cpu(hdr->psn) & ERI_PSN_MASK;
	u32 ack_psn = be32_to_cpu(hdr->ack_psn) & ERI_PSN_MASK;
	u64 now = ktime_get_ns();
	u32 rtt = (u32)now - be32_to_cpu(hdr->ts_echo);
	bool ce = false;
	u32 acked;

	lockdep_assert_held(&qp->lock);
	if (qp->state != ERI_QPS_RTS && qp->state != ERI_QPS_SQD)
		return;
	/*
	 * One of the device's own version is forged: its sender would have
	 * read the request it answers.  It acknowledges nothing either.
	 */
	if (hdr->opcode == ERI_OP_ACK &&
	    hdr->syndrome == ERI_SYN_VERSION_NAK)
		return;
	/* An echo from the future or older than 2^31 ns is no sample. */
	if (!hdr->ts_echo || rtt >= BIT(31))
		rtt = 0;
	if (eri_psn_diff(ack_psn, qp->sb->nxt) > 0)
		return;		/* acknowledges what was never sent */
	trace_eri_sim_req_ack(qp->sdev->ibdev_name, qp->qpn, ack_psn,
			      hdr->opcode, rtt);
	/* CE on a READ or ATOMIC response: the congestion is on our own request path. */
	if ((hdr->flags & ERI_WIRE_ECE) ||
	    (pkt->ce && hdr->opcode != ERI_OP_ACK)) {
		eri_sim_stat_add(qp->sdev, ERI_STAT_ECN_ECHOES, 1);
		ce = true;
	}
	if (hdr->opcode == ERI_OP_READ_RESP) {
		acked = eri_sim_sb_ack(qp->sb, ack_psn, 0, no_sack);
		acked += eri_sim_req_read_resp_locked(qp, psn, pkt);
		if (qp->rx_batch) {
			struct eri_sim_rd_acct *a = &qp->rd_acct;

			a->due = true;
			a->now = now;
			a->acked += acked;
			if (rtt)
				a->rtt = rtt;
			a->ce |= ce;
			goto run;
		}
	} else {
		/* What the batch's READ responses told comes first. */
		eri_sim_req_rx_batch_end_locked(qp);
		if (qp->state == ERI_QPS_ERR)
			return;
		if (hdr->opcode == ERI_OP_ATOMIC_RESP) {
			acked = eri_sim_sb_ack(qp->sb, ack_psn, 0, no_sack);
			acked += eri_sim_req_atomic_resp_locked(qp, psn, pkt);
		} else if (hdr->syndrome == ERI_SYN_ACK) {
			eri_sim_req_peer_seg_locked(qp,
						    be32_to_cpu(hdr->seg_max));
			acked = eri_sim_sb_ack(qp->sb, ack_psn,
					       be32_to_cpu(hdr->offset),
					       hdr->sack);
		} else {
			acked = eri_sim_sb_ack(qp->sb, ack_psn, 0, no_sack);
		}
	}
	eri_sim_req_account_locked(qp, now, rtt, acked, ce,
				   hdr->opcode == ERI_OP_ACK ? hdr : NULL);
	if (qp->state == ERI_QPS_ERR)
		return;
	if (hdr->opcode == ERI_OP_ACK && hdr->syndrome != ERI_SYN_ACK) {
		eri_sim_req_nak_locked(qp, hdr->syndrome, psn,
				       be32_to_cpu(hdr->aux), now);
		if (qp->state == ERI_QPS_ERR)
			return;
	}
run:
	if (qp->rx_batch) {
		qp->run_due = true;
		qp->run_due_ns = now;
	} else {
		eri_sim_req_run_at_locked(qp, now);
	}
}

/* The tail-loss probe: send the newest packet not delivered again. */
static void eri_sim_req_probe_locked(struct eri_sim_qp *qp, u64 now)
{
	u32 psn;

	lockdep_assert_held(&qp->lock);
	qp->probe_out = true;
	if (!eri_sim_sb_last_unsacked(qp->sb, &psn))
		return;
	eri_sim_stat_add(qp->sdev, ERI_STAT_TLPS, 1);
	eri_sim_req_resend_locked(qp, psn, ERI_WIRE_PROBE, now);
	eri_sim_req_paced_locked(qp, now);
	eri_sim_req_sent_locked(qp);
	if (qp->rto_at > now)
		eri_sim_req_arm_locked(qp, now, qp->rto_at - now);
	else
		eri_sim_req_arm_locked(qp, now, 0);
}

/**
 * eri_sim_req_timeout_locked - the QP's timer fired
 * @qp: the QP
 *
 * qp->lock held.  Ends an RNR wait, or sends a tail-loss probe, or (the
 * retransmission timeout) declares everything in flight lost, backs off
 * and resends from a window of one packet; it fails the oldest WQE once
 * retry_cnt timeouts went unanswered and nothing was delivered for
 * (retry_cnt + 1) local ACK timeouts.
 */
void eri_sim_req_timeout_locked(struct eri_sim_qp *qp)
{
	u64 now = ktime_get_ns();
	u32 lost;

	lockdep_assert_held(&qp->lock);
	if (qp->state != ERI_QPS_RTS && qp->state != ERI_QPS_SQD)
		return;
	/* Disarmed since it was started (eri_sim_req_disarm_locked()). */
	if (qp->deadline == KTIME_MAX)
		return;
	if (ktime_before(ns_to_ktime(now), qp->deadline)) {
		/* Pushed back since it was started: wait on. */
		hrtimer_start(&qp->timer, qp->deadline, HRTIMER_MODE_ABS_SOFT);
		return;
	}
	/* Due: what follows sets the next deadline, if any. */
	eri_sim_req_disarm_locked(qp);
	if (qp->rnr_wait) {
		/* The wait was the peer's asking: no time of the budget. */
		qp->rnr_wait = false;
		qp->progress_ns = now;
	} else if (eri_sim_sb_span(qp->sb)) {
		if (qp->timer_probe) {
			qp->timer_probe = false;
			eri_sim_req_probe_locked(qp, now);
			return;
		}
		eri_sim_stat_add(qp->sdev, ERI_STAT_TIMEOUTS, 1);
		if (eri_sim_retry_exhausted(qp->retries, qp->retry_cnt,
					    now - qp->progress_ns,
					    eri_sim_ack_timeout_ns(qp))) {
			eri_sim_req_fail_locked(qp, ERI_CQE_STS_RETRY_EXC_ERR);
			return;
		}
		if (qp->retries < U8_MAX)
			qp->retries++;
		qp->rto_win = 1;
		lost = eri_sim_sb_lose_all(qp->sb);
		if (!qp->undo_ns) {
			qp->undo_ns = now;
			qp->undo_psn = qp->sb->una;
		}
		eri_sim_cc_on_timeout(&qp->cc, now, lost);
		trace_eri_sim_cc(qp->sdev->ibdev_name, qp->qpn, &qp->cc, true,
				 eri_sim_sb_pipe(qp->sb), 0, 0, lost, false,
				 NULL);
		eri_sim_req_arm_rto_locked(qp, now);
	}
	eri_sim_req_run_at_locked(qp, now);
}
