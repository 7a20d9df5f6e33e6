// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI device communication layer.
 *
 * Brings the device up (reset, admin queue, async event queue, enable) and
 * runs admin commands: a submitter takes a slot, writes its command into the
 * submission ring, rings the doorbell and sleeps until the completion with
 * its cookie arrives or the device's admin timeout passes.  A timed-out slot
 * stays reserved until its late completion arrives (or the device is reset),
 * so a cookie is never matched to the wrong command, and so does the DMA
 * buffer of its command.  A device that leaves ERI_COM_MAX_TIMEOUTS commands
 * in a row unanswered, or says it failed, is declared dead: it is reset, so
 * it touches none of the driver's memory any more, and every later command
 * fails at once.
 */
#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/iopoll.h>
#include <linux/slab.h>

#include "eri_com.h"

int eri_com_buf_alloc(struct eri_com_dev *com, struct eri_com_buf *buf,
		      size_t size)
{
	buf->size = size;
	buf->va = dma_alloc_coherent(com->dmadev, size, &buf->dma, GFP_KERNEL);
	return buf->va ? 0 : -ENOMEM;
}

void eri_com_buf_free(struct eri_com_dev *com, struct eri_com_buf *buf)
{
	if (buf->va)
		dma_free_coherent(com->dmadev, buf->size, buf->va, buf->dma);
	buf->va = NULL;
}

/**
 * eri_com_pages_alloc - zeroed pages shared with the device
 * @com: the device
 * @buf: where they are described
 * @size: bytes, rounded up to whole pages
 * @gfp: GFP_KERNEL, or GFP_KERNEL_ACCOUNT for memory a process asked for
 *
 * Physically contiguous order-0 pages, as a process's mapping takes them
 * (vm_insert_page()), mapped for the device both ways for as long as they
 * are allocated: ERI devices are cache-coherent, so the CPU and the device
 * share them without syncs, as they share coherent memory.
 *
 * Return: 0 or -ENOMEM.
 */
int eri_com_pages_alloc(struct eri_com_dev *com, struct eri_com_buf *buf,
			size_t size, gfp_t gfp)
{
	buf->size = PAGE_ALIGN(size);
	buf->va = alloc_pages_exact(buf->size, gfp | __GFP_ZERO);
	if (!buf->va)
		return -ENOMEM;
	buf->dma = dma_map_single(com->dmadev, buf->va, buf->size,
				  DMA_BIDIRECTIONAL);
	if (dma_mapping_error(com->dmadev, buf->dma)) {
		free_pages_exact(buf->va, buf->size);
		buf->va = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * The device no longer uses the pages: unmap them for it and drop the
 * allocation's reference; a process's mapping keeps its own.
 */
void eri_com_pages_free(struct eri_com_dev *com, struct eri_com_buf *buf)
{
	if (!buf->va)
		return;
	dma_unmap_single(com->dmadev, buf->dma, buf->size, DMA_BIDIRECTIONAL);
	free_pages_exact(buf->va, buf->size);
	buf->va = NULL;
}

static int eri_com_reset(struct eri_com_dev *com);

static int eri_com_status_to_errno(u8 status)
{
	switch (status) {
	case ERI_AQ_STS_OK:
		return 0;
	case ERI_AQ_STS_BAD_OPCODE:
		return -EOPNOTSUPP;
	case ERI_AQ_STS_BAD_PARAM:
	case ERI_AQ_STS_BAD_STATE:
		return -EINVAL;
	case ERI_AQ_STS_NO_RESOURCE:
		return -ENOMEM;
	case ERI_AQ_STS_EXISTS:
		return -EEXIST;
	case ERI_AQ_STS_NOT_FOUND:
		return -ENOENT;
	case ERI_AQ_STS_DMA_ERR:
	default:
		return -EIO;
	}
}

static void eri_com_slot_release_locked(struct eri_com_dev *com,
					struct eri_com_aq_slot *slot)
{
	lockdep_assert_held(&com->aq.lock);
	slot->busy = false;
	slot->abandoned = false;
	clear_bit(slot - com->aq.slots, com->aq.slot_busy);
}

/* Consume every completion the device has written; any context. */
static void eri_com_aq_poll(struct eri_com_dev *com)
{
	u32 mask = BIT(com->aq.depth_log) - 1;
	struct eri_aq_cqe *ring = com->aq.cq.va;
	unsigned long flags;

	spin_lock_irqsave(&com->aq.lock, flags);
	for (;;) {
		struct eri_aq_cqe *cqe = &ring[com->aq.cq_ci & mask];
		u32 hdr = le32_to_cpu(READ_ONCE(cqe->hdr));
		struct eri_com_aq_slot *slot;
		u16 cookie;

		if (FIELD_GET(ERI_AQ_CQE_HDR_OWNER, hdr) !=
		    eri_ring_owner(com->aq.cq_ci, com->aq.depth_log))
			break;
		/* Owner bit before the response; pairs with the device's dma_wmb(). */
		dma_rmb();
		cookie = FIELD_GET(ERI_AQ_CQE_HDR_COOKIE, hdr);
		slot = &com->aq.slots[cookie & mask];
		com->aq.cq_ci++;
		if (!slot->busy || slot->cookie != cookie) {
			com->aq.stale_completions++;
			continue;
		}
		if (slot->abandoned) {
			/* Its submitter gave up: the slot is free again. */
			eri_com_slot_release_locked(com, slot);
			up(&com->aq.avail);
			continue;
		}
		slot->status = FIELD_GET(ERI_AQ_CQE_HDR_STATUS, hdr);
		memcpy(slot->resp, cqe->resp, sizeof(slot->resp));
		/* Answered in time: the device is alive, however slow before. */
		com->aq.timeouts = 0;
		complete(&slot->done);
	}
	spin_unlock_irqrestore(&com->aq.lock, flags);
}

/* The device says it failed, or forgot it was enabled. */
static bool eri_com_dev_failed(struct eri_com_dev *com)
{
	u32 sts = eri_com_read32(com, ERI_REG_DEV_STS);

	return (sts & ERI_REG_DEV_STS_FATAL) || !(sts & ERI_REG_DEV_STS_READY);
}

/*
 * @slot's command got no answer in time: leave the slot (and @buf, which the
 * device may still write) to the late completion, and count the timeout.
 * Return: the device is to be declared dead.
 */
static bool eri_com_abandon_locked(struct eri_com_dev *com,
				   struct eri_com_aq_slot *slot,
				   struct eri_com_buf *buf)
{
	lockdep_assert_held(&com->aq.lock);
	slot->abandoned = true;
	if (buf) {
		slot->orphan = *buf;
		buf->va = NULL;
	}
	return ++com->aq.timeouts >= ERI_COM_MAX_TIMEOUTS;
}

/**
 * eri_com_exec_buf - run one admin command that points the device at memory
 * @com: the device
 * @cmd: the command, starting with struct eri_aq_cmd_hdr with its opcode set
 * @cmd_size: bytes of @cmd, at most ERI_AQ_SQE_SIZE
 * @resp: where the completion's response goes, or NULL
 * @resp_size: bytes of @resp, at most 24
 * @buf: a DMA buffer the command names, or NULL
 *
 * Sleeps.  Commands from any number of threads run concurrently, up to the
 * admin queue's depth.  When the command times out, @buf passes to the
 * communication layer (it is freed once the device can no longer write it)
 * and @buf->va becomes NULL, so eri_com_buf_free() of it does nothing.
 *
 * Return: 0, the errno of the device's status, -ETIMEDOUT when the device
 * did not answer within its admin timeout (it may still execute the
 * command), or -EIO once the device is dead.
 */
int eri_com_exec_buf(struct eri_com_dev *com, void *cmd, size_t cmd_size,
		     void *resp, size_t resp_size, struct eri_com_buf *buf)
{
	unsigned long timeout = msecs_to_jiffies(com->admin_timeout_ms);
	u32 mask = BIT(com->aq.depth_log) - 1;
	u8 entry[ERI_AQ_SQE_SIZE] = {};
	struct eri_aq_cmd_hdr *hdr = (void *)entry;
	struct eri_com_aq_slot *slot;
	struct eri_com_buf orphan;
	unsigned long flags, left;
	unsigned int idx;
	bool dead;
	int ret;

	if (WARN_ON_ONCE(cmd_size > sizeof(entry) ||
			 resp_size > sizeof(slot->resp)))
		return -EINVAL;
	if (eri_com_is_dead(com))
		return -EIO;
	if (down_timeout(&com->aq.avail, timeout))
		return eri_com_is_dead(com) ? -EIO : -ETIMEDOUT;
	memcpy(entry, cmd, cmd_size);

	spin_lock_irqsave(&com->aq.lock, flags);
	if (com->dead) {
		spin_unlock_irqrestore(&com->aq.lock, flags);
		up(&com->aq.avail);
		return -EIO;
	}
	idx = find_first_zero_bit(com->aq.slot_busy, mask + 1);
	set_bit(idx, com->aq.slot_busy);
	slot = &com->aq.slots[idx];
	slot->busy = true;
	orphan = slot->orphan;
	slot->orphan.va = NULL;
	slot->cookie = (com->aq.generation++ << com->aq.depth_log) | idx;
	reinit_completion(&slot->done);
	hdr->hdr |= cpu_to_le32(FIELD_PREP(ERI_AQ_CMD_HDR_COOKIE, slot->cookie));
	memcpy(com->aq.sq.va + (com->aq.sq_pi & mask) * ERI_AQ_SQE_SIZE,
	       entry, sizeof(entry));
	com->aq.sq_pi++;
	/* Entry before doorbell: the device reads the ring once it sees it. */
	wmb();
	eri_com_write32(com, ERI_REG_AQ_SQ_DB,
			FIELD_PREP(ERI_REG_AQ_SQ_DB_PI, com->aq.sq_pi));
	spin_unlock_irqrestore(&com->aq.lock, flags);
	/* The slot's last command was answered: the device is done with it. */
	eri_com_buf_free(com, &orphan);

	left = wait_for_completion_timeout(&slot->done, timeout);

	spin_lock_irqsave(&com->aq.lock, flags);
	/* A completion may have come between the timeout and the lock. */
	if (!left && !try_wait_for_completion(&slot->done)) {
		dead = eri_com_abandon_locked(com, slot, buf);
		spin_unlock_irqrestore(&com->aq.lock, flags);
		dev_err_ratelimited(&com->bdev->adev.dev,
				    "admin command %lu timed out\n",
				    FIELD_GET(ERI_AQ_CMD_HDR_OPCODE,
					      le32_to_cpu(hdr->hdr)));
		if (dead || eri_com_dev_failed(com))
			eri_com_declare_dead(com);
		return -ETIMEDOUT;
	}
	/* Woken by eri_com_declare_dead(), or answered just before it. */
	ret = com->dead ? -EIO : eri_com_status_to_errno(slot->status);
	if (resp)
		memcpy(resp, slot->resp, resp_size);
	eri_com_slot_release_locked(com, slot);
	spin_unlock_irqrestore(&com->aq.lock, flags);
	up(&com->aq.avail);
	return ret;
}

/**
 * eri_com_exec - run one admin command
 * @com: the device
 * @cmd: the command, starting with struct eri_aq_cmd_hdr with its opcode set
 * @cmd_size: bytes of @cmd, at most ERI_AQ_SQE_SIZE
 * @resp: where the completion's response goes, or NULL
 * @resp_size: bytes of @resp, at most 24
 *
 * Sleeps.  As eri_com_exec_buf(), for commands that name no memory of their
 * own.
 *
 * Return: 0, the errno of the device's status, -ETIMEDOUT or -EIO.
 */
int eri_com_exec(struct eri_com_dev *com, void *cmd, size_t cmd_size,
		 void *resp, size_t resp_size)
{
	return eri_com_exec_buf(com, cmd, cmd_size, resp, resp_size, NULL);
}

/**
 * eri_com_declare_dead - give up on a device that stopped answering
 * @com: the device
 *
 * Sleeps.  Every command waiting for an answer fails with -EIO, and so does
 * every later one; the device is reset, so once eri_com_gone() returns it
 * touches none of the driver's memory.  The first call reports the death to
 * the fatal handler; later calls do nothing.
 */
void eri_com_declare_dead(struct eri_com_dev *com)
{
	u32 depth = BIT(com->aq.depth_log);
	unsigned int i;

	mutex_lock(&com->dead_lock);
	if (com->dead) {
		mutex_unlock(&com->dead_lock);
		return;
	}
	spin_lock_irq(&com->aq.lock);
	WRITE_ONCE(com->dead, true);
	for (i = 0; i < depth; i++) {
		struct eri_com_aq_slot *slot = &com->aq.slots[i];

		if (!slot->busy)
			continue;
		if (slot->abandoned) {
			/* Its answer will not come; its orphan waits for fini. */
			eri_com_slot_release_locked(com, slot);
			up(&com->aq.avail);
		} else {
			complete(&slot->done);
		}
	}
	spin_unlock_irq(&com->aq.lock);
	dev_err(&com->bdev->adev.dev,
		"device stopped answering admin commands: declared dead\n");
	if (eri_com_reset(com))
		dev_err(&com->bdev->adev.dev, "dead device did not reset\n");
	complete_all(&com->reset_done);
	mutex_unlock(&com->dead_lock);

	if (com->fatal_handler)
		com->fatal_handler(com->priv);
}

/**
 * eri_com_gone - whether the device is dead and done with the driver's memory
 * @com: the device
 *
 * Sleeps: waits for the reset of a device being declared dead.  Objects of a
 * dead device are destroyed by freeing the driver's side alone.
 *
 * Return: true when the device is dead.
 */
bool eri_com_gone(struct eri_com_dev *com)
{
	if (!eri_com_is_dead(com))
		return false;
	/* Its declarer completes it after the reset, which it has begun. */
	wait_for_completion(&com->reset_done);
	return true;
}

static bool eri_com_aeq_pending(struct eri_com_dev *com)
{
	u16 ci = READ_ONCE(com->aeq.ci);
	struct eri_aeqe *e = (struct eri_aeqe *)com->aeq.ring.va +
			     (ci & (BIT(com->aeq.depth_log) - 1));

	return FIELD_GET(ERI_AEQE_HDR_OWNER, le32_to_cpu(READ_ONCE(e->hdr))) ==
	       eri_ring_owner(ci, com->aeq.depth_log);
}

static void eri_com_aeq_work(struct work_struct *work)
{
	struct eri_com_dev *com = container_of(work, struct eri_com_dev,
					       aeq.work);
	u32 mask = BIT(com->aeq.depth_log) - 1;
	struct eri_aeqe *ring = com->aeq.ring.va;
	u16 ci = com->aeq.ci;

	for (;;) {
		struct eri_aeqe *e = &ring[ci & mask];
		struct eri_aeqe event;

		if (FIELD_GET(ERI_AEQE_HDR_OWNER, le32_to_cpu(READ_ONCE(e->hdr))) !=
		    eri_ring_owner(ci, com->aeq.depth_log))
			break;
		/* Owner bit before the body; pairs with the device's dma_wmb(). */
		dma_rmb();
		event = *e;
		com->event_handler(com->priv, &event);
		ci++;
	}
	WRITE_ONCE(com->aeq.ci, ci);
	com->aeq.dbrec->val = cpu_to_le64(FIELD_PREP(ERI_EQ_DB_CI, ci));
	/* Record before doorbell: the device may read the record at once. */
	wmb();
	eri_com_write32(com, ERI_REG_AEQ_DB,
			FIELD_PREP(ERI_EQ_DB_CI, ci) | ERI_EQ_DB_ARM);
}

static irqreturn_t eri_com_mgmt_irq(int irq, void *data)
{
	struct eri_com_dev *com = data;
	unsigned long flags;

	eri_com_aq_poll(com);
	/* Under the lock so eri_com_stop_events() can fence us out. */
	spin_lock_irqsave(&com->aq.lock, flags);
	if (com->aeq_enabled && eri_com_aeq_pending(com))
		queue_work(system_wq, &com->aeq.work);
	spin_unlock_irqrestore(&com->aq.lock, flags);
	return IRQ_HANDLED;
}

static int eri_com_wait_status(struct eri_com_dev *com, u32 mask, u32 want)
{
	u32 sts;
	int ret;

	ret = read_poll_timeout(eri_com_read32, sts,
				(sts & mask) == want ||
				(sts & ERI_REG_DEV_STS_FATAL),
				1000, ERI_COM_RESET_TIMEOUT_MS * 1000, false,
				com, ERI_REG_DEV_STS);
	if (ret)
		return ret;
	if ((sts & ERI_REG_DEV_STS_FATAL) && !(mask & ERI_REG_DEV_STS_FATAL)) {
		dev_err(&com->bdev->adev.dev, "device error %lu\n",
			FIELD_GET(ERI_REG_DEV_STS_ERR, sts));
		return -EIO;
	}
	return 0;
}

static int eri_com_reset(struct eri_com_dev *com)
{
	eri_com_write32(com, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_RESET);
	return eri_com_wait_status(com, ERI_REG_DEV_STS_READY |
				   ERI_REG_DEV_STS_RESETTING |
				   ERI_REG_DEV_STS_FATAL, 0);
}

static void eri_com_write64(struct eri_com_dev *com, u32 lo, u32 hi, u64 val)
{
	eri_com_write32(com, lo, lower_32_bits(val));
	eri_com_write32(com, hi, upper_32_bits(val));
}

static int eri_com_alloc_queues(struct eri_com_dev *com)
{
	u32 depth = BIT(com->aq.depth_log);
	unsigned int i;
	int ret;

	ret = eri_com_buf_alloc(com, &com->dbrecs, PAGE_SIZE);
	if (ret)
		return ret;
	ret = eri_com_buf_alloc(com, &com->aq.sq, depth * ERI_AQ_SQE_SIZE);
	if (ret)
		goto err_free_dbrecs;
	ret = eri_com_buf_alloc(com, &com->aq.cq, depth * ERI_AQ_CQE_SIZE);
	if (ret)
		goto err_free_sq;
	ret = eri_com_buf_alloc(com, &com->aeq.ring,
				BIT(com->aeq.depth_log) * sizeof(struct eri_aeqe));
	if (ret)
		goto err_free_cq;
	com->aq.slots = kcalloc(depth, sizeof(*com->aq.slots), GFP_KERNEL);
	if (!com->aq.slots) {
		ret = -ENOMEM;
		goto err_free_aeq;
	}
	com->aq.slot_busy = bitmap_zalloc(depth, GFP_KERNEL);
	if (!com->aq.slot_busy) {
		ret = -ENOMEM;
		goto err_free_slots;
	}
	for (i = 0; i < depth; i++)
		init_completion(&com->aq.slots[i].done);
	com->aeq.dbrec = eri_com_dbrec(com, ERI_COM_DBREC_AEQ);
	return 0;

err_free_slots:
	kfree(com->aq.slots);
err_free_aeq:
	eri_com_buf_free(com, &com->aeq.ring);
err_free_cq:
	eri_com_buf_free(com, &com->aq.cq);
err_free_sq:
	eri_com_buf_free(com, &com->aq.sq);
err_free_dbrecs:
	eri_com_buf_free(com, &com->dbrecs);
	return ret;
}

static void eri_com_free_queues(struct eri_com_dev *com)
{
	unsigned int i;

	/* The device is reset: the buffers of abandoned commands can go. */
	for (i = 0; i < BIT(com->aq.depth_log); i++)
		eri_com_buf_free(com, &com->aq.slots[i].orphan);
	bitmap_free(com->aq.slot_busy);
	kfree(com->aq.slots);
	eri_com_buf_free(com, &com->aeq.ring);
	eri_com_buf_free(com, &com->aq.cq);
	eri_com_buf_free(com, &com->aq.sq);
	eri_com_buf_free(com, &com->dbrecs);
}

/**
 * eri_com_init - reset the device and bring up its admin and event queues
 * @com: zeroed state to fill in
 * @bdev: the device
 * @event_handler: called from process context for every async event
 * @fatal_handler: called from process context when the device is declared
 *	dead (see eri_com_declare_dead())
 * @priv: for @event_handler and @fatal_handler
 *
 * Return: 0 with the device enabled, or a negative errno with the device
 * reset and nothing left allocated.
 */
int eri_com_init(struct eri_com_dev *com, struct eri_bus_dev *bdev,
		 void (*event_handler)(void *priv, const struct eri_aeqe *aeqe),
		 void (*fatal_handler)(void *priv), void *priv)
{
	struct device *dev = &bdev->adev.dev;
	u32 version;
	int ret;

	com->bdev = bdev;
	com->dmadev = bdev->dma_dev;
	com->event_handler = event_handler;
	com->fatal_handler = fatal_handler;
	com->priv = priv;
	spin_lock_init(&com->aq.lock);
	mutex_init(&com->dead_lock);
	init_completion(&com->reset_done);
	INIT_WORK(&com->aeq.work, eri_com_aeq_work);

	version = eri_com_read32(com, ERI_REG_VERSION);
	if (FIELD_GET(ERI_REG_VERSION_MAJOR, version) != ERI_SPEC_VERSION_MAJOR) {
		dev_err(dev, "unsupported device version %#x\n", version);
		return -ENODEV;
	}
	com->caps = eri_com_read32(com, ERI_REG_CAPS);
	com->admin_timeout_ms = clamp(eri_com_read32(com,
						     ERI_REG_ADMIN_TIMEOUT_MS),
				      100U, 60000U);
	com->aq.depth_log = min_t(u32, ERI_COM_AQ_DEPTH_LOG,
				  FIELD_GET(ERI_REG_CAPS_MAX_AQ_DEPTH_LOG,
					    com->caps));
	com->aeq.depth_log = min_t(u32, ERI_COM_AEQ_DEPTH_LOG,
				   FIELD_GET(ERI_REG_CAPS_MAX_EQ_DEPTH_LOG,
					     com->caps));
	if (!com->aq.depth_log || !com->aeq.depth_log ||
	    !FIELD_GET(ERI_REG_CAPS_NUM_VECTORS, com->caps)) {
		dev_err(dev, "unusable device capabilities %#x\n", com->caps);
		return -ENODEV;
	}
	sema_init(&com->aq.avail, BIT(com->aq.depth_log));

	ret = eri_com_reset(com);
	if (ret)
		return ret;
	ret = eri_com_alloc_queues(com);
	if (ret)
		return ret;
	ret = bdev->ops->request_irq(bdev, ERI_MGMT_VECTOR, eri_com_mgmt_irq,
				     com);
	if (ret)
		goto err_free_queues;

	eri_com_write64(com, ERI_REG_AQ_SQ_BASE_LO, ERI_REG_AQ_SQ_BASE_HI,
			com->aq.sq.dma);
	eri_com_write64(com, ERI_REG_AQ_CQ_BASE_LO, ERI_REG_AQ_CQ_BASE_HI,
			com->aq.cq.dma);
	eri_com_write32(com, ERI_REG_AQ_DEPTH_LOG, com->aq.depth_log);
	eri_com_write64(com, ERI_REG_AEQ_BASE_LO, ERI_REG_AEQ_BASE_HI,
			com->aeq.ring.dma);
	eri_com_write64(com, ERI_REG_AEQ_DBREC_LO, ERI_REG_AEQ_DBREC_HI,
			eri_com_dbrec_dma(com, ERI_COM_DBREC_AEQ));
	eri_com_write32(com, ERI_REG_AEQ_DEPTH_LOG, com->aeq.depth_log);
	eri_com_write32(com, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_ENABLE);
	ret = eri_com_wait_status(com, ERI_REG_DEV_STS_READY,
				  ERI_REG_DEV_STS_READY);
	if (ret)
		goto err_free_irq;

	spin_lock_irq(&com->aq.lock);
	com->aeq_enabled = true;
	spin_unlock_irq(&com->aq.lock);
	eri_com_write32(com, ERI_REG_AEQ_DB, ERI_EQ_DB_ARM);
	return 0;

err_free_irq:
	bdev->ops->free_irq(bdev, ERI_MGMT_VECTOR);
	eri_com_reset(com);
err_free_queues:
	eri_com_free_queues(com);
	return ret;
}

/**
 * eri_com_stop_events - stop handling async events
 * @com: the device
 *
 * Waits for an event handler that is running; admin commands still work.
 */
void eri_com_stop_events(struct eri_com_dev *com)
{
	spin_lock_irq(&com->aq.lock);
	com->aeq_enabled = false;
	spin_unlock_irq(&com->aq.lock);
	flush_work(&com->aeq.work);
}

/* Mirror of eri_com_init(), after eri_com_stop_events(). */
void eri_com_fini(struct eri_com_dev *com)
{
	/* After the reset the device touches none of our memory. */
	eri_com_reset(com);
	com->bdev->ops->free_irq(com->bdev, ERI_MGMT_VECTOR);
	eri_com_free_queues(com);
	mutex_destroy(&com->dead_lock);
}
