/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* ERI: the ib_device on top of an ERI device. */
#ifndef _ERI_H_
#define _ERI_H_

#include <linux/idr.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "eri_com.h"
#include "eri_com_cmd.h"

#define ERI_CEQ_DEPTH_LOG	12

/* A completion event queue and the vector it is signalled on. */
struct eri_ceq {
	struct eri_dev *edev;
	struct eri_com_buf ring;
	struct eri_dbrec *dbrec;
	u32 eqn;
	u32 vector;
	u16 ci;			/* only the vector's handler touches it */
};

/**
 * struct eri_dev - an ERI RDMA device
 * @ibdev: the IB device
 * @bdev: the device's bus binding
 * @com: the device communication layer
 * @attr: capabilities the device reported at probe
 * @port_lock: protects @port and @registered
 * @port: port attributes as last queried from the device
 * @registered: the IB device is registered, port events may be reported
 * @ceqs: the completion event queues, @num_ceqs of them
 * @num_ceqs: how many completion event queues there are
 * @cq_xa: CQs by CQN, for completion and async events; its lock is taken
 *	in the CEQ interrupt handler, so elsewhere with interrupts off.  It
 *	allocates the CQNs: a CQN in use but not (or no longer) known to the
 *	device holds a reserved (NULL) entry.
 * @qp_xa: QPs by QPN, for completions and async events; allocates the QPNs
 *	as @cq_xa does the CQNs
 * @srq_xa: SRQs by SRQN, for async events and the completions of destroyed
 *	QPs; its lock is taken under a CQ's lock, so with interrupts off.
 *	Allocates the SRQNs as @cq_xa does the CQNs.
 * @pd_ida: PD numbers
 * @mr_ida: MR key indexes
 * @cq_next: the CQN the next search for a free one starts at
 * @qp_next: the QPN the next search for a free one starts at
 * @srq_next: the SRQN the next search for a free one starts at
 * @mr_variant: the variant byte of the next MR key
 * @cc_lock: serializes SET_CC and QUERY_CC commands; protects @cc_algo
 *	and @cc_names
 * @cc_algo: the algorithm index the device gives new QPs
 * @cc_names: the device's algorithms by index, from QUERY_CC (or "cc<n>"
 *	without ERI_DEV_CAP_CC_NAMES); "" where it has none
 * @num_ah: address handles in existence, at most attr.max_ah
 */
struct eri_dev {
	struct ib_device ibdev;
	struct eri_bus_dev *bdev;
	struct eri_com_dev com;
	struct eri_com_dev_attr attr;
	spinlock_t port_lock;	/* protects @port and @registered */
	struct eri_com_port_attr port;
	bool registered;
	struct eri_ceq *ceqs;
	u32 num_ceqs;
	struct xarray cq_xa;
	struct xarray qp_xa;
	struct xarray srq_xa;
	struct ida pd_ida;
	struct ida mr_ida;
	/* xa_alloc_cyclic() moves these under the lock of their xarray. */
	u32 cq_next;
	u32 qp_next;
	u32 srq_next;
	atomic_t mr_variant;
	struct mutex cc_lock;	/* serializes SET_CC, QUERY_CC; see above */
	u8 cc_algo;
	char cc_names[ERI_CC_MAX_ALGOS][ERI_CC_NAME_MAX];
	atomic_t num_ah;
};

static inline struct eri_dev *to_eri_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct eri_dev, ibdev);
}

/* eri_cc.c */
extern const struct attribute_group eri_cc_attr_group;
int eri_cc_init(struct eri_dev *edev);
void eri_cc_name(struct eri_dev *edev, u32 algo, char *name);
bool eri_cc_qp_ok(const struct eri_qp_cc *cc);

/* eri_eq.c */
int eri_ceqs_init(struct eri_dev *edev);
void eri_ceqs_fini(struct eri_dev *edev);

/* eri_main.c */
int eri_probe(struct eri_bus_dev *bdev);
void eri_remove(struct eri_bus_dev *bdev);
int eri_aux_driver_register(void);
void eri_aux_driver_unregister(void);

#endif /* _ERI_H_ */
