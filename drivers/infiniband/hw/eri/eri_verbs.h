/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* ERI verbs. */
#ifndef _ERI_VERBS_H_
#define _ERI_VERBS_H_

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <rdma/ib_verbs.h>

#include "eri.h"

struct eri_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/**
 * struct eri_mr - a memory region
 * @ibmr: the IB MR
 * @umem: the user memory of a user MR; NULL otherwise
 * @pbl: the page list of a fast-registration MR, @max_pages little-endian
 *	bus addresses, read by the device when it runs a REG_MR work request;
 *	@pbl.va is NULL for other MRs
 * @max_pages: room in @pbl
 * @npages: pages map_mr_sg put into @pbl
 */
struct eri_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	struct eri_com_buf pbl;
	u32 max_pages;
	u32 npages;
};

/*
 * DMA-coherent memory shared with userspace through mmap().  The entry owns
 * the buffer: it is freed when the last mapping and the object are gone.
 * Its pages count in @mm's pinned_vm until then.  A @read_only buffer is
 * the device's or the driver's to write: userspace may only map it for
 * reading.
 */
struct eri_user_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	struct eri_dev *edev;
	struct eri_com_buf buf;
	struct mm_struct *mm;
	unsigned long npages;
	bool read_only;
};

/*
 * Memory of a queue shared with the device: plain DMA-coherent memory for a
 * kernel consumer, or the buffer of an mmap entry for a user one.
 */
struct eri_qmem {
	struct eri_com_buf *buf;	/* &kbuf or &entry->buf */
	struct eri_com_buf kbuf;
	struct eri_user_mmap_entry *entry;	/* user queues only */
};

/*
 * A process's context: @status is its status page (struct eri_uctx_status),
 * mapped read-only, which tells liberi that the device is gone.
 */
struct eri_ucontext {
	struct ib_ucontext ibucontext;
	struct eri_qmem status;
};

/**
 * struct eri_cq - a completion queue
 * @ibcq: the IB CQ
 * @umem: the ring and doorbell record of a user CQ whose provider
 *	allocated them (ERI_CREATE_CQ_USER_RING), pinned
 * @ring: 2^@depth_log CQEs of a user CQ mapped from the kernel's memory
 * @db: the doorbell record, struct eri_cq_dbrec, unless in @umem
 * @chunks: the ring of a kernel CQ, @nchunks buffers of 2^@chunk_log CQEs
 * @nchunks: buffers in @chunks
 * @chunk_log: log2 of the CQEs of one of @chunks
 * @dbrec: the doorbell record (kernel CQs)
 * @cqn: the CQ's number
 * @depth_log: log2 of the ring's entry count
 * @user: the rings belong to a user process; the kernel never reads them
 * @lock: serializes poll_cq and req_notify_cq of a kernel CQ; protects @ci
 *	and @arm_sn
 * @ci: free-running consumer index, 32 bits wide
 * @arm_sn: sequence number of the last arm request
 * @refs: one for cq_xa, one per async event being delivered
 * @released: completed when @refs drops to zero
 */
struct eri_cq {
	struct ib_cq ibcq;
	struct ib_umem *umem;
	struct eri_qmem ring;
	struct eri_qmem db;
	struct eri_com_buf *chunks;
	u32 nchunks;
	u32 chunk_log;
	struct eri_cq_dbrec *dbrec;
	u32 cqn;
	u32 depth_log;
	bool user;
	spinlock_t lock;	/* poll vs. arm of a kernel CQ */
	u32 ci;
	u32 arm_sn;
	refcount_t refs;
	struct completion released;
};

/**
 * struct eri_wq - one work queue (send or receive) of a QP
 * @mem: 2^@depth_log WQEs
 * @depth_log: log2 of the WQE count
 * @wqe_shift: log2 of the WQE size
 * @max_sge: SGEs a WQE may carry
 * @lock: serializes posters of a kernel QP; protects @pi
 * @pi: free-running producer index
 * @ci: free-running index of the oldest WQE not yet completed; written only
 *	by the poller of the queue's CQ (under that CQ's lock), with release
 *	semantics once it is done with the retired WQEs' @wr_id
 * @wr_id: the work request ids of a kernel QP's WQEs, by slot
 */
struct eri_wq {
	struct eri_qmem mem;
	u32 depth_log;
	u32 wqe_shift;
	u32 max_sge;
	spinlock_t lock;	/* posters of a kernel QP */
	u16 pi;
	u16 ci;
	u64 *wr_id;
};

/**
 * struct eri_srq - a shared receive queue
 * @ibsrq: the IB SRQ
 * @ring: 2^@depth_log receive WQEs
 * @db: the doorbell record, struct eri_srq_dbrec
 * @dbrec: the doorbell record (kernel SRQs)
 * @srqn: the SRQ's number
 * @depth_log: log2 of the WQE count
 * @max_sge: SGEs a WQE may carry
 * @user: the ring belongs to a user process; the kernel never reads it
 * @lock: serializes posters and pollers of a kernel SRQ; protects @pi,
 *	@wr_id, @free, @nfree and @busy
 * @pi: free-running producer index
 * @wr_id: the work request ids of outstanding WQEs, by tag
 * @free: stack of the tags not outstanding, @nfree of them
 * @nfree: tags on @free
 * @busy: bitmap of the outstanding tags
 * @refs: one for srq_xa, one per async event being delivered
 * @released: completed when @refs drops to zero
 */
struct eri_srq {
	struct ib_srq ibsrq;
	struct eri_qmem ring;
	struct eri_qmem db;
	struct eri_srq_dbrec *dbrec;
	u32 srqn;
	u32 depth_log;
	u32 max_sge;
	bool user;
	spinlock_t lock;	/* posters and pollers of a kernel SRQ */
	u16 pi;
	u64 *wr_id;
	u16 *free;
	u32 nfree;
	unsigned long *busy;
	refcount_t refs;
	struct completion released;
};

/**
 * struct eri_qp - a queue pair: RC, UD or GSI
 * @ibqp: the IB QP
 * @sq: the send queue
 * @rq: the receive queue; empty with @srq
 * @srq: the shared receive queue it receives from, or NULL
 * @db: the doorbell record, struct eri_qp_dbrec
 * @all: with one mapping (ERI_CREATE_QP_ONE_MAPPING), the memory of which
 *	@sq, @rq and @db describe parts; otherwise empty
 * @dbrec: the doorbell record (kernel QPs)
 * @qpn: the QP's number
 * @max_inline: inline bytes a send WQE may carry
 * @sq_sig_all: every send WQE completes
 * @user: the rings belong to a user process; the kernel never reads them
 * @mutex: serializes modify_qp and query_qp; protects @state and @cache
 * @state: the state the driver last set or learned of
 * @sqd_notify: raise SQ_DRAINED as IB_EVENT_SQ_DRAINED
 * @cache: the attributes last set by modify_qp, for query_qp
 * @cap: the capabilities the QP was created with
 * @refs: one for qp_xa, one per async event being delivered
 * @released: completed when @refs drops to zero
 */
struct eri_qp {
	struct ib_qp ibqp;
	struct eri_wq sq;
	struct eri_wq rq;
	struct eri_srq *srq;
	struct eri_qmem db;
	struct eri_qmem all;
	struct eri_qp_dbrec *dbrec;
	u32 qpn;
	u32 max_inline;
	bool sq_sig_all;
	bool user;
	struct mutex mutex;	/* modify_qp vs. query_qp vs. events */
	enum ib_qp_state state;
	bool sqd_notify;
	struct ib_qp_attr cache;
	struct ib_qp_cap cap;
	refcount_t refs;
	struct completion released;
};

/**
 * struct eri_ah - an address handle: the address vector of UD WQEs, built
 * once and copied into each WQE; the device keeps no state of it
 * @ibah: the IB AH
 * @av: the address vector, without destination QPN and Q_Key
 */
struct eri_ah {
	struct ib_ah ibah;
	struct eri_sq_ud_av av;
};

static inline struct eri_ah *to_eri_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct eri_ah, ibah);
}

static inline struct eri_ucontext *
to_eri_ucontext(struct ib_ucontext *ibucontext)
{
	return container_of(ibucontext, struct eri_ucontext, ibucontext);
}

static inline struct eri_pd *to_eri_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct eri_pd, ibpd);
}

static inline struct eri_mr *to_eri_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct eri_mr, ibmr);
}

static inline struct eri_cq *to_eri_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct eri_cq, ibcq);
}

static inline struct eri_srq *to_eri_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct eri_srq, ibsrq);
}

static inline struct eri_qp *to_eri_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct eri_qp, ibqp);
}

static inline struct eri_user_mmap_entry *
to_eri_mmap_entry(struct rdma_user_mmap_entry *rdma_entry)
{
	return container_of(rdma_entry, struct eri_user_mmap_entry, rdma_entry);
}

int eri_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
		     struct ib_udata *udata);
int eri_query_port(struct ib_device *ibdev, u32 port,
		   struct ib_port_attr *props);
int eri_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
int eri_get_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *immutable);
enum rdma_link_layer eri_get_link_layer(struct ib_device *ibdev, u32 port);
void eri_get_dev_fw_str(struct ib_device *ibdev, char *str);
int eri_alloc_ucontext(struct ib_ucontext *ibucontext, struct ib_udata *udata);
void eri_dealloc_ucontext(struct ib_ucontext *ibucontext);
void eri_disassociate_ucontext(struct ib_ucontext *ibucontext);
int eri_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int eri_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int eri_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma);
void eri_mmap_free(struct rdma_user_mmap_entry *rdma_entry);
int eri_udata_req(struct ib_udata *udata, void *req, size_t size);
int eri_qmem_alloc(struct eri_dev *edev, struct ib_ucontext *uctx,
		   struct eri_qmem *m, size_t size);
void eri_qmem_free(struct eri_dev *edev, struct eri_qmem *m);
u64 eri_qmem_mmap_key(const struct eri_qmem *m);
void eri_qmem_map_read_only(struct eri_qmem *m);
struct rdma_hw_stats *eri_alloc_hw_device_stats(struct ib_device *ibdev);
struct rdma_hw_stats *eri_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port);
int eri_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index);

/* eri_cq.c */
u32 eri_cq_max_depth_log(const struct eri_dev *edev);
int eri_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs);
int eri_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int eri_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int eri_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void eri_cq_async_event(struct eri_dev *edev, u32 cqn,
			enum ib_event_type type);

/* eri_qp.c */
int eri_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int eri_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int eri_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int eri_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int eri_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int eri_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int eri_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
u32 eri_sq_wqe_start(const struct eri_qp *qp, const struct ib_send_wr *wr,
		     u32 op, void *wqe);
u32 eri_sq_wqe_data(const struct ib_send_wr *wr, bool inl, void *dst);
int eri_rwqe_build(const struct ib_recv_wr *wr, u32 max_sge, u32 tag,
		   void *wqe);
void eri_qp_async_event(struct eri_dev *edev, u32 qpn,
			enum ib_event_type type);

/* eri_srq.c */
u32 eri_srq_max_wr(const struct eri_dev *edev);
int eri_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int eri_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int eri_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int eri_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int eri_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
void eri_srq_async_event(struct eri_dev *edev, u32 srqn,
			 enum ib_event_type type);
bool eri_srq_retire_locked(struct eri_srq *srq, u32 tag, u64 *wr_id);
int eri_fill_res_srq_entry(struct sk_buff *msg, struct ib_srq *ibsrq);

/* eri_ud.c */
int eri_gid_pair_check(struct eri_dev *edev, const union ib_gid *sgid,
		       const union ib_gid *dgid);
int eri_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata);
int eri_destroy_ah(struct ib_ah *ibah, u32 flags);
bool eri_qp_is_ud(const struct eri_qp *qp);
int eri_ud_wqe_build(struct eri_qp *qp, const struct ib_send_wr *wr,
		     void *wqe);

/* eri_mr.c */
struct ib_mr *eri_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *eri_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
int eri_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *eri_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			   u32 max_num_sg);
int eri_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
int eri_mr_access_to_dev(int access, u32 *dev_access);
struct ib_umem;
u32 eri_mr_fill_pbl(struct ib_umem *umem, unsigned long pgsz, __le64 *pbl,
		    u32 max);

#endif /* _ERI_VERBS_H_ */
