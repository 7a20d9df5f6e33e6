/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ERI on kernels older than the one its sources are written for (6.12).
 *
 * Out-of-tree builds force-include this header into every file; the upstream
 * tree has none of it.  compat/eri-compat.sh tells which of its parts apply,
 * by ERI_COMPAT_* flags from the kernel's headers.  Each part is written so
 * that the driver's code reads as on 6.12: a function the kernel lacks is
 * supplied under its own name, a changed signature is adapted by a wrapper.
 * The kernel headers it includes come before a file's own includes, so no
 * file it is forced into may define pr_fmt (none of the drivers' does).
 */
#ifndef ERI_COMPAT_H
#define ERI_COMPAT_H

#ifdef ERI_COMPAT_NO_DRIVER_ID
/*
 * The upstream series adds RDMA_DRIVER_ERI to enum rdma_driver_id
 * (include/uapi/rdma/ib_user_ioctl_verbs.h) as its next entry; rdma-core
 * takes the enum from there.  Out of tree it is 64, far above the entries
 * allocated so far, as in rdma-core's copy of the enum that
 * scripts/rdma-core.sh patches (compat/eri-compat.sh driver-id).
 */
#define RDMA_DRIVER_ERI 64
#endif

#ifdef ERI_COMPAT_NO_KUNIT_CASE_SLOW
/* Linux 6.6: slow cases are marked so; older KUnit runs them all alike. */
#define KUNIT_CASE_SLOW(test_name) KUNIT_CASE(test_name)
#endif

#ifdef ERI_COMPAT_NO_DST_RTABLE
/* Linux 6.11: a route's rtable from its dst_entry, its first member. */
#define dst_rtable(_ptr) container_of(_ptr, struct rtable, dst)
#endif

#ifdef ERI_COMPAT_NO_VM_FLAGS_MOD
#include <linux/mm.h>

/* Linux 6.3: a VMA's flags are written through helpers. */
static inline void vm_flags_mod(struct vm_area_struct *vma, vm_flags_t set,
				vm_flags_t clear)
{
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
}
#endif

#ifdef ERI_COMPAT_NO_ACCESS_FLUSH
#include <linux/bits.h>
#include <rdma/ib_verbs.h>

/*
 * Linux 6.2: the FLUSH rights (bits 8 and 9 of the uverbs access flags) are
 * in IB_ACCESS_SUPPORTED.  rdma-core sends them to older kernels too.
 */
#define IB_ACCESS_SUPPORTED (IB_ACCESS_SUPPORTED | GENMASK(9, 8))
#endif

#ifdef ERI_COMPAT_CREATE_CQ_UDATA
#include <linux/container_of.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * Linux 6.11: create_cq gets the uverbs attribute bundle instead of its
 * driver udata.  The driver's eri_create_cq() takes the bundle; the op is
 * a wrapper of the older signature under the same name, which it finds in
 * the ops table: only a name followed by "(" is renamed by the macro.
 * Older kernels pass the driver_udata of a bundle, or NULL for a kernel CQ.
 */
#define eri_create_cq(...) eri_create_cq_attrs(__VA_ARGS__)

int eri_create_cq_attrs(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			struct uverbs_attr_bundle *attrs);

static inline int (eri_create_cq)(struct ib_cq *ibcq,
				  const struct ib_cq_init_attr *attr,
				  struct ib_udata *udata)
{
	return eri_create_cq_attrs(ibcq, attr, udata ?
				   container_of(udata, struct uverbs_attr_bundle,
						driver_udata) : NULL);
}
#endif

#ifdef ERI_COMPAT_GET_NETDEV
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

/*
 * Linux 6.12: ULPs ask the core for a port's netdev.  Before, net/smc asks
 * the driver's get_netdev op alone; it answers with the netdev the driver
 * gave the core by ib_device_set_netdev(), as the core itself would.
 */
static inline struct net_device *eri_compat_get_netdev(struct ib_device *ibdev,
						       u32 port)
{
	struct ib_port_data *pdata = &ibdev->port_data[port];
	struct net_device *ndev;

	/* The lock ib_device_set_netdev() writes the pointer under. */
	spin_lock(&pdata->netdev_lock);
	ndev = rcu_dereference_protected(pdata->netdev,
					 lockdep_is_held(&pdata->netdev_lock));
	dev_hold(ndev);
	spin_unlock(&pdata->netdev_lock);
	return ndev;
}

static inline void eri_compat_set_device_ops(struct ib_device *ibdev,
					     const struct ib_device_ops *ops)
{
	ib_set_device_ops(ibdev, ops);
	if (!ibdev->ops.get_netdev)
		ibdev->ops.get_netdev = eri_compat_get_netdev;
}

#define ib_set_device_ops(ibdev, ops) eri_compat_set_device_ops(ibdev, ops)
#endif

#endif /* ERI_COMPAT_H */
