/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ERI device communication layer: reset and enable, the admin queue and the
 * async event queue.  It knows nothing of verbs.
 */
#ifndef _ERI_COM_H_
#define _ERI_COM_H_

#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/eri/eri_admin_defs.h>
#include <linux/eri/eri_bus.h>
#include <linux/eri/eri_io_defs.h>
#include <linux/eri/eri_regs_defs.h>
#include <linux/eri/eri_ring.h>
#include <linux/mutex.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#define ERI_COM_AQ_DEPTH_LOG	6
#define ERI_COM_AEQ_DEPTH_LOG	8
#define ERI_COM_RESET_TIMEOUT_MS 1000
/*
 * Admin commands in a row that the device leaves unanswered past its own
 * admin timeout before the device is declared dead.
 */
#define ERI_COM_MAX_TIMEOUTS	3

/*
 * A buffer shared with the device: DMA-coherent memory, or pages mapped
 * for the device (eri_com_pages_alloc()).
 */
struct eri_com_buf {
	void *va;
	dma_addr_t dma;
	size_t size;
};

/* One outstanding admin command. */
struct eri_com_aq_slot {
	struct completion done;
	u16 cookie;
	u8 status;
	bool busy;		/* a command owns the slot */
	bool abandoned;		/* its submitter timed out and left */
	u8 resp[24];
	/*
	 * The DMA buffer of an abandoned command: the device may still write
	 * it, so it is freed when the slot is next taken, or at fini.
	 */
	struct eri_com_buf orphan;
};

/**
 * struct eri_com_dev - one ERI device as the communication layer sees it
 * @bdev: the device's bus binding
 * @dmadev: device that DMA memory is allocated for
 * @caps: ERI_REG_CAPS as read at init
 * @admin_timeout_ms: admin command timeout from the device
 * @dbrecs: the event queues' doorbell records, one page of them
 * @aq: the admin queue; every field under @aq.lock
 * @aq.lock: taken in the interrupt handler and by submitters
 * @aq.avail: one count per free slot; submitters sleep on it
 * @aq.timeouts: commands in a row that timed out; an answer in time clears it
 * @dead: the device stopped answering and was reset; set under @dead_lock
 *	and @aq.lock, never cleared
 * @dead_lock: held while the device is declared dead and reset
 * @reset_done: completed, for good, once the dead device has been reset
 * @aeq: the async event queue, consumed only by @aeq.work
 * @aeq_enabled: the interrupt handler may schedule @aeq.work
 * @event_handler: called for each async event from @aeq.work
 * @fatal_handler: called once, in process context, when the device is
 *	declared dead
 * @priv: for @event_handler and @fatal_handler
 */
struct eri_com_dev {
	struct eri_bus_dev *bdev;
	struct device *dmadev;
	u32 caps;
	u32 admin_timeout_ms;
	struct eri_com_buf dbrecs;

	struct {
		spinlock_t lock;	/* irq handler vs. submitters */
		struct semaphore avail;
		struct eri_com_buf sq;
		struct eri_com_buf cq;
		struct eri_com_aq_slot *slots;
		unsigned long *slot_busy;
		u32 depth_log;
		u16 sq_pi;
		u16 cq_ci;
		u16 generation;
		unsigned int timeouts;
		u64 stale_completions;
	} aq;
	bool dead;
	struct mutex dead_lock;	/* serializes declaring the device dead */
	struct completion reset_done;

	struct {
		struct eri_com_buf ring;
		struct eri_dbrec *dbrec;
		struct work_struct work;
		u32 depth_log;
		u16 ci;
	} aeq;
	bool aeq_enabled;

	void (*event_handler)(void *priv, const struct eri_aeqe *aeqe);
	void (*fatal_handler)(void *priv);
	void *priv;
};

/* Doorbell records: one per event queue in one page. */
#define ERI_COM_DBREC_AEQ	0
#define ERI_COM_DBREC_CEQ(n)	(1 + (n))

static inline u32 eri_com_read32(struct eri_com_dev *com, u32 off)
{
	return com->bdev->ops->reg_read32(com->bdev, off);
}

static inline void eri_com_write32(struct eri_com_dev *com, u32 off, u32 val)
{
	com->bdev->ops->reg_write32(com->bdev, off, val);
}

int eri_com_buf_alloc(struct eri_com_dev *com, struct eri_com_buf *buf,
		      size_t size);
void eri_com_buf_free(struct eri_com_dev *com, struct eri_com_buf *buf);
int eri_com_pages_alloc(struct eri_com_dev *com, struct eri_com_buf *buf,
			size_t size, gfp_t gfp);
void eri_com_pages_free(struct eri_com_dev *com, struct eri_com_buf *buf);

int eri_com_init(struct eri_com_dev *com, struct eri_bus_dev *bdev,
		 void (*event_handler)(void *priv, const struct eri_aeqe *aeqe),
		 void (*fatal_handler)(void *priv), void *priv);
void eri_com_stop_events(struct eri_com_dev *com);
void eri_com_fini(struct eri_com_dev *com);

int eri_com_exec(struct eri_com_dev *com, void *cmd, size_t cmd_size,
		 void *resp, size_t resp_size);
int eri_com_exec_buf(struct eri_com_dev *com, void *cmd, size_t cmd_size,
		     void *resp, size_t resp_size, struct eri_com_buf *buf);
void eri_com_declare_dead(struct eri_com_dev *com);
bool eri_com_gone(struct eri_com_dev *com);

/* The device was declared dead: admin commands fail at once with -EIO. */
static inline bool eri_com_is_dead(const struct eri_com_dev *com)
{
	return READ_ONCE(com->dead);
}

static inline struct eri_dbrec *eri_com_dbrec(struct eri_com_dev *com,
					      unsigned int idx)
{
	return (struct eri_dbrec *)com->dbrecs.va + idx;
}

static inline dma_addr_t eri_com_dbrec_dma(struct eri_com_dev *com,
					   unsigned int idx)
{
	return com->dbrecs.dma + idx * sizeof(struct eri_dbrec);
}

#endif /* _ERI_COM_H_ */
