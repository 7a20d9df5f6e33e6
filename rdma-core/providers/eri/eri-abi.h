/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Command and response buffers of the ERI verbs: the core uverbs structure
 * followed by the driver data of <rdma/eri-abi.h>.
 */
#ifndef __ERI_ABI_H__
#define __ERI_ABI_H__

#include <infiniband/kern-abi.h>
#include <kernel-abi/eri-abi.h>
#include <rdma/eri-abi.h>

DECLARE_DRV_CMD(eri_alloc_ucontext, IB_USER_VERBS_CMD_GET_CONTEXT,
		eri_ibv_alloc_ucontext_req, eri_ibv_alloc_ucontext_resp);
DECLARE_DRV_CMD(eri_alloc_pd, IB_USER_VERBS_CMD_ALLOC_PD, empty,
		eri_ibv_alloc_pd_resp);
DECLARE_DRV_CMD(eri_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		eri_ibv_create_cq_req, eri_ibv_create_cq_resp);
DECLARE_DRV_CMD(eri_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		eri_ibv_create_qp_req, eri_ibv_create_qp_resp);
DECLARE_DRV_CMD(eri_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ, empty,
		eri_ibv_create_srq_resp);
DECLARE_DRV_CMD(eri_create_ah, IB_USER_VERBS_CMD_CREATE_AH, empty,
		eri_ibv_create_ah_resp);

#endif /* __ERI_ABI_H__ */
