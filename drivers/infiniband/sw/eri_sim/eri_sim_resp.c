// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim responder: places the peer's requests as they arrive, in any
 * order, executes what needs order (READs, atomics, completions,
 * invalidations) in PSN order, and answers with ACKs carrying SACK words,
 * NAKs, READ and ATOMIC responses.  Packets are hostile: every field is checked before it is used.
 *
 * A packet that arrives ahead of a gap (out of order) is placed only if it
 * can be placed without error; otherwise it is dropped, and the requester
 * sends it again, until it arrives in order and its error is answered
 * there.  So errors, RNR NAKs and completions all happen in PSN order.
 *
 * A SEND's receive WQE is known before its turn: SENDs and WRITE_IMMs
 * carry their message number (msn), receive WQEs are consumed in msn order,
 * and the responder copies WQEs from the ring ahead (at most qp->rq_ahead,
 * never past the producer index) into qp->rwqe.
 *
 * Everything here runs with qp->lock held.
 */
#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/overflow.h>
#include <linux/timekeeping.h>

#include "eri_sim_qp.h"
#include "eri_sim_trace.h"

/* Most response packets one READ request may ask for. */
#define ERI_SIM_MAX_READ_RESP_PKTS	1024

/**
 * eri_sim_resp_reset_locked - forget the responder's state
 * @qp: the QP
 * @psn: the next PSN expected
 *
 * qp->lock held.
 */
void eri_sim_resp_reset_locked(struct eri_sim_qp *qp, u32 psn)
{
	lockdep_assert_held(&qp->lock);
	eri_sim_psn_map_init(&qp->rmap, psn);
	qp->rq_ci = 0;
	qp->rq_take = 0;
	qp->rcv_msn = 0;
	memset(qp->rwqe, 0, sizeof(*qp->rwqe) * qp->rq_ahead);
	qp->pend_used = 0;
	eri_sim_ares_init(&qp->ares);
	qp->unacked = 0;
	qp->ce_seen = false;
	hrtimer_try_to_cancel(&qp->ack_timer);
}

static struct eri_sim_rwqe *eri_sim_resp_rwqe(struct eri_sim_qp *qp, u16 idx)
{
	return &qp->rwqe[idx & (qp->rq_ahead - 1)];
}

/*
 * Take the next WQE of the QP's SRQ into @r, for the message after those
 * that have one.  Return: as eri_sim_resp_take_one_locked().
 */
static int eri_sim_resp_take_srq_locked(struct eri_sim_qp *qp,
					struct eri_sim_rwqe *r)
{
	int ret;

	lockdep_assert_held(&qp->lock);
	ret = eri_sim_qp_take_srq_locked(qp, r);
	if (ret <= 0)
		return ret;
	qp->rq_take++;
	if (!r->bad)
		return 1;
	/* The next to complete fails; WQEs before it are flushed first. */
	if ((u16)(qp->rq_take - 1) == qp->rq_ci)
		eri_sim_qp_complete_recv_locked(qp, ERI_CQE_OP_RECV,
						ERI_CQE_STS_LOC_QP_OP_ERR, 0,
						0, 0, 0);
	eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
	return -EINVAL;
}

/*
 * Copy the next receive WQE from the ring.  Return: 1 when one was taken,
 * 0 when the ring holds no more, -EINVAL when the WQE or the index is
 * malformed (the QP is then in ERR).
 */
static int eri_sim_resp_take_one_locked(struct eri_sim_qp *qp)
{
	struct eri_sim_rwqe *r = eri_sim_resp_rwqe(qp, qp->rq_take);
	int ret;
	u16 pi;

	lockdep_assert_held(&qp->lock);
	if (qp->srq)
		return eri_sim_resp_take_srq_locked(qp, r);
	pi = le32_to_cpu(READ_ONCE(qp->dbrec->rq_pi));
	if (pi == qp->rq_take)
		return 0;
	if (eri_ring_used(pi, qp->rq_ci) > (1U << qp->rq_depth_log) ||
	    eri_ring_used(qp->rq_take, qp->rq_ci) >
	    eri_ring_used(pi, qp->rq_ci)) {
		eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
		return -EINVAL;
	}
	memset(r, 0, sizeof(*r));
	ret = eri_sim_rq_read_locked(qp, qp->rq_take, r);
	qp->rq_take++;
	if (ret)
		goto err_bad_wqe;
	return 1;

err_bad_wqe:
	/* The next to complete fails; WQEs before it are flushed first. */
	if ((u16)(qp->rq_take - 1) == qp->rq_ci)
		eri_sim_qp_complete_recv_locked(qp, ERI_CQE_OP_RECV,
						ERI_CQE_STS_LOC_QP_OP_ERR, 0,
						0, 0, 0);
	eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
	return -EINVAL;
}

/*
 * The receive WQE of message @msn, taken from the ring if need be.
 * Return: 1 with *@r set, 0 when it is not posted yet, -EINVAL when the
 * message number is out of reach (or the ring broken: QP in ERR).
 */
static int eri_sim_resp_rwqe_locked(struct eri_sim_qp *qp, u32 msn,
				    u32 psn, struct eri_sim_rwqe **r)
{
	u32 k = msn - qp->rcv_msn;
	int ret;

	lockdep_assert_held(&qp->lock);
	if (k >= qp->rq_ahead)
		return -EINVAL;
	/*
	 * Message rcv_msn + k starts k PSNs past the next expected one at
	 * the earliest: a packet claiming more is forged, and must not make
	 * the QP take WQEs of its SRQ that the other QPs need.
	 */
	if (qp->srq && k > 0 && eri_psn_diff(psn, qp->rmap.base) < (int)k)
		return -EINVAL;
	while (eri_ring_used(qp->rq_take, qp->rq_ci) <= k) {
		ret = eri_sim_resp_take_one_locked(qp);
		if (ret <= 0)
			return ret;
	}
	*r = eri_sim_resp_rwqe(qp, qp->rq_ci + k);
	return 1;
}

/*
 * Refuse the request at the next expected PSN: NAK it, fail the receive
 * WQE completing next with @recv_status (if not 0 and taken), and put the
 * QP in ERR.
 */
static void eri_sim_resp_fail_locked(struct eri_sim_qp *qp, u8 syndrome,
				     u8 recv_status)
{
	lockdep_assert_held(&qp->lock);
	eri_sim_send_ack_locked(qp, syndrome, qp->rmap.base, 0);
	if (qp->rq_take != qp->rq_ci && recv_status)
		eri_sim_qp_complete_recv_locked(qp, ERI_CQE_OP_RECV,
						recv_status, 0, 0, 0, 0);
	eri_sim_qp_error_locked(qp, syndrome == ERI_SYN_ACCESS_NAK ?
				    ERI_AEQE_QP_ACCESS_ERR :
				    ERI_AEQE_QP_REQ_ERR);
}

/*
 * The receive WQE a SEND or WRITE_IMM packet needs.  In order, a failure
 * is answered (RNR NAK, or NAK and ERR); out of order the packet is only
 * dropped.  Return: the WQE, or NULL.
 */
static struct eri_sim_rwqe *
eri_sim_resp_msg_rwqe_locked(struct eri_sim_qp *qp,
			     const struct eri_wire_hdr *hdr, u32 psn,
			     bool in_order)
{
	u32 msn = be32_to_cpu(hdr->msn);
	struct eri_sim_rwqe *r;
	int ret;

	/* In order, every earlier message completed: it must be the next. */
	if (in_order && msn != qp->rcv_msn) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK, 0);
		return NULL;
	}
	/* Its last packet may have arrived already (@done): no matter. */
	ret = eri_sim_resp_rwqe_locked(qp, msn, psn, &r);
	if (ret > 0)
		return r;
	if (!in_order || qp->state == ERI_QPS_ERR)
		return NULL;
	if (!ret) {
		eri_sim_stat_add(qp->sdev, ERI_STAT_RNR_NAKS, 1);
		eri_sim_send_ack_locked(qp, ERI_SYN_RNR_NAK, psn,
					qp->min_rnr_timer);
	} else {
		eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK, 0);
	}
	return NULL;
}

/* Note the end of a message into @r; it completes in PSN order. */
static void eri_sim_resp_msg_end(struct eri_sim_rwqe *r,
				 const struct eri_wire_hdr *hdr, u32 psn,
				 u8 opcode, u32 len)
{
	r->done = true;
	r->opcode = opcode;
	r->last_psn = psn;
	r->byte_len = len;
	r->imm = hdr->imm;
	r->flags = 0;
	r->inv_rkey = 0;
	if (hdr->flags & ERI_WIRE_SOLICITED)
		r->flags |= ERI_CQE_HDR_SOLICITED;
	if (hdr->opcode == ERI_OP_SEND_IMM || hdr->opcode == ERI_OP_WRITE_IMM)
		r->flags |= ERI_CQE_HDR_IMM;
	if (hdr->opcode == ERI_OP_SEND_INV) {
		r->flags |= ERI_CQE_HDR_INV;
		r->inv_rkey = be32_to_cpu(hdr->imm);
		r->imm = 0;
	}
}

/* The region cache of the batch being received, if one is. */
static struct eri_sim_mr_cache *eri_sim_resp_mrc(struct eri_sim_qp *qp)
{
	return qp->rx_batch ? &qp->rx_mrc : NULL;
}

/* Place a SEND packet.  Return: 0 when placed. */
static int eri_sim_resp_send_locked(struct eri_sim_qp *qp,
				    const struct eri_wire_hdr *hdr, u32 psn,
				    const struct eri_sim_rx_pkt *pkt,
				    bool in_order)
{
	u32 off = be32_to_cpu(hdr->offset), len = pkt->len;
	struct eri_sim_rwqe *r;

	lockdep_assert_held(&qp->lock);
	r = eri_sim_resp_msg_rwqe_locked(qp, hdr, psn, in_order);
	if (!r)
		return -EAGAIN;
	if (off > r->length || len > r->length - off) {
		if (in_order)
			eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK,
						 ERI_CQE_STS_LOC_LEN_ERR);
		return -EINVAL;
	}
	if (eri_sim_sgl_place(qp, r->pdn, r->sge, r->num_sge, off, pkt,
			      eri_sim_resp_mrc(qp))) {
		if (in_order)
			eri_sim_resp_fail_locked(qp, ERI_SYN_OP_NAK,
						 ERI_CQE_STS_LOC_PROT_ERR);
		return -EINVAL;
	}
	if (hdr->flags & ERI_WIRE_LAST)
		eri_sim_resp_msg_end(r, hdr, psn, ERI_CQE_OP_RECV, off + len);
	return 0;
}

/* Place a WRITE or WRITE_IMM packet.  Return: 0 when placed. */
static int eri_sim_resp_write_locked(struct eri_sim_qp *qp,
				     const struct eri_wire_hdr *hdr, u32 psn,
				     const struct eri_sim_rx_pkt *pkt,
				     bool in_order)
{
	struct eri_sim_mr_cache *mrc = eri_sim_resp_mrc(qp);
	u64 raddr = be64_to_cpu(hdr->raddr), end;
	u32 off = be32_to_cpu(hdr->offset), len = pkt->len;
	struct eri_sim_rwqe *r = NULL;
	struct eri_sim_mr *mr;

	lockdep_assert_held(&qp->lock);
	if (hdr->opcode == ERI_OP_WRITE_IMM) {
		r = eri_sim_resp_msg_rwqe_locked(qp, hdr, psn, in_order);
		if (!r)
			return -EAGAIN;
	}
	if (len) {
		if (!(qp->access & ERI_MR_ACCESS_REMOTE_WRITE) ||
		    check_add_overflow(raddr, (u64)off, &raddr) ||
		    check_add_overflow(raddr, (u64)len, &end) ||
		    eri_sim_mr_get_cached(qp->sdev, mrc, be32_to_cpu(hdr->rkey),
					  qp->pdn, ERI_MR_ACCESS_REMOTE_WRITE,
					  raddr, len, &mr))
			goto err_access;
		if (eri_sim_mr_place(qp->sdev, mr, raddr, pkt->cur, pkt->off,
				     len)) {
			eri_sim_mr_put_cached(mrc, mr);
			goto err_access;
		}
		eri_sim_mr_put_cached(mrc, mr);
	}
	if (r && (hdr->flags & ERI_WIRE_LAST)) {
		if (off > U32_MAX - len)
			goto err_access;
		eri_sim_resp_msg_end(r, hdr, psn, ERI_CQE_OP_RECV_WRITE_IMM,
				     off + len);
	}
	return 0;

err_access:
	if (in_order)
		eri_sim_resp_fail_locked(qp, ERI_SYN_ACCESS_NAK, 0);
	return -EINVAL;
}

/**
 * eri_sim_read_seg - payload per response packet a READ request asks for
 * @aux: the request's aux: log2 of the path MTU (8 to 12), or the payload
 *	in bytes (ERI_WIRE_READ_SEG_MIN and more, in ERI_WIRE_SEG_ALIGN steps)
 * @own_max: eri_sim_seg_max() of the responder's link
 *
 * A payload in bytes is more than the path MTU the responder said it
 * takes (an ACK's seg_max): no more than its own link carries.  Pure.
 *
 * Return: the payload in bytes, or 0 for a request that cannot be answered.
 */
u32 eri_sim_read_seg(u32 aux, u32 own_max)
{
	if (aux >= 8 && aux <= 12)
		return 1U << aux;
	if (aux < ERI_WIRE_READ_SEG_MIN || aux > own_max ||
	    aux % ERI_WIRE_SEG_ALIGN)
		return 0;
	return aux;
}

/* eri_sim_read_seg() of a READ request for @qp. */
static u32 eri_sim_resp_read_seg(const struct eri_sim_qp *qp,
				 const struct eri_wire_hdr *hdr)
{
	return eri_sim_read_seg(be32_to_cpu(hdr->aux),
				eri_sim_dev_seg_max(qp->sdev));
}

/*
 * Answer a READ request, at its turn (@psn is the next expected PSN) or
 * again (@psn before it).  Return: the PSNs it takes, 0 when refused (the
 * QP is then in ERR).
 */
static u32 eri_sim_resp_read_locked(struct eri_sim_qp *qp,
				    const struct eri_wire_hdr *hdr, u32 psn)
{
	u32 mtu = eri_sim_resp_read_seg(qp, hdr);
	u32 len = be32_to_cpu(hdr->msg_len);
	u64 raddr = be64_to_cpu(hdr->raddr), end;
	struct eri_sim_mr *mr = NULL;
	u32 npkts, i;

	lockdep_assert_held(&qp->lock);
	if (!mtu) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK, 0);
		return 0;
	}
	npkts = len ? DIV_ROUND_UP(len, mtu) : 1;
	if (npkts > ERI_SIM_MAX_READ_RESP_PKTS) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK, 0);
		return 0;
	}
	if (len && (!(qp->access & ERI_MR_ACCESS_REMOTE_READ) ||
		    check_add_overflow(raddr, (u64)len, &end) ||
		    eri_sim_mr_get(qp->sdev, be32_to_cpu(hdr->rkey), qp->pdn,
				   ERI_MR_ACCESS_REMOTE_READ, raddr, len, &mr))) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_ACCESS_NAK, 0);
		return 0;
	}
	/* The responses leave as super-packets, after what was built. */
	eri_sim_txb_flush(qp);
	for (i = 0; i < npkts; i++) {
		u32 off = i * mtu, plen = min(mtu, len - off);
		struct eri_wire_hdr rh = {
			.version = READ_ONCE(qp->sdev->wire_version),
			.opcode = ERI_OP_READ_RESP,
			.flags = (i ? 0 : ERI_WIRE_FIRST) |
				 (i == npkts - 1 ? ERI_WIRE_LAST : 0),
			.dqpn = cpu_to_be32(qp->dest_qpn),
			.sqpn = cpu_to_be32(qp->qpn),
			.psn = cpu_to_be32(eri_psn_add(psn, i)),
			/* Every PSN before the request arrived. */
			.ack_psn = cpu_to_be32(psn),
			.msg_len = cpu_to_be32(len),
			.offset = cpu_to_be32(off),
			.ts_echo = hdr->ts,
		};

		/* Not sent: the requester asks again. */
		if (eri_sim_txb_add_mr(qp, &rh, mr, raddr + off, plen))
			break;
		eri_sim_stat_add(qp->sdev, ERI_STAT_TX_BYTES, plen);
	}
	eri_sim_txb_flush(qp);
	if (mr)
		eri_sim_mr_put(mr);
	return npkts;
}

/* Send the ATOMIC_RESP of the request @hdr at @psn, with @orig. */
static void eri_sim_resp_atomic_send_locked(struct eri_sim_qp *qp,
					    const struct eri_wire_hdr *hdr,
					    u32 psn, u64 orig)
{
	struct eri_wire_atomic_resp *ar;
	struct eri_wire_hdr *rh;
	struct sk_buff *skb;

	lockdep_assert_held(&qp->lock);
	skb = eri_sim_pkt_alloc(qp, sizeof(*ar), &rh);
	if (!skb)
		return;		/* the requester asks again: answered then */
	ar = (void *)(rh + 1);
	ar->orig = cpu_to_be64(orig);
	rh->opcode = ERI_OP_ATOMIC_RESP;
	rh->flags = ERI_WIRE_FIRST | ERI_WIRE_LAST;
	rh->dqpn = cpu_to_be32(qp->dest_qpn);
	rh->sqpn = cpu_to_be32(qp->qpn);
	rh->psn = cpu_to_be32(psn);
	/* Every PSN before the request arrived. */
	rh->ack_psn = cpu_to_be32(psn);
	rh->msg_len = cpu_to_be32(ERI_ATOMIC_LEN);
	rh->ts_echo = hdr->ts;
	eri_sim_stat_add(qp->sdev, ERI_STAT_TX_BYTES, sizeof(*ar));
	eri_sim_pkt_xmit(qp, skb);
}

/*
 * Execute an ATOMIC request at its turn (@psn is the next expected PSN):
 * check it whole before memory is touched, execute it once, keep its result
 * for duplicates and answer it.  @ops is its payload of @len bytes.
 * Return: the PSNs it takes (1), 0 when refused (the QP is then in ERR).
 */
static u32 eri_sim_resp_atomic_locked(struct eri_sim_qp *qp,
				      const struct eri_wire_hdr *hdr,
				      const void *ops, u32 len, u32 psn)
{
	u64 raddr = be64_to_cpu(hdr->raddr), end, orig;
	u32 op = be32_to_cpu(hdr->aux);
	struct eri_wire_atomic a;
	struct eri_sim_mr *mr;
	int ret;

	lockdep_assert_held(&qp->lock);
	if (len != sizeof(a) ||
	    be32_to_cpu(hdr->msg_len) != ERI_ATOMIC_LEN ||
	    (op != ERI_ATOMIC_CMP_SWP && op != ERI_ATOMIC_FETCH_ADD) ||
	    !IS_ALIGNED(raddr, ERI_ATOMIC_LEN)) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK, 0);
		return 0;
	}
	memcpy(&a, ops, sizeof(a));
	if (!(qp->access & ERI_MR_ACCESS_REMOTE_ATOMIC) ||
	    check_add_overflow(raddr, (u64)ERI_ATOMIC_LEN, &end) ||
	    eri_sim_mr_get(qp->sdev, be32_to_cpu(hdr->rkey), qp->pdn,
			   ERI_MR_ACCESS_REMOTE_ATOMIC, raddr, ERI_ATOMIC_LEN,
			   &mr)) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_ACCESS_NAK, 0);
		return 0;
	}
	ret = eri_sim_mr_atomic(qp->sdev, mr, raddr, op,
				be64_to_cpu(a.swap_add),
				be64_to_cpu(a.compare), &orig);
	eri_sim_mr_put(mr);
	if (ret) {
		eri_sim_resp_fail_locked(qp, ERI_SYN_ACCESS_NAK, 0);
		return 0;
	}
	eri_sim_ares_save(&qp->ares, psn, orig);
	eri_sim_resp_atomic_send_locked(qp, hdr, psn, orig);
	return 1;
}

/*
 * An ATOMIC request before the next expected PSN, executed already: answer
 * it with the result kept, never execute it again.  One whose result is no
 * longer kept (the requester overran its responder resources) is refused;
 * the QP carries on.
 */
static void eri_sim_resp_atomic_dup_locked(struct eri_sim_qp *qp,
					   const struct eri_wire_hdr *hdr,
					   u32 psn)
{
	u64 orig;

	lockdep_assert_held(&qp->lock);
	eri_sim_stat_add(qp->sdev, ERI_STAT_DUP_PKTS, 1);
	if (eri_sim_ares_find(&qp->ares, psn, &orig))
		eri_sim_resp_atomic_send_locked(qp, hdr, psn, orig);
	else
		eri_sim_send_ack_locked(qp, ERI_SYN_INV_REQ_NAK, psn, 0);
}

/*
 * Keep a READ or ATOMIC request that arrived ahead of a gap for its turn;
 * @ops and @len are an ATOMIC's operands (@len bytes of its payload).
 */
static void eri_sim_resp_keep_read_locked(struct eri_sim_qp *qp,
					  const struct eri_wire_hdr *hdr,
					  u32 psn,
					  const struct eri_wire_atomic *ops,
					  u32 len)
{
	struct eri_sim_pend_read *free;
	unsigned long i;

	lockdep_assert_held(&qp->lock);
	for_each_set_bit(i, &qp->pend_used, ERI_SIM_PEND_READS) {
		if (qp->pend_read[i].psn == psn) {
			eri_sim_stat_add(qp->sdev, ERI_STAT_DUP_PKTS, 1);
			return;
		}
	}
	i = find_first_zero_bit(&qp->pend_used, ERI_SIM_PEND_READS);
	if (i >= ERI_SIM_PEND_READS)
		return;		/* the requester asks again */
	__set_bit(i, &qp->pend_used);
	free = &qp->pend_read[i];
	free->psn = psn;
	free->arrived = (u32)ktime_get_ns();
	free->hdr = *hdr;
	free->len = len;
	if (len == sizeof(free->atomic))
		free->atomic = *ops;
}

/* Complete the messages whose every PSN arrived, in order. */
static void eri_sim_resp_complete_locked(struct eri_sim_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	while (qp->rq_take != qp->rq_ci && qp->state != ERI_QPS_ERR) {
		struct eri_sim_rwqe *r = eri_sim_resp_rwqe(qp, qp->rq_ci);

		if (!r->done || eri_psn_diff(qp->rmap.base, r->last_psn) <= 0)
			return;
		if (r->inv_rkey &&
		    eri_sim_mr_invalidate(qp->sdev, qp->pdn, r->inv_rkey)) {
			eri_sim_send_ack_locked(qp, ERI_SYN_ACCESS_NAK,
						r->last_psn, 0);
			eri_sim_qp_complete_recv_locked(qp, ERI_CQE_OP_RECV,
							ERI_CQE_STS_LOC_PROT_ERR,
							0, 0, 0, 0);
			eri_sim_qp_error_locked(qp, ERI_AEQE_QP_ACCESS_ERR);
			return;
		}
		eri_sim_qp_complete_recv_locked(qp, r->opcode,
						ERI_CQE_STS_SUCCESS,
						r->byte_len, r->flags, r->imm,
						r->inv_rkey);
	}
}

/*
 * The PSNs past the next expected one that a READ request at @psn takes,
 * 0 when none (it lies before it) or its header is bad (answering it then
 * fails the QP).
 */
static u32 eri_sim_resp_read_beyond(const struct eri_sim_qp *qp,
				    const struct eri_wire_hdr *hdr, u32 psn)
{
	u32 mtu = eri_sim_resp_read_seg(qp, hdr);
	u32 len = be32_to_cpu(hdr->msg_len);
	u32 npkts;
	s32 end;

	if (!mtu)
		return 0;
	npkts = len ? DIV_ROUND_UP(len, mtu) : 1;
	if (npkts > ERI_SIM_MAX_READ_RESP_PKTS)
		return 0;
	end = eri_psn_diff(eri_psn_add(psn, npkts), qp->rmap.base);
	return end > 0 ? end : 0;
}

/*
 * Answer a READ request that starts at or before the next expected PSN
 * (kept for its turn, or asked again) and move that PSN past it.  Asked
 * again, a READ may run on past the next expected PSN: the requester asks
 * for every PSN of the READ not yet delivered in one request, across the
 * requests it first sent, and some of those may have been lost.  Every
 * PSN answered must end up before the next expected one, or the requester
 * (which has its responses) would never send it again and the responder
 * would wait for it forever.  Return: false when refused (QP in ERR).
 */
static bool eri_sim_resp_read_at_locked(struct eri_sim_qp *qp,
					const struct eri_wire_hdr *hdr,
					u32 psn)
{
	u32 beyond = eri_sim_resp_read_beyond(qp, hdr, psn);

	lockdep_assert_held(&qp->lock);
	if (!eri_sim_resp_read_locked(qp, hdr, psn))
		return false;
	if (beyond)
		eri_sim_psn_map_advance(&qp->rmap, beyond);
	return true;
}

/*
 * A kept request's turn came: its responses echo its timestamp plus the
 * time it waited, so that the requester's RTT sample measures the path,
 * not the gap it waited behind (a loss and its repair).  0 (no timestamp)
 * stays.
 */
static void eri_sim_resp_add_wait(struct eri_sim_pend_read *read)
{
	u32 ts = be32_to_cpu(read->hdr.ts);

	if (ts)
		read->hdr.ts = cpu_to_be32(ts + ((u32)ktime_get_ns() -
						 read->arrived));
}

/*
 * Move the next expected PSN over what arrived, completing messages and
 * executing kept READ requests as their turn comes.
 */
static void eri_sim_resp_drain_locked(struct eri_sim_qp *qp)
{
	unsigned long i;

	lockdep_assert_held(&qp->lock);
	for (;;) {
		struct eri_sim_pend_read *read = NULL;
		u32 n = eri_sim_psn_map_run(&qp->rmap);

		eri_sim_psn_map_advance(&qp->rmap, n);
		eri_sim_resp_complete_locked(qp);
		if (qp->state == ERI_QPS_ERR)
			return;
		for_each_set_bit(i, &qp->pend_used, ERI_SIM_PEND_READS) {
			struct eri_sim_pend_read *p = &qp->pend_read[i];

			if (eri_psn_diff(p->psn, qp->rmap.base) > 0)
				continue;
			__clear_bit(i, &qp->pend_used);
			/* Its turn, or overtaken: what it asks for past
			 * the next expected PSN is still to be answered.
			 */
			if (p->psn == qp->rmap.base ||
			    (p->hdr.opcode == ERI_OP_READ_REQ &&
			     eri_sim_resp_read_beyond(qp, &p->hdr, p->psn))) {
				read = p;
				break;
			}
		}
		if (!read)
			return;
		eri_sim_resp_add_wait(read);
		if (read->hdr.opcode == ERI_OP_ATOMIC_REQ) {
			n = eri_sim_resp_atomic_locked(qp, &read->hdr,
						       &read->atomic,
						       read->len, read->psn);
			if (!n)
				return;
			eri_sim_psn_map_advance(&qp->rmap, n);
		} else if (!eri_sim_resp_read_at_locked(qp, &read->hdr,
							read->psn)) {
			return;
		}
	}
}

static void eri_sim_resp_dup_locked(struct eri_sim_qp *qp, u32 psn)
{
	lockdep_assert_held(&qp->lock);
	eri_sim_stat_add(qp->sdev, ERI_STAT_DUP_PKTS, 1);
	qp->ack_psn_trig = psn;
	eri_sim_send_ack_locked(qp, ERI_SYN_ACK, psn, 0);
}

/**
 * eri_sim_resp_rx_locked - a request for the responder
 * @qp: the QP
 * @hdr: the packet's header
 * @pkt: its payload
 *
 * qp->lock held.  Within a received batch (qp->rx_batch) the ACK that
 * single packets would send at once is left to the batch's end.
 */
void eri_sim_resp_rx_locked(struct eri_sim_qp *qp,
			    const struct eri_wire_hdr *hdr,
			    const struct eri_sim_rx_pkt *pkt)
{
	u32 psn = be32_to_cpu(hdr->psn) & ERI_PSN_MASK, len = pkt->len;
	struct eri_wire_atomic ops = {};
	bool in_order, ack_now, new_hole;
	int ret;
	s32 d;

	lockdep_assert_held(&qp->lock);
	trace_eri_sim_resp_pkt(qp->sdev->ibdev_name, qp->qpn, psn,
			       hdr->opcode, len);
	if (qp->state != ERI_QPS_RTR && qp->state != ERI_QPS_RTS &&
	    qp->state != ERI_QPS_SQD)
		return;
	qp->ce_seen |= pkt->ce;
	qp->ts_recent = hdr->ts;
	d = eri_psn_diff(psn, qp->rmap.base);
	if (d < 0) {
		/*
		 * Already executed: READs again, ATOMICs answered from their
		 * kept result, the rest acknowledged.
		 */
		if (hdr->opcode == ERI_OP_READ_REQ) {
			eri_sim_stat_add(qp->sdev, ERI_STAT_DUP_PKTS, 1);
			if (eri_sim_resp_read_at_locked(qp, hdr, psn))
				eri_sim_resp_drain_locked(qp);
		} else if (hdr->opcode == ERI_OP_ATOMIC_REQ) {
			eri_sim_resp_atomic_dup_locked(qp, hdr, psn);
		} else {
			eri_sim_resp_dup_locked(qp, psn);
		}
		return;
	}
	if (d >= ERI_SIM_REL_WIN) {
		/* Beyond what the requester may have in flight. */
		eri_sim_stat_add(qp->sdev, ERI_STAT_RX_DROPS, 1);
		return;
	}
	in_order = !d;
	if (!in_order && (hdr->flags & ERI_WIRE_INORDER))
		return;		/* it waits for its turn: sent again */
	if (eri_sim_psn_map_test(&qp->rmap, psn)) {
		eri_sim_resp_dup_locked(qp, psn);
		return;
	}
	if (len > ERI_SIM_MAX_PAYLOAD) {
		if (in_order)
			eri_sim_resp_fail_locked(qp, ERI_SYN_INV_REQ_NAK, 0);
		return;
	}
	if (!in_order) {
		eri_sim_stat_add(qp->sdev, ERI_STAT_OOO_PKTS, 1);
		qp->ooo_pkts++;
	}
	switch (hdr->opcode) {
	case ERI_OP_SEND:
	case ERI_OP_SEND_IMM:
	case ERI_OP_SEND_INV:
		ret = eri_sim_resp_send_locked(qp, hdr, psn, pkt, in_order);
		break;
	case ERI_OP_WRITE:
	case ERI_OP_WRITE_IMM:
		ret = eri_sim_resp_write_locked(qp, hdr, psn, pkt, in_order);
		break;
	case ERI_OP_READ_REQ:
	case ERI_OP_ATOMIC_REQ:
		/* An ATOMIC's operands, if its payload is what they take. */
		if (len == sizeof(ops) &&
		    eri_sim_skb_cur_copy(pkt->cur, pkt->off, &ops,
					 sizeof(ops)))
			return;
		if (in_order) {
			if (hdr->opcode == ERI_OP_ATOMIC_REQ) {
				ret = eri_sim_resp_atomic_locked(qp, hdr,
								 &ops, len,
								 psn);
				if (!ret)
					return;
				eri_sim_psn_map_advance(&qp->rmap, ret);
			} else if (!eri_sim_resp_read_at_locked(qp, hdr,
								psn)) {
				return;
			}
			eri_sim_resp_drain_locked(qp);
		} else {
			eri_sim_resp_keep_read_locked(qp, hdr, psn, &ops,
						      len);
			eri_sim_send_ack_locked(qp, ERI_SYN_ACK, psn, 0);
		}
		return;
	default:
		if (in_order)
			eri_sim_resp_fail_locked(qp, ERI_SYN_OP_NAK, 0);
		return;
	}
	if (ret)
		return;
	/* The first packet past a hole: the requester's first evidence. */
	new_hole = !in_order &&
		   !eri_sim_psn_map_test(&qp->rmap, eri_psn_add(psn, -1));
	eri_sim_psn_map_set(&qp->rmap, psn);
	eri_sim_resp_drain_locked(qp);
	if (qp->state == ERI_QPS_ERR)
		return;
	qp->ack_psn_trig = psn;
	/*
	 * At once: what the requester asks for, the first packet past a new
	 * hole and a packet that closes one (ePSN jumps over the PSNs after
	 * it); then every ERI_SIM_ACK_EVERY-th packet, while a hole is open
	 * too: the next ACK reports ERI_SIM_ACK_EVERY more PSNs past the
	 * hole, more than the requester needs to declare it lost, and under
	 * loss (a hole open most of the time) ACKs sent more often cost the
	 * CPU as much as the data.  The delayed ACK covers the rest; queued,
	 * not active: a callback about to return has already sent its ACK.
	 */
	ack_now = new_hole ||
		  (hdr->flags & (ERI_WIRE_ACK_REQ | ERI_WIRE_PROBE)) ||
		  (in_order && eri_psn_diff(qp->rmap.base, psn) > 1) ||
		  ++qp->unacked >= ERI_SIM_ACK_EVERY;
	if (ack_now && qp->rx_batch)
		qp->ack_due = true;
	else if (ack_now)
		eri_sim_send_ack_locked(qp, ERI_SYN_ACK, psn, 0);
	else if (!hrtimer_is_queued(&qp->ack_timer))
		hrtimer_start(&qp->ack_timer, ns_to_ktime(ERI_SIM_DELACK_NS),
			      HRTIMER_MODE_REL_SOFT);
}

/**
 * eri_sim_resp_batch_ack_locked - the ACK a received batch asked for
 * @qp: the QP
 *
 * qp->lock held.  One ACK for every packet of the batch that would have
 * asked for one on its own.
 */
void eri_sim_resp_batch_ack_locked(struct eri_sim_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state == ERI_QPS_RTR || qp->state == ERI_QPS_RTS ||
	    qp->state == ERI_QPS_SQD)
		eri_sim_send_ack_locked(qp, ERI_SYN_ACK, qp->ack_psn_trig, 0);
}

/**
 * eri_sim_resp_ack_timeout_locked - the delayed ACK is due
 * @qp: the QP
 *
 * qp->lock held.
 */
void eri_sim_resp_ack_timeout_locked(struct eri_sim_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (qp->unacked && (qp->state == ERI_QPS_RTR ||
			    qp->state == ERI_QPS_RTS ||
			    qp->state == ERI_QPS_SQD))
		eri_sim_send_ack_locked(qp, ERI_SYN_ACK, qp->ack_psn_trig, 0);
}
