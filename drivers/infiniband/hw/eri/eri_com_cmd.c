// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI admin commands: each function builds one command, runs it and
 * translates the answer into CPU byte order.
 */
#include <linux/bitfield.h>

#include "eri_com_cmd.h"

static struct eri_aq_cmd_hdr eri_com_hdr(enum eri_aq_opcode op)
{
	return (struct eri_aq_cmd_hdr){
		.hdr = cpu_to_le32(FIELD_PREP(ERI_AQ_CMD_HDR_OPCODE, op)),
	};
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
	ret = eri_com_exec(com, &cmd, sizeof(cmd), NULL, 0);
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
	attr->max_send_sge = le16_to_cpu(r->max_send_sge);
	attr->max_recv_sge = le16_to_cpu(r->max_recv_sge);
	attr->max_inline_data = le16_to_cpu(r->max_inline_data);
	attr->max_mtu = le16_to_cpu(r->max_mtu);
	attr->max_qp_rd_atom = r->max_qp_rd_atom;
	attr->max_qp_init_rd_atom = r->max_qp_init_rd_atom;
	attr->sq_wqe_shift = r->sq_wqe_shift;
	attr->rq_wqe_shift = r->rq_wqe_shift;
	attr->cqe_shift = r->cqe_shift;
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
	attr->speed_mbps = le32_to_cpu(resp.speed_mbps);
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

	return eri_com_exec(com, &cmd, sizeof(cmd), NULL, 0);
}

int eri_com_destroy_eq(struct eri_com_dev *com, u32 eqn)
{
	struct eri_aq_destroy_eq_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_DESTROY_EQ),
		.eqn = cpu_to_le32(eqn),
	};

	return eri_com_exec(com, &cmd, sizeof(cmd), NULL, 0);
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
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_REG_MR_ACCESS, attr->access) |
				   (attr->dma ? ERI_AQ_REG_MR_DMA : 0) |
				   FIELD_PREP(ERI_AQ_REG_MR_PAGE_SHIFT,
					      attr->page_shift)),
	};

	return eri_com_exec(com, &cmd, sizeof(cmd), NULL, 0);
}

int eri_com_dereg_mr(struct eri_com_dev *com, u32 key)
{
	struct eri_aq_dereg_mr_cmd cmd = {
		.hdr = eri_com_hdr(ERI_AQ_OP_DEREG_MR),
		.key = cpu_to_le32(key),
	};

	return eri_com_exec(com, &cmd, sizeof(cmd), NULL, 0);
}
