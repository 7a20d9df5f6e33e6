// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim queue pairs: the QP table, state changes from the admin queue,
 * doorbells, and flushing.  The requester and responder are in
 * eri_sim_req.c and eri_sim_resp.c.
 *
 * A QP is looked up under RCU and used with a reference; DESTROY_QP takes
 * it out of the table, stops its timer and work, and waits for the last
 * reference before it lets go of the rings.
 */
#include <linux/bitfield.h>
#include <linux/slab.h>
#include <linux/socket.h>

#include "eri_sim_qp.h"
#include "eri_sim_trace.h"

struct eri_sim_qp *eri_sim_qp_get(struct eri_sim_dev *sdev, u32 qpn)
{
	struct eri_sim_qp *qp;

	rcu_read_lock();
	qp = xa_load(&sdev->qps, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

void eri_sim_qp_put(struct eri_sim_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->unused);
}

static enum hrtimer_restart eri_sim_qp_timer(struct hrtimer *timer)
{
	struct eri_sim_qp *qp = container_of(timer, struct eri_sim_qp, timer);

	spin_lock(&qp->lock);
	if (!qp->dead)
		eri_sim_req_timeout_locked(qp);
	spin_unlock(&qp->lock);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart eri_sim_qp_pace_timer(struct hrtimer *timer)
{
	struct eri_sim_qp *qp = container_of(timer, struct eri_sim_qp,
					     pace_timer);

	spin_lock(&qp->lock);
	if (!qp->dead)
		eri_sim_req_run_locked(qp);
	spin_unlock(&qp->lock);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart eri_sim_qp_ack_timer(struct hrtimer *timer)
{
	struct eri_sim_qp *qp = container_of(timer, struct eri_sim_qp,
					     ack_timer);

	spin_lock(&qp->lock);
	if (!qp->dead)
		eri_sim_resp_ack_timeout_locked(qp);
	spin_unlock(&qp->lock);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart eri_sim_qp_sq_poll_timer(struct hrtimer *timer)
{
	struct eri_sim_qp *qp = container_of(timer, struct eri_sim_qp,
					     sq_poll_timer);

	spin_lock(&qp->lock);
	if (!qp->dead)
		eri_sim_req_sq_poll_locked(qp);
	spin_unlock(&qp->lock);
	return HRTIMER_NORESTART;
}

/* The requester ran out of budget with work left: go on here. */
static void eri_sim_qp_tx_work(struct work_struct *work)
{
	struct eri_sim_qp *qp = container_of(work, struct eri_sim_qp, tx_work);

	spin_lock_bh(&qp->lock);
	if (!qp->dead && qp->state == ERI_QPS_ERR)
		eri_sim_qp_flush_locked(qp);
	else if (!qp->dead)
		eri_sim_req_run_locked(qp);
	spin_unlock_bh(&qp->lock);
}

u8 eri_sim_create_qp(struct eri_sim_dev *sdev,
		     const struct eri_aq_create_qp_cmd *cmd)
{
	u32 cfg = le32_to_cpu(cmd->cfg);
	u32 sq_log = FIELD_GET(ERI_AQ_CREATE_QP_SQ_DEPTH_LOG, cfg);
	u32 rq_log = FIELD_GET(ERI_AQ_CREATE_QP_RQ_DEPTH_LOG, cfg);
	u32 type = FIELD_GET(ERI_AQ_CREATE_QP_TYPE, cfg);
	u32 qpn = le32_to_cpu(cmd->qpn);
	struct eri_sim_srq *srq = NULL;
	struct eri_sim_cq *scq, *rcq;
	struct eri_sim_qp *qp;
	u8 status;
	int ret;

	/* QPN 1 is the GSI QP's, and only its. */
	if (type > ERI_QPT_GSI || qpn < 1 || qpn >= ERI_SIM_MAX_QP ||
	    (type == ERI_QPT_GSI && qpn != 1) ||
	    (type != ERI_QPT_GSI && qpn == 1) ||
	    le32_to_cpu(cmd->pdn) >= ERI_SIM_MAX_PD ||
	    sq_log > ERI_SIM_MAX_QP_WR_LOG || rq_log > ERI_SIM_MAX_QP_WR_LOG)
		return ERI_AQ_STS_BAD_PARAM;
	if (cfg & ERI_AQ_CREATE_QP_SRQ) {
		/* An SRQ instead of a receive queue; ib_mad's QP has none. */
		if (type == ERI_QPT_GSI || rq_log || cmd->rq_addr)
			return ERI_AQ_STS_BAD_PARAM;
		srq = eri_sim_srq_find(sdev, le32_to_cpu(cmd->srqn));
		if (!srq)
			return ERI_AQ_STS_BAD_PARAM;
	} else if (cmd->srqn) {
		return ERI_AQ_STS_BAD_PARAM;
	}
	scq = eri_sim_cq_find(sdev, le32_to_cpu(cmd->send_cqn));
	rcq = eri_sim_cq_find(sdev, le32_to_cpu(cmd->recv_cqn));
	if (!scq || !rcq)
		return ERI_AQ_STS_BAD_PARAM;
	if (xa_load(&sdev->qps, qpn))
		return ERI_AQ_STS_EXISTS;

	/*
	 * Together the QP and its scoreboard pass 16 KiB, and a 32 KiB
	 * allocation (zeroed page by page) is most of what creating a QP
	 * costs; apart, the QP takes a slab object and the scoreboard 16 KiB.
	 */
	qp = kvzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		return ERI_AQ_STS_NO_RESOURCE;
	qp->sb = kvzalloc(sizeof(*qp->sb), GFP_KERNEL);
	if (!qp->sb) {
		status = ERI_AQ_STS_NO_RESOURCE;
		goto err_free_qp;
	}
	qp->sq_wqe_shift = type == ERI_QPT_RC ? ERI_SQ_WQE_SHIFT :
						ERI_SQ_UD_WQE_SHIFT;
	qp->sq = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->sq_addr),
				 (size_t)1 << (sq_log + qp->sq_wqe_shift));
	if (!srq)
		qp->rq = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->rq_addr),
					 (size_t)ERI_RQ_WQE_SIZE << rq_log);
	qp->dbrec = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->dbrec_addr),
				    sizeof(*qp->dbrec));
	if (!qp->sq || (!srq && !qp->rq) || !qp->dbrec) {
		status = ERI_AQ_STS_DMA_ERR;
		goto err_free_qp;
	}
	qp->swqe = kvcalloc(1U << sq_log, sizeof(*qp->swqe), GFP_KERNEL);
	if (!qp->swqe) {
		status = ERI_AQ_STS_NO_RESOURCE;
		goto err_free_qp;
	}
	/*
	 * No more WQEs than its own ring holds can be taken: a QP of a few
	 * receive WQEs needs no room for ERI_SIM_RQ_AHEAD (10 KiB).
	 */
	qp->rq_ahead = srq ? ERI_SIM_RQ_AHEAD :
		       min_t(u32, ERI_SIM_RQ_AHEAD, 1U << rq_log);
	qp->rwqe = kvcalloc(qp->rq_ahead, sizeof(*qp->rwqe), GFP_KERNEL);
	if (!qp->rwqe) {
		status = ERI_AQ_STS_NO_RESOURCE;
		goto err_free_swqe;
	}
	if (dst_cache_init(&qp->dst_cache, GFP_KERNEL)) {
		status = ERI_AQ_STS_NO_RESOURCE;
		goto err_free_rwqe;
	}
	qp->sdev = sdev;
	refcount_set(&qp->ref, 1);
	init_completion(&qp->unused);
	INIT_LIST_HEAD(&qp->last_wqe);
	spin_lock_init(&qp->lock);
	qp->qpn = qpn;
	qp->pdn = le32_to_cpu(cmd->pdn);
	qp->type = type;
	qp->state = ERI_QPS_RESET;
	qp->sig_all = cfg & ERI_AQ_CREATE_QP_SQ_SIG_ALL;
	qp->scq = scq;
	qp->rcq = rcq;
	qp->srq = srq;
	qp->sq_depth_log = sq_log;
	qp->rq_depth_log = rq_log;
	qp->mtu_log = 10;
	qp->mtu = 1024;
	qp->seg = qp->mtu;
	qp->ttl = 64;
	qp->timeout = ERI_SIM_DEFAULT_TIMEOUT;
	qp->retry_cnt = 7;
	qp->rnr_retry = 7;
	qp->route_segs = 1;
	eri_sim_sb_init(qp->sb, 0);
	eri_sim_psn_map_init(&qp->rmap, 0);
	/* The device's algorithm now; the QP keeps it (SET_CC). */
	eri_sim_cc_init(&qp->cc, eri_sim_cc_get(sdev->cc_algo), qp->mtu,
			eri_sim_qp_hdrs(qp), ktime_get_ns(), qpn);
	hrtimer_init(&qp->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->timer.function = eri_sim_qp_timer;
	qp->deadline = KTIME_MAX;	/* nothing to time yet */
	hrtimer_init(&qp->ack_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->ack_timer.function = eri_sim_qp_ack_timer;
	hrtimer_init(&qp->pace_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->pace_timer.function = eri_sim_qp_pace_timer;
	hrtimer_init(&qp->sq_poll_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_SOFT);
	qp->sq_poll_timer.function = eri_sim_qp_sq_poll_timer;
	qp->sq_poll_window_ns = ERI_SIM_SQ_POLL_WINDOW_NS;
	INIT_WORK(&qp->tx_work, eri_sim_qp_tx_work);
	/* Idle until RTS: a producer kicks after posting. */
	WRITE_ONCE(qp->dbrec->sq_need_kick, cpu_to_le32(1));
	WRITE_ONCE(qp->dbrec->rq_need_kick, 0);

	ret = xa_insert(&sdev->qps, qpn, qp, GFP_KERNEL);
	if (ret) {
		status = ret == -EBUSY ? ERI_AQ_STS_EXISTS :
					 ERI_AQ_STS_NO_RESOURCE;
		goto err_destroy_dst_cache;
	}
	scq->users++;
	rcq->users++;
	if (srq)
		srq->users++;
	return ERI_AQ_STS_OK;

err_destroy_dst_cache:
	dst_cache_destroy(&qp->dst_cache);
err_free_rwqe:
	kvfree(qp->rwqe);
err_free_swqe:
	kvfree(qp->swqe);
err_free_qp:
	kvfree(qp->sb);
	kvfree(qp);
	return status;
}

/* Complete the WQEs an SRQ QP took and did not complete; qp->lock held. */
static void eri_sim_qp_flush_taken_locked(struct eri_sim_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	while (qp->rq_ci != qp->rq_take)
		eri_sim_qp_complete_recv_locked(qp, ERI_CQE_OP_RECV,
						ERI_CQE_STS_WR_FLUSH_ERR, 0, 0,
						0, 0);
}

/* Forget all queue state (RESET); qp->lock held. */
static void eri_sim_qp_reset_locked(struct eri_sim_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->sq_fetch = 0;
	qp->sq_send = 0;
	qp->sq_comp = 0;
	qp->drained_sent = false;
	/* A new connection: its peer says again what it takes. */
	qp->seg = qp->mtu;
	qp->peer_seg_max = 0;
	eri_sim_req_reset_locked(qp, qp->sb->nxt);
	eri_sim_resp_reset_locked(qp, qp->rmap.base);
	memset(qp->swqe, 0, sizeof(*qp->swqe) << qp->sq_depth_log);
	WRITE_ONCE(qp->dbrec->sq_need_kick, cpu_to_le32(1));
	WRITE_ONCE(qp->dbrec->rq_need_kick, 0);
}

static u8 eri_sim_qp_apply_locked(struct eri_sim_qp *qp,
				  const struct eri_qp_attr *attr, u32 mask)
{
	unsigned long flags;
	int family = 0;

	lockdep_assert_held(&qp->lock);
	/* Check everything before changing anything. */
	if ((mask & ERI_QP_ATTR_STATE) && attr->state > ERI_QPS_ERR)
		return ERI_AQ_STS_BAD_PARAM;
	if ((mask & ERI_QP_ATTR_PATH_MTU) &&
	    (attr->path_mtu_log < 8 || attr->path_mtu_log > 12))
		return ERI_AQ_STS_BAD_PARAM;
	if (mask & ERI_QP_ATTR_AV) {
		family = eri_sim_gid_family(attr->sgid, attr->dgid);
		if (!family)
			return ERI_AQ_STS_BAD_PARAM;
	}
	if ((mask & ERI_QP_ATTR_DEST_QPN) &&
	    le32_to_cpu(attr->dest_qpn) > ERI_PSN_MASK)
		return ERI_AQ_STS_BAD_PARAM;
	if ((mask & ERI_QP_ATTR_TIMEOUT) && attr->timeout > 31)
		return ERI_AQ_STS_BAD_PARAM;
	if (((mask & ERI_QP_ATTR_RETRY_CNT) && attr->retry_cnt > 7) ||
	    ((mask & ERI_QP_ATTR_RNR_RETRY) && attr->rnr_retry > 7) ||
	    ((mask & ERI_QP_ATTR_MIN_RNR_TIMER) && attr->min_rnr_timer > 31))
		return ERI_AQ_STS_BAD_PARAM;
	/* A state the device entered on its own must be seen first. */
	if ((mask & ERI_QP_ATTR_STATE) && qp->state == ERI_QPS_ERR &&
	    attr->state != ERI_QPS_RESET && attr->state != ERI_QPS_ERR)
		return ERI_AQ_STS_BAD_STATE;

	if (mask & ERI_QP_ATTR_ACCESS)
		qp->access = attr->access & (ERI_MR_ACCESS_REMOTE_READ |
					     ERI_MR_ACCESS_REMOTE_WRITE |
					     ERI_MR_ACCESS_REMOTE_ATOMIC);
	if (mask & ERI_QP_ATTR_PATH_MTU) {
		qp->mtu_log = attr->path_mtu_log;
		qp->mtu = 1U << qp->mtu_log;
		qp->seg = qp->mtu;
		qp->peer_seg_max = 0;
	}
	if (mask & ERI_QP_ATTR_AV) {
		memcpy(qp->sgid, attr->sgid, sizeof(qp->sgid));
		memcpy(qp->dgid, attr->dgid, sizeof(qp->dgid));
		memcpy(&qp->saddr, attr->sgid, sizeof(qp->saddr));
		memcpy(&qp->daddr, attr->dgid, sizeof(qp->daddr));
		qp->ipv6 = family == AF_INET6;
		qp->ttl = attr->ttl ? attr->ttl : 64;
		qp->tclass = attr->traffic_class;
		qp->flow_label = le32_to_cpu(attr->flow_label);
		dst_cache_reset(&qp->dst_cache);
		qp->route_segs = 1;
	}
	if (mask & ERI_QP_ATTR_DEST_QPN)
		qp->dest_qpn = le32_to_cpu(attr->dest_qpn);
	if (mask & ERI_QP_ATTR_RQ_PSN)
		eri_sim_psn_map_init(&qp->rmap, le32_to_cpu(attr->rq_psn));
	if (mask & ERI_QP_ATTR_SQ_PSN)
		eri_sim_sb_init(qp->sb, le32_to_cpu(attr->sq_psn));
	if (mask & ERI_QP_ATTR_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & ERI_QP_ATTR_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & ERI_QP_ATTR_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & ERI_QP_ATTR_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & ERI_QP_ATTR_MAX_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & ERI_QP_ATTR_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & ERI_QP_ATTR_QKEY)
		qp->qkey = le32_to_cpu(attr->qkey);

	if (!(mask & ERI_QP_ATTR_STATE) || attr->state == qp->state)
		return ERI_AQ_STS_OK;
	switch (attr->state) {
	case ERI_QPS_RESET:
		/* Taken SRQ WQEs complete before the indexes are forgotten. */
		if (qp->srq)
			eri_sim_qp_flush_taken_locked(qp);
		qp->state = ERI_QPS_RESET;
		eri_sim_qp_reset_locked(qp);
		/* A QP_LAST_WQE still waiting for room is about the old life. */
		spin_lock_irqsave(&qp->sdev->last_wqe_lock, flags);
		list_del_init(&qp->last_wqe);
		spin_unlock_irqrestore(&qp->sdev->last_wqe_lock, flags);
		break;
	case ERI_QPS_ERR:
		eri_sim_qp_error_locked(qp, 0);
		break;
	case ERI_QPS_RTS:
		/* A new connection starts its congestion control afresh. */
		if (qp->state != ERI_QPS_SQD)
			eri_sim_cc_init(&qp->cc, qp->cc.ops, qp->mtu,
					eri_sim_qp_hdrs(qp), ktime_get_ns(),
					qp->qpn);
		qp->state = ERI_QPS_RTS;
		qp->drained_sent = false;
		eri_sim_req_run_locked(qp);
		break;
	case ERI_QPS_SQD:
		qp->state = ERI_QPS_SQD;
		qp->drained_sent = false;
		eri_sim_req_run_locked(qp);
		break;
	default:
		qp->state = attr->state;
		break;
	}
	return ERI_AQ_STS_OK;
}

u8 eri_sim_modify_qp(struct eri_sim_dev *sdev,
		     const struct eri_aq_qp_attr_cmd *cmd)
{
	const struct eri_qp_attr *shared;
	struct eri_qp_attr attr;
	struct eri_sim_qp *qp;
	u8 status;

	shared = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->attr_addr),
				 sizeof(attr));
	if (!shared)
		return ERI_AQ_STS_DMA_ERR;
	/* One copy: the driver's buffer may change under us. */
	memcpy(&attr, shared, sizeof(attr));
	qp = eri_sim_qp_get(sdev, le32_to_cpu(cmd->qpn));
	if (!qp)
		return ERI_AQ_STS_NOT_FOUND;
	spin_lock_bh(&qp->lock);
	status = eri_sim_qp_apply_locked(qp, &attr, le32_to_cpu(attr.mask));
	spin_unlock_bh(&qp->lock);
	eri_sim_qp_put(qp);
	return status;
}

u8 eri_sim_query_qp(struct eri_sim_dev *sdev,
		    const struct eri_aq_qp_attr_cmd *cmd)
{
	struct eri_qp_attr attr = {}, *shared;
	struct eri_sim_qp *qp;

	shared = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->attr_addr),
				 sizeof(attr));
	if (!shared)
		return ERI_AQ_STS_DMA_ERR;
	qp = eri_sim_qp_get(sdev, le32_to_cpu(cmd->qpn));
	if (!qp)
		return ERI_AQ_STS_NOT_FOUND;
	spin_lock_bh(&qp->lock);
	attr.state = qp->state;
	attr.path_mtu_log = qp->mtu_log;
	attr.timeout = qp->timeout;
	attr.retry_cnt = qp->retry_cnt;
	attr.rnr_retry = qp->rnr_retry;
	attr.min_rnr_timer = qp->min_rnr_timer;
	attr.max_rd_atomic = qp->max_rd_atomic;
	attr.max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr.access = qp->access;
	attr.ttl = qp->ttl;
	attr.traffic_class = qp->tclass;
	attr.sq_draining = qp->state == ERI_QPS_SQD &&
			   qp->sq_comp != qp->sq_send;
	attr.dest_qpn = cpu_to_le32(qp->dest_qpn);
	attr.rq_psn = cpu_to_le32(qp->rmap.base);
	attr.sq_psn = cpu_to_le32(qp->sb->nxt);
	attr.flow_label = cpu_to_le32(qp->flow_label);
	attr.sq_kicks = cpu_to_le64(atomic64_read(&qp->sq_kicks));
	attr.tx_pkts = cpu_to_le64(qp->tx_pkts);
	attr.rx_pkts = cpu_to_le64(qp->rx_pkts);
	attr.tx_skbs = cpu_to_le32(lower_32_bits(qp->tx_skbs));
	attr.rx_skbs = cpu_to_le32(lower_32_bits(qp->rx_skbs));
	attr.retrans_pkts = cpu_to_le64(qp->retrans_pkts);
	attr.ooo_pkts = cpu_to_le64(qp->ooo_pkts);
	attr.cwnd = cpu_to_le32(eri_sim_cc_window(&qp->cc));
	attr.srtt_us = cpu_to_le32(div_u64(eri_sim_cc_srtt_ns(&qp->cc),
					   NSEC_PER_USEC));
	attr.cc_algo = qp->cc.ops->index;
	attr.qkey = cpu_to_le32(qp->qkey);
	memcpy(attr.sgid, qp->sgid, sizeof(attr.sgid));
	memcpy(attr.dgid, qp->dgid, sizeof(attr.dgid));
	spin_unlock_bh(&qp->lock);
	eri_sim_qp_put(qp);
	memcpy(shared, &attr, sizeof(attr));
	return ERI_AQ_STS_OK;
}

/* A QP's congestion-control state: the engine's view of it, one copy. */
u8 eri_sim_query_qp_cc(struct eri_sim_dev *sdev,
		       const struct eri_aq_qp_attr_cmd *cmd)
{
	struct eri_qp_cc cc, *shared;
	struct eri_sim_qp *qp;

	shared = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->attr_addr),
				 sizeof(cc));
	if (!shared)
		return ERI_AQ_STS_DMA_ERR;
	qp = eri_sim_qp_get(sdev, le32_to_cpu(cmd->qpn));
	if (!qp)
		return ERI_AQ_STS_NOT_FOUND;
	spin_lock_bh(&qp->lock);
	eri_sim_cc_query(&qp->cc, &cc);
	spin_unlock_bh(&qp->lock);
	eri_sim_qp_put(qp);
	memcpy(shared, &cc, sizeof(cc));
	return ERI_AQ_STS_OK;
}

/*
 * Take @qp out of the table and free it once nothing uses it.  @flush:
 * complete the WQEs it took from its SRQ first (DESTROY_QP; a reset
 * device writes no host memory).
 */
static void eri_sim_qp_destroy(struct eri_sim_dev *sdev, struct eri_sim_qp *qp,
			       bool flush)
{
	xa_erase(&sdev->qps, qp->qpn);
	spin_lock_bh(&qp->lock);
	/* In the same hold as @dead: no packet takes a WQE after it. */
	if (flush && qp->srq)
		eri_sim_qp_flush_taken_locked(qp);
	qp->dead = true;
	spin_unlock_bh(&qp->lock);
	/* Neither re-arms the other once @dead is set. */
	hrtimer_cancel(&qp->timer);
	hrtimer_cancel(&qp->ack_timer);
	hrtimer_cancel(&qp->pace_timer);
	hrtimer_cancel(&qp->sq_poll_timer);
	eri_sim_qp_put(qp);
	wait_for_completion(&qp->unused);
	/*
	 * After the last reference: a doorbell that cannot take the lock
	 * queues the work while it holds one, whether or not @dead is set.
	 */
	cancel_work_sync(&qp->tx_work);
	/* A QP_LAST_WQE still waiting for room is about a QP gone. */
	spin_lock_irq(&sdev->last_wqe_lock);
	list_del(&qp->last_wqe);
	spin_unlock_irq(&sdev->last_wqe_lock);
	qp->scq->users--;
	qp->rcq->users--;
	if (qp->srq)
		qp->srq->users--;
	dst_cache_destroy(&qp->dst_cache);
	kvfree(qp->rwqe);
	kvfree(qp->swqe);
	/* No reference is left: only eri_sim_qp_get() may still see @qp. */
	kvfree(qp->sb);
	kvfree_rcu(qp, rcu);
}

u8 eri_sim_destroy_qp(struct eri_sim_dev *sdev,
		      const struct eri_aq_destroy_qp_cmd *cmd)
{
	struct eri_sim_qp *qp = xa_load(&sdev->qps, le32_to_cpu(cmd->qpn));

	if (!qp)
		return ERI_AQ_STS_NOT_FOUND;
	eri_sim_qp_destroy(sdev, qp, true);
	return ERI_AQ_STS_OK;
}

/* Forget every QP (reset); device context. */
void eri_sim_qps_destroy(struct eri_sim_dev *sdev)
{
	struct eri_sim_qp *qp;
	unsigned long qpn;

	xa_for_each(&sdev->qps, qpn, qp)
		eri_sim_qp_destroy(sdev, qp, false);
}

/*
 * Flush the receive queue: the WQEs taken and every one posted; qp->lock
 * held, QP in ERR.
 */
static void eri_sim_qp_flush_rq_locked(struct eri_sim_qp *qp)
{
	u16 pi;

	/* An SRQ's untaken WQEs are the other QPs': only taken ones flush. */
	if (qp->srq) {
		eri_sim_qp_flush_taken_locked(qp);
		return;
	}
	pi = le32_to_cpu(READ_ONCE(qp->dbrec->rq_pi));
	if (eri_ring_used(pi, qp->rq_ci) > (1U << qp->rq_depth_log))
		pi = qp->rq_ci + (1U << qp->rq_depth_log);
	/* Taken WQEs lie between rq_ci and pi: they flush in ring order. */
	while (qp->rq_ci != pi) {
		/* Nothing of an untaken WQE is read: it only completes. */
		eri_sim_qp_complete_recv_locked(qp, ERI_CQE_OP_RECV,
						ERI_CQE_STS_WR_FLUSH_ERR, 0, 0,
						0, 0);
	}
}

/*
 * Flush the send queue: every WQE not completed, fetched or not; qp->lock
 * held, QP in ERR.
 */
static void eri_sim_qp_flush_sq_locked(struct eri_sim_qp *qp)
{
	u32 depth = 1U << qp->sq_depth_log;
	u16 pi;

	pi = le32_to_cpu(READ_ONCE(qp->dbrec->sq_pi));
	if (eri_ring_used(pi, qp->sq_comp) > depth)
		pi = qp->sq_comp + depth;
	while (qp->sq_comp != pi) {
		struct eri_sim_swqe *w =
			&qp->swqe[eri_ring_slot(qp->sq_comp, qp->sq_depth_log)];

		if (eri_ring_used(qp->sq_fetch, qp->sq_comp) == 0) {
			/* Not fetched: only its opcode is needed. */
			const struct eri_sq_wqe_hdr *h = (const void *)
				(qp->sq + ((size_t)eri_ring_slot(qp->sq_fetch,
							 qp->sq_depth_log) <<
					   qp->sq_wqe_shift));

			memset(w, 0, sizeof(*w));
			w->opcode = FIELD_GET(ERI_SQ_WQE_HDR_OPCODE,
					      le32_to_cpu(READ_ONCE(h->hdr)));
			qp->sq_fetch++;
		}
		eri_sim_req_complete_locked(qp, w, ERI_CQE_STS_WR_FLUSH_ERR);
	}
	qp->sq_send = qp->sq_comp;
	qp->sq_fetch = qp->sq_comp;
}

/**
 * eri_sim_qp_flush_locked - complete everything posted to a QP in ERR
 * @qp: the QP
 *
 * qp->lock held.  Keeps both need_kick flags set, so producers ring the
 * doorbell after each post and their WQEs are flushed too.
 */
void eri_sim_qp_flush_locked(struct eri_sim_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	WRITE_ONCE(qp->dbrec->sq_need_kick, cpu_to_le32(1));
	/* An SRQ QP has no receive queue of its own to kick. */
	if (!qp->srq)
		WRITE_ONCE(qp->dbrec->rq_need_kick, cpu_to_le32(1));
	/* The flags before the indexes; pairs with the producers' barrier. */
	smp_mb();
	eri_sim_qp_flush_sq_locked(qp);
	eri_sim_qp_flush_rq_locked(qp);
}

/*
 * Post QP_LAST_WQE; if the AEQ is full, keep it for the next AEQ doorbell
 * (eri_sim_qp_last_wqe_retry()): ib_drain_qp() waits for it.  qp->lock
 * held.
 */
static void eri_sim_qp_last_wqe_locked(struct eri_sim_qp *qp)
{
	struct eri_sim_dev *sdev = qp->sdev;
	unsigned long flags;

	lockdep_assert_held(&qp->lock);
	/*
	 * Post and queue in one hold: a doorbell that made room after the
	 * post failed retries only once the QP is on the list.
	 */
	spin_lock_irqsave(&sdev->last_wqe_lock, flags);
	if (eri_sim_aeq_post(sdev, ERI_AEQE_QP_LAST_WQE, qp->qpn, 0) ==
	    -ENOSPC && list_empty(&qp->last_wqe))
		list_add_tail(&qp->last_wqe, &sdev->last_wqe_list);
	spin_unlock_irqrestore(&sdev->last_wqe_lock, flags);
}

/**
 * eri_sim_qp_last_wqe_retry - post the QP_LAST_WQE events that found no room
 * @sdev: the device
 *
 * Any context: the driver rang the AEQ doorbell, so it consumed events.
 * Events that still find no room wait for the next doorbell.
 */
void eri_sim_qp_last_wqe_retry(struct eri_sim_dev *sdev)
{
	struct eri_sim_qp *qp, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&sdev->last_wqe_lock, flags);
	list_for_each_entry_safe(qp, tmp, &sdev->last_wqe_list, last_wqe) {
		if (eri_sim_aeq_post_again(sdev, ERI_AEQE_QP_LAST_WQE,
					   qp->qpn, 0))
			break;
		list_del_init(&qp->last_wqe);
	}
	spin_unlock_irqrestore(&sdev->last_wqe_lock, flags);
}

/**
 * eri_sim_qp_error_locked - move a QP to ERR
 * @qp: the QP
 * @event: the async event that says why (ERI_AEQE_QP_*), 0 for none: the
 *	driver asked for ERR, or a completion says why
 *
 * qp->lock held.
 */
void eri_sim_qp_error_locked(struct eri_sim_qp *qp, u8 event)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state == ERI_QPS_ERR)
		return;
	qp->state = ERI_QPS_ERR;
	qp->rnr_wait = false;
	hrtimer_try_to_cancel(&qp->timer);
	hrtimer_try_to_cancel(&qp->ack_timer);
	hrtimer_try_to_cancel(&qp->pace_timer);
	hrtimer_try_to_cancel(&qp->sq_poll_timer);
	eri_sim_qp_flush_locked(qp);
	if (event)
		eri_sim_aeq_post(qp->sdev, event, qp->qpn, 0);
	/* Every WQE it took is flushed: none of its completions is left. */
	if (qp->srq)
		eri_sim_qp_last_wqe_locked(qp);
}

/**
 * eri_sim_qp_complete_recv_locked - complete the receive WQE at rq_ci
 * @qp: the QP
 * @opcode: ERI_CQE_OP_RECV or ERI_CQE_OP_RECV_WRITE_IMM
 * @status: enum eri_cqe_status
 * @len: bytes received
 * @flags: ERI_CQE_HDR_SOLICITED, _IMM, _INV
 * @imm: immediate data
 * @inv_rkey: the key invalidated
 *
 * qp->lock held.
 */
void eri_sim_qp_complete_recv_locked(struct eri_sim_qp *qp, u8 opcode,
				     u8 status, u32 len, u32 flags,
				     __be32 imm, u32 inv_rkey)
{
	struct eri_cqe cqe = {
		.hdr = cpu_to_le32(flags |
				   FIELD_PREP(ERI_CQE_HDR_OPCODE, opcode) |
				   FIELD_PREP(ERI_CQE_HDR_STATUS, status)),
		.qpn = cpu_to_le32(qp->qpn),
		.wqe_idx = cpu_to_le32(qp->rq_ci),
		.byte_len = cpu_to_le32(len),
		.imm_data = imm,
		.inv_rkey = cpu_to_le32(inv_rkey),
	};

	lockdep_assert_held(&qp->lock);
	/*
	 * An SRQ QP completes only WQEs it took (rq_ci != rq_take): the
	 * completion names the WQE by its tag.
	 */
	if (qp->srq) {
		cqe.hdr |= cpu_to_le32(ERI_CQE_HDR_SRQ);
		cqe.wqe_idx = cpu_to_le32(qp->rwqe[qp->rq_ci &
						   (qp->rq_ahead - 1)].tag);
		cqe.srqn = cpu_to_le32(qp->srq->srqn);
	}
	qp->rwqe[qp->rq_ci & (qp->rq_ahead - 1)].done = false;
	qp->rq_ci++;
	qp->rcv_msn++;
	/* A flushed WQE that was never taken. */
	if ((s16)(qp->rq_take - qp->rq_ci) < 0)
		qp->rq_take = qp->rq_ci;
	if (eri_sim_cq_post(qp->rcq, &cqe) && qp->state != ERI_QPS_ERR)
		eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
}

/**
 * eri_sim_sq_fetch_locked - copy the next WQE out of the send queue
 * @qp: the QP
 * @idle: nothing in flight will run the requester again: with the queue
 *	empty, the producer must kick
 * @raw: where the WQE goes, 2^qp->sq_wqe_shift bytes
 *
 * qp->lock held.  Advances sq_fetch past the WQE.
 *
 * Return: the WQE's slot; -ENOENT when the queue is empty (sq_need_kick is
 * then set if @idle), -EINVAL when sq_pi is broken (the QP is then in ERR).
 */
int eri_sim_sq_fetch_locked(struct eri_sim_qp *qp, bool idle, u8 *raw)
{
	u32 slot;
	u16 pi;

	lockdep_assert_held(&qp->lock);
	pi = le32_to_cpu(READ_ONCE(qp->dbrec->sq_pi));
	if (pi == qp->sq_fetch) {
		/*
		 * With packets in flight an ACK (or the timer) runs the
		 * requester again and it looks at sq_pi then: the producer
		 * need not kick.  Only an idle device asks for a kick.
		 */
		if (!idle)
			return -ENOENT;
		WRITE_ONCE(qp->dbrec->sq_need_kick, cpu_to_le32(1));
		/*
		 * The flag before the index: pairs with the producer's full
		 * barrier between writing sq_pi and reading the flag.
		 */
		smp_mb();
		pi = le32_to_cpu(READ_ONCE(qp->dbrec->sq_pi));
		if (pi == qp->sq_fetch)
			return -ENOENT;
		WRITE_ONCE(qp->dbrec->sq_need_kick, 0);
	}
	if (eri_ring_used(pi, qp->sq_comp) > (1U << qp->sq_depth_log)) {
		/* The producer claims more WQEs than the ring holds. */
		eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
		return -EINVAL;
	}
	/* The index before the WQE; pairs with the producer's write barrier. */
	dma_rmb();
	slot = eri_ring_slot(qp->sq_fetch, qp->sq_depth_log);
	memcpy(raw, qp->sq + ((size_t)slot << qp->sq_wqe_shift),
	       (size_t)1 << qp->sq_wqe_shift);
	qp->sq_fetch++;
	return slot;
}

/* Decode @n SGEs of a WQE (send or receive).  Return: their bytes. */
static u64 eri_sim_sges_decode(struct eri_sim_sge *dst,
			       const struct eri_sge *src, u32 n)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		dst[i].addr = le64_to_cpu(src[i].addr);
		dst[i].length = le32_to_cpu(src[i].length);
		dst[i].lkey = le32_to_cpu(src[i].lkey);
		total += dst[i].length;
	}
	return total;
}

/**
 * eri_sim_swqe_sges - decode the gather list of a send WQE
 * @w: the WQE being decoded, @w->num_sge set from its header
 * @sge: its SGEs, in the device's copy of the WQE
 * @max_sge: most SGEs a WQE of this QP type holds
 * @max_len: most bytes a message of this QP type carries
 *
 * Sets @w->sge and @w->length.  The producer is hostile: a count past
 * @max_sge or a sum past @max_len fails the WQE.
 *
 * Return: 0, or the CQE status the WQE fails with.
 */
u8 eri_sim_swqe_sges(struct eri_sim_swqe *w, const struct eri_sge *sge,
		     u32 max_sge, u64 max_len)
{
	u64 total;

	if (w->num_sge > max_sge)
		return ERI_CQE_STS_LOC_QP_OP_ERR;
	total = eri_sim_sges_decode(w->sge, sge, w->num_sge);
	if (total > max_len)
		return ERI_CQE_STS_LOC_LEN_ERR;
	w->length = total;
	return 0;
}

/**
 * eri_sim_rq_read_locked - copy a receive WQE out of the ring, decode it
 * @qp: the QP
 * @idx: the WQE's index, below the rq_pi the caller has read and checked
 * @r: where it goes
 *
 * qp->lock held.
 *
 * Return: 0, or -EINVAL when the WQE is malformed.
 */
int eri_sim_rq_read_locked(struct eri_sim_qp *qp, u16 idx,
			   struct eri_sim_rwqe *r)
{
	u8 raw[ERI_RQ_WQE_SIZE];

	lockdep_assert_held(&qp->lock);
	/* The index before the WQE; pairs with the producer's write barrier. */
	dma_rmb();
	memcpy(raw, qp->rq + ((size_t)eri_ring_slot(idx, qp->rq_depth_log) <<
			      ERI_RQ_WQE_SHIFT), sizeof(raw));
	r->pdn = qp->pdn;
	return eri_sim_rwqe_decode(raw, r);
}

/**
 * eri_sim_rwqe_decode - decode a receive WQE the device copied
 * @raw: the copy, ERI_RQ_WQE_SIZE bytes
 * @r: where it goes; its tag is set even when the WQE is malformed, so
 *	that its completion can carry it
 *
 * Return: 0, or -EINVAL when the WQE is malformed (more SGEs than a WQE
 * holds, more bytes than a message).
 */
int eri_sim_rwqe_decode(const u8 *raw, struct eri_sim_rwqe *r)
{
	const struct eri_rq_wqe_hdr *h = (const void *)raw;
	const struct eri_sge *sge = (const void *)(h + 1);
	u64 total;

	r->tag = le32_to_cpu(h->tag);
	r->num_sge = FIELD_GET(ERI_RQ_WQE_HDR_NUM_SGE, le32_to_cpu(h->hdr));
	if (r->num_sge > ERI_RQ_WQE_MAX_SGE)
		return -EINVAL;
	total = eri_sim_sges_decode(r->sge, sge, r->num_sge);
	if (total > ERI_SIM_MAX_MSG_LEN)
		return -EINVAL;
	r->length = total;
	return 0;
}

/*
 * The other end of a copy to or from a scatter/gather list: memory at @buf,
 * or the received packet @skb from offset @off, or (no copy) the packet
 * @out whose fragments take the list's pages; the regions come through the
 * batch's cache @mrc (or NULL).
 */
struct eri_sim_sgl_io {
	void *buf;
	struct eri_sim_skb_cur *cur;
	u32 off;
	struct sk_buff *out;
	struct eri_sim_mr_cache *mrc;
};

static int eri_sim_sgl_xfer(struct eri_sim_qp *qp, u32 pdn,
			    const struct eri_sim_sge *sge, u32 num_sge,
			    u32 off, u32 len, bool to_sgl,
			    struct eri_sim_sgl_io *io)
{
	u32 access = to_sgl ? ERI_MR_ACCESS_LOCAL_WRITE : 0;
	u32 i;

	for (i = 0; i < num_sge && len; i++) {
		struct eri_sim_mr *mr;
		u64 addr;
		u32 chunk;
		int ret;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		chunk = min(len, sge[i].length - off);
		addr = sge[i].addr + off;
		ret = eri_sim_mr_get_cached(qp->sdev, io->mrc, sge[i].lkey, pdn,
					    access, addr, chunk, &mr);
		if (ret)
			return ret;
		if (io->out) {
			ret = eri_sim_mr_attach(qp->sdev, mr, addr, chunk,
						io->out);
		} else if (io->cur) {
			ret = eri_sim_mr_place(qp->sdev, mr, addr, io->cur,
					       io->off, chunk);
			io->off += chunk;
		} else {
			ret = eri_sim_mr_copy(qp->sdev, mr, addr, io->buf,
					      chunk, to_sgl);
			io->buf += chunk;
		}
		eri_sim_mr_put_cached(io->mrc, mr);
		if (ret)
			return ret;
		len -= chunk;
		off = 0;
	}
	return len ? -ERANGE : 0;
}

/**
 * eri_sim_sgl_copy - copy between a buffer and a scatter/gather list
 * @qp: the QP
 * @pdn: the PD the keys must belong to: the QP's, or its SRQ's
 * @sge: the list
 * @num_sge: its length
 * @off: byte offset into the list
 * @buf: the buffer
 * @len: bytes
 * @to_sgl: into the list (needs LOCAL_WRITE), else out of it
 *
 * Return: 0, -ERANGE when the list is shorter than @off + @len, or the
 * error of the failing key check.
 */
int eri_sim_sgl_copy(struct eri_sim_qp *qp, u32 pdn,
		     const struct eri_sim_sge *sge, u32 num_sge, u32 off,
		     void *buf, u32 len, bool to_sgl)
{
	struct eri_sim_sgl_io io = { .buf = buf };

	return eri_sim_sgl_xfer(qp, pdn, sge, num_sge, off, len, to_sgl, &io);
}

/**
 * eri_sim_sgl_read - eri_sim_sgl_copy() out of the list, for a batch
 * @qp: the QP
 * @pdn: the PD the keys must belong to
 * @sge: the list
 * @num_sge: its length
 * @off: byte offset into the list
 * @buf: the buffer
 * @len: bytes
 * @mrc: the cache of the batch the copy is part of
 *
 * Return: as eri_sim_sgl_copy().
 */
int eri_sim_sgl_read(struct eri_sim_qp *qp, u32 pdn,
		     const struct eri_sim_sge *sge, u32 num_sge, u32 off,
		     void *buf, u32 len, struct eri_sim_mr_cache *mrc)
{
	struct eri_sim_sgl_io io = { .buf = buf, .mrc = mrc };

	return eri_sim_sgl_xfer(qp, pdn, sge, num_sge, off, len, false, &io);
}

/**
 * eri_sim_sgl_attach - a scatter/gather list's bytes as a packet's fragments
 * @qp: the QP
 * @pdn: the PD the keys must belong to
 * @sge: the list
 * @num_sge: its length
 * @off: byte offset into the list
 * @len: bytes
 * @skb: the packet
 * @mrc: the cache of the batch the packet is part of
 *
 * No copy: @skb's fragments reference the regions' pages
 * (eri_sim_mr_attach()).
 *
 * Return: as eri_sim_sgl_copy(), or -EOPNOTSUPP and -ENOSPC as
 * eri_sim_mr_attach(); the caller takes back the fragments of a failure.
 */
int eri_sim_sgl_attach(struct eri_sim_qp *qp, u32 pdn,
		       const struct eri_sim_sge *sge, u32 num_sge, u32 off,
		       u32 len, struct sk_buff *skb,
		       struct eri_sim_mr_cache *mrc)
{
	struct eri_sim_sgl_io io = { .out = skb, .mrc = mrc };

	return eri_sim_sgl_xfer(qp, pdn, sge, num_sge, off, len, false, &io);
}

/**
 * eri_sim_sgl_place - place a received payload into a scatter/gather list
 * @qp: the QP
 * @pdn: the PD the keys must belong to: the QP's, or its SRQ's
 * @sge: the list
 * @num_sge: its length
 * @off: byte offset into the list
 * @pkt: the packet whose payload it is
 * @mrc: the cache of the batch the packet is part of, or NULL
 *
 * Every byte of the list written needs LOCAL_WRITE.
 *
 * Return: as eri_sim_sgl_copy().
 */
int eri_sim_sgl_place(struct eri_sim_qp *qp, u32 pdn,
		      const struct eri_sim_sge *sge, u32 num_sge, u32 off,
		      const struct eri_sim_rx_pkt *pkt,
		      struct eri_sim_mr_cache *mrc)
{
	struct eri_sim_sgl_io io = {
		.cur = pkt->cur, .off = pkt->off, .mrc = mrc,
	};

	return eri_sim_sgl_xfer(qp, pdn, sge, num_sge, off, pkt->len, true,
				&io);
}

/**
 * eri_sim_qp_doorbell - a producer rang SQ_DB or RQ_DB
 * @sdev: the device
 * @qpn: the QPN written
 * @sq: the send queue's doorbell, else the receive queue's
 *
 * Any context.  The requester runs here at once, within its budget, unless
 * the caller cannot take a bottom-half lock; then the QP's work does it.
 */
void eri_sim_qp_doorbell(struct eri_sim_dev *sdev, u32 qpn, bool sq)
{
	struct eri_sim_qp *qp = eri_sim_qp_get(sdev, qpn);

	if (!qp)
		return;
	trace_eri_sim_doorbell(sdev->ibdev_name, qpn, sq);
	if (sq) {
		eri_sim_stat_add(sdev, ERI_STAT_SQ_KICKS, 1);
		atomic64_inc(&qp->sq_kicks);
	}
	if (in_hardirq() || irqs_disabled()) {
		if (sq)
			WRITE_ONCE(qp->dbrec->sq_need_kick, 0);
		queue_work(sdev->qp_wq, &qp->tx_work);
		eri_sim_qp_put(qp);
		return;
	}
	spin_lock_bh(&qp->lock);
	/* A QP being destroyed (@dead) takes no more work. */
	if (!qp->dead && qp->state == ERI_QPS_ERR) {
		eri_sim_qp_flush_locked(qp);
	} else if (!qp->dead && sq) {
		u64 now = ktime_get_ns();

		WRITE_ONCE(qp->dbrec->sq_need_kick, 0);
		eri_sim_req_kicked_locked(qp, now);
		eri_sim_req_run_at_locked(qp, now);
	}
	spin_unlock_bh(&qp->lock);
	eri_sim_qp_put(qp);
}
