/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * liberi: rdma-core provider of the ERI (Elastic RDMA Interface) device.
 */
#ifndef __ERI_H__
#define __ERI_H__

#include <stdint.h>

#include <infiniband/driver.h>
#include <util/util.h>

struct eri_device {
	struct verbs_device ibvdev;
};

/* The device limits the kernel reports in its ucontext response. */
struct eri_context {
	struct verbs_context ibvctx;
	uint32_t dev_caps;		/* ERI_UCTX_CAP_* */
	uint32_t max_inline_data;
	uint16_t max_send_sge;
	uint16_t max_recv_sge;
	uint8_t sq_wqe_shift;
	uint8_t rq_wqe_shift;
	uint8_t cqe_shift;
};

struct eri_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
};

static inline struct eri_device *to_eri_dev(struct ibv_device *ibvdev)
{
	return container_of(ibvdev, struct eri_device, ibvdev.device);
}

static inline struct eri_context *to_eri_ctx(struct ibv_context *ibvctx)
{
	return container_of(ibvctx, struct eri_context, ibvctx.context);
}

static inline struct eri_pd *to_eri_pd(struct ibv_pd *ibvpd)
{
	return container_of(ibvpd, struct eri_pd, ibvpd);
}

#endif /* __ERI_H__ */
