/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* ERI admin commands: one function per command. */
#ifndef _ERI_COM_CMD_H_
#define _ERI_COM_CMD_H_

#include "eri_com.h"

/* Device capabilities from QUERY_DEVICE, in CPU byte order. */
struct eri_com_dev_attr {
	u64 fw_version;
	u64 max_mr_size;
	u64 page_size_cap;
	u32 hw_version;
	u32 caps;
	u32 max_qp;
	u32 max_cq;
	u32 max_mr;
	u32 max_pd;
	u32 max_qp_wr;
	u32 max_cqe;
	u32 max_srq;
	u32 max_srq_wr;
	u32 max_ah;
	u32 max_fast_reg_pages;	/* pages of a fast-registration region */
	u32 cc_algos;		/* BIT(index) of each CC algorithm */
	u8 cc_default;		/* CC algorithm index after a reset */
	u16 max_send_sge;
	u16 max_recv_sge;
	u16 max_inline_data;
	u16 max_mtu;
	u8 max_qp_rd_atom;
	u8 max_qp_init_rd_atom;
	u8 sq_wqe_shift;
	u8 rq_wqe_shift;
	u8 cqe_shift;
	u8 ud_sq_wqe_shift;
};

struct eri_com_port_attr {
	u32 state;		/* enum eri_port_state */
	u32 link_mtu;
	u32 gid_tbl_len;
};

/* REG_MR parameters, in CPU byte order. */
struct eri_com_mr_attr {
	u32 key;
	u32 pdn;
	u32 access;		/* ERI_MR_ACCESS_* */
	bool dma;		/* bus addresses one to one, no page list */
	bool fast_reg;		/* reserved for REG_MR work requests */
	u64 iova;
	u64 length;
	dma_addr_t pbl;		/* page list: npages little-endian addresses */
	u32 npages;		/* fast_reg: room for that many pages */
	u32 page_shift;
};

/* CREATE_CQ parameters, in CPU byte order. */
struct eri_com_cq_create {
	u32 cqn;
	u32 eqn;
	u32 depth_log;		/* 2^depth_log CQEs */
	dma_addr_t ring;	/* the ring, or with npages its page list */
	u32 npages;		/* page list entries; 0: a contiguous ring */
	u32 page_shift;		/* of the page list's pages */
	dma_addr_t dbrec;	/* struct eri_cq_dbrec */
};

/* CREATE_QP parameters, in CPU byte order. */
struct eri_com_qp_create {
	u32 type;		/* enum eri_qp_type */
	u32 qpn;
	u32 pdn;
	u32 send_cqn;
	u32 recv_cqn;
	dma_addr_t sq;		/* 2^sq_depth_log send WQEs */
	dma_addr_t rq;		/* 2^rq_depth_log receive WQEs */
	dma_addr_t dbrec;	/* struct eri_qp_dbrec */
	u32 sq_depth_log;
	u32 rq_depth_log;
	bool sq_sig_all;	/* every send WQE completes */
	bool srq;		/* receives from SRQ @srqn; no rq */
	u32 srqn;
};

int eri_com_query_device(struct eri_com_dev *com,
			 struct eri_com_dev_attr *attr);
int eri_com_query_port(struct eri_com_dev *com, struct eri_com_port_attr *attr);
int eri_com_create_eq(struct eri_com_dev *com, u32 eqn, dma_addr_t ring,
		      dma_addr_t dbrec, u32 depth_log, u32 vector);
int eri_com_destroy_eq(struct eri_com_dev *com, u32 eqn);
int eri_com_reg_mr(struct eri_com_dev *com, const struct eri_com_mr_attr *attr);
int eri_com_dereg_mr(struct eri_com_dev *com, u32 key);
int eri_com_create_cq(struct eri_com_dev *com,
		      const struct eri_com_cq_create *p);
int eri_com_destroy_cq(struct eri_com_dev *com, u32 cqn);
int eri_com_create_qp(struct eri_com_dev *com,
		      const struct eri_com_qp_create *p);
int eri_com_modify_qp(struct eri_com_dev *com, u32 qpn,
		      const struct eri_qp_attr *attr);
int eri_com_query_qp(struct eri_com_dev *com, u32 qpn,
		     struct eri_qp_attr *attr);
int eri_com_query_qp_cc(struct eri_com_dev *com, u32 qpn,
			struct eri_qp_cc *cc);
int eri_com_destroy_qp(struct eri_com_dev *com, u32 qpn);
int eri_com_create_srq(struct eri_com_dev *com, u32 srqn, u32 pdn,
		       dma_addr_t ring, dma_addr_t dbrec, u32 depth_log);
int eri_com_modify_srq(struct eri_com_dev *com, u32 srqn, u32 mask,
		       u32 limit);
int eri_com_query_srq(struct eri_com_dev *com, u32 srqn,
		      struct eri_aq_query_srq_resp *resp);
int eri_com_destroy_srq(struct eri_com_dev *com, u32 srqn);
int eri_com_set_cc(struct eri_com_dev *com, u32 algo);
int eri_com_query_cc(struct eri_com_dev *com, struct eri_cc_desc *descs);
int eri_com_query_stats(struct eri_com_dev *com, u64 *stats,
			unsigned int num);

#endif /* _ERI_COM_CMD_H_ */
