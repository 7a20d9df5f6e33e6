// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim unreliable datagrams: the send and receive paths of UD queue pairs
 * and of the GSI QP (QPN 1), which carries ib_mad's MADs and so the
 * connection manager's.  A UD message is one packet: it completes once it
 * is handed to the network, is never acknowledged, and a receiver with no
 * receive WQE or another Q_Key drops it.  The receive buffer gets the
 * packet's network header as the 40-byte GRH, then the payload.  Each
 * datagram's family follows from its GIDs: IPv4-mapped, or IPv6.
 *
 * Everything here runs with qp->lock held.  The route of the last
 * destination stays in the QP's dst_cache, keyed by qp->saddr and
 * qp->daddr (and qp->ipv6), which a UD QP uses for nothing else.
 */
#include <linux/bitfield.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/dsfield.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "eri_sim_qp.h"

/* Bytes of the GRH at the start of every UD receive buffer. */
#define ERI_SIM_GRH_LEN		40

/* A UD send WQE as the device copied and checked it. */
struct eri_sim_ud_wqe {
	struct in6_addr saddr;
	struct in6_addr daddr;
	bool ipv6;
	u32 dest_qpn;
	u32 qkey;
	u32 flow_label;
	u8 hop_limit;
	u8 tclass;
};

/*
 * The largest UD message: the port's active MTU, the largest IB MTU whose
 * payload fits in the netdev's MTU after the headers of the largest
 * family the device carries (as the driver computes it for the port), in
 * either family.
 */
static u32 eri_sim_ud_max_len(struct eri_sim_dev *sdev)
{
	u32 overhead = IS_ENABLED(CONFIG_IPV6) ? ERI_PKT_OVERHEAD_IPV6 :
						 ERI_PKT_OVERHEAD_IPV4;
	u32 link = READ_ONCE(sdev->netdev->mtu);
	u32 mtu = ERI_SIM_UD_MAX_PAYLOAD;

	while (mtu > 256 && mtu + overhead > link)
		mtu >>= 1;
	return mtu;
}

/*
 * Decode and check the UD WQE in @raw into @w (for its completion) and
 * @ud.  A failure is left in @w->status.
 */
static void eri_sim_ud_decode(struct eri_sim_qp *qp, struct eri_sim_swqe *w,
			      struct eri_sim_ud_wqe *ud, const u8 *raw)
{
	const struct eri_sq_wqe_hdr *h = (const void *)raw;
	const struct eri_sq_ud_av *av = (const void *)(h + 1);
	const struct eri_sge *sge = (const void *)(av + 1);
	u32 hdr = le32_to_cpu(h->hdr);
	int family;

	memset(w, 0, sizeof(*w));
	w->opcode = FIELD_GET(ERI_SQ_WQE_HDR_OPCODE, hdr);
	w->signaled = hdr & ERI_SQ_WQE_HDR_SIGNALED;
	w->solicited = hdr & ERI_SQ_WQE_HDR_SOLICITED;
	w->inline_data = hdr & ERI_SQ_WQE_HDR_INLINE;
	w->num_sge = FIELD_GET(ERI_SQ_WQE_HDR_NUM_SGE, hdr);
	w->imm = h->imm_data;
	ud->dest_qpn = le32_to_cpu(av->dest_qpn);
	ud->qkey = le32_to_cpu(av->qkey);
	/* Bit 31 of the WQE's Q_Key asks for the QP's own. */
	if (ud->qkey & BIT(31))
		ud->qkey = qp->qkey;
	ud->hop_limit = av->hop_limit ? av->hop_limit : 64;
	ud->tclass = av->traffic_class;
	ud->flow_label = le32_to_cpu(av->flow_label);

	family = eri_sim_gid_family(av->sgid, av->dgid);
	if ((w->opcode != ERI_SQ_OP_SEND && w->opcode != ERI_SQ_OP_SEND_IMM) ||
	    ud->dest_qpn > ERI_PSN_MASK || !family) {
		w->status = ERI_CQE_STS_LOC_QP_OP_ERR;
		return;
	}
	memcpy(&ud->daddr, av->dgid, sizeof(ud->daddr));
	memcpy(&ud->saddr, av->sgid, sizeof(ud->saddr));
	ud->ipv6 = family == AF_INET6;
	/* The source must be an address of ours: no spoofing from a WQE. */
	if (!eri_sim_local_addr(qp->sdev, &ud->saddr)) {
		w->status = ERI_CQE_STS_LOC_QP_OP_ERR;
		return;
	}
	if (w->inline_data) {
		w->length = le32_to_cpu(h->length);
		if (w->length > ERI_SQ_UD_MAX_INLINE) {
			w->status = ERI_CQE_STS_LOC_QP_OP_ERR;
			return;
		}
		memcpy(w->data, sge, w->length);
	} else {
		w->status = eri_sim_swqe_sges(w, sge, ERI_SQ_UD_MAX_SGE,
					      ERI_SIM_UD_MAX_PAYLOAD);
		if (w->status)
			return;
	}
	if (w->length > eri_sim_ud_max_len(qp->sdev))
		w->status = ERI_CQE_STS_LOC_LEN_ERR;
}

/*
 * Copy the next WQE out of the send queue into @w and @ud.  Return: false
 * when the queue is empty (sq_need_kick is then set) or broken (the QP is
 * then in ERR).
 */
static bool eri_sim_ud_fetch_locked(struct eri_sim_qp *qp,
				    struct eri_sim_swqe **w,
				    struct eri_sim_ud_wqe *ud)
{
	u8 raw[ERI_SQ_UD_WQE_SIZE];
	int slot;

	/* Nothing is ever in flight: an empty queue asks for a kick. */
	slot = eri_sim_sq_fetch_locked(qp, true, raw);
	if (slot < 0)
		return false;
	*w = &qp->swqe[slot];
	eri_sim_ud_decode(qp, *w, ud, raw);
	return true;
}

/* Send the datagram of @w.  Return: the completion status. */
static u8 eri_sim_ud_send_locked(struct eri_sim_qp *qp,
				 const struct eri_sim_swqe *w,
				 const struct eri_sim_ud_wqe *ud)
{
	struct eri_wire_hdr *hdr;
	struct sk_buff *skb;

	skb = eri_sim_pkt_alloc(qp, w->length, &hdr);
	if (!skb)
		return ERI_CQE_STS_SUCCESS;	/* lost, as on the wire */
	hdr->opcode = w->opcode == ERI_SQ_OP_SEND_IMM ? ERI_OP_UD_SEND_IMM :
							ERI_OP_UD_SEND;
	hdr->flags = ERI_WIRE_FIRST | ERI_WIRE_LAST |
		     (w->solicited ? ERI_WIRE_SOLICITED : 0);
	hdr->dqpn = cpu_to_be32(ud->dest_qpn);
	hdr->sqpn = cpu_to_be32(qp->qpn);
	hdr->msg_len = cpu_to_be32(w->length);
	hdr->rkey = cpu_to_be32(ud->qkey);
	if (w->opcode == ERI_SQ_OP_SEND_IMM)
		hdr->imm = w->imm;
	if (w->inline_data) {
		memcpy(hdr + 1, w->data, w->length);
	} else if (eri_sim_sgl_copy(qp, qp->pdn, w->sge, w->num_sge, 0,
				    hdr + 1, w->length, false)) {
		kfree_skb(skb);
		return ERI_CQE_STS_LOC_PROT_ERR;
	}
	if (!ipv6_addr_equal(&ud->saddr, &qp->saddr) ||
	    !ipv6_addr_equal(&ud->daddr, &qp->daddr)) {
		qp->saddr = ud->saddr;
		qp->daddr = ud->daddr;
		qp->ipv6 = ud->ipv6;
		dst_cache_reset(&qp->dst_cache);
	}
	qp->ttl = ud->hop_limit;
	qp->tclass = ud->tclass;
	qp->flow_label = ud->flow_label;
	eri_sim_stat_add(qp->sdev, ERI_STAT_TX_BYTES, w->length);
	eri_sim_pkt_xmit(qp, skb);
	return ERI_CQE_STS_SUCCESS;
}

/**
 * eri_sim_ud_run_locked - send what the send queue of a UD QP holds
 * @qp: a UD or GSI QP
 *
 * qp->lock held.  Sends at most ERI_SIM_TX_BUDGET datagrams and leaves the
 * rest to the QP's work.  Each WQE completes as its datagram leaves; a
 * malformed one fails and puts the QP in ERR.
 */
void eri_sim_ud_run_locked(struct eri_sim_qp *qp)
{
	u32 budget = ERI_SIM_TX_BUDGET;

	lockdep_assert_held(&qp->lock);
	if (qp->dead)
		return;
	if (qp->state == ERI_QPS_SQD) {
		/* Nothing is ever outstanding: drained at once. */
		if (!qp->drained_sent) {
			qp->drained_sent = true;
			eri_sim_aeq_post(qp->sdev, ERI_AEQE_SQ_DRAINED,
					 qp->qpn, 0);
		}
		return;
	}
	if (qp->state != ERI_QPS_RTS)
		return;
	while (budget) {
		struct eri_sim_ud_wqe ud;
		struct eri_sim_swqe *w;
		u8 status;

		if (!eri_sim_ud_fetch_locked(qp, &w, &ud))
			break;
		status = w->status ? w->status :
				     eri_sim_ud_send_locked(qp, w, &ud);
		qp->sq_send = qp->sq_fetch;
		eri_sim_req_complete_locked(qp, w, status);
		if (status) {
			/* The completion says why. */
			eri_sim_qp_error_locked(qp, 0);
			return;
		}
		if (qp->state != ERI_QPS_RTS)
			return;
		budget--;
	}
	if (!budget)
		queue_work(qp->sdev->qp_wq, &qp->tx_work);
}

/*
 * Take the next receive WQE into @r.  Return: 1 when there is one, 0 when
 * the queue is empty, -EINVAL when the WQE or the index is malformed (the
 * QP is then in ERR).
 */
static int eri_sim_ud_take_rwqe_locked(struct eri_sim_qp *qp,
				       struct eri_sim_rwqe *r)
{
	int ret;
	u16 pi;

	if (qp->srq) {
		ret = eri_sim_qp_take_srq_locked(qp, r);
		if (ret <= 0)
			return ret;
		/* Taken: it completes with the datagram, under this hold. */
		qp->rwqe[qp->rq_ci & (qp->rq_ahead - 1)].tag = r->tag;
		if (r->bad)
			goto err_bad_wqe;
		return 1;
	}
	pi = le32_to_cpu(READ_ONCE(qp->dbrec->rq_pi));
	if (pi == qp->rq_ci)
		return 0;
	if (eri_ring_used(pi, qp->rq_ci) > (1U << qp->rq_depth_log)) {
		eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
		return -EINVAL;
	}
	if (eri_sim_rq_read_locked(qp, qp->rq_ci, r))
		goto err_bad_wqe;
	return 1;

err_bad_wqe:
	eri_sim_qp_complete_recv_locked(qp, ERI_CQE_OP_RECV,
					ERI_CQE_STS_LOC_QP_OP_ERR, 0, 0, 0, 0);
	eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
	return -EINVAL;
}

/* Complete the receive WQE in use with the datagram's source. */
static void eri_sim_ud_complete_locked(struct eri_sim_qp *qp, u8 status,
				       u32 len, u32 flags, __be32 imm,
				       u32 src_qpn)
{
	struct eri_cqe cqe = {
		.hdr = cpu_to_le32(flags |
				   FIELD_PREP(ERI_CQE_HDR_OPCODE,
					      ERI_CQE_OP_RECV) |
				   FIELD_PREP(ERI_CQE_HDR_STATUS, status)),
		.qpn = cpu_to_le32(qp->qpn),
		.wqe_idx = cpu_to_le32(qp->rq_ci),
		.byte_len = cpu_to_le32(len),
		.imm_data = imm,
		.src_qpn = cpu_to_le32(src_qpn),
	};

	/* An SRQ WQE: named by the tag eri_sim_ud_take_rwqe_locked() kept. */
	if (qp->srq) {
		cqe.hdr |= cpu_to_le32(ERI_CQE_HDR_SRQ);
		cqe.wqe_idx = cpu_to_le32(qp->rwqe[qp->rq_ci &
						   (qp->rq_ahead - 1)].tag);
		cqe.srqn = cpu_to_le32(qp->srq->srqn);
	}
	qp->rq_ci++;
	/*
	 * A datagram takes its WQE and completes it under one hold of
	 * qp->lock: none is ever taken ahead of rq_ci.
	 */
	qp->rq_take = qp->rq_ci;
	if (eri_sim_cq_post(qp->rcq, &cqe) && qp->state != ERI_QPS_ERR)
		eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
}

/*
 * The GRH of a datagram in @skb, RoCEv2's layout: for IPv4, 20 bytes of
 * zeros and the IPv4 header (no options, checksum valid); for IPv6 the
 * fixed IPv6 header, next header UDP, without extension headers.
 * Return: the completion's flags for it.
 */
static u32 eri_sim_ud_grh(const struct sk_buff *skb, u32 len,
			  u8 grh[ERI_SIM_GRH_LEN])
{
	const struct ipv6hdr *src6 = ipv6_hdr(skb);
	struct iphdr *ip4 = (struct iphdr *)(grh + 20);
	struct ipv6hdr *ip6 = (struct ipv6hdr *)grh;

	memset(grh, 0, ERI_SIM_GRH_LEN);
	/* The version is where both families keep it. */
	if (ip_hdr(skb)->version == 4) {
		memcpy(ip4, ip_hdr(skb), sizeof(*ip4));
		ip4->ihl = 5;
		ip4->check = 0;
		ip4->check = ip_fast_csum(ip4, ip4->ihl);
		return ERI_CQE_HDR_GRH | ERI_CQE_HDR_IPV4;
	}
	ip6_flow_hdr(ip6, ipv6_get_dsfield(src6), ip6_flowlabel(src6));
	ip6->payload_len = htons(sizeof(struct udphdr) +
				 sizeof(struct eri_wire_hdr) + len);
	ip6->nexthdr = IPPROTO_UDP;
	ip6->hop_limit = src6->hop_limit;
	ip6->saddr = src6->saddr;
	ip6->daddr = src6->daddr;
	return ERI_CQE_HDR_GRH;
}

/*
 * A MAD, as the GSI QP takes them (IBA 13.4): 256 bytes whose common header
 * has base version 1 and names a class other than subnet management, which
 * travels on QP0 alone (and QP0 does not exist on RoCE).  Anything else
 * would reach ib_mad only to be dropped there, some of it with a line in
 * the kernel log per datagram.
 */
#define ERI_SIM_MAD_LEN			256
#define ERI_SIM_MAD_BASE_VERSION	1
#define ERI_SIM_MAD_CLASS_SUBN_LID	0x01
#define ERI_SIM_MAD_CLASS_SUBN_DR	0x81

static bool eri_sim_ud_is_mad(const struct eri_wire_hdr *hdr,
			      const struct eri_sim_rx_pkt *pkt)
{
	u8 mad[2];	/* base_version, mgmt_class */

	if (hdr->opcode != ERI_OP_UD_SEND || pkt->len != ERI_SIM_MAD_LEN ||
	    eri_sim_skb_cur_copy(pkt->cur, pkt->off, mad, sizeof(mad)))
		return false;
	return mad[0] == ERI_SIM_MAD_BASE_VERSION &&
	       mad[1] != ERI_SIM_MAD_CLASS_SUBN_LID &&
	       mad[1] != ERI_SIM_MAD_CLASS_SUBN_DR;
}

/**
 * eri_sim_ud_rx_locked - a packet for a UD or GSI QP
 * @qp: the QP the packet names
 * @hdr: its ERI header
 * @pkt: its payload, in a buffer whose network header is IPv4 or IPv6
 *
 * qp->lock held.  Datagrams the QP cannot take (state, opcode, Q_Key, no
 * receive WQE; for the GSI QP, no MAD) are dropped and counted; a receive
 * WQE too small for the GRH and the payload completes with LOC_LEN_ERR.
 */
void eri_sim_ud_rx_locked(struct eri_sim_qp *qp,
			  const struct eri_wire_hdr *hdr,
			  const struct eri_sim_rx_pkt *pkt)
{
	struct eri_sim_dev *sdev = qp->sdev;
	u32 len = pkt->len;
	u8 grh[ERI_SIM_GRH_LEN];
	struct eri_sim_rwqe r;
	u32 flags;
	int ret;

	lockdep_assert_held(&qp->lock);
	/* The opcode and lengths passed eri_sim_hdr_check(). */
	if (qp->dead ||
	    (qp->state != ERI_QPS_RTR && qp->state != ERI_QPS_RTS &&
	     qp->state != ERI_QPS_SQD) ||
	    be32_to_cpu(hdr->rkey) != qp->qkey)
		goto drop;
	if (qp->type == ERI_QPT_GSI && !eri_sim_ud_is_mad(hdr, pkt)) {
		eri_sim_stat_add(sdev, ERI_STAT_MAD_DROPS, 1);
		return;
	}
	ret = eri_sim_ud_take_rwqe_locked(qp, &r);
	if (ret <= 0)
		goto drop;
	eri_sim_stat_add(sdev, ERI_STAT_RX_PKTS, 1);
	eri_sim_stat_add(sdev, ERI_STAT_RX_BYTES, len);
	qp->rx_pkts++;
	if (r.length < ERI_SIM_GRH_LEN + len) {
		eri_sim_ud_complete_locked(qp, ERI_CQE_STS_LOC_LEN_ERR, 0, 0,
					   0, 0);
		return;
	}
	flags = eri_sim_ud_grh(pkt->cur->root, len, grh);
	if (eri_sim_sgl_copy(qp, r.pdn, r.sge, r.num_sge, 0, grh, sizeof(grh),
			     true) ||
	    eri_sim_sgl_place(qp, r.pdn, r.sge, r.num_sge, sizeof(grh), pkt,
			      NULL)) {
		eri_sim_ud_complete_locked(qp, ERI_CQE_STS_LOC_PROT_ERR, 0, 0,
					   0, 0);
		/* The completion says why. */
		eri_sim_qp_error_locked(qp, 0);
		return;
	}
	if (hdr->flags & ERI_WIRE_SOLICITED)
		flags |= ERI_CQE_HDR_SOLICITED;
	if (hdr->opcode == ERI_OP_UD_SEND_IMM)
		flags |= ERI_CQE_HDR_IMM;
	eri_sim_ud_complete_locked(qp, ERI_CQE_STS_SUCCESS,
				   ERI_SIM_GRH_LEN + len, flags,
				   flags & ERI_CQE_HDR_IMM ? hdr->imm : 0,
				   be32_to_cpu(hdr->sqpn) & ERI_PSN_MASK);
	return;

drop:
	eri_sim_stat_add(sdev, ERI_STAT_RX_DROPS, 1);
}
