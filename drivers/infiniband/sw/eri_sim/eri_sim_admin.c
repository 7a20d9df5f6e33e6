// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim admin queue: the device executes admin commands in its own
 * context, in submission order, and answers each with a completion entry.
 *
 * Submission entries are memory the driver writes: each is copied once
 * before it is looked at, and every field is validated.
 */
#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/string.h>

#include "eri_sim_cc.h"
#include "eri_sim_qp.h"

union eri_sim_aq_cmd {
	struct eri_aq_cmd_hdr hdr;
	struct eri_aq_query_device_cmd query_device;
	struct eri_aq_query_port_cmd query_port;
	struct eri_aq_create_eq_cmd create_eq;
	struct eri_aq_destroy_eq_cmd destroy_eq;
	struct eri_aq_reg_mr_cmd reg_mr;
	struct eri_aq_dereg_mr_cmd dereg_mr;
	struct eri_aq_create_cq_cmd create_cq;
	struct eri_aq_destroy_cq_cmd destroy_cq;
	struct eri_aq_create_qp_cmd create_qp;
	struct eri_aq_qp_attr_cmd qp_attr;
	struct eri_aq_destroy_qp_cmd destroy_qp;
	struct eri_aq_query_stats_cmd query_stats;
	struct eri_aq_set_cc_cmd set_cc;
	struct eri_aq_query_cc_cmd query_cc;
	struct eri_aq_create_srq_cmd create_srq;
	struct eri_aq_modify_srq_cmd modify_srq;
	struct eri_aq_query_srq_cmd query_srq;
	struct eri_aq_destroy_srq_cmd destroy_srq;
	u8 raw[ERI_AQ_SQE_SIZE];
};

static_assert(sizeof(union eri_sim_aq_cmd) == ERI_AQ_SQE_SIZE);

static void eri_sim_fill_device_attr(struct eri_aq_device_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->fw_version = cpu_to_le64(ERI_SIM_FW_VERSION);
	attr->max_mr_size = cpu_to_le64(1ULL << 40);
	attr->page_size_cap = cpu_to_le64(SZ_4K | SZ_64K | SZ_2M | SZ_1G);
	attr->hw_version = cpu_to_le32(1);
	attr->caps = cpu_to_le32(ERI_DEV_CAP_RC | ERI_DEV_CAP_UD |
				 ERI_DEV_CAP_IMM | ERI_DEV_CAP_FAST_REG |
				 ERI_DEV_CAP_ATOMIC | ERI_DEV_CAP_SRQ |
				 ERI_DEV_CAP_CQ_PBL | ERI_DEV_CAP_CC_NAMES |
				 ERI_DEV_CAP_QP_CC |
				 (IS_ENABLED(CONFIG_IPV6) ?
				  ERI_DEV_CAP_IPV6 : 0));
	attr->max_ah = cpu_to_le32(ERI_SIM_MAX_AH);
	attr->max_fast_reg_pages = cpu_to_le32(ERI_SIM_MAX_FAST_REG_PAGES);
	attr->cc_algos = cpu_to_le32(eri_sim_cc_algos());
	attr->cc_default = eri_sim_cc_default()->index;
	attr->max_qp = cpu_to_le32(ERI_SIM_MAX_QP);
	attr->max_cq = cpu_to_le32(ERI_SIM_MAX_CQ);
	attr->max_srq = cpu_to_le32(ERI_SIM_MAX_SRQ);
	attr->max_srq_wr = cpu_to_le32(BIT(ERI_SIM_MAX_QP_WR_LOG));
	attr->max_mr = cpu_to_le32(ERI_SIM_MAX_MR);
	attr->max_pd = cpu_to_le32(ERI_SIM_MAX_PD);
	attr->max_qp_wr = cpu_to_le32(BIT(ERI_SIM_MAX_QP_WR_LOG));
	attr->max_cqe = cpu_to_le32(BIT(ERI_SIM_MAX_CQE_LOG));
	attr->max_send_sge = cpu_to_le16(6);
	attr->max_recv_sge = cpu_to_le16(7);
	attr->max_inline_data = cpu_to_le16(96);
	attr->max_mtu = cpu_to_le16(4096);
	attr->max_qp_rd_atom = ERI_SIM_ATOMIC_RES;
	attr->max_qp_init_rd_atom = ERI_SIM_ATOMIC_RES;
	attr->sq_wqe_shift = ERI_SQ_WQE_SHIFT;
	attr->rq_wqe_shift = ERI_RQ_WQE_SHIFT;
	attr->cqe_shift = 5;
	attr->ud_sq_wqe_shift = ERI_SQ_UD_WQE_SHIFT;
}

static u8 eri_sim_query_device(struct eri_sim_dev *sdev,
			       const struct eri_aq_query_device_cmd *cmd)
{
	u32 len = min_t(u32, le32_to_cpu(cmd->resp_len),
			sizeof(struct eri_aq_device_attr));
	struct eri_aq_device_attr attr;
	void *resp;

	resp = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->resp_addr), len);
	if (!resp)
		return ERI_AQ_STS_DMA_ERR;
	eri_sim_fill_device_attr(&attr);
	memcpy(resp, &attr, len);
	return ERI_AQ_STS_OK;
}

static u8 eri_sim_query_port(struct eri_sim_dev *sdev,
			     const struct eri_aq_query_port_cmd *cmd,
			     struct eri_aq_query_port_resp *resp)
{
	struct eri_sim_port port;

	if (le32_to_cpu(cmd->port) != 1)
		return ERI_AQ_STS_BAD_PARAM;
	spin_lock_bh(&sdev->port_lock);
	port = sdev->port;
	spin_unlock_bh(&sdev->port_lock);

	resp->state = cpu_to_le32(port.state);
	resp->link_mtu = cpu_to_le32(port.link_mtu);
	resp->speed_mbps = cpu_to_le32(port.speed_mbps);
	resp->gid_tbl_len = cpu_to_le32(ERI_SIM_GID_TBL_LEN);
	/* Later port changes are announced against what was queried. */
	sdev->port_reported = port;
	return ERI_AQ_STS_OK;
}

static u8 eri_sim_create_eq(struct eri_sim_dev *sdev,
			    const struct eri_aq_create_eq_cmd *cmd)
{
	u32 eqn = le32_to_cpu(cmd->eqn);
	u32 cfg = le32_to_cpu(cmd->cfg);
	u32 vector = FIELD_GET(ERI_AQ_CREATE_EQ_VECTOR, cfg);

	if (eqn >= ERI_SIM_MAX_CEQS || vector == ERI_MGMT_VECTOR)
		return ERI_AQ_STS_BAD_PARAM;
	if (READ_ONCE(sdev->ceq[eqn].valid))
		return ERI_AQ_STS_EXISTS;
	if (eri_sim_eq_create(sdev, &sdev->ceq[eqn],
			      le64_to_cpu(cmd->ring_addr),
			      le64_to_cpu(cmd->dbrec_addr),
			      FIELD_GET(ERI_AQ_CREATE_EQ_DEPTH_LOG, cfg),
			      sizeof(struct eri_ceqe), vector))
		return ERI_AQ_STS_BAD_PARAM;
	return ERI_AQ_STS_OK;
}

static u8 eri_sim_destroy_eq(struct eri_sim_dev *sdev,
			     const struct eri_aq_destroy_eq_cmd *cmd)
{
	u32 eqn = le32_to_cpu(cmd->eqn);

	if (eqn >= ERI_SIM_MAX_CEQS)
		return ERI_AQ_STS_BAD_PARAM;
	if (!READ_ONCE(sdev->ceq[eqn].valid))
		return ERI_AQ_STS_NOT_FOUND;
	eri_sim_eq_destroy(&sdev->ceq[eqn]);
	return ERI_AQ_STS_OK;
}

static u8 eri_sim_query_stats(struct eri_sim_dev *sdev,
			      const struct eri_aq_query_stats_cmd *cmd)
{
	u32 len = min_t(u32, le32_to_cpu(cmd->resp_len),
			ERI_STAT_NUM * sizeof(__le64));
	__le64 out[ERI_STAT_NUM];
	unsigned int cpu, i;
	void *resp;

	resp = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->resp_addr), len);
	if (!resp)
		return ERI_AQ_STS_DMA_ERR;
	for (i = 0; i < ERI_STAT_NUM; i++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			sum += READ_ONCE(per_cpu_ptr(sdev->stats, cpu)->v[i]);
		out[i] = cpu_to_le64(sum);
	}
	memcpy(resp, out, len);
	return ERI_AQ_STS_OK;
}

/* QPs created from now on take the algorithm; the device context orders it. */
static u8 eri_sim_set_cc(struct eri_sim_dev *sdev,
			 const struct eri_aq_set_cc_cmd *cmd)
{
	u32 algo = le32_to_cpu(cmd->algo);

	if (!eri_sim_cc_get(algo))
		return ERI_AQ_STS_BAD_PARAM;
	sdev->cc_algo = algo;
	return ERI_AQ_STS_OK;
}

/* The registered algorithms' names, by index; the other entries are 0. */
static u8 eri_sim_query_cc(struct eri_sim_dev *sdev,
			   const struct eri_aq_query_cc_cmd *cmd)
{
	u32 len = min_t(u32, le32_to_cpu(cmd->resp_len),
			ERI_CC_MAX_ALGOS * sizeof(struct eri_cc_desc));
	const struct eri_sim_cc_ops *ops, *def = eri_sim_cc_default();
	struct eri_cc_desc desc;
	unsigned int i;
	u32 flags;
	u8 *resp;

	resp = eri_sim_dma_ptr(sdev, le64_to_cpu(cmd->resp_addr), len);
	if (!resp)
		return ERI_AQ_STS_DMA_ERR;
	for (i = 0; i * sizeof(desc) < len; i++) {
		memset(&desc, 0, sizeof(desc));
		ops = eri_sim_cc_get(i);
		if (ops) {
			strscpy_pad(desc.name, ops->name, sizeof(desc.name));
			flags = ERI_CC_DESC_VALID | (ops->flags &
				(ERI_CC_DESC_ECN | ERI_CC_DESC_PACED));
			if (ops == def)
				flags |= ERI_CC_DESC_DEFAULT;
			desc.flags = cpu_to_le32(flags);
		}
		memcpy(resp + i * sizeof(desc), &desc,
		       min_t(u32, sizeof(desc), len - i * sizeof(desc)));
	}
	return ERI_AQ_STS_OK;
}

static u8 eri_sim_exec(struct eri_sim_dev *sdev,
		       const union eri_sim_aq_cmd *cmd, void *resp)
{
	switch (FIELD_GET(ERI_AQ_CMD_HDR_OPCODE, le32_to_cpu(cmd->hdr.hdr))) {
	case ERI_AQ_OP_QUERY_DEVICE:
		return eri_sim_query_device(sdev, &cmd->query_device);
	case ERI_AQ_OP_QUERY_PORT:
		return eri_sim_query_port(sdev, &cmd->query_port, resp);
	case ERI_AQ_OP_CREATE_EQ:
		return eri_sim_create_eq(sdev, &cmd->create_eq);
	case ERI_AQ_OP_DESTROY_EQ:
		return eri_sim_destroy_eq(sdev, &cmd->destroy_eq);
	case ERI_AQ_OP_REG_MR:
		return eri_sim_reg_mr(sdev, &cmd->reg_mr);
	case ERI_AQ_OP_DEREG_MR:
		return eri_sim_dereg_mr(sdev, &cmd->dereg_mr);
	case ERI_AQ_OP_CREATE_CQ:
		return eri_sim_create_cq(sdev, &cmd->create_cq);
	case ERI_AQ_OP_DESTROY_CQ:
		return eri_sim_destroy_cq(sdev, &cmd->destroy_cq);
	case ERI_AQ_OP_CREATE_QP:
		return eri_sim_create_qp(sdev, &cmd->create_qp);
	case ERI_AQ_OP_MODIFY_QP:
		return eri_sim_modify_qp(sdev, &cmd->qp_attr);
	case ERI_AQ_OP_QUERY_QP:
		return eri_sim_query_qp(sdev, &cmd->qp_attr);
	case ERI_AQ_OP_QUERY_QP_CC:
		return eri_sim_query_qp_cc(sdev, &cmd->qp_attr);
	case ERI_AQ_OP_DESTROY_QP:
		return eri_sim_destroy_qp(sdev, &cmd->destroy_qp);
	case ERI_AQ_OP_QUERY_STATS:
		return eri_sim_query_stats(sdev, &cmd->query_stats);
	case ERI_AQ_OP_SET_CC:
		return eri_sim_set_cc(sdev, &cmd->set_cc);
	case ERI_AQ_OP_QUERY_CC:
		return eri_sim_query_cc(sdev, &cmd->query_cc);
	case ERI_AQ_OP_CREATE_SRQ:
		return eri_sim_create_srq(sdev, &cmd->create_srq);
	case ERI_AQ_OP_MODIFY_SRQ:
		return eri_sim_modify_srq(sdev, &cmd->modify_srq);
	case ERI_AQ_OP_QUERY_SRQ:
		return eri_sim_query_srq(sdev, &cmd->query_srq, resp);
	case ERI_AQ_OP_DESTROY_SRQ:
		return eri_sim_destroy_srq(sdev, &cmd->destroy_srq);
	default:
		return ERI_AQ_STS_BAD_OPCODE;
	}
}

/* Answer one command at the completion ring's producer index. */
static void eri_sim_aq_complete(struct eri_sim_dev *sdev, u16 cookie,
				u8 status, const void *resp)
{
	struct eri_aq_cqe *cqe =
		&sdev->aq.cq[eri_ring_slot(sdev->aq.cq_pi, sdev->aq.depth_log)];
	u32 owner = eri_ring_owner(sdev->aq.cq_pi, sdev->aq.depth_log);

	memcpy(cqe->resp, resp, sizeof(cqe->resp));
	cqe->reserved = 0;
	/* Response before owner bit; pairs with dma_rmb() in the driver. */
	dma_wmb();
	WRITE_ONCE(cqe->hdr,
		   cpu_to_le32(FIELD_PREP(ERI_AQ_CQE_HDR_OWNER, owner) |
			       FIELD_PREP(ERI_AQ_CQE_HDR_STATUS, status) |
			       FIELD_PREP(ERI_AQ_CQE_HDR_COOKIE, cookie)));
	sdev->aq.cq_pi++;
}

/*
 * Wait @ms before a delayed completion; false when a reset came meanwhile
 * (it abandons the command, as a reset does on hardware).
 */
static bool eri_sim_aq_delay(struct eri_sim_dev *sdev, u32 ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (time_before(jiffies, end)) {
		if (!(eri_sim_reg(sdev, ERI_REG_DEV_STS) & ERI_REG_DEV_STS_READY))
			return false;
		msleep(min(ms, 20U));
	}
	return eri_sim_reg(sdev, ERI_REG_DEV_STS) & ERI_REG_DEV_STS_READY;
}

/* Run one command, or the fault that stands in for it; its status. */
static u8 eri_sim_aq_run(struct eri_sim_dev *sdev,
			 const union eri_sim_aq_cmd *cmd, void *resp)
{
	if (atomic_dec_if_positive(&sdev->fault.fail_next) >= 0)
		return READ_ONCE(sdev->fault.fail_status);
	return eri_sim_exec(sdev, cmd, resp);
}

/* The driver rang the admin doorbell: run every command up to it. */
void eri_sim_aq_work(struct work_struct *work)
{
	struct eri_sim_dev *sdev = container_of(work, struct eri_sim_dev,
						aq_work);
	struct eri_sim_fault *fault = &sdev->fault;
	u32 depth = 1U << sdev->aq.depth_log;
	bool completed = false;
	union eri_sim_aq_cmd cmd;
	u8 resp[24], status;
	u16 pi;

	if (!(eri_sim_reg(sdev, ERI_REG_DEV_STS) & ERI_REG_DEV_STS_READY))
		return;
	pi = FIELD_GET(ERI_REG_AQ_SQ_DB_PI,
		       eri_sim_reg(sdev, ERI_REG_AQ_SQ_DB));
	if (eri_ring_used(pi, sdev->aq.sq_ci) > depth) {
		/* The driver claims more commands than the ring holds. */
		eri_sim_fatal(sdev, ERI_DEV_ERR_BAD_AQ_CONFIG);
		return;
	}
	/* A stalled device leaves the commands where they are. */
	while (sdev->aq.sq_ci != pi && !READ_ONCE(fault->stall)) {
		memcpy(&cmd, sdev->aq.sq +
		       (size_t)eri_ring_slot(sdev->aq.sq_ci, sdev->aq.depth_log) *
		       ERI_AQ_SQE_SIZE, sizeof(cmd));
		memset(resp, 0, sizeof(resp));
		status = eri_sim_aq_run(sdev, &cmd, resp);
		sdev->aq.sq_ci++;
		if (atomic_dec_if_positive(&fault->delay_next) >= 0) {
			/* What is done is not kept waiting behind the delay. */
			if (completed)
				eri_sim_raise_irq(sdev, ERI_MGMT_VECTOR);
			completed = false;
			if (!eri_sim_aq_delay(sdev, READ_ONCE(fault->delay_ms)))
				break;
		}
		if (atomic_dec_if_positive(&fault->drop_next) < 0) {
			eri_sim_aq_complete(sdev,
					    FIELD_GET(ERI_AQ_CMD_HDR_COOKIE,
						      le32_to_cpu(cmd.hdr.hdr)),
					    status, resp);
			completed = true;
		}
		/* A command may have reset or stopped the device. */
		if (!(eri_sim_reg(sdev, ERI_REG_DEV_STS) & ERI_REG_DEV_STS_READY))
			break;
	}
	if (completed)
		eri_sim_deliver_irq(sdev, ERI_MGMT_VECTOR);
}
