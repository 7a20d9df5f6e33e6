/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * liberi: the ERI device structures that userspace shares with the device
 * through mmap()ed memory (completion queue entries, send and receive WQEs,
 * the CQ and QP doorbell records).
 *
 * This mirrors include/linux/eri/eri_io_defs.h and eri_ring.h of the kernel
 * tree field for field and bit for bit; userspace cannot include those (they
 * use the kernel's <linux/bits.h> and <linux/build_bug.h>).  All fields are
 * little endian except the immediate data, which is carried in network byte
 * order as the verbs hand it over.  Sizes are pinned with static_assert so
 * that a change on either side shows up at compile time.
 */
#ifndef __ERI_HW_H__
#define __ERI_HW_H__

#include <assert.h>
#include <endian.h>
#include <stdint.h>
#include <linux/types.h>

#include <util/util.h>

/* Rings hold 2^depth_log entries; a 16-bit index tells full from empty. */
#define ERI_RING_MAX_DEPTH_LOG		15

/* A CQ's indices are 32 bits wide: its ring may be this deep. */
#define ERI_CQ_MAX_DEPTH_LOG		22

static inline uint32_t eri_ring_slot(uint32_t idx, uint32_t depth_log)
{
	return idx & ((1U << depth_log) - 1);
}

/* Owner bit the device writes at free-running index @idx: 1 on even passes. */
static inline uint32_t eri_ring_owner(uint32_t idx, uint32_t depth_log)
{
	return !((idx >> depth_log) & 1);
}

/* Entries produced and not yet consumed. */
static inline uint32_t eri_ring_used(uint16_t pi, uint16_t ci)
{
	return (uint16_t)(pi - ci);
}

/*
 * Queue pair doorbell record (16 bytes at offset 0 of its mapping): the
 * producer indexes are ours, the kick flags the device's.
 */
struct eri_qp_dbrec {
	__le32 sq_pi;
	__le32 rq_pi;
	__le32 sq_need_kick;
	__le32 rq_need_kick;
};

static_assert(sizeof(struct eri_qp_dbrec) == 16, "eri_qp_dbrec size");

/* Completion queue doorbell record (8 bytes), written by the consumer. */
struct eri_cq_dbrec {
	__le32 ci;
	__le32 arm;
};

#define ERI_CQ_ARM			BIT(0)
#define ERI_CQ_ARM_SOLICITED		BIT(1)
#define ERI_CQ_ARM_SN			GENMASK(31, 2)

static_assert(sizeof(struct eri_cq_dbrec) == 8, "eri_cq_dbrec size");

/* Scatter/gather element. */
struct eri_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

static_assert(sizeof(struct eri_sge) == 16, "eri_sge size");

enum eri_sq_opcode {
	ERI_SQ_OP_SEND = 0,
	ERI_SQ_OP_SEND_IMM = 1,
	ERI_SQ_OP_SEND_INV = 2,
	ERI_SQ_OP_WRITE = 3,
	ERI_SQ_OP_WRITE_IMM = 4,
	ERI_SQ_OP_READ = 5,
	ERI_SQ_OP_CMP_SWP = 8,
	ERI_SQ_OP_FETCH_ADD = 9,
};

#define ERI_SQ_WQE_SHIFT		7
#define ERI_SQ_WQE_SIZE			BIT(ERI_SQ_WQE_SHIFT)
#define ERI_SQ_WQE_MAX_SGE		6
#define ERI_SQ_WQE_MAX_INLINE		96

/* Largest total length of one WQE the device accepts. */
#define ERI_WQE_MAX_LENGTH		(1ULL << 31)

/*
 * Send queue WQE: this 32-byte header, then NUM_SGE struct eri_sge or, with
 * INLINE set, @length bytes of data.
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

static_assert(sizeof(struct eri_sq_wqe_hdr) == 32, "eri_sq_wqe_hdr size");
static_assert(sizeof(struct eri_sq_wqe_hdr) +
	      ERI_SQ_WQE_MAX_SGE * sizeof(struct eri_sge) == ERI_SQ_WQE_SIZE,
	      "SQ WQE with SGEs");
static_assert(sizeof(struct eri_sq_wqe_hdr) + ERI_SQ_WQE_MAX_INLINE ==
	      ERI_SQ_WQE_SIZE, "SQ WQE with inline data");

/*
 * Atomic WQE (CMP_SWP, FETCH_ADD): the header (@remote_addr, 8-byte aligned,
 * and @rkey), this structure, then one struct eri_sge of 8 bytes where the
 * original value lands.
 */
struct eri_sq_atomic {
	__le64 swap_add;
	__le64 compare;
};

static_assert(sizeof(struct eri_sq_atomic) == 16, "eri_sq_atomic size");

#define ERI_ATOMIC_LEN			8

/*
 * UD send WQE, 2^ERI_SQ_UD_WQE_SHIFT bytes (a UD QP's send queue slot): the
 * header, then this address vector, then NUM_SGE struct eri_sge (at most
 * ERI_SQ_UD_MAX_SGE) or, with INLINE, @length bytes of data (at most
 * ERI_SQ_UD_MAX_INLINE); the rest is reserved.  SEND and SEND_IMM only; one
 * packet, at most the port's active MTU.  A @qkey with bit 31 set stands for
 * the QP's.
 */
struct eri_sq_ud_av {
	uint8_t dgid[16];
	uint8_t sgid[16];
	__le32 dest_qpn;
	__le32 qkey;
	__le32 flow_label;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t reserved[2];
};

#define ERI_SQ_UD_WQE_SHIFT		8
#define ERI_SQ_UD_WQE_SIZE		BIT(ERI_SQ_UD_WQE_SHIFT)
#define ERI_SQ_UD_MAX_SGE		ERI_SQ_WQE_MAX_SGE
#define ERI_SQ_UD_MAX_INLINE		ERI_SQ_WQE_MAX_INLINE

static_assert(sizeof(struct eri_sq_ud_av) == 48, "eri_sq_ud_av size");
static_assert(sizeof(struct eri_sq_wqe_hdr) + sizeof(struct eri_sq_ud_av) +
	      ERI_SQ_UD_MAX_SGE * sizeof(struct eri_sge) <= ERI_SQ_UD_WQE_SIZE,
	      "UD WQE with SGEs");
static_assert(sizeof(struct eri_sq_wqe_hdr) + sizeof(struct eri_sq_ud_av) +
	      ERI_SQ_UD_MAX_INLINE <= ERI_SQ_UD_WQE_SIZE,
	      "UD WQE with inline data");

#define ERI_RQ_WQE_SHIFT		7
#define ERI_RQ_WQE_SIZE			BIT(ERI_RQ_WQE_SHIFT)
#define ERI_RQ_WQE_MAX_SGE		7

/*
 * Receive queue WQE: this 16-byte header, then NUM_SGE struct eri_sge.
 * @tag: a shared receive queue's WQE's, echoed as its CQE's wqe_idx; 0 in
 * a QP's own receive queue.
 */
struct eri_rq_wqe_hdr {
	__le32 hdr;
	__le32 tag;
	__le32 reserved[2];
};

#define ERI_RQ_WQE_HDR_NUM_SGE		GENMASK(3, 0)

static_assert(sizeof(struct eri_rq_wqe_hdr) == 16, "eri_rq_wqe_hdr size");
static_assert(sizeof(struct eri_rq_wqe_hdr) +
	      ERI_RQ_WQE_MAX_SGE * sizeof(struct eri_sge) == ERI_RQ_WQE_SIZE,
	      "RQ WQE");

/*
 * Shared receive queue doorbell record (8 bytes at offset 0 of its
 * mapping), written by us alone: the free-running producer index.
 */
struct eri_srq_dbrec {
	__le32 pi;
	__le32 reserved;
};

static_assert(sizeof(struct eri_srq_dbrec) == 8, "eri_srq_dbrec size");

enum eri_cqe_opcode {
	ERI_CQE_OP_SEND = 0,
	ERI_CQE_OP_WRITE = 1,
	ERI_CQE_OP_READ = 2,
	ERI_CQE_OP_CMP_SWP = 5,
	ERI_CQE_OP_FETCH_ADD = 6,
	ERI_CQE_OP_RECV = 0x80,
	ERI_CQE_OP_RECV_WRITE_IMM = 0x81,
};

/* Completion status, numbered as the kernel's enum ib_wc_status. */
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
 * that completed in the queue the SQ bit names; with SRQ, the tag of the
 * shared receive queue @srqn's WQE.
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

#define ERI_CQE_SHIFT			5

#define ERI_CQE_HDR_OWNER		BIT(0)
#define ERI_CQE_HDR_SQ			BIT(1)
#define ERI_CQE_HDR_SOLICITED		BIT(2)
#define ERI_CQE_HDR_IMM			BIT(3)
#define ERI_CQE_HDR_INV			BIT(4)
/* UD receives: the buffer starts with the 40-byte GRH (IPV4: RoCEv2 style). */
#define ERI_CQE_HDR_GRH			BIT(5)
#define ERI_CQE_HDR_IPV4		BIT(6)
#define ERI_CQE_HDR_SRQ			BIT(7)
#define ERI_CQE_HDR_OPCODE		GENMASK(15, 8)	/* enum eri_cqe_opcode */
#define ERI_CQE_HDR_STATUS		GENMASK(23, 16)	/* enum eri_cqe_status */

static_assert(sizeof(struct eri_cqe) == 1 << ERI_CQE_SHIFT, "eri_cqe size");

/*
 * Accessors for memory the device reads or writes concurrently (doorbell
 * records, the owner word of a CQE): one untorn access the compiler may
 * neither elide, repeat nor merge.  Ordering is the caller's business, with
 * the barriers of <util/udma_barrier.h> or a full fence.
 */
static inline uint32_t eri_read_once32(const __le32 *p)
{
	return le32toh(*(const volatile __le32 *)p);
}

static inline void eri_write_once32(__le32 *p, uint32_t val)
{
	*(volatile __le32 *)p = htole32(val);
}

#endif /* __ERI_HW_H__ */
