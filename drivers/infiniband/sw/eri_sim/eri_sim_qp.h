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

#include <linux/eri/eri_wire_defs.h>
#include <linux/hrtimer.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <net/dst_cache.h>

#include "eri_sim.h"

/* Packets a QP may have unacknowledged (the congestion window's place). */
#define ERI_SIM_WINDOW_PKTS	128
/* Response packets one READ request asks for at most. */
#define ERI_SIM_READ_CHUNK_PKTS	32
/* Packets one run of the requester sends before it yields. */
#define ERI_SIM_TX_BUDGET	64
/* The requester asks for an ACK at least every this many packets. */
#define ERI_SIM_ACK_EVERY	8
/* Lower bound of the retransmission timeout. */
#define ERI_SIM_MIN_RTO_NS	(1 * NSEC_PER_MSEC)
#define ERI_SIM_DEFAULT_TIMEOUT	14
#define ERI_SIM_MAX_MSG_LEN	BIT(31)

struct eri_sim_cq {
	struct eri_sim_dev *sdev;
	/* Serializes the QPs that complete into this CQ. */
	spinlock_t lock;
	struct eri_cqe *ring;
	struct eri_cq_dbrec *dbrec;
	u32 cqn;
	u32 eqn;
	u32 depth_log;
	u16 pi;
	u32 arm_sn;		/* last arm sequence number answered */
	bool broken;		/* overran: writes nothing more */
	u32 users;		/* QPs completing into it; device context */
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
	union {
		struct eri_sim_sge sge[ERI_SQ_WQE_MAX_SGE];
		u8 data[ERI_SQ_WQE_MAX_INLINE];
		struct eri_sim_reg_mr reg;
	};
};

/* A receive WQE as the device copied and checked it. */
struct eri_sim_rwqe {
	u8 num_sge;
	u32 length;
	struct eri_sim_sge sge[ERI_RQ_WQE_MAX_SGE];
};

struct eri_sim_qp {
	struct eri_sim_dev *sdev;
	/* The table's reference plus one per user outside qp->lock. */
	refcount_t ref;
	struct completion unused;
	struct rcu_head rcu;
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
	u8 *sq;
	u8 *rq;
	struct eri_qp_dbrec *dbrec;
	u32 sq_depth_log;
	u32 rq_depth_log;

	/* Attributes from MODIFY_QP. */
	u32 access;
	u32 mtu;
	u32 mtu_log;
	u32 dest_qpn;
	__be32 saddr;
	__be32 daddr;
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
	u32 qkey;		/* UD and GSI */

	/* Counters: @sq_kicks any context, the others under @lock. */
	atomic64_t sq_kicks;
	u64 tx_pkts;
	u64 rx_pkts;
	u64 retrans_pkts;

	/* Requester. */
	struct eri_sim_swqe *swqe;	/* by SQ slot */
	u16 sq_fetch;		/* next ring index to copy */
	u16 sq_send;		/* WQE that holds snd_psn */
	u16 sq_comp;		/* oldest WQE not completed */
	u32 snd_psn;		/* next PSN to send */
	u32 snd_una;		/* oldest PSN not acknowledged */
	u32 snd_max;		/* first PSN never sent */
	ktime_t deadline;	/* when the timer is due */
	u32 rewound_at;		/* snd_una of the last fast rewind */
	u8 retries;
	u8 rnr_retries;
	bool rnr_wait;
	bool drained_sent;
	struct hrtimer timer;
	struct work_struct tx_work;

	/* Responder. */
	u32 epsn;		/* next PSN expected */
	bool nak_sent;		/* a SEQ_NAK for epsn is out */
	u16 rq_ci;		/* next receive WQE to take */
	bool in_msg;		/* a SEND or WRITE_IMM is half received */
	bool have_rwqe;		/* @rwqe is taken from the ring */
	u32 msg_off;		/* bytes of the message received */
	struct eri_sim_rwqe rwqe;
};

static inline u32 eri_psn_add(u32 psn, u32 n)
{
	return (psn + n) & ERI_PSN_MASK;
}

/* Signed distance a - b in the 24-bit PSN space. */
static inline s32 eri_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

static inline void eri_sim_stat_add(struct eri_sim_dev *sdev,
				    enum eri_stat stat, u64 val)
{
	this_cpu_add(sdev->stats->v[stat], val);
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
u8 eri_sim_destroy_qp(struct eri_sim_dev *sdev,
		      const struct eri_aq_destroy_qp_cmd *cmd);
void eri_sim_qps_destroy(struct eri_sim_dev *sdev);
struct eri_sim_qp *eri_sim_qp_get(struct eri_sim_dev *sdev, u32 qpn);
void eri_sim_qp_put(struct eri_sim_qp *qp);
void eri_sim_qp_doorbell(struct eri_sim_dev *sdev, u32 qpn, bool sq);
void eri_sim_qp_error_locked(struct eri_sim_qp *qp, u8 event);
void eri_sim_qp_flush_locked(struct eri_sim_qp *qp);
void eri_sim_qp_complete_recv_locked(struct eri_sim_qp *qp, u8 opcode,
				     u8 status, u32 len, u32 flags,
				     __be32 imm, u32 inv_rkey);
int eri_sim_sgl_copy(struct eri_sim_qp *qp, const struct eri_sim_sge *sge,
		     u32 num_sge, u32 off, void *buf, u32 len, bool to_sgl);

/* eri_sim_req.c */
void eri_sim_req_run_locked(struct eri_sim_qp *qp);
void eri_sim_req_rx_locked(struct eri_sim_qp *qp,
			   const struct eri_wire_hdr *hdr,
			   const void *payload, u32 len);
void eri_sim_req_timeout_locked(struct eri_sim_qp *qp);
void eri_sim_req_complete_locked(struct eri_sim_qp *qp,
				 struct eri_sim_swqe *w, u8 status);
u64 eri_sim_rto_ns(const struct eri_sim_qp *qp);
u64 eri_sim_rnr_ns(u8 timer);

/* eri_sim_resp.c */
void eri_sim_resp_rx_locked(struct eri_sim_qp *qp,
			    const struct eri_wire_hdr *hdr,
			    const void *payload, u32 len);

/* eri_sim_ud.c */
struct iphdr;
void eri_sim_ud_run_locked(struct eri_sim_qp *qp);
void eri_sim_ud_rx_locked(struct eri_sim_qp *qp, const struct iphdr *iph,
			  const struct eri_wire_hdr *hdr, const void *payload,
			  u32 len);

/* eri_sim_net.c */
int eri_sim_net_attach(struct eri_sim_dev *sdev);
void eri_sim_net_detach(struct eri_sim_dev *sdev);
int eri_sim_net_init(void);
void eri_sim_net_exit(void);
struct sk_buff *eri_sim_pkt_alloc(struct eri_sim_qp *qp, u32 payload_len,
				  struct eri_wire_hdr **hdr);
void eri_sim_pkt_xmit(struct eri_sim_qp *qp, struct sk_buff *skb);
void eri_sim_send_ack_locked(struct eri_sim_qp *qp, u8 syndrome, u32 psn,
			     u32 aux);

#endif /* _ERI_SIM_QP_H_ */
