/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * liberi: rdma-core provider of the ERI (Elastic RDMA Interface) device.
 */
#ifndef __ERI_H__
#define __ERI_H__

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>

#include <ccan/list.h>
#include <infiniband/driver.h>
#include <util/util.h>

#include "eri_hw.h"

struct eri_device {
	struct verbs_device ibvdev;
};

/*
 * QPN -> QP table of a context, for poll_cq: QPNs are 24 bits, looked up in
 * two levels of 4096 entries; a second level is allocated with its first QP
 * and kept until the context goes away, so that a lookup never races with
 * its release.
 */
#define ERI_QPN_BITS			24

/*
 * The sl of a datagram's completion: its network header type, in bits
 * [2:0] as RoCE devices report it there, for applications that read it to
 * find the addresses in the GRH area (UCX's ud_verbs: the IPv4 header sits
 * at offset 20, an IPv6 header at 0).  An Ethernet port has no SL.
 */
#define ERI_WC_SL_IPV6			1
#define ERI_WC_SL_IPV4			2
#define ERI_QP_TABLE_SHIFT		12
#define ERI_QP_TABLE_SIZE		(1U << ERI_QP_TABLE_SHIFT)
#define ERI_QP_TABLE_MASK		(ERI_QP_TABLE_SIZE - 1)

struct eri_qp;

/* The device limits the kernel reports in its ucontext response. */
struct eri_context {
	struct verbs_context ibvctx;
	uint32_t dev_caps;		/* ERI_UCTX_CAP_* */
	/* With ERI_UCTX_CAP_CQ_USER_RING: log2 of the deepest CQ ring. */
	uint32_t max_cq_depth_log;
	uint32_t max_inline_data;
	uint16_t max_send_sge;
	uint16_t max_recv_sge;
	uint8_t sq_wqe_shift;
	uint8_t rq_wqe_shift;
	uint8_t cqe_shift;

	/*
	 * The kernel's status page, status_size bytes mapped read-only; NULL
	 * with a kernel that gives none.
	 */
	const struct eri_uctx_status *status;
	size_t status_size;

	/*
	 * Serializes insertions into and removals from qp_table; lookups
	 * (poll_cq) take no lock but load the pointers atomically.
	 */
	pthread_mutex_t qp_table_mutex;
	struct eri_qp **qp_table[ERI_QP_TABLE_SIZE];

	/*
	 * The context's SRQs, found by SRQN only for completions of QPs
	 * destroyed meanwhile; srq_lock protects the list.
	 */
	pthread_spinlock_t srq_lock;
	struct list_head srqs;
};

/* A completion queue: the device's ring and our consumer state. */
struct eri_cq {
	/* ibv_create_cq and ibv_create_cq_ex: cq_ex's polling functions. */
	struct verbs_cq vcq;
	/*
	 * Serializes pollers and arm requests of this CQ, and keeps a QP's
	 * destruction from racing with a poll that uses it: destroy_qp
	 * removes the QP from the table under the locks of both its CQs.
	 */
	pthread_spinlock_t lock;
	uint32_t cqn;
	uint32_t depth_log;
	uint32_t ci;			/* free-running consumer index */
	uint32_t poll_start;		/* ci at start_poll */
	uint32_t arm_sn;		/* sequence number of the last arm */
	/*
	 * The ring, and the doorbell record: in one buffer of ours (@own,
	 * @ring_size bytes, the record after the ring), or two mappings of
	 * the kernel's.
	 */
	struct eri_cqe *ring;
	size_t ring_size;
	struct eri_cq_dbrec *dbrec;
	size_t dbrec_size;
	bool own;
	/* Debugging: CQEs dropped because they named no live WQE. */
	uint64_t stale_cqes;
	/*
	 * The completion start_poll or next_poll made current, which the
	 * cq_ex read functions return field by field; valid while the lock
	 * is held from start_poll to end_poll.
	 */
	struct ibv_wc cur;
};

/* One work queue of a QP, send or receive. */
struct eri_wq {
	/* Serializes posters of this queue, and them with poll_cq. */
	pthread_spinlock_t lock;
	void *ring;
	size_t ring_size;		/* of its own mapping; 0: a part of one */
	uint32_t depth_log;
	uint32_t wqe_shift;		/* log2 of the WQE size */
	uint32_t max_wr;		/* at most 2^depth_log */
	uint32_t max_sge;
	uint16_t pi;			/* free-running producer index */
	uint16_t tail;			/* oldest WQE not completed yet */
	uint64_t *wr_id;		/* 2^depth_log entries, by slot */
	/* Debugging: doorbell system calls made and avoided. */
	uint64_t kicks;
	uint64_t kicks_skipped;
	uint64_t kick_errors;
};

/*
 * A shared receive queue: the device takes its WQEs in ring order for any
 * of its QPs, and they complete out of that order, each with the tag we
 * put in it; wr_ids are kept by tag, and free tags on a stack.  A free tag
 * always means a free ring slot (every WQE taken and not completed holds
 * its tag), so the stack is the only flow control.
 */
struct eri_srq {
	struct ibv_srq ibvsrq;
	/* Serializes posters and pollers; protects everything below. */
	pthread_spinlock_t lock;
	uint32_t srqn;
	uint32_t depth_log;
	uint32_t max_sge;
	void *ring;
	size_t ring_size;
	struct eri_srq_dbrec *dbrec;
	size_t dbrec_size;
	uint16_t pi;			/* free-running producer index */
	uint64_t *wr_id;		/* by tag */
	uint16_t *free;			/* stack of free tags */
	uint32_t nfree;
	uint64_t *busy;			/* bitmap of outstanding tags */
	struct list_node entry;		/* in eri_context.srqs */
	/* Debugging: completions of destroyed QPs, tags given back. */
	uint64_t stale_cqes;
};

/*
 * The work request ibv_qp_ex's builder and setters put together: a struct
 * ibv_send_wr that the encoders of post_send write into the ring, so that
 * both APIs produce the same WQEs.  The setters copy the SGE list and the
 * inline data here, as the API lets the caller reuse its buffers at once.
 * SQ lock held from wr_start to wr_complete or wr_abort.
 */
struct eri_qp_ex_wr {
	struct ibv_send_wr wr;
	struct ibv_sge sge[ERI_SQ_WQE_MAX_SGE];
	uint8_t inl[ERI_SQ_WQE_MAX_INLINE];
	bool pending;			/* built, not written to the ring yet */
	uint16_t start;			/* the SQ's producer index at wr_start */
	int err;			/* first error of the batch, or 0 */
};

struct eri_qp {
	/* verbs_qp: ibv_qp_ex's functions for a QP of ibv_create_qp_ex. */
	struct verbs_qp vqp;
	struct eri_srq *srq;		/* receives from it, or NULL */
	uint32_t qpn;
	bool ud;			/* UD: send WQEs carry an address */
	bool sq_sig_all;
	uint32_t max_inline_data;
	struct eri_wq sq;
	struct eri_wq rq;
	struct eri_qp_dbrec *dbrec;
	size_t dbrec_size;		/* 0: a part of @map */
	/*
	 * The one mapping of both rings and the record
	 * (ERI_CREATE_QP_RESP_ONE_MAPPING), or NULL: each has its own.
	 */
	void *map;
	size_t map_size;
	struct eri_qp_ex_wr ex;
};

struct eri_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
};

/*
 * An address handle: the address vector the kernel resolved, copied into
 * each UD send WQE (dest_qpn and qkey are the work request's).
 */
struct eri_ah {
	struct ibv_ah ibvah;
	struct eri_sq_ud_av av;
};

static inline struct eri_ah *to_eri_ah(struct ibv_ah *ibvah)
{
	return container_of(ibvah, struct eri_ah, ibvah);
}

static inline struct eri_device *to_eri_dev(struct ibv_device *ibvdev)
{
	return container_of(ibvdev, struct eri_device, ibvdev.device);
}

static inline struct eri_context *to_eri_ctx(struct ibv_context *ibvctx)
{
	return container_of(ibvctx, struct eri_context, ibvctx.context);
}

static inline struct eri_pd *to_eri_pd(struct ibv_pd *ibvpd)
{
	return container_of(ibvpd, struct eri_pd, ibvpd);
}

static inline struct eri_cq *to_eri_cq(struct ibv_cq *ibvcq)
{
	return container_of(ibvcq, struct eri_cq, vcq.cq);
}

static inline struct eri_cq *to_eri_cq_ex(struct ibv_cq_ex *ibvcq)
{
	return container_of(ibvcq, struct eri_cq, vcq.cq_ex);
}

static inline struct eri_srq *to_eri_srq(struct ibv_srq *ibvsrq)
{
	return container_of(ibvsrq, struct eri_srq, ibvsrq);
}

static inline struct eri_qp *to_eri_qp(struct ibv_qp *ibvqp)
{
	return container_of(ibvqp, struct eri_qp, vqp.qp);
}

static inline struct eri_qp *to_eri_qp_ex(struct ibv_qp_ex *ibvqp)
{
	return container_of(ibvqp, struct eri_qp, vqp.qp_ex);
}

/* A full barrier: our stores before it are seen before our loads after it. */
static inline void eri_full_barrier(void)
{
	atomic_thread_fence(memory_order_seq_cst);
}

static inline void *eri_mmap(struct ibv_context *ibvctx, size_t len,
			     int prot, uint64_t key)
{
	void *p;

	p = mmap(NULL, len, prot, MAP_SHARED, ibvctx->cmd_fd, key);
	return p == MAP_FAILED ? NULL : p;
}

static inline void eri_munmap(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

/* The QP of @qpn, for poll_cq: no lock (see eri_qp_table_insert()). */
static inline struct eri_qp *eri_qp_table_lookup(struct eri_context *ctx,
						 uint32_t qpn)
{
	struct eri_qp **leaf;

	if (qpn >> ERI_QPN_BITS)
		return NULL;
	leaf = __atomic_load_n(&ctx->qp_table[qpn >> ERI_QP_TABLE_SHIFT],
			       __ATOMIC_ACQUIRE);
	if (!leaf)
		return NULL;
	return __atomic_load_n(&leaf[qpn & ERI_QP_TABLE_MASK],
			       __ATOMIC_ACQUIRE);
}

/* Encode @n scatter/gather entries at @sge. */
static inline void eri_write_sges(struct eri_sge *sge,
				  const struct ibv_sge *sg_list, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		sge[i].addr = htole64(sg_list[i].addr);
		sge[i].length = htole32(sg_list[i].length);
		sge[i].lkey = htole32(sg_list[i].lkey);
	}
}

/* eri.c: address handles (the rest of the control path is its verbs ops). */
struct ibv_ah *eri_create_ah(struct ibv_pd *ibvpd, struct ibv_ah_attr *attr);
int eri_destroy_ah(struct ibv_ah *ibvah);

/* eri_cq.c */
struct ibv_cq *eri_create_cq(struct ibv_context *ibvctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector);
struct ibv_cq_ex *eri_create_cq_ex(struct ibv_context *ibvctx,
				   struct ibv_cq_init_attr_ex *attr);
int eri_destroy_cq(struct ibv_cq *ibvcq);
int eri_poll_cq(struct ibv_cq *ibvcq, int num_entries, struct ibv_wc *wc);
int eri_req_notify_cq(struct ibv_cq *ibvcq, int solicited_only);

/* eri_qp.c */
int eri_qp_table_insert(struct eri_context *ctx, struct eri_qp *qp);
void eri_qp_table_remove_locked(struct eri_context *ctx, struct eri_qp *qp);
struct ibv_qp *eri_create_qp(struct ibv_pd *ibvpd,
			     struct ibv_qp_init_attr *attr);
struct ibv_qp *eri_create_qp_ex(struct ibv_context *ibvctx,
				struct ibv_qp_init_attr_ex *attr);
int eri_modify_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		  int attr_mask);
int eri_query_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		 int attr_mask, struct ibv_qp_init_attr *init_attr);
int eri_destroy_qp(struct ibv_qp *ibvqp);
int eri_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);
int eri_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);

/* eri_srq.c */
struct ibv_srq *eri_create_srq(struct ibv_pd *ibvpd,
			       struct ibv_srq_init_attr *attr);
int eri_modify_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr,
		   int attr_mask);
int eri_query_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr);
int eri_destroy_srq(struct ibv_srq *ibvsrq);
int eri_post_srq_recv(struct ibv_srq *ibvsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);

#endif /* __ERI_H__ */
