// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI completion event queues: one per interrupt vector beyond the
 * management vector, up to one per online CPU.  Each is created through the
 * admin queue and consumed in its vector's interrupt handler.
 */
#include <linux/bitfield.h>
#include <linux/slab.h>

#include "eri.h"

static void eri_ceq_arm(struct eri_dev *edev, struct eri_ceq *ceq)
{
	u32 db = FIELD_PREP(ERI_EQ_DB_CI, ceq->ci) | ERI_EQ_DB_ARM;

	ceq->dbrec->val = cpu_to_le64(FIELD_PREP(ERI_EQ_DB_CI, ceq->ci));
	/* Record before doorbell: the device may read the record at once. */
	wmb();
	eri_com_write32(&edev->com, ERI_REG_CEQ_DB(ceq->eqn), db);
}

static irqreturn_t eri_ceq_irq(int irq, void *data)
{
	struct eri_ceq *ceq = data;
	struct eri_ceqe *ring = ceq->ring.va;
	struct ib_cq *ibcq;

	for (;;) {
		struct eri_ceqe *e = &ring[eri_ring_slot(ceq->ci,
							  ERI_CEQ_DEPTH_LOG)];

		if (FIELD_GET(ERI_CEQE_HDR_OWNER,
			      le32_to_cpu(READ_ONCE(e->hdr))) !=
		    eri_ring_owner(ceq->ci, ERI_CEQ_DEPTH_LOG))
			break;
		/* Owner bit before the CQN; pairs with the device's dma_wmb(). */
		dma_rmb();
		xa_lock(&ceq->edev->cq_xa);
		ibcq = xa_load(&ceq->edev->cq_xa, le32_to_cpu(e->cqn));
		if (ibcq && ibcq->comp_handler)
			ibcq->comp_handler(ibcq, ibcq->cq_context);
		xa_unlock(&ceq->edev->cq_xa);
		ceq->ci++;
	}
	eri_ceq_arm(ceq->edev, ceq);
	return IRQ_HANDLED;
}

static int eri_ceq_create(struct eri_dev *edev, struct eri_ceq *ceq, u32 eqn)
{
	struct eri_bus_dev *bdev = edev->bdev;
	int ret;

	ceq->edev = edev;
	ceq->eqn = eqn;
	ceq->vector = eqn + 1;
	ceq->dbrec = eri_com_dbrec(&edev->com, ERI_COM_DBREC_CEQ(eqn));
	ret = eri_com_buf_alloc(&edev->com, &ceq->ring,
				BIT(ERI_CEQ_DEPTH_LOG) * sizeof(struct eri_ceqe));
	if (ret)
		return ret;
	ret = bdev->ops->request_irq(bdev, ceq->vector, eri_ceq_irq, ceq);
	if (ret)
		goto err_free_ring;
	ret = eri_com_create_eq(&edev->com, eqn, ceq->ring.dma,
				eri_com_dbrec_dma(&edev->com,
						  ERI_COM_DBREC_CEQ(eqn)),
				ERI_CEQ_DEPTH_LOG, ceq->vector);
	if (ret)
		goto err_free_irq;
	eri_ceq_arm(edev, ceq);
	return 0;

err_free_irq:
	bdev->ops->free_irq(bdev, ceq->vector);
err_free_ring:
	eri_com_buf_free(&edev->com, &ceq->ring);
	return ret;
}

static void eri_ceq_destroy(struct eri_dev *edev, struct eri_ceq *ceq)
{
	/* Once the device forgot the queue it neither writes nor signals it. */
	eri_com_destroy_eq(&edev->com, ceq->eqn);
	edev->bdev->ops->free_irq(edev->bdev, ceq->vector);
	eri_com_buf_free(&edev->com, &ceq->ring);
}

int eri_ceqs_init(struct eri_dev *edev)
{
	u32 caps = edev->com.caps;
	u32 n = min3(num_online_cpus(),
		     (unsigned int)FIELD_GET(ERI_REG_CAPS_MAX_CEQS, caps),
		     (unsigned int)FIELD_GET(ERI_REG_CAPS_NUM_VECTORS, caps) - 1);
	int ret;

	/* The doorbell record page holds the AEQ's and one per CEQ. */
	n = min_t(u32, n, PAGE_SIZE / sizeof(struct eri_dbrec) - 1);
	if (!n)
		return -ENODEV;
	edev->ceqs = kcalloc(n, sizeof(*edev->ceqs), GFP_KERNEL);
	if (!edev->ceqs)
		return -ENOMEM;
	for (edev->num_ceqs = 0; edev->num_ceqs < n; edev->num_ceqs++) {
		ret = eri_ceq_create(edev, &edev->ceqs[edev->num_ceqs],
				     edev->num_ceqs);
		if (ret)
			goto err_destroy_ceqs;
	}
	return 0;

err_destroy_ceqs:
	eri_ceqs_fini(edev);
	return ret;
}

void eri_ceqs_fini(struct eri_dev *edev)
{
	while (edev->num_ceqs)
		eri_ceq_destroy(edev, &edev->ceqs[--edev->num_ceqs]);
	kfree(edev->ceqs);
	edev->ceqs = NULL;
}
