/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ERI event queues and doorbells: entry formats shared by the device and
 * the driver through rings in host memory.  All fields are little endian.
 *
 * Every ring the device produces into uses an owner bit: the device writes
 * an entry with owner = 1 on its first pass over the ring, 0 on the second,
 * and so on; a consumer owns an entry when the owner bit equals the parity of
 * its own pass (starting at 1 on zeroed memory), reads the owner bit first
 * and then, after dma_rmb(), the rest of the entry.
 *
 * The userspace provider (rdma-core's providers/eri) carries this file and
 * eri_ring.h verbatim, as efa's provider carries efa_io_defs.h: only the
 * types of <linux/types.h> appear, and BIT(), GENMASK() and static_assert()
 * come from the includer (<linux/bits.h> and <linux/build_bug.h> here,
 * rdma-core's <util/util.h> and <assert.h> there).
 */
#ifndef _ERI_IO_DEFS_H_
#define _ERI_IO_DEFS_H_

#include <linux/types.h>

/* Async event queue entry. */
struct eri_aeqe {
	__le32 hdr;
	__le32 subject;			/* port, QPN or CQN, per event type */
	__le64 data;
};

#define ERI_AEQE_HDR_OWNER		BIT(0)
#define ERI_AEQE_HDR_TYPE		GENMASK(15, 8)

static_assert(sizeof(struct eri_aeqe) == 16);

enum eri_aeqe_type {
	/* Port state, MTU or speed changed: query the port. */
	ERI_AEQE_PORT_CHANGE = 1,
	/* Completion event queue @subject overflowed; events were lost. */
	ERI_AEQE_CEQ_OVERFLOW = 2,
	/* CQ @subject overran: a completion was dropped, the CQ is broken. */
	ERI_AEQE_CQ_ERR = 3,
	/*
	 * QP @subject entered ERR because the device cannot go on with its
	 * queues: a ring index beyond the ring, a receive WQE it cannot read,
	 * a CQ that overran.  Errors of a send WQE are reported by its
	 * completion alone.
	 */
	ERI_AEQE_QP_FATAL = 4,
	/* QP @subject in SQD has no send work outstanding any more. */
	ERI_AEQE_SQ_DRAINED = 5,
	/* QP @subject, as responder, refused a malformed request: ERR. */
	ERI_AEQE_QP_REQ_ERR = 6,
	/* QP @subject, as responder, refused an access to memory: ERR. */
	ERI_AEQE_QP_ACCESS_ERR = 7,
	/* SRQ @subject fell below its armed limit; @data: WQEs left. */
	ERI_AEQE_SRQ_LIMIT = 8,
	/* SRQ @subject is broken (its producer index overran the ring). */
	ERI_AEQE_SRQ_ERR = 9,
	/*
	 * QP @subject of an SRQ entered ERR and flushed every WQE it had
	 * taken: none of its completions is left to come.
	 */
	ERI_AEQE_QP_LAST_WQE = 10,
};

/* Completion event queue entry: CQ @cqn has a new completion. */
struct eri_ceqe {
	__le32 hdr;
	__le32 cqn;
};

#define ERI_CEQE_HDR_OWNER		BIT(0)

static_assert(sizeof(struct eri_ceqe) == 8);

/*
 * Event queue doorbell (ERI_REG_AEQ_DB, ERI_REG_CEQ_DB(n)): the free-running
 * 16-bit consumer index and, with ARM set, a request for one interrupt at
 * the next event.  The driver writes the same value into the queue's 8-byte
 * doorbell record before it rings the doorbell; the device reads the record
 * to learn how much room the ring has.
 */
#define ERI_EQ_DB_CI			GENMASK(15, 0)
#define ERI_EQ_DB_ARM			BIT(31)

struct eri_dbrec {
	__le64 val;
};

static_assert(sizeof(struct eri_dbrec) == 8);

/*
 * Queue pair doorbell record, written by both sides:
 *
 * @sq_pi and @rq_pi are the free-running 16-bit producer indexes of the send
 * and receive queues; the producer writes the WQEs, then (after a write
 * barrier) the index.  The device reads them whenever it looks for work.
 *
 * @sq_need_kick and @rq_need_kick are the device's: nonzero asks the producer
 * to ring the queue's doorbell register (ERI_REG_SQ_DB, ERI_REG_RQ_DB) after
 * it raised the index.  The device sets sq_need_kick when it finds the send
 * queue empty and stops looking, and then reads sq_pi once more, so a
 * producer that raises sq_pi, issues a full barrier and reads the flag
 * either sees it set or has its WQE found.  rq_need_kick is set only while
 * the receive queue must be flushed (state ERR); the device reads rq_pi when
 * a message arrives, so receives need no doorbell.
 */
struct eri_qp_dbrec {
	__le32 sq_pi;
	__le32 rq_pi;
	__le32 sq_need_kick;
	__le32 rq_need_kick;
};

static_assert(sizeof(struct eri_qp_dbrec) == 16);

/*
 * Completion queue doorbell record, written by the consumer: @ci is its
 * free-running consumer index (the device never writes past it), @arm a
 * request for one completion event.  The consumer arms by writing a new
 * sequence number with ARM set (and SOLICITED to be woken only by a
 * solicited or failed completion); the device raises one event for each
 * sequence number, at the first matching completion it writes after
 * reading the request, and reads @arm after every completion it writes.
 */
struct eri_cq_dbrec {
	__le32 ci;
	__le32 arm;
};

#define ERI_CQ_ARM			BIT(0)
#define ERI_CQ_ARM_SOLICITED		BIT(1)
#define ERI_CQ_ARM_SN			GENMASK(31, 2)

static_assert(sizeof(struct eri_cq_dbrec) == 8);

/* Scatter/gather element: @length bytes at @addr of region @lkey. */
struct eri_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

static_assert(sizeof(struct eri_sge) == 16);

enum eri_sq_opcode {
	ERI_SQ_OP_SEND = 0,
	ERI_SQ_OP_SEND_IMM = 1,
	ERI_SQ_OP_SEND_INV = 2,
	ERI_SQ_OP_WRITE = 3,
	ERI_SQ_OP_WRITE_IMM = 4,
	ERI_SQ_OP_READ = 5,
	ERI_SQ_OP_REG_MR = 6,
	ERI_SQ_OP_LOCAL_INV = 7,
	ERI_SQ_OP_CMP_SWP = 8,
	ERI_SQ_OP_FETCH_ADD = 9,
};

#define ERI_SQ_WQE_SHIFT		7
#define ERI_SQ_WQE_SIZE			BIT(ERI_SQ_WQE_SHIFT)
#define ERI_SQ_WQE_MAX_SGE		6
#define ERI_SQ_WQE_MAX_INLINE		96

/*
 * Send queue WQE: this 32-byte header, then either NUM_SGE struct eri_sge
 * or, with INLINE set, @length bytes of data (at most 96).  @remote_addr and
 * @rkey are those of WRITE, WRITE_IMM and READ; @imm_data (network byte
 * order, carried as is) that of SEND_IMM and WRITE_IMM; @inv_rkey the key
 * SEND_INV invalidates at the responder.
 */
struct eri_sq_wqe_hdr {
	__le32 hdr;
	__le32 length;
	__be32 imm_data;
	__le32 inv_rkey;
	__le64 remote_addr;
	__le32 rkey;
	__le32 reserved;
};

#define ERI_SQ_WQE_HDR_OPCODE		GENMASK(7, 0)	/* enum eri_sq_opcode */
#define ERI_SQ_WQE_HDR_SIGNALED		BIT(8)
#define ERI_SQ_WQE_HDR_SOLICITED	BIT(9)
#define ERI_SQ_WQE_HDR_FENCE		BIT(10)
#define ERI_SQ_WQE_HDR_INLINE		BIT(11)
#define ERI_SQ_WQE_HDR_NUM_SGE		GENMASK(19, 16)

static_assert(sizeof(struct eri_sq_wqe_hdr) == 32);
static_assert(sizeof(struct eri_sq_wqe_hdr) +
	      ERI_SQ_WQE_MAX_SGE * sizeof(struct eri_sge) == ERI_SQ_WQE_SIZE);
static_assert(sizeof(struct eri_sq_wqe_hdr) + ERI_SQ_WQE_MAX_INLINE ==
	      ERI_SQ_WQE_SIZE);

/*
 * REG_MR work request: the header's @inv_rkey is the key to register (the
 * region's index with a new variant), this structure takes the place of the
 * SGEs.  The region, reserved with ERI_AQ_REG_MR_FAST_REG for the QP's PD
 * and currently invalid, becomes [iova, iova + length) backed by @npages
 * pages of 2^page_shift bytes listed at @pbl_addr (as for REG_MR), with the
 * rights in @cfg.  LOCAL_INV: @inv_rkey is the key to invalidate.  Both
 * start only once every WQE before them completed.
 */
struct eri_sq_reg_mr {
	__le64 iova;
	__le64 length;
	__le64 pbl_addr;
	__le32 npages;
	__le32 cfg;
};

#define ERI_SQ_REG_MR_ACCESS		GENMASK(3, 0)	/* ERI_MR_ACCESS_* */
#define ERI_SQ_REG_MR_PAGE_SHIFT	GENMASK(13, 8)

static_assert(sizeof(struct eri_sq_reg_mr) == 32);

/*
 * Atomic WQE (CMP_SWP, FETCH_ADD): the header's @remote_addr (8-byte
 * aligned) and @rkey name the word; this structure follows the header, then
 * one struct eri_sge of 8 bytes for the original value (NUM_SGE 1).
 */
struct eri_sq_atomic {
	__le64 swap_add;		/* swap value, or the addend */
	__le64 compare;			/* CMP_SWP only */
};

static_assert(sizeof(struct eri_sq_atomic) == 16);

/* The length of an atomic's word and of its SGE. */
#define ERI_ATOMIC_LEN			8

/*
 * UD send WQE (QP types UD and GSI), 2^ERI_SQ_UD_WQE_SHIFT bytes, the slot
 * size of these QPs' send queues: the 32-byte header, then this 48-byte
 * address vector, then NUM_SGE struct eri_sge (at most ERI_SQ_UD_MAX_SGE)
 * or, with INLINE, @length bytes of data (at most ERI_SQ_UD_MAX_INLINE);
 * the rest of the slot is reserved.  The limits are those of an RC WQE.
 * Only SEND and SEND_IMM; the message is one packet, at most the port's
 * active MTU.  GIDs are IPv6 addresses, IPv4 ones mapped (::ffff:a.b.c.d),
 * both of one family (IPv6 only with ERI_DEV_CAP_IPV6); @sgid must be an
 * address of the device's netdev.  @flow_label is used over IPv6.  A @qkey with bit 31 set
 * stands for the Q_Key of the sending QP.  The header's @remote_addr, @rkey
 * and @inv_rkey are unused and zero.
 */
struct eri_sq_ud_av {
	__u8 dgid[16];
	__u8 sgid[16];
	__le32 dest_qpn;
	__le32 qkey;
	__le32 flow_label;		/* [19:0] */
	__u8 hop_limit;			/* 0: the device's default, 64 */
	__u8 traffic_class;
	__u8 reserved[2];
};

static_assert(sizeof(struct eri_sq_ud_av) == 48);

#define ERI_SQ_UD_WQE_SHIFT		8
#define ERI_SQ_UD_WQE_SIZE		BIT(ERI_SQ_UD_WQE_SHIFT)
#define ERI_SQ_UD_MAX_SGE		ERI_SQ_WQE_MAX_SGE
#define ERI_SQ_UD_MAX_INLINE		ERI_SQ_WQE_MAX_INLINE

static_assert(sizeof(struct eri_sq_wqe_hdr) + sizeof(struct eri_sq_ud_av) +
	      ERI_SQ_UD_MAX_SGE * sizeof(struct eri_sge) <= ERI_SQ_UD_WQE_SIZE);
static_assert(sizeof(struct eri_sq_wqe_hdr) + sizeof(struct eri_sq_ud_av) +
	      ERI_SQ_UD_MAX_INLINE <= ERI_SQ_UD_WQE_SIZE);

#define ERI_RQ_WQE_SHIFT		7
#define ERI_RQ_WQE_SIZE			BIT(ERI_RQ_WQE_SHIFT)
#define ERI_RQ_WQE_MAX_SGE		7

/*
 * Receive queue WQE: this 16-byte header, then NUM_SGE struct eri_sge.
 * @tag is that of a shared receive queue's WQE, which its completion
 * carries as wqe_idx; the device never interprets it.  0 in a QP's own
 * receive queue, where the device ignores it.
 */
struct eri_rq_wqe_hdr {
	__le32 hdr;
	__le32 tag;
	__le32 reserved[2];
};

#define ERI_RQ_WQE_HDR_NUM_SGE		GENMASK(3, 0)

static_assert(sizeof(struct eri_rq_wqe_hdr) == 16);

/*
 * Shared receive queue doorbell record, written by the producer only:
 * @pi is its free-running 16-bit producer index.  The producer writes the
 * WQEs, then (after a write barrier) the index; the device reads it
 * whenever a QP needs a WQE, so an SRQ has no doorbell register.
 */
struct eri_srq_dbrec {
	__le32 pi;
	__le32 reserved;
};

static_assert(sizeof(struct eri_srq_dbrec) == 8);

static_assert(sizeof(struct eri_rq_wqe_hdr) +
	      ERI_RQ_WQE_MAX_SGE * sizeof(struct eri_sge) == ERI_RQ_WQE_SIZE);

enum eri_cqe_opcode {
	ERI_CQE_OP_SEND = 0,
	ERI_CQE_OP_WRITE = 1,
	ERI_CQE_OP_READ = 2,
	ERI_CQE_OP_REG_MR = 3,
	ERI_CQE_OP_LOCAL_INV = 4,
	ERI_CQE_OP_CMP_SWP = 5,
	ERI_CQE_OP_FETCH_ADD = 6,
	ERI_CQE_OP_RECV = 0x80,
	ERI_CQE_OP_RECV_WRITE_IMM = 0x81,
};

/* Completion status, numbered as enum ib_wc_status. */
enum eri_cqe_status {
	ERI_CQE_STS_SUCCESS = 0,
	ERI_CQE_STS_LOC_LEN_ERR = 1,
	ERI_CQE_STS_LOC_QP_OP_ERR = 2,
	ERI_CQE_STS_LOC_PROT_ERR = 4,
	ERI_CQE_STS_WR_FLUSH_ERR = 5,
	ERI_CQE_STS_BAD_RESP_ERR = 7,
	ERI_CQE_STS_LOC_ACCESS_ERR = 8,
	ERI_CQE_STS_REM_INV_REQ_ERR = 9,
	ERI_CQE_STS_REM_ACCESS_ERR = 10,
	ERI_CQE_STS_REM_OP_ERR = 11,
	ERI_CQE_STS_RETRY_EXC_ERR = 12,
	ERI_CQE_STS_RNR_RETRY_EXC_ERR = 13,
	ERI_CQE_STS_GENERAL_ERR = 21,
};

/*
 * Completion queue entry.  @wqe_idx is the free-running index of the WQE
 * that completed, in the queue SQ names; WQEs of a queue complete in order,
 * so a send completion also retires the unsignaled WQEs before it.  With
 * SRQ, @wqe_idx is the tag of the WQE shared receive queue @srqn gave.
 * @byte_len is the received length (receive completions; for UD it counts
 * the 40 bytes of the GRH) or the length of the request.  @imm_data is
 * valid with IMM, @inv_rkey with INV.
 */
struct eri_cqe {
	__le32 hdr;
	__le32 qpn;
	__le32 wqe_idx;
	__le32 byte_len;
	__be32 imm_data;
	__le32 inv_rkey;
	__le32 src_qpn;
	__le32 srqn;
};

#define ERI_CQE_HDR_OWNER		BIT(0)
#define ERI_CQE_HDR_SQ			BIT(1)
#define ERI_CQE_HDR_SOLICITED		BIT(2)
#define ERI_CQE_HDR_IMM			BIT(3)
#define ERI_CQE_HDR_INV			BIT(4)
/*
 * UD receives: the first 40 bytes of the buffer hold the GRH; with IPV4
 * their last 20 are the packet's IPv4 header (RoCEv2 style), else they are
 * the packet's fixed IPv6 header (next header UDP).  @src_qpn names the sending QP.
 */
#define ERI_CQE_HDR_GRH			BIT(5)
#define ERI_CQE_HDR_IPV4		BIT(6)
/*
 * A receive from shared receive queue @srqn: @wqe_idx is the tag of the
 * WQE taken, not an index.
 */
#define ERI_CQE_HDR_SRQ			BIT(7)
#define ERI_CQE_HDR_OPCODE		GENMASK(15, 8)	/* enum eri_cqe_opcode */
#define ERI_CQE_HDR_STATUS		GENMASK(23, 16)	/* enum eri_cqe_status */

static_assert(sizeof(struct eri_cqe) == 32);

#endif /* _ERI_IO_DEFS_H_ */
