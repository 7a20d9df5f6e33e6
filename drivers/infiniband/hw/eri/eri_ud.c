// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI unreliable datagrams: address handles and the UD send WQE.
 *
 * The device keeps no address handles: a UD send WQE carries its address
 * vector (struct eri_sq_ud_av), so an AH is the vector built once, in
 * create_ah, from the GID table entry and the destination GID, and copied
 * into every WQE that names it.  create_ah therefore never talks to the
 * device and may run in atomic context, as ib_mad and ib_cm call it.  A user
 * AH is the same vector, returned to liberi, which builds its WQEs alike.
 */
#include <linux/bitfield.h>
#include <net/ipv6.h>
#include <rdma/eri-abi.h>
#include <rdma/ib_cache.h>

#include "eri_verbs.h"

#define ERI_FLOW_LABEL_MASK	GENMASK(19, 0)

/**
 * eri_gid_pair_check - may @edev carry a path between these GIDs?
 * @edev: the device
 * @sgid: the source GID, from the GID table
 * @dgid: the destination GID
 *
 * Both must be of one family: IPv4-mapped, or IPv6, which only a device
 * with ERI_DEV_CAP_IPV6 carries.  ib_core lists the netdev's IPv6
 * addresses in the GID table of any RoCE port; this keeps them from a
 * device that cannot use them.
 *
 * Return: 0, -EINVAL for GIDs of two families, -EOPNOTSUPP for IPv6 GIDs
 * on a device without IPv6.
 */
int eri_gid_pair_check(struct eri_dev *edev, const union ib_gid *sgid,
		       const union ib_gid *dgid)
{
	bool v4 = ipv6_addr_v4mapped((const struct in6_addr *)sgid->raw);

	if (v4 != ipv6_addr_v4mapped((const struct in6_addr *)dgid->raw))
		return -EINVAL;
	if (!v4 && !(edev->attr.caps & ERI_DEV_CAP_IPV6))
		return -EOPNOTSUPP;
	return 0;
}

/* Build the address vector of @attr: RoCEv2-style addressing. */
static int eri_ah_attr_to_av(struct eri_dev *edev,
			     const struct rdma_ah_attr *attr,
			     struct eri_sq_ud_av *av)
{
	const struct ib_global_route *grh;
	int ret;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	if (!grh->sgid_attr ||
	    grh->sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	ret = eri_gid_pair_check(edev, &grh->sgid_attr->gid, &grh->dgid);
	if (ret)
		return ret;
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	memcpy(av->sgid, grh->sgid_attr->gid.raw, sizeof(av->sgid));
	av->flow_label = cpu_to_le32(grh->flow_label & ERI_FLOW_LABEL_MASK);
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	return 0;
}

/**
 * eri_create_ah - create an address handle
 * @ibah: the AH the core allocated
 * @init: its attributes
 * @udata: the uverbs request, NULL for a kernel AH
 *
 * Any context for a kernel AH (without RDMA_CREATE_AH_SLEEPABLE the caller
 * may hold a spinlock): nothing here sleeps.
 *
 * Return: 0 or a negative errno.
 */
int eri_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibah->device);
	struct eri_ah *ah = to_eri_ah(ibah);
	struct eri_ibv_create_ah_resp resp = {};
	int ret;

	if (!(edev->attr.caps & ERI_DEV_CAP_UD))
		return -EOPNOTSUPP;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	ret = eri_ah_attr_to_av(edev, init->ah_attr, &ah->av);
	if (ret)
		return ret;
	if (atomic_inc_return(&edev->num_ah) > edev->attr.max_ah) {
		ret = -ENOMEM;
		goto err_dec;
	}
	if (udata) {
		memcpy(resp.dgid, ah->av.dgid, sizeof(resp.dgid));
		memcpy(resp.sgid, ah->av.sgid, sizeof(resp.sgid));
		resp.flow_label = le32_to_cpu(ah->av.flow_label);
		resp.hop_limit = ah->av.hop_limit;
		resp.traffic_class = ah->av.traffic_class;
		ret = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (ret)
			goto err_dec;
	}
	return 0;

err_dec:
	atomic_dec(&edev->num_ah);
	return ret;
}

/**
 * eri_destroy_ah - destroy an address handle
 * @ibah: the AH
 * @flags: RDMA_DESTROY_AH_SLEEPABLE or not; nothing here sleeps
 *
 * WQEs already posted carry their own copy of the vector.
 *
 * Return: 0.
 */
int eri_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	atomic_dec(&to_eri_dev(ibah->device)->num_ah);
	return 0;
}

/**
 * eri_qp_is_ud - does the QP send datagrams (UD or GSI)?
 * @qp: the QP
 *
 * Return: true for UD and GSI QPs.
 */
bool eri_qp_is_ud(const struct eri_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

/**
 * eri_ud_wqe_build - encode a UD send work request
 * @qp: a kernel UD or GSI QP
 * @wr: the work request, a struct ib_ud_wr
 * @wqe: the WQE slot
 *
 * The send queue's lock held.  Only SEND and SEND_WITH_IMM; the device
 * checks the message against the MTU.
 *
 * Return: 0 or -EINVAL.
 */
int eri_ud_wqe_build(struct eri_qp *qp, const struct ib_send_wr *wr,
		     void *wqe)
{
	const struct ib_ud_wr *ud = ud_wr(wr);
	struct eri_sq_wqe_hdr *h = wqe;
	struct eri_sq_ud_av *av = (struct eri_sq_ud_av *)(h + 1);
	bool inl = wr->send_flags & IB_SEND_INLINE;
	u64 len = 0;
	u32 hdr, op;
	int i;

	if (wr->opcode == IB_WR_SEND)
		op = ERI_SQ_OP_SEND;
	else if (wr->opcode == IB_WR_SEND_WITH_IMM)
		op = ERI_SQ_OP_SEND_IMM;
	else
		return -EINVAL;
	if (!ud->ah || ud->remote_qpn > ERI_REG_QP_DB_QPN ||
	    wr->num_sge < 0 || (!inl && wr->num_sge > qp->sq.max_sge))
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > U32_MAX || (inl && len > qp->max_inline))
		return -EINVAL;

	hdr = eri_sq_wqe_start(qp, wr, op, wqe);
	h->length = cpu_to_le32(len);
	if (op == ERI_SQ_OP_SEND_IMM)
		h->imm_data = wr->ex.imm_data;
	*av = to_eri_ah(ud->ah)->av;
	av->dest_qpn = cpu_to_le32(ud->remote_qpn);
	av->qkey = cpu_to_le32(ud->remote_qkey);

	hdr |= eri_sq_wqe_data(wr, inl, av + 1);
	h->hdr = cpu_to_le32(hdr);
	return 0;
}
