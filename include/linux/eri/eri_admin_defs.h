/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ERI admin queue: command and completion formats.
 *
 * A command is one 64-byte submission entry; the device answers with one
 * 32-byte completion entry carrying the command's cookie, a status and up to
 * 24 bytes of response.  Larger responses are written by the device to a
 * buffer the command names.  All fields are little endian.
 */
#ifndef _ERI_ADMIN_DEFS_H_
#define _ERI_ADMIN_DEFS_H_

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/limits.h>
#include <linux/types.h>

enum eri_aq_opcode {
	ERI_AQ_OP_QUERY_DEVICE = 1,
	ERI_AQ_OP_QUERY_PORT = 2,
	ERI_AQ_OP_CREATE_EQ = 3,
	ERI_AQ_OP_DESTROY_EQ = 4,
	ERI_AQ_OP_REG_MR = 5,
	ERI_AQ_OP_DEREG_MR = 6,
	ERI_AQ_OP_CREATE_CQ = 7,
	ERI_AQ_OP_DESTROY_CQ = 8,
	ERI_AQ_OP_CREATE_QP = 9,
	ERI_AQ_OP_MODIFY_QP = 10,
	ERI_AQ_OP_QUERY_QP = 11,
	ERI_AQ_OP_DESTROY_QP = 12,
	ERI_AQ_OP_QUERY_STATS = 13,
	ERI_AQ_OP_SET_CC = 14,
	ERI_AQ_OP_CREATE_SRQ = 15,
	ERI_AQ_OP_MODIFY_SRQ = 16,
	ERI_AQ_OP_QUERY_SRQ = 17,
	ERI_AQ_OP_DESTROY_SRQ = 18,
	ERI_AQ_OP_QUERY_CC = 19,
	ERI_AQ_OP_QUERY_QP_CC = 20,
	ERI_AQ_OP_MAX,
};

enum eri_aq_status {
	ERI_AQ_STS_OK = 0,
	ERI_AQ_STS_BAD_OPCODE = 1,
	ERI_AQ_STS_BAD_PARAM = 2,
	ERI_AQ_STS_NO_RESOURCE = 3,
	ERI_AQ_STS_BAD_STATE = 4,
	ERI_AQ_STS_DMA_ERR = 5,
	ERI_AQ_STS_EXISTS = 6,
	ERI_AQ_STS_NOT_FOUND = 7,
};

#define ERI_AQ_SQE_SIZE			64
#define ERI_AQ_CQE_SIZE			32

/* Common header of every submission entry. */
struct eri_aq_cmd_hdr {
	__le32 hdr;
	__le32 reserved;
};

#define ERI_AQ_CMD_HDR_OPCODE		GENMASK(7, 0)
#define ERI_AQ_CMD_HDR_COOKIE		GENMASK(31, 16)

static_assert(sizeof(struct eri_aq_cmd_hdr) == 8);

/* Completion entry. */
struct eri_aq_cqe {
	__le32 hdr;
	__le32 reserved;
	u8 resp[24];
};

#define ERI_AQ_CQE_HDR_OWNER		BIT(0)
#define ERI_AQ_CQE_HDR_STATUS		GENMASK(15, 8)
#define ERI_AQ_CQE_HDR_COOKIE		GENMASK(31, 16)

static_assert(sizeof(struct eri_aq_cqe) == ERI_AQ_CQE_SIZE);

/*
 * QUERY_DEVICE: the device writes struct eri_aq_device_attr to resp_addr
 * before it completes the command.
 */
struct eri_aq_query_device_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le64 resp_addr;
	__le32 resp_len;
	u8 reserved[44];
};

static_assert(sizeof(struct eri_aq_query_device_cmd) == ERI_AQ_SQE_SIZE);

/* Device capability flags of struct eri_aq_device_attr. */
#define ERI_DEV_CAP_RC			BIT(0)
#define ERI_DEV_CAP_UD			BIT(1)
#define ERI_DEV_CAP_SRQ			BIT(2)
#define ERI_DEV_CAP_ATOMIC		BIT(3)
#define ERI_DEV_CAP_IMM			BIT(4)
#define ERI_DEV_CAP_FAST_REG		BIT(5)	/* REG_MR and LOCAL_INV WRs */
#define ERI_DEV_CAP_IPV6		BIT(6)	/* GIDs not IPv4-mapped */
#define ERI_DEV_CAP_CQ_PBL		BIT(7)	/* CQ rings by page list */
#define ERI_DEV_CAP_CC_NAMES		BIT(8)	/* QUERY_CC names cc_algos */
#define ERI_DEV_CAP_QP_CC		BIT(9)	/* QUERY_QP_CC */

struct eri_aq_device_attr {
	__le64 fw_version;
	__le64 max_mr_size;
	__le64 page_size_cap;
	__le32 hw_version;
	__le32 caps;			/* ERI_DEV_CAP_* */
	__le32 max_qp;
	__le32 max_cq;
	__le32 max_mr;
	__le32 max_pd;
	__le32 max_qp_wr;
	__le32 max_cqe;
	__le32 max_srq;
	__le32 max_srq_wr;
	__le32 max_ah;
	__le16 max_send_sge;
	__le16 max_recv_sge;
	__le16 max_inline_data;
	__le16 max_mtu;			/* bytes of payload per packet */
	u8 max_qp_rd_atom;
	u8 max_qp_init_rd_atom;
	u8 sq_wqe_shift;
	u8 rq_wqe_shift;
	u8 cqe_shift;
	u8 ud_sq_wqe_shift;		/* send WQEs of UD and GSI QPs */
	u8 reserved1[2];
	__le32 max_fast_reg_pages;	/* pages of a fast-registration region */
	__le32 cc_algos;		/* BIT(index) of each CC algorithm */
	u8 cc_default;			/* CC algorithm index after a reset */
	u8 reserved2[3];
	u8 reserved[32];
};

static_assert(sizeof(struct eri_aq_device_attr) == 128);

/* QUERY_PORT: the response sits in the completion entry. */
struct eri_aq_query_port_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le32 port;			/* 1 */
	u8 reserved[52];
};

static_assert(sizeof(struct eri_aq_query_port_cmd) == ERI_AQ_SQE_SIZE);

enum eri_port_state {
	ERI_PORT_DOWN = 0,
	ERI_PORT_ACTIVE = 1,
};

struct eri_aq_query_port_resp {
	__le32 state;			/* enum eri_port_state */
	__le32 link_mtu;		/* MTU of the network link in bytes */
	__le32 speed_mbps;		/* link speed, 0 when unknown */
	__le32 gid_tbl_len;
	u8 reserved[8];
};

static_assert(sizeof(struct eri_aq_query_port_resp) == 24);

/*
 * Bytes every packet carries on top of its payload: the IP header (IPv4 20,
 * IPv6 40), UDP 8 and the 80-byte ERI header.  The port's active MTU, which
 * is also the largest UD message, is the largest IB MTU whose payload fits
 * in link_mtu after the overhead of the largest family the device carries
 * (IPv6's with ERI_DEV_CAP_IPV6), so that it fits either family.
 */
#define ERI_PKT_OVERHEAD_IPV4		(20 + 8 + 80)
#define ERI_PKT_OVERHEAD_IPV6		(40 + 8 + 80)

/*
 * CREATE_EQ: a completion event queue of 2^depth_log entries at ring_addr,
 * signalled on interrupt vector @vector, whose consumer index the driver
 * also mirrors into the 8-byte doorbell record at dbrec_addr.
 */
struct eri_aq_create_eq_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le64 ring_addr;
	__le64 dbrec_addr;
	__le32 eqn;
	__le32 cfg;
	u8 reserved[32];
};

#define ERI_AQ_CREATE_EQ_DEPTH_LOG	GENMASK(4, 0)
#define ERI_AQ_CREATE_EQ_VECTOR		GENMASK(15, 8)

static_assert(sizeof(struct eri_aq_create_eq_cmd) == ERI_AQ_SQE_SIZE);

struct eri_aq_destroy_eq_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le32 eqn;
	u8 reserved[52];
};

static_assert(sizeof(struct eri_aq_destroy_eq_cmd) == ERI_AQ_SQE_SIZE);

/*
 * Memory region keys: the low 8 bits are a variant the driver changes each
 * time it reuses an index, the rest the index into the device's MR table.
 * lkey and rkey are the same key.
 */
#define ERI_MR_KEY_VARIANT		GENMASK(7, 0)
#define ERI_MR_KEY_INDEX		GENMASK(31, 8)

/* Access rights of a memory region (REG_MR cfg). */
#define ERI_MR_ACCESS_LOCAL_WRITE	BIT(0)
#define ERI_MR_ACCESS_REMOTE_READ	BIT(1)
#define ERI_MR_ACCESS_REMOTE_WRITE	BIT(2)
#define ERI_MR_ACCESS_REMOTE_ATOMIC	BIT(3)
#define ERI_MR_ACCESS_ALL		GENMASK(3, 0)

/*
 * REG_MR: region @key of PD @pdn covers [iova, iova + length).  A DMA region
 * (cfg DMA set) maps bus addresses one to one and has no page list.  Any
 * other region is backed by @npages pages of 2^page_shift bytes whose bus
 * addresses are the little-endian 64-bit entries of the page list at
 * pbl_addr; iova's offset into its page is the offset into the first page.
 * The device copies the page list before it completes the command.
 */
struct eri_aq_reg_mr_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le32 key;
	__le32 pdn;
	__le64 iova;
	__le64 length;
	__le64 pbl_addr;
	__le32 npages;
	__le32 cfg;
	u8 reserved[16];
};

#define ERI_AQ_REG_MR_ACCESS		GENMASK(3, 0)
/*
 * A fast-registration region: REG_MR only reserves @key for PD @pdn with
 * room for @npages pages; it is invalid until a REG_MR work request on a
 * send queue of the same PD fills it in (struct eri_sq_reg_mr), and a
 * LOCAL_INV work request or a SEND_INV from the peer makes it invalid again.
 * iova, length, pbl_addr and the other cfg fields are ignored.
 */
#define ERI_AQ_REG_MR_FAST_REG		BIT(6)
#define ERI_AQ_REG_MR_DMA		BIT(7)
#define ERI_AQ_REG_MR_PAGE_SHIFT	GENMASK(13, 8)

static_assert(sizeof(struct eri_aq_reg_mr_cmd) == ERI_AQ_SQE_SIZE);

/*
 * DEREG_MR: once it completes, no access through @key is in progress and
 * none will start.
 */
struct eri_aq_dereg_mr_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le32 key;
	u8 reserved[52];
};

static_assert(sizeof(struct eri_aq_dereg_mr_cmd) == ERI_AQ_SQE_SIZE);

/*
 * CREATE_CQ: completion queue @cqn of 2^depth_log 32-byte entries in the
 * physically contiguous ring at ring_addr, or with PBL (ERI_DEV_CAP_CQ_PBL)
 * in @npages pages of 2^page_shift bytes whose bus addresses are the
 * little-endian 64-bit entries of the page list at ring_addr (one page for
 * a ring smaller than a page); the device copies the page list before it
 * completes the command.  The consumer index and the arm request live in
 * the struct eri_cq_dbrec at dbrec_addr (eri_io_defs.h).  Completion
 * events go to completion event queue @eqn.
 */
struct eri_aq_create_cq_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le64 ring_addr;
	__le64 dbrec_addr;
	__le32 cqn;
	__le32 eqn;
	__le32 cfg;
	__le32 npages;
	u8 reserved[24];
};

#define ERI_AQ_CREATE_CQ_DEPTH_LOG	GENMASK(4, 0)
#define ERI_AQ_CREATE_CQ_PBL		BIT(7)
#define ERI_AQ_CREATE_CQ_PAGE_SHIFT	GENMASK(13, 8)

static_assert(sizeof(struct eri_aq_create_cq_cmd) == ERI_AQ_SQE_SIZE);

/*
 * DESTROY_CQ: once it completes the device writes nothing more to the ring,
 * the doorbell record or the event queue for @cqn.  Fails with BAD_STATE
 * while a queue pair still completes into the CQ.
 */
struct eri_aq_destroy_cq_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le32 cqn;
	u8 reserved[52];
};

static_assert(sizeof(struct eri_aq_destroy_cq_cmd) == ERI_AQ_SQE_SIZE);

enum eri_qp_type {
	ERI_QPT_RC = 0,
	/* Unreliable datagram: one packet per message, addressed per WQE. */
	ERI_QPT_UD = 1,
	/* The general services QP, a UD QP that is QPN 1 of the device. */
	ERI_QPT_GSI = 2,
};

/*
 * CREATE_QP: queue pair @qpn of PD @pdn, in state RESET.  The send queue
 * holds 2^sq_depth_log WQEs of 2^sq_wqe_shift bytes (2^ud_sq_wqe_shift for
 * UD and GSI QPs) at sq_addr, the receive queue 2^rq_depth_log WQEs of
 * 2^rq_wqe_shift bytes at rq_addr (both rings physically contiguous); the
 * struct eri_qp_dbrec at dbrec_addr carries the producer indexes and the
 * kick flags.  Completions of each queue go to CQ send_cqn or recv_cqn,
 * which must exist.
 *
 * With SRQ set the QP (RC or UD, not GSI) has no receive queue of its own:
 * it receives from shared receive queue @srqn, which must exist; rq_addr
 * and RQ_DEPTH_LOG must be 0, and rq_pi and rq_need_kick of the doorbell
 * record are unused.  Without SRQ, @srqn must be 0.
 */
struct eri_aq_create_qp_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le64 sq_addr;
	__le64 rq_addr;
	__le64 dbrec_addr;
	__le32 qpn;
	__le32 pdn;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 cfg;
	__le32 srqn;
	u8 reserved[8];
};

#define ERI_AQ_CREATE_QP_TYPE		GENMASK(3, 0)	/* enum eri_qp_type */
#define ERI_AQ_CREATE_QP_SQ_DEPTH_LOG	GENMASK(11, 8)
#define ERI_AQ_CREATE_QP_RQ_DEPTH_LOG	GENMASK(15, 12)
/* Every send WQE completes, whatever its SIGNALED flag says. */
#define ERI_AQ_CREATE_QP_SQ_SIG_ALL	BIT(16)
/* Receives come from shared receive queue @srqn. */
#define ERI_AQ_CREATE_QP_SRQ		BIT(17)

static_assert(sizeof(struct eri_aq_create_qp_cmd) == ERI_AQ_SQE_SIZE);
static_assert(offsetof(struct eri_aq_create_qp_cmd, srqn) == 52);

/*
 * CREATE_SRQ: shared receive queue @srqn of PD @pdn, a ring of
 * 2^depth_log receive WQEs (struct eri_rq_wqe_hdr and its SGEs, 128 bytes
 * each, physically contiguous) at ring_addr, and the struct eri_srq_dbrec
 * at dbrec_addr through which the producer publishes its index.  The
 * limit starts disarmed.  Keys of its WQEs are checked against @pdn.
 */
struct eri_aq_create_srq_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le64 ring_addr;
	__le64 dbrec_addr;
	__le32 srqn;
	__le32 pdn;
	__le32 cfg;
	u8 reserved[28];
};

#define ERI_AQ_CREATE_SRQ_DEPTH_LOG	GENMASK(4, 0)

static_assert(sizeof(struct eri_aq_create_srq_cmd) == ERI_AQ_SQE_SIZE);
static_assert(offsetof(struct eri_aq_create_srq_cmd, cfg) == 32);

/*
 * MODIFY_SRQ: with LIMIT in @mask, arms the limit at @limit (at most
 * 2^depth_log; 0 disarms).  An armed limit fires once: the first time
 * fewer than @limit WQEs are left untaken, the device disarms it and posts
 * ERI_AEQE_SRQ_LIMIT; if fewer are left already, at once.
 */
struct eri_aq_modify_srq_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le32 srqn;
	__le32 mask;
	__le32 limit;
	u8 reserved[44];
};

#define ERI_AQ_MODIFY_SRQ_LIMIT		BIT(0)

static_assert(sizeof(struct eri_aq_modify_srq_cmd) == ERI_AQ_SQE_SIZE);

/* QUERY_SRQ: the response sits in the completion entry. */
struct eri_aq_query_srq_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le32 srqn;
	u8 reserved[52];
};

static_assert(sizeof(struct eri_aq_query_srq_cmd) == ERI_AQ_SQE_SIZE);

struct eri_aq_query_srq_resp {
	__le32 limit;			/* armed limit; 0: not armed */
	__le32 ci;			/* [15:0] next WQE the device takes */
	__le32 pi;			/* [15:0] producer index, read now */
	__le32 flags;			/* ERI_AQ_SRQ_* */
	__le32 users;			/* QPs receiving from it */
	__le32 reserved;
};

/* The producer claimed more WQEs than the ring holds: it takes no more. */
#define ERI_AQ_SRQ_BROKEN		BIT(0)

static_assert(sizeof(struct eri_aq_query_srq_resp) == 24);

/*
 * DESTROY_SRQ: fails with BAD_STATE while a QP receives from @srqn; once
 * it completes the device touches neither the ring nor the record again.
 */
struct eri_aq_destroy_srq_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le32 srqn;
	u8 reserved[52];
};

static_assert(sizeof(struct eri_aq_destroy_srq_cmd) == ERI_AQ_SQE_SIZE);

/* Queue pair states, as the verbs know them. */
enum eri_qp_state {
	ERI_QPS_RESET = 0,
	ERI_QPS_INIT = 1,
	ERI_QPS_RTR = 2,
	ERI_QPS_RTS = 3,
	ERI_QPS_SQD = 4,
	ERI_QPS_SQE = 5,
	ERI_QPS_ERR = 6,
};

/*
 * Congestion-control algorithms are numbered by the device: SET_CC,
 * QUERY_QP and QUERY_DEVICE's cc_algos and cc_default carry an index below
 * ERI_CC_MAX_ALGOS, which QUERY_CC names.
 */
#define ERI_CC_MAX_ALGOS		32	/* bits of cc_algos */
#define ERI_CC_NAME_MAX			16	/* a name and its NUL */

/* Fields of struct eri_qp_attr that MODIFY_QP applies. */
#define ERI_QP_ATTR_STATE		BIT(0)
#define ERI_QP_ATTR_ACCESS		BIT(1)
#define ERI_QP_ATTR_PATH_MTU		BIT(2)
#define ERI_QP_ATTR_AV			BIT(3)	/* sgid, dgid, ttl, tclass */
#define ERI_QP_ATTR_DEST_QPN		BIT(4)
#define ERI_QP_ATTR_RQ_PSN		BIT(5)
#define ERI_QP_ATTR_SQ_PSN		BIT(6)
#define ERI_QP_ATTR_TIMEOUT		BIT(7)
#define ERI_QP_ATTR_RETRY_CNT		BIT(8)
#define ERI_QP_ATTR_RNR_RETRY		BIT(9)
#define ERI_QP_ATTR_MIN_RNR_TIMER	BIT(10)
#define ERI_QP_ATTR_MAX_RD_ATOMIC	BIT(11)
#define ERI_QP_ATTR_MAX_DEST_RD_ATOMIC	BIT(12)
#define ERI_QP_ATTR_QKEY		BIT(13)	/* UD and GSI */
#define ERI_QP_ATTR_ALL			GENMASK(13, 0)

/*
 * Queue pair attributes: MODIFY_QP reads them from attr_addr, QUERY_QP
 * writes them there.  The encodings of timeout, retry_cnt, rnr_retry and
 * min_rnr_timer are the InfiniBand ones.  GIDs are IPv6 addresses, IPv4
 * ones mapped (::ffff:a.b.c.d); @sgid and @dgid are of one family, IPv6
 * only with ERI_DEV_CAP_IPV6.  @flow_label is used over IPv6.
 */
struct eri_qp_attr {
	__le32 mask;			/* ERI_QP_ATTR_*, MODIFY_QP only */
	u8 state;			/* enum eri_qp_state */
	u8 path_mtu_log;		/* log2 of the payload bytes per packet */
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 access;			/* ERI_MR_ACCESS_REMOTE_* accepted */
	u8 ttl;
	u8 traffic_class;
	u8 sq_draining;			/* QUERY_QP: SQD still has work out */
	__le32 dest_qpn;
	__le32 rq_psn;			/* next PSN expected from the peer */
	__le32 sq_psn;			/* next PSN to send */
	__le32 flow_label;
	u8 sgid[16];
	u8 dgid[16];
	/* QUERY_QP only: the QP's counters since CREATE_QP. */
	__le64 sq_kicks;		/* SQ doorbells rung for it */
	__le64 tx_pkts;
	__le64 rx_pkts;
	__le64 retrans_pkts;		/* packets sent again */
	__le64 ooo_pkts;		/* requests that arrived out of order */
	__le32 cwnd;			/* packets the QP may have in flight */
	__le32 srtt_us;			/* smoothed RTT, 0 before a sample */
	u8 cc_algo;			/* CC algorithm index (QUERY_CC) */
	u8 reserved1[3];
	/* MODIFY_QP and QUERY_QP. */
	__le32 qkey;			/* UD and GSI: the QP's Q_Key */
	/* QUERY_QP only: low 32 bits of the buffers sent and received. */
	__le32 tx_skbs;
	__le32 rx_skbs;
};

static_assert(sizeof(struct eri_qp_attr) == 128);

/*
 * MODIFY_QP applies the fields of @mask from the struct eri_qp_attr at
 * attr_addr; QUERY_QP writes the queue pair's attributes there.  The driver
 * checks state transitions; the device applies what it is given, except that
 * it refuses (BAD_STATE) a transition out of a state it left on its own
 * (ERR or SQE) that the driver did not know of.
 */
struct eri_aq_qp_attr_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le64 attr_addr;
	__le32 qpn;
	u8 reserved[44];
};

static_assert(sizeof(struct eri_aq_qp_attr_cmd) == ERI_AQ_SQE_SIZE);

/*
 * DESTROY_QP: once it completes the device touches none of the queue pair's
 * rings or its doorbell record again and sends nothing more for it.
 */
struct eri_aq_destroy_qp_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le32 qpn;
	u8 reserved[52];
};

static_assert(sizeof(struct eri_aq_destroy_qp_cmd) == ERI_AQ_SQE_SIZE);

/*
 * QUERY_STATS: the device writes its counters, ERI_STAT_NUM little-endian
 * 64-bit values in enum eri_stat order, to resp_addr.
 */
struct eri_aq_query_stats_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le64 resp_addr;
	__le32 resp_len;
	u8 reserved[44];
};

static_assert(sizeof(struct eri_aq_query_stats_cmd) == ERI_AQ_SQE_SIZE);

/*
 * SET_CC: QPs created from now on use congestion-control algorithm @algo
 * (an index), which must be in QUERY_DEVICE's cc_algos; existing QPs keep
 * theirs.  A reset restores cc_default.
 */
struct eri_aq_set_cc_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le32 algo;
	u8 reserved[52];
};

static_assert(sizeof(struct eri_aq_set_cc_cmd) == ERI_AQ_SQE_SIZE);

/*
 * QUERY_CC (with ERI_DEV_CAP_CC_NAMES): the device writes ERI_CC_MAX_ALGOS
 * struct eri_cc_desc, entry n describing algorithm index n, at @resp_addr,
 * at most @resp_len bytes of them.
 */
struct eri_aq_query_cc_cmd {
	struct eri_aq_cmd_hdr hdr;
	__le64 resp_addr;
	__le32 resp_len;
	u8 reserved[44];
};

static_assert(sizeof(struct eri_aq_query_cc_cmd) == ERI_AQ_SQE_SIZE);

/* Flags of struct eri_cc_desc. */
#define ERI_CC_DESC_VALID		BIT(0)	/* bit n of cc_algos is set */
#define ERI_CC_DESC_ECN			BIT(1)	/* reacts to ECN marks */
#define ERI_CC_DESC_PACED		BIT(2)	/* paces its packets */
#define ERI_CC_DESC_DEFAULT		BIT(3)	/* cc_default */

/**
 * struct eri_cc_desc - a congestion-control algorithm, as QUERY_CC tells it
 * @name: [a-z0-9_]+, NUL-padded: at most ERI_CC_NAME_MAX - 1 characters
 * @flags: ERI_CC_DESC_*; an entry without ERI_CC_DESC_VALID is all zero
 * @reserved: zero
 */
struct eri_cc_desc {
	char name[ERI_CC_NAME_MAX];
	__le32 flags;
	u8 reserved[12];
};

static_assert(sizeof(struct eri_cc_desc) == 32);

/*
 * QUERY_QP_CC (with ERI_DEV_CAP_QP_CC), laid out as QUERY_QP (struct
 * eri_aq_qp_attr_cmd): the device writes struct eri_qp_cc, a QP's
 * congestion-control state, at attr_addr.
 */
#define ERI_QP_CC_NONE			U32_MAX	/* no bound, no sample */

/**
 * struct eri_qp_cc - a QP's congestion-control state, as QUERY_QP_CC tells it
 * @algo: the algorithm's index (QUERY_CC)
 * @reserved1: zero
 * @cwnd: the window, packets with 16 fraction bits
 * @pacing_rate: bytes per second on the wire, headers included; 0: not paced
 * @bw: the algorithm's bandwidth estimate, bytes per second on the wire; 0:
 *	none
 * @srtt_us: smoothed RTT; 0 before a sample
 * @rttvar_us: RTT variation
 * @min_rtt_us: the base RTT, a windowed minimum; 0 before a sample
 * @inflight_hi: upper bound on packets in flight, ERI_QP_CC_NONE for none;
 *	0 for an algorithm that keeps no such bound
 * @rtt_samples: RTT samples taken since CREATE_QP (or since the QP's
 *	algorithm state last started)
 * @rtt_sum_us: their sum, for a mean RTT
 * @mode: the algorithm's mode, [a-z0-9_]*, NUL-padded; all zero for an
 *	algorithm without modes
 * @cuts: window or rate reductions, low 32 bits
 * @losses: fast retransmissions, low 32 bits
 * @ecn_echoes: ACKs that echoed a CE mark, low 32 bits
 * @timeouts: retransmission timeouts, low 32 bits
 * @inflight_lo: lower-bound model of packets in flight, as @inflight_hi
 * @quantum: packets pacing releases at once
 * @reserved2: zero
 */
struct eri_qp_cc {
	u8 algo;
	u8 reserved1[3];
	__le32 cwnd;
	__le64 pacing_rate;
	__le64 bw;
	__le32 srtt_us;
	__le32 rttvar_us;
	__le32 min_rtt_us;
	__le32 inflight_hi;
	__le64 rtt_samples;
	__le64 rtt_sum_us;
	char mode[ERI_CC_NAME_MAX];
	__le32 cuts;
	__le32 losses;
	__le32 ecn_echoes;
	__le32 timeouts;
	__le32 inflight_lo;
	__le32 quantum;
	u8 reserved2[32];
};

static_assert(sizeof(struct eri_qp_cc) == 128);

enum eri_stat {
	ERI_STAT_TX_PKTS,		/* packets sent */
	ERI_STAT_TX_BYTES,		/* payload bytes sent */
	ERI_STAT_RX_PKTS,		/* packets received for a queue pair */
	ERI_STAT_RX_BYTES,		/* payload bytes received */
	ERI_STAT_RX_DROPS,		/* malformed or unroutable packets */
	ERI_STAT_RETRANS_PKTS,		/* packets sent again */
	ERI_STAT_TIMEOUTS,		/* retransmission timer expiries */
	ERI_STAT_RNR_NAKS,		/* RNR NAKs sent */
	ERI_STAT_SQ_KICKS,		/* send queue doorbells rung */
	ERI_STAT_CQ_EVENTS,		/* completion events raised */
	ERI_STAT_OOO_PKTS,		/* requests that arrived out of order */
	ERI_STAT_DUP_PKTS,		/* duplicate packets dropped */
	ERI_STAT_FAST_RETRANS,		/* packets found lost before a timeout */
	ERI_STAT_TLPS,			/* tail-loss probes sent */
	ERI_STAT_ECN_ECHOES,		/* ACKs received with an ECN echo */
	ERI_STAT_AEQ_OVERFLOWS,		/* async events that found the AEQ full */
	ERI_STAT_TX_SKBS,		/* buffers sent: a super-packet once */
	ERI_STAT_RX_SKBS,		/* buffers received: a super-packet once */
	ERI_STAT_MAD_DROPS,		/* GSI datagrams that are no MAD */
	ERI_STAT_SQ_POLLS,		/* looks at a drained SQ that found work */
	ERI_STAT_RX_VERSION_DROPS,	/* packets of a version not accepted */
	ERI_STAT_VERSION_NAKS,		/* VERSION_NAKs taken */
	ERI_STAT_RTO_UNDOS,		/* timeouts found spurious, undone */
	ERI_STAT_NUM,
};

#endif /* _ERI_ADMIN_DEFS_H_ */
