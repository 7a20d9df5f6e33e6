// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim: life cycle of software ERI devices.
 *
 * "rdma link add NAME type eri netdev DEV" creates a device bound to DEV and
 * offers it on the auxiliary bus, where the eri driver binds to it as it
 * would to a MoC PCI function.  The device goes away with "rdma link delete",
 * with its netdev, or with this module.
 */
#include <linux/bitfield.h>
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <rdma/rdma_netlink.h>

#include "eri_sim_qp.h"

#define CREATE_TRACE_POINTS
#include "eri_sim_trace.h"

/* Protects eri_sim_devs and the @removing flag of every device on it. */
static DEFINE_MUTEX(eri_sim_lock);
static LIST_HEAD(eri_sim_devs);

/*
 * Serializes creation against destruction of devices.  Taken outside
 * rtnl_lock (driver probe and remove take it) and outside eri_sim_lock.
 */
static DEFINE_MUTEX(eri_sim_create_lock);

/* Runs device removals that may not happen in the context asking for them. */
static struct workqueue_struct *eri_sim_remove_wq;
static struct device *eri_sim_root;
static DEFINE_IDA(eri_sim_ida);

struct eri_sim_remove_work {
	struct work_struct work;
	struct eri_sim_dev *sdev;
};

static struct eri_sim_dev *eri_sim_find_locked(const struct net_device *ndev,
					       const struct device *adev)
{
	struct eri_sim_dev *sdev;

	lockdep_assert_held(&eri_sim_lock);
	list_for_each_entry(sdev, &eri_sim_devs, list)
		if (sdev->netdev == ndev || &sdev->bus.adev.dev == adev)
			return sdev;
	return NULL;
}

/* Sample the netdev into the device's port state; rtnl_lock held. */
static void eri_sim_sample_port(struct eri_sim_dev *sdev)
{
	struct net_device *ndev = sdev->netdev;
	struct ethtool_link_ksettings ks;
	struct eri_sim_port port = {};

	ASSERT_RTNL();
	port.state = netif_running(ndev) && netif_carrier_ok(ndev) ?
		     ERI_PORT_ACTIVE : ERI_PORT_DOWN;
	port.link_mtu = READ_ONCE(ndev->mtu);
	if (!__ethtool_get_link_ksettings(ndev, &ks) &&
	    ks.base.speed != SPEED_UNKNOWN)
		port.speed_mbps = ks.base.speed;

	spin_lock_bh(&sdev->port_lock);
	sdev->port = port;
	spin_unlock_bh(&sdev->port_lock);
	queue_work(sdev->wq, &sdev->port_work);
}

/* Announce a port change with an async event; device context. */
void eri_sim_port_work(struct work_struct *work)
{
	struct eri_sim_dev *sdev = container_of(work, struct eri_sim_dev,
						port_work);
	struct eri_sim_port port;

	if (!(eri_sim_reg(sdev, ERI_REG_DEV_STS) & ERI_REG_DEV_STS_READY))
		return;
	spin_lock_bh(&sdev->port_lock);
	port = sdev->port;
	spin_unlock_bh(&sdev->port_lock);
	if (!memcmp(&port, &sdev->port_reported, sizeof(port)))
		return;
	if (!eri_sim_aeq_post(sdev, ERI_AEQE_PORT_CHANGE, 1, 0))
		sdev->port_reported = port;
}

static void eri_sim_adev_release(struct device *dev)
{
	struct eri_sim_dev *sdev =
		to_eri_sim_dev(to_eri_bus_dev(to_auxiliary_dev(dev)));

	kfree(sdev);
}

/* Undo eri_sim_dev_alloc() for a device that is off the bus. */
static void eri_sim_dev_free(struct eri_sim_dev *sdev)
{
	/* Its files queue work on @wq. */
	eri_sim_debugfs_remove(sdev);
	destroy_workqueue(sdev->wq);
	/* What a driver left behind without resetting the device. */
	eri_sim_qps_destroy(sdev);
	eri_sim_srqs_destroy(sdev);
	eri_sim_cqs_destroy(sdev);
	eri_sim_mrs_destroy(sdev);
	eri_sim_dma_fini(sdev);
	eri_sim_net_detach(sdev);
	destroy_workqueue(sdev->qp_wq);
	free_percpu(sdev->stats);
	netdev_put(sdev->netdev, &sdev->netdev_tracker);
	ida_free(&eri_sim_ida, sdev->bus.adev.id);
	auxiliary_device_uninit(&sdev->bus.adev);
}

static struct eri_sim_dev *eri_sim_dev_alloc(struct net_device *ndev,
					     const char *ibdev_name)
{
	struct auxiliary_device *adev;
	struct eri_sim_dev *sdev;
	int id, ret;

	sdev = kzalloc(sizeof(*sdev), GFP_KERNEL);
	if (!sdev)
		return ERR_PTR(-ENOMEM);
	id = ida_alloc(&eri_sim_ida, GFP_KERNEL);
	if (id < 0) {
		ret = id;
		goto err_free_sdev;
	}
	sdev->wq = alloc_ordered_workqueue("eri_sim%d", 0, id);
	if (!sdev->wq) {
		ret = -ENOMEM;
		goto err_free_id;
	}
	sdev->qp_wq = alloc_workqueue("eri_sim%d_qp", WQ_HIGHPRI, 0, id);
	if (!sdev->qp_wq) {
		ret = -ENOMEM;
		goto err_destroy_wq;
	}
	sdev->stats = alloc_percpu(struct eri_sim_stats);
	if (!sdev->stats) {
		ret = -ENOMEM;
		goto err_destroy_qp_wq;
	}
	strscpy(sdev->ibdev_name, ibdev_name, sizeof(sdev->ibdev_name));
	eri_sim_dev_init(sdev);

	sdev->netdev = ndev;
	ret = eri_sim_net_attach(sdev);
	if (ret)
		goto err_free_stats;
	netdev_hold(ndev, &sdev->netdev_tracker, GFP_KERNEL);
	sdev->bus.ops = &eri_sim_bus_ops;
	sdev->bus.netdev = ndev;
	sdev->bus.ibdev_name = sdev->ibdev_name;
	sdev->bus.user_removable = true;

	adev = &sdev->bus.adev;
	adev->name = ERI_AUX_DEV_NAME;
	adev->id = id;
	adev->dev.parent = eri_sim_root;
	adev->dev.release = eri_sim_adev_release;
	ret = auxiliary_device_init(adev);
	if (ret)
		goto err_put_netdev;
	/* From here on the release callback frees @sdev. */
	sdev->bus.dma_dev = &adev->dev;
	adev->dev.dma_parms = &sdev->dma_parms;
	ret = eri_sim_dma_attach(sdev, &adev->dev);
	if (ret) {
		eri_sim_dev_free(sdev);
		return ERR_PTR(ret);
	}
	return sdev;

err_put_netdev:
	netdev_put(ndev, &sdev->netdev_tracker);
	eri_sim_net_detach(sdev);
err_free_stats:
	free_percpu(sdev->stats);
err_destroy_qp_wq:
	destroy_workqueue(sdev->qp_wq);
err_destroy_wq:
	destroy_workqueue(sdev->wq);
err_free_id:
	ida_free(&eri_sim_ida, id);
err_free_sdev:
	kfree(sdev);
	return ERR_PTR(ret);
}

/* Take a device off the bus and free it; eri_sim_create_lock held. */
static void eri_sim_dev_destroy(struct eri_sim_dev *sdev)
{
	lockdep_assert_held(&eri_sim_create_lock);
	auxiliary_device_delete(&sdev->bus.adev);
	mutex_lock(&eri_sim_lock);
	list_del(&sdev->list);
	mutex_unlock(&eri_sim_lock);
	eri_sim_dev_free(sdev);
}

static void eri_sim_remove_work(struct work_struct *work)
{
	struct eri_sim_remove_work *rw =
		container_of(work, struct eri_sim_remove_work, work);

	mutex_lock(&eri_sim_create_lock);
	eri_sim_dev_destroy(rw->sdev);
	mutex_unlock(&eri_sim_create_lock);
	kfree(rw);
}

/*
 * Queue the removal of @sdev unless it is already going away.  Called from
 * contexts that may not remove it themselves (netdev notifier, IB client).
 */
static void eri_sim_queue_remove_locked(struct eri_sim_dev *sdev)
{
	struct eri_sim_remove_work *rw;

	lockdep_assert_held(&eri_sim_lock);
	if (sdev->removing)
		return;
	rw = kmalloc(sizeof(*rw), GFP_KERNEL);
	if (!rw)
		return;	/* the device stays until the module goes */
	sdev->removing = true;
	rw->sdev = sdev;
	INIT_WORK(&rw->work, eri_sim_remove_work);
	queue_work(eri_sim_remove_wq, &rw->work);
}

static bool eri_sim_netdev_usable(const struct net_device *ndev)
{
	return ndev->type == ARPHRD_ETHER && !(ndev->flags & IFF_LOOPBACK);
}

static int eri_sim_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct ib_device *ibdev;
	struct eri_sim_dev *sdev;
	bool queued = false;
	bool bound;
	int ret;

	if (!eri_sim_netdev_usable(ndev))
		return -EOPNOTSUPP;
	/* Finish removals already asked for, so their names and netdevs are free. */
	flush_workqueue(eri_sim_remove_wq);

	mutex_lock(&eri_sim_create_lock);
	ibdev = ib_device_get_by_name(ibdev_name, RDMA_DRIVER_UNKNOWN);
	if (ibdev) {
		ib_device_put(ibdev);
		ret = -EEXIST;
		goto out_unlock;
	}
	sdev = eri_sim_dev_alloc(ndev, ibdev_name);
	if (IS_ERR(sdev)) {
		ret = PTR_ERR(sdev);
		goto out_unlock;
	}

	mutex_lock(&eri_sim_lock);
	if (eri_sim_find_locked(ndev, NULL)) {
		mutex_unlock(&eri_sim_lock);
		eri_sim_dev_free(sdev);
		ret = -EEXIST;
		goto out_unlock;
	}
	list_add_tail(&sdev->list, &eri_sim_devs);
	mutex_unlock(&eri_sim_lock);

	rtnl_lock();
	eri_sim_sample_port(sdev);
	rtnl_unlock();

	ret = auxiliary_device_add(&sdev->bus.adev);
	if (ret) {
		mutex_lock(&eri_sim_lock);
		list_del(&sdev->list);
		mutex_unlock(&eri_sim_lock);
		eri_sim_dev_free(sdev);
		goto out_unlock;
	}
	/* Named by the add; the driver may already use the device. */
	eri_sim_debugfs_add(sdev);
	/* The driver probes synchronously when it is loaded. */
	device_lock(&sdev->bus.adev.dev);
	bound = sdev->bus.adev.dev.driver;
	device_unlock(&sdev->bus.adev.dev);
	if (!bound) {
		/*
		 * A probe that registered the IB device and then failed
		 * unregistered it, and our IB client queued the device's
		 * removal: that work frees it, once we let go of
		 * eri_sim_create_lock; wait for it.
		 */
		mutex_lock(&eri_sim_lock);
		queued = sdev->removing;
		sdev->removing = true;
		mutex_unlock(&eri_sim_lock);
		if (!queued)
			eri_sim_dev_destroy(sdev);
		ret = -ENODEV;
		goto out_unlock;
	}
	ret = 0;
out_unlock:
	mutex_unlock(&eri_sim_create_lock);
	if (queued)
		flush_workqueue(eri_sim_remove_wq);
	return ret;
}

static struct rdma_link_ops eri_sim_link_ops = {
	.type = "eri",
	.newlink = eri_sim_newlink,
};

static int eri_sim_netdev_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct eri_sim_dev *sdev;

	mutex_lock(&eri_sim_lock);
	sdev = eri_sim_find_locked(ndev, NULL);
	if (!sdev || sdev->removing)
		goto out;
	switch (event) {
	case NETDEV_UNREGISTER:
		eri_sim_queue_remove_locked(sdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		eri_sim_sample_port(sdev);
		break;
	default:
		break;
	}
out:
	mutex_unlock(&eri_sim_lock);
	return NOTIFY_DONE;
}

static struct notifier_block eri_sim_netdev_nb = {
	.notifier_call = eri_sim_netdev_event,
};

/*
 * The IB client tells us when an ERI device was unregistered from above
 * ("rdma link delete"): the device behind it then goes away too.
 */
static int eri_sim_ib_add(struct ib_device *ibdev)
{
	int ret;

	mutex_lock(&eri_sim_lock);
	ret = eri_sim_find_locked(NULL, ibdev->dev.parent) ? 0 : -EOPNOTSUPP;
	mutex_unlock(&eri_sim_lock);
	return ret;
}

static void eri_sim_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct eri_sim_dev *sdev;

	mutex_lock(&eri_sim_lock);
	sdev = eri_sim_find_locked(NULL, ibdev->dev.parent);
	if (sdev)
		eri_sim_queue_remove_locked(sdev);
	mutex_unlock(&eri_sim_lock);
}

static struct ib_client eri_sim_ib_client = {
	.name = "eri_sim",
	.add = eri_sim_ib_add,
	.remove = eri_sim_ib_remove,
	/* Uses no verbs: it must see devices without kernel verbs too. */
	.no_kverbs_req = true,
};

static void eri_sim_destroy_all(void)
{
	struct eri_sim_dev *sdev, *next;
	LIST_HEAD(doomed);

	flush_workqueue(eri_sim_remove_wq);
	mutex_lock(&eri_sim_create_lock);
	mutex_lock(&eri_sim_lock);
	list_for_each_entry(sdev, &eri_sim_devs, list)
		sdev->removing = true;
	list_splice_init(&eri_sim_devs, &doomed);
	mutex_unlock(&eri_sim_lock);
	list_for_each_entry_safe(sdev, next, &doomed, list) {
		auxiliary_device_delete(&sdev->bus.adev);
		list_del(&sdev->list);
		eri_sim_dev_free(sdev);
	}
	mutex_unlock(&eri_sim_create_lock);
}

static int __init eri_sim_init(void)
{
	int ret;

	ret = eri_sim_cc_register_builtins();
	if (ret)
		return ret;
	eri_sim_remove_wq = alloc_workqueue("eri_sim_remove", WQ_UNBOUND, 0);
	if (!eri_sim_remove_wq) {
		ret = -ENOMEM;
		goto err_unregister_cc;
	}
	ret = eri_sim_net_init();
	if (ret)
		goto err_destroy_wq;
	eri_sim_root = root_device_register("eri_sim");
	if (IS_ERR(eri_sim_root)) {
		ret = PTR_ERR(eri_sim_root);
		goto err_net_exit;
	}
	eri_sim_debugfs_init();
	ret = ib_register_client(&eri_sim_ib_client);
	if (ret)
		goto err_unregister_root;
	ret = register_netdevice_notifier(&eri_sim_netdev_nb);
	if (ret)
		goto err_unregister_client;
	rdma_link_register(&eri_sim_link_ops);
	return 0;

err_unregister_client:
	ib_unregister_client(&eri_sim_ib_client);
err_unregister_root:
	eri_sim_debugfs_exit();
	root_device_unregister(eri_sim_root);
err_net_exit:
	eri_sim_net_exit();
err_destroy_wq:
	destroy_workqueue(eri_sim_remove_wq);
err_unregister_cc:
	eri_sim_cc_unregister_builtins();
	return ret;
}

static void __exit eri_sim_exit(void)
{
	rdma_link_unregister(&eri_sim_link_ops);
	unregister_netdevice_notifier(&eri_sim_netdev_nb);
	eri_sim_destroy_all();
	ib_unregister_client(&eri_sim_ib_client);
	eri_sim_debugfs_exit();
	root_device_unregister(eri_sim_root);
	eri_sim_net_exit();
	destroy_workqueue(eri_sim_remove_wq);
	ida_destroy(&eri_sim_ida);
	eri_sim_cc_unregister_builtins();
}

module_init(eri_sim_init);
module_exit(eri_sim_exit);

MODULE_DESCRIPTION("Software ERI device");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_LINK("eri");
/* The driver for the devices this module creates. */
MODULE_SOFTDEP("post: eri");
