// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI queue pairs: RC, UD and the GSI QP (QPN 1, a UD QP for ib_mad).  UD
 * work requests are encoded by eri_ud.c.
 *
 * A QP has a send queue of 128-byte WQEs, a receive queue of 128-byte WQEs
 * and a doorbell record (struct eri_qp_dbrec) holding both producer indexes
 * and the device's kick flags.  A user QP's queues and record are mapped into
 * the process, which posts by itself and enters the kernel only to kick the
 * device (post_send or post_recv with no work request); the kernel never
 * reads them.  A kernel QP's work requests are encoded here, and its
 * completions are matched to work request ids by eri_cq.c.
 */
#include <linux/bitfield.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <rdma/eri-abi.h>
#include <rdma/ib_cache.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>

#include "eri_verbs.h"

/* QPNs 0 and 1 are the special QPs of InfiniBand; ERI has only QP1. */
#define ERI_QPN_GSI		1
#define ERI_QPN_MIN		2

/* Attributes of ib_qp_attr that modify_qp applies or accepts. */
#define ERI_QP_IB_ATTR_MASK	(IB_QP_STATE | IB_QP_CUR_STATE | \
				 IB_QP_EN_SQD_ASYNC_NOTIFY | \
				 IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | \
				 IB_QP_PORT | IB_QP_AV | IB_QP_PATH_MTU | \
				 IB_QP_TIMEOUT | IB_QP_RETRY_CNT | \
				 IB_QP_RNR_RETRY | IB_QP_RQ_PSN | \
				 IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MIN_RNR_TIMER | \
				 IB_QP_SQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | \
				 IB_QP_DEST_QPN | IB_QP_QKEY)

#define ERI_PSN_MASK		GENMASK(23, 0)
#define ERI_FLOW_LABEL_MASK	GENMASK(19, 0)
#define ERI_MAX_MSG_LEN		BIT_ULL(31)

/*
 * Check the requested capabilities; report what the QP really gets.  A UD
 * send WQE is twice the size of an RC one, with the same room for SGEs and
 * inline data after the address vector: every QP type takes the device's
 * max_send_sge and max_inline_data.
 */
static int eri_qp_caps(struct eri_dev *edev, struct ib_qp_cap *cap, bool ud,
		       bool srq, u32 *sq_depth_log, u32 *rq_depth_log)
{
	const struct eri_com_dev_attr *a = &edev->attr;
	u32 max_wr = min_t(u32, a->max_qp_wr, BIT(ERI_RING_MAX_DEPTH_LOG));
	u32 max_send_sge = min_t(u32, a->max_send_sge,
				 ud ? ERI_SQ_UD_MAX_SGE : ERI_SQ_WQE_MAX_SGE);
	u32 max_recv_sge = min_t(u32, a->max_recv_sge, ERI_RQ_WQE_MAX_SGE);
	u32 max_inline = min_t(u32, a->max_inline_data,
			       ud ? ERI_SQ_UD_MAX_INLINE :
				    ERI_SQ_WQE_MAX_INLINE);
	u32 sq_depth, rq_depth;

	/* An SRQ QP has no receive queue: its receive caps are ignored. */
	if (srq) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	if (cap->max_send_wr > max_wr || cap->max_recv_wr > max_wr ||
	    cap->max_send_sge > max_send_sge ||
	    cap->max_recv_sge > max_recv_sge ||
	    cap->max_inline_data > max_inline)
		return -EINVAL;
	sq_depth = roundup_pow_of_two(max(cap->max_send_wr, 1U));
	rq_depth = roundup_pow_of_two(max(cap->max_recv_wr, 1U));
	if (sq_depth > max_wr || rq_depth > max_wr)
		return -EINVAL;
	*sq_depth_log = ilog2(sq_depth);
	*rq_depth_log = srq ? 0 : ilog2(rq_depth);
	cap->max_send_wr = sq_depth;
	cap->max_recv_wr = srq ? 0 : rq_depth;
	cap->max_send_sge = max_send_sge;
	cap->max_recv_sge = srq ? 0 : max_recv_sge;
	cap->max_inline_data = max_inline;
	return 0;
}

static void eri_qp_free_queues(struct eri_dev *edev, struct eri_qp *qp)
{
	kvfree(qp->rq.wr_id);
	kvfree(qp->sq.wr_id);
	if (qp->all.buf) {
		/* The queues and the record are parts of it. */
		eri_qmem_free(edev, &qp->all);
		return;
	}
	eri_qmem_free(edev, &qp->db);
	eri_qmem_free(edev, &qp->rq.mem);
	eri_qmem_free(edev, &qp->sq.mem);
}

/* @part: @size bytes at @off of @whole, which owns them. */
static void eri_qmem_part(struct eri_qmem *part, const struct eri_qmem *whole,
			  size_t off, size_t size)
{
	part->entry = NULL;
	part->kbuf.va = whole->buf->va + off;
	part->kbuf.dma = whole->buf->dma + off;
	part->kbuf.size = size;
	part->buf = &part->kbuf;
}

/*
 * A user QP's send queue, receive queue and doorbell record in one mapping
 * (ERI_CREATE_QP_ONE_MAPPING): a mapping is a VMA of the process, and
 * three per QP made creating and destroying thousands of QPs mostly
 * mmap() and munmap().  Each part keeps the alignment of its own page:
 * the receive queue starts on a WQE, the record on a cache line.
 */
static int eri_qp_alloc_one_mapping(struct eri_dev *edev, struct eri_qp *qp,
				    struct ib_ucontext *uctx)
{
	size_t sq_size = BIT(qp->sq.depth_log) << qp->sq.wqe_shift;
	size_t rq_size = qp->srq ? 0 : BIT(qp->rq.depth_log) << ERI_RQ_WQE_SHIFT;
	size_t rq_off = ALIGN(sq_size, ERI_RQ_WQE_SIZE);
	size_t db_off = ALIGN(rq_off + rq_size, SMP_CACHE_BYTES);
	int ret;

	ret = eri_qmem_alloc(edev, uctx, &qp->all,
			     db_off + sizeof(struct eri_qp_dbrec));
	if (ret)
		return ret;
	eri_qmem_part(&qp->sq.mem, &qp->all, 0, sq_size);
	if (!qp->srq)
		eri_qmem_part(&qp->rq.mem, &qp->all, rq_off, rq_size);
	eri_qmem_part(&qp->db, &qp->all, db_off, sizeof(struct eri_qp_dbrec));
	qp->dbrec = qp->db.buf->va;
	return 0;
}

static int eri_qp_alloc_queues(struct eri_dev *edev, struct eri_qp *qp,
			       struct ib_ucontext *uctx, bool one_mapping)
{
	int ret;

	if (one_mapping)
		return eri_qp_alloc_one_mapping(edev, qp, uctx);
	ret = eri_qmem_alloc(edev, uctx, &qp->sq.mem,
			     BIT(qp->sq.depth_log) << qp->sq.wqe_shift);
	if (ret)
		goto err_free;
	if (!qp->srq) {
		ret = eri_qmem_alloc(edev, uctx, &qp->rq.mem,
				     BIT(qp->rq.depth_log) << ERI_RQ_WQE_SHIFT);
		if (ret)
			goto err_free;
	}
	ret = eri_qmem_alloc(edev, uctx, &qp->db, sizeof(struct eri_qp_dbrec));
	if (ret)
		goto err_free;
	qp->dbrec = qp->db.buf->va;
	if (uctx)
		return 0;
	ret = -ENOMEM;
	qp->sq.wr_id = kvcalloc(BIT(qp->sq.depth_log), sizeof(u64), GFP_KERNEL);
	if (!qp->sq.wr_id)
		goto err_free;
	if (qp->srq)
		return 0;
	qp->rq.wr_id = kvcalloc(BIT(qp->rq.depth_log), sizeof(u64), GFP_KERNEL);
	if (!qp->rq.wr_id)
		goto err_free;
	return 0;

err_free:
	/* Frees what was allocated: every piece starts out empty. */
	eri_qp_free_queues(edev, qp);
	return ret;
}

static int eri_qp_copy_resp(struct eri_qp *qp, struct ib_udata *udata)
{
	struct eri_ibv_create_qp_resp resp = {
		.qpn = qp->qpn,
		.sq_size = qp->sq.mem.buf->size,
		/* An SRQ QP's receive queue has no memory. */
		.rq_size = qp->srq ? 0 : qp->rq.mem.buf->size,
		.dbrec_size = qp->db.buf->size,
		.sq_depth_log = qp->sq.depth_log,
		.sq_wqe_shift = qp->sq.wqe_shift,
		.rq_depth_log = qp->rq.depth_log,
	};

	if (qp->all.buf) {
		resp.comp_mask = ERI_CREATE_QP_RESP_ONE_MAPPING;
		resp.sq_mmap_key = eri_qmem_mmap_key(&qp->all);
		resp.mmap_size = qp->all.buf->size;
		resp.rq_offset = qp->srq ? 0 :
			qp->rq.mem.buf->va - qp->all.buf->va;
		resp.dbrec_offset = qp->db.buf->va - qp->all.buf->va;
	} else {
		resp.sq_mmap_key = eri_qmem_mmap_key(&qp->sq.mem);
		resp.rq_mmap_key = qp->srq ? 0 :
			eri_qmem_mmap_key(&qp->rq.mem);
		resp.dbrec_mmap_key = eri_qmem_mmap_key(&qp->db);
	}
	/* An older provider's response ends before mmap_size. */
	return ib_copy_to_udata(udata, &resp,
				min_t(size_t, udata->outlen, sizeof(resp)));
}

/*
 * The driver data of a user QP's create request.  Return: 0 with
 * @one_mapping set as asked, or a negative errno.
 */
static int eri_qp_parse_req(struct ib_udata *udata, bool *one_mapping)
{
	struct eri_ibv_create_qp_req req = {};
	int ret;

	ret = eri_udata_req(udata, &req, sizeof(req));
	if (ret)
		return ret;
	if ((req.comp_mask & ~ERI_CREATE_QP_ONE_MAPPING) || req.reserved)
		return -EINVAL;
	*one_mapping = req.comp_mask & ERI_CREATE_QP_ONE_MAPPING;
	/* Its response has room for the offsets. */
	if (udata->outlen < (*one_mapping ?
			     sizeof(struct eri_ibv_create_qp_resp) :
			     offsetof(struct eri_ibv_create_qp_resp, mmap_size)))
		return -EINVAL;
	return 0;
}

/* The device's QP type for a verbs QP type, or -EOPNOTSUPP. */
static int eri_qp_type_to_dev(struct eri_dev *edev, enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		if (edev->attr.caps & ERI_DEV_CAP_RC)
			return ERI_QPT_RC;
		break;
	case IB_QPT_UD:
		if (edev->attr.caps & ERI_DEV_CAP_UD)
			return ERI_QPT_UD;
		break;
	case IB_QPT_GSI:
		if (edev->attr.caps & ERI_DEV_CAP_UD)
			return ERI_QPT_GSI;
		break;
	default:
		break;
	}
	return -EOPNOTSUPP;
}

/**
 * eri_create_qp - create an RC, UD or GSI queue pair
 * @ibqp: the QP the core allocated, with its PD
 * @init: type, CQs and capabilities; the capabilities are updated to what
 *	the QP got
 * @udata: the uverbs request, NULL for a kernel QP
 *
 * Sleeps.  Each call works on its own QP; nothing else runs on it yet.
 *
 * Return: 0 or a negative errno.
 */
int eri_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibqp->device);
	struct eri_qp *qp = to_eri_qp(ibqp);
	struct eri_com_qp_create p = {};
	struct ib_ucontext *uctx = NULL;
	bool one_mapping = false;
	u32 min_qpn, max_qpn;
	int type, ret;

	type = eri_qp_type_to_dev(edev, init->qp_type);
	if (type < 0)
		return type;
	/* The GSI QP is ib_mad's, on the one port. */
	if (type == ERI_QPT_GSI && (udata || init->port_num != 1))
		return -EINVAL;
	if (init->create_flags)
		return -EOPNOTSUPP;
	/* ib_mad's QP has its own receive queue. */
	if (init->srq && (type == ERI_QPT_GSI || !eri_srq_max_wr(edev)))
		return -EOPNOTSUPP;
	if (edev->attr.sq_wqe_shift != ERI_SQ_WQE_SHIFT ||
	    edev->attr.rq_wqe_shift != ERI_RQ_WQE_SHIFT ||
	    (type != ERI_QPT_RC &&
	     edev->attr.ud_sq_wqe_shift != ERI_SQ_UD_WQE_SHIFT))
		return -EOPNOTSUPP;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	if (edev->attr.max_qp <= ERI_QPN_MIN)
		return -ENOMEM;
	min_qpn = type == ERI_QPT_GSI ? ERI_QPN_GSI : ERI_QPN_MIN;
	max_qpn = type == ERI_QPT_GSI ? ERI_QPN_GSI :
		  min_t(u32, edev->attr.max_qp - 1, ERI_REG_QP_DB_QPN);
	if (udata) {
		ret = eri_qp_parse_req(udata, &one_mapping);
		if (ret)
			return ret;
		uctx = &rdma_udata_to_drv_context(udata, struct eri_ucontext,
						  ibucontext)->ibucontext;
	}
	ret = eri_qp_caps(edev, &init->cap, type != ERI_QPT_RC, !!init->srq,
			  &qp->sq.depth_log, &qp->rq.depth_log);
	if (ret)
		return ret;

	qp->srq = init->srq ? to_eri_srq(init->srq) : NULL;
	qp->user = !!uctx;
	qp->cap = init->cap;
	qp->sq.wqe_shift = type == ERI_QPT_RC ? ERI_SQ_WQE_SHIFT :
						ERI_SQ_UD_WQE_SHIFT;
	qp->sq.max_sge = init->cap.max_send_sge;
	qp->rq.max_sge = init->cap.max_recv_sge;
	qp->max_inline = init->cap.max_inline_data;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	mutex_init(&qp->mutex);
	qp->state = IB_QPS_RESET;
	refcount_set(&qp->refs, 1);
	init_completion(&qp->released);

	/*
	 * In turn: a late completion of a destroyed QP must not find a new
	 * one.  The entry stays NULL, so lookups find nothing, until the
	 * device has the QP.
	 */
	if (type == ERI_QPT_GSI)
		ret = xa_alloc(&edev->qp_xa, &qp->qpn, NULL,
			       XA_LIMIT(min_qpn, max_qpn), GFP_KERNEL);
	else
		ret = xa_alloc_cyclic(&edev->qp_xa, &qp->qpn, NULL,
				      XA_LIMIT(min_qpn, max_qpn),
				      &edev->qp_next, GFP_KERNEL);
	if (ret < 0) {
		if (ret == -EBUSY)
			ret = -ENOSPC;
		goto err_destroy_mutex;
	}
	ret = eri_qp_alloc_queues(edev, qp, uctx, one_mapping);
	if (ret)
		goto err_free_qpn;
	if (uctx) {
		ret = eri_qp_copy_resp(qp, udata);
		if (ret)
			goto err_free_queues;
	}

	p.type = type;
	p.qpn = qp->qpn;
	p.pdn = to_eri_pd(ibqp->pd)->pdn;
	p.send_cqn = to_eri_cq(init->send_cq)->cqn;
	p.recv_cqn = to_eri_cq(init->recv_cq)->cqn;
	p.sq = qp->sq.mem.buf->dma;
	p.rq = qp->srq ? 0 : qp->rq.mem.buf->dma;
	p.dbrec = qp->db.buf->dma;
	p.sq_depth_log = qp->sq.depth_log;
	p.rq_depth_log = qp->rq.depth_log;
	p.sq_sig_all = qp->sq_sig_all;
	p.srq = !!qp->srq;
	p.srqn = qp->srq ? qp->srq->srqn : 0;
	ret = eri_com_create_qp(&edev->com, &p);
	if (ret)
		goto err_free_queues;
	ret = xa_err(xa_store(&edev->qp_xa, qp->qpn, qp, GFP_KERNEL));
	if (ret)
		goto err_destroy_qp;
	ibqp->qp_num = qp->qpn;
	return 0;

err_destroy_qp:
	eri_com_destroy_qp(&edev->com, qp->qpn);
err_free_queues:
	eri_qp_free_queues(edev, qp);
err_free_qpn:
	xa_erase(&edev->qp_xa, qp->qpn);
err_destroy_mutex:
	mutex_destroy(&qp->mutex);
	return ret;
}

static void eri_qp_put(struct eri_qp *qp)
{
	if (refcount_dec_and_test(&qp->refs))
		complete(&qp->released);
}

/**
 * eri_destroy_qp - destroy a queue pair
 * @ibqp: the QP
 * @udata: the uverbs request, NULL for a kernel QP
 *
 * Sleeps.  The core calls it once no other verb runs on the QP; it waits for
 * pollers of the QP's CQs and for async event handlers of the QP.
 *
 * Return: 0 or a negative errno; the QP stays usable on failure.
 */
int eri_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibqp->device);
	struct eri_qp *qp = to_eri_qp(ibqp);
	int ret;

	/* Once it completes the device touches nothing of the QP. */
	ret = eri_com_destroy_qp(&edev->com, qp->qpn);
	if (ret)
		return ret;
	/* NULL keeps the QPN allocated until the QP's queues are gone. */
	xa_store(&edev->qp_xa, qp->qpn, NULL, GFP_KERNEL);
	/*
	 * Pairs with the RCU read-side section of eri_poll_cq(): a poller
	 * that found the QP before its entry went NULL is done with it.
	 */
	if (!qp->user)
		synchronize_rcu();
	/* An async event being delivered holds a reference. */
	eri_qp_put(qp);
	wait_for_completion(&qp->released);

	eri_qp_free_queues(edev, qp);
	xa_erase(&edev->qp_xa, qp->qpn);
	mutex_destroy(&qp->mutex);
	return 0;
}

/**
 * eri_qp_async_event - deliver an async event of a QP
 * @edev: the device
 * @qpn: the QP the device named
 * @type: the IB event
 *
 * Called from the communication layer's event work, one event at a time.
 * Sleeps.
 */
void eri_qp_async_event(struct eri_dev *edev, u32 qpn,
			enum ib_event_type type)
{
	struct ib_event event = { .device = &edev->ibdev, .event = type };
	struct eri_qp *qp;

	/* The QP cannot go while we hold its reference; see destroy. */
	xa_lock(&edev->qp_xa);
	qp = xa_load(&edev->qp_xa, qpn);
	if (qp)
		refcount_inc(&qp->refs);
	xa_unlock(&edev->qp_xa);
	if (!qp)
		return;

	if (type == IB_EVENT_QP_FATAL || type == IB_EVENT_QP_REQ_ERR ||
	    type == IB_EVENT_QP_ACCESS_ERR) {
		/* The device moved the QP to ERR on its own. */
		mutex_lock(&qp->mutex);
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		mutex_unlock(&qp->mutex);
	}
	if (type == IB_EVENT_SQ_DRAINED && !READ_ONCE(qp->sqd_notify))
		goto out_put;
	event.element.qp = &qp->ibqp;
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&event, qp->ibqp.qp_context);
out_put:
	eri_qp_put(qp);
}

static u8 eri_qp_state_to_dev(enum ib_qp_state state)
{
	switch (state) {
	case IB_QPS_RESET:
		return ERI_QPS_RESET;
	case IB_QPS_INIT:
		return ERI_QPS_INIT;
	case IB_QPS_RTR:
		return ERI_QPS_RTR;
	case IB_QPS_RTS:
		return ERI_QPS_RTS;
	case IB_QPS_SQD:
		return ERI_QPS_SQD;
	case IB_QPS_SQE:
		return ERI_QPS_SQE;
	case IB_QPS_ERR:
	default:
		return ERI_QPS_ERR;
	}
}

static enum ib_qp_state eri_qp_state_from_dev(u8 state)
{
	switch (state) {
	case ERI_QPS_RESET:
		return IB_QPS_RESET;
	case ERI_QPS_INIT:
		return IB_QPS_INIT;
	case ERI_QPS_RTR:
		return IB_QPS_RTR;
	case ERI_QPS_RTS:
		return IB_QPS_RTS;
	case ERI_QPS_SQD:
		return IB_QPS_SQD;
	case ERI_QPS_SQE:
		return IB_QPS_SQE;
	case ERI_QPS_ERR:
	default:
		return IB_QPS_ERR;
	}
}

static int eri_qp_access_to_dev(struct eri_dev *edev, int access, u8 *out)
{
	/*
	 * Rights of operations ERI does not carry (FLUSH) and flags that are
	 * memory regions' rather than the QP's grant nothing here: accepted
	 * and dropped below, so that applications asking for them
	 * (rdma-core's tests do) work.  Bits the kernel does not define are refused.
	 */
	if (access & ~IB_ACCESS_SUPPORTED)
		return -EINVAL;
	/*
	 * Without atomics no peer can send an atomic request: the right is
	 * granted in vain, so accept and drop it.  ib_cm asks for it on the
	 * passive side of every connection with responder resources.
	 */
	if (!(edev->attr.caps & ERI_DEV_CAP_ATOMIC))
		access &= ~IB_ACCESS_REMOTE_ATOMIC;
	/* Local write is a right of memory regions, not of the QP. */
	*out = (access & IB_ACCESS_REMOTE_READ ? ERI_MR_ACCESS_REMOTE_READ : 0) |
	       (access & IB_ACCESS_REMOTE_WRITE ? ERI_MR_ACCESS_REMOTE_WRITE : 0) |
	       (access & IB_ACCESS_REMOTE_ATOMIC ?
		ERI_MR_ACCESS_REMOTE_ATOMIC : 0);
	return 0;
}

static int eri_qp_av_to_dev(struct eri_dev *edev,
			    const struct rdma_ah_attr *ah,
			    struct eri_qp_attr *d)
{
	const struct ib_global_route *grh;
	int ret;

	/* RoCE-style addressing: the GRH carries both GIDs. */
	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	if (!grh->sgid_attr)
		return -EINVAL;
	ret = eri_gid_pair_check(edev, &grh->sgid_attr->gid, &grh->dgid);
	if (ret)
		return ret;
	memcpy(d->sgid, grh->sgid_attr->gid.raw, sizeof(d->sgid));
	memcpy(d->dgid, grh->dgid.raw, sizeof(d->dgid));
	d->ttl = grh->hop_limit;
	d->traffic_class = grh->traffic_class;
	d->flow_label = cpu_to_le32(grh->flow_label & ERI_FLOW_LABEL_MASK);
	return 0;
}

/* Translate what modify_qp asks for into the device's attributes. */
static int eri_qp_attr_to_dev(struct eri_dev *edev,
			      const struct ib_qp_attr *attr, int mask,
			      enum ib_qp_state new_state, struct eri_qp_attr *d)
{
	u32 m = 0;
	int ret;

	memset(d, 0, sizeof(*d));
	if (mask & IB_QP_STATE) {
		d->state = eri_qp_state_to_dev(new_state);
		m |= ERI_QP_ATTR_STATE;
	}
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if (mask & IB_QP_ACCESS_FLAGS) {
		ret = eri_qp_access_to_dev(edev, attr->qp_access_flags,
					   &d->access);
		if (ret)
			return ret;
		m |= ERI_QP_ATTR_ACCESS;
	}
	if (mask & IB_QP_PATH_MTU) {
		int bytes = ib_mtu_enum_to_int(attr->path_mtu);

		if (bytes <= 0)
			return -EINVAL;
		d->path_mtu_log = ilog2(bytes);
		m |= ERI_QP_ATTR_PATH_MTU;
	}
	if (mask & IB_QP_AV) {
		ret = eri_qp_av_to_dev(edev, &attr->ah_attr, d);
		if (ret)
			return ret;
		m |= ERI_QP_ATTR_AV;
	}
	if (mask & IB_QP_DEST_QPN) {
		if (attr->dest_qp_num > ERI_REG_QP_DB_QPN)
			return -EINVAL;
		d->dest_qpn = cpu_to_le32(attr->dest_qp_num);
		m |= ERI_QP_ATTR_DEST_QPN;
	}
	if (mask & IB_QP_RQ_PSN) {
		d->rq_psn = cpu_to_le32(attr->rq_psn & ERI_PSN_MASK);
		m |= ERI_QP_ATTR_RQ_PSN;
	}
	if (mask & IB_QP_SQ_PSN) {
		d->sq_psn = cpu_to_le32(attr->sq_psn & ERI_PSN_MASK);
		m |= ERI_QP_ATTR_SQ_PSN;
	}
	if (mask & IB_QP_TIMEOUT) {
		if (attr->timeout > 31)
			return -EINVAL;
		d->timeout = attr->timeout;
		m |= ERI_QP_ATTR_TIMEOUT;
	}
	if (mask & IB_QP_RETRY_CNT) {
		if (attr->retry_cnt > 7)
			return -EINVAL;
		d->retry_cnt = attr->retry_cnt;
		m |= ERI_QP_ATTR_RETRY_CNT;
	}
	if (mask & IB_QP_RNR_RETRY) {
		if (attr->rnr_retry > 7)
			return -EINVAL;
		d->rnr_retry = attr->rnr_retry;
		m |= ERI_QP_ATTR_RNR_RETRY;
	}
	if (mask & IB_QP_MIN_RNR_TIMER) {
		if (attr->min_rnr_timer > 31)
			return -EINVAL;
		d->min_rnr_timer = attr->min_rnr_timer;
		m |= ERI_QP_ATTR_MIN_RNR_TIMER;
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC) {
		if (attr->max_rd_atomic > edev->attr.max_qp_init_rd_atom)
			return -EINVAL;
		d->max_rd_atomic = attr->max_rd_atomic;
		m |= ERI_QP_ATTR_MAX_RD_ATOMIC;
	}
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC) {
		if (attr->max_dest_rd_atomic > edev->attr.max_qp_rd_atom)
			return -EINVAL;
		d->max_dest_rd_atomic = attr->max_dest_rd_atomic;
		m |= ERI_QP_ATTR_MAX_DEST_RD_ATOMIC;
	}
	if (mask & IB_QP_QKEY) {
		d->qkey = cpu_to_le32(attr->qkey);
		m |= ERI_QP_ATTR_QKEY;
	}
	d->mask = cpu_to_le32(m);
	return 0;
}

/* Remember what modify_qp set, for query_qp. */
static void eri_qp_cache_update_locked(struct eri_qp *qp,
				       const struct ib_qp_attr *attr, int mask)
{
	struct ib_qp_attr *c = &qp->cache;

	lockdep_assert_held(&qp->mutex);
	if (mask & IB_QP_ACCESS_FLAGS)
		c->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PATH_MTU)
		c->path_mtu = attr->path_mtu;
	if (mask & IB_QP_AV) {
		c->ah_attr = attr->ah_attr;
		/* We hold no reference on the GID entry: do not keep it. */
		c->ah_attr.grh.sgid_attr = NULL;
	}
	if (mask & IB_QP_DEST_QPN)
		c->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		c->rq_psn = attr->rq_psn & ERI_PSN_MASK;
	if (mask & IB_QP_SQ_PSN)
		c->sq_psn = attr->sq_psn & ERI_PSN_MASK;
	if (mask & IB_QP_TIMEOUT)
		c->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		c->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		c->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		c->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		c->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		c->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		c->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & IB_QP_QKEY)
		c->qkey = attr->qkey;
}

/*
 * RESET takes both producer indexes as 0 again: start the doorbell record
 * over, and a kernel QP's queues with it (a user QP's are the process's).
 */
static void eri_qp_reset_queues_locked(struct eri_qp *qp)
{
	struct eri_wq *wqs[] = { &qp->sq, &qp->rq };
	unsigned long flags;
	unsigned int i;

	lockdep_assert_held(&qp->mutex);
	WRITE_ONCE(qp->dbrec->sq_pi, 0);
	WRITE_ONCE(qp->dbrec->rq_pi, 0);
	for (i = 0; i < ARRAY_SIZE(wqs) && !qp->user; i++) {
		/* Posters of the queue hold its lock. */
		spin_lock_irqsave(&wqs[i]->lock, flags);
		WRITE_ONCE(wqs[i]->pi, 0);
		/* Pairs with the acquire in eri_wq_full_locked(). */
		smp_store_release(&wqs[i]->ci, 0);
		spin_unlock_irqrestore(&wqs[i]->lock, flags);
	}
}

/**
 * eri_modify_qp - move a QP through its states and set its attributes
 * @ibqp: the QP
 * @attr: the attributes
 * @mask: which of them to apply (IB_QP_*)
 * @udata: the uverbs request, NULL from the kernel
 *
 * Sleeps.  Serialized with query_qp and state changes from async events by
 * the QP's mutex.
 *
 * Return: 0 or a negative errno.
 */
int eri_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibqp->device);
	struct eri_qp *qp = to_eri_qp(ibqp);
	enum ib_qp_state cur_state, new_state;
	struct eri_qp_attr d;
	int ret;

	if (mask & ~ERI_QP_IB_ATTR_MASK)
		return -EOPNOTSUPP;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;

	mutex_lock(&qp->mutex);
	cur_state = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new_state = mask & IB_QP_STATE ? attr->qp_state : cur_state;
	if (!ib_modify_qp_is_ok(cur_state, new_state, ibqp->qp_type, mask)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = eri_qp_attr_to_dev(edev, attr, mask, new_state, &d);
	if (ret)
		goto out_unlock;
	ret = eri_com_modify_qp(&edev->com, qp->qpn, &d);
	if (ret)
		goto out_unlock;

	eri_qp_cache_update_locked(qp, attr, mask);
	if (mask & IB_QP_STATE) {
		if (new_state == IB_QPS_RESET)
			eri_qp_reset_queues_locked(qp);
		if (new_state == IB_QPS_SQD)
			WRITE_ONCE(qp->sqd_notify,
				   (mask & IB_QP_EN_SQD_ASYNC_NOTIFY) &&
				   attr->en_sqd_async_notify);
		WRITE_ONCE(qp->state, new_state);
	}
out_unlock:
	mutex_unlock(&qp->mutex);
	return ret;
}

/*
 * The QP's congestion-control state (QUERY_QP_CC), by name.  Fields an
 * algorithm does not have (no mode, no bounds) are left out.
 */
static int eri_fill_res_qp_cc(struct sk_buff *msg, const struct eri_qp_cc *cc)
{
	u32 hi = le32_to_cpu(cc->inflight_hi);
	u32 lo = le32_to_cpu(cc->inflight_lo);

	if (rdma_nl_put_driver_u64(msg, "pacing_rate",
				   le64_to_cpu(cc->pacing_rate)) ||
	    rdma_nl_put_driver_u64(msg, "bw", le64_to_cpu(cc->bw)) ||
	    rdma_nl_put_driver_u32(msg, "min_rtt_us",
				   le32_to_cpu(cc->min_rtt_us)) ||
	    rdma_nl_put_driver_u32(msg, "rttvar_us",
				   le32_to_cpu(cc->rttvar_us)) ||
	    rdma_nl_put_driver_u64(msg, "rtt_samples",
				   le64_to_cpu(cc->rtt_samples)) ||
	    rdma_nl_put_driver_u64(msg, "rtt_sum_us",
				   le64_to_cpu(cc->rtt_sum_us)) ||
	    (cc->mode[0] &&
	     rdma_nl_put_driver_string(msg, "cc_mode", cc->mode)) ||
	    rdma_nl_put_driver_u32(msg, "cc_cuts", le32_to_cpu(cc->cuts)) ||
	    rdma_nl_put_driver_u32(msg, "cc_losses", le32_to_cpu(cc->losses)) ||
	    rdma_nl_put_driver_u32(msg, "cc_ecn_echoes",
				   le32_to_cpu(cc->ecn_echoes)) ||
	    rdma_nl_put_driver_u32(msg, "cc_timeouts",
				   le32_to_cpu(cc->timeouts)) ||
	    rdma_nl_put_driver_u32(msg, "cc_quantum",
				   le32_to_cpu(cc->quantum)) ||
	    ((hi || lo) &&
	     (rdma_nl_put_driver_u32(msg, "inflight_hi", hi) ||
	      rdma_nl_put_driver_u32(msg, "inflight_lo", lo))))
		return -EMSGSIZE;
	return 0;
}

/**
 * eri_fill_res_qp_entry - the QP's counters for "rdma resource show qp -dd"
 * @msg: the netlink message
 * @ibqp: the QP, held by the core while we run
 *
 * Sleeps (QUERY_QP, QUERY_QP_CC).  A device without QUERY_QP_CC, or whose
 * answer to it fails or is malformed, shows QUERY_QP's attributes only:
 * one QP's congestion-control state is not worth the rest of the dump.
 *
 * Return: 0, -EMSGSIZE when @msg is full, or the error of QUERY_QP.
 */
int eri_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct eri_dev *edev = to_eri_dev(ibqp->device);
	struct eri_qp *qp = to_eri_qp(ibqp);
	char cc_name[ERI_CC_NAME_MAX];
	bool has_cc = false;
	struct eri_qp_attr d;
	struct nlattr *table;
	struct eri_qp_cc cc;
	int ret;

	ret = eri_com_query_qp(&edev->com, qp->qpn, &d);
	if (ret)
		return ret;
	if (edev->attr.caps & ERI_DEV_CAP_QP_CC)
		has_cc = !eri_com_query_qp_cc(&edev->com, qp->qpn, &cc) &&
			 eri_cc_qp_ok(&cc);
	eri_cc_name(edev, d.cc_algo, cc_name);
	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u64(msg, "sq_kicks", le64_to_cpu(d.sq_kicks)) ||
	    rdma_nl_put_driver_u64(msg, "tx_pkts", le64_to_cpu(d.tx_pkts)) ||
	    rdma_nl_put_driver_u64(msg, "rx_pkts", le64_to_cpu(d.rx_pkts)) ||
	    rdma_nl_put_driver_u32(msg, "tx_skbs", le32_to_cpu(d.tx_skbs)) ||
	    rdma_nl_put_driver_u32(msg, "rx_skbs", le32_to_cpu(d.rx_skbs)) ||
	    rdma_nl_put_driver_u64(msg, "retrans_pkts",
				   le64_to_cpu(d.retrans_pkts)) ||
	    rdma_nl_put_driver_u64(msg, "ooo_pkts", le64_to_cpu(d.ooo_pkts)) ||
	    rdma_nl_put_driver_u32(msg, "cwnd", le32_to_cpu(d.cwnd)) ||
	    rdma_nl_put_driver_u32(msg, "srtt_us", le32_to_cpu(d.srtt_us)) ||
	    rdma_nl_put_driver_string(msg, "cc_algo", cc_name) ||
	    (has_cc && eri_fill_res_qp_cc(msg, &cc)) ||
	    (qp->srq && rdma_nl_put_driver_u32(msg, "srqn", qp->srq->srqn))) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

/**
 * eri_query_qp - report a QP's attributes
 * @ibqp: the QP
 * @attr: where the attributes go
 * @mask: the attributes the caller wants; all are filled in
 * @init: where the creation attributes go
 *
 * Sleeps.  Serialized with modify_qp by the QP's mutex.
 *
 * Return: 0 or a negative errno.
 */
int eri_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct eri_dev *edev = to_eri_dev(ibqp->device);
	struct eri_qp *qp = to_eri_qp(ibqp);
	struct eri_qp_attr d;
	int ret;

	mutex_lock(&qp->mutex);
	ret = eri_com_query_qp(&edev->com, qp->qpn, &d);
	if (ret)
		goto out_unlock;
	/* The device may have moved the QP to ERR before telling us. */
	WRITE_ONCE(qp->state, eri_qp_state_from_dev(d.state));

	*attr = qp->cache;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->sq_psn = le32_to_cpu(d.sq_psn) & ERI_PSN_MASK;
	attr->rq_psn = le32_to_cpu(d.rq_psn) & ERI_PSN_MASK;
	attr->sq_draining = !!d.sq_draining;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->pkey_index = 0;
	attr->port_num = 1;
	attr->cap = qp->cap;

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
out_unlock:
	mutex_unlock(&qp->mutex);
	return ret;
}

/*
 * Publish a queue's new producer index.  @pi and @need_kick are the queue's
 * fields of the doorbell record.  Return: the device asked for a kick; the
 * caller rings @wq's doorbell with eri_wq_kick() once it dropped the lock,
 * so that the device can start on the work at once instead of deferring it
 * out of a context with interrupts off.
 */
static bool eri_wq_publish_locked(struct eri_wq *wq, __le32 *pi,
				  __le32 *need_kick)
{
	lockdep_assert_held(&wq->lock);
	/* The WQEs before the index that hands them to the device. */
	dma_wmb();
	WRITE_ONCE(*pi, cpu_to_le32(wq->pi));
	/*
	 * The index before the flag: the device sets the flag, a full barrier,
	 * then reads the index once more, so one of us sees the other's store.
	 */
	mb();
	return READ_ONCE(*need_kick);
}

static void eri_wq_kick(struct eri_dev *edev, struct eri_qp *qp, u32 reg)
{
	eri_com_write32(&edev->com, reg, FIELD_PREP(ERI_REG_QP_DB_QPN, qp->qpn));
}

static bool eri_wq_full_locked(struct eri_wq *wq)
{
	lockdep_assert_held(&wq->lock);
	/* Acquire: the poller is done with the slots it retired. */
	return eri_ring_used(wq->pi, smp_load_acquire(&wq->ci)) >=
	       BIT(wq->depth_log);
}

/* Encode @n scatter/gather entries at @sge. */
static void eri_sges_encode(struct eri_sge *sge, const struct ib_sge *sg_list,
			    int n)
{
	int i;

	for (i = 0; i < n; i++) {
		sge[i].addr = cpu_to_le64(sg_list[i].addr);
		sge[i].length = cpu_to_le32(sg_list[i].length);
		sge[i].lkey = cpu_to_le32(sg_list[i].lkey);
	}
}

/**
 * eri_sq_wqe_start - clear a send WQE and make its common header bits
 * @qp: the QP
 * @wr: the work request
 * @op: the WQE's opcode
 * @wqe: the WQE, 2^qp->sq.wqe_shift bytes
 *
 * Return: the opcode and the SIGNALED, SOLICITED and FENCE bits @wr (or the
 * QP's sq_sig_all) asks for; the device ignores those that do not apply.
 */
u32 eri_sq_wqe_start(const struct eri_qp *qp, const struct ib_send_wr *wr,
		     u32 op, void *wqe)
{
	u32 hdr = FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE, op);

	memset(wqe, 0, BIT(qp->sq.wqe_shift));
	if ((wr->send_flags & IB_SEND_SIGNALED) || qp->sq_sig_all)
		hdr |= ERI_SQ_WQE_HDR_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		hdr |= ERI_SQ_WQE_HDR_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		hdr |= ERI_SQ_WQE_HDR_FENCE;
	return hdr;
}

/**
 * eri_sq_wqe_data - write a send WQE's inline data or its SGEs
 * @wr: the work request, its SGE count and lengths checked already
 * @inl: whether its data goes inline
 * @dst: where the data or the SGEs start in the WQE
 *
 * Return: the WQE header bits that say which: INLINE, or the SGE count.
 */
u32 eri_sq_wqe_data(const struct ib_send_wr *wr, bool inl, void *dst)
{
	u8 *data = dst;
	int i;

	if (!inl) {
		eri_sges_encode(dst, wr->sg_list, wr->num_sge);
		return FIELD_PREP(ERI_SQ_WQE_HDR_NUM_SGE, wr->num_sge);
	}
	/* Kernel consumers pass kernel virtual addresses inline. */
	for (i = 0; i < wr->num_sge; i++) {
		memcpy(data, (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		data += wr->sg_list[i].length;
	}
	return ERI_SQ_WQE_HDR_INLINE;
}

static int eri_sq_opcode(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
		return ERI_SQ_OP_SEND;
	case IB_WR_SEND_WITH_IMM:
		return ERI_SQ_OP_SEND_IMM;
	case IB_WR_SEND_WITH_INV:
		return ERI_SQ_OP_SEND_INV;
	case IB_WR_RDMA_WRITE:
		return ERI_SQ_OP_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return ERI_SQ_OP_WRITE_IMM;
	case IB_WR_RDMA_READ:
		return ERI_SQ_OP_READ;
	case IB_WR_REG_MR:
		return ERI_SQ_OP_REG_MR;
	case IB_WR_LOCAL_INV:
		return ERI_SQ_OP_LOCAL_INV;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return ERI_SQ_OP_CMP_SWP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return ERI_SQ_OP_FETCH_ADD;
	default:
		return -EINVAL;
	}
}

/*
 * Encode the body of a REG_MR work request: the MR's page list, as
 * map_mr_sg left it, under the key the consumer chose.  The key must be of
 * the MR's index; the device looks the region up by the key alone.
 */
static int eri_sq_reg_mr_build(const struct ib_send_wr *wr,
			       struct eri_sq_wqe_hdr *h)
{
	const struct ib_reg_wr *reg = reg_wr(wr);
	struct eri_sq_reg_mr *r = (struct eri_sq_reg_mr *)(h + 1);
	struct eri_mr *mr = to_eri_mr(reg->mr);
	u32 access;
	int ret;

	if (!mr->pbl.va || !mr->npages ||
	    FIELD_GET(ERI_MR_KEY_INDEX, reg->key) !=
	    FIELD_GET(ERI_MR_KEY_INDEX, reg->mr->lkey))
		return -EINVAL;
	ret = eri_mr_access_to_dev(reg->access, &access);
	if (ret)
		return ret;
	/*
	 * The page list is coherent memory map_mr_sg wrote before this post:
	 * the dma_wmb() that publishes the WQE orders it as well.
	 */
	h->inv_rkey = cpu_to_le32(reg->key);
	r->iova = cpu_to_le64(reg->mr->iova);
	r->length = cpu_to_le64(reg->mr->length);
	r->pbl_addr = cpu_to_le64(mr->pbl.dma);
	r->npages = cpu_to_le32(mr->npages);
	r->cfg = cpu_to_le32(FIELD_PREP(ERI_SQ_REG_MR_ACCESS, access) |
			     FIELD_PREP(ERI_SQ_REG_MR_PAGE_SHIFT,
					ilog2(reg->mr->page_size)));
	return 0;
}

/*
 * Encode a REG_MR or LOCAL_INV work request into the WQE at @wqe: no SGEs,
 * no data, the key in inv_rkey.
 */
static int eri_sq_local_wqe_build(struct eri_qp *qp,
				  const struct ib_send_wr *wr, int op,
				  void *wqe)
{
	struct eri_sq_wqe_hdr *h = wqe;
	u32 hdr;
	int ret;

	hdr = eri_sq_wqe_start(qp, wr, op, wqe);
	if (op == ERI_SQ_OP_REG_MR) {
		ret = eri_sq_reg_mr_build(wr, h);
		if (ret)
			return ret;
	} else {
		h->inv_rkey = cpu_to_le32(wr->ex.invalidate_rkey);
	}
	h->hdr = cpu_to_le32(hdr);
	return 0;
}

/*
 * Encode an atomic work request: the operands after the header, then its
 * one SGE, where the original value lands.  The device checks the SGE's
 * length (LOC_LEN_ERR) and the remote address's alignment (the responder
 * refuses it: REM_INV_REQ_ERR).
 */
static int eri_sq_atomic_wqe_build(struct eri_qp *qp,
				   const struct ib_send_wr *wr, int op,
				   void *wqe)
{
	struct eri_dev *edev = to_eri_dev(qp->ibqp.device);
	const struct ib_atomic_wr *aw = atomic_wr(wr);
	struct eri_sq_wqe_hdr *h = wqe;
	struct eri_sq_atomic *a = (struct eri_sq_atomic *)(h + 1);
	struct eri_sge *sge = (struct eri_sge *)(a + 1);
	u32 hdr;

	if (!(edev->attr.caps & ERI_DEV_CAP_ATOMIC) || wr->num_sge != 1 ||
	    (wr->send_flags & IB_SEND_INLINE))
		return -EINVAL;
	hdr = eri_sq_wqe_start(qp, wr, op, wqe) |
	      FIELD_PREP(ERI_SQ_WQE_HDR_NUM_SGE, 1);
	h->length = cpu_to_le32(wr->sg_list[0].length);
	h->remote_addr = cpu_to_le64(aw->remote_addr);
	h->rkey = cpu_to_le32(aw->rkey);
	/* CMP_SWP: compare_add is the compare value, swap the new one. */
	if (op == ERI_SQ_OP_CMP_SWP) {
		a->swap_add = cpu_to_le64(aw->swap);
		a->compare = cpu_to_le64(aw->compare_add);
	} else {
		a->swap_add = cpu_to_le64(aw->compare_add);
	}
	eri_sges_encode(sge, wr->sg_list, 1);
	h->hdr = cpu_to_le32(hdr);
	return 0;
}

/* Encode one send work request into the WQE at @wqe. */
static int eri_sq_wqe_build(struct eri_qp *qp, const struct ib_send_wr *wr,
			    void *wqe)
{
	struct eri_sq_wqe_hdr *h = wqe;
	bool inl = wr->send_flags & IB_SEND_INLINE;
	u64 len = 0;
	u32 hdr;
	int op, i;

	op = eri_sq_opcode(wr->opcode);
	if (op < 0)
		return op;
	if (op == ERI_SQ_OP_REG_MR || op == ERI_SQ_OP_LOCAL_INV)
		return eri_sq_local_wqe_build(qp, wr, op, wqe);
	if (op == ERI_SQ_OP_CMP_SWP || op == ERI_SQ_OP_FETCH_ADD)
		return eri_sq_atomic_wqe_build(qp, wr, op, wqe);
	if (wr->num_sge < 0 || (!inl && wr->num_sge > qp->sq.max_sge))
		return -EINVAL;
	if (inl && op == ERI_SQ_OP_READ)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > ERI_MAX_MSG_LEN || (inl && len > qp->max_inline))
		return -EINVAL;

	hdr = eri_sq_wqe_start(qp, wr, op, wqe);
	h->length = cpu_to_le32(len);

	switch (op) {
	case ERI_SQ_OP_SEND_IMM:
		h->imm_data = wr->ex.imm_data;
		break;
	case ERI_SQ_OP_SEND_INV:
		h->inv_rkey = cpu_to_le32(wr->ex.invalidate_rkey);
		break;
	case ERI_SQ_OP_WRITE_IMM:
		h->imm_data = wr->ex.imm_data;
		fallthrough;
	case ERI_SQ_OP_WRITE:
	case ERI_SQ_OP_READ:
		h->remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		h->rkey = cpu_to_le32(rdma_wr(wr)->rkey);
		break;
	}

	hdr |= eri_sq_wqe_data(wr, inl, h + 1);
	h->hdr = cpu_to_le32(hdr);
	return 0;
}

/* Work may be posted to the send queue from RTS on, to flush it in ERR. */
static bool eri_sq_state_ok(enum ib_qp_state state)
{
	return state != IB_QPS_RESET && state != IB_QPS_INIT &&
	       state != IB_QPS_RTR;
}

/**
 * eri_post_send - post send work requests, or kick a user QP's send queue
 * @ibqp: the QP
 * @wr: the work requests; NULL for a user QP's kick
 * @bad_wr: where the first work request not posted is reported
 *
 * Any context.  Posters of one kernel QP are serialized by its send queue's
 * lock.
 *
 * Return: 0, -ENOMEM when the send queue is full, -EINVAL for a work request
 * the QP cannot carry.
 */
int eri_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct eri_dev *edev = to_eri_dev(ibqp->device);
	struct eri_qp *qp = to_eri_qp(ibqp);
	struct eri_wq *sq = &qp->sq;
	unsigned long flags;
	bool posted = false, kick = false;
	void *wqe;
	int ret = 0;

	if (qp->user) {
		/* The process posts by itself; the kernel only kicks. */
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		eri_wq_kick(edev, qp, ERI_REG_SQ_DB);
		return 0;
	}

	spin_lock_irqsave(&sq->lock, flags);
	if (wr && !eri_sq_state_ok(READ_ONCE(qp->state))) {
		ret = -EINVAL;
		*bad_wr = wr;
		goto out_unlock;
	}
	for (; wr; wr = wr->next) {
		u32 slot = eri_ring_slot(sq->pi, sq->depth_log);

		if (eri_wq_full_locked(sq)) {
			ret = -ENOMEM;
			*bad_wr = wr;
			break;
		}
		wqe = sq->mem.buf->va + ((size_t)slot << sq->wqe_shift);
		if (eri_qp_is_ud(qp))
			ret = eri_ud_wqe_build(qp, wr, wqe);
		else
			ret = eri_sq_wqe_build(qp, wr, wqe);
		if (ret) {
			*bad_wr = wr;
			break;
		}
		sq->wr_id[slot] = wr->wr_id;
		WRITE_ONCE(sq->pi, sq->pi + 1);
		posted = true;
	}
	if (posted)
		kick = eri_wq_publish_locked(sq, &qp->dbrec->sq_pi,
					     &qp->dbrec->sq_need_kick);
out_unlock:
	spin_unlock_irqrestore(&sq->lock, flags);
	if (kick)
		eri_wq_kick(edev, qp, ERI_REG_SQ_DB);
	return ret;
}

/**
 * eri_rwqe_build - encode one receive work request
 * @wr: the work request
 * @max_sge: SGEs the queue's WQEs may carry
 * @tag: the tag of an SRQ's WQE, 0 for a QP's receive queue
 * @wqe: where it goes, ERI_RQ_WQE_SIZE bytes
 *
 * Return: 0, or -EINVAL for a work request the queue cannot carry.
 */
int eri_rwqe_build(const struct ib_recv_wr *wr, u32 max_sge, u32 tag,
		   void *wqe)
{
	struct eri_rq_wqe_hdr *h = wqe;
	struct eri_sge *sge = (struct eri_sge *)(h + 1);
	u64 len = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > ERI_MAX_MSG_LEN)
		return -EINVAL;

	memset(wqe, 0, ERI_RQ_WQE_SIZE);
	eri_sges_encode(sge, wr->sg_list, wr->num_sge);
	h->tag = cpu_to_le32(tag);
	h->hdr = cpu_to_le32(FIELD_PREP(ERI_RQ_WQE_HDR_NUM_SGE, wr->num_sge));
	return 0;
}

/**
 * eri_post_recv - post receive work requests, or kick a user QP's receive
 * queue
 * @ibqp: the QP
 * @wr: the work requests; NULL for a user QP's kick
 * @bad_wr: where the first work request not posted is reported
 *
 * Any context.  Posters of one kernel QP are serialized by its receive
 * queue's lock.
 *
 * Return: 0, -ENOMEM when the receive queue is full, -EINVAL for a work
 * request the QP cannot carry.
 */
int eri_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct eri_dev *edev = to_eri_dev(ibqp->device);
	struct eri_qp *qp = to_eri_qp(ibqp);
	struct eri_wq *rq = &qp->rq;
	unsigned long flags;
	bool posted = false, kick = false;
	int ret = 0;

	/* Its receives go to its SRQ (ib_post_srq_recv). */
	if (qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (qp->user) {
		/* The process posts by itself; the kernel only kicks. */
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		eri_wq_kick(edev, qp, ERI_REG_RQ_DB);
		return 0;
	}

	spin_lock_irqsave(&rq->lock, flags);
	if (wr && READ_ONCE(qp->state) == IB_QPS_RESET) {
		ret = -EINVAL;
		*bad_wr = wr;
		goto out_unlock;
	}
	for (; wr; wr = wr->next) {
		u32 slot = eri_ring_slot(rq->pi, rq->depth_log);

		if (eri_wq_full_locked(rq)) {
			ret = -ENOMEM;
			*bad_wr = wr;
			break;
		}
		ret = eri_rwqe_build(wr, rq->max_sge, 0, rq->mem.buf->va +
				     ((size_t)slot << ERI_RQ_WQE_SHIFT));
		if (ret) {
			*bad_wr = wr;
			break;
		}
		rq->wr_id[slot] = wr->wr_id;
		WRITE_ONCE(rq->pi, rq->pi + 1);
		posted = true;
	}
	if (posted)
		kick = eri_wq_publish_locked(rq, &qp->dbrec->rq_pi,
					     &qp->dbrec->rq_need_kick);
out_unlock:
	spin_unlock_irqrestore(&rq->lock, flags);
	if (kick)
		eri_wq_kick(edev, qp, ERI_REG_RQ_DB);
	return ret;
}
