// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim requester: copies send WQEs out of the send queue, cuts them into
 * packets, keeps a window of packets in flight, and completes WQEs as the
 * responder acknowledges them.  Reliability is version 1 of the wire
 * protocol: cumulative ACKs, go-back-N on a sequence NAK or a timeout.
 *
 * Everything here runs with qp->lock held.
 */
#include <linux/bitfield.h>

#include "eri_sim_qp.h"

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

/* 4.096 us * 2^timeout, with 0 (infinite) taken as the default. */
u64 eri_sim_rto_ns(const struct eri_sim_qp *qp)
{
	u32 t = qp->timeout ? qp->timeout : ERI_SIM_DEFAULT_TIMEOUT;

	return max_t(u64, 4096ULL << t, ERI_SIM_MIN_RTO_NS);
}

static u32 eri_sim_req_inflight(const struct eri_sim_qp *qp)
{
	return eri_psn_diff(qp->snd_psn, qp->snd_una);
}

static void eri_sim_req_arm_locked(struct eri_sim_qp *qp, u64 ns)
{
	lockdep_assert_held(&qp->lock);
	qp->deadline = ktime_add_ns(ktime_get(), ns);
	hrtimer_start(&qp->timer, ns_to_ktime(ns), HRTIMER_MODE_REL_SOFT);
}

/* Packets (and so PSNs) a WQE takes: one at least. */
static u32 eri_sim_req_npkts(const struct eri_sim_qp *qp,
			     const struct eri_sim_swqe *w)
{
	return w->length ? DIV_ROUND_UP(w->length, qp->mtu) : 1;
}

/* Decode and check one WQE the producer wrote; @raw is our copy. */
static void eri_sim_req_decode(struct eri_sim_swqe *w, const u8 *raw)
{
	const struct eri_sq_wqe_hdr *h = (const void *)raw;
	const struct eri_sge *sge = (const void *)(h + 1);
	u32 hdr = le32_to_cpu(h->hdr);
	u64 total = 0;
	u32 i;

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

	if (w->opcode > ERI_SQ_OP_LOCAL_INV) {
		w->status = ERI_CQE_STS_LOC_QP_OP_ERR;
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
	if (w->num_sge > ERI_SQ_WQE_MAX_SGE) {
		w->status = ERI_CQE_STS_LOC_QP_OP_ERR;
		return;
	}
	for (i = 0; i < w->num_sge; i++) {
		w->sge[i].addr = le64_to_cpu(sge[i].addr);
		w->sge[i].length = le32_to_cpu(sge[i].length);
		w->sge[i].lkey = le32_to_cpu(sge[i].lkey);
		total += w->sge[i].length;
	}
	if (total > ERI_SIM_MAX_MSG_LEN) {
		w->status = ERI_CQE_STS_LOC_LEN_ERR;
		return;
	}
	w->length = total;
}

/*
 * Copy the next WQE out of the send queue.  Return: false when the queue
 * is empty (sq_need_kick is then set) or broken (the QP is then in ERR).
 */
static bool eri_sim_req_fetch_locked(struct eri_sim_qp *qp)
{
	u8 raw[ERI_SQ_WQE_SIZE];
	u16 pi;

	pi = le32_to_cpu(READ_ONCE(qp->dbrec->sq_pi));
	if (pi == qp->sq_fetch) {
		/*
		 * With packets in flight an ACK (or the timer) runs the
		 * requester again and it looks at sq_pi then: the producer
		 * need not kick.  Only an idle device asks for a kick.
		 */
		if (eri_sim_req_inflight(qp) || qp->rnr_wait)
			return false;
		WRITE_ONCE(qp->dbrec->sq_need_kick, cpu_to_le32(1));
		/*
		 * The flag before the index: pairs with the producer's full
		 * barrier between writing sq_pi and reading the flag.
		 */
		smp_mb();
		pi = le32_to_cpu(READ_ONCE(qp->dbrec->sq_pi));
		if (pi == qp->sq_fetch)
			return false;
		WRITE_ONCE(qp->dbrec->sq_need_kick, 0);
	}
	if (eri_ring_used(pi, qp->sq_comp) > (1U << qp->sq_depth_log)) {
		/* The producer claims more WQEs than the ring holds. */
		eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
		return false;
	}
	/* The index before the WQE; pairs with the producer's write barrier. */
	dma_rmb();
	memcpy(raw, qp->sq + ((size_t)eri_ring_slot(qp->sq_fetch,
						    qp->sq_depth_log) <<
			      ERI_SQ_WQE_SHIFT), sizeof(raw));
	eri_sim_req_decode(&qp->swqe[eri_ring_slot(qp->sq_fetch,
						   qp->sq_depth_log)], raw);
	qp->sq_fetch++;
	return true;
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

	if (qp->sq_comp == qp->sq_fetch)
		return;
	eri_sim_req_complete_locked(qp, w, status);
	/* The completion says why. */
	eri_sim_qp_error_locked(qp, 0);
}

/* Send again from the oldest unacknowledged PSN. */
static void eri_sim_req_rewind_locked(struct eri_sim_qp *qp)
{
	u32 n = eri_sim_req_inflight(qp);

	if (!n)
		return;
	eri_sim_stat_add(qp->sdev, ERI_STAT_RETRANS_PKTS, n);
	qp->retrans_pkts += n;
	qp->snd_psn = qp->snd_una;
	qp->sq_send = qp->sq_comp;
}

/*
 * After a rewind, acknowledgements of packets sent before it may overtake
 * the resending: do not send those again.
 */
static void eri_sim_req_sync_locked(struct eri_sim_qp *qp)
{
	if (eri_psn_diff(qp->snd_una, qp->snd_psn) > 0) {
		qp->snd_psn = qp->snd_una;
		qp->sq_send = qp->sq_comp;
	}
}

/*
 * Every PSN before @ack_psn arrived: complete what that covers.  READ
 * WQEs complete only with their responses.  Return: progress was made.
 */
static bool eri_sim_req_ack_locked(struct eri_sim_qp *qp, u32 ack_psn)
{
	bool progress = false;

	if (eri_psn_diff(ack_psn, qp->snd_una) <= 0 ||
	    eri_psn_diff(ack_psn, qp->snd_max) > 0)
		return false;
	while (eri_psn_diff(ack_psn, qp->snd_una) > 0) {
		struct eri_sim_swqe *w =
			&qp->swqe[eri_ring_slot(qp->sq_comp, qp->sq_depth_log)];

		if (qp->sq_comp == qp->sq_fetch || !w->started ||
		    w->opcode == ERI_SQ_OP_READ)
			break;
		if (eri_psn_diff(ack_psn, w->end_psn) < 0) {
			qp->snd_una = ack_psn;
			progress = true;
			break;
		}
		qp->snd_una = w->end_psn;
		progress = true;
		eri_sim_req_complete_locked(qp, w, ERI_CQE_STS_SUCCESS);
		if (qp->state == ERI_QPS_ERR)
			return true;
	}
	eri_sim_req_sync_locked(qp);
	return progress;
}

static void eri_sim_req_progress_locked(struct eri_sim_qp *qp)
{
	qp->retries = 0;
	qp->rnr_retries = 0;
	if (eri_sim_req_inflight(qp))
		eri_sim_req_arm_locked(qp, eri_sim_rto_ns(qp));
	else
		hrtimer_try_to_cancel(&qp->timer);
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
	default:
		return ERI_OP_SEND;
	}
}

static void eri_sim_req_fill_hdr(struct eri_sim_qp *qp,
				 const struct eri_sim_swqe *w,
				 struct eri_wire_hdr *hdr, u32 off)
{
	hdr->opcode = eri_sim_req_wire_opcode(w->opcode);
	hdr->dqpn = cpu_to_be32(qp->dest_qpn);
	hdr->sqpn = cpu_to_be32(qp->qpn);
	hdr->psn = cpu_to_be32(qp->snd_psn);
	hdr->offset = cpu_to_be32(off);
	hdr->rkey = cpu_to_be32(w->rkey);
	hdr->raddr = cpu_to_be64(w->raddr);
	if (w->opcode == ERI_SQ_OP_SEND_INV)
		hdr->imm = cpu_to_be32(w->inv_rkey);
	else
		hdr->imm = w->imm;
}

/* Send the packet of @w at qp->snd_psn. */
static int eri_sim_req_send_data_locked(struct eri_sim_qp *qp,
					struct eri_sim_swqe *w, u32 inflight)
{
	u32 off = eri_psn_diff(qp->snd_psn, w->first_psn) * qp->mtu;
	u32 len = min(qp->mtu, w->length - off);
	struct eri_wire_hdr *hdr;
	struct sk_buff *skb;
	u8 flags = 0;
	int ret;

	skb = eri_sim_pkt_alloc(qp, len, &hdr);
	if (!skb)
		return -ENOMEM;
	eri_sim_req_fill_hdr(qp, w, hdr, off);
	hdr->msg_len = cpu_to_be32(w->length);
	if (!off)
		flags |= ERI_WIRE_FIRST;
	if (off + len == w->length) {
		flags |= ERI_WIRE_LAST | ERI_WIRE_ACK_REQ;
		if (w->solicited)
			flags |= ERI_WIRE_SOLICITED;
	}
	if (!((qp->snd_psn + 1) % ERI_SIM_ACK_EVERY) ||
	    inflight + 1 >= ERI_SIM_WINDOW_PKTS)
		flags |= ERI_WIRE_ACK_REQ;
	hdr->flags = flags;
	if (w->inline_data) {
		memcpy(hdr + 1, w->data + off, len);
	} else {
		ret = eri_sim_sgl_copy(qp, w->sge, w->num_sge, off, hdr + 1,
				       len, false);
		if (ret) {
			kfree_skb(skb);
			return ret;
		}
	}
	eri_sim_stat_add(qp->sdev, ERI_STAT_TX_BYTES, len);
	eri_sim_pkt_xmit(qp, skb);
	qp->snd_psn = eri_psn_add(qp->snd_psn, 1);
	if (eri_psn_diff(qp->snd_psn, qp->snd_max) > 0)
		qp->snd_max = qp->snd_psn;
	return 0;
}

/* Ask for the next chunk of a READ at qp->snd_psn. */
static int eri_sim_req_send_read_locked(struct eri_sim_qp *qp,
					struct eri_sim_swqe *w, u32 inflight)
{
	u32 done = eri_psn_diff(qp->snd_psn, w->first_psn);
	u32 pkts = min3((u32)eri_psn_diff(w->end_psn, qp->snd_psn),
			(u32)ERI_SIM_READ_CHUNK_PKTS,
			ERI_SIM_WINDOW_PKTS - inflight);
	u32 off = done * qp->mtu;
	u32 len = min_t(u64, (u64)pkts * qp->mtu, w->length - off);
	struct eri_wire_hdr *hdr;
	struct sk_buff *skb;

	skb = eri_sim_pkt_alloc(qp, 0, &hdr);
	if (!skb)
		return -ENOMEM;
	eri_sim_req_fill_hdr(qp, w, hdr, off);
	hdr->flags = ERI_WIRE_FIRST | ERI_WIRE_LAST;
	hdr->msg_len = cpu_to_be32(len);
	hdr->raddr = cpu_to_be64(w->raddr + off);
	hdr->aux = cpu_to_be32(qp->mtu_log);
	eri_sim_pkt_xmit(qp, skb);
	qp->snd_psn = eri_psn_add(qp->snd_psn, pkts);
	if (eri_psn_diff(qp->snd_psn, qp->snd_max) > 0)
		qp->snd_max = qp->snd_psn;
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

/**
 * eri_sim_req_run_locked - send what the window and the send queue allow
 * @qp: the QP
 *
 * qp->lock held.  Sends at most ERI_SIM_TX_BUDGET packets and leaves the
 * rest to the QP's work.
 */
void eri_sim_req_run_locked(struct eri_sim_qp *qp)
{
	u32 budget = ERI_SIM_TX_BUDGET;

	lockdep_assert_held(&qp->lock);
	if (qp->type != ERI_QPT_RC) {
		eri_sim_ud_run_locked(qp);
		return;
	}
	if ((qp->state != ERI_QPS_RTS && qp->state != ERI_QPS_SQD) ||
	    qp->rnr_wait || qp->dead)
		return;
	while (budget) {
		u32 inflight = eri_sim_req_inflight(qp);
		struct eri_sim_swqe *w;
		int ret;

		if (inflight >= ERI_SIM_WINDOW_PKTS)
			break;
		if (qp->sq_send == qp->sq_fetch &&
		    !eri_sim_req_fetch_locked(qp))
			break;
		w = &qp->swqe[eri_ring_slot(qp->sq_send, qp->sq_depth_log)];
		if (w->status) {
			/* A bad WQE fails once all before it completed. */
			if (qp->sq_comp == qp->sq_send)
				eri_sim_req_fail_locked(qp, w->status);
			break;
		}
		if (!w->started) {
			if (qp->state == ERI_QPS_SQD)
				break;
			if ((w->fence || eri_sim_req_is_local(w)) &&
			    qp->sq_comp != qp->sq_send)
				break;
			if (eri_sim_req_is_local(w)) {
				eri_sim_req_local_locked(qp, w);
				if (qp->state == ERI_QPS_ERR)
					return;
				continue;
			}
			w->first_psn = qp->snd_psn;
			w->end_psn = eri_psn_add(qp->snd_psn,
						 eri_sim_req_npkts(qp, w));
			w->started = true;
		}
		if (w->opcode == ERI_SQ_OP_READ)
			ret = eri_sim_req_send_read_locked(qp, w, inflight);
		else
			ret = eri_sim_req_send_data_locked(qp, w, inflight);
		if (ret == -ENOMEM) {
			/* Try again when the timer fires. */
			eri_sim_req_arm_locked(qp, eri_sim_rto_ns(qp));
			return;
		}
		if (ret) {
			w->status = ERI_CQE_STS_LOC_PROT_ERR;
			continue;
		}
		budget--;
		if (qp->snd_psn == w->end_psn)
			qp->sq_send++;
	}
	if (eri_sim_req_inflight(qp) && !hrtimer_is_queued(&qp->timer))
		eri_sim_req_arm_locked(qp, eri_sim_rto_ns(qp));
	if (!budget)
		queue_work(qp->sdev->qp_wq, &qp->tx_work);
	if (qp->state == ERI_QPS_SQD && qp->sq_comp == qp->sq_send &&
	    !qp->drained_sent) {
		qp->drained_sent = true;
		eri_sim_aeq_post(qp->sdev, ERI_AEQE_SQ_DRAINED, qp->qpn, 0);
	}
}

/* A READ response at @psn: place it if it is the next one expected. */
static void eri_sim_req_read_resp_locked(struct eri_sim_qp *qp, u32 psn,
					 const void *payload, u32 len)
{
	struct eri_sim_swqe *w;
	u32 off;
	int ret;

	if (eri_psn_diff(psn, qp->snd_max) >= 0)
		return;		/* not asked for */
	if (eri_sim_req_ack_locked(qp, psn))
		eri_sim_req_progress_locked(qp);
	if (qp->state == ERI_QPS_ERR)
		return;
	if (psn != qp->snd_una) {
		/* A response went missing: ask again, once per hole. */
		if (eri_psn_diff(psn, qp->snd_una) > 0 &&
		    qp->rewound_at != (qp->snd_una | BIT(31))) {
			qp->rewound_at = qp->snd_una | BIT(31);
			eri_sim_req_rewind_locked(qp);
		}
		return;
	}
	w = &qp->swqe[eri_ring_slot(qp->sq_comp, qp->sq_depth_log)];
	if (qp->sq_comp == qp->sq_fetch || !w->started ||
	    w->opcode != ERI_SQ_OP_READ)
		return;
	off = eri_psn_diff(psn, w->first_psn) * qp->mtu;
	if (len != min(qp->mtu, w->length - off))
		return;
	ret = eri_sim_sgl_copy(qp, w->sge, w->num_sge, off, (void *)payload,
			       len, true);
	if (ret) {
		eri_sim_req_fail_locked(qp, ERI_CQE_STS_LOC_PROT_ERR);
		return;
	}
	eri_sim_stat_add(qp->sdev, ERI_STAT_RX_BYTES, len);
	qp->snd_una = eri_psn_add(qp->snd_una, 1);
	if (qp->snd_una == w->end_psn)
		eri_sim_req_complete_locked(qp, w, ERI_CQE_STS_SUCCESS);
	eri_sim_req_sync_locked(qp);
	eri_sim_req_progress_locked(qp);
}

static void eri_sim_req_nak_locked(struct eri_sim_qp *qp, u8 syndrome,
				   u32 ack_psn, u32 aux)
{
	if (eri_sim_req_ack_locked(qp, ack_psn))
		eri_sim_req_progress_locked(qp);
	if (qp->state == ERI_QPS_ERR || ack_psn != qp->snd_una ||
	    !eri_sim_req_inflight(qp))
		return;
	switch (syndrome) {
	case ERI_SYN_SEQ_NAK:
		eri_sim_req_rewind_locked(qp);
		break;
	case ERI_SYN_RNR_NAK:
		/* rnr_retry 7 means retry forever. */
		if (qp->rnr_retry != 7 && qp->rnr_retries >= qp->rnr_retry) {
			eri_sim_req_fail_locked(qp, ERI_CQE_STS_RNR_RETRY_EXC_ERR);
			return;
		}
		qp->rnr_retries++;
		eri_sim_req_rewind_locked(qp);
		qp->rnr_wait = true;
		eri_sim_req_arm_locked(qp, eri_sim_rnr_ns(aux));
		break;
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
 * eri_sim_req_rx_locked - an ACK or READ response for the requester
 * @qp: the QP
 * @hdr: the packet's header
 * @payload: its payload
 * @len: payload bytes
 *
 * qp->lock held.
 */
void eri_sim_req_rx_locked(struct eri_sim_qp *qp,
			   const struct eri_wire_hdr *hdr,
			   const void *payload, u32 len)
{
	u32 psn = be32_to_cpu(hdr->psn) & ERI_PSN_MASK;
	u32 ack_psn = be32_to_cpu(hdr->ack_psn) & ERI_PSN_MASK;

	lockdep_assert_held(&qp->lock);
	if (qp->state != ERI_QPS_RTS && qp->state != ERI_QPS_SQD)
		return;
	if (hdr->opcode == ERI_OP_READ_RESP) {
		eri_sim_req_read_resp_locked(qp, psn, payload, len);
	} else if (hdr->syndrome == ERI_SYN_ACK) {
		if (eri_sim_req_ack_locked(qp, ack_psn))
			eri_sim_req_progress_locked(qp);
	} else {
		eri_sim_req_nak_locked(qp, hdr->syndrome, ack_psn,
				       be32_to_cpu(hdr->aux));
	}
	eri_sim_req_run_locked(qp);
}

/**
 * eri_sim_req_timeout_locked - the QP's timer fired
 * @qp: the QP
 *
 * qp->lock held.  Ends an RNR wait, or resends what is unacknowledged, or
 * fails the oldest WQE once retry_cnt retries went unanswered.
 */
void eri_sim_req_timeout_locked(struct eri_sim_qp *qp)
{
	ktime_t now = ktime_get();

	lockdep_assert_held(&qp->lock);
	if (qp->state != ERI_QPS_RTS && qp->state != ERI_QPS_SQD)
		return;
	if (ktime_before(now, qp->deadline)) {
		/* Re-armed while this expiry was on its way. */
		hrtimer_start(&qp->timer, ktime_sub(qp->deadline, now),
			      HRTIMER_MODE_REL_SOFT);
		return;
	}
	if (qp->rnr_wait) {
		qp->rnr_wait = false;
	} else if (eri_sim_req_inflight(qp)) {
		eri_sim_stat_add(qp->sdev, ERI_STAT_TIMEOUTS, 1);
		if (qp->retries >= qp->retry_cnt) {
			eri_sim_req_fail_locked(qp, ERI_CQE_STS_RETRY_EXC_ERR);
			return;
		}
		qp->retries++;
		eri_sim_req_rewind_locked(qp);
	}
	eri_sim_req_run_locked(qp);
}
