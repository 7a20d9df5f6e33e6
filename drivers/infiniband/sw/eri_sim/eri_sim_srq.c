// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim shared receive queues: a ring of receive WQEs and a doorbell
 * record that any number of QPs take WQEs from, in ring order.
 *
 * The SRQ table is changed and read only in the device context (admin
 * commands), like the CQ table.  The data path never looks an SRQ up: a QP
 * points at its SRQ from CREATE_QP on, and DESTROY_SRQ refuses while a QP
 * does (@users), so no reference count is needed.  srq->lock serializes the
 * takes of the QPs; it nests inside qp->lock and nothing nests inside it.
 */
#include <linux/bitfield.h>
#include <linux/slab.h>

#include "eri_sim_qp.h"

u8 eri_sim_create_srq(struct eri_sim_dev *sdev,
		      const struct eri_aq_create_srq_cmd *cmd)
{
	u32 depth_log = FIELD_GET(ERI_AQ_CREATE_SRQ_DEPTH_LOG,
				  le32_to_cpu(cmd->cfg));
	u32 srqn = le32_to_cpu(cmd->srqn);
	struct eri_sim_srq *srq;
	int ret;

	if (srqn >= ERI_SIM_MAX_SRQ || depth_log > ERI_SIM_MAX_QP_WR_LOG ||
	    le32_to_cpu(cmd->pdn) >= ERI_SIM_MAX_PD)
		return ERI_AQ_STS_BAD_PARAM;
	if (xa_load(&sdev->srqs, srqn))
		return ERI_AQ_STS_EXISTS;
	srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq)
		return ERI_AQ_STS_NO_RESOURCE;
	srq->ring = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->ring_addr),
				    (size_t)ERI_RQ_WQE_SIZE << depth_log);
	srq->dbrec = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->dbrec_addr),
				     sizeof(*srq->dbrec));
	if (!srq->ring || !srq->dbrec) {
		kfree(srq);
		return ERI_AQ_STS_DMA_ERR;
	}
	spin_lock_init(&srq->lock);
	srq->sdev = sdev;
	srq->srqn = srqn;
	srq->pdn = le32_to_cpu(cmd->pdn);
	srq->depth_log = depth_log;
	ret = xa_insert(&sdev->srqs, srqn, srq, GFP_KERNEL);
	if (ret) {
		kfree(srq);
		return ret == -EBUSY ? ERI_AQ_STS_EXISTS : ERI_AQ_STS_NO_RESOURCE;
	}
	return ERI_AQ_STS_OK;
}

/* WQEs posted and not taken; srq->lock held.  Sets @broken on overrun. */
static u32 eri_sim_srq_avail_locked(struct eri_sim_srq *srq)
{
	u32 n;

	lockdep_assert_held(&srq->lock);
	n = eri_ring_used(le32_to_cpu(READ_ONCE(srq->dbrec->pi)), srq->ci);
	if (n > BIT(srq->depth_log)) {
		srq->broken = true;
		return 0;
	}
	return n;
}

/*
 * Post SRQ_LIMIT for the arm @arm of @limit, which fired with @n WQEs left.
 * An event that finds the AEQ full would be lost for good: the limit is
 * armed again, unless MODIFY_SRQ changed it meanwhile, and fires the next
 * time a QP needs a WQE.  Called with bottom halves off or in the device
 * context, without srq->lock.
 */
static void eri_sim_srq_limit_event(struct eri_sim_srq *srq, u32 arm,
				    u32 limit, u32 n)
{
	if (eri_sim_aeq_post(srq->sdev, ERI_AEQE_SRQ_LIMIT, srq->srqn, n) !=
	    -ENOSPC)
		return;
	spin_lock_bh(&srq->lock);
	if (srq->arms == arm && !srq->limit)
		srq->limit = limit;
	spin_unlock_bh(&srq->lock);
}

u8 eri_sim_modify_srq(struct eri_sim_dev *sdev,
		      const struct eri_aq_modify_srq_cmd *cmd)
{
	struct eri_sim_srq *srq = xa_load(&sdev->srqs, le32_to_cpu(cmd->srqn));
	u32 mask = le32_to_cpu(cmd->mask), limit = le32_to_cpu(cmd->limit);
	bool fire = false, broke = false;
	u32 n = 0, arm;

	if (!srq)
		return ERI_AQ_STS_NOT_FOUND;
	if (mask & ~ERI_AQ_MODIFY_SRQ_LIMIT)
		return ERI_AQ_STS_BAD_PARAM;
	if (!(mask & ERI_AQ_MODIFY_SRQ_LIMIT))
		return ERI_AQ_STS_OK;
	if (limit > BIT(srq->depth_log))
		return ERI_AQ_STS_BAD_PARAM;
	/* Against the takes of QPs in softirq context. */
	spin_lock_bh(&srq->lock);
	if (!srq->broken) {
		n = eri_sim_srq_avail_locked(srq);
		broke = srq->broken;
	}
	/* Already below the new limit: it fires now, and stays disarmed. */
	fire = limit && !srq->broken && n < limit;
	srq->limit = fire ? 0 : limit;
	arm = ++srq->arms;
	spin_unlock_bh(&srq->lock);
	if (broke)
		eri_sim_aeq_post(sdev, ERI_AEQE_SRQ_ERR, srq->srqn, 1);
	if (fire)
		eri_sim_srq_limit_event(srq, arm, limit, n);
	return ERI_AQ_STS_OK;
}

u8 eri_sim_query_srq(struct eri_sim_dev *sdev,
		     const struct eri_aq_query_srq_cmd *cmd,
		     struct eri_aq_query_srq_resp *resp)
{
	struct eri_sim_srq *srq = xa_load(&sdev->srqs, le32_to_cpu(cmd->srqn));

	if (!srq)
		return ERI_AQ_STS_NOT_FOUND;
	spin_lock_bh(&srq->lock);
	resp->limit = cpu_to_le32(srq->limit);
	resp->ci = cpu_to_le32(srq->ci);
	resp->pi = cpu_to_le32(le32_to_cpu(READ_ONCE(srq->dbrec->pi)) &
			       0xffff);
	resp->flags = cpu_to_le32(srq->broken ? ERI_AQ_SRQ_BROKEN : 0);
	spin_unlock_bh(&srq->lock);
	resp->users = cpu_to_le32(srq->users);
	return ERI_AQ_STS_OK;
}

u8 eri_sim_destroy_srq(struct eri_sim_dev *sdev,
		       const struct eri_aq_destroy_srq_cmd *cmd)
{
	struct eri_sim_srq *srq = xa_load(&sdev->srqs, le32_to_cpu(cmd->srqn));

	if (!srq)
		return ERI_AQ_STS_NOT_FOUND;
	if (srq->users)
		return ERI_AQ_STS_BAD_STATE;
	/* No QP refers to it, so no take is running. */
	xa_erase(&sdev->srqs, srq->srqn);
	kfree(srq);
	return ERI_AQ_STS_OK;
}

/* Forget every SRQ (reset), after every QP; device context. */
void eri_sim_srqs_destroy(struct eri_sim_dev *sdev)
{
	struct eri_sim_srq *srq;
	unsigned long srqn;

	xa_for_each(&sdev->srqs, srqn, srq) {
		xa_erase(&sdev->srqs, srqn);
		kfree(srq);
	}
}

/* Device context: QP creation looks up the SRQ it receives from. */
struct eri_sim_srq *eri_sim_srq_find(struct eri_sim_dev *sdev, u32 srqn)
{
	return xa_load(&sdev->srqs, srqn);
}

/**
 * eri_sim_qp_take_srq_locked - take the next WQE of @qp's SRQ into @r
 * @qp: a QP that receives from an SRQ
 * @r: as eri_sim_srq_take()
 *
 * qp->lock held.  A broken SRQ puts the QP in ERR: it cannot go on.
 *
 * Return: 1 when a WQE was taken, 0 when the SRQ is empty, -EINVAL when
 * the QP is now in ERR.
 */
int eri_sim_qp_take_srq_locked(struct eri_sim_qp *qp, struct eri_sim_rwqe *r)
{
	int ret;

	lockdep_assert_held(&qp->lock);
	memset(r, 0, sizeof(*r));
	ret = eri_sim_srq_take(qp->srq, r);
	if (ret < 0) {
		eri_sim_qp_error_locked(qp, ERI_AEQE_QP_FATAL);
		return -EINVAL;
	}
	return ret;
}

/**
 * eri_sim_srq_take - take the next WQE of an SRQ for a QP
 * @srq: the SRQ
 * @r: where the WQE goes, decoded; @r->bad when it is malformed (its tag
 *	is still set)
 *
 * Called with the taking QP's lock held (bottom halves off).  The WQE is
 * copied and the SRQ's consumer index moves here, before it completes.
 *
 * Return: 1 when a WQE was taken, 0 when the SRQ is empty, -EIO when it is
 * broken (its producer index overran the ring).
 */
int eri_sim_srq_take(struct eri_sim_srq *srq, struct eri_sim_rwqe *r)
{
	u32 n, limit = 0, arm = 0;
	u8 raw[ERI_RQ_WQE_SIZE];
	bool fire, broke, taken;

	/* Serializes the QPs taking from this SRQ; a leaf lock. */
	spin_lock(&srq->lock);
	if (srq->broken) {
		spin_unlock(&srq->lock);
		return -EIO;
	}
	n = eri_sim_srq_avail_locked(srq);
	broke = srq->broken;
	if (broke) {
		spin_unlock(&srq->lock);
		eri_sim_aeq_post(srq->sdev, ERI_AEQE_SRQ_ERR, srq->srqn, 1);
		return -EIO;
	}
	taken = n > 0;
	if (taken) {
		/*
		 * The index before the WQE; pairs with the producer's write
		 * barrier.
		 */
		dma_rmb();
		memcpy(raw, srq->ring +
		       ((size_t)eri_ring_slot(srq->ci, srq->depth_log) <<
			ERI_RQ_WQE_SHIFT), sizeof(raw));
		srq->ci++;
		n--;
	}
	/*
	 * One event per arm: the limit disarms as it fires.  An empty SRQ
	 * with the limit armed is one whose event found the AEQ full.
	 */
	fire = srq->limit && n < srq->limit;
	if (fire) {
		limit = srq->limit;
		arm = srq->arms;
		srq->limit = 0;
	}
	spin_unlock(&srq->lock);

	if (fire)
		eri_sim_srq_limit_event(srq, arm, limit, n);
	if (!taken)
		return 0;
	r->bad = eri_sim_rwqe_decode(raw, r) != 0;
	r->pdn = srq->pdn;
	return 1;
}
