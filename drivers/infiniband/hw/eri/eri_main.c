// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI: probe and remove of an ERI device, written as mirror images, and
 * the handling of its async events.
 */
#include <linux/bitfield.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <net/addrconf.h>
#include <rdma/eri-abi.h>

#include "eri.h"
#include "eri_verbs.h"

/*
 * Undo what probe set up beneath the IB device.  The core calls this once the
 * IB device is unregistered, by remove or by the user (rdma link delete), and
 * from ib_dealloc_device() on probe's late error paths.
 */
static void eri_dealloc_driver(struct ib_device *ibdev)
{
	struct eri_dev *edev = to_eri_dev(ibdev);

	/* A death from here on has no IB device to report on. */
	spin_lock(&edev->port_lock);
	edev->registered = false;
	spin_unlock(&edev->port_lock);
	eri_com_stop_events(&edev->com);
	eri_ceqs_fini(edev);
	eri_com_fini(&edev->com);
	ida_destroy(&edev->mr_ida);
	ida_destroy(&edev->pd_ida);
	xa_destroy(&edev->srq_xa);
	xa_destroy(&edev->qp_xa);
	xa_destroy(&edev->cq_xa);
}

static const struct ib_device_ops eri_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_ERI,
	.uverbs_abi_ver = ERI_UVERBS_ABI_VERSION,

	.alloc_hw_device_stats = eri_alloc_hw_device_stats,
	.alloc_hw_port_stats = eri_alloc_hw_port_stats,
	.alloc_mr = eri_alloc_mr,
	.alloc_pd = eri_alloc_pd,
	.alloc_ucontext = eri_alloc_ucontext,
	.create_ah = eri_create_ah,
	.create_cq = eri_create_cq,
	.create_qp = eri_create_qp,
	.create_srq = eri_create_srq,
	.create_user_ah = eri_create_ah,
	.dealloc_driver = eri_dealloc_driver,
	.dealloc_pd = eri_dealloc_pd,
	.dealloc_ucontext = eri_dealloc_ucontext,
	.dereg_mr = eri_dereg_mr,
	.destroy_ah = eri_destroy_ah,
	.destroy_cq = eri_destroy_cq,
	.destroy_qp = eri_destroy_qp,
	.destroy_srq = eri_destroy_srq,
	.disassociate_ucontext = eri_disassociate_ucontext,
	.device_group = &eri_cc_attr_group,
	.fill_res_qp_entry = eri_fill_res_qp_entry,
	.fill_res_srq_entry = eri_fill_res_srq_entry,
	.get_dev_fw_str = eri_get_dev_fw_str,
	.get_dma_mr = eri_get_dma_mr,
	.get_hw_stats = eri_get_hw_stats,
	.get_link_layer = eri_get_link_layer,
	.get_port_immutable = eri_get_port_immutable,
	.map_mr_sg = eri_map_mr_sg,
	.mmap = eri_mmap,
	.mmap_free = eri_mmap_free,
	.modify_qp = eri_modify_qp,
	.modify_srq = eri_modify_srq,
	.poll_cq = eri_poll_cq,
	.post_recv = eri_post_recv,
	.post_send = eri_post_send,
	.post_srq_recv = eri_post_srq_recv,
	.query_device = eri_query_device,
	.query_pkey = eri_query_pkey,
	.query_port = eri_query_port,
	.query_qp = eri_query_qp,
	.query_srq = eri_query_srq,
	.reg_user_mr = eri_reg_user_mr,
	.req_notify_cq = eri_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, eri_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, eri_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, eri_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, eri_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, eri_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, eri_ucontext, ibucontext),
};

/* Refresh the cached port attributes; report a state change as an event. */
static void eri_port_refresh(struct eri_dev *edev)
{
	struct eri_com_port_attr pa;
	struct ib_event event = {};
	bool changed;

	if (eri_com_query_port(&edev->com, &pa))
		return;
	spin_lock(&edev->port_lock);
	changed = edev->port.state != pa.state;
	edev->port = pa;
	/* The core has no port to report on before registration ends. */
	changed &= edev->registered;
	spin_unlock(&edev->port_lock);
	if (!changed)
		return;

	event.device = &edev->ibdev;
	event.element.port_num = 1;
	event.event = pa.state == ERI_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
						    IB_EVENT_PORT_ERR;
	ib_dispatch_event(&event);
}

/* Async events, from the communication layer's work item. */
static void eri_handle_event(void *priv, const struct eri_aeqe *aeqe)
{
	struct eri_dev *edev = priv;
	u32 subject = le32_to_cpu(aeqe->subject);

	switch (FIELD_GET(ERI_AEQE_HDR_TYPE, le32_to_cpu(aeqe->hdr))) {
	case ERI_AEQE_PORT_CHANGE:
		eri_port_refresh(edev);
		break;
	case ERI_AEQE_CEQ_OVERFLOW:
		ibdev_err_ratelimited(&edev->ibdev,
				      "completion event queue %u overflowed\n",
				      subject);
		break;
	case ERI_AEQE_CQ_ERR:
		eri_cq_async_event(edev, subject, IB_EVENT_CQ_ERR);
		break;
	case ERI_AEQE_QP_FATAL:
		eri_qp_async_event(edev, subject, IB_EVENT_QP_FATAL);
		break;
	case ERI_AEQE_SQ_DRAINED:
		eri_qp_async_event(edev, subject, IB_EVENT_SQ_DRAINED);
		break;
	case ERI_AEQE_QP_REQ_ERR:
		eri_qp_async_event(edev, subject, IB_EVENT_QP_REQ_ERR);
		break;
	case ERI_AEQE_QP_ACCESS_ERR:
		eri_qp_async_event(edev, subject, IB_EVENT_QP_ACCESS_ERR);
		break;
	case ERI_AEQE_SRQ_LIMIT:
		eri_srq_async_event(edev, subject, IB_EVENT_SRQ_LIMIT_REACHED);
		break;
	case ERI_AEQE_SRQ_ERR:
		eri_srq_async_event(edev, subject, IB_EVENT_SRQ_ERR);
		break;
	case ERI_AEQE_QP_LAST_WQE:
		eri_qp_async_event(edev, subject,
				   IB_EVENT_QP_LAST_WQE_REACHED);
		break;
	default:
		break;
	}
}

/*
 * The device stopped answering and was reset: tell the consumers, then
 * unregister the IB device, which disassociates the processes that use it
 * and, with eri_sim, removes the device.  Its objects are destroyed by
 * freeing the driver's side alone (eri_com_gone()).
 */
static void eri_handle_fatal(void *priv)
{
	struct eri_dev *edev = priv;
	struct ib_event event = {
		.device = &edev->ibdev,
		.element.port_num = 1,
		.event = IB_EVENT_DEVICE_FATAL,
	};
	bool registered;

	spin_lock(&edev->port_lock);
	registered = edev->registered;
	spin_unlock(&edev->port_lock);
	/* Not before registration ends, nor once unregistration began. */
	if (!registered || !ib_device_try_get(&edev->ibdev))
		return;
	ib_dispatch_event(&event);
	ib_unregister_device_queued(&edev->ibdev);
	ib_device_put(&edev->ibdev);
}

int eri_probe(struct eri_bus_dev *bdev)
{
	struct net_device *ndev = bdev->netdev;
	struct eri_dev *edev;
	int ret;

	edev = ib_alloc_device(eri_dev, ibdev);
	if (!edev)
		return -ENOMEM;
	edev->bdev = bdev;
	spin_lock_init(&edev->port_lock);
	xa_init_flags(&edev->cq_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&edev->qp_xa, XA_FLAGS_ALLOC);
	xa_init_flags(&edev->srq_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	ida_init(&edev->pd_ida);
	ida_init(&edev->mr_ida);

	ret = eri_com_init(&edev->com, bdev, eri_handle_event, eri_handle_fatal,
			   edev);
	if (ret)
		goto err_dealloc_device;
	ret = eri_com_query_device(&edev->com, &edev->attr);
	if (ret)
		goto err_com_fini;
	ret = eri_com_query_port(&edev->com, &edev->port);
	if (ret)
		goto err_com_fini;
	ret = eri_cc_init(edev);
	if (ret)
		goto err_com_fini;
	ret = eri_ceqs_init(edev);
	if (ret)
		goto err_com_fini;

	edev->ibdev.node_type = RDMA_NODE_IB_CA;
	edev->ibdev.phys_port_cnt = 1;
	edev->ibdev.num_comp_vectors = edev->num_ceqs;
	/* liberi kicks the device with work-request-free POST_SEND/RECV. */
	edev->ibdev.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				       BIT_ULL(IB_USER_VERBS_CMD_POST_RECV);
	edev->ibdev.dev.parent = &bdev->adev.dev;
	addrconf_addr_eui48((u8 *)&edev->ibdev.node_guid, ndev->dev_addr);
	strscpy(edev->ibdev.node_desc, "ERI", sizeof(edev->ibdev.node_desc));
	/* From here on ib_dealloc_device() undoes it all (eri_dealloc_driver). */
	ib_set_device_ops(&edev->ibdev, &eri_dev_ops);
	ret = ib_device_set_netdev(&edev->ibdev, ndev, 1);
	if (ret)
		goto err_dealloc_device;
	/*
	 * The core frees the IB device when the user unregisters it; our
	 * reference keeps the memory until remove.
	 */
	get_device(&edev->ibdev.dev);
	ret = ib_register_device(&edev->ibdev,
				 bdev->ibdev_name ? bdev->ibdev_name : "eri%d",
				 bdev->dma_dev);
	if (ret)
		goto err_put_device;
	spin_lock(&edev->port_lock);
	edev->registered = true;
	spin_unlock(&edev->port_lock);
	auxiliary_set_drvdata(&bdev->adev, edev);
	return 0;

err_put_device:
	ib_dealloc_device(&edev->ibdev);
	put_device(&edev->ibdev.dev);
	return ret;
err_com_fini:
	eri_com_stop_events(&edev->com);
	eri_com_fini(&edev->com);
err_dealloc_device:
	ib_dealloc_device(&edev->ibdev);
	return ret;
}

void eri_remove(struct eri_bus_dev *bdev)
{
	struct eri_dev *edev = auxiliary_get_drvdata(&bdev->adev);

	/* Tears down through eri_dealloc_driver(), unless the user did. */
	ib_unregister_device(&edev->ibdev);
	put_device(&edev->ibdev.dev);
}

static int __init eri_init(void)
{
	return eri_aux_driver_register();
}

static void __exit eri_exit(void)
{
	eri_aux_driver_unregister();
}

module_init(eri_init);
module_exit(eri_exit);

MODULE_DESCRIPTION("Elastic RDMA Interface (ERI) driver");
MODULE_LICENSE("Dual BSD/GPL");
