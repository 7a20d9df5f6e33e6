// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim event queues: the device side of the AEQ and the CEQs.
 *
 * The device produces entries with an owner bit that flips on every pass
 * over the ring, learns how far the driver has consumed from the queue's
 * doorbell record, and raises the queue's vector once per arm.
 */
#include <linux/bitfield.h>

#include "eri_sim.h"

/**
 * eri_sim_eq_create - start producing into an event queue
 * @sdev: the device
 * @eq: the queue, currently invalid
 * @ring_dma: bus address of 2^@depth_log entries of @entry_size bytes
 * @dbrec_dma: bus address of the queue's doorbell record
 * @depth_log: log2 of the entry count, 1..ERI_SIM_MAX_EQ_DEPTH_LOG
 * @entry_size: bytes per entry
 * @vector: the interrupt vector to raise
 *
 * Device context.
 *
 * Return: 0, or -EINVAL for a bad configuration.
 */
int eri_sim_eq_create(struct eri_sim_dev *sdev, struct eri_sim_eq *eq,
		      u64 ring_dma, u64 dbrec_dma, u32 depth_log,
		      u32 entry_size, u32 vector)
{
	void *ring;
	struct eri_dbrec *dbrec;
	unsigned long flags;

	if (depth_log < 1 || depth_log > ERI_SIM_MAX_EQ_DEPTH_LOG ||
	    vector >= ERI_SIM_NUM_VECTORS)
		return -EINVAL;
	ring = eri_sim_dma_ptr(sdev, ring_dma, (size_t)entry_size << depth_log);
	dbrec = eri_sim_dma_ptr(sdev, dbrec_dma, sizeof(*dbrec));
	if (!ring || !dbrec || !IS_ALIGNED(dbrec_dma, sizeof(*dbrec)))
		return -EINVAL;

	spin_lock_irqsave(&eq->lock, flags);
	eq->ring = ring;
	eq->dbrec = dbrec;
	eq->depth_log = depth_log;
	eq->entry_size = entry_size;
	eq->vector = vector;
	eq->pi = 0;
	eq->armed = false;
	eq->overflows = 0;
	eq->valid = true;
	spin_unlock_irqrestore(&eq->lock, flags);
	return 0;
}

void eri_sim_eq_destroy(struct eri_sim_eq *eq)
{
	unsigned long flags;

	spin_lock_irqsave(&eq->lock, flags);
	eq->valid = false;
	eq->armed = false;
	eq->ring = NULL;
	eq->dbrec = NULL;
	spin_unlock_irqrestore(&eq->lock, flags);
}

/* Consumer index the driver last published; eq->lock held. */
static u16 eri_sim_eq_ci(struct eri_sim_eq *eq)
{
	/* The record is host memory the driver writes at any time. */
	return FIELD_GET(ERI_EQ_DB_CI, le64_to_cpu(READ_ONCE(eq->dbrec->val)));
}

/**
 * eri_sim_eq_doorbell - the driver rang an event queue's doorbell
 * @sdev: the device
 * @eq: the queue
 * @val: the doorbell value (ERI_EQ_DB_*)
 *
 * Any context.  An arm with entries still unconsumed raises the vector at
 * once, so an event that raced with the arm is not lost.
 */
void eri_sim_eq_doorbell(struct eri_sim_dev *sdev, struct eri_sim_eq *eq,
			 u32 val)
{
	bool fire = false;
	unsigned long flags;

	spin_lock_irqsave(&eq->lock, flags);
	if (eq->valid && (val & ERI_EQ_DB_ARM)) {
		if (eq->pi != (u16)FIELD_GET(ERI_EQ_DB_CI, val)) {
			fire = true;
			eq->armed = false;
		} else {
			eq->armed = true;
		}
	}
	spin_unlock_irqrestore(&eq->lock, flags);
	if (fire)
		eri_sim_raise_irq(sdev, eq->vector);
}

/*
 * Write one entry: @body is the entry without its first 32-bit word, which
 * holds the owner bit and is written last, after the body is visible.
 */
static int eri_sim_eq_post(struct eri_sim_dev *sdev, struct eri_sim_eq *eq,
			   u32 hdr, const void *body)
{
	unsigned long flags;
	bool fire = false;
	__le32 *entry;
	int ret = 0;

	spin_lock_irqsave(&eq->lock, flags);
	if (!eq->valid) {
		ret = -ENODEV;
		goto out;
	}
	if (eri_ring_used(eq->pi, eri_sim_eq_ci(eq)) >= (1U << eq->depth_log)) {
		eq->overflows++;
		ret = -ENOSPC;
		goto out;
	}
	entry = eq->ring + (size_t)eri_ring_slot(eq->pi, eq->depth_log) *
			   eq->entry_size;
	memcpy(entry + 1, body, eq->entry_size - sizeof(*entry));
	/* Body before owner bit; pairs with dma_rmb() in the driver's poll. */
	dma_wmb();
	WRITE_ONCE(*entry,
		   cpu_to_le32(hdr | eri_ring_owner(eq->pi, eq->depth_log)));
	eq->pi++;
	if (eq->armed) {
		eq->armed = false;
		fire = true;
	}
out:
	spin_unlock_irqrestore(&eq->lock, flags);
	if (fire)
		eri_sim_raise_irq(sdev, eq->vector);
	return ret;
}

/**
 * eri_sim_aeq_post_again - post an async event that found the AEQ full before
 * @sdev: the device
 * @type: enum eri_aeqe_type
 * @subject: the object the event is about
 * @data: the event's data
 *
 * Any context.  The event was counted when it was raised.
 *
 * Return: 0, -ENOSPC when the AEQ is still full, -ENODEV without an AEQ.
 */
int eri_sim_aeq_post_again(struct eri_sim_dev *sdev, u8 type, u32 subject,
			   u64 data)
{
	struct eri_aeqe e = {
		.subject = cpu_to_le32(subject),
		.data = cpu_to_le64(data),
	};

	return eri_sim_eq_post(sdev, &sdev->aeq,
			       FIELD_PREP(ERI_AEQE_HDR_TYPE, type),
			       &e.subject);
}

/**
 * eri_sim_aeq_post - raise an async event
 * @sdev: the device
 * @type: enum eri_aeqe_type
 * @subject: the object the event is about
 * @data: the event's data
 *
 * Any context.  An event that finds the AEQ full counts in
 * ERI_STAT_AEQ_OVERFLOWS; the caller decides whether it is lost.
 *
 * Return: 0, -ENOSPC when the AEQ is full, -ENODEV without an AEQ.
 */
int eri_sim_aeq_post(struct eri_sim_dev *sdev, u8 type, u32 subject, u64 data)
{
	int ret = eri_sim_aeq_post_again(sdev, type, subject, data);

	if (ret == -ENOSPC)
		this_cpu_inc(sdev->stats->v[ERI_STAT_AEQ_OVERFLOWS]);
	return ret;
}

int eri_sim_ceq_post(struct eri_sim_dev *sdev, u32 eqn, u32 cqn)
{
	__le32 body = cpu_to_le32(cqn);
	int ret;

	if (eqn >= ERI_SIM_MAX_CEQS)
		return -EINVAL;
	ret = eri_sim_eq_post(sdev, &sdev->ceq[eqn], 0, &body);
	if (ret == -ENOSPC)
		eri_sim_aeq_post(sdev, ERI_AEQE_CEQ_OVERFLOW, eqn, 0);
	return ret;
}
