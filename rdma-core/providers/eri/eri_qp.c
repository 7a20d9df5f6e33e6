// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * liberi: queue pairs and their work requests.
 *
 * The kernel allocates the rings and doorbell records of queue pairs and
 * SRQs and maps them to us (mmap() on the uverbs file at the offsets of the
 * create responses).  After that, posting touches only shared memory, in
 * the formats of eri_hw.h.  The one system call of the fast path is the
 * send queue kick: a POST_SEND with no work requests, made only when the
 * device asked for one in the QP's doorbell record
 * (Documentation/infiniband/eri.rst, "Doorbells and kicks"), and the same
 * for the receive queue while the QP is in ERR.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ccan/array_size.h>
#include <ccan/minmax.h>
#include <util/udma_barrier.h>

#include "eri.h"
#include "eri-abi.h"

/*
 * QPN -> QP table.  Insertions and removals hold qp_table_mutex; lookups
 * from poll_cq take no lock: a second level, once published, stays until
 * the context is freed, and entries are stored and loaded atomically.
 */
int eri_qp_table_insert(struct eri_context *ctx, struct eri_qp *qp)
{
	uint32_t qpn = qp->qpn;
	struct eri_qp **leaf;
	int err = 0;

	if (qpn >> ERI_QPN_BITS)
		return EINVAL;

	pthread_mutex_lock(&ctx->qp_table_mutex);
	leaf = ctx->qp_table[qpn >> ERI_QP_TABLE_SHIFT];
	if (!leaf) {
		leaf = calloc(ERI_QP_TABLE_SIZE, sizeof(*leaf));
		if (!leaf) {
			err = ENOMEM;
			goto out;
		}
		/* Publish the zeroed level only after it is zeroed. */
		__atomic_store_n(&ctx->qp_table[qpn >> ERI_QP_TABLE_SHIFT],
				 leaf, __ATOMIC_RELEASE);
	}
	if (leaf[qpn & ERI_QP_TABLE_MASK]) {
		/* The kernel handed out a QPN that is still in use. */
		err = EEXIST;
		goto out;
	}
	/* Publish the QP only after it is fully initialized. */
	__atomic_store_n(&leaf[qpn & ERI_QP_TABLE_MASK], qp, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	return err;
}

/* Called with qp_table_mutex held (and the locks of the QP's CQs). */
void eri_qp_table_remove_locked(struct eri_context *ctx, struct eri_qp *qp)
{
	struct eri_qp **leaf = ctx->qp_table[qp->qpn >> ERI_QP_TABLE_SHIFT];

	if (leaf && leaf[qp->qpn & ERI_QP_TABLE_MASK] == qp)
		__atomic_store_n(&leaf[qp->qpn & ERI_QP_TABLE_MASK], NULL,
				 __ATOMIC_RELEASE);
}

/* Queue pairs */

/*
 * Set up @wq on a ring of @size bytes: @part of the QP's one mapping, or
 * (@part NULL) its own mapping at @key.
 */
static int eri_wq_init(struct eri_wq *wq, struct ibv_context *ibvctx,
		       void *part, uint64_t key, uint32_t size,
		       uint32_t depth_log, uint32_t wqe_shift, uint32_t max_wr,
		       uint32_t max_sge)
{
	int err;

	err = pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
	if (err)
		return err;

	/* A queue the QP does not have (no receive WRs, say) has no ring. */
	if (!size)
		return 0;
	if (depth_log > ERI_RING_MAX_DEPTH_LOG ||
	    size < ((size_t)1 << (depth_log + wqe_shift)))
		return EINVAL;

	wq->depth_log = depth_log;
	wq->wqe_shift = wqe_shift;
	wq->max_wr = min_t(uint32_t, max_wr, 1U << depth_log);
	wq->max_sge = max_sge;
	wq->wr_id = calloc(1U << depth_log, sizeof(*wq->wr_id));
	if (!wq->wr_id)
		return ENOMEM;
	if (part) {
		wq->ring = part;
		return 0;
	}
	wq->ring = eri_mmap(ibvctx, size, PROT_READ | PROT_WRITE, key);
	if (!wq->ring)
		return errno;
	wq->ring_size = size;

	return 0;
}

static void eri_wq_cleanup(struct eri_wq *wq)
{
	if (wq->ring_size)
		eri_munmap(wq->ring, wq->ring_size);
	free(wq->wr_id);
	pthread_spin_destroy(&wq->lock);
}

/*
 * The QP's one mapping, when the kernel gave one: both rings and the
 * record must lie inside it.  Return: 0 or an errno.
 */
static int eri_qp_map(struct eri_qp *qp, struct ibv_context *ibvctx,
		      const struct eri_create_qp_resp *resp)
{
	uint64_t size = resp->mmap_size;

	if (!(resp->comp_mask & ERI_CREATE_QP_RESP_ONE_MAPPING))
		return 0;
	if (resp->sq_size > size ||
	    (uint64_t)resp->rq_offset + resp->rq_size > size ||
	    (uint64_t)resp->dbrec_offset + resp->dbrec_size > size ||
	    resp->dbrec_offset % 8)
		return EINVAL;
	qp->map = eri_mmap(ibvctx, size, PROT_READ | PROT_WRITE,
			   resp->sq_mmap_key);
	if (!qp->map)
		return errno;
	qp->map_size = size;
	return 0;
}

/* Undo what eri_qp_create mapped of a QP's queues. */
static void eri_qp_unmap(struct eri_qp *qp)
{
	if (qp->dbrec_size)
		eri_munmap(qp->dbrec, qp->dbrec_size);
	eri_wq_cleanup(&qp->rq);
	eri_wq_cleanup(&qp->sq);
	eri_munmap(qp->map, qp->map_size);
}

/*
 * Create a QP for ibv_create_qp and ibv_create_qp_ex alike; @attr's
 * comp_mask is checked by the caller.  Return: the QP, or NULL with errno.
 */
static struct eri_qp *eri_qp_create(struct ibv_context *ibvctx,
				    struct ibv_qp_init_attr_ex *attr)
{
	struct eri_context *ctx = to_eri_ctx(ibvctx);
	struct eri_create_qp_resp resp = {};
	struct eri_create_qp cmd = {};
	uint32_t sq_wqe_shift;
	struct eri_qp *qp;
	int err;

	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UD) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* The WQE formats of eri_hw.h are the only ones we know. */
	if (ctx->sq_wqe_shift != ERI_SQ_WQE_SHIFT ||
	    ctx->rq_wqe_shift != ERI_RQ_WQE_SHIFT) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}

	if (ctx->dev_caps & ERI_UCTX_CAP_QP_ONE_MAPPING)
		cmd.comp_mask = ERI_CREATE_QP_ONE_MAPPING;
	err = ibv_cmd_create_qp_ex(ibvctx, &qp->vqp, attr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;

	/* attr->cap now holds what the kernel granted. */
	qp->qpn = resp.qpn;
	qp->srq = attr->srq ? to_eri_srq(attr->srq) : NULL;
	qp->ud = attr->qp_type == IBV_QPT_UD;
	qp->sq_sig_all = attr->sq_sig_all;
	qp->max_inline_data = min_t(uint32_t, attr->cap.max_inline_data,
				    qp->ud ? ERI_SQ_UD_MAX_INLINE :
					     ERI_SQ_WQE_MAX_INLINE);
	if (qp->qpn != qp->vqp.qp.qp_num) {
		err = EINVAL;
		goto err_destroy;
	}
	/*
	 * A UD send WQE is twice an RC one; a kernel that does not say so
	 * has the UD format this provider no longer writes.
	 */
	sq_wqe_shift = resp.sq_wqe_shift ? resp.sq_wqe_shift : ctx->sq_wqe_shift;
	if (sq_wqe_shift != (qp->ud ? ERI_SQ_UD_WQE_SHIFT : ERI_SQ_WQE_SHIFT)) {
		err = EOPNOTSUPP;
		goto err_destroy;
	}

	err = eri_qp_map(qp, ibvctx, &resp);
	if (err)
		goto err_destroy;
	err = eri_wq_init(&qp->sq, ibvctx, qp->map, resp.sq_mmap_key,
			  resp.sq_size, resp.sq_depth_log, sq_wqe_shift,
			  attr->cap.max_send_wr,
			  min_t(uint32_t, attr->cap.max_send_sge,
				qp->ud ? ERI_SQ_UD_MAX_SGE :
					 ERI_SQ_WQE_MAX_SGE));
	if (err)
		goto err_sq;
	err = eri_wq_init(&qp->rq, ibvctx,
			  qp->map ? (uint8_t *)qp->map + resp.rq_offset : NULL,
			  resp.rq_mmap_key, resp.rq_size, resp.rq_depth_log,
			  ERI_RQ_WQE_SHIFT,
			  attr->cap.max_recv_wr,
			  min_t(uint32_t, attr->cap.max_recv_sge,
				ERI_RQ_WQE_MAX_SGE));
	if (err)
		goto err_rq;

	if (resp.dbrec_size < sizeof(struct eri_qp_dbrec)) {
		err = EINVAL;
		goto err_rq;
	}
	if (qp->map) {
		qp->dbrec = (void *)((uint8_t *)qp->map + resp.dbrec_offset);
	} else {
		qp->dbrec = eri_mmap(ibvctx, resp.dbrec_size,
				     PROT_READ | PROT_WRITE,
				     resp.dbrec_mmap_key);
		if (!qp->dbrec) {
			err = errno;
			goto err_rq;
		}
		qp->dbrec_size = resp.dbrec_size;
	}

	err = eri_qp_table_insert(ctx, qp);
	if (err)
		goto err_dbrec;

	return qp;

err_dbrec:
	eri_qp_unmap(qp);
	goto err_destroy;
err_rq:
	eri_wq_cleanup(&qp->rq);
err_sq:
	eri_wq_cleanup(&qp->sq);
	eri_munmap(qp->map, qp->map_size);
err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = err;
	return NULL;
}

struct ibv_qp *eri_create_qp(struct ibv_pd *ibvpd,
			     struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = ibvpd,
	};
	struct eri_qp *qp;

	qp = eri_qp_create(ibvpd->context, &attr_ex);
	if (!qp)
		return NULL;
	/* What the kernel granted. */
	attr->cap = attr_ex.cap;

	return &qp->vqp.qp;
}

/*
 * RESET makes the device take both producer indexes as 0 again: start our
 * queues over as well, and say so in the doorbell record, so that the
 * device finds no stale index when the QP is brought up again.  CQEs of
 * the old incarnation name no outstanding WQE now and are dropped by poll.
 */
static void eri_qp_reset(struct eri_qp *qp)
{
	/* The locks of both queues: their posters and pollers. */
	pthread_spin_lock(&qp->sq.lock);
	pthread_spin_lock(&qp->rq.lock);
	qp->sq.pi = 0;
	qp->sq.tail = 0;
	qp->rq.pi = 0;
	qp->rq.tail = 0;
	eri_write_once32(&qp->dbrec->sq_pi, 0);
	eri_write_once32(&qp->dbrec->rq_pi, 0);
	pthread_spin_unlock(&qp->rq.lock);
	pthread_spin_unlock(&qp->sq.lock);
}

int eri_modify_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		  int attr_mask)
{
	struct ibv_modify_qp cmd = {};
	int err;

	err = ibv_cmd_modify_qp(ibvqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err)
		return err;

	if ((attr_mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET)
		eri_qp_reset(to_eri_qp(ibvqp));

	return 0;
}

int eri_query_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		 int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibvqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

/* Lock both CQs of a QP (once if they are the same), in address order. */
static void eri_lock_cqs(struct eri_cq *a, struct eri_cq *b)
{
	if (a == b) {
		pthread_spin_lock(&a->lock);
	} else if (a < b) {
		pthread_spin_lock(&a->lock);
		pthread_spin_lock(&b->lock);
	} else {
		pthread_spin_lock(&b->lock);
		pthread_spin_lock(&a->lock);
	}
}

static void eri_unlock_cqs(struct eri_cq *a, struct eri_cq *b)
{
	pthread_spin_unlock(&a->lock);
	if (a != b)
		pthread_spin_unlock(&b->lock);
}

int eri_destroy_qp(struct ibv_qp *ibvqp)
{
	struct eri_context *ctx = to_eri_ctx(ibvqp->context);
	struct eri_qp *qp = to_eri_qp(ibvqp);
	struct eri_cq *scq = to_eri_cq(ibvqp->send_cq);
	struct eri_cq *rcq = to_eri_cq(ibvqp->recv_cq);
	int err;

	/* Once this returns the device touches nothing of the QP. */
	err = ibv_cmd_destroy_qp(ibvqp);
	if (err)
		return err;

	/*
	 * Pollers use a QP they found in the table under their CQ's lock:
	 * with both CQ locks held no poll is using this one, and none will
	 * find it afterwards.  CQEs it left behind are dropped by poll.
	 */
	pthread_mutex_lock(&ctx->qp_table_mutex);
	eri_lock_cqs(scq, rcq);
	eri_qp_table_remove_locked(ctx, qp);
	eri_unlock_cqs(scq, rcq);
	pthread_mutex_unlock(&ctx->qp_table_mutex);

	eri_qp_unmap(qp);
	free(qp);

	return 0;
}

/* Work requests */

/*
 * Check a send WR's SGE list, or its inline data with @inl, against the
 * QP's limits, and sum its lengths into *@total.  Return: 0 or EINVAL.
 */
static int eri_check_send_data(const struct eri_qp *qp,
			       const struct ibv_send_wr *wr, bool inl,
			       uint64_t *total)
{
	uint64_t sum = 0;
	int i;

	if (wr->num_sge < 0 || (wr->num_sge && !wr->sg_list))
		return EINVAL;
	if (!inl && (uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		sum += wr->sg_list[i].length;
	if (sum > (inl ? qp->max_inline_data : ERI_WQE_MAX_LENGTH))
		return EINVAL;
	*total = sum;
	return 0;
}

/*
 * Write a checked send WR's inline data (with @inl) or its SGEs at @dst.
 * Return: the WQE header bits that say which: INLINE, or the SGE count.
 */
static uint32_t eri_write_send_data(void *dst, const struct ibv_send_wr *wr,
				    bool inl)
{
	uint8_t *data = dst;
	int i;

	if (!inl) {
		eri_write_sges(dst, wr->sg_list, wr->num_sge);
		return FIELD_PREP(ERI_SQ_WQE_HDR_NUM_SGE, wr->num_sge);
	}
	for (i = 0; i < wr->num_sge; i++) {
		memcpy(data, (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		data += wr->sg_list[i].length;
	}
	return ERI_SQ_WQE_HDR_INLINE;
}

/*
 * Write one UD send WQE at the SQ's producer index: the header, the AH's
 * address vector with the destination QPN and Q_Key, then the SGEs or the
 * inline data.  SQ lock held.
 */
static int eri_build_ud_wqe(struct eri_qp *qp, const struct ibv_send_wr *wr,
			    bool imm_ok)
{
	struct eri_wq *sq = &qp->sq;
	uint32_t slot = eri_ring_slot(sq->pi, sq->depth_log);
	struct eri_sq_wqe_hdr *wqe;
	struct eri_sq_ud_av *av;
	uint32_t op, hdr = 0;
	uint64_t total = 0;
	bool inl;

	if (eri_ring_used(sq->pi, sq->tail) >= sq->max_wr)
		return ENOMEM;
	if (wr->opcode == IBV_WR_SEND)
		op = ERI_SQ_OP_SEND;
	else if (wr->opcode == IBV_WR_SEND_WITH_IMM && imm_ok)
		op = ERI_SQ_OP_SEND_IMM;
	else
		return EINVAL;
	if (!wr->wr.ud.ah || wr->wr.ud.remote_qpn >> ERI_QPN_BITS)
		return EINVAL;
	inl = wr->send_flags & IBV_SEND_INLINE;
	/* The device checks the length against the MTU. */
	if (eri_check_send_data(qp, wr, inl, &total))
		return EINVAL;

	if (wr->send_flags & IBV_SEND_SIGNALED || qp->sq_sig_all)
		hdr |= ERI_SQ_WQE_HDR_SIGNALED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		hdr |= ERI_SQ_WQE_HDR_SOLICITED;
	hdr |= FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE, op);

	/* The slot is free: the device completed what it held. */
	wqe = (void *)((uint8_t *)sq->ring + ((size_t)slot << sq->wqe_shift));
	wqe->length = htole32((uint32_t)total);
	wqe->imm_data = op == ERI_SQ_OP_SEND_IMM ? wr->imm_data : 0;
	wqe->inv_rkey = 0;
	wqe->remote_addr = 0;
	wqe->rkey = 0;
	wqe->reserved = 0;
	av = (struct eri_sq_ud_av *)(wqe + 1);
	memcpy(av, &to_eri_ah(wr->wr.ud.ah)->av, sizeof(*av));
	av->dest_qpn = htole32(wr->wr.ud.remote_qpn);
	av->qkey = htole32(wr->wr.ud.remote_qkey);
	hdr |= eri_write_send_data(av + 1, wr, inl);
	wqe->hdr = htole32(hdr);

	sq->wr_id[slot] = wr->wr_id;

	return 0;
}

/*
 * Write an atomic WQE: the operands, then its one SGE, which takes the
 * original value.  The device checks the SGE's length and the responder
 * the remote address's alignment.  SQ lock held.
 */
static int eri_build_atomic_wqe(struct eri_qp *qp, const struct ibv_send_wr *wr,
				uint32_t op)
{
	struct eri_wq *sq = &qp->sq;
	uint32_t slot = eri_ring_slot(sq->pi, sq->depth_log);
	struct eri_sq_wqe_hdr *wqe;
	struct eri_sq_atomic *a;
	struct eri_sge *sge;
	uint32_t hdr;

	if (wr->num_sge != 1 || !wr->sg_list ||
	    (wr->send_flags & IBV_SEND_INLINE))
		return EINVAL;
	hdr = FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE, op) |
	      FIELD_PREP(ERI_SQ_WQE_HDR_NUM_SGE, 1);
	if (wr->send_flags & IBV_SEND_SIGNALED || qp->sq_sig_all)
		hdr |= ERI_SQ_WQE_HDR_SIGNALED;
	if (wr->send_flags & IBV_SEND_FENCE)
		hdr |= ERI_SQ_WQE_HDR_FENCE;

	/* The slot is free: the device completed what it held. */
	wqe = (void *)((uint8_t *)sq->ring + ((size_t)slot << sq->wqe_shift));
	memset(wqe, 0, (size_t)1 << sq->wqe_shift);
	wqe->hdr = htole32(hdr);
	wqe->length = htole32(wr->sg_list[0].length);
	wqe->remote_addr = htole64(wr->wr.atomic.remote_addr);
	wqe->rkey = htole32(wr->wr.atomic.rkey);
	a = (struct eri_sq_atomic *)(wqe + 1);
	/* CMP_SWP: compare_add is the compare value, swap the new one. */
	if (op == ERI_SQ_OP_CMP_SWP) {
		a->swap_add = htole64(wr->wr.atomic.swap);
		a->compare = htole64(wr->wr.atomic.compare_add);
	} else {
		a->swap_add = htole64(wr->wr.atomic.compare_add);
	}
	sge = (struct eri_sge *)(a + 1);
	eri_write_sges(sge, wr->sg_list, 1);

	sq->wr_id[slot] = wr->wr_id;

	return 0;
}

/* Write one send WQE at the SQ's producer index.  SQ lock held. */
static int eri_build_send_wqe(struct eri_qp *qp, const struct ibv_send_wr *wr,
			      bool imm_ok)
{
	struct eri_wq *sq = &qp->sq;
	uint32_t slot = eri_ring_slot(sq->pi, sq->depth_log);
	struct eri_sq_wqe_hdr *wqe;
	uint32_t op, hdr = 0;
	uint64_t total = 0;
	bool inl;

	if (eri_ring_used(sq->pi, sq->tail) >= sq->max_wr)
		return ENOMEM;

	switch (wr->opcode) {
	case IBV_WR_SEND:
		op = ERI_SQ_OP_SEND;
		break;
	case IBV_WR_SEND_WITH_IMM:
		op = ERI_SQ_OP_SEND_IMM;
		break;
	case IBV_WR_SEND_WITH_INV:
		op = ERI_SQ_OP_SEND_INV;
		break;
	case IBV_WR_RDMA_WRITE:
		op = ERI_SQ_OP_WRITE;
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		op = ERI_SQ_OP_WRITE_IMM;
		break;
	case IBV_WR_RDMA_READ:
		op = ERI_SQ_OP_READ;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return eri_build_atomic_wqe(qp, wr, ERI_SQ_OP_CMP_SWP);
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return eri_build_atomic_wqe(qp, wr, ERI_SQ_OP_FETCH_ADD);
	default:
		return EINVAL;
	}
	if (!imm_ok && (op == ERI_SQ_OP_SEND_IMM || op == ERI_SQ_OP_SEND_INV ||
			op == ERI_SQ_OP_WRITE_IMM))
		return EINVAL;

	inl = wr->send_flags & IBV_SEND_INLINE;
	/* Inline data is what we send, so never for a READ. */
	if (inl && op == ERI_SQ_OP_READ)
		return EINVAL;
	if (eri_check_send_data(qp, wr, inl, &total))
		return EINVAL;

	if (wr->send_flags & IBV_SEND_SIGNALED || qp->sq_sig_all)
		hdr |= ERI_SQ_WQE_HDR_SIGNALED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		hdr |= ERI_SQ_WQE_HDR_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		hdr |= ERI_SQ_WQE_HDR_FENCE;
	hdr |= FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE, op);

	/* The slot is free: the device completed what it held. */
	wqe = (void *)((uint8_t *)sq->ring + ((size_t)slot << sq->wqe_shift));
	wqe->length = htole32((uint32_t)total);
	wqe->imm_data = (op == ERI_SQ_OP_SEND_IMM ||
			 op == ERI_SQ_OP_WRITE_IMM) ? wr->imm_data : 0;
	wqe->inv_rkey = htole32(op == ERI_SQ_OP_SEND_INV ?
				wr->invalidate_rkey : 0);
	if (op == ERI_SQ_OP_WRITE || op == ERI_SQ_OP_WRITE_IMM ||
	    op == ERI_SQ_OP_READ) {
		wqe->remote_addr = htole64(wr->wr.rdma.remote_addr);
		wqe->rkey = htole32(wr->wr.rdma.rkey);
	} else {
		wqe->remote_addr = 0;
		wqe->rkey = 0;
	}
	wqe->reserved = 0;
	hdr |= eri_write_send_data(wqe + 1, wr, inl);
	wqe->hdr = htole32(hdr);

	sq->wr_id[slot] = wr->wr_id;

	return 0;
}

/*
 * The kick: a POST_SEND (or POST_RECV) command carrying no work request,
 * written straight to the command file, which the kernel turns into a
 * doorbell.  Return: 0 or an errno.
 */
static int eri_kick_sq(struct ibv_qp *ibvqp)
{
	struct ib_uverbs_post_send_resp resp;
	struct ibv_post_send cmd = {};

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.response = (uintptr_t)&resp;
	cmd.qp_handle = ibvqp->handle;
	cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(ibvqp->context->cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd))
		return errno;
	return 0;
}

static int eri_kick_rq(struct ibv_qp *ibvqp)
{
	struct ib_uverbs_post_recv_resp resp;
	struct ibv_post_recv cmd = {};

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_RECV;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.response = (uintptr_t)&resp;
	cmd.qp_handle = ibvqp->handle;
	cmd.wqe_size = sizeof(struct ib_uverbs_recv_wr);
	if (write(ibvqp->context->cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd))
		return errno;
	return 0;
}

/* Ring the doorbell the device asked for; count a failure.  Return: errno. */
static int eri_wq_kick(struct ibv_qp *ibvqp, struct eri_wq *wq,
		       int (*kick)(struct ibv_qp *ibvqp))
{
	int err = kick(ibvqp);

	if (err)
		__atomic_fetch_add(&wq->kick_errors, 1, __ATOMIC_RELAXED);
	return err;
}

/*
 * Expose a work queue's new WQEs: write its producer index to @pi in the
 * doorbell record, then read @need_kick.  Queue lock held.  Return: whether
 * the device asked for a kick.
 */
static bool eri_wq_publish(struct eri_wq *wq, __le32 *pi, __le32 *need_kick)
{
	bool kick;

	/* The WQEs before the index that exposes them. */
	udma_to_device_barrier();
	eri_write_once32(pi, wq->pi);
	/*
	 * The index before the flag: the device sets the flag, then (behind
	 * its own full barrier) reads the index once more, so either it
	 * finds our WQEs or we see the flag.
	 */
	eri_full_barrier();
	kick = eri_read_once32(need_kick);
	if (kick)
		wq->kicks++;
	else
		wq->kicks_skipped++;
	return kick;
}

/* The send queue does not run before RTS. */
static bool eri_sq_ready(const struct ibv_qp *ibvqp)
{
	switch (ibvqp->state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
		return false;
	default:
		return true;
	}
}

int eri_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct eri_context *ctx = to_eri_ctx(ibvqp->context);
	bool imm_ok = ctx->dev_caps & ERI_UCTX_CAP_IMM;
	struct eri_qp *qp = to_eri_qp(ibvqp);
	struct eri_wq *sq = &qp->sq;
	bool kick = false;
	uint16_t start;
	int err = 0;

	/* Serializes the SQ's posters, and them with poll's tail updates. */
	pthread_spin_lock(&sq->lock);

	if (!eri_sq_ready(ibvqp)) {
		err = EINVAL;
		*bad_wr = wr;
		goto out;
	}

	start = sq->pi;
	for (; wr; wr = wr->next) {
		err = qp->ud ? eri_build_ud_wqe(qp, wr, imm_ok) :
			       eri_build_send_wqe(qp, wr, imm_ok);
		if (err) {
			*bad_wr = wr;
			break;
		}
		sq->pi++;
	}

	if (sq->pi != start)
		kick = eri_wq_publish(sq, &qp->dbrec->sq_pi,
				      &qp->dbrec->sq_need_kick);
out:
	pthread_spin_unlock(&sq->lock);

	/* The kick needs no lock: the WQEs are published already. */
	if (kick) {
		int kerr = eri_wq_kick(ibvqp, sq, eri_kick_sq);

		/*
		 * All WRs are queued; the device may not know.  Report the
		 * failure, with no WR to blame.
		 */
		if (kerr && !err) {
			err = kerr;
			*bad_wr = NULL;
		}
	}

	return err;
}

/*
 * The ibv_qp_ex work request API.  wr_start takes the SQ lock and
 * wr_complete or wr_abort releases it.  Each builder starts a struct
 * ibv_send_wr in qp->ex, the setters fill it in, and it is written to the
 * ring by post_send's encoders when the next builder or wr_complete comes,
 * at the producer index, which only wr_complete publishes.  An error is
 * kept until wr_complete, which then posts nothing; wr_abort posts nothing
 * either.  Both leave the producer index, the doorbell record and the
 * WQEs outstanding as they were.
 */

/* Write the pending WR to the ring, unless the batch failed.  SQ lock held. */
static void eri_wr_flush(struct eri_qp *qp)
{
	struct eri_context *ctx = to_eri_ctx(qp->vqp.qp.context);
	bool imm_ok = ctx->dev_caps & ERI_UCTX_CAP_IMM;
	struct eri_qp_ex_wr *ex = &qp->ex;
	int err;

	if (!ex->pending)
		return;
	ex->pending = false;
	if (ex->err)
		return;
	err = qp->ud ? eri_build_ud_wqe(qp, &ex->wr, imm_ok) :
		       eri_build_send_wqe(qp, &ex->wr, imm_ok);
	if (err)
		ex->err = err;
	else
		qp->sq.pi++;
}

static void eri_wr_fail(struct eri_qp *qp, int err)
{
	if (!qp->ex.err)
		qp->ex.err = err;
}

/*
 * A builder: write the WR before, then start this one with the wr_id and
 * wr_flags the caller set, as the API says.  Inline is the setters'
 * business.  Return: the WR to fill in.
 */
static struct ibv_send_wr *eri_wr_begin(struct ibv_qp_ex *ibvqp,
					enum ibv_wr_opcode opcode)
{
	struct eri_qp *qp = to_eri_qp_ex(ibvqp);
	struct ibv_send_wr *wr = &qp->ex.wr;

	eri_wr_flush(qp);
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = ibvqp->wr_id;
	wr->opcode = opcode;
	wr->send_flags = ibvqp->wr_flags & ~IBV_SEND_INLINE;
	qp->ex.pending = true;

	return wr;
}

static void eri_wr_send(struct ibv_qp_ex *ibvqp)
{
	eri_wr_begin(ibvqp, IBV_WR_SEND);
}

static void eri_wr_send_imm(struct ibv_qp_ex *ibvqp, __be32 imm_data)
{
	eri_wr_begin(ibvqp, IBV_WR_SEND_WITH_IMM)->imm_data = imm_data;
}

static void eri_wr_send_inv(struct ibv_qp_ex *ibvqp, uint32_t invalidate_rkey)
{
	eri_wr_begin(ibvqp, IBV_WR_SEND_WITH_INV)->invalidate_rkey =
		invalidate_rkey;
}

static void eri_wr_rdma(struct ibv_qp_ex *ibvqp, enum ibv_wr_opcode opcode,
			uint32_t rkey, uint64_t remote_addr, __be32 imm_data)
{
	struct ibv_send_wr *wr = eri_wr_begin(ibvqp, opcode);

	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->imm_data = imm_data;
}

static void eri_wr_rdma_write(struct ibv_qp_ex *ibvqp, uint32_t rkey,
			      uint64_t remote_addr)
{
	eri_wr_rdma(ibvqp, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void eri_wr_rdma_write_imm(struct ibv_qp_ex *ibvqp, uint32_t rkey,
				  uint64_t remote_addr, __be32 imm_data)
{
	eri_wr_rdma(ibvqp, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
		    imm_data);
}

static void eri_wr_rdma_read(struct ibv_qp_ex *ibvqp, uint32_t rkey,
			     uint64_t remote_addr)
{
	eri_wr_rdma(ibvqp, IBV_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void eri_wr_atomic(struct ibv_qp_ex *ibvqp, enum ibv_wr_opcode opcode,
			  uint32_t rkey, uint64_t remote_addr,
			  uint64_t compare_add, uint64_t swap)
{
	struct ibv_send_wr *wr = eri_wr_begin(ibvqp, opcode);

	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

static void eri_wr_atomic_cmp_swp(struct ibv_qp_ex *ibvqp, uint32_t rkey,
				  uint64_t remote_addr, uint64_t compare,
				  uint64_t swap)
{
	eri_wr_atomic(ibvqp, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
		      compare, swap);
}

static void eri_wr_atomic_fetch_add(struct ibv_qp_ex *ibvqp, uint32_t rkey,
				    uint64_t remote_addr, uint64_t add)
{
	eri_wr_atomic(ibvqp, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
		      add, 0);
}

/* The WR the setters fill in, or NULL (and the batch fails) if none. */
static struct ibv_send_wr *eri_wr_cur(struct eri_qp *qp)
{
	if (!qp->ex.pending) {
		eri_wr_fail(qp, EINVAL);
		return NULL;
	}
	return &qp->ex.wr;
}

static void eri_wr_set_ud_addr(struct ibv_qp_ex *ibvqp, struct ibv_ah *ah,
			       uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct ibv_send_wr *wr = eri_wr_cur(to_eri_qp_ex(ibvqp));

	if (!wr)
		return;
	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
}

static void eri_wr_set_sge_list(struct ibv_qp_ex *ibvqp, size_t num_sge,
				const struct ibv_sge *sg_list)
{
	struct eri_qp *qp = to_eri_qp_ex(ibvqp);
	struct ibv_send_wr *wr = eri_wr_cur(qp);

	if (!wr)
		return;
	/* More than a WQE holds: the encoder would refuse it as well. */
	if (num_sge > ARRAY_SIZE(qp->ex.sge) || (num_sge && !sg_list)) {
		eri_wr_fail(qp, EINVAL);
		return;
	}
	if (num_sge)
		memcpy(qp->ex.sge, sg_list, num_sge * sizeof(*sg_list));
	wr->sg_list = qp->ex.sge;
	wr->num_sge = num_sge;
	wr->send_flags &= ~IBV_SEND_INLINE;
}

static void eri_wr_set_sge(struct ibv_qp_ex *ibvqp, uint32_t lkey,
			   uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	eri_wr_set_sge_list(ibvqp, 1, &sge);
}

/*
 * Inline data is copied now, as the API lets the caller reuse its buffers
 * at once, into one staging SGE: the encoder copies it on into the WQE.
 */
static void eri_wr_set_inline_data_list(struct ibv_qp_ex *ibvqp,
					size_t num_buf,
					const struct ibv_data_buf *buf_list)
{
	struct eri_qp *qp = to_eri_qp_ex(ibvqp);
	struct ibv_send_wr *wr = eri_wr_cur(qp);
	size_t i, len = 0;

	if (!wr)
		return;
	for (i = 0; i < num_buf; i++) {
		/* The encoder checks the QP's own limit; this is the buffer's. */
		if (buf_list[i].length > sizeof(qp->ex.inl) - len) {
			eri_wr_fail(qp, EINVAL);
			return;
		}
		if (buf_list[i].length)
			memcpy(qp->ex.inl + len, buf_list[i].addr,
			       buf_list[i].length);
		len += buf_list[i].length;
	}
	qp->ex.sge[0].addr = (uintptr_t)qp->ex.inl;
	qp->ex.sge[0].length = len;
	qp->ex.sge[0].lkey = 0;
	wr->sg_list = qp->ex.sge;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_INLINE;
}

static void eri_wr_set_inline_data(struct ibv_qp_ex *ibvqp, void *addr,
				   size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	eri_wr_set_inline_data_list(ibvqp, 1, &buf);
}

static void eri_wr_start(struct ibv_qp_ex *ibvqp)
{
	struct eri_qp *qp = to_eri_qp_ex(ibvqp);

	/*
	 * The batch owns the SQ until wr_complete or wr_abort: it serializes
	 * us with other posters and with poll's tail updates.
	 */
	pthread_spin_lock(&qp->sq.lock);
	qp->ex.start = qp->sq.pi;
	qp->ex.pending = false;
	qp->ex.err = eri_sq_ready(&qp->vqp.qp) ? 0 : EINVAL;
}

static int eri_wr_complete(struct ibv_qp_ex *ibvqp)
{
	struct eri_qp *qp = to_eri_qp_ex(ibvqp);
	struct eri_wq *sq = &qp->sq;
	bool kick = false;
	int err;

	eri_wr_flush(qp);
	err = qp->ex.err;
	if (err)
		sq->pi = qp->ex.start;	/* none of the batch is posted */
	else if (sq->pi != qp->ex.start)
		kick = eri_wq_publish(sq, &qp->dbrec->sq_pi,
				      &qp->dbrec->sq_need_kick);
	pthread_spin_unlock(&sq->lock);

	/*
	 * One kick for the whole batch, without the lock: the WQEs are
	 * published.  A failure is reported though the WRs are queued, as
	 * post_send does.
	 */
	if (kick)
		err = eri_wq_kick(&qp->vqp.qp, sq, eri_kick_sq);

	return err;
}

static void eri_wr_abort(struct ibv_qp_ex *ibvqp)
{
	struct eri_qp *qp = to_eri_qp_ex(ibvqp);

	qp->ex.pending = false;
	qp->sq.pi = qp->ex.start;
	pthread_spin_unlock(&qp->sq.lock);
}

/* The work requests post_send takes, by QP type; the IMM ones need CAP_IMM. */
#define ERI_QP_EX_UD_OPS	(IBV_QP_EX_WITH_SEND |			\
				 IBV_QP_EX_WITH_SEND_WITH_IMM)
#define ERI_QP_EX_RC_OPS	(ERI_QP_EX_UD_OPS |			\
				 IBV_QP_EX_WITH_SEND_WITH_INV |		\
				 IBV_QP_EX_WITH_RDMA_WRITE |		\
				 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |	\
				 IBV_QP_EX_WITH_RDMA_READ |		\
				 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |	\
				 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define ERI_QP_EX_IMM_OPS	(IBV_QP_EX_WITH_SEND_WITH_IMM |		\
				 IBV_QP_EX_WITH_SEND_WITH_INV |		\
				 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)

/* Offer the builders asked for, and no other. */
static void eri_qp_set_send_ops(struct eri_qp *qp, uint64_t ops)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	if (ops & IBV_QP_EX_WITH_SEND)
		qpx->wr_send = eri_wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		qpx->wr_send_imm = eri_wr_send_imm;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		qpx->wr_send_inv = eri_wr_send_inv;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		qpx->wr_rdma_write = eri_wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qpx->wr_rdma_write_imm = eri_wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		qpx->wr_rdma_read = eri_wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		qpx->wr_atomic_cmp_swp = eri_wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		qpx->wr_atomic_fetch_add = eri_wr_atomic_fetch_add;

	if (qp->ud)
		qpx->wr_set_ud_addr = eri_wr_set_ud_addr;
	qpx->wr_set_sge = eri_wr_set_sge;
	qpx->wr_set_sge_list = eri_wr_set_sge_list;
	qpx->wr_set_inline_data = eri_wr_set_inline_data;
	qpx->wr_set_inline_data_list = eri_wr_set_inline_data_list;
	qpx->wr_start = eri_wr_start;
	qpx->wr_complete = eri_wr_complete;
	qpx->wr_abort = eri_wr_abort;

	qp->vqp.comp_mask |= VERBS_QP_EX;
}

struct ibv_qp *eri_create_qp_ex(struct ibv_context *ibvctx,
				struct ibv_qp_init_attr_ex *attr)
{
	struct eri_context *ctx = to_eri_ctx(ibvctx);
	struct ibv_qp_init_attr_ex kattr;
	uint64_t ops = 0, ok;
	struct eri_qp *qp;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD)) {
		errno = EINVAL;
		return NULL;
	}
	/* No create flag is supported; asking for none is fine. */
	if ((attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
					    IBV_QP_INIT_ATTR_CREATE_FLAGS |
					    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ops = attr->send_ops_flags;
		ok = attr->qp_type == IBV_QPT_UD ? ERI_QP_EX_UD_OPS :
						    ERI_QP_EX_RC_OPS;
		if (!(ctx->dev_caps & ERI_UCTX_CAP_IMM))
			ok &= ~(uint64_t)ERI_QP_EX_IMM_OPS;
		if (ops & ~ok) {
			errno = EOPNOTSUPP;
			return NULL;
		}
	}

	/*
	 * The kernel hears of neither: no create flag is set, and send ops
	 * are ours.  A create-flags bit would make libibverbs use the
	 * extended write command where the ioctl is not used (as on 6.1),
	 * which our command, the plain CREATE_QP, cannot carry.
	 */
	kattr = *attr;
	kattr.comp_mask &= ~(uint32_t)(IBV_QP_INIT_ATTR_CREATE_FLAGS |
				       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	qp = eri_qp_create(ibvctx, &kattr);
	if (!qp)
		return NULL;
	/* What the kernel granted. */
	attr->cap = kattr.cap;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		eri_qp_set_send_ops(qp, ops);

	return &qp->vqp.qp;
}

/* Write one receive WQE at the RQ's producer index.  RQ lock held. */
static int eri_build_recv_wqe(struct eri_qp *qp, const struct ibv_recv_wr *wr)
{
	struct eri_wq *rq = &qp->rq;
	uint32_t slot = eri_ring_slot(rq->pi, rq->depth_log);
	struct eri_rq_wqe_hdr *wqe;
	uint64_t total = 0;
	int i;

	if (eri_ring_used(rq->pi, rq->tail) >= rq->max_wr)
		return ENOMEM;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge ||
	    (wr->num_sge && !wr->sg_list))
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > ERI_WQE_MAX_LENGTH)
		return EINVAL;

	/* The slot is free: the device completed what it held. */
	wqe = (void *)((uint8_t *)rq->ring + ((size_t)slot << ERI_RQ_WQE_SHIFT));
	wqe->hdr = htole32(FIELD_PREP(ERI_RQ_WQE_HDR_NUM_SGE, wr->num_sge));
	wqe->tag = 0;
	memset(wqe->reserved, 0, sizeof(wqe->reserved));
	eri_write_sges((struct eri_sge *)(wqe + 1), wr->sg_list, wr->num_sge);

	rq->wr_id[slot] = wr->wr_id;

	return 0;
}

int eri_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct eri_qp *qp = to_eri_qp(ibvqp);
	struct eri_wq *rq = &qp->rq;
	bool kick = false;
	uint16_t start;
	int err = 0;

	/* Its receives go to its SRQ. */
	if (qp->srq) {
		*bad_wr = wr;
		return EINVAL;
	}

	/* Serializes the RQ's posters, and them with poll's tail updates. */
	pthread_spin_lock(&rq->lock);

	if (ibvqp->state == IBV_QPS_RESET) {
		err = EINVAL;
		*bad_wr = wr;
		goto out;
	}

	start = rq->pi;
	for (; wr; wr = wr->next) {
		err = eri_build_recv_wqe(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
		rq->pi++;
	}

	if (rq->pi != start)
		kick = eri_wq_publish(rq, &qp->dbrec->rq_pi,
				      &qp->dbrec->rq_need_kick);
out:
	pthread_spin_unlock(&rq->lock);

	/* Only in ERR, so that the new WQEs are flushed. */
	if (kick) {
		int kerr = eri_wq_kick(ibvqp, rq, eri_kick_rq);

		/* As for the send queue. */
		if (kerr && !err) {
			err = kerr;
			*bad_wr = NULL;
		}
	}

	return err;
}
