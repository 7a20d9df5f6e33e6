// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI verbs: device and port queries, user contexts, protection domains,
 * queue memory shared through mmap, and the device counters.  Attributes
 * come from what the device reported through the admin queue; nothing here
 * talks to the device except through eri_com_cmd.
 */
#include <linux/bitfield.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/eri-abi.h>

#include "eri_verbs.h"

int eri_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
		     struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibdev);
	const struct eri_com_dev_attr *a = &edev->attr;

	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;

	memset(props, 0, sizeof(*props));
	props->fw_ver = a->fw_version;
	props->sys_image_guid = ibdev->node_guid;
	props->max_mr_size = a->max_mr_size;
	props->page_size_cap = a->page_size_cap;
	props->vendor_id = FIELD_GET(ERI_VENDOR_ID_OUI,
				     eri_com_read32(&edev->com,
						    ERI_REG_VENDOR_ID));
	props->vendor_part_id = eri_com_read32(&edev->com, ERI_REG_DEVICE_ID);
	props->hw_ver = a->hw_version;
	props->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN;
	/* What the QP and CQ code accepts: see eri_qp.c and eri_cq.c. */
	props->max_qp = min_t(u32, a->max_qp, ERI_REG_QP_DB_QPN + 1);
	props->max_qp_wr = min_t(u32, a->max_qp_wr,
				 BIT(ERI_RING_MAX_DEPTH_LOG));
	props->max_send_sge = min_t(u32, a->max_send_sge, ERI_SQ_WQE_MAX_SGE);
	props->max_recv_sge = min_t(u32, a->max_recv_sge, ERI_RQ_WQE_MAX_SGE);
	props->max_sge_rd = props->max_send_sge;
	props->max_cq = a->max_cq;
	props->max_cqe = a->max_cqe ? BIT(eri_cq_max_depth_log(edev)) : 0;
	props->max_mr = a->max_mr;
	props->max_pd = a->max_pd;
	props->max_qp_rd_atom = a->max_qp_rd_atom;
	props->max_qp_init_rd_atom = a->max_qp_init_rd_atom;
	props->max_res_rd_atom = a->max_qp_rd_atom * a->max_qp;
	props->atomic_cap = (a->caps & ERI_DEV_CAP_ATOMIC) ?
			    IB_ATOMIC_HCA : IB_ATOMIC_NONE;
	props->max_ah = a->max_ah;
	/* What eri_srq.c accepts; nothing without the capability. */
	if (eri_srq_max_wr(edev)) {
		props->max_srq = a->max_srq;
		props->max_srq_wr = eri_srq_max_wr(edev);
		props->max_srq_sge = props->max_recv_sge;
	}
	props->max_pkeys = 1;
	props->local_ca_ack_delay = 15;
	if (a->caps & ERI_DEV_CAP_FAST_REG) {
		props->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
		props->max_fast_reg_page_list_len = a->max_fast_reg_pages;
	}
	if (edev->bdev->user_removable)
		props->kernel_cap_flags |= IBK_ALLOW_USER_UNREG;
	return 0;
}

/*
 * The largest IB MTU whose payload fits in @link_mtu after the headers of
 * a packet of @edev: those of IPv6 when the device carries it, so that one
 * port MTU fits both families.  The device sizes UD messages the same way.
 */
static enum ib_mtu eri_mtu_from_link(struct eri_dev *edev, u32 link_mtu)
{
	u32 overhead = edev->attr.caps & ERI_DEV_CAP_IPV6 ?
		       ERI_PKT_OVERHEAD_IPV6 : ERI_PKT_OVERHEAD_IPV4;

	/*
	 * Rounds down, 256 at least.  A link MTU above INT_MAX (none is) would
	 * turn negative and give 256, never more than the link carries.
	 */
	return ib_mtu_int_to_enum(link_mtu > overhead ? link_mtu - overhead : 0);
}

int eri_query_port(struct ib_device *ibdev, u32 port,
		   struct ib_port_attr *props)
{
	struct eri_dev *edev = to_eri_dev(ibdev);
	struct eri_com_port_attr pa;

	spin_lock(&edev->port_lock);
	pa = edev->port;
	spin_unlock(&edev->port_lock);

	/* The core cleared *props. */
	if (pa.state == ERI_PORT_ACTIVE) {
		props->state = IB_PORT_ACTIVE;
		props->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	} else {
		props->state = IB_PORT_DOWN;
		props->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	}
	props->max_mtu = ib_mtu_int_to_enum(edev->attr.max_mtu);
	props->active_mtu = min(props->max_mtu,
				eri_mtu_from_link(edev, pa.link_mtu));
	props->gid_tbl_len = pa.gid_tbl_len;
	props->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_REINIT_SUP |
				IB_PORT_VENDOR_CLASS_SUP;
	props->max_msg_sz = 1U << 31;
	props->pkey_tbl_len = 1;
	props->bad_pkey_cntr = 0;
	props->qkey_viol_cntr = 0;
	props->lid = 0;
	props->sm_lid = 0;
	props->lmc = 0;
	props->max_vl_num = 1;
	props->sm_sl = 0;
	props->subnet_timeout = 0;
	props->init_type_reply = 0;
	/*
	 * The rate is the netdev's, as for every Ethernet port.  Without a
	 * netdev (it is being unregistered) report the slowest rate.
	 */
	if (ib_get_eth_speed(ibdev, port, &props->active_speed,
			     &props->active_width)) {
		props->active_speed = IB_SPEED_SDR;
		props->active_width = IB_WIDTH_1X;
	}
	return 0;
}

int eri_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

int eri_get_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int ret;

	ret = ib_query_port(ibdev, port, &attr);
	if (ret)
		return ret;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	/*
	 * ERI's packets are not RoCE's, but its addressing is: with this cap
	 * ib_core keeps the GID table from the netdev's IP addresses
	 * (roce_gid_mgmt), ib_mad opens QP1 for ib_cm and rdma_cm resolves IP
	 * addresses to RoCEv2 GIDs.  iWARP's cap would hand connections to
	 * iw_cm, which ERI does not implement.
	 */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer eri_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

void eri_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	u64 fw = to_eri_dev(ibdev)->attr.fw_version;

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u",
		 (u32)(fw >> 32), (u32)(fw >> 16) & 0xffff, (u32)fw & 0xffff);
}

static int eri_user_buf_alloc(struct eri_dev *edev, struct ib_ucontext *uctx,
			      struct eri_qmem *m, size_t size, bool pinned);

/**
 * eri_udata_req - the driver data of a uverbs request
 * @udata: the request
 * @req: where it goes, zeroed beforehand
 * @size: bytes of @req
 *
 * A provider may send less than @size (an older one: the rest of @req
 * stays zero) or more (a newer one), as long as what we do not know is
 * zero.
 *
 * Return: 0, -EFAULT, or -EINVAL when bytes past @size are not zero.
 */
int eri_udata_req(struct ib_udata *udata, void *req, size_t size)
{
	int ret;

	if (!udata->inlen)
		return 0;
	ret = ib_copy_from_udata(req, udata, min(udata->inlen, size));
	if (ret)
		return ret;
	if (udata->inlen > size &&
	    !ib_is_udata_cleared(udata, size, udata->inlen - size))
		return -EINVAL;
	return 0;
}

int eri_alloc_ucontext(struct ib_ucontext *ibucontext, struct ib_udata *udata)
{
	struct eri_ucontext *uctx = to_eri_ucontext(ibucontext);
	struct eri_dev *edev = to_eri_dev(ibucontext->device);
	struct eri_ibv_alloc_ucontext_resp resp = {};
	struct eri_ibv_alloc_ucontext_req req = {};
	struct eri_uctx_status *status;
	int ret;

	ret = eri_udata_req(udata, &req, sizeof(req));
	if (ret)
		return ret == -EINVAL ? -EOPNOTSUPP : ret;
	if (req.comp_mask || req.reserved)
		return -EOPNOTSUPP;

	if (edev->attr.caps & ERI_DEV_CAP_IMM)
		resp.dev_caps |= ERI_UCTX_CAP_IMM;
	if (edev->attr.caps & ERI_DEV_CAP_CQ_PBL) {
		resp.dev_caps |= ERI_UCTX_CAP_CQ_USER_RING;
		resp.max_cq_depth_log = eri_cq_max_depth_log(edev);
	}
	resp.dev_caps |= ERI_UCTX_CAP_QP_ONE_MAPPING;
	resp.max_inline_data = edev->attr.max_inline_data;
	resp.max_send_sge = edev->attr.max_send_sge;
	resp.max_recv_sge = edev->attr.max_recv_sge;
	resp.sq_wqe_shift = edev->attr.sq_wqe_shift;
	resp.rq_wqe_shift = edev->attr.rq_wqe_shift;
	resp.cqe_shift = edev->attr.cqe_shift;

	/*
	 * A page of the context, like the context itself charged to the
	 * memory cgroup only: a process whose RLIMIT_MEMLOCK is 0 can still
	 * open the device.  The device never reads it.
	 */
	ret = eri_user_buf_alloc(edev, ibucontext, &uctx->status,
				 sizeof(*status), false);
	if (ret)
		return ret;
	eri_qmem_map_read_only(&uctx->status);
	status = uctx->status.buf->va;
	status->state = ERI_UCTX_STATE_LIVE;	/* userspace's byte order */
	resp.comp_mask |= ERI_UCTX_RESP_STATUS_PAGE;
	resp.status_mmap_key = eri_qmem_mmap_key(&uctx->status);
	resp.status_size = uctx->status.buf->size;

	if (udata->outlen) {
		ret = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (ret)
			eri_qmem_free(edev, &uctx->status);
	}
	return ret;
}

void eri_dealloc_ucontext(struct ib_ucontext *ibucontext)
{
	struct eri_ucontext *uctx = to_eri_ucontext(ibucontext);
	struct eri_uctx_status *status = uctx->status.buf->va;

	/*
	 * The process may map the page for longer (eri_mmap()), as when the
	 * device goes while it runs: from now on it reads that the device
	 * is gone.
	 */
	WRITE_ONCE(status->state, 0);
	eri_qmem_free(to_eri_dev(ibucontext->device), &uctx->status);
}

/**
 * eri_disassociate_ucontext - the device goes while a process uses it
 * @ibucontext: the process's context
 *
 * Having this op lets ib_core remove the device without waiting for every
 * process that opened it to exit ("rdma link delete", the netdev's or the
 * device's removal, module unload): it destroys the context's objects
 * through the destroy verbs, which quiesce each queue on the device first,
 * and then the context (eri_dealloc_ucontext()).  The process's mappings
 * stay, of pages it holds a reference on, which the device no longer uses:
 * its later touches of rings land in its own memory, and its status page
 * says that the device is gone, which liberi's poll_cq checks when it finds
 * a CQ empty.  What remains to do here is nothing: the driver keeps no
 * state of the process outside those objects and entries.
 */
void eri_disassociate_ucontext(struct ib_ucontext *ibucontext)
{
}

int eri_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibpd->device);
	struct eri_pd *pd = to_eri_pd(ibpd);
	struct eri_ibv_alloc_pd_resp resp = {};
	int pdn, ret;

	pdn = ida_alloc_max(&edev->pd_ida, edev->attr.max_pd - 1, GFP_KERNEL);
	if (pdn < 0)
		return pdn;
	pd->pdn = pdn;
	if (udata && udata->outlen) {
		resp.pdn = pdn;
		ret = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (ret) {
			ida_free(&edev->pd_ida, pdn);
			return ret;
		}
	}
	return 0;
}

int eri_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	ida_free(&to_eri_dev(ibpd->device)->pd_ida, to_eri_pd(ibpd)->pdn);
	return 0;
}

int eri_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct eri_user_mmap_entry *entry;
	unsigned long off;
	int ret = 0;

	rdma_entry = rdma_user_mmap_entry_get(ibucontext, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = to_eri_mmap_entry(rdma_entry);
	if (entry->read_only && (vma->vm_flags & VM_WRITE)) {
		ret = -EPERM;
		goto out_put;
	}
	/*
	 * A read-only mapping may not be made writable by mprotect() later.
	 * No mapping is copied into a child at fork(): the child cannot use
	 * the parent's context.
	 */
	vm_flags_mod(vma, VM_DONTCOPY, entry->read_only ? VM_MAYWRITE : 0);
	/*
	 * The queue's pages themselves, as efa maps its queues: each page
	 * the mapping holds has a reference of its own, so the pages stay
	 * for as long as the process maps them, whenever the queue and the
	 * device go; ib_core need not track the mapping.  rdma_user_mmap_io()
	 * is for device registers, which ERI does not map.  The entry has the
	 * size of the mapping (rdma_user_mmap_entry_get() checked).
	 */
	for (off = 0; off < entry->buf.size; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     virt_to_page(entry->buf.va + off));
		if (ret)
			break;
	}
out_put:
	rdma_user_mmap_entry_put(rdma_entry);
	return ret;
}

/*
 * Count @npages of queue memory against the calling process's
 * RLIMIT_MEMLOCK, in pinned_vm, where ib_umem counts the pages of memory
 * regions: like them the memory cannot be swapped or reclaimed while the
 * device may use it.  A process with CAP_IPC_LOCK is not limited.
 */
static int eri_pinned_charge(struct eri_user_mmap_entry *entry,
			     unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct mm_struct *mm = current->mm;
	u64 pinned;

	if (!mm)
		return -EINVAL;
	pinned = atomic64_add_return(npages, &mm->pinned_vm);
	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	/* The pages may outlive the process's use of its mm: keep it. */
	mmgrab(mm);
	entry->mm = mm;
	entry->npages = npages;
	return 0;
}

static void eri_pinned_uncharge(struct eri_user_mmap_entry *entry)
{
	if (!entry->mm)
		return;
	atomic64_sub(entry->npages, &entry->mm->pinned_vm);
	mmdrop(entry->mm);
	entry->mm = NULL;
}

void eri_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct eri_user_mmap_entry *entry = to_eri_mmap_entry(rdma_entry);

	eri_com_pages_free(&entry->edev->com, &entry->buf);
	eri_pinned_uncharge(entry);
	kfree(entry);
}

/*
 * Memory of @size bytes (whole pages) in a new mmap entry of @uctx, charged
 * to the memory cgroup of the calling process and, if @pinned, to its
 * RLIMIT_MEMLOCK.
 */
static int eri_user_buf_alloc(struct eri_dev *edev, struct ib_ucontext *uctx,
			      struct eri_qmem *m, size_t size, bool pinned)
{
	struct eri_user_mmap_entry *entry;
	int ret;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL_ACCOUNT);
	if (!entry)
		return -ENOMEM;
	entry->edev = edev;
	if (pinned) {
		ret = eri_pinned_charge(entry, PAGE_ALIGN(size) >> PAGE_SHIFT);
		if (ret)
			goto err_free_entry;
	}
	ret = eri_com_pages_alloc(&edev->com, &entry->buf, size,
				  GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_uncharge;
	ret = rdma_user_mmap_entry_insert(uctx, &entry->rdma_entry,
					  entry->buf.size);
	if (ret)
		goto err_free_buf;
	m->entry = entry;
	m->buf = &entry->buf;
	return 0;

err_free_buf:
	eri_com_pages_free(&edev->com, &entry->buf);
err_uncharge:
	eri_pinned_uncharge(entry);
err_free_entry:
	kfree(entry);
	return ret;
}

/**
 * eri_qmem_alloc - allocate the memory of a queue shared with the device
 * @edev: the device
 * @uctx: the user context to map it into, or NULL for a kernel queue
 * @m: where the memory is described
 * @size: bytes; a user queue gets whole pages
 *
 * A user queue's memory belongs to an mmap entry of @uctx; it is charged
 * to the calling process: to its RLIMIT_MEMLOCK (pinned_vm) while the
 * device may use it, until eri_qmem_free(), and to its memory cgroup until
 * the pages are freed, when the process no longer maps them either (as
 * io_uring charges its rings).  The caller serializes calls for one @m.
 *
 * Return: 0, or -ENOMEM (also past the process's limit).
 */
int eri_qmem_alloc(struct eri_dev *edev, struct ib_ucontext *uctx,
		   struct eri_qmem *m, size_t size)
{
	m->entry = NULL;
	if (!uctx) {
		m->buf = &m->kbuf;
		return eri_com_buf_alloc(&edev->com, &m->kbuf, size);
	}
	return eri_user_buf_alloc(edev, uctx, m, size, true);
}

/**
 * eri_qmem_free - free what eri_qmem_alloc() allocated, once the device no
 * longer uses it
 * @edev: the device
 * @m: the memory; may be one whose allocation failed
 *
 * A user queue's entry goes (eri_mmap_free()) once no mmap() of it is in
 * progress; the pages the process maps stay until it unmaps them.  The
 * caller serializes calls for one @m.
 */
void eri_qmem_free(struct eri_dev *edev, struct eri_qmem *m)
{
	if (m->entry)
		rdma_user_mmap_entry_remove(&m->entry->rdma_entry);
	else if (m->buf)
		eri_com_buf_free(&edev->com, m->buf);
	m->entry = NULL;
	m->buf = NULL;
}

/**
 * eri_qmem_map_read_only - let userspace map a user queue's memory for
 * reading only
 * @m: memory eri_qmem_alloc() allocated for a user context, whose offset
 *	userspace does not know yet
 */
void eri_qmem_map_read_only(struct eri_qmem *m)
{
	m->entry->read_only = true;
}

/**
 * eri_qmem_mmap_key - the offset userspace passes to mmap() for a user
 * queue's memory
 * @m: memory eri_qmem_alloc() allocated for a user context
 *
 * Return: the offset.
 */
u64 eri_qmem_mmap_key(const struct eri_qmem *m)
{
	return rdma_user_mmap_get_offset(&m->entry->rdma_entry);
}

static const struct rdma_stat_desc eri_hw_stat_descs[] = {
	[ERI_STAT_TX_PKTS].name = "tx_pkts",
	[ERI_STAT_TX_BYTES].name = "tx_bytes",
	[ERI_STAT_RX_PKTS].name = "rx_pkts",
	[ERI_STAT_RX_BYTES].name = "rx_bytes",
	[ERI_STAT_RX_DROPS].name = "rx_drops",
	[ERI_STAT_RETRANS_PKTS].name = "retrans_pkts",
	[ERI_STAT_TIMEOUTS].name = "timeouts",
	[ERI_STAT_RNR_NAKS].name = "rnr_naks",
	[ERI_STAT_SQ_KICKS].name = "sq_kicks",
	[ERI_STAT_CQ_EVENTS].name = "cq_events",
	[ERI_STAT_OOO_PKTS].name = "ooo_pkts",
	[ERI_STAT_DUP_PKTS].name = "dup_pkts",
	[ERI_STAT_FAST_RETRANS].name = "fast_retrans",
	[ERI_STAT_TLPS].name = "tail_loss_probes",
	[ERI_STAT_ECN_ECHOES].name = "ecn_echoes",
	[ERI_STAT_AEQ_OVERFLOWS].name = "aeq_overflows",
	[ERI_STAT_TX_SKBS].name = "tx_skbs",
	[ERI_STAT_RX_SKBS].name = "rx_skbs",
	[ERI_STAT_MAD_DROPS].name = "mad_drops",
	[ERI_STAT_SQ_POLLS].name = "sq_polls",
	[ERI_STAT_RX_VERSION_DROPS].name = "rx_version_drops",
	[ERI_STAT_VERSION_NAKS].name = "version_naks",
	[ERI_STAT_RTO_UNDOS].name = "timeouts_undone",
};

static_assert(ARRAY_SIZE(eri_hw_stat_descs) == ERI_STAT_NUM);

/**
 * eri_alloc_hw_device_stats - describe the device counters to the core
 * @ibdev: the IB device
 *
 * Sleeps.  Called once, by the core.
 *
 * Return: the counters' description, or NULL.
 */
struct rdma_hw_stats *eri_alloc_hw_device_stats(struct ib_device *ibdev)
{
	return rdma_alloc_hw_stats_struct(eri_hw_stat_descs,
					  ARRAY_SIZE(eri_hw_stat_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * eri_alloc_hw_port_stats - describe the counters of the port to the core
 * @ibdev: the IB device
 * @port: 1
 *
 * The device has one port, whose counters are the device's; they are what
 * rdma statistic shows.  Sleeps.  Called once, by the core.
 *
 * Return: the counters' description, or NULL.
 */
struct rdma_hw_stats *eri_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port)
{
	return eri_alloc_hw_device_stats(ibdev);
}

/**
 * eri_get_hw_stats - read the device counters
 * @ibdev: the IB device
 * @stats: where they go
 * @port: 0 for the device's counters, 1 for the port's: the same ones
 * @index: the counter the core wants; all are read
 *
 * Sleeps.  The core serializes calls for one @stats with its lock.
 *
 * Return: the number of counters read, or a negative errno.
 */
int eri_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index)
{
	u64 val[ERI_STAT_NUM];
	unsigned int i, n;
	int ret;

	n = min_t(unsigned int, stats->num_counters, ERI_STAT_NUM);
	ret = eri_com_query_stats(&to_eri_dev(ibdev)->com, val, n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		stats->value[i] = val[i];
	return n;
}
