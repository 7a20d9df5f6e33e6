/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * eri_sim: a software implementation of the ERI device.
 *
 * It sees the driver only through the device interface (eri_bus.h and the
 * *_defs.h wire formats) and does the device's work in its own context: an
 * ordered workqueue per device executes control register writes and admin
 * commands, as a device's firmware would.
 */
#ifndef _ERI_SIM_H_
#define _ERI_SIM_H_

#include <linux/eri/eri_admin_defs.h>
#include <linux/eri/eri_bus.h>
#include <linux/eri/eri_io_defs.h>
#include <linux/eri/eri_regs_defs.h>
#include <linux/eri/eri_ring.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#define ERI_SIM_MAX_CEQS	16
#define ERI_SIM_NUM_VECTORS	(1 + ERI_SIM_MAX_CEQS)
#define ERI_SIM_MAX_AQ_DEPTH_LOG 8
#define ERI_SIM_MAX_EQ_DEPTH_LOG ERI_RING_MAX_DEPTH_LOG
#define ERI_SIM_ADMIN_TIMEOUT_MS 2000
/* No IEEE OUI is assigned to eri_sim (Documentation/infiniband/eri.rst). */
#define ERI_SIM_VENDOR_ID	0xffffff
#define ERI_SIM_DEVICE_ID	0x0e51
#define ERI_SIM_FW_VERSION	((1ULL << 32) | (0ULL << 16) | 0)
#define ERI_SIM_GID_TBL_LEN	16
#define ERI_SIM_MAX_MR		65536
#define ERI_SIM_MAX_PD		16384
#define ERI_SIM_MAX_QP		16384
#define ERI_SIM_MAX_CQ		16384
#define ERI_SIM_MAX_SRQ		4096
#define ERI_SIM_MAX_QP_WR_LOG	14
#define ERI_SIM_MAX_CQE_LOG	ERI_CQ_MAX_DEPTH_LOG
#define ERI_SIM_MR_MAX_PAGES	BIT(20)
#define ERI_SIM_MAX_FAST_REG_PAGES	1024
/* Address handles are the driver's (UD WQEs carry the address): a bound. */
#define ERI_SIM_MAX_AH		65536

struct eri_sim_mr;

/*
 * The region a batch of packets (a super-packet, one run of the requester)
 * looked up last, kept referenced until the batch ends: one lookup for all
 * its packets (eri_sim_mr_get_cached()).  Empty: @mr NULL.
 */
struct eri_sim_mr_cache {
	struct eri_sim_mr *mr;
	u32 index;		/* ERI_MR_KEY_INDEX of @mr's key */
};

/* A REG_MR work request, as the device copied it. */
struct eri_sim_reg_mr {
	u64 iova;
	u64 length;
	u64 pbl_addr;
	u32 npages;
	u32 page_shift;
	u32 access;
};

struct eri_sim_net;
struct eri_sim_skb_cur;
struct sk_buff;

/* Device counters, per CPU. */
struct eri_sim_stats {
	u64 v[ERI_STAT_NUM];
};

/* Bits of eri_sim_dev.ctl_requests. */
#define ERI_SIM_CTL_RESET	0

/* An interrupt vector: the handler the driver attached to it. */
struct eri_sim_vector {
	/* Serializes delivery against request_irq/free_irq. */
	spinlock_t lock;
	irq_handler_t handler;
	void *data;
};

/* Device side of an event queue (the AEQ or a CEQ). */
struct eri_sim_eq {
	/* Protects every field below: posting and doorbells race. */
	spinlock_t lock;
	bool valid;
	bool armed;
	void *ring;
	struct eri_dbrec *dbrec;
	u32 depth_log;
	u32 entry_size;
	u32 vector;
	u16 pi;			/* free-running producer index */
	u64 overflows;
};

/*
 * Admin queue faults injected on demand (debugfs, eri_sim_debugfs.c): what a
 * slow, lossy, stuck or failing device does to the driver.  Written by the
 * debugfs files, read in the device context; the counts count down there.
 */
struct eri_sim_fault {
	u32 delay_ms;		/* how late a delayed completion comes */
	atomic_t delay_next;	/* the next N completions come delay_ms late */
	atomic_t drop_next;	/* the next N commands run, never complete */
	atomic_t fail_next;	/* the next N commands fail without running */
	u8 fail_status;		/* ... with this enum eri_aq_status */
	bool stall;		/* no admin command is taken while set */
};

struct eri_sim_port {
	u32 state;		/* enum eri_port_state */
	u32 link_mtu;
	u32 speed_mbps;
};

struct eri_sim_dev {
	struct eri_bus_dev bus;
	struct device_dma_parameters dma_parms;
	/*
	 * The I/O address space (eri_sim_dma.c): bus page number to host
	 * page, and the next bus page a mapping may take.
	 */
	struct xarray iotlb;
	atomic_long_t dma_next_pfn;
	/* No DMA operations in this kernel: bus addresses are physical. */
	bool dma_direct;
	/* In eri_sim_devs; list and @removing under eri_sim_lock. */
	struct list_head list;
	bool removing;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	char ibdev_name[IB_DEVICE_NAME_MAX];

	/* Register file: the driver writes, the device context reads. */
	u32 regs[ERI_REGS_SIZE / sizeof(u32)];

	/* The device's execution context and its work items. */
	struct workqueue_struct *wq;
	/* Latched DEV_CTL requests (ERI_SIM_CTL_*), consumed by ctl_work. */
	unsigned long ctl_requests;
	struct work_struct ctl_work;
	struct work_struct aq_work;
	struct work_struct irq_work;
	struct work_struct port_work;

	/* Admin queue state, owned by the device context (@wq). */
	struct {
		u8 *sq;
		struct eri_aq_cqe *cq;
		u32 depth_log;
		u16 sq_ci;
		u16 cq_pi;
	} aq;

	struct eri_sim_eq aeq;
	struct eri_sim_eq ceq[ERI_SIM_MAX_CEQS];
	/*
	 * QPs whose QP_LAST_WQE found the AEQ full, posted again at the next
	 * AEQ doorbell.  The lock protects the list and the QPs' @last_wqe
	 * nodes; doorbells come in any context, so it is taken with
	 * interrupts off; aeq.lock nests inside it.
	 */
	spinlock_t last_wqe_lock;
	struct list_head last_wqe_list;

	/* Memory regions by key index; changed in the device context only. */
	struct xarray mrs;
	/* CQs by CQN and QPs by QPN; changed in the device context only. */
	struct xarray cqs;
	struct xarray qps;
	/* SRQs by SRQN; changed and read in the device context only. */
	struct xarray srqs;
	/* CC algorithm index of QPs created from now on (SET_CC); device context. */
	u8 cc_algo;
	/*
	 * The wire protocol version the device speaks and accepts:
	 * ERI_WIRE_VERSION, or another set through debugfs to play a peer of
	 * another version.
	 */
	u8 wire_version;
	/* Where queue pairs finish work their doorbells and ACKs started. */
	struct workqueue_struct *qp_wq;
	struct eri_sim_stats __percpu *stats;
	/* The UDP socket of the netdev's namespace; in its device list. */
	struct eri_sim_net *net;
	struct list_head net_node;

	/* Vectors to deliver, one bit each; set anywhere, cleared by irq_work. */
	unsigned long irq_pending;
	struct eri_sim_vector vec[ERI_SIM_NUM_VECTORS];

	/* Port state as last sampled from the netdev, under @port_lock. */
	spinlock_t port_lock;
	struct eri_sim_port port;
	/* Port state last announced with an async event (device context). */
	struct eri_sim_port port_reported;

	struct eri_sim_fault fault;
	/* This device's directory under eri_sim's debugfs root, or NULL. */
	struct dentry *debugfs;
};

static inline struct eri_sim_dev *to_eri_sim_dev(struct eri_bus_dev *bdev)
{
	return container_of(bdev, struct eri_sim_dev, bus);
}

static inline u32 eri_sim_reg(struct eri_sim_dev *sdev, u32 off)
{
	return READ_ONCE(sdev->regs[off / sizeof(u32)]);
}

static inline void eri_sim_set_reg(struct eri_sim_dev *sdev, u32 off, u32 val)
{
	WRITE_ONCE(sdev->regs[off / sizeof(u32)], val);
}

static inline u64 eri_sim_reg64(struct eri_sim_dev *sdev, u32 lo, u32 hi)
{
	return (u64)eri_sim_reg(sdev, hi) << 32 | eri_sim_reg(sdev, lo);
}

/* eri_sim_regs.c */
extern const struct eri_bus_ops eri_sim_bus_ops;
void eri_sim_dev_init(struct eri_sim_dev *sdev);
void eri_sim_ctl_work(struct work_struct *work);
void eri_sim_raise_irq(struct eri_sim_dev *sdev, u32 vector);
void eri_sim_deliver_irq(struct eri_sim_dev *sdev, u32 vector);
void eri_sim_irq_work(struct work_struct *work);
void eri_sim_fatal(struct eri_sim_dev *sdev, enum eri_dev_err err);

/* eri_sim_admin.c */
void eri_sim_aq_work(struct work_struct *work);

/* eri_sim_eq.c */
int eri_sim_eq_create(struct eri_sim_dev *sdev, struct eri_sim_eq *eq,
		      u64 ring_dma, u64 dbrec_dma, u32 depth_log,
		      u32 entry_size, u32 vector);
void eri_sim_eq_destroy(struct eri_sim_eq *eq);
void eri_sim_eq_doorbell(struct eri_sim_dev *sdev, struct eri_sim_eq *eq,
			 u32 val);
int eri_sim_aeq_post_again(struct eri_sim_dev *sdev, u8 type, u32 subject,
			   u64 data);
int eri_sim_aeq_post(struct eri_sim_dev *sdev, u8 type, u32 subject, u64 data);
int eri_sim_ceq_post(struct eri_sim_dev *sdev, u32 eqn, u32 cqn);

/* eri_sim_mr.c */
u8 eri_sim_reg_mr(struct eri_sim_dev *sdev, const struct eri_aq_reg_mr_cmd *cmd);
u8 eri_sim_dereg_mr(struct eri_sim_dev *sdev,
		    const struct eri_aq_dereg_mr_cmd *cmd);
void eri_sim_mrs_destroy(struct eri_sim_dev *sdev);
int eri_sim_mr_get(struct eri_sim_dev *sdev, u32 key, u32 pdn, u32 access,
		   u64 iova, u64 len, struct eri_sim_mr **mrp);
void eri_sim_mr_put(struct eri_sim_mr *mr);
int eri_sim_mr_get_cached(struct eri_sim_dev *sdev, struct eri_sim_mr_cache *c,
			  u32 key, u32 pdn, u32 access, u64 iova, u64 len,
			  struct eri_sim_mr **mrp);
void eri_sim_mr_put_cached(struct eri_sim_mr_cache *c, struct eri_sim_mr *mr);
void eri_sim_mr_cache_drop(struct eri_sim_mr_cache *c);
int eri_sim_mr_copy(struct eri_sim_dev *sdev, struct eri_sim_mr *mr, u64 iova,
		    void *buf, size_t len, bool to_mr);
int eri_sim_mr_place(struct eri_sim_dev *sdev, struct eri_sim_mr *mr, u64 iova,
		     struct eri_sim_skb_cur *cur, u32 off, size_t len);
int eri_sim_mr_attach(struct eri_sim_dev *sdev, struct eri_sim_mr *mr,
		      u64 iova, size_t len, struct sk_buff *skb);
int eri_sim_mr_atomic(struct eri_sim_dev *sdev, struct eri_sim_mr *mr,
		      u64 iova, u32 op, u64 swap_add, u64 compare, u64 *orig);
int eri_sim_mr_fast_reg(struct eri_sim_dev *sdev, u32 pdn, u32 key,
			const struct eri_sim_reg_mr *reg);
int eri_sim_mr_invalidate(struct eri_sim_dev *sdev, u32 pdn, u32 key);

/* eri_sim_skb.c */
/*
 * A reader's place in a received buffer (eri_sim_skb.c): the block, linear
 * part or page fragment of @skb, that holds byte @start of @root and the
 * bytes after it.
 */
struct eri_sim_skb_cur {
	const struct sk_buff *root;
	const struct sk_buff *skb;	/* @root, or one on its frag_list */
	u32 start;
	int frag;			/* -1: @skb's linear part */
};

void eri_sim_skb_cur_init(struct eri_sim_skb_cur *c, const struct sk_buff *skb);
int eri_sim_skb_cur_copy(struct eri_sim_skb_cur *c, u32 off, void *to,
			 u32 len);

/* eri_sim_dma.c */
void eri_sim_dma_init(struct eri_sim_dev *sdev);
int eri_sim_dma_attach(struct eri_sim_dev *sdev, struct device *dev);
void eri_sim_dma_fini(struct eri_sim_dev *sdev);
void *eri_sim_dma_ptr(struct eri_sim_dev *sdev, u64 addr, size_t len);
#if IS_ENABLED(CONFIG_KUNIT)
dma_addr_t eri_sim_dma_map(struct eri_sim_dev *sdev, struct page *page,
			   unsigned long offset, size_t size);
#endif

/* eri_sim_main.c */
void eri_sim_port_work(struct work_struct *work);

/* eri_sim_debugfs.c */
void eri_sim_debugfs_init(void);
void eri_sim_debugfs_exit(void);
void eri_sim_debugfs_add(struct eri_sim_dev *sdev);
void eri_sim_debugfs_remove(struct eri_sim_dev *sdev);

#endif /* _ERI_SIM_H_ */
