/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * eri_sim data path: completion queues, queue pairs and the transport.
 *
 * Each queue pair has one lock, qp->lock, taken with bottom halves off; it
 * covers the requester (send queue, PSNs, retransmission), the responder
 * (receive queue, expected PSN) and the state.  Nothing on the data path takes
 * a device-wide lock: the QP and CQ tables are read under RCU, and a CQ has
 * its own lock, taken inside a QP's.
 */
#ifndef _ERI_SIM_QP_H_
#define _ERI_SIM_QP_H_

#include <linux/hrtimer.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <net/dst_cache.h>

#include "eri_sim.h"
#include "eri_sim_cc.h"
#include "eri_sim_rel.h"
#include "eri_wire_defs.h"

/*
 * Response packets one READ request asks for at most; and (with room in
 * the window) at least READ_MIN_PKTS, however small the send quantum.
 */
#define ERI_SIM_READ_CHUNK_PKTS	32
#define ERI_SIM_READ_MIN_PKTS	8
/* Packets one run of the requester sends before it yields. */
#define ERI_SIM_TX_BUDGET	128
/*
 * Packets in one super-packet at most, what UDP's segmentation offload
 * takes from a socket (UDP_MAX_SEGMENTS) and UDP GRO merges.
 */
#define ERI_SIM_GSO_MAX_SEGS	64
/*
 * The requester asks for an ACK at least every this many packets, and the
 * responder sends one every this many arrivals, in order or not.
 */
#define ERI_SIM_ACK_EVERY	8
/*
 * Lower bound of the retransmission timeout: RTT samples on a loaded or
 * emulated host jump by milliseconds; probes and SACK find most losses
 * long before it.
 */
#define ERI_SIM_MIN_RTO_NS	(5 * NSEC_PER_MSEC)
/*
 * Upper bound of the retransmission timeout, also after backoff: how long
 * the link may stay silent before the requester tries again.
 */
#define ERI_SIM_MAX_RTO_NS	(2ULL * NSEC_PER_SEC)
/*
 * Lower bound of the tail-loss probe timeout, TCP's (TCP_TIMEOUT_MIN_US).
 * The probe's timer is not cancelled when an ACK empties the window: it
 * fires once per timeout while messages flow, and a small one costs a
 * ping-pong a timer interrupt every few exchanges.
 */
#define ERI_SIM_MIN_PTO_NS	(2 * NSEC_PER_MSEC)
/* The responder acknowledges at the latest this long after a request. */
#define ERI_SIM_DELACK_NS	(100 * NSEC_PER_USEC)
/*
 * Polling a drained send queue (Documentation/infiniband/eri.rst): a look
 * at sq_pi this often, for a window after the last look that found work,
 * for a producer whose last ERI_SIM_SQ_POLL_STREAK kicks came within the
 * largest window of the device asking, with no request arriving since the
 * device took the producer's previous WQE.  The window starts at
 * ERI_SIM_SQ_POLL_WINDOW_NS and adapts within the bounds: doubled when the
 * producer kicks within it of the looks lapsing, halved when it does not.
 */
#define ERI_SIM_SQ_POLL_NS		(10 * NSEC_PER_USEC)
#define ERI_SIM_SQ_POLL_WINDOW_NS	(100 * NSEC_PER_USEC)
#define ERI_SIM_SQ_POLL_WINDOW_MIN_NS	(50 * NSEC_PER_USEC)
#define ERI_SIM_SQ_POLL_WINDOW_MAX_NS	(800 * NSEC_PER_USEC)
#define ERI_SIM_SQ_POLL_STREAK		3
/* ...and whose kicks each sent this many packets at most (small messages). */
#define ERI_SIM_SQ_POLL_MAX_PKTS	8
/* Receive WQEs the responder may take ahead of the one completing next. */
#define ERI_SIM_RQ_AHEAD	64
/*
 * READ and ATOMIC requests the responder keeps until the PSNs before them
 * arrive.
 */
#define ERI_SIM_PEND_READS	32
static_assert(ERI_SIM_PEND_READS <= BITS_PER_LONG);
#define ERI_SIM_DEFAULT_TIMEOUT	14
#define ERI_SIM_MAX_MSG_LEN	BIT(31)
/* Largest payload of one packet: the largest path MTU. */
#define ERI_SIM_MAX_PAYLOAD	4096
/* Largest payload of one UD packet: the largest path MTU. */
#define ERI_SIM_UD_MAX_PAYLOAD	4096

struct eri_sim_cq {
	struct eri_sim_dev *sdev;
	/* Serializes the QPs that complete into this CQ. */
	spinlock_t lock;
	struct eri_cqe *ring;
	struct eri_cq_dbrec *dbrec;
	u32 cqn;
	u32 eqn;
	u32 depth_log;
	u32 pi;			/* free-running, 32 bits: rings up to 2^22 */
	u32 arm_sn;		/* last arm sequence number answered */
	bool broken;		/* overran: writes nothing more */
	u32 users;		/* QPs completing into it; device context */
};

/*
 * A shared receive queue.  QPs attached to it (@users, device context
 * only, like cq->users) take its WQEs in ring order under @lock.
 */
struct eri_sim_srq {
	struct eri_sim_dev *sdev;
	/* Protects @ci, @limit, @arms and @broken; nests in qp->lock, a leaf. */
	spinlock_t lock;
	u32 srqn;
	u32 pdn;
	u32 depth_log;
	u8 *ring;
	struct eri_srq_dbrec *dbrec;
	u16 ci;			/* next WQE to take; free-running */
	u32 limit;		/* armed limit; 0: not armed */
	u32 arms;		/* MODIFY_SRQs of the limit so far */
	bool broken;		/* pi overran the ring: takes nothing more */
	u32 users;		/* QPs receiving from it; device context */
};

/* A scatter/gather element, as the device copied it. */
struct eri_sim_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

/* A send WQE as the device copied and checked it. */
struct eri_sim_swqe {
	u8 opcode;		/* enum eri_sq_opcode */
	u8 num_sge;
	bool signaled;
	bool solicited;
	bool fence;
	bool inline_data;
	u8 status;		/* not 0: fails when it reaches the head */
	bool started;		/* PSNs assigned */
	u32 length;
	__be32 imm;
	u32 inv_rkey;
	u32 rkey;
	u64 raddr;
	u32 first_psn;
	u32 end_psn;		/* first PSN after the WQE's */
	u32 seg;		/* payload per packet, from qp->seg when started */
	u32 msn;		/* SEND*, WRITE_IMM: receive message number */
	u64 swap_add;		/* CMP_SWP, FETCH_ADD: the operands */
	u64 compare;
	union {
		struct eri_sim_sge sge[ERI_SQ_WQE_MAX_SGE];
		u8 data[ERI_SQ_WQE_MAX_INLINE];
		struct eri_sim_reg_mr reg;
	};
};

/*
 * A receive WQE as the device copied and checked it, and the completion of
 * the message placed into it, once its last packet arrived (@done).
 */
struct eri_sim_rwqe {
	u8 num_sge;
	bool bad;		/* malformed: fails the QP when it completes */
	u32 tag;		/* SRQ WQEs: the producer's tag */
	u32 pdn;		/* the PD its keys must belong to */
	u32 length;
	struct eri_sim_sge sge[ERI_RQ_WQE_MAX_SGE];
	bool done;
	u8 opcode;		/* ERI_CQE_OP_RECV or _RECV_WRITE_IMM */
	u32 flags;		/* ERI_CQE_HDR_* */
	u32 byte_len;
	u32 last_psn;
	__be32 imm;
	u32 inv_rkey;		/* SEND_INV: invalidated when it completes */
};

/*
 * One received packet, a datagram or a segment of a super-packet: its
 * payload is @len bytes at offset @off of the buffer @cur reads, after the
 * ERI header.  The packets of a buffer share its cursor: they are read in
 * order.
 */
struct eri_sim_rx_pkt {
	struct eri_sim_skb_cur *cur;
	u32 off;
	u32 len;
	bool ce;		/* it arrived marked CE */
};

/*
 * The READ responses of a received batch, accounted at its end as one ACK
 * (eri_sim_req_rx_batch_end_locked()): PSNs delivered, the last RTT sample,
 * a congestion mark, the time of the last.
 */
struct eri_sim_rd_acct {
	u64 now;
	u32 acked;
	u32 rtt;
	bool ce;
	bool due;
};

/*
 * The super-packet the requester is building (eri_sim_gso.c): @nsegs
 * packets back to back in @skb's page fragments, every one @seg_len bytes
 * (ERI header and payload) but the last, which may be shorter and then
 * closes it (@closed).  @skb is NULL outside one hold of qp->lock.
 */
struct eri_sim_txb {
	struct sk_buff *skb;
	u32 seg_len;
	u32 nsegs;
	u32 max_segs;		/* what the route takes; 1: single packets */
	bool closed;
	u8 wfrag;		/* the fragment being filled */
	/*
	 * Bytes of frags[0] when it is a chunk of a page shared with other
	 * buffers (a small first packet's); 0 when it owns its page.
	 */
	u32 chunk_len;
	/*
	 * Zero copy: the payloads are the regions' own pages, the headers
	 * fragments of @hpage (from @hoff on free), a fragment each.
	 */
	bool zc;
	struct page *hpage;
	u32 hoff;
	/* Where fragments go: @skb, or the last buffer of its frag_list. */
	struct sk_buff *fskb;
};

/*
 * A READ or ATOMIC request that arrived before the PSNs ahead of it, at
 * @arrived (low 32 bits of the clock in ns); an ATOMIC's payload in
 * @atomic if @len (its payload's length) is right.  In use while its bit
 * in qp->pend_used is set.
 */
struct eri_sim_pend_read {
	u32 psn;
	u32 len;
	u32 arrived;
	struct eri_wire_hdr hdr;
	struct eri_wire_atomic atomic;
};

struct eri_sim_qp {
	struct eri_sim_dev *sdev;
	/* The table's reference plus one per user outside qp->lock. */
	refcount_t ref;
	struct completion unused;
	struct rcu_head rcu;
	/* In sdev->last_wqe_list while its QP_LAST_WQE waits for room. */
	struct list_head last_wqe;
	/* Protects everything below. */
	spinlock_t lock;
	bool dead;

	u32 qpn;
	u32 pdn;
	u8 type;		/* enum eri_qp_type */
	u8 state;		/* enum eri_qp_state */
	bool sig_all;
	struct eri_sim_cq *scq;
	struct eri_sim_cq *rcq;
	struct eri_sim_srq *srq;	/* receives from it; fixed at CREATE_QP */
	u8 *sq;
	u8 *rq;
	struct eri_qp_dbrec *dbrec;
	u32 sq_depth_log;
	u32 rq_depth_log;
	u8 sq_wqe_shift;	/* ERI_SQ_WQE_SHIFT, ERI_SQ_UD_WQE_SHIFT */

	/* Attributes from MODIFY_QP. */
	u32 access;
	u32 mtu;
	u32 mtu_log;
	/*
	 * Payload per packet of messages not yet started: the path MTU, or
	 * more once the peer said it takes more (eri_sim_seg_pick()).
	 */
	u32 seg;
	u32 peer_seg_max;	/* the peer's latest ACK's seg_max */
	u32 dest_qpn;
	/* The path's addresses; IPv4 ones mapped (::ffff:a.b.c.d). */
	struct in6_addr saddr;
	struct in6_addr daddr;
	bool ipv6;		/* saddr and daddr are IPv6 addresses */
	u8 ttl;
	u8 tclass;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u32 flow_label;
	u8 sgid[16];
	u8 dgid[16];
	/* RC: the peer's route.  UD: the last destination's (eri_sim_ud.c). */
	struct dst_cache dst_cache;
	/*
	 * While the receive path holds @lock: where the ACKs it sends wait,
	 * routed, to be handed to the stack after it lets go (a kick that
	 * answers the batch's completion must not wait for their transmission).
	 */
	struct sk_buff_head *ack_held;
	u32 qkey;		/* UD and GSI */

	/* Counters: @sq_kicks any context, the others under @lock. */
	atomic64_t sq_kicks;
	u64 tx_pkts;
	u64 rx_pkts;
	u64 tx_skbs;		/* buffers sent: a super-packet once */
	u64 rx_skbs;		/* buffers received: a super-packet once */
	u64 retrans_pkts;
	u64 ooo_pkts;

	/* Requester. */
	struct eri_sim_swqe *swqe;	/* by SQ slot */
	u16 sq_fetch;		/* next ring index to copy */
	/* Polling the drained send queue instead of asking for a kick. */
	struct hrtimer sq_poll_timer;
	u64 sq_asked_ns;	/* when sq_need_kick was last set */
	u64 sq_kick_pkts;	/* tx_pkts at the last kick */
	u64 sq_asked_pkts;	/* packets sent from that kick to the asking */
	u64 sq_poll_until_ns;	/* the looks end then; 0: not polling */
	u32 sq_poll_window_ns;	/* how long they go on finding nothing */
	u8 sq_streak;		/* kicks in a row that came soon after asking */
	bool sq_asked;		/* sq_need_kick set, no kick since */
	bool sq_poll_lapsed;	/* ...because the looks found nothing */
	bool sq_rx_seen;	/* a request arrived since a WQE was taken */
	bool sq_read_done;	/* the last WQE completed: a READ or ATOMIC */
	/* When the QP last answered a packet of another version. */
	u64 version_nak_ns;
	u16 sq_send;		/* WQE that holds the next new PSN (sb.nxt) */
	u16 sq_comp;		/* oldest WQE not completed */
	u16 sq_found;		/* the WQE a PSN was last found in */
	u32 snd_msn;		/* msn of the next SEND or WRITE_IMM */
	u32 inv_end_psn;	/* end_psn of the newest SEND_INV */
	bool inv_out;		/* @inv_end_psn not delivered yet */
	/*
	 * PSNs in flight; sb->nxt: next new PSN.  Apart from the QP so that
	 * neither needs more than an order-2 allocation (see the create).
	 */
	struct eri_sim_sb *sb;
	struct eri_sim_cc cc;	/* window, pacing and the RTT estimate */
	ktime_t deadline;	/* when the timer is due; KTIME_MAX: never */
	u64 rto_at;		/* ns: when the retransmission timeout is due */
	u64 progress_ns;	/* ns: last delivery, RNR NAK or start of a flight */
	u32 rto_win;		/* window after a timeout; 0: the cc's own */
	/*
	 * The first timeout not yet found genuine or spurious (ns; 0: none)
	 * and the oldest PSN in flight then, whose delivery decides
	 * (eri_sim_req_undo_locked()).
	 */
	u64 undo_ns;
	u32 undo_psn;
	u8 retries;		/* timeouts without progress */
	u8 rnr_retries;
	bool rnr_wait;
	bool timer_probe;	/* the timer due sends a tail-loss probe */
	bool probe_out;		/* a probe left since the last progress */
	bool drained_sent;
	struct hrtimer timer;
	struct hrtimer pace_timer;	/* the pacing time of the next packet */
	/* Sent since the last pacing step: PSNs, and bytes on the wire. */
	u32 pace_pkts;
	u32 pace_bytes;
	bool pace_wait;		/* the last run ended waiting for its time */
	/*
	 * The route device's gso_max_segs (within ERI_SIM_GSO_MAX_SEGS), as
	 * eri_sim_pkt_max_segs() last found it; 1 until it has.
	 */
	u32 route_segs;
	struct work_struct tx_work;
	struct eri_sim_txb txb;		/* the super-packet being built */
	struct eri_sim_mr_cache tx_mrc;	/* regions of the requester's run */

	/* Responder. */
	struct eri_sim_psn_map rmap;	/* rmap.base: next PSN expected */
	u16 rq_ci;		/* receive WQE that completes next */
	u16 rq_take;		/* next receive WQE to copy from the ring */
	u32 rcv_msn;		/* msn of the message for WQE @rq_ci */
	struct eri_sim_rwqe *rwqe;	/* @rq_ahead, by ring index */
	u16 rq_ahead;		/* WQEs it may take ahead: a power of two */
	struct eri_sim_pend_read pend_read[ERI_SIM_PEND_READS];
	unsigned long pend_used;	/* bit i: pend_read[i] in use */
	struct eri_sim_ares ares;	/* atomics executed, for duplicates */
	u32 unacked;		/* requests since the last ACK */
	u32 ack_psn_trig;	/* PSN of the request an ACK answers */
	__be32 ts_recent;	/* ts of that request, echoed */
	bool ce_seen;		/* a request arrived marked CE since the ACK */
	struct hrtimer ack_timer;

	/*
	 * A received buffer's packets go through the QP as a batch: one ACK
	 * and one run of the requester at its end, one region lookup for all.
	 */
	bool rx_batch;
	bool ack_due;		/* the responder acknowledges at its end */
	bool run_due;		/* the requester runs at its end */
	u64 run_due_ns;		/* at the time its ACKs were taken */
	struct eri_sim_rd_acct rd_acct;	/* its READ responses, together */
	struct eri_sim_mr_cache rx_mrc;
};

static inline void eri_sim_stat_add(struct eri_sim_dev *sdev,
				    enum eri_stat stat, u64 val)
{
	this_cpu_add(sdev->stats->v[stat], val);
}

/* Bytes of headers (IP, UDP, ERI) each packet of @qp adds on the wire. */
static inline u32 eri_sim_qp_hdrs(const struct eri_sim_qp *qp)
{
	return qp->ipv6 ? ERI_PKT_OVERHEAD_IPV6 : ERI_PKT_OVERHEAD_IPV4;
}

/* eri_sim_cq.c */
u8 eri_sim_create_cq(struct eri_sim_dev *sdev,
		     const struct eri_aq_create_cq_cmd *cmd);
u8 eri_sim_destroy_cq(struct eri_sim_dev *sdev,
		      const struct eri_aq_destroy_cq_cmd *cmd);
void eri_sim_cqs_destroy(struct eri_sim_dev *sdev);
struct eri_sim_cq *eri_sim_cq_find(struct eri_sim_dev *sdev, u32 cqn);
int eri_sim_cq_post(struct eri_sim_cq *cq, const struct eri_cqe *cqe);

/* eri_sim_qp.c */
u8 eri_sim_create_qp(struct eri_sim_dev *sdev,
		     const struct eri_aq_create_qp_cmd *cmd);
u8 eri_sim_modify_qp(struct eri_sim_dev *sdev,
		     const struct eri_aq_qp_attr_cmd *cmd);
u8 eri_sim_query_qp(struct eri_sim_dev *sdev,
		    const struct eri_aq_qp_attr_cmd *cmd);
u8 eri_sim_query_qp_cc(struct eri_sim_dev *sdev,
		       const struct eri_aq_qp_attr_cmd *cmd);
u8 eri_sim_destroy_qp(struct eri_sim_dev *sdev,
		      const struct eri_aq_destroy_qp_cmd *cmd);
void eri_sim_qps_destroy(struct eri_sim_dev *sdev);
void eri_sim_qp_last_wqe_retry(struct eri_sim_dev *sdev);
struct eri_sim_qp *eri_sim_qp_get(struct eri_sim_dev *sdev, u32 qpn);
void eri_sim_qp_put(struct eri_sim_qp *qp);
void eri_sim_qp_doorbell(struct eri_sim_dev *sdev, u32 qpn, bool sq);
void eri_sim_qp_error_locked(struct eri_sim_qp *qp, u8 event);
void eri_sim_qp_flush_locked(struct eri_sim_qp *qp);
void eri_sim_qp_complete_recv_locked(struct eri_sim_qp *qp, u8 opcode,
				     u8 status, u32 len, u32 flags,
				     __be32 imm, u32 inv_rkey);
int eri_sim_sq_fetch_locked(struct eri_sim_qp *qp, bool idle, u8 *raw);
u8 eri_sim_swqe_sges(struct eri_sim_swqe *w, const struct eri_sge *sge,
		     u32 max_sge, u64 max_len);
int eri_sim_rwqe_decode(const u8 *raw, struct eri_sim_rwqe *r);
int eri_sim_rq_read_locked(struct eri_sim_qp *qp, u16 idx,
			   struct eri_sim_rwqe *r);
int eri_sim_sgl_copy(struct eri_sim_qp *qp, u32 pdn,
		     const struct eri_sim_sge *sge, u32 num_sge, u32 off,
		     void *buf, u32 len, bool to_sgl);
int eri_sim_sgl_read(struct eri_sim_qp *qp, u32 pdn,
		     const struct eri_sim_sge *sge, u32 num_sge, u32 off,
		     void *buf, u32 len, struct eri_sim_mr_cache *mrc);
int eri_sim_sgl_attach(struct eri_sim_qp *qp, u32 pdn,
		       const struct eri_sim_sge *sge, u32 num_sge, u32 off,
		       u32 len, struct sk_buff *skb,
		       struct eri_sim_mr_cache *mrc);
int eri_sim_sgl_place(struct eri_sim_qp *qp, u32 pdn,
		      const struct eri_sim_sge *sge, u32 num_sge, u32 off,
		      const struct eri_sim_rx_pkt *pkt,
		      struct eri_sim_mr_cache *mrc);

/* eri_sim_srq.c */
u8 eri_sim_create_srq(struct eri_sim_dev *sdev,
		      const struct eri_aq_create_srq_cmd *cmd);
u8 eri_sim_modify_srq(struct eri_sim_dev *sdev,
		      const struct eri_aq_modify_srq_cmd *cmd);
u8 eri_sim_query_srq(struct eri_sim_dev *sdev,
		     const struct eri_aq_query_srq_cmd *cmd,
		     struct eri_aq_query_srq_resp *resp);
u8 eri_sim_destroy_srq(struct eri_sim_dev *sdev,
		       const struct eri_aq_destroy_srq_cmd *cmd);
void eri_sim_srqs_destroy(struct eri_sim_dev *sdev);
struct eri_sim_srq *eri_sim_srq_find(struct eri_sim_dev *sdev, u32 srqn);
int eri_sim_srq_take(struct eri_sim_srq *srq, struct eri_sim_rwqe *r);
int eri_sim_qp_take_srq_locked(struct eri_sim_qp *qp, struct eri_sim_rwqe *r);

/* eri_sim_req.c */
void eri_sim_req_run_locked(struct eri_sim_qp *qp);
void eri_sim_req_run_at_locked(struct eri_sim_qp *qp, u64 now);
void eri_sim_req_kicked_locked(struct eri_sim_qp *qp, u64 now);
void eri_sim_req_sq_poll_locked(struct eri_sim_qp *qp);
void eri_sim_req_version_nak_locked(struct eri_sim_qp *qp);
void eri_sim_req_rx_locked(struct eri_sim_qp *qp,
			   const struct eri_wire_hdr *hdr,
			   const struct eri_sim_rx_pkt *pkt);
void eri_sim_req_rx_batch_end_locked(struct eri_sim_qp *qp);
void eri_sim_req_timeout_locked(struct eri_sim_qp *qp);
void eri_sim_req_complete_locked(struct eri_sim_qp *qp,
				 struct eri_sim_swqe *w, u8 status);
void eri_sim_req_reset_locked(struct eri_sim_qp *qp, u32 psn);
u64 eri_sim_ack_timeout_ns(const struct eri_sim_qp *qp);
u64 eri_sim_rnr_ns(u8 timer);

/* eri_sim_resp.c */
void eri_sim_resp_rx_locked(struct eri_sim_qp *qp,
			    const struct eri_wire_hdr *hdr,
			    const struct eri_sim_rx_pkt *pkt);
void eri_sim_resp_reset_locked(struct eri_sim_qp *qp, u32 psn);
void eri_sim_resp_ack_timeout_locked(struct eri_sim_qp *qp);
void eri_sim_resp_batch_ack_locked(struct eri_sim_qp *qp);

/* eri_sim_ud.c */
void eri_sim_ud_run_locked(struct eri_sim_qp *qp);
void eri_sim_ud_rx_locked(struct eri_sim_qp *qp,
			  const struct eri_wire_hdr *hdr,
			  const struct eri_sim_rx_pkt *pkt);

/* eri_sim_net.c */

/**
 * enum eri_sim_rx_verdict - what a received packet's bytes alone say
 * @ERI_SIM_RX_RC_REQ: an RC request, for the responder (which answers an
 *	opcode it does not know, a UD one included, with a NAK)
 * @ERI_SIM_RX_RC_RESP: an ACK or READ response, for the requester
 * @ERI_SIM_RX_UD: a UD datagram whose length is consistent
 * @ERI_SIM_RX_UD_BAD_LEN: a UD opcode, but a payload larger than a UD
 *	message or than its @msg_len says: a UD QP drops it
 * @ERI_SIM_RX_DROP_SHORT: shorter than the ERI header: dropped
 * @ERI_SIM_RX_DROP_VERSION: another wire version: dropped
 *
 * A UD QP takes only ERI_SIM_RX_UD; an RC QP everything not dropped.
 * Every drop counts in ERI_STAT_RX_DROPS of the device the packet is
 * addressed to.
 */
enum eri_sim_rx_verdict {
	ERI_SIM_RX_RC_REQ,
	ERI_SIM_RX_RC_RESP,
	ERI_SIM_RX_UD,
	ERI_SIM_RX_UD_BAD_LEN,
	ERI_SIM_RX_DROP_SHORT,
	ERI_SIM_RX_DROP_VERSION,
};

/*
 * Whether a QP of type @qpt (enum eri_qp_type) takes a packet of verdict
 * @v; if not, the packet counts in ERI_STAT_RX_DROPS.
 */
static inline bool eri_sim_rx_takes(enum eri_sim_rx_verdict v, u8 qpt)
{
	if (v == ERI_SIM_RX_DROP_SHORT || v == ERI_SIM_RX_DROP_VERSION)
		return false;
	return qpt == ERI_QPT_RC || v == ERI_SIM_RX_UD;
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Static unless KUnit can test it (VISIBLE_IF_KUNIT). */
enum eri_sim_rx_verdict eri_sim_hdr_check(const void *buf, unsigned int len,
					  u8 version);
struct sk_buff *eri_sim_txb_finish(struct eri_sim_qp *qp);
void eri_sim_req_ask_locked(struct eri_sim_qp *qp, u64 now);
#endif
int eri_sim_net_attach(struct eri_sim_dev *sdev);
u32 eri_sim_pkt_max_segs(struct eri_sim_qp *qp, u32 seg_len);
void eri_sim_net_detach(struct eri_sim_dev *sdev);
int eri_sim_net_init(void);
void eri_sim_net_exit(void);
struct sk_buff *eri_sim_pkt_alloc(struct eri_sim_qp *qp, u32 payload_len,
				  struct eri_wire_hdr **hdr);
void eri_sim_pkt_xmit(struct eri_sim_qp *qp, struct sk_buff *skb);
void eri_sim_pkt_xmit_ack(struct eri_sim_qp *qp, struct sk_buff *skb);
void eri_sim_pkt_xmit_held(struct eri_sim_dev *sdev, struct sk_buff_head *held);
int eri_sim_gid_family(const u8 *sgid, const u8 *dgid);
bool eri_sim_local_addr(struct eri_sim_dev *sdev, const struct in6_addr *addr);
void eri_sim_send_ack_locked(struct eri_sim_qp *qp, u8 syndrome, u32 psn,
			     u32 aux);

/* eri_sim_req.c: payload per packet */
u32 eri_sim_seg_max(u32 link_mtu);
u32 eri_sim_seg_pick(u32 path_mtu, u32 own_max, u32 peer_max);
/* eri_sim_resp.c */
u32 eri_sim_read_seg(u32 aux, u32 own_max);

/* eri_sim_seg_max() of @sdev's netdev as it is now. */
static inline u32 eri_sim_dev_seg_max(const struct eri_sim_dev *sdev)
{
	return eri_sim_seg_max(READ_ONCE(sdev->netdev->mtu));
}

/* eri_sim_gso.c */
u32 eri_sim_gso_max_segs(u32 seg_len, u32 hdrs, u32 dev_max_size,
			 u32 dev_max_segs);
int eri_sim_txb_add(struct eri_sim_qp *qp, const struct eri_wire_hdr *hdr,
		    const struct eri_sim_swqe *w, u32 off, u32 len, bool alone);
int eri_sim_txb_add_mr(struct eri_sim_qp *qp, const struct eri_wire_hdr *hdr,
		       struct eri_sim_mr *mr, u64 iova, u32 len);
void eri_sim_txb_flush(struct eri_sim_qp *qp);
bool eri_sim_rx_split(const struct sk_buff *skb, u32 *seg_len, u32 *nsegs,
		      struct eri_wire_hdr *first);

#endif /* _ERI_SIM_QP_H_ */
