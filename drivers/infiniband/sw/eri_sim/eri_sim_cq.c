// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim completion queues: the device writes completions into the ring
 * the driver gave it, never past the consumer index the doorbell record
 * shows, and raises a completion event for each arm request it reads there.
 */
#include <linux/bitfield.h>
#include <linux/slab.h>

#include "eri_sim_qp.h"

u8 eri_sim_create_cq(struct eri_sim_dev *sdev,
		     const struct eri_aq_create_cq_cmd *cmd)
{
	u32 depth_log = FIELD_GET(ERI_AQ_CREATE_CQ_DEPTH_LOG,
				  le32_to_cpu(cmd->cfg));
	u32 cqn = le32_to_cpu(cmd->cqn), eqn = le32_to_cpu(cmd->eqn);
	struct eri_sim_cq *cq;
	int ret;

	if (cqn >= ERI_SIM_MAX_CQ || eqn >= ERI_SIM_MAX_CEQS ||
	    depth_log > ERI_SIM_MAX_CQE_LOG)
		return ERI_AQ_STS_BAD_PARAM;
	if (!READ_ONCE(sdev->ceq[eqn].valid))
		return ERI_AQ_STS_BAD_PARAM;
	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return ERI_AQ_STS_NO_RESOURCE;
	cq->ring = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->ring_addr),
				   sizeof(struct eri_cqe) << depth_log);
	cq->dbrec = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->dbrec_addr),
				    sizeof(*cq->dbrec));
	if (!cq->ring || !cq->dbrec) {
		kfree(cq);
		return ERI_AQ_STS_DMA_ERR;
	}
	spin_lock_init(&cq->lock);
	cq->sdev = sdev;
	cq->cqn = cqn;
	cq->eqn = eqn;
	cq->depth_log = depth_log;
	ret = xa_insert(&sdev->cqs, cqn, cq, GFP_KERNEL);
	if (ret) {
		kfree(cq);
		return ret == -EBUSY ? ERI_AQ_STS_EXISTS : ERI_AQ_STS_NO_RESOURCE;
	}
	return ERI_AQ_STS_OK;
}

u8 eri_sim_destroy_cq(struct eri_sim_dev *sdev,
		      const struct eri_aq_destroy_cq_cmd *cmd)
{
	struct eri_sim_cq *cq = xa_load(&sdev->cqs, le32_to_cpu(cmd->cqn));

	if (!cq)
		return ERI_AQ_STS_NOT_FOUND;
	if (cq->users)
		return ERI_AQ_STS_BAD_STATE;
	/* No QP refers to it, so no completion is being written. */
	xa_erase(&sdev->cqs, cq->cqn);
	kfree(cq);
	return ERI_AQ_STS_OK;
}

/* Forget every CQ (reset), after every QP; device context. */
void eri_sim_cqs_destroy(struct eri_sim_dev *sdev)
{
	struct eri_sim_cq *cq;
	unsigned long cqn;

	xa_for_each(&sdev->cqs, cqn, cq) {
		xa_erase(&sdev->cqs, cqn);
		kfree(cq);
	}
}

/* Device context: QP creation looks up the CQs it completes into. */
struct eri_sim_cq *eri_sim_cq_find(struct eri_sim_dev *sdev, u32 cqn)
{
	return xa_load(&sdev->cqs, cqn);
}

/**
 * eri_sim_cq_post - write one completion
 * @cq: the CQ
 * @cqe: the completion, owner bit clear
 *
 * Called with the completing QP's lock held.  Raises a completion event
 * when the consumer asked for one.  Return: 0, or -ENOSPC when the CQ
 * overran (the completion is dropped and CQ_ERR raised) or is broken.
 */
int eri_sim_cq_post(struct eri_sim_cq *cq, const struct eri_cqe *cqe)
{
	u32 hdr = le32_to_cpu(cqe->hdr);
	bool event = false, overrun = false;
	struct eri_cqe *slot;
	u32 arm, sn, owner;
	u16 ci;

	spin_lock(&cq->lock);
	if (cq->broken) {
		spin_unlock(&cq->lock);
		return -ENOSPC;
	}
	ci = le32_to_cpu(READ_ONCE(cq->dbrec->ci));
	if (eri_ring_used(cq->pi, ci) >= (1U << cq->depth_log)) {
		cq->broken = true;
		overrun = true;
		goto out_unlock;
	}
	slot = &cq->ring[eri_ring_slot(cq->pi, cq->depth_log)];
	memcpy((u8 *)slot + sizeof(slot->hdr), (const u8 *)cqe + sizeof(cqe->hdr),
	       sizeof(*cqe) - sizeof(cqe->hdr));
	/* Body before owner bit; pairs with the consumer's read barrier. */
	dma_wmb();
	owner = eri_ring_owner(cq->pi, cq->depth_log);
	WRITE_ONCE(slot->hdr,
		   cpu_to_le32(hdr | FIELD_PREP(ERI_CQE_HDR_OWNER, owner)));
	cq->pi++;
	/*
	 * The completion before the arm request: pairs with the consumer's
	 * full barrier between writing @arm and polling again.
	 */
	smp_mb();
	arm = le32_to_cpu(READ_ONCE(cq->dbrec->arm));
	sn = FIELD_GET(ERI_CQ_ARM_SN, arm);
	if ((arm & ERI_CQ_ARM) && sn != cq->arm_sn &&
	    (!(arm & ERI_CQ_ARM_SOLICITED) || (hdr & ERI_CQE_HDR_SOLICITED) ||
	     FIELD_GET(ERI_CQE_HDR_STATUS, hdr))) {
		cq->arm_sn = sn;
		event = true;
	}
out_unlock:
	spin_unlock(&cq->lock);
	if (overrun) {
		eri_sim_aeq_post(cq->sdev, ERI_AEQE_CQ_ERR, cq->cqn, 0);
		return -ENOSPC;
	}
	if (event) {
		eri_sim_stat_add(cq->sdev, ERI_STAT_CQ_EVENTS, 1);
		eri_sim_ceq_post(cq->sdev, cq->eqn, cq->cqn);
	}
	return 0;
}
