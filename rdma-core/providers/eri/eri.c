/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * liberi: rdma-core provider of the ERI (Elastic RDMA Interface) device.
 *
 * The control path (context, device and port queries, protection domains,
 * memory regions, address handles) is here; completion queues, queue pairs
 * and shared receive queues, with their data path, each in a file of its
 * own (eri_cq.c, eri_qp.c, eri_srq.c).  Every verb left out of eri_ctx_ops
 * is answered by libibverbs with EOPNOTSUPP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <ccan/minmax.h>

#include "eri.h"
#include "eri-abi.h"

static int eri_query_device_ex(struct ibv_context *ibvctx,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw_ver;
	int err;

	err = ibv_cmd_query_device_any(ibvctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (err)
		return err;

	fw_ver = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw_ver >> 32) & 0xffff,
		 (unsigned int)(fw_ver >> 16) & 0xffff,
		 (unsigned int)fw_ver & 0xffff);

	return 0;
}

static int eri_query_port(struct ibv_context *ibvctx, uint8_t port,
			  struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ibvctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *eri_alloc_pd(struct ibv_context *ibvctx)
{
	struct eri_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd = {};
	struct eri_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_alloc_pd(ibvctx, &pd->ibvpd, &cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}

	pd->pdn = resp.pdn;

	return &pd->ibvpd;
}

static int eri_dealloc_pd(struct ibv_pd *ibvpd)
{
	struct eri_pd *pd = to_eri_pd(ibvpd);
	int err;

	err = ibv_cmd_dealloc_pd(ibvpd);
	if (err)
		return err;

	free(pd);

	return 0;
}

static struct ibv_mr *eri_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}

	return &vmr->ibv_mr;
}

static int eri_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err)
		return err;

	free(vmr);

	return 0;
}

static void eri_free_context(struct ibv_context *ibvctx)
{
	struct eri_context *ctx = to_eri_ctx(ibvctx);
	unsigned int i;

	/* Second levels of the QP table live as long as the context. */
	for (i = 0; i < ERI_QP_TABLE_SIZE; i++)
		free(ctx->qp_table[i]);
	pthread_mutex_destroy(&ctx->qp_table_mutex);
	pthread_spin_destroy(&ctx->srq_lock);
	if (ctx->status)
		munmap((void *)ctx->status, ctx->status_size);
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
}

/*
 * Map the context's status page, which tells poll_cq when the device is
 * gone (see struct eri_uctx_status).  Return: 0 or an errno.
 */
static int eri_map_status(struct eri_context *ctx,
			  const struct eri_alloc_ucontext_resp *resp)
{
	void *p;

	if (!(resp->comp_mask & ERI_UCTX_RESP_STATUS_PAGE))
		return 0;
	if (resp->status_size < sizeof(*ctx->status))
		return EINVAL;
	p = mmap(NULL, resp->status_size, PROT_READ, MAP_SHARED,
		 ctx->ibvctx.context.cmd_fd, resp->status_mmap_key);
	if (p == MAP_FAILED)
		return errno;
	ctx->status = p;
	ctx->status_size = resp->status_size;
	return 0;
}

static const struct verbs_context_ops eri_ctx_ops = {
	.alloc_pd = eri_alloc_pd,
	.create_ah = eri_create_ah,
	.create_cq = eri_create_cq,
	.create_cq_ex = eri_create_cq_ex,
	.create_qp = eri_create_qp,
	.create_qp_ex = eri_create_qp_ex,
	.create_srq = eri_create_srq,
	.dealloc_pd = eri_dealloc_pd,
	.dereg_mr = eri_dereg_mr,
	.destroy_ah = eri_destroy_ah,
	.destroy_cq = eri_destroy_cq,
	.destroy_qp = eri_destroy_qp,
	.destroy_srq = eri_destroy_srq,
	.free_context = eri_free_context,
	.modify_qp = eri_modify_qp,
	.modify_srq = eri_modify_srq,
	.poll_cq = eri_poll_cq,
	.post_recv = eri_post_recv,
	.post_send = eri_post_send,
	.post_srq_recv = eri_post_srq_recv,
	.query_device_ex = eri_query_device_ex,
	.query_port = eri_query_port,
	.query_qp = eri_query_qp,
	.query_srq = eri_query_srq,
	.reg_mr = eri_reg_mr,
	.req_notify_cq = eri_req_notify_cq,
};

static struct verbs_context *eri_alloc_context(struct ibv_device *ibvdev,
					       int cmd_fd, void *private_data)
{
	struct eri_alloc_ucontext_resp resp = {};
	struct eri_alloc_ucontext cmd = {};
	struct eri_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibvdev, cmd_fd, ctx, ibvctx,
					   RDMA_DRIVER_ERI);
	if (!ctx)
		return NULL;

	cmd.comp_mask = 0;
	err = ibv_cmd_get_context(&ctx->ibvctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (err) {
		errno = err;
		goto err_free;
	}

	ctx->dev_caps = resp.dev_caps;
	ctx->max_inline_data = resp.max_inline_data;
	ctx->max_send_sge = resp.max_send_sge;
	ctx->max_recv_sge = resp.max_recv_sge;
	ctx->sq_wqe_shift = resp.sq_wqe_shift;
	ctx->rq_wqe_shift = resp.rq_wqe_shift;
	ctx->cqe_shift = resp.cqe_shift;
	if (resp.dev_caps & ERI_UCTX_CAP_CQ_USER_RING)
		ctx->max_cq_depth_log = min_t(uint32_t, resp.max_cq_depth_log,
					      ERI_CQ_MAX_DEPTH_LOG);

	err = pthread_mutex_init(&ctx->qp_table_mutex, NULL);
	if (err) {
		errno = err;
		goto err_free;
	}
	err = pthread_spin_init(&ctx->srq_lock, PTHREAD_PROCESS_PRIVATE);
	if (err) {
		pthread_mutex_destroy(&ctx->qp_table_mutex);
		errno = err;
		goto err_free;
	}
	list_head_init(&ctx->srqs);
	err = eri_map_status(ctx, &resp);
	if (err) {
		pthread_spin_destroy(&ctx->srq_lock);
		pthread_mutex_destroy(&ctx->qp_table_mutex);
		errno = err;
		goto err_free;
	}

	verbs_set_ops(&ctx->ibvctx, &eri_ctx_ops);

	return &ctx->ibvctx;

err_free:
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	return NULL;
}

static struct verbs_device *eri_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct eri_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	return &dev->ibvdev;
}

static void eri_device_free(struct verbs_device *vdev)
{
	struct eri_device *dev = container_of(vdev, struct eri_device, ibvdev);

	free(dev);
}

static const struct verbs_match_ent eri_match_table[] = {
	VERBS_DRIVER_ID(RDMA_DRIVER_ERI),
	{},
};

static const struct verbs_device_ops eri_dev_ops = {
	.name = "eri",
	.match_min_abi_version = ERI_UVERBS_ABI_VERSION,
	.match_max_abi_version = ERI_UVERBS_ABI_VERSION,
	.match_table = eri_match_table,
	.alloc_device = eri_device_alloc,
	.uninit_device = eri_device_free,
	.alloc_context = eri_alloc_context,
};

PROVIDER_DRIVER(eri, eri_dev_ops);

/* Address handles */

struct ibv_ah *eri_create_ah(struct ibv_pd *ibvpd, struct ibv_ah_attr *attr)
{
	struct eri_create_ah_resp resp = {};
	struct eri_ah *ah;
	int err;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}

	/* The kernel checks the address and resolves the source GID. */
	err = ibv_cmd_create_ah(ibvpd, &ah->ibvah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		free(ah);
		errno = err;
		return NULL;
	}

	memcpy(ah->av.dgid, resp.dgid, sizeof(ah->av.dgid));
	memcpy(ah->av.sgid, resp.sgid, sizeof(ah->av.sgid));
	ah->av.flow_label = htole32(resp.flow_label);
	ah->av.hop_limit = resp.hop_limit;
	ah->av.traffic_class = resp.traffic_class;

	return &ah->ibvah;
}

int eri_destroy_ah(struct ibv_ah *ibvah)
{
	int err;

	err = ibv_cmd_destroy_ah(ibvah);
	if (err)
		return err;
	free(to_eri_ah(ibvah));

	return 0;
}
