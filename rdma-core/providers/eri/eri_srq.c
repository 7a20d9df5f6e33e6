// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * liberi: shared receive queues, whose ring and doorbell record the kernel
 * allocates and maps to us.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ccan/minmax.h>
#include <util/udma_barrier.h>

#include "eri.h"
#include "eri-abi.h"

struct ibv_srq *eri_create_srq(struct ibv_pd *ibvpd,
			       struct ibv_srq_init_attr *attr)
{
	struct eri_context *ctx = to_eri_ctx(ibvpd->context);
	struct eri_create_srq_resp resp = {};
	struct eri_create_srq cmd = {};
	struct eri_srq *srq;
	uint32_t depth, i;
	int err;

	if (ctx->rq_wqe_shift != ERI_RQ_WQE_SHIFT) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	err = pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	if (err)
		goto err_free;

	/* It copies back the max_wr and max_sge the kernel granted. */
	err = ibv_cmd_create_srq(ibvpd, &srq->ibvsrq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_lock;

	/* What the kernel says about the mappings is checked, not trusted. */
	srq->srqn = resp.srqn;
	srq->depth_log = resp.depth_log;
	srq->max_sge = min_t(uint32_t, attr->attr.max_sge, ERI_RQ_WQE_MAX_SGE);
	if (srq->depth_log > ERI_RING_MAX_DEPTH_LOG ||
	    resp.ring_size < ((size_t)ERI_RQ_WQE_SIZE << srq->depth_log) ||
	    resp.dbrec_size < sizeof(struct eri_srq_dbrec)) {
		err = EINVAL;
		goto err_destroy;
	}
	depth = 1U << srq->depth_log;
	srq->wr_id = calloc(depth, sizeof(*srq->wr_id));
	srq->free = calloc(depth, sizeof(*srq->free));
	srq->busy = calloc((depth + 63) / 64, sizeof(*srq->busy));
	if (!srq->wr_id || !srq->free || !srq->busy) {
		err = ENOMEM;
		goto err_tables;
	}
	/* Tag 0 is popped first. */
	for (i = 0; i < depth; i++)
		srq->free[i] = depth - 1 - i;
	srq->nfree = depth;
	srq->ring = eri_mmap(ibvpd->context, resp.ring_size,
			     PROT_READ | PROT_WRITE, resp.ring_mmap_key);
	if (!srq->ring) {
		err = errno;
		goto err_tables;
	}
	srq->ring_size = resp.ring_size;
	srq->dbrec = eri_mmap(ibvpd->context, resp.dbrec_size,
			      PROT_READ | PROT_WRITE, resp.dbrec_mmap_key);
	if (!srq->dbrec) {
		err = errno;
		goto err_ring;
	}
	srq->dbrec_size = resp.dbrec_size;

	pthread_spin_lock(&ctx->srq_lock);
	list_add_tail(&ctx->srqs, &srq->entry);
	pthread_spin_unlock(&ctx->srq_lock);

	return &srq->ibvsrq;

err_ring:
	eri_munmap(srq->ring, resp.ring_size);
err_tables:
	free(srq->busy);
	free(srq->free);
	free(srq->wr_id);
err_destroy:
	ibv_cmd_destroy_srq(&srq->ibvsrq);
err_lock:
	pthread_spin_destroy(&srq->lock);
err_free:
	free(srq);
	errno = err;
	return NULL;
}

int eri_modify_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr,
		   int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	return ibv_cmd_modify_srq(ibvsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int eri_query_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibvsrq, attr, &cmd, sizeof(cmd));
}

int eri_destroy_srq(struct ibv_srq *ibvsrq)
{
	struct eri_context *ctx = to_eri_ctx(ibvsrq->context);
	struct eri_srq *srq = to_eri_srq(ibvsrq);
	int err;

	/* EBUSY while a QP receives from it; afterwards nothing is taken. */
	err = ibv_cmd_destroy_srq(ibvsrq);
	if (err)
		return err;

	/* Pollers retiring orphan completions look it up under this lock. */
	pthread_spin_lock(&ctx->srq_lock);
	list_del(&srq->entry);
	pthread_spin_unlock(&ctx->srq_lock);

	eri_munmap(srq->dbrec, srq->dbrec_size);
	eri_munmap(srq->ring, srq->ring_size);
	free(srq->busy);
	free(srq->free);
	free(srq->wr_id);
	pthread_spin_destroy(&srq->lock);
	free(srq);

	return 0;
}

int eri_post_srq_recv(struct ibv_srq *ibvsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	struct eri_srq *srq = to_eri_srq(ibvsrq);
	uint16_t start;
	int err = 0;

	/* Serializes posters, and them with pollers giving tags back. */
	pthread_spin_lock(&srq->lock);
	start = srq->pi;
	for (; wr; wr = wr->next) {
		uint32_t slot = eri_ring_slot(srq->pi, srq->depth_log);
		struct eri_rq_wqe_hdr *wqe;
		uint64_t total = 0;
		uint16_t tag;
		int i;

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge ||
		    (wr->num_sge && !wr->sg_list)) {
			err = EINVAL;
			*bad_wr = wr;
			break;
		}
		for (i = 0; i < wr->num_sge; i++)
			total += wr->sg_list[i].length;
		if (total > ERI_WQE_MAX_LENGTH) {
			err = EINVAL;
			*bad_wr = wr;
			break;
		}
		if (!srq->nfree) {
			err = ENOMEM;
			*bad_wr = wr;
			break;
		}
		/* A free tag means the device took this slot's WQE. */
		tag = srq->free[--srq->nfree];
		srq->busy[tag / 64] |= 1ULL << (tag % 64);
		srq->wr_id[tag] = wr->wr_id;

		wqe = (void *)((uint8_t *)srq->ring +
			       ((size_t)slot << ERI_RQ_WQE_SHIFT));
		wqe->hdr = htole32(FIELD_PREP(ERI_RQ_WQE_HDR_NUM_SGE,
					      wr->num_sge));
		wqe->tag = htole32(tag);
		memset(wqe->reserved, 0, sizeof(wqe->reserved));
		eri_write_sges((struct eri_sge *)(wqe + 1), wr->sg_list,
			       wr->num_sge);
		srq->pi++;
	}
	if (srq->pi != start) {
		/*
		 * The WQEs before the index that hands them over; pairs with
		 * the device's read barrier after it reads the index.  No
		 * kick: the device reads the index when a QP needs a WQE.
		 */
		udma_to_device_barrier();
		eri_write_once32(&srq->dbrec->pi, srq->pi);
	}
	pthread_spin_unlock(&srq->lock);

	return err;
}
