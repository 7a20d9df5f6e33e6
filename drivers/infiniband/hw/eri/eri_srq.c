// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI shared receive queues.
 *
 * An SRQ is a ring of 128-byte receive WQEs and a doorbell record (struct
 * eri_srq_dbrec) holding the producer index; there is no doorbell register.
 * The device takes WQEs in ring order for whichever QP needs one, so they
 * complete out of ring order: each WQE carries a tag, which its CQE echoes.
 * A kernel SRQ keeps the wr_id by tag and hands tags out from a free stack;
 * a free tag always means a free ring slot (Documentation/infiniband/
 * eri.rst, "Shared receive queues").  A user SRQ's ring and record are
 * mapped into the process, which does the same by itself; the kernel never
 * reads them.
 */
#include <linux/bitfield.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/eri-abi.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>

#include "eri_verbs.h"

/* The free stack holds 16-bit tags: at most 2^15 WQEs. */
#define ERI_SRQ_MAX_DEPTH_LOG	15

u32 eri_srq_max_wr(const struct eri_dev *edev)
{
	if (!(edev->attr.caps & ERI_DEV_CAP_SRQ))
		return 0;
	return min_t(u32, edev->attr.max_srq_wr, BIT(ERI_SRQ_MAX_DEPTH_LOG));
}

static void eri_srq_free_queues(struct eri_dev *edev, struct eri_srq *srq)
{
	bitmap_free(srq->busy);
	kvfree(srq->free);
	kvfree(srq->wr_id);
	eri_qmem_free(edev, &srq->db);
	eri_qmem_free(edev, &srq->ring);
}

static int eri_srq_alloc_queues(struct eri_dev *edev, struct eri_srq *srq,
				struct ib_ucontext *uctx)
{
	u32 depth = BIT(srq->depth_log), i;
	int ret;

	ret = eri_qmem_alloc(edev, uctx, &srq->ring,
			     (size_t)depth << ERI_RQ_WQE_SHIFT);
	if (ret)
		goto err_free;
	ret = eri_qmem_alloc(edev, uctx, &srq->db,
			     sizeof(struct eri_srq_dbrec));
	if (ret)
		goto err_free;
	srq->dbrec = srq->db.buf->va;
	if (uctx)
		return 0;
	ret = -ENOMEM;
	srq->wr_id = kvcalloc(depth, sizeof(*srq->wr_id), GFP_KERNEL);
	srq->free = kvcalloc(depth, sizeof(*srq->free), GFP_KERNEL);
	srq->busy = bitmap_zalloc(depth, GFP_KERNEL);
	if (!srq->wr_id || !srq->free || !srq->busy)
		goto err_free;
	/* Tag 0 is popped first. */
	for (i = 0; i < depth; i++)
		srq->free[i] = depth - 1 - i;
	srq->nfree = depth;
	return 0;

err_free:
	/* Frees what was allocated: every piece starts out empty. */
	eri_srq_free_queues(edev, srq);
	return ret;
}

/**
 * eri_create_srq - create a shared receive queue
 * @ibsrq: the SRQ the core allocated, with its PD
 * @init: its type and attributes; max_wr and max_sge are updated to what
 *	the SRQ got, srq_limit is ignored (the limit starts disarmed)
 * @udata: the uverbs request, NULL for a kernel SRQ
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int eri_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibsrq->device);
	struct eri_srq *srq = to_eri_srq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	struct eri_ibv_create_srq_resp resp = {};
	struct ib_ucontext *uctx = NULL;
	u32 max_wr = eri_srq_max_wr(edev), depth;
	/* What query_device reports as max_srq_sge. */
	u32 max_sge = min_t(u32, edev->attr.max_recv_sge, ERI_RQ_WQE_MAX_SGE);
	int ret;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!max_wr || !edev->attr.max_srq)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > max_wr ||
	    attr->max_sge > max_sge)
		return -EINVAL;
	depth = roundup_pow_of_two(attr->max_wr);
	if (depth > max_wr)
		return -EINVAL;
	if (udata) {
		if (udata->inlen &&
		    !ib_is_udata_cleared(udata, 0, udata->inlen))
			return -EINVAL;
		if (udata->outlen < sizeof(resp))
			return -EINVAL;
		uctx = &rdma_udata_to_drv_context(udata, struct eri_ucontext,
						  ibucontext)->ibucontext;
	}

	srq->user = !!uctx;
	srq->depth_log = ilog2(depth);
	srq->max_sge = max_sge;
	spin_lock_init(&srq->lock);
	refcount_set(&srq->refs, 1);
	init_completion(&srq->released);

	/*
	 * In turn, as QPNs: a late event of a destroyed SRQ finds no new one.
	 * The entry stays NULL, so lookups find nothing, until the device has
	 * the SRQ.
	 */
	ret = xa_alloc_cyclic_irq(&edev->srq_xa, &srq->srqn, NULL,
				  XA_LIMIT(0, edev->attr.max_srq - 1),
				  &edev->srq_next, GFP_KERNEL);
	if (ret < 0)
		return ret == -EBUSY ? -ENOSPC : ret;
	ret = eri_srq_alloc_queues(edev, srq, uctx);
	if (ret)
		goto err_free_srqn;
	if (uctx) {
		resp.srqn = srq->srqn;
		resp.ring_mmap_key = eri_qmem_mmap_key(&srq->ring);
		resp.dbrec_mmap_key = eri_qmem_mmap_key(&srq->db);
		resp.ring_size = srq->ring.buf->size;
		resp.dbrec_size = srq->db.buf->size;
		resp.depth_log = srq->depth_log;
		ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret)
			goto err_free_queues;
	}
	ret = eri_com_create_srq(&edev->com, srq->srqn,
				 to_eri_pd(ibsrq->pd)->pdn,
				 srq->ring.buf->dma, srq->db.buf->dma,
				 srq->depth_log);
	if (ret)
		goto err_free_queues;
	ret = xa_err(xa_store_irq(&edev->srq_xa, srq->srqn, srq, GFP_KERNEL));
	if (ret)
		goto err_destroy_srq;
	attr->max_wr = depth;
	attr->max_sge = srq->max_sge;
	return 0;

err_destroy_srq:
	eri_com_destroy_srq(&edev->com, srq->srqn);
err_free_queues:
	eri_srq_free_queues(edev, srq);
err_free_srqn:
	xa_erase_irq(&edev->srq_xa, srq->srqn);
	return ret;
}

static void eri_srq_put(struct eri_srq *srq)
{
	if (refcount_dec_and_test(&srq->refs))
		complete(&srq->released);
}

/**
 * eri_destroy_srq - destroy a shared receive queue
 * @ibsrq: the SRQ
 * @udata: the uverbs request, NULL for a kernel SRQ
 *
 * Sleeps.  The core calls it once no QP uses the SRQ (it refuses with
 * -EBUSY before that) and no other verb on it runs.
 *
 * Return: 0 or a negative errno; the SRQ stays usable on failure.
 */
int eri_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibsrq->device);
	struct eri_srq *srq = to_eri_srq(ibsrq);
	int ret;

	/* Once it completes the device touches neither ring nor record. */
	ret = eri_com_destroy_srq(&edev->com, srq->srqn);
	if (ret)
		return ret;
	/*
	 * Pollers retiring a destroyed QP's CQE look the SRQ up under the
	 * xarray's lock: once the entry is NULL, none uses it.  An async event
	 * holds a reference; wait for it.  Storing NULL keeps the SRQN
	 * allocated until the SRQ's queues are gone.
	 */
	xa_store_irq(&edev->srq_xa, srq->srqn, NULL, GFP_KERNEL);
	eri_srq_put(srq);
	wait_for_completion(&srq->released);

	eri_srq_free_queues(edev, srq);
	xa_erase_irq(&edev->srq_xa, srq->srqn);
	return 0;
}

/**
 * eri_modify_srq - arm the limit of a shared receive queue
 * @ibsrq: the SRQ
 * @attr: srq_limit
 * @mask: IB_SRQ_LIMIT only: resizing (IB_SRQ_MAX_WR) is not supported
 * @udata: the uverbs request, NULL for a kernel SRQ
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int eri_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibsrq->device);
	struct eri_srq *srq = to_eri_srq(ibsrq);

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (mask & ~IB_SRQ_LIMIT)
		return -EINVAL;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > BIT(srq->depth_log))
		return -EINVAL;
	return eri_com_modify_srq(&edev->com, srq->srqn,
				  ERI_AQ_MODIFY_SRQ_LIMIT, attr->srq_limit);
}

/**
 * eri_query_srq - report a shared receive queue's attributes
 * @ibsrq: the SRQ
 * @attr: where they go; srq_limit is the armed limit, 0 once it fired
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int eri_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct eri_dev *edev = to_eri_dev(ibsrq->device);
	struct eri_srq *srq = to_eri_srq(ibsrq);
	struct eri_aq_query_srq_resp r;
	int ret;

	ret = eri_com_query_srq(&edev->com, srq->srqn, &r);
	if (ret)
		return ret;
	attr->max_wr = BIT(srq->depth_log);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = le32_to_cpu(r.limit);
	return 0;
}

/**
 * eri_fill_res_srq_entry - the SRQ's state for "rdma resource show srq -dd"
 * @msg: the netlink message
 * @ibsrq: the SRQ, held by the core while we run
 *
 * Sleeps (QUERY_SRQ).
 *
 * Return: 0, -EMSGSIZE when @msg is full, or the error of the query.
 */
int eri_fill_res_srq_entry(struct sk_buff *msg, struct ib_srq *ibsrq)
{
	struct eri_dev *edev = to_eri_dev(ibsrq->device);
	struct eri_srq *srq = to_eri_srq(ibsrq);
	struct eri_aq_query_srq_resp r;
	struct nlattr *table;
	int ret;

	ret = eri_com_query_srq(&edev->com, srq->srqn, &r);
	if (ret)
		return ret;
	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "srqn", srq->srqn) ||
	    rdma_nl_put_driver_u32(msg, "depth", BIT(srq->depth_log)) ||
	    rdma_nl_put_driver_u32(msg, "limit", le32_to_cpu(r.limit)) ||
	    rdma_nl_put_driver_u32(msg, "ci", le32_to_cpu(r.ci) & 0xffff) ||
	    rdma_nl_put_driver_u32(msg, "pi", le32_to_cpu(r.pi) & 0xffff) ||
	    rdma_nl_put_driver_u32(msg, "qps", le32_to_cpu(r.users)) ||
	    rdma_nl_put_driver_u32(msg, "broken",
				   !!(le32_to_cpu(r.flags) &
				      ERI_AQ_SRQ_BROKEN))) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

/**
 * eri_srq_async_event - deliver an async event of an SRQ
 * @edev: the device
 * @srqn: the SRQ the device named
 * @type: the IB event
 *
 * Called from the communication layer's event work, one event at a time.
 */
void eri_srq_async_event(struct eri_dev *edev, u32 srqn,
			 enum ib_event_type type)
{
	struct ib_event event = { .device = &edev->ibdev, .event = type };
	struct eri_srq *srq;

	/* The SRQ cannot go while we hold its reference; see destroy. */
	xa_lock_irq(&edev->srq_xa);
	srq = xa_load(&edev->srq_xa, srqn);
	if (srq)
		refcount_inc(&srq->refs);
	xa_unlock_irq(&edev->srq_xa);
	if (!srq)
		return;
	event.element.srq = &srq->ibsrq;
	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&event, srq->ibsrq.srq_context);
	eri_srq_put(srq);
}

/**
 * eri_srq_retire_locked - give a kernel SRQ's tag back
 * @srq: the SRQ
 * @tag: the tag a CQE carried; hostile only if the device is broken
 * @wr_id: where the WQE's work request id goes
 *
 * srq->lock held.
 *
 * Return: whether @tag named a WQE outstanding.
 */
bool eri_srq_retire_locked(struct eri_srq *srq, u32 tag, u64 *wr_id)
{
	lockdep_assert_held(&srq->lock);
	if (tag >= BIT(srq->depth_log) || !__test_and_clear_bit(tag, srq->busy))
		return false;
	*wr_id = srq->wr_id[tag];
	srq->free[srq->nfree++] = tag;
	return true;
}

/**
 * eri_post_srq_recv - post receive work requests to a kernel SRQ
 * @ibsrq: the SRQ
 * @wr: the work requests
 * @bad_wr: where the first work request not posted is reported
 *
 * Any context.  Posters and pollers of the SRQ are serialized by its lock.
 *
 * Return: 0, -ENOMEM when every tag is out, -EINVAL for a work request the
 * SRQ cannot carry or a user SRQ (the process posts by itself).
 */
int eri_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct eri_srq *srq = to_eri_srq(ibsrq);
	unsigned long flags;
	bool posted = false;
	int ret = 0;

	if (srq->user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	/* Posters against each other and against pollers retiring tags. */
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		u32 slot = eri_ring_slot(srq->pi, srq->depth_log);
		void *wqe = srq->ring.buf->va +
			    ((size_t)slot << ERI_RQ_WQE_SHIFT);
		u16 tag;

		if (!srq->nfree) {
			ret = -ENOMEM;
			*bad_wr = wr;
			break;
		}
		/* A free tag means the device took the WQE of this slot. */
		tag = srq->free[srq->nfree - 1];
		ret = eri_rwqe_build(wr, srq->max_sge, tag, wqe);
		if (ret) {
			*bad_wr = wr;
			break;
		}
		srq->nfree--;
		__set_bit(tag, srq->busy);
		srq->wr_id[tag] = wr->wr_id;
		srq->pi++;
		posted = true;
	}
	if (posted) {
		/*
		 * The WQEs before the index that hands them to the device;
		 * pairs with the device's dma_rmb() after it reads the index.
		 */
		dma_wmb();
		WRITE_ONCE(srq->dbrec->pi, cpu_to_le32(srq->pi));
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return ret;
}
