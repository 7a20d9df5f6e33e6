// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI completion queues.
 *
 * A CQ is a ring of 32-byte CQEs the device produces into with owner bits,
 * and a doorbell record (struct eri_cq_dbrec) through which the consumer
 * hands consumed entries back (ci) and asks for a completion event (arm).
 * A user CQ's ring and record are the process's own memory, pinned, or
 * (for a provider that maps what the kernel allocates) mapped into it; the
 * process polls and arms the CQ itself and the kernel never reads them.  A
 * kernel CQ is polled here, its ring in chunks.  The device takes a large
 * ring as a page list (ERI_DEV_CAP_CQ_PBL).
 */
#include <linux/bitfield.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/eri-abi.h>

#include "eri_verbs.h"

/* A kernel CQ's ring comes in coherent chunks of at most this size. */
#define ERI_CQ_CHUNK_SHIFT	16

/*
 * log2 of the entries of the deepest CQ: what the device takes, and with a
 * page list (ERI_DEV_CAP_CQ_PBL) up to 2^22, without one 2^15.
 */
u32 eri_cq_max_depth_log(const struct eri_dev *edev)
{
	u32 limit = edev->attr.caps & ERI_DEV_CAP_CQ_PBL ?
		    ERI_CQ_MAX_DEPTH_LOG : ERI_RING_MAX_DEPTH_LOG;

	if (!edev->attr.max_cqe)
		return 0;
	return min_t(u32, ilog2(edev->attr.max_cqe), limit);
}

/* The depth for @cqe entries: a power of two, one to spare if it fits. */
static int eri_cq_depth_log(u32 cqe, u32 max_log)
{
	u64 depth;

	if (!cqe || cqe > BIT(max_log))
		return -EINVAL;
	depth = roundup_pow_of_two((u64)cqe + 1);
	if (depth > BIT(max_log))
		depth = roundup_pow_of_two(cqe);
	return ilog2(depth);
}

/*
 * A buffer for the page list of CREATE_CQ, @npages entries; the caller
 * frees it once the command is done (the device copied the list).
 */
static int eri_cq_pbl_alloc(struct eri_dev *edev, struct eri_com_buf *pbl,
			    size_t npages)
{
	return eri_com_buf_alloc(&edev->com, pbl, npages * sizeof(__le64));
}

/* Free a kernel CQ's ring chunks. */
static void eri_cq_free_chunks(struct eri_dev *edev, struct eri_cq *cq)
{
	u32 i;

	for (i = 0; cq->chunks && i < cq->nchunks; i++)
		eri_com_buf_free(&edev->com, &cq->chunks[i]);
	kvfree(cq->chunks);
	cq->chunks = NULL;
}

/*
 * A kernel CQ: its ring in chunks of 2^ERI_CQ_CHUNK_SHIFT bytes at most
 * (a single one when the device takes no page list), each aligned to its
 * size as coherent allocations are, so that each is a page of the list.
 */
static int eri_cq_alloc_kernel(struct eri_dev *edev, struct eri_cq *cq,
			       struct eri_com_cq_create *p)
{
	size_t ring = sizeof(struct eri_cqe) << cq->depth_log;
	u32 shift = max_t(u32, PAGE_SHIFT, ERI_CQ_CHUNK_SHIFT);
	struct eri_com_buf pbl;
	__le64 *list;
	u32 i;
	int ret;

	if (!(edev->attr.caps & ERI_DEV_CAP_CQ_PBL) || ring <= BIT(shift))
		shift = max_t(u32, PAGE_SHIFT, order_base_2(ring));
	cq->nchunks = max_t(size_t, 1, ring >> shift);
	cq->chunk_log = shift - ilog2(sizeof(struct eri_cqe));
	cq->chunks = kvcalloc(cq->nchunks, sizeof(*cq->chunks), GFP_KERNEL);
	if (!cq->chunks)
		return -ENOMEM;
	for (i = 0; i < cq->nchunks; i++) {
		ret = eri_com_buf_alloc(&edev->com, &cq->chunks[i],
					min_t(size_t, ring, BIT(shift)));
		if (ret)
			goto err_free;
	}
	ret = eri_qmem_alloc(edev, NULL, &cq->db, sizeof(struct eri_cq_dbrec));
	if (ret)
		goto err_free;
	cq->dbrec = cq->db.buf->va;
	p->dbrec = cq->db.buf->dma;
	if (edev->attr.caps & ERI_DEV_CAP_CQ_PBL) {
		ret = eri_cq_pbl_alloc(edev, &pbl, cq->nchunks);
		if (ret)
			goto err_free;
		list = pbl.va;
		for (i = 0; i < cq->nchunks; i++)
			list[i] = cpu_to_le64(cq->chunks[i].dma);
		p->ring = pbl.dma;
		p->npages = cq->nchunks;
		p->page_shift = shift;
		ret = eri_com_create_cq(&edev->com, p);
		eri_com_buf_free(&edev->com, &pbl);
	} else {
		p->ring = cq->chunks[0].dma;
		ret = eri_com_create_cq(&edev->com, p);
	}
	if (ret)
		goto err_free;
	return 0;

err_free:
	eri_qmem_free(edev, &cq->db);
	eri_cq_free_chunks(edev, cq);
	return ret;
}

/* The bus address of byte @off of @umem, which starts on a page. */
static dma_addr_t eri_umem_dma_at(struct ib_umem *umem, size_t off)
{
	struct ib_block_iter biter;
	size_t page = off >> PAGE_SHIFT;

	rdma_umem_for_each_dma_block(umem, &biter, PAGE_SIZE) {
		if (!page--)
			return rdma_block_iter_dma_address(&biter) +
			       offset_in_page(off);
	}
	return 0;
}

/*
 * A user CQ whose ring and doorbell record the provider allocated at
 * @ring_va: pinned, charged to the process (RLIMIT_MEMLOCK), and given to
 * the device by page list.
 */
static int eri_cq_alloc_user_ring(struct eri_dev *edev, struct eri_cq *cq,
				  u64 ring_va, struct eri_com_cq_create *p)
{
	size_t ring = sizeof(struct eri_cqe) << cq->depth_log;
	struct eri_com_buf pbl;
	int ret;

	if (!PAGE_ALIGNED(ring_va))
		return -EINVAL;
	cq->umem = ib_umem_get(&edev->ibdev, ring_va,
			       ring + sizeof(struct eri_cq_dbrec),
			       IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(cq->umem)) {
		ret = PTR_ERR(cq->umem);
		cq->umem = NULL;
		return ret;
	}
	p->npages = max_t(size_t, 1, ring >> PAGE_SHIFT);
	p->page_shift = PAGE_SHIFT;
	p->dbrec = eri_umem_dma_at(cq->umem, ring);
	ret = eri_cq_pbl_alloc(edev, &pbl, p->npages);
	if (ret)
		goto err_release;
	eri_mr_fill_pbl(cq->umem, PAGE_SIZE, pbl.va, p->npages);
	p->ring = pbl.dma;
	ret = eri_com_create_cq(&edev->com, p);
	eri_com_buf_free(&edev->com, &pbl);
	if (ret)
		goto err_release;
	return 0;

err_release:
	ib_umem_release(cq->umem);
	cq->umem = NULL;
	return ret;
}

/*
 * A user CQ of a provider that maps the ring the kernel allocates: one
 * contiguous buffer, so at most 2^15 entries (the provider's index may be
 * 16 bits wide).  The response, with the mmap keys, goes out before the
 * device learns of the CQ, so that no failure after it needs undoing there.
 */
static int eri_cq_alloc_mapped(struct eri_dev *edev, struct eri_cq *cq,
			       struct ib_udata *udata,
			       struct eri_ibv_create_cq_resp *resp,
			       struct eri_com_cq_create *p)
{
	struct ib_ucontext *uctx = &rdma_udata_to_drv_context(udata,
			struct eri_ucontext, ibucontext)->ibucontext;
	int ret;

	if (cq->depth_log > ERI_RING_MAX_DEPTH_LOG)
		return -EINVAL;
	ret = eri_qmem_alloc(edev, uctx, &cq->ring,
			     sizeof(struct eri_cqe) << cq->depth_log);
	if (ret)
		return ret;
	/* The device writes the ring; the process only reads it. */
	eri_qmem_map_read_only(&cq->ring);
	ret = eri_qmem_alloc(edev, uctx, &cq->db, sizeof(struct eri_cq_dbrec));
	if (ret)
		goto err_free_ring;
	resp->ring_mmap_key = eri_qmem_mmap_key(&cq->ring);
	resp->dbrec_mmap_key = eri_qmem_mmap_key(&cq->db);
	resp->ring_size = cq->ring.buf->size;
	resp->dbrec_size = cq->db.buf->size;
	ret = ib_copy_to_udata(udata, resp, sizeof(*resp));
	if (ret)
		goto err_free_db;
	p->ring = cq->ring.buf->dma;
	p->dbrec = cq->db.buf->dma;
	ret = eri_com_create_cq(&edev->com, p);
	if (ret)
		goto err_free_db;
	return 0;

err_free_db:
	eri_qmem_free(edev, &cq->db);
err_free_ring:
	eri_qmem_free(edev, &cq->ring);
	return ret;
}

/* Free the memory of a CQ the device no longer uses. */
static void eri_cq_free_mem(struct eri_dev *edev, struct eri_cq *cq)
{
	eri_qmem_free(edev, &cq->db);
	eri_qmem_free(edev, &cq->ring);
	eri_cq_free_chunks(edev, cq);
	if (cq->umem)
		ib_umem_release(cq->umem);
	cq->umem = NULL;
}

/*
 * Read the driver data of a user create_cq: none, or an
 * eri_ibv_create_cq_req.  Return: 0 or -EINVAL/-EOPNOTSUPP.
 */
static int eri_cq_req(struct eri_dev *edev, struct ib_udata *udata,
		      struct eri_ibv_create_cq_req *req)
{
	int ret;

	if (!udata->inlen)
		return 0;
	if (udata->inlen < sizeof(*req))
		return -EINVAL;
	ret = ib_copy_from_udata(req, udata, sizeof(*req));
	if (ret)
		return ret;
	if (udata->inlen > sizeof(*req) &&
	    !ib_is_udata_cleared(udata, sizeof(*req),
				 udata->inlen - sizeof(*req)))
		return -EOPNOTSUPP;
	if (req->comp_mask & ~ERI_CREATE_CQ_USER_RING)
		return -EOPNOTSUPP;
	if ((req->comp_mask & ERI_CREATE_CQ_USER_RING) &&
	    !(edev->attr.caps & ERI_DEV_CAP_CQ_PBL))
		return -EOPNOTSUPP;
	return 0;
}

/* Choose the depth of the CQ: the provider's, or ours. */
static int eri_cq_set_depth(struct eri_dev *edev, struct eri_cq *cq,
			    const struct ib_cq_init_attr *attr,
			    const struct eri_ibv_create_cq_req *req)
{
	u32 max_log = eri_cq_max_depth_log(edev);
	int depth_log;

	if (req->comp_mask & ERI_CREATE_CQ_USER_RING) {
		if (!attr->cqe || req->depth_log > max_log ||
		    attr->cqe > BIT(req->depth_log))
			return -EINVAL;
		cq->depth_log = req->depth_log;
		return 0;
	}
	depth_log = eri_cq_depth_log(attr->cqe, max_log);
	if (depth_log < 0)
		return depth_log;
	cq->depth_log = depth_log;
	return 0;
}

static int eri_create_cq_udata(struct ib_cq *ibcq,
			       const struct ib_cq_init_attr *attr,
			       struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibcq->device);
	struct eri_cq *cq = to_eri_cq(ibcq);
	struct eri_ibv_create_cq_resp resp = {};
	struct eri_ibv_create_cq_req req = {};
	struct eri_com_cq_create p = {};
	struct ib_ucontext *uctx = NULL;
	int ret;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (edev->attr.cqe_shift != ilog2(sizeof(struct eri_cqe)))
		return -EOPNOTSUPP;
	if (attr->comp_vector >= edev->num_ceqs)
		return -EINVAL;
	if (udata) {
		ret = eri_cq_req(edev, udata, &req);
		if (ret)
			return ret;
		if (udata->outlen < sizeof(resp))
			return -EINVAL;
		uctx = &rdma_udata_to_drv_context(udata, struct eri_ucontext,
						  ibucontext)->ibucontext;
	}
	ret = eri_cq_set_depth(edev, cq, attr, &req);
	if (ret)
		return ret;

	cq->user = !!uctx;
	spin_lock_init(&cq->lock);
	refcount_set(&cq->refs, 1);
	init_completion(&cq->released);

	/*
	 * In turn, as QPNs: a late event of a destroyed CQ finds no new one.
	 * The entry stays NULL, so events find nothing, until the device has
	 * the CQ.
	 */
	ret = xa_alloc_cyclic_irq(&edev->cq_xa, &cq->cqn, NULL,
				  XA_LIMIT(0, edev->attr.max_cq - 1),
				  &edev->cq_next, GFP_KERNEL);
	if (ret < 0)
		return ret == -EBUSY ? -ENOSPC : ret;
	p.cqn = cq->cqn;
	p.eqn = edev->ceqs[attr->comp_vector].eqn;
	p.depth_log = cq->depth_log;

	if (uctx) {
		resp.cqn = cq->cqn;
		resp.depth_log = cq->depth_log;
	}
	if (req.comp_mask & ERI_CREATE_CQ_USER_RING) {
		/* Nothing to map: the response is final before the device. */
		ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (!ret)
			ret = eri_cq_alloc_user_ring(edev, cq, req.ring_va, &p);
	} else if (uctx) {
		ret = eri_cq_alloc_mapped(edev, cq, udata, &resp, &p);
	} else {
		ret = eri_cq_alloc_kernel(edev, cq, &p);
	}
	if (ret)
		goto err_free_cqn;
	ret = xa_err(xa_store_irq(&edev->cq_xa, cq->cqn, ibcq, GFP_KERNEL));
	if (ret)
		goto err_destroy_cq;
	ibcq->cqe = BIT(cq->depth_log);
	return 0;

err_destroy_cq:
	eri_com_destroy_cq(&edev->com, cq->cqn);
	eri_cq_free_mem(edev, cq);
err_free_cqn:
	xa_erase_irq(&edev->cq_xa, cq->cqn);
	return ret;
}

/**
 * eri_create_cq - create a completion queue
 * @ibcq: the CQ the core allocated
 * @attr: entries, completion vector, flags
 * @attrs: the uverbs request, NULL for a kernel CQ
 *
 * Sleeps.  The core serializes nothing; each call works on its own CQ.
 *
 * Return: 0 or a negative errno.
 */
int eri_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs)
{
	return eri_create_cq_udata(ibcq, attr,
				   attrs ? &attrs->driver_udata : NULL);
}

static void eri_cq_put(struct eri_cq *cq)
{
	if (refcount_dec_and_test(&cq->refs))
		complete(&cq->released);
}

/**
 * eri_destroy_cq - destroy a completion queue
 * @ibcq: the CQ
 * @udata: the uverbs request, NULL for a kernel CQ
 *
 * Sleeps.  The core calls it once no QP uses the CQ and no other verb on
 * the CQ runs; it waits for completion and async event handlers of the CQ.
 *
 * Return: 0 or a negative errno; the CQ stays usable on failure.
 */
int eri_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibcq->device);
	struct eri_cq *cq = to_eri_cq(ibcq);
	int ret;

	/* Once it completes the device writes neither the CQ nor its CEQ. */
	ret = eri_com_destroy_cq(&edev->com, cq->cqn);
	if (ret)
		return ret;
	/*
	 * The CEQ handler calls comp_handler under the xarray's lock, so once
	 * the CQ's entry is NULL no completion handler runs for it.  An async
	 * event holds a reference; wait for it.  Storing NULL keeps the CQN
	 * allocated until the CQ's memory is gone.
	 */
	xa_store_irq(&edev->cq_xa, cq->cqn, NULL, GFP_KERNEL);
	eri_cq_put(cq);
	wait_for_completion(&cq->released);

	eri_cq_free_mem(edev, cq);
	xa_erase_irq(&edev->cq_xa, cq->cqn);
	return 0;
}

/**
 * eri_cq_async_event - deliver an async event of a CQ
 * @edev: the device
 * @cqn: the CQ the device named
 * @type: the IB event
 *
 * Called from the communication layer's event work, one event at a time.
 */
void eri_cq_async_event(struct eri_dev *edev, u32 cqn,
			enum ib_event_type type)
{
	struct ib_event event = { .device = &edev->ibdev, .event = type };
	struct ib_cq *ibcq;
	struct eri_cq *cq;

	/* The CQ cannot go while we hold its reference; see destroy. */
	xa_lock_irq(&edev->cq_xa);
	ibcq = xa_load(&edev->cq_xa, cqn);
	if (ibcq)
		refcount_inc(&to_eri_cq(ibcq)->refs);
	xa_unlock_irq(&edev->cq_xa);
	if (!ibcq)
		return;
	cq = to_eri_cq(ibcq);
	event.element.cq = ibcq;
	if (ibcq->event_handler)
		ibcq->event_handler(&event, ibcq->cq_context);
	eri_cq_put(cq);
}

static enum ib_wc_status eri_wc_status(u32 status)
{
	switch (status) {
	case ERI_CQE_STS_SUCCESS:
		return IB_WC_SUCCESS;
	case ERI_CQE_STS_LOC_LEN_ERR:
		return IB_WC_LOC_LEN_ERR;
	case ERI_CQE_STS_LOC_QP_OP_ERR:
		return IB_WC_LOC_QP_OP_ERR;
	case ERI_CQE_STS_LOC_PROT_ERR:
		return IB_WC_LOC_PROT_ERR;
	case ERI_CQE_STS_WR_FLUSH_ERR:
		return IB_WC_WR_FLUSH_ERR;
	case ERI_CQE_STS_BAD_RESP_ERR:
		return IB_WC_BAD_RESP_ERR;
	case ERI_CQE_STS_LOC_ACCESS_ERR:
		return IB_WC_LOC_ACCESS_ERR;
	case ERI_CQE_STS_REM_INV_REQ_ERR:
		return IB_WC_REM_INV_REQ_ERR;
	case ERI_CQE_STS_REM_ACCESS_ERR:
		return IB_WC_REM_ACCESS_ERR;
	case ERI_CQE_STS_REM_OP_ERR:
		return IB_WC_REM_OP_ERR;
	case ERI_CQE_STS_RETRY_EXC_ERR:
		return IB_WC_RETRY_EXC_ERR;
	case ERI_CQE_STS_RNR_RETRY_EXC_ERR:
		return IB_WC_RNR_RETRY_EXC_ERR;
	case ERI_CQE_STS_GENERAL_ERR:
	default:
		return IB_WC_GENERAL_ERR;
	}
}

/* A flushed WQE may carry no meaningful opcode: fall back on its queue's. */
static enum ib_wc_opcode eri_wc_opcode(u32 opcode, bool sq)
{
	switch (opcode) {
	case ERI_CQE_OP_SEND:
		return IB_WC_SEND;
	case ERI_CQE_OP_WRITE:
		return IB_WC_RDMA_WRITE;
	case ERI_CQE_OP_READ:
		return IB_WC_RDMA_READ;
	case ERI_CQE_OP_REG_MR:
		return IB_WC_REG_MR;
	case ERI_CQE_OP_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case ERI_CQE_OP_CMP_SWP:
		return IB_WC_COMP_SWAP;
	case ERI_CQE_OP_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case ERI_CQE_OP_RECV:
		return IB_WC_RECV;
	case ERI_CQE_OP_RECV_WRITE_IMM:
		return IB_WC_RECV_RDMA_WITH_IMM;
	default:
		return sq ? IB_WC_SEND : IB_WC_RECV;
	}
}

/*
 * Give back the tag of an SRQ completion, and find its wr_id.  @qp: the QP
 * the CQE's QPN names now, if any.  Returns whether the completion is to
 * be reported: it is a kernel SRQ QP's, of this CQ, with a tag outstanding.
 * A destroyed QP's completion (the device flushes those) only frees its
 * tag, through the SRQ table: ib_core destroys no SRQ before its QPs.
 */
static bool eri_cq_srq_retire_locked(struct eri_cq *cq, struct eri_qp *qp,
				     const struct eri_cqe *cqe, u64 *wr_id)
{
	struct eri_dev *edev = to_eri_dev(cq->ibcq.device);
	u32 srqn = le32_to_cpu(cqe->srqn), tag = le32_to_cpu(cqe->wqe_idx);
	struct eri_srq *srq;
	bool ok = false;

	lockdep_assert_held(&cq->lock);
	/*
	 * A kernel QP stays until the poller leaves its RCU read-side section
	 * (see eri_cq_decode_locked()); no other QP is looked into beyond
	 * this test.
	 */
	if (qp && qp->ibqp.recv_cq == &cq->ibcq && !qp->user && qp->srq &&
	    qp->srq->srqn == srqn) {
		/* The SRQ outlives the QP.  Lock order: cq->lock, srq->lock. */
		spin_lock(&qp->srq->lock);
		ok = eri_srq_retire_locked(qp->srq, tag, wr_id);
		spin_unlock(&qp->srq->lock);
		return ok;
	}
	/*
	 * The QP is gone, its QPN maybe reused already by a QP of another
	 * CQ or SRQ: give the tag back, report nothing.  destroy_srq erases
	 * the SRQ before it frees it: found under the lock, it stays.
	 */
	xa_lock(&edev->srq_xa);
	srq = xa_load(&edev->srq_xa, srqn);
	if (srq && !srq->user) {
		spin_lock(&srq->lock);
		eri_srq_retire_locked(srq, tag, wr_id);
		spin_unlock(&srq->lock);
	}
	xa_unlock(&edev->srq_xa);
	return false;
}

/*
 * Turn one CQE into a work completion.  Returns false for a CQE that names
 * no kernel QP of ours or no outstanding WQE (a QP destroyed meanwhile):
 * it is consumed and dropped.
 */
static bool eri_cq_decode_locked(struct eri_cq *cq, const struct eri_cqe *cqe,
				 u32 hdr, struct ib_wc *wc)
{
	struct eri_dev *edev = to_eri_dev(cq->ibcq.device);
	bool sq = hdr & ERI_CQE_HDR_SQ;
	u32 status = FIELD_GET(ERI_CQE_HDR_STATUS, hdr);
	struct eri_wq *wq;
	struct eri_qp *qp;
	u16 idx, ci;

	lockdep_assert_held(&cq->lock);
	/*
	 * eri_destroy_qp() clears a kernel QP's entry and then waits for an
	 * RCU grace period, so a kernel QP found here stays until the poller
	 * leaves its read-side section.
	 */
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "QP lookup outside RCU");
	qp = xa_load(&edev->qp_xa, le32_to_cpu(cqe->qpn));
	if (!sq && (hdr & ERI_CQE_HDR_SRQ)) {
		if (!eri_cq_srq_retire_locked(cq, qp, cqe, &wc->wr_id))
			return false;
	} else {
		if (!qp || qp->user)
			return false;
		wq = sq ? &qp->sq : &qp->rq;
		if ((sq ? qp->ibqp.send_cq : qp->ibqp.recv_cq) != &cq->ibcq)
			return false;
		idx = le32_to_cpu(cqe->wqe_idx);
		ci = wq->ci;
		if ((u16)(idx - ci) >= (u16)(READ_ONCE(wq->pi) - ci))
			return false;

		wc->wr_id = wq->wr_id[eri_ring_slot(idx, wq->depth_log)];
		/*
		 * Retire the WQE and the unsignaled ones before it.  Release:
		 * the wr_id read above happens before a poster reuses the
		 * slots.
		 */
		smp_store_release(&wq->ci, idx + 1);
	}

	wc->status = eri_wc_status(status);
	wc->vendor_err = status;
	wc->opcode = eri_wc_opcode(FIELD_GET(ERI_CQE_HDR_OPCODE, hdr), sq);
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->qp = &qp->ibqp;
	wc->src_qp = le32_to_cpu(cqe->src_qpn);
	wc->wc_flags = 0;
	if (hdr & ERI_CQE_HDR_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->imm_data;
	} else if (hdr & ERI_CQE_HDR_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = le32_to_cpu(cqe->inv_rkey);
	}
	if (hdr & ERI_CQE_HDR_GRH) {
		/* A datagram: its network header is in the buffer's GRH. */
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = hdr & ERI_CQE_HDR_IPV4 ?
				       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	}
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
	wc->port_num = 1;
	return true;
}

/* The entry of a kernel CQ's ring at index @idx. */
static struct eri_cqe *eri_cq_entry(struct eri_cq *cq, u32 idx)
{
	u32 slot = eri_ring_slot(idx, cq->depth_log);
	struct eri_cqe *chunk = cq->chunks[slot >> cq->chunk_log].va;

	return chunk + (slot & (BIT(cq->chunk_log) - 1));
}

static bool eri_cq_pending_locked(struct eri_cq *cq)
{
	const struct eri_cqe *cqe = eri_cq_entry(cq, cq->ci);

	lockdep_assert_held(&cq->lock);
	return FIELD_GET(ERI_CQE_HDR_OWNER, le32_to_cpu(READ_ONCE(cqe->hdr))) ==
	       eri_ring_owner(cq->ci, cq->depth_log);
}

/**
 * eri_poll_cq - poll a kernel completion queue
 * @ibcq: the CQ
 * @num_entries: room in @wc
 * @wc: where the completions go
 *
 * Any context.  Serialized with other polls and arms of the CQ by its lock.
 *
 * Return: the number of completions in @wc, -EOPNOTSUPP for a user CQ, or
 * -EIO once the device is dead (no completion will come).
 */
int eri_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct eri_dev *edev = to_eri_dev(ibcq->device);
	struct eri_cq *cq = to_eri_cq(ibcq);
	unsigned long flags;
	bool consumed = false;
	int n = 0;

	/* A user CQ's ring is the process's to read, and to scribble on. */
	if (cq->user)
		return -EOPNOTSUPP;
	if (unlikely(eri_com_is_dead(&edev->com)))
		return -EIO;

	spin_lock_irqsave(&cq->lock, flags);
	/* Pairs with synchronize_rcu() in eri_destroy_qp(). */
	rcu_read_lock();
	while (n < num_entries && eri_cq_pending_locked(cq)) {
		const struct eri_cqe *cqe = eri_cq_entry(cq, cq->ci);
		u32 hdr;

		/* Owner bit before the body; pairs with the device's barrier. */
		dma_rmb();
		hdr = le32_to_cpu(cqe->hdr);
		cq->ci++;
		consumed = true;
		if (eri_cq_decode_locked(cq, cqe, hdr, &wc[n]))
			n++;
	}
	rcu_read_unlock();
	if (consumed) {
		/* Done reading the entries before the device may reuse them. */
		dma_mb();
		WRITE_ONCE(cq->dbrec->ci, cpu_to_le32(cq->ci));
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * eri_req_notify_cq - ask for a completion event of a kernel CQ
 * @ibcq: the CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, and IB_CQ_REPORT_MISSED_EVENTS
 *
 * Any context.  Serialized with polls and other arms of the CQ by its lock.
 *
 * Return: 0; 1 with IB_CQ_REPORT_MISSED_EVENTS when a completion is already
 * waiting; -EOPNOTSUPP for a user CQ.
 */
int eri_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct eri_cq *cq = to_eri_cq(ibcq);
	unsigned long irqflags;
	u32 arm;
	int ret = 0;

	/* A user CQ is armed through its mapped doorbell record. */
	if (cq->user)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, irqflags);
	cq->arm_sn = (cq->arm_sn + 1) & FIELD_MAX(ERI_CQ_ARM_SN);
	arm = FIELD_PREP(ERI_CQ_ARM_SN, cq->arm_sn) | ERI_CQ_ARM;
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED)
		arm |= ERI_CQ_ARM_SOLICITED;
	WRITE_ONCE(cq->dbrec->arm, cpu_to_le32(arm));
	/*
	 * The arm before the look at the ring; the device writes a CQE, a full
	 * barrier, then reads arm: one of us sees the other's store.
	 */
	mb();
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && eri_cq_pending_locked(cq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
