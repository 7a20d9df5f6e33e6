/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * ERI (Elastic RDMA Interface) user verbs ABI: the structures the kernel
 * driver and the rdma-core provider (liberi) exchange through uverbs.
 *
 * Every structure carries a comp_mask and explicit reserved fields so that
 * it can grow without breaking an older provider or kernel.
 */
#ifndef ERI_ABI_USER_H
#define ERI_ABI_USER_H

#include <linux/types.h>

/* Bumped on an incompatible change of anything below. */
#define ERI_UVERBS_ABI_VERSION 1

struct eri_ibv_alloc_ucontext_req {
	__u32 comp_mask;
	__u32 reserved;
};

enum {
	/* The device executes SEND/WRITE/READ with immediate and invalidate. */
	ERI_UCTX_CAP_IMM = 1 << 0,
	/* A CQ's ring may be the provider's memory (eri_ibv_create_cq_req). */
	ERI_UCTX_CAP_CQ_USER_RING = 1 << 1,
	/* A QP's queues may share one mapping (eri_ibv_create_qp_req). */
	ERI_UCTX_CAP_QP_ONE_MAPPING = 1 << 2,
};

enum {
	/* status_mmap_key and status_size are valid. */
	ERI_UCTX_RESP_STATUS_PAGE = 1 << 0,
};

struct eri_ibv_alloc_ucontext_resp {
	__u32 comp_mask;	/* ERI_UCTX_RESP_* */
	__u32 dev_caps;		/* ERI_UCTX_CAP_* */
	__u32 max_inline_data;	/* bytes of inline data one SQ WQE carries */
	__u16 max_send_sge;
	__u16 max_recv_sge;
	__u8 sq_wqe_shift;	/* log2 of the SQ WQE size in bytes */
	__u8 rq_wqe_shift;	/* log2 of the RQ WQE size in bytes */
	__u8 cqe_shift;		/* log2 of the CQE size in bytes */
	/* log2 of the entries of the deepest CQ ring (CQ_USER_RING) */
	__u8 max_cq_depth_log;
	__u8 reserved[4];
	/* the context's struct eri_uctx_status, to mmap() read-only */
	__aligned_u64 status_mmap_key;
	__u32 status_size;
	__u32 reserved2;
};

/*
 * The status page of a context: @state is ERI_UCTX_STATE_LIVE while the
 * device serves the context.  When the device goes, the kernel destroys the
 * context's queues and then the context, and sets @state to 0 then, so it
 * reads 0 from then on: a provider that finds a CQ empty checks it, and
 * reports the device gone instead of an empty CQ for ever.  Any other value
 * also means gone.
 */
struct eri_uctx_status {
	__u32 state;
	__u32 reserved;
};

#define ERI_UCTX_STATE_LIVE 1

struct eri_ibv_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;
};

enum {
	ERI_CREATE_CQ_USER_RING = 1 << 0,
};

/*
 * With ERI_CREATE_CQ_USER_RING (and ERI_UCTX_CAP_CQ_USER_RING) the CQ's
 * ring is the provider's: 2^depth_log CQEs at ring_va, which is page
 * aligned and zeroed, and the struct eri_cq_dbrec right after them.  The
 * kernel pins that memory as it pins a memory region (it counts against
 * RLIMIT_MEMLOCK) and gives it to the device; depth_log is at most
 * max_cq_depth_log, and 2^depth_log at least the entries asked for.  The
 * response then carries no mmap keys, and the provider's consumer index
 * is 32 bits wide.  Without it (no driver data) the kernel allocates a
 * ring of at most 2^15 entries for the provider to mmap(), whose consumer
 * index may be 16 bits wide.
 */
struct eri_ibv_create_cq_req {
	__u32 comp_mask;
	__u32 depth_log;
	__aligned_u64 ring_va;
};

/*
 * Queues are shared with userspace through mmap(): each *_mmap_key is the
 * offset to pass to mmap() on the uverbs file, each *_size the length in
 * bytes.  Rings hold 2^depth_log entries in the formats of
 * Documentation/infiniband/eri.rst; doorbell records are struct
 * eri_cq_dbrec and struct eri_qp_dbrec at offset 0 of their page.
 */
struct eri_ibv_create_cq_resp {
	__u32 comp_mask;
	__u32 cqn;
	__aligned_u64 ring_mmap_key;
	__aligned_u64 dbrec_mmap_key;
	__u32 ring_size;
	__u32 dbrec_size;
	__u32 depth_log;
	__u32 reserved;
};

enum {
	ERI_CREATE_QP_ONE_MAPPING = 1 << 0,
};

/*
 * With ERI_CREATE_QP_ONE_MAPPING (and ERI_UCTX_CAP_QP_ONE_MAPPING) the
 * QP's send queue, receive queue and doorbell record share one mapping,
 * one page for a QP of a few WQEs, instead of one mapping (and at least a
 * page) each: the response then has ERI_CREATE_QP_RESP_ONE_MAPPING, the
 * mapping at sq_mmap_key is mmap_size bytes, the send queue at its offset
 * 0 (sq_size bytes), the receive queue at rq_offset (rq_size bytes) and
 * the doorbell record at dbrec_offset (dbrec_size bytes); rq_mmap_key and
 * dbrec_mmap_key are 0.  A request without driver data, or with a zero
 * comp_mask, gets three mappings.
 */
struct eri_ibv_create_qp_req {
	__u32 comp_mask;	/* ERI_CREATE_QP_* */
	__u32 reserved;
};

enum {
	ERI_CREATE_QP_RESP_ONE_MAPPING = 1 << 0,
};

struct eri_ibv_create_qp_resp {
	__u32 comp_mask;	/* ERI_CREATE_QP_RESP_* */
	__u32 qpn;
	__aligned_u64 sq_mmap_key;
	__aligned_u64 rq_mmap_key;
	__aligned_u64 dbrec_mmap_key;
	__u32 sq_size;
	__u32 rq_size;
	__u32 dbrec_size;
	__u8 sq_depth_log;
	__u8 rq_depth_log;
	__u8 sq_wqe_shift;	/* log2 of this QP's SQ WQE size; 0: the context's */
	__u8 reserved;
	/* ERI_CREATE_QP_RESP_ONE_MAPPING only */
	__u32 mmap_size;
	__u32 rq_offset;
	__u32 dbrec_offset;
	__u32 reserved2;
};

/*
 * A shared receive queue: a ring of 2^depth_log receive WQEs and a struct
 * eri_srq_dbrec at offset 0 of its page, both mapped by the provider,
 * which posts into them by itself (no doorbell).  The create request
 * carries no driver data.
 */
struct eri_ibv_create_srq_resp {
	__u32 comp_mask;
	__u32 srqn;
	__aligned_u64 ring_mmap_key;
	__aligned_u64 dbrec_mmap_key;
	__u32 ring_size;
	__u32 dbrec_size;
	__u8 depth_log;
	__u8 reserved[7];
};

/*
 * An address handle is the provider's: the kernel checks the address and
 * returns the resolved vector, which the provider copies into each UD send
 * WQE (struct eri_sq_ud_av of the device).  GIDs are IPv6 addresses, IPv4
 * ones mapped; @sgid is the address of the GID table entry the AH names.
 */
struct eri_ibv_create_ah_resp {
	__u32 comp_mask;
	__u32 flow_label;
	__u8 dgid[16];
	__u8 sgid[16];
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 reserved[6];
};

#endif /* ERI_ABI_USER_H */
