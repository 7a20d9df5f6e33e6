// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim responder: executes the peer's requests in PSN order, places
 * their data, completes receive WQEs and answers with ACKs, NAKs and READ
 * responses.  Packets are hostile: every field is checked before it is
 * used, and a request the responder cannot execute gets a NAK.
 *
 * Everything here runs with qp->lock held.
 */
#include <linux/bitfield.h>
#include <linux/overflow.h>

#include "eri_sim_qp.h"

/* Most response packets one READ request may ask for. */
#define ERI_SIM_MAX_READ_RESP_PKTS	1024
/* Largest payload of one packet: the largest path MTU. */
#define ERI_SIM_MAX_PAYLOAD		4096

/*
 * Take the next receive WQE if there is none in use.  Return: 1 when one is
 * in use, 0 when the queue is empty, -EINVAL when the WQE or the index is
 * malformed (the QP is then in ERR).
 */
static int eri_sim_resp_take_rwqe_locked(struct eri_sim_qp *qp)
{
	struct eri_sim_rwqe *r = &qp->rwqe;
	u8 raw[ERI_RQ_WQE_SIZE];
	const struct eri_rq_wqe_hdr *h = (const void *)raw;
	const struct eri_sge *sge = (const void *)(h + 1);
	u64 total = 0;
	u16 pi;
	u32 i;

	if (qp->have_rwqe)
		return 1;
	pi = le32_to_cpu(READ_ONCE(qp->dbrec->rq_pi));
	if (pi == qp->rq_ci)
		return 0;
	if (eri_ring_used(pi, qp->rq_ci) > (1U << qp->rq_depth_log)) {
		eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
		return -EINVAL;
	}
	/* The index before the WQE; pairs with the producer's write barrier. */
	dma_rmb();
	memcpy(raw, qp->rq + ((size_t)eri_ring_slot(qp->rq_ci,
						    qp->rq_depth_log) <<
			      ERI_RQ_WQE_SHIFT), sizeof(raw));
	qp->have_rwqe = true;
	r->num_sge = FIELD_GET(ERI_RQ_WQE_HDR_NUM_SGE, le32_to_cpu(h->hdr));
	if (r->num_sge > ERI_RQ_WQE_MAX_SGE)
		goto err_bad_wqe;
	for (i = 0; i < r->num_sge; i++) {
		r->sge[i].addr = le64_to_cpu(sge[i].addr);
		r->sge[i].length = le32_to_cpu(sge[i].length);
		r->sge[i].lkey = le32_to_cpu(sge[i].lkey);
		total += r->sge[i].length;
	}
	if (total > ERI_SIM_MAX_MSG_LEN)
		goto err_bad_wqe;
	r->length = total;
	return 1;

err_bad_wqe:
	eri_sim_qp_complete_recv_locked(qp, ERI_CQE_OP_RECV,
					ERI_CQE_STS_LOC_QP_OP_ERR, 0, 0, 0, 0);
	eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
	return -EINVAL;
}

/*
 * Refuse the request at epsn: NAK it, fail the receive WQE in use with
 * @recv_status (if not 0), and put the QP in ERR.
 */
static void eri_sim_resp_fail_locked(struct eri_sim_qp *qp, u8 syndrome,
				     u8 recv_status)
{
	eri_sim_send_ack_locked(qp, syndrome, qp->epsn, 0);
	if (qp->have_rwqe && recv_status)
		eri_sim_qp_complete_recv_locked(qp, ERI_CQE_OP_RECV,
						recv_status, 0, 0, 0, 0);
	eri_sim_qp_error_locked(qp, syndrome == ERI_SYN_ACCESS_NAK ?
				    ERI_AEQE_QP_ACCESS_ERR :
				    ERI_AEQE_QP_REQ_ERR);
}

/*
 * Start or continue a message that consumes (SEND) or may consume
 * (WRITE_IMM) a receive WQE.  Return: 0 to go on, else the packet is
 * answered and done with.
 */
static int eri_sim_resp_msg_locked(struct eri_sim_qp *qp,
				   const struct eri_wire_hdr *hdr,
				   u32 psn, bool needs_rwqe)
{
	u32 off = be32_to_cpu(hdr->offset);
	int ret;

	if (!(hdr->flags & ERI_WIRE_FIRST)) {
		if (!qp->in_msg || off != qp->msg_off) {
			eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK,
						 ERI_CQE_STS_REM_INV_REQ_ERR);
			return -EINVAL;
		}
		return 0;
	}
	if (qp->in_msg || off) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK,
					 ERI_CQE_STS_REM_INV_REQ_ERR);
		return -EINVAL;
	}
	if (needs_rwqe) {
		ret = eri_sim_resp_take_rwqe_locked(qp);
		if (ret < 0) {
			eri_sim_send_ack_locked(qp, ERI_SYN_OP_NAK, psn, 0);
			return ret;
		}
		if (!ret) {
			eri_sim_stat_add(qp->sdev, ERI_STAT_RNR_NAKS, 1);
			eri_sim_send_ack_locked(qp, ERI_SYN_RNR_NAK, psn,
						qp->min_rnr_timer);
			return -EAGAIN;
		}
	}
	qp->in_msg = true;
	qp->msg_off = 0;
	return 0;
}

static void eri_sim_resp_send_locked(struct eri_sim_qp *qp,
				     const struct eri_wire_hdr *hdr, u32 psn,
				     const void *payload, u32 len)
{
	u32 flags = 0, inv_rkey = 0;
	int ret;

	if (eri_sim_resp_msg_locked(qp, hdr, psn, true))
		return;
	if (len > qp->rwqe.length - qp->msg_off) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK,
					 ERI_CQE_STS_LOC_LEN_ERR);
		return;
	}
	ret = eri_sim_sgl_copy(qp, qp->rwqe.sge, qp->rwqe.num_sge, qp->msg_off,
			       (void *)payload, len, true);
	if (ret) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_OP_NAK,
					 ERI_CQE_STS_LOC_PROT_ERR);
		return;
	}
	qp->msg_off += len;
	qp->epsn = eri_psn_add(qp->epsn, 1);
	if (!(hdr->flags & ERI_WIRE_LAST))
		return;
	if (hdr->flags & ERI_WIRE_SOLICITED)
		flags |= ERI_CQE_HDR_SOLICITED;
	if (hdr->opcode == ERI_OP_SEND_IMM)
		flags |= ERI_CQE_HDR_IMM;
	if (hdr->opcode == ERI_OP_SEND_INV) {
		inv_rkey = be32_to_cpu(hdr->imm);
		if (eri_sim_mr_invalidate(qp->sdev, qp->pdn, inv_rkey)) {
			eri_sim_resp_fail_locked(qp, ERI_SYN_ACCESS_NAK,
						 ERI_CQE_STS_LOC_PROT_ERR);
			return;
		}
		flags |= ERI_CQE_HDR_INV;
	}
	eri_sim_qp_complete_recv_locked(qp, ERI_CQE_OP_RECV,
					ERI_CQE_STS_SUCCESS, qp->msg_off, flags,
					hdr->imm, inv_rkey);
}

static void eri_sim_resp_write_locked(struct eri_sim_qp *qp,
				      const struct eri_wire_hdr *hdr, u32 psn,
				      const void *payload, u32 len)
{
	bool imm = hdr->opcode == ERI_OP_WRITE_IMM;
	u64 raddr = be64_to_cpu(hdr->raddr), end;
	struct eri_sim_mr *mr;
	u32 flags;

	if (eri_sim_resp_msg_locked(qp, hdr, psn, imm))
		return;
	if (len) {
		raddr += qp->msg_off;
		if (!(qp->access & ERI_MR_ACCESS_REMOTE_WRITE) ||
		    check_add_overflow(raddr, (u64)len, &end) ||
		    eri_sim_mr_get(qp->sdev, be32_to_cpu(hdr->rkey), qp->pdn,
				   ERI_MR_ACCESS_REMOTE_WRITE, raddr, len,
				   &mr)) {
			eri_sim_resp_fail_locked(qp, ERI_SYN_ACCESS_NAK, 0);
			return;
		}
		if (eri_sim_mr_copy(qp->sdev, mr, raddr, (void *)payload, len,
				    true)) {
			eri_sim_mr_put(mr);
			eri_sim_resp_fail_locked(qp, ERI_SYN_ACCESS_NAK, 0);
			return;
		}
		eri_sim_mr_put(mr);
	}
	qp->msg_off += len;
	qp->epsn = eri_psn_add(qp->epsn, 1);
	if (!(hdr->flags & ERI_WIRE_LAST))
		return;
	if (!imm) {
		qp->in_msg = false;
		return;
	}
	flags = ERI_CQE_HDR_IMM;
	if (hdr->flags & ERI_WIRE_SOLICITED)
		flags |= ERI_CQE_HDR_SOLICITED;
	eri_sim_qp_complete_recv_locked(qp, ERI_CQE_OP_RECV_WRITE_IMM,
					ERI_CQE_STS_SUCCESS, qp->msg_off, flags,
					hdr->imm, 0);
}

/* Answer a READ request, new (@psn == epsn) or repeated (@psn < epsn). */
static void eri_sim_resp_read_locked(struct eri_sim_qp *qp,
				     const struct eri_wire_hdr *hdr, u32 psn)
{
	u32 mtu_log = be32_to_cpu(hdr->aux), len = be32_to_cpu(hdr->msg_len);
	u64 raddr = be64_to_cpu(hdr->raddr), end;
	struct eri_sim_mr *mr = NULL;
	u32 mtu, npkts, i;

	if (mtu_log < 8 || mtu_log > 12 || qp->in_msg) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK, 0);
		return;
	}
	mtu = 1U << mtu_log;
	npkts = len ? DIV_ROUND_UP(len, mtu) : 1;
	if (npkts > ERI_SIM_MAX_READ_RESP_PKTS) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK, 0);
		return;
	}
	if (len && (!(qp->access & ERI_MR_ACCESS_REMOTE_READ) ||
		    check_add_overflow(raddr, (u64)len, &end) ||
		    eri_sim_mr_get(qp->sdev, be32_to_cpu(hdr->rkey), qp->pdn,
				   ERI_MR_ACCESS_REMOTE_READ, raddr, len, &mr))) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_ACCESS_NAK, 0);
		return;
	}
	for (i = 0; i < npkts; i++) {
		u32 off = i * mtu, plen = min(mtu, len - off);
		struct eri_wire_hdr *rh;
		struct sk_buff *skb;

		skb = eri_sim_pkt_alloc(qp, plen, &rh);
		if (!skb)
			break;	/* the requester asks again */
		if (plen && eri_sim_mr_copy(qp->sdev, mr, raddr + off, rh + 1,
					    plen, false)) {
			kfree_skb(skb);
			break;
		}
		rh->opcode = ERI_OP_READ_RESP;
		rh->flags = (i ? 0 : ERI_WIRE_FIRST) |
			    (i == npkts - 1 ? ERI_WIRE_LAST : 0);
		rh->dqpn = cpu_to_be32(qp->dest_qpn);
		rh->sqpn = cpu_to_be32(qp->qpn);
		rh->psn = cpu_to_be32(eri_psn_add(psn, i));
		rh->ack_psn = cpu_to_be32(eri_psn_add(psn, i + 1));
		rh->msg_len = cpu_to_be32(len);
		rh->offset = cpu_to_be32(off);
		eri_sim_stat_add(qp->sdev, ERI_STAT_TX_BYTES, plen);
		eri_sim_pkt_xmit(qp, skb);
	}
	if (mr)
		eri_sim_mr_put(mr);
	if (eri_psn_diff(eri_psn_add(psn, npkts), qp->epsn) > 0)
		qp->epsn = eri_psn_add(psn, npkts);
}

/**
 * eri_sim_resp_rx_locked - a request for the responder
 * @qp: the QP
 * @hdr: the packet's header
 * @payload: its payload
 * @len: payload bytes
 *
 * qp->lock held.
 */
void eri_sim_resp_rx_locked(struct eri_sim_qp *qp,
			    const struct eri_wire_hdr *hdr,
			    const void *payload, u32 len)
{
	u32 psn = be32_to_cpu(hdr->psn) & ERI_PSN_MASK;
	s32 d;

	lockdep_assert_held(&qp->lock);
	if (qp->state != ERI_QPS_RTR && qp->state != ERI_QPS_RTS &&
	    qp->state != ERI_QPS_SQD)
		return;
	d = eri_psn_diff(psn, qp->epsn);
	if (d > 0) {
		/* A hole: ask for a resend from epsn, once. */
		if (!qp->nak_sent) {
			qp->nak_sent = true;
			eri_sim_stat_add(qp->sdev, ERI_STAT_SEQ_NAKS, 1);
			eri_sim_send_ack_locked(qp, ERI_SYN_SEQ_NAK, qp->epsn,
						0);
		}
		return;
	}
	if (d < 0) {
		/* Already executed: READs again, the rest acknowledged. */
		if (hdr->opcode == ERI_OP_READ_REQ)
			eri_sim_resp_read_locked(qp, hdr, psn);
		else
			eri_sim_send_ack_locked(qp, ERI_SYN_ACK, psn, 0);
		return;
	}
	qp->nak_sent = false;
	if (len > ERI_SIM_MAX_PAYLOAD) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK, 0);
		return;
	}
	switch (hdr->opcode) {
	case ERI_OP_SEND:
	case ERI_OP_SEND_IMM:
	case ERI_OP_SEND_INV:
		eri_sim_resp_send_locked(qp, hdr, psn, payload, len);
		break;
	case ERI_OP_WRITE:
	case ERI_OP_WRITE_IMM:
		eri_sim_resp_write_locked(qp, hdr, psn, payload, len);
		break;
	case ERI_OP_READ_REQ:
		eri_sim_resp_read_locked(qp, hdr, psn);
		return;
	default:
		eri_sim_resp_fail_locked(qp, ERI_SYN_OP_NAK, 0);
		return;
	}
	if (eri_psn_diff(qp->epsn, psn) > 0 && (hdr->flags & ERI_WIRE_ACK_REQ))
		eri_sim_send_ack_locked(qp, ERI_SYN_ACK, psn, 0);
}
