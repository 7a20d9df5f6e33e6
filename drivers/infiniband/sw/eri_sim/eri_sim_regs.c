// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim registers and interrupts: the bus side of the device interface.
 *
 * Register writes land in the register file and, where the register has a
 * side effect, queue the work that carries it out in the device context, as
 * a posted MMIO write would.  Interrupts are delivered from a work item, never
 * from inside a register access, so a handler cannot recurse into the code
 * that rang a doorbell.
 */
#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/string.h>

#include "eri_sim_cc.h"
#include "eri_sim_qp.h"

static bool eri_sim_reg_valid(u32 off)
{
	return off < ERI_REGS_SIZE && IS_ALIGNED(off, sizeof(u32));
}

static u32 eri_sim_reg_read32(struct eri_bus_dev *bdev, u32 off)
{
	if (!eri_sim_reg_valid(off))
		return ~0U;	/* as an unclaimed PCI read */
	return eri_sim_reg(to_eri_sim_dev(bdev), off);
}

static bool eri_sim_reg_writable(u32 off)
{
	switch (off) {
	case ERI_REG_DEV_CTL:
	case ERI_REG_AQ_SQ_BASE_LO ... ERI_REG_AQ_SQ_DB:
	case ERI_REG_AEQ_BASE_LO ... ERI_REG_AEQ_DB:
	case ERI_REG_SQ_DB:
	case ERI_REG_RQ_DB:
		return true;
	default:
		return off >= ERI_REG_CEQ_DB_BASE &&
		       off < ERI_REG_CEQ_DB(ERI_SIM_MAX_CEQS);
	}
}

static void eri_sim_reg_write32(struct eri_bus_dev *bdev, u32 off, u32 val)
{
	struct eri_sim_dev *sdev = to_eri_sim_dev(bdev);

	if (!eri_sim_reg_valid(off) || !eri_sim_reg_writable(off))
		return;	/* writes to read-only registers are dropped */

	eri_sim_set_reg(sdev, off, val);
	switch (off) {
	case ERI_REG_DEV_CTL:
		/*
		 * A reset is latched so that a later write (ENABLE) cannot
		 * overwrite it before the device context sees it; DEV_STS
		 * shows it at once, as hardware would.
		 */
		if (val & ERI_REG_DEV_CTL_RESET) {
			set_bit(ERI_SIM_CTL_RESET, &sdev->ctl_requests);
			eri_sim_set_reg(sdev, ERI_REG_DEV_STS,
					ERI_REG_DEV_STS_RESETTING);
		}
		queue_work(sdev->wq, &sdev->ctl_work);
		break;
	case ERI_REG_AQ_SQ_DB:
		queue_work(sdev->wq, &sdev->aq_work);
		break;
	case ERI_REG_AEQ_DB:
		eri_sim_eq_doorbell(sdev, &sdev->aeq, val);
		/* The driver consumed events: room for those that found none. */
		eri_sim_qp_last_wqe_retry(sdev);
		break;
	case ERI_REG_SQ_DB:
	case ERI_REG_RQ_DB:
		if (eri_sim_reg(sdev, ERI_REG_DEV_STS) & ERI_REG_DEV_STS_READY)
			eri_sim_qp_doorbell(sdev,
					    FIELD_GET(ERI_REG_QP_DB_QPN, val),
					    off == ERI_REG_SQ_DB);
		break;
	default:
		if (off >= ERI_REG_CEQ_DB_BASE)
			eri_sim_eq_doorbell(sdev,
					    &sdev->ceq[(off - ERI_REG_CEQ_DB_BASE) / 4],
					    val);
		break;
	}
}

static int eri_sim_request_irq(struct eri_bus_dev *bdev, unsigned int vector,
			       irq_handler_t handler, void *data)
{
	struct eri_sim_dev *sdev = to_eri_sim_dev(bdev);
	struct eri_sim_vector *vec;
	unsigned long flags;
	int ret = 0;

	if (vector >= ERI_SIM_NUM_VECTORS || !handler)
		return -EINVAL;
	vec = &sdev->vec[vector];
	spin_lock_irqsave(&vec->lock, flags);
	if (vec->handler) {
		ret = -EBUSY;
	} else {
		vec->handler = handler;
		vec->data = data;
	}
	spin_unlock_irqrestore(&vec->lock, flags);
	return ret;
}

static void eri_sim_free_irq(struct eri_bus_dev *bdev, unsigned int vector)
{
	struct eri_sim_dev *sdev = to_eri_sim_dev(bdev);
	struct eri_sim_vector *vec;
	unsigned long flags;

	if (vector >= ERI_SIM_NUM_VECTORS)
		return;
	vec = &sdev->vec[vector];
	/* Delivery runs under the lock: once we hold it, no handler runs. */
	spin_lock_irqsave(&vec->lock, flags);
	vec->handler = NULL;
	vec->data = NULL;
	spin_unlock_irqrestore(&vec->lock, flags);
}

const struct eri_bus_ops eri_sim_bus_ops = {
	.reg_read32 = eri_sim_reg_read32,
	.reg_write32 = eri_sim_reg_write32,
	.request_irq = eri_sim_request_irq,
	.free_irq = eri_sim_free_irq,
};

/**
 * eri_sim_raise_irq - signal an interrupt vector
 * @sdev: the device
 * @vector: the vector
 *
 * Any context.  The handler runs later from the device's irq work.
 */
void eri_sim_raise_irq(struct eri_sim_dev *sdev, u32 vector)
{
	if (WARN_ON_ONCE(vector >= ERI_SIM_NUM_VECTORS))
		return;
	set_bit(vector, &sdev->irq_pending);
	queue_work(sdev->wq, &sdev->irq_work);
}

/* Run the handler of @vector, as the interrupt controller would. */
static void eri_sim_run_handler(struct eri_sim_dev *sdev, unsigned int vector)
{
	struct eri_sim_vector *vec = &sdev->vec[vector];
	unsigned long flags;

	/* Hard interrupt handlers run with interrupts off. */
	spin_lock_irqsave(&vec->lock, flags);
	if (vec->handler)
		vec->handler(vector, vec->data);
	spin_unlock_irqrestore(&vec->lock, flags);
}

/**
 * eri_sim_deliver_irq - signal an interrupt vector and run its handler now
 * @sdev: the device
 * @vector: the vector
 *
 * From the device's own work items only, holding no device lock: the
 * handler may write the device's registers.  Saves the hop through the
 * irq work that eri_sim_raise_irq() takes, for the admin queue, whose
 * every command waits for this interrupt.
 */
void eri_sim_deliver_irq(struct eri_sim_dev *sdev, u32 vector)
{
	if (WARN_ON_ONCE(vector >= ERI_SIM_NUM_VECTORS))
		return;
	eri_sim_run_handler(sdev, vector);
}

void eri_sim_irq_work(struct work_struct *work)
{
	struct eri_sim_dev *sdev = container_of(work, struct eri_sim_dev,
						irq_work);
	unsigned long pending = xchg(&sdev->irq_pending, 0);
	unsigned int vector;

	for_each_set_bit(vector, &pending, ERI_SIM_NUM_VECTORS)
		eri_sim_run_handler(sdev, vector);
}

/* Power-on state of a device: registers, locks and work items. */
void eri_sim_dev_init(struct eri_sim_dev *sdev)
{
	unsigned int i;

	memset(sdev->regs, 0, sizeof(sdev->regs));
	eri_sim_set_reg(sdev, ERI_REG_VERSION,
			FIELD_PREP(ERI_REG_VERSION_MAJOR, ERI_SPEC_VERSION_MAJOR) |
			FIELD_PREP(ERI_REG_VERSION_MINOR, ERI_SPEC_VERSION_MINOR));
	eri_sim_set_reg(sdev, ERI_REG_CAPS,
			FIELD_PREP(ERI_REG_CAPS_NUM_VECTORS, ERI_SIM_NUM_VECTORS) |
			FIELD_PREP(ERI_REG_CAPS_MAX_AQ_DEPTH_LOG,
				   ERI_SIM_MAX_AQ_DEPTH_LOG) |
			FIELD_PREP(ERI_REG_CAPS_MAX_EQ_DEPTH_LOG,
				   ERI_SIM_MAX_EQ_DEPTH_LOG) |
			FIELD_PREP(ERI_REG_CAPS_MAX_CEQS, ERI_SIM_MAX_CEQS));
	eri_sim_set_reg(sdev, ERI_REG_ADMIN_TIMEOUT_MS,
			ERI_SIM_ADMIN_TIMEOUT_MS);
	eri_sim_set_reg(sdev, ERI_REG_VENDOR_ID, ERI_SIM_VENDOR_ID);
	eri_sim_set_reg(sdev, ERI_REG_DEVICE_ID, ERI_SIM_DEVICE_ID);

	eri_sim_dma_init(sdev);
	for (i = 0; i < ERI_SIM_NUM_VECTORS; i++)
		spin_lock_init(&sdev->vec[i].lock);
	spin_lock_init(&sdev->aeq.lock);
	spin_lock_init(&sdev->last_wqe_lock);
	INIT_LIST_HEAD(&sdev->last_wqe_list);
	for (i = 0; i < ERI_SIM_MAX_CEQS; i++)
		spin_lock_init(&sdev->ceq[i].lock);
	spin_lock_init(&sdev->port_lock);
	xa_init(&sdev->mrs);
	xa_init(&sdev->cqs);
	xa_init(&sdev->qps);
	xa_init(&sdev->srqs);
	sdev->cc_algo = eri_sim_cc_default()->index;
	sdev->wire_version = ERI_WIRE_VERSION;
	sdev->fault.fail_status = ERI_AQ_STS_DMA_ERR;
	INIT_WORK(&sdev->ctl_work, eri_sim_ctl_work);
	INIT_WORK(&sdev->aq_work, eri_sim_aq_work);
	INIT_WORK(&sdev->irq_work, eri_sim_irq_work);
	INIT_WORK(&sdev->port_work, eri_sim_port_work);
}

/* Stop everything the driver configured; device context only. */
static void eri_sim_disable(struct eri_sim_dev *sdev)
{
	unsigned int i;

	eri_sim_eq_destroy(&sdev->aeq);
	/* QPs first: they complete into CQs and reach memory through MRs. */
	eri_sim_qps_destroy(sdev);
	eri_sim_srqs_destroy(sdev);
	eri_sim_cqs_destroy(sdev);
	for (i = 0; i < ERI_SIM_MAX_CEQS; i++)
		eri_sim_eq_destroy(&sdev->ceq[i]);
	eri_sim_mrs_destroy(sdev);
	sdev->cc_algo = eri_sim_cc_default()->index;
	memset(&sdev->aq, 0, sizeof(sdev->aq));
	memset(&sdev->port_reported, 0, sizeof(sdev->port_reported));
	sdev->irq_pending = 0;
	eri_sim_set_reg(sdev, ERI_REG_AQ_SQ_DB, 0);
	eri_sim_set_reg(sdev, ERI_REG_DEV_STS, 0);
}

/**
 * eri_sim_fatal - stop the device after an unrecoverable error
 * @sdev: the device
 * @err: the reason reported in DEV_STS
 *
 * Device context only.  Only a reset brings the device back.
 */
void eri_sim_fatal(struct eri_sim_dev *sdev, enum eri_dev_err err)
{
	eri_sim_disable(sdev);
	eri_sim_set_reg(sdev, ERI_REG_DEV_STS, ERI_REG_DEV_STS_FATAL |
			FIELD_PREP(ERI_REG_DEV_STS_ERR, err));
}

static enum eri_dev_err eri_sim_enable(struct eri_sim_dev *sdev)
{
	u64 sq = eri_sim_reg64(sdev, ERI_REG_AQ_SQ_BASE_LO,
			       ERI_REG_AQ_SQ_BASE_HI);
	u64 cq = eri_sim_reg64(sdev, ERI_REG_AQ_CQ_BASE_LO,
			       ERI_REG_AQ_CQ_BASE_HI);
	u32 depth_log = eri_sim_reg(sdev, ERI_REG_AQ_DEPTH_LOG);
	u32 eq_depth_log = eri_sim_reg(sdev, ERI_REG_AEQ_DEPTH_LOG);

	if (depth_log < 1 || depth_log > ERI_SIM_MAX_AQ_DEPTH_LOG)
		return ERI_DEV_ERR_BAD_AQ_CONFIG;
	sdev->aq.sq = eri_sim_dma_ptr(sdev, sq, ERI_AQ_SQE_SIZE << depth_log);
	sdev->aq.cq = eri_sim_dma_ptr(sdev, cq, ERI_AQ_CQE_SIZE << depth_log);
	if (!sdev->aq.sq || !sdev->aq.cq)
		return ERI_DEV_ERR_BAD_AQ_CONFIG;
	sdev->aq.depth_log = depth_log;
	sdev->aq.sq_ci = 0;
	sdev->aq.cq_pi = 0;

	if (eq_depth_log < 1 || eq_depth_log > ERI_SIM_MAX_EQ_DEPTH_LOG ||
	    eri_sim_eq_create(sdev, &sdev->aeq,
			      eri_sim_reg64(sdev, ERI_REG_AEQ_BASE_LO,
					    ERI_REG_AEQ_BASE_HI),
			      eri_sim_reg64(sdev, ERI_REG_AEQ_DBREC_LO,
					    ERI_REG_AEQ_DBREC_HI),
			      eq_depth_log, sizeof(struct eri_aeqe),
			      ERI_MGMT_VECTOR))
		return ERI_DEV_ERR_BAD_AEQ_CONFIG;
	return ERI_DEV_ERR_NONE;
}

/* DEV_CTL side effects: reset (self-clearing) and enable. */
void eri_sim_ctl_work(struct work_struct *work)
{
	struct eri_sim_dev *sdev = container_of(work, struct eri_sim_dev,
						ctl_work);
	enum eri_dev_err err;
	u32 ctl, sts;

	if (test_and_clear_bit(ERI_SIM_CTL_RESET, &sdev->ctl_requests)) {
		eri_sim_disable(sdev);
		/* RESET clears itself; an ENABLE written after it stays. */
		ctl = eri_sim_reg(sdev, ERI_REG_DEV_CTL);
		eri_sim_set_reg(sdev, ERI_REG_DEV_CTL,
				ctl & ~ERI_REG_DEV_CTL_RESET);
	}
	ctl = eri_sim_reg(sdev, ERI_REG_DEV_CTL);
	sts = eri_sim_reg(sdev, ERI_REG_DEV_STS);
	if (!(ctl & ERI_REG_DEV_CTL_ENABLE)) {
		if (sts & ERI_REG_DEV_STS_READY)
			eri_sim_disable(sdev);
		return;
	}
	if (sts & (ERI_REG_DEV_STS_READY | ERI_REG_DEV_STS_FATAL))
		return;
	err = eri_sim_enable(sdev);
	if (err) {
		eri_sim_fatal(sdev, err);
		return;
	}
	eri_sim_set_reg(sdev, ERI_REG_DEV_STS, ERI_REG_DEV_STS_READY);
	/* Announce the port as it is now. */
	queue_work(sdev->wq, &sdev->port_work);
}
