// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI admin commands: each function builds one command, runs it and
 * translates the answer into CPU byte order.
 *
 * Commands the device did not answer in time may still run.  Destroying is
 * therefore idempotent: a destroy is repeated until the device answers, and
 * NOT_FOUND after one that timed out means it ran; a create that timed out
 * is undone by a destroy before its caller frees what the device would use.
 */
#include <linux/bitfield.h>

#include "eri_com_cmd.h"

static struct eri_aq_cmd_hdr eri_com_hdr(enum eri_aq_opcode op)
{
	return (struct eri_aq_cmd_hdr){
		.hdr = cpu_to_le32(FIELD_PREP(ERI_AQ_CMD_HDR_OPCODE, op)),
	};
}

/*
 * Run DESTROY_* or DEREG_MR @cmd until the device answers it.  The device
 * executes commands in submission order, so NOT_FOUND after a timeout says
 * the timed-out one ran; a dead device was reset and holds nothing any more.
 * The object's number stays the caller's throughout, so it cannot name a
 * newer object.
 */
static int eri_com_destroy_cmd(struct eri_com_dev *com, void *cmd, size_t size)
{
	unsigned int tries = 0;
	int ret;

	for (;;) {
		ret = eri_com_exec(com, cmd, size, NULL, 0);
		if (ret != -ETIMEDOUT)
			break;
		/* Answers to others keep the device alive; not to this one. */
		if (++tries >= ERI_COM_MAX_TIMEOUTS)
			eri_com_declare_dead(com);
	}
	if (ret == -ENOENT && tries)
		return 0;
	if (ret && eri_com_gone(com))
		return 0;
	return ret;
}

/*
 * Run CREATE_* or REG_MR @cmd.  One that timed out may still run: @undo
 * (the matching destroy) of @id takes it back before the caller frees the
 * memory it names.
 */
static int eri_com_create_cmd(struct eri_com_dev *com, void *cmd, size_t size,
			      int (*undo)(struct eri_com_dev *com, u32 id),
			      u32 id)
{
	int ret = eri_com_exec(com, cmd, size, NULL, 0);

	if (ret == -ETIMEDOUT)
		undo(com, id);
	return ret;
}

int eri_com_query_device(struct eri_com_dev *com,
			 struct eri_com_dev_attr *attr)
{
	struct eri_aq_query_device_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_QUERY_DEVICE),
		.resp_len = cpu_to_le32(sizeof(struct eri_aq_device_attr)),
	};
	const struct eri_aq_device_attr *r;
	struct eri_com_buf buf;
	int ret;

	ret = eri_com_buf_alloc(com, &buf, sizeof(*r));
	if (ret)
		return ret;
	cmd.resp_addr = cpu_to_le64(buf.dma);
	ret = eri_com_exec_buf(com, &cmd, sizeof(cmd), NULL, 0, &buf);
	if (ret)
		goto out_free;

	r = buf.va;
	attr->fw_version = le64_to_cpu(r->fw_version);
	attr->max_mr_size = le64_to_cpu(r->max_mr_size);
	attr->page_size_cap = le64_to_cpu(r->page_size_cap);
	attr->hw_version = le32_to_cpu(r->hw_version);
	attr->caps = le32_to_cpu(r->caps);
	attr->max_qp = le32_to_cpu(r->max_qp);
	attr->max_cq = le32_to_cpu(r->max_cq);
	attr->max_mr = le32_to_cpu(r->max_mr);
	attr->max_pd = le32_to_cpu(r->max_pd);
	attr->max_qp_wr = le32_to_cpu(r->max_qp_wr);
	attr->max_cqe = le32_to_cpu(r->max_cqe);
	attr->max_srq = le32_to_cpu(r->max_srq);
	attr->max_srq_wr = le32_to_cpu(r->max_srq_wr);
	attr->max_ah = le32_to_cpu(r->max_ah);
	attr->max_fast_reg_pages = le32_to_cpu(r->max_fast_reg_pages);
	attr->cc_algos = le32_to_cpu(r->cc_algos);
	attr->cc_default = r->cc_default;
	attr->max_send_sge = le16_to_cpu(r->max_send_sge);
	attr->max_recv_sge = le16_to_cpu(r->max_recv_sge);
	attr->max_inline_data = le16_to_cpu(r->max_inline_data);
	attr->max_mtu = le16_to_cpu(r->max_mtu);
	attr->max_qp_rd_atom = r->max_qp_rd_atom;
	attr->max_qp_init_rd_atom = r->max_qp_init_rd_atom;
	attr->sq_wqe_shift = r->sq_wqe_shift;
	attr->rq_wqe_shift = r->rq_wqe_shift;
	attr->cqe_shift = r->cqe_shift;
	attr->ud_sq_wqe_shift = r->ud_sq_wqe_shift;
out_free:
	eri_com_buf_free(com, &buf);
	return ret;
}

int eri_com_query_port(struct eri_com_dev *com, struct eri_com_port_attr *attr)
{
	struct eri_aq_query_port_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_QUERY_PORT),
		.port = cpu_to_le32(1),
	};
	struct eri_aq_query_port_resp resp;
	int ret;

	ret = eri_com_exec(com, &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret)
		return ret;
	attr->state = le32_to_cpu(resp.state);
	attr->link_mtu = le32_to_cpu(resp.link_mtu);
	attr->gid_tbl_len = le32_to_cpu(resp.gid_tbl_len);
	return 0;
}

int eri_com_create_eq(struct eri_com_dev *com, u32 eqn, dma_addr_t ring,
		      dma_addr_t dbrec, u32 depth_log, u32 vector)
{
	struct eri_aq_create_eq_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_CREATE_EQ),
		.ring_addr = cpu_to_le64(ring),
		.dbrec_addr = cpu_to_le64(dbrec),
		.eqn = cpu_to_le32(eqn),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_EQ_DEPTH_LOG,
					      depth_log) |
				   FIELD_PREP(ERI_AQ_CREATE_EQ_VECTOR, vector)),
	};

	return eri_com_create_cmd(com, &cmd, sizeof(cmd), eri_com_destroy_eq,
				  eqn);
}

int eri_com_destroy_eq(struct eri_com_dev *com, u32 eqn)
{
	struct eri_aq_destroy_eq_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_DESTROY_EQ),
		.eqn = cpu_to_le32(eqn),
	};

	return eri_com_destroy_cmd(com, &cmd, sizeof(cmd));
}

int eri_com_reg_mr(struct eri_com_dev *com, const struct eri_com_mr_attr *attr)
{
	struct eri_aq_reg_mr_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_REG_MR),
		.key = cpu_to_le32(attr->key),
		.pdn = cpu_to_le32(attr->pdn),
		.iova = cpu_to_le64(attr->iova),
		.length = cpu_to_le64(attr->length),
		.pbl_addr = cpu_to_le64(attr->pbl),
		.npages = cpu_to_le32(attr->npages),
	};
	u32 cfg = FIELD_PREP(ERI_AQ_REG_MR_ACCESS, attr->access) |
		  FIELD_PREP(ERI_AQ_REG_MR_PAGE_SHIFT, attr->page_shift);

	if (attr->dma)
		cfg |= ERI_AQ_REG_MR_DMA;
	if (attr->fast_reg)
		cfg |= ERI_AQ_REG_MR_FAST_REG;
	cmd.cfg = cpu_to_le32(cfg);

	return eri_com_create_cmd(com, &cmd, sizeof(cmd), eri_com_dereg_mr,
				  attr->key);
}

int eri_com_dereg_mr(struct eri_com_dev *com, u32 key)
{
	struct eri_aq_dereg_mr_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_DEREG_MR),
		.key = cpu_to_le32(key),
	};

	return eri_com_destroy_cmd(com, &cmd, sizeof(cmd));
}

/**
 * eri_com_create_cq - CREATE_CQ: make a CQ of 2^@p->depth_log CQEs known
 * @com: the device
 * @p: the CQ's number, CEQ, depth, ring (contiguous, or a page list the
 *	device copies before the command completes) and doorbell record
 *
 * Sleeps.  Callers need no serialization (see eri_com_exec()); the caller
 * owns @p->cqn.
 *
 * Return: 0 or a negative errno.
 */
int eri_com_create_cq(struct eri_com_dev *com,
		      const struct eri_com_cq_create *p)
{
	struct eri_aq_create_cq_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_CREATE_CQ),
		.ring_addr = cpu_to_le64(p->ring),
		.dbrec_addr = cpu_to_le64(p->dbrec),
		.cqn = cpu_to_le32(p->cqn),
		.eqn = cpu_to_le32(p->eqn),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_CQ_DEPTH_LOG,
					      p->depth_log) |
				   (p->npages ? ERI_AQ_CREATE_CQ_PBL |
				    FIELD_PREP(ERI_AQ_CREATE_CQ_PAGE_SHIFT,
					       p->page_shift) : 0)),
		.npages = cpu_to_le32(p->npages),
	};

	return eri_com_create_cmd(com, &cmd, sizeof(cmd), eri_com_destroy_cq,
				  p->cqn);
}

/**
 * eri_com_destroy_cq - DESTROY_CQ: once it returns 0 the device writes
 * nothing more for @cqn
 * @com: the device
 * @cqn: the CQ
 *
 * Sleeps.  The caller owns @cqn.
 *
 * Return: 0 or a negative errno (-EINVAL while a QP uses the CQ).
 */
int eri_com_destroy_cq(struct eri_com_dev *com, u32 cqn)
{
	struct eri_aq_destroy_cq_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_DESTROY_CQ),
		.cqn = cpu_to_le32(cqn),
	};

	return eri_com_destroy_cmd(com, &cmd, sizeof(cmd));
}

/**
 * eri_com_create_qp - CREATE_QP: make a QP known, in RESET
 * @com: the device
 * @p: its number, PD, CQs and queues
 *
 * Sleeps.  The caller owns @p->qpn.
 *
 * Return: 0 or a negative errno.
 */
int eri_com_create_qp(struct eri_com_dev *com,
		      const struct eri_com_qp_create *p)
{
	struct eri_aq_create_qp_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_CREATE_QP),
		.sq_addr = cpu_to_le64(p->sq),
		.rq_addr = cpu_to_le64(p->rq),
		.dbrec_addr = cpu_to_le64(p->dbrec),
		.qpn = cpu_to_le32(p->qpn),
		.pdn = cpu_to_le32(p->pdn),
		.send_cqn = cpu_to_le32(p->send_cqn),
		.recv_cqn = cpu_to_le32(p->recv_cqn),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_QP_TYPE, p->type) |
				   FIELD_PREP(ERI_AQ_CREATE_QP_SQ_DEPTH_LOG,
					      p->sq_depth_log) |
				   FIELD_PREP(ERI_AQ_CREATE_QP_RQ_DEPTH_LOG,
					      p->rq_depth_log) |
				   (p->sq_sig_all ?
				    ERI_AQ_CREATE_QP_SQ_SIG_ALL : 0) |
				   (p->srq ? ERI_AQ_CREATE_QP_SRQ : 0)),
		.srqn = cpu_to_le32(p->srq ? p->srqn : 0),
	};

	return eri_com_create_cmd(com, &cmd, sizeof(cmd), eri_com_destroy_qp,
				  p->qpn);
}

/**
 * eri_com_create_srq - CREATE_SRQ: make a shared receive queue known,
 * its limit disarmed
 * @com: the device
 * @srqn: its number
 * @pdn: the PD its WQEs' keys belong to
 * @ring: 2^@depth_log receive WQEs
 * @dbrec: struct eri_srq_dbrec
 * @depth_log: log2 of the WQE count
 *
 * Sleeps.  The caller owns @srqn.
 *
 * Return: 0 or a negative errno.
 */
int eri_com_create_srq(struct eri_com_dev *com, u32 srqn, u32 pdn,
		       dma_addr_t ring, dma_addr_t dbrec, u32 depth_log)
{
	struct eri_aq_create_srq_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_CREATE_SRQ),
		.ring_addr = cpu_to_le64(ring),
		.dbrec_addr = cpu_to_le64(dbrec),
		.srqn = cpu_to_le32(srqn),
		.pdn = cpu_to_le32(pdn),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_SRQ_DEPTH_LOG,
					      depth_log)),
	};

	return eri_com_create_cmd(com, &cmd, sizeof(cmd), eri_com_destroy_srq,
				  srqn);
}

/**
 * eri_com_modify_srq - MODIFY_SRQ: arm (or disarm, 0) the limit
 * @com: the device
 * @srqn: the SRQ
 * @mask: ERI_AQ_MODIFY_SRQ_*
 * @limit: the limit
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int eri_com_modify_srq(struct eri_com_dev *com, u32 srqn, u32 mask,
		       u32 limit)
{
	struct eri_aq_modify_srq_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_MODIFY_SRQ),
		.srqn = cpu_to_le32(srqn),
		.mask = cpu_to_le32(mask),
		.limit = cpu_to_le32(limit),
	};

	return eri_com_exec(com, &cmd, sizeof(cmd), NULL, 0);
}

/**
 * eri_com_query_srq - QUERY_SRQ
 * @com: the device
 * @srqn: the SRQ
 * @resp: where the device's answer goes
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int eri_com_query_srq(struct eri_com_dev *com, u32 srqn,
		      struct eri_aq_query_srq_resp *resp)
{
	struct eri_aq_query_srq_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_QUERY_SRQ),
		.srqn = cpu_to_le32(srqn),
	};

	return eri_com_exec(com, &cmd, sizeof(cmd), resp, sizeof(*resp));
}

/**
 * eri_com_destroy_srq - DESTROY_SRQ: once it returns 0 the device touches
 * nothing of @srqn
 * @com: the device
 * @srqn: the SRQ
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno (-EINVAL while a QP receives from it).
 */
int eri_com_destroy_srq(struct eri_com_dev *com, u32 srqn)
{
	struct eri_aq_destroy_srq_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_DESTROY_SRQ),
		.srqn = cpu_to_le32(srqn),
	};

	return eri_com_destroy_cmd(com, &cmd, sizeof(cmd));
}

/*
 * MODIFY_QP and QUERY_QP: the attributes travel in a DMA buffer, from @in to
 * the device or from the device to @out.
 */
static int eri_com_qp_attr_cmd(struct eri_com_dev *com, enum eri_aq_opcode op,
			       u32 qpn, const struct eri_qp_attr *in,
			       struct eri_qp_attr *out)
{
	struct eri_aq_qp_attr_cmd cmd = {
		.hdr = eri_com_hdr(op),
		.qpn = cpu_to_le32(qpn),
	};
	struct eri_com_buf buf;
	int ret;

	ret = eri_com_buf_alloc(com, &buf, sizeof(struct eri_qp_attr));
	if (ret)
		return ret;
	if (in)
		memcpy(buf.va, in, sizeof(*in));
	cmd.attr_addr = cpu_to_le64(buf.dma);
	ret = eri_com_exec_buf(com, &cmd, sizeof(cmd), NULL, 0, &buf);
	if (!ret && out)
		memcpy(out, buf.va, sizeof(*out));
	eri_com_buf_free(com, &buf);
	return ret;
}

/**
 * eri_com_modify_qp - MODIFY_QP: apply the fields @attr->mask names
 * @com: the device
 * @qpn: the QP
 * @attr: the attributes, in the device's format
 *
 * Sleeps.  The caller serializes commands on one QP.
 *
 * Return: 0 or a negative errno.
 */
int eri_com_modify_qp(struct eri_com_dev *com, u32 qpn,
		      const struct eri_qp_attr *attr)
{
	return eri_com_qp_attr_cmd(com, ERI_AQ_OP_MODIFY_QP, qpn, attr, NULL);
}

/**
 * eri_com_query_qp - QUERY_QP: read a QP's attributes
 * @com: the device
 * @qpn: the QP
 * @attr: where they go, in the device's format
 *
 * Sleeps.  The caller serializes commands on one QP.
 *
 * Return: 0 or a negative errno.
 */
int eri_com_query_qp(struct eri_com_dev *com, u32 qpn,
		     struct eri_qp_attr *attr)
{
	return eri_com_qp_attr_cmd(com, ERI_AQ_OP_QUERY_QP, qpn, NULL, attr);
}

/**
 * eri_com_query_qp_cc - QUERY_QP_CC: read a QP's congestion-control state
 * @com: the device, with ERI_DEV_CAP_QP_CC
 * @qpn: the QP
 * @cc: where it goes, as the device wrote it: the caller validates it
 *
 * Sleeps.  The caller keeps @qpn alive.
 *
 * Return: 0 or a negative errno.
 */
int eri_com_query_qp_cc(struct eri_com_dev *com, u32 qpn,
			struct eri_qp_cc *cc)
{
	struct eri_aq_qp_attr_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_QUERY_QP_CC),
		.qpn = cpu_to_le32(qpn),
	};
	struct eri_com_buf buf;
	int ret;

	ret = eri_com_buf_alloc(com, &buf, sizeof(*cc));
	if (ret)
		return ret;
	cmd.attr_addr = cpu_to_le64(buf.dma);
	ret = eri_com_exec_buf(com, &cmd, sizeof(cmd), NULL, 0, &buf);
	if (!ret)
		memcpy(cc, buf.va, sizeof(*cc));
	eri_com_buf_free(com, &buf);
	return ret;
}

/**
 * eri_com_destroy_qp - DESTROY_QP: once it returns 0 the device touches
 * nothing of @qpn
 * @com: the device
 * @qpn: the QP
 *
 * Sleeps.  The caller owns @qpn.
 *
 * Return: 0 or a negative errno.
 */
int eri_com_destroy_qp(struct eri_com_dev *com, u32 qpn)
{
	struct eri_aq_destroy_qp_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_DESTROY_QP),
		.qpn = cpu_to_le32(qpn),
	};

	return eri_com_destroy_cmd(com, &cmd, sizeof(cmd));
}

/**
 * eri_com_set_cc - SET_CC: the congestion-control algorithm of new QPs
 * @com: the device
 * @algo: one of the device's cc_algos
 *
 * Sleeps.  QPs created after it completes use @algo; callers serialize
 * against each other if they care which of two settings wins.
 *
 * Return: 0 or a negative errno (-EINVAL for an algorithm the device lacks).
 */
int eri_com_set_cc(struct eri_com_dev *com, u32 algo)
{
	struct eri_aq_set_cc_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_SET_CC),
		.algo = cpu_to_le32(algo),
	};

	return eri_com_exec(com, &cmd, sizeof(cmd), NULL, 0);
}

/**
 * eri_com_query_cc - QUERY_CC: the device's congestion-control algorithms
 * @com: the device, with ERI_DEV_CAP_CC_NAMES
 * @descs: ERI_CC_MAX_ALGOS entries, as the device wrote them: the caller
 *	validates them
 *
 * Sleeps.  Callers need no serialization.
 *
 * Return: 0 or a negative errno.
 */
int eri_com_query_cc(struct eri_com_dev *com, struct eri_cc_desc *descs)
{
	const size_t len = ERI_CC_MAX_ALGOS * sizeof(*descs);
	struct eri_aq_query_cc_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_QUERY_CC),
		.resp_len = cpu_to_le32(len),
	};
	struct eri_com_buf buf;
	int ret;

	ret = eri_com_buf_alloc(com, &buf, len);
	if (ret)
		return ret;
	cmd.resp_addr = cpu_to_le64(buf.dma);
	ret = eri_com_exec_buf(com, &cmd, sizeof(cmd), NULL, 0, &buf);
	if (!ret)
		memcpy(descs, buf.va, len);
	eri_com_buf_free(com, &buf);
	return ret;
}

/**
 * eri_com_query_stats - QUERY_STATS: read the device counters
 * @com: the device
 * @stats: where the first @num counters go, in enum eri_stat order
 * @num: at most ERI_STAT_NUM
 *
 * Sleeps.  Callers need no serialization.
 *
 * Return: 0 or a negative errno.
 */
int eri_com_query_stats(struct eri_com_dev *com, u64 *stats,
			unsigned int num)
{
	struct eri_aq_query_stats_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_QUERY_STATS),
		.resp_len = cpu_to_le32(ERI_STAT_NUM * sizeof(__le64)),
	};
	struct eri_com_buf buf;
	const __le64 *r;
	unsigned int i;
	int ret;

	if (WARN_ON_ONCE(num > ERI_STAT_NUM))
		return -EINVAL;
	ret = eri_com_buf_alloc(com, &buf, ERI_STAT_NUM * sizeof(*r));
	if (ret)
		return ret;
	cmd.resp_addr = cpu_to_le64(buf.dma);
	ret = eri_com_exec_buf(com, &cmd, sizeof(cmd), NULL, 0, &buf);
	if (!ret) {
		r = buf.va;
		for (i = 0; i < num; i++)
			stats[i] = le64_to_cpu(r[i]);
	}
	eri_com_buf_free(com, &buf);
	return ret;
}
