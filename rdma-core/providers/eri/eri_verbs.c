// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * liberi: completion queues, queue pairs and the data path.
 *
 * The kernel allocates the rings and doorbell records of queue pairs and
 * SRQs and maps them to us (mmap() on the uverbs file at the offsets of the
 * create responses); a CQ's ring and record are ours, pinned by the kernel
 * (ERI_UCTX_CAP_CQ_USER_RING), or mapped as well.  After that, posting and
 * polling touch only shared memory, in the formats of eri_hw.h.  The one system call of the fast path is the send queue kick: a
 * POST_SEND with no work requests, made only when the device asked for one
 * in the QP's doorbell record (Documentation/infiniband/eri.rst, "Doorbells
 * and kicks"), and the same for the receive queue while the QP is in ERR.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ccan/array_size.h>
#include <ccan/minmax.h>
#include <util/udma_barrier.h>

#include "eri.h"
#include "eri-abi.h"

/* A full barrier: our stores before it are seen before our loads after it. */
static inline void eri_full_barrier(void)
{
	atomic_thread_fence(memory_order_seq_cst);
}

static void *eri_mmap(struct ibv_context *ibvctx, size_t len, int prot,
		      uint64_t key)
{
	void *p;

	p = mmap(NULL, len, prot, MAP_SHARED, ibvctx->cmd_fd, key);
	return p == MAP_FAILED ? NULL : p;
}

static void eri_munmap(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

/*
 * QPN -> QP table.  Insertions and removals hold qp_table_mutex; lookups
 * from poll_cq take no lock: a second level, once published, stays until
 * the context is freed, and entries are stored and loaded atomically.
 */
static int eri_qp_table_insert(struct eri_context *ctx, struct eri_qp *qp)
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
static void eri_qp_table_remove_locked(struct eri_context *ctx,
				       struct eri_qp *qp)
{
	struct eri_qp **leaf = ctx->qp_table[qp->qpn >> ERI_QP_TABLE_SHIFT];

	if (leaf && leaf[qp->qpn & ERI_QP_TABLE_MASK] == qp)
		__atomic_store_n(&leaf[qp->qpn & ERI_QP_TABLE_MASK], NULL,
				 __ATOMIC_RELEASE);
}

static struct eri_qp *eri_qp_table_lookup(struct eri_context *ctx,
					  uint32_t qpn)
{
	struct eri_qp **leaf;

	if (qpn >> ERI_QPN_BITS)
		return NULL;
	leaf = __atomic_load_n(&ctx->qp_table[qpn >> ERI_QP_TABLE_SHIFT],
			       __ATOMIC_ACQUIRE);
	if (!leaf)
		return NULL;
	return __atomic_load_n(&leaf[qpn & ERI_QP_TABLE_MASK],
			       __ATOMIC_ACQUIRE);
}

/* Completion queues */

/*
 * Create a CQ for ibv_create_cq and ibv_create_cq_ex alike: the kernel
 * object, its ring and its doorbell record.  Return: the CQ, or NULL with
 * errno set.
 */
/*
 * The depth of a CQ of @cqe entries, as the kernel chooses it: one entry to
 * spare when that fits.  Return: its log2, or -1 when it does not fit.
 */
static int eri_cq_depth_log(uint32_t cqe, uint32_t max_log)
{
	uint32_t log = 0;

	if (!cqe || cqe > (1U << max_log))
		return -1;
	while ((1ULL << log) < (uint64_t)cqe + 1)
		log++;
	if (log > max_log)
		log = max_log;
	return log;
}

/*
 * Our own ring for the CQ, the doorbell record after it, zeroed (no entry
 * valid), for the kernel to pin: @cmd asks for it.
 */
static int eri_cq_alloc_ring(struct eri_context *ctx, struct eri_cq *cq,
			     uint32_t cqe, struct eri_create_cq *cmd)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t ring;
	int log;
	void *p;

	log = eri_cq_depth_log(cqe, ctx->max_cq_depth_log);
	if (log < 0)
		return EINVAL;
	ring = sizeof(struct eri_cqe) << log;
	cq->ring_size = align(ring + sizeof(struct eri_cq_dbrec), page);
	p = mmap(NULL, cq->ring_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return errno;
	/* A child of fork() must not get copies the device writes into. */
	if (ibv_dontfork_range(p, cq->ring_size)) {
		munmap(p, cq->ring_size);
		return ENOMEM;
	}
	cq->ring = p;
	cq->dbrec = (struct eri_cq_dbrec *)((uint8_t *)p + ring);
	cq->own = true;
	cmd->comp_mask = ERI_CREATE_CQ_USER_RING;
	cmd->depth_log = log;
	cmd->ring_va = (uintptr_t)p;
	return 0;
}

static void eri_cq_free_ring(struct eri_cq *cq)
{
	if (cq->own) {
		ibv_dofork_range(cq->ring, cq->ring_size);
		munmap(cq->ring, cq->ring_size);
	} else {
		eri_munmap(cq->dbrec, cq->dbrec_size);
		eri_munmap(cq->ring, cq->ring_size);
	}
	cq->ring = NULL;
	cq->dbrec = NULL;
}

/* Map the kernel's ring and record of the CQ that @resp describes. */
static int eri_cq_map_ring(struct ibv_context *ibvctx, struct eri_cq *cq,
			   const struct eri_create_cq_resp *resp)
{
	cq->ring_size = resp->ring_size;
	cq->dbrec_size = resp->dbrec_size;
	if (cq->depth_log > ERI_RING_MAX_DEPTH_LOG ||
	    cq->ring_size < ((size_t)sizeof(struct eri_cqe) << cq->depth_log) ||
	    cq->dbrec_size < sizeof(struct eri_cq_dbrec))
		return EINVAL;

	/* We only read the ring; the doorbell record is ours to write. */
	cq->ring = eri_mmap(ibvctx, cq->ring_size, PROT_READ,
			    resp->ring_mmap_key);
	if (!cq->ring)
		return errno;
	cq->dbrec = eri_mmap(ibvctx, cq->dbrec_size, PROT_READ | PROT_WRITE,
			     resp->dbrec_mmap_key);
	if (!cq->dbrec) {
		eri_munmap(cq->ring, cq->ring_size);
		cq->ring = NULL;
		return errno;
	}
	return 0;
}

static struct eri_cq *eri_cq_create(struct ibv_context *ibvctx, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector)
{
	struct eri_context *ctx = to_eri_ctx(ibvctx);
	struct eri_create_cq_resp resp = {};
	struct eri_create_cq cmd = {};
	size_t cmd_size = sizeof(cmd.ibv_cmd);
	struct eri_cq *cq;
	int err;

	/* The CQE format of eri_hw.h is the only one we know. */
	if (ctx->cqe_shift != ERI_CQE_SHIFT) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}

	err = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (err)
		goto err_free;

	if (ctx->dev_caps & ERI_UCTX_CAP_CQ_USER_RING) {
		err = eri_cq_alloc_ring(ctx, cq, cqe, &cmd);
		if (err)
			goto err_spin;
		cmd_size = sizeof(cmd);
	}
	err = ibv_cmd_create_cq(ibvctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd.ibv_cmd, cmd_size, &resp.ibv_resp,
				sizeof(resp));
	if (err)
		goto err_ring;

	cq->cqn = resp.cqn;
	cq->depth_log = resp.depth_log;
	if (cq->own) {
		if (cq->depth_log != cmd.depth_log) {
			err = EINVAL;
			goto err_destroy;
		}
	} else {
		err = eri_cq_map_ring(ibvctx, cq, &resp);
		if (err)
			goto err_destroy;
	}

	return cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_ring:
	if (cq->own)
		eri_cq_free_ring(cq);
err_spin:
	pthread_spin_destroy(&cq->lock);
err_free:
	free(cq);
	errno = err;
	return NULL;
}

struct ibv_cq *eri_create_cq(struct ibv_context *ibvctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct eri_cq *cq = eri_cq_create(ibvctx, cqe, channel, comp_vector);

	return cq ? &cq->vcq.cq : NULL;
}

int eri_destroy_cq(struct ibv_cq *ibvcq)
{
	struct eri_cq *cq = to_eri_cq(ibvcq);
	int err;

	/* Once this returns the device writes nothing more to ring or dbrec. */
	err = ibv_cmd_destroy_cq(ibvcq);
	if (err)
		return err;

	eri_cq_free_ring(cq);
	pthread_spin_destroy(&cq->lock);
	free(cq);

	return 0;
}

static enum ibv_wc_status eri_wc_status(uint32_t status)
{
	switch (status) {
	case ERI_CQE_STS_SUCCESS:
		return IBV_WC_SUCCESS;
	case ERI_CQE_STS_LOC_LEN_ERR:
		return IBV_WC_LOC_LEN_ERR;
	case ERI_CQE_STS_LOC_QP_OP_ERR:
		return IBV_WC_LOC_QP_OP_ERR;
	case ERI_CQE_STS_LOC_PROT_ERR:
		return IBV_WC_LOC_PROT_ERR;
	case ERI_CQE_STS_WR_FLUSH_ERR:
		return IBV_WC_WR_FLUSH_ERR;
	case ERI_CQE_STS_BAD_RESP_ERR:
		return IBV_WC_BAD_RESP_ERR;
	case ERI_CQE_STS_LOC_ACCESS_ERR:
		return IBV_WC_LOC_ACCESS_ERR;
	case ERI_CQE_STS_REM_INV_REQ_ERR:
		return IBV_WC_REM_INV_REQ_ERR;
	case ERI_CQE_STS_REM_ACCESS_ERR:
		return IBV_WC_REM_ACCESS_ERR;
	case ERI_CQE_STS_REM_OP_ERR:
		return IBV_WC_REM_OP_ERR;
	case ERI_CQE_STS_RETRY_EXC_ERR:
		return IBV_WC_RETRY_EXC_ERR;
	case ERI_CQE_STS_RNR_RETRY_EXC_ERR:
		return IBV_WC_RNR_RETRY_EXC_ERR;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

/*
 * Retire the WQE a CQE names: its index must lie between the queue's tail
 * and its producer index, and every WQE before it (unsignaled sends) retires
 * with it.  Returns false for a CQE that names no outstanding WQE, such as
 * one left over from before a reset of the QP.
 */
static bool eri_wq_retire(struct eri_wq *wq, uint16_t idx, uint64_t *wr_id)
{
	bool ok = false;

	/* Posters change pi and read tail under this lock. */
	pthread_spin_lock(&wq->lock);
	if ((uint16_t)(idx - wq->tail) < eri_ring_used(wq->pi, wq->tail)) {
		*wr_id = wq->wr_id[eri_ring_slot(idx, wq->depth_log)];
		wq->tail = idx + 1;
		ok = true;
	}
	pthread_spin_unlock(&wq->lock);

	return ok;
}

/* Shared receive queues: tags */

static bool eri_srq_tag_busy(const struct eri_srq *srq, uint32_t tag)
{
	return srq->busy[tag / 64] & (1ULL << (tag % 64));
}

/*
 * Give a tag back and find its wr_id.  Returns false for a tag that names
 * no outstanding WQE (the device is broken).
 */
static bool eri_srq_retire(struct eri_srq *srq, uint32_t tag, uint64_t *wr_id)
{
	bool ok = false;

	/* Posters pop tags under this lock. */
	pthread_spin_lock(&srq->lock);
	if (tag < (1U << srq->depth_log) && eri_srq_tag_busy(srq, tag)) {
		srq->busy[tag / 64] &= ~(1ULL << (tag % 64));
		*wr_id = srq->wr_id[tag];
		srq->free[srq->nfree++] = tag;
		ok = true;
	}
	pthread_spin_unlock(&srq->lock);

	return ok;
}

/*
 * An SRQ completion of a QP that is gone: free its tag, through the
 * context's SRQ list, and drop it.
 */
static void eri_srq_retire_orphan(struct eri_context *ctx, uint32_t srqn,
				  uint32_t tag)
{
	struct eri_srq *srq;
	uint64_t wr_id;

	/* destroy_srq takes the SRQ off the list under this lock. */
	pthread_spin_lock(&ctx->srq_lock);
	list_for_each(&ctx->srqs, srq, entry) {
		if (srq->srqn == srqn) {
			if (eri_srq_retire(srq, tag, &wr_id))
				srq->stale_cqes++;
			break;
		}
	}
	pthread_spin_unlock(&ctx->srq_lock);
}

/*
 * Turn one CQE (a private copy) into a work completion.  Returns false if
 * the CQE is to be dropped: its QP is gone or it names no live WQE.
 * Called with the CQ lock held, which keeps the QP from being freed.
 */
static bool eri_cqe_to_wc(struct eri_cq *cq, const struct eri_cqe *cqe,
			  struct ibv_wc *wc)
{
	struct eri_context *ctx = to_eri_ctx(cq->vcq.cq.context);
	uint32_t hdr = le32toh(cqe->hdr);
	uint32_t qpn = le32toh(cqe->qpn);
	uint32_t status = FIELD_GET(ERI_CQE_HDR_STATUS, hdr);
	uint32_t opcode = FIELD_GET(ERI_CQE_HDR_OPCODE, hdr);
	bool is_sq = hdr & ERI_CQE_HDR_SQ;
	struct eri_qp *qp;
	uint64_t wr_id;

	qp = eri_qp_table_lookup(ctx, qpn);
	if (hdr & ERI_CQE_HDR_SRQ) {
		uint32_t tag = le32toh(cqe->wqe_idx);

		/* The device is broken: only receives come from an SRQ. */
		if (is_sq)
			return false;
		/*
		 * The SRQ cannot be destroyed before the QP (the kernel
		 * refuses), whose removal from the table takes this CQ's
		 * lock: it is safe to use here.
		 */
		if (!qp || !qp->srq || qp->srq->srqn != le32toh(cqe->srqn) ||
		    qp->vqp.qp.recv_cq != &cq->vcq.cq) {
			/*
			 * Its QP is gone (the QPN maybe reused already, by
			 * a QP of another SRQ or CQ): give the tag back.
			 */
			eri_srq_retire_orphan(ctx, le32toh(cqe->srqn), tag);
			return false;
		}
		if (!eri_srq_retire(qp->srq, tag, &wr_id))
			return false;
	} else {
		if (!qp)
			return false;
		/* A queue completes only into its own CQ. */
		if ((is_sq ? qp->vqp.qp.send_cq : qp->vqp.qp.recv_cq) !=
		    &cq->vcq.cq)
			return false;
		if (!eri_wq_retire(is_sq ? &qp->sq : &qp->rq,
				   (uint16_t)le32toh(cqe->wqe_idx), &wr_id))
			return false;
	}

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = eri_wc_status(status);
	if (status != ERI_CQE_STS_SUCCESS)
		wc->vendor_err = status;
	wc->qp_num = qpn;
	wc->byte_len = le32toh(cqe->byte_len);

	switch (opcode) {
	case ERI_CQE_OP_SEND:
		wc->opcode = IBV_WC_SEND;
		break;
	case ERI_CQE_OP_WRITE:
		wc->opcode = IBV_WC_RDMA_WRITE;
		break;
	case ERI_CQE_OP_READ:
		wc->opcode = IBV_WC_RDMA_READ;
		break;
	case ERI_CQE_OP_CMP_SWP:
		wc->opcode = IBV_WC_COMP_SWAP;
		break;
	case ERI_CQE_OP_FETCH_ADD:
		wc->opcode = IBV_WC_FETCH_ADD;
		break;
	case ERI_CQE_OP_RECV:
		wc->opcode = IBV_WC_RECV;
		break;
	case ERI_CQE_OP_RECV_WRITE_IMM:
		wc->opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		break;
	default:
		/* Only the status of a failed completion is defined. */
		wc->opcode = is_sq ? IBV_WC_SEND : IBV_WC_RECV;
		if (status == ERI_CQE_STS_SUCCESS) {
			wc->status = IBV_WC_GENERAL_ERR;
			wc->vendor_err = hdr;
		}
		break;
	}

	if (!is_sq) {
		wc->src_qp = le32toh(cqe->src_qpn);
		/*
		 * A datagram: the buffer starts with its 40-byte GRH.  RoCEv2
		 * has a UD completion say whether the datagram came over IPv4
		 * or IPv6 (IBA Annex A17.4.5.1), which tells where the GRH
		 * area holds the destination address; ibv_wc has no field
		 * for it; RoCE devices report it in sl (see ERI_WC_SL_IPV4).
		 */
		if (hdr & ERI_CQE_HDR_GRH) {
			wc->wc_flags |= IBV_WC_GRH;
			wc->sl = hdr & ERI_CQE_HDR_IPV4 ? ERI_WC_SL_IPV4 :
							  ERI_WC_SL_IPV6;
		}
		if (hdr & ERI_CQE_HDR_IMM) {
			wc->wc_flags |= IBV_WC_WITH_IMM;
			/* Network byte order on both sides. */
			wc->imm_data = cqe->imm_data;
		} else if (hdr & ERI_CQE_HDR_INV) {
			wc->wc_flags |= IBV_WC_WITH_INV;
			wc->invalidated_rkey = le32toh(cqe->inv_rkey);
		}
	}

	return true;
}

/*
 * Turn the next CQE that names a live WQE into *@wc, dropping stale ones on
 * the way.  CQ lock held.  Return: false once the ring is empty.
 */
static bool eri_cq_next(struct eri_cq *cq, struct ibv_wc *wc)
{
	for (;;) {
		const struct eri_cqe *slot =
			&cq->ring[eri_ring_slot(cq->ci, cq->depth_log)];
		struct eri_cqe cqe;
		uint32_t hdr;

		hdr = eri_read_once32(&slot->hdr);
		if ((hdr & ERI_CQE_HDR_OWNER) !=
		    eri_ring_owner(cq->ci, cq->depth_log))
			return false;
		/* The owner bit first, then the body it guards. */
		udma_from_device_barrier();
		memcpy(&cqe, slot, sizeof(cqe));
		cqe.hdr = htole32(hdr);
		cq->ci++;

		if (eri_cqe_to_wc(cq, &cqe, wc))
			return true;
		cq->stale_cqes++;
	}
}

/* Give the device the entries consumed since @start.  CQ lock held. */
static void eri_cq_update_ci(struct eri_cq *cq, uint32_t start)
{
	if (cq->ci == start)
		return;
	/*
	 * The entries are read before the device may reuse them: order our
	 * loads of them before the store of ci.
	 */
	atomic_thread_fence(memory_order_release);
	eri_write_once32(&cq->dbrec->ci, cq->ci);
}

/*
 * Whether the device of @cq is gone: the context's status page, which
 * ib_core replaces with zeros when the device goes, no longer says live.
 * Asked when the CQ is found empty, which it then stays; a busy-polling
 * application that is told ends instead of polling for ever.
 */
static bool eri_cq_dev_gone(struct eri_cq *cq)
{
	const struct eri_uctx_status *status =
		to_eri_ctx(cq->vcq.cq.context)->status;

	/* In host order: the kernel and we share one CPU. */
	return status && *(const volatile uint32_t *)&status->state !=
				 ERI_UCTX_STATE_LIVE;
}

int eri_poll_cq(struct ibv_cq *ibvcq, int num_entries, struct ibv_wc *wc)
{
	struct eri_cq *cq = to_eri_cq(ibvcq);
	uint32_t start;
	int npolled = 0;

	/* One poller at a time owns ci; see struct eri_cq for the rest. */
	pthread_spin_lock(&cq->lock);
	start = cq->ci;
	while (npolled < num_entries && eri_cq_next(cq, &wc[npolled]))
		npolled++;
	eri_cq_update_ci(cq, start);
	pthread_spin_unlock(&cq->lock);

	if (!npolled && num_entries > 0 && eri_cq_dev_gone(cq))
		return -EIO;
	return npolled;
}

/*
 * The ibv_cq_ex polling API.  start_poll takes the CQ lock and end_poll
 * releases it, so that a batch owns ci as one poll_cq call does; each
 * completion is decoded by the same code as poll_cq's, into cq->cur, and
 * the read functions hand out its fields.
 */
static void eri_cq_ex_set_cur(struct eri_cq *cq)
{
	cq->vcq.cq_ex.wr_id = cq->cur.wr_id;
	cq->vcq.cq_ex.status = cq->cur.status;
}

static int eri_start_poll(struct ibv_cq_ex *ibvcq,
			  struct ibv_poll_cq_attr *attr)
{
	struct eri_cq *cq = to_eri_cq_ex(ibvcq);

	if (attr->comp_mask)
		return EINVAL;

	/* Held until end_poll; not when we return an error. */
	pthread_spin_lock(&cq->lock);
	cq->poll_start = cq->ci;
	if (!eri_cq_next(cq, &cq->cur)) {
		/* No end_poll follows: give back the stale entries now. */
		eri_cq_update_ci(cq, cq->poll_start);
		pthread_spin_unlock(&cq->lock);
		return eri_cq_dev_gone(cq) ? EIO : ENOENT;
	}
	eri_cq_ex_set_cur(cq);

	return 0;
}

static int eri_next_poll(struct ibv_cq_ex *ibvcq)
{
	struct eri_cq *cq = to_eri_cq_ex(ibvcq);

	if (!eri_cq_next(cq, &cq->cur))
		return ENOENT;
	eri_cq_ex_set_cur(cq);

	return 0;
}

static void eri_end_poll(struct ibv_cq_ex *ibvcq)
{
	struct eri_cq *cq = to_eri_cq_ex(ibvcq);

	eri_cq_update_ci(cq, cq->poll_start);
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode eri_read_opcode(struct ibv_cq_ex *ibvcq)
{
	return to_eri_cq_ex(ibvcq)->cur.opcode;
}

static uint32_t eri_read_vendor_err(struct ibv_cq_ex *ibvcq)
{
	return to_eri_cq_ex(ibvcq)->cur.vendor_err;
}

static uint32_t eri_read_byte_len(struct ibv_cq_ex *ibvcq)
{
	return to_eri_cq_ex(ibvcq)->cur.byte_len;
}

/* The immediate data, or with IBV_WC_WITH_INV the invalidated key. */
static __be32 eri_read_imm_data(struct ibv_cq_ex *ibvcq)
{
	return to_eri_cq_ex(ibvcq)->cur.imm_data;
}

static uint32_t eri_read_qp_num(struct ibv_cq_ex *ibvcq)
{
	return to_eri_cq_ex(ibvcq)->cur.qp_num;
}

static uint32_t eri_read_src_qp(struct ibv_cq_ex *ibvcq)
{
	return to_eri_cq_ex(ibvcq)->cur.src_qp;
}

static unsigned int eri_read_wc_flags(struct ibv_cq_ex *ibvcq)
{
	return to_eri_cq_ex(ibvcq)->cur.wc_flags;
}

/*
 * The port is Ethernet: no LIDs, no SL.  SLID and the path bits are 0;
 * sl is a datagram's network header type, as ibv_poll_cq reports it.
 */
static uint32_t eri_read_slid(struct ibv_cq_ex *ibvcq)
{
	return to_eri_cq_ex(ibvcq)->cur.slid;
}

static uint8_t eri_read_sl(struct ibv_cq_ex *ibvcq)
{
	return to_eri_cq_ex(ibvcq)->cur.sl;
}

static uint8_t eri_read_dlid_path_bits(struct ibv_cq_ex *ibvcq)
{
	return to_eri_cq_ex(ibvcq)->cur.dlid_path_bits;
}

/*
 * What a CQE carries.  Not COMPLETION_TIMESTAMP(_WALLCLOCK): the device
 * writes no time into its CQEs, and a time liberi took when polling would
 * not be the completion's.  Nor CVLAN, FLOW_TAG or TM_INFO.
 */
#define ERI_CQ_EX_WC_FLAGS	IBV_WC_STANDARD_FLAGS

/*
 * Single-threaded use needs nothing of us (the lock stays); overrun cannot
 * be ignored: the device stops a full CQ.
 */
#define ERI_CQ_EX_FLAGS		IBV_CREATE_CQ_ATTR_SINGLE_THREADED

/* Offer cq_ex's polling functions and the read functions of @wc_flags. */
static void eri_cq_ex_init(struct eri_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;

	cqx->start_poll = eri_start_poll;
	cqx->next_poll = eri_next_poll;
	cqx->end_poll = eri_end_poll;
	cqx->read_opcode = eri_read_opcode;
	cqx->read_vendor_err = eri_read_vendor_err;
	cqx->read_wc_flags = eri_read_wc_flags;
	/* Only what was asked for, so that the rest fails loudly. */
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cqx->read_byte_len = eri_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		cqx->read_imm_data = eri_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cqx->read_qp_num = eri_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cqx->read_src_qp = eri_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		cqx->read_slid = eri_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		cqx->read_sl = eri_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cqx->read_dlid_path_bits = eri_read_dlid_path_bits;
}

struct ibv_cq_ex *eri_create_cq_ex(struct ibv_context *ibvctx,
				   struct ibv_cq_init_attr_ex *attr)
{
	struct eri_cq *cq;

	if ((attr->wc_flags & ~(uint64_t)ERI_CQ_EX_WC_FLAGS) ||
	    (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~(uint32_t)ERI_CQ_EX_FLAGS))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->cqe > INT32_MAX) {
		errno = EINVAL;
		return NULL;
	}

	cq = eri_cq_create(ibvctx, attr->cqe, attr->channel,
			   attr->comp_vector);
	if (!cq)
		return NULL;

	eri_cq_ex_init(cq, attr->wc_flags);

	return &cq->vcq.cq_ex;
}

int eri_req_notify_cq(struct ibv_cq *ibvcq, int solicited_only)
{
	struct eri_cq *cq = to_eri_cq(ibvcq);
	uint32_t sn, arm;

	/* arm_sn and the arm word are the CQ's, like ci. */
	pthread_spin_lock(&cq->lock);
	sn = (cq->arm_sn + 1) & (ERI_CQ_ARM_SN >> 2);
	if (!sn)	/* 0 is the number of the zeroed record */
		sn = 1;
	cq->arm_sn = sn;
	arm = FIELD_PREP(ERI_CQ_ARM_SN, sn) | ERI_CQ_ARM;
	if (solicited_only)
		arm |= ERI_CQ_ARM_SOLICITED;
	eri_write_once32(&cq->dbrec->arm, arm);
	/*
	 * The device reads arm after each completion it writes, behind a
	 * full barrier of its own; ours makes the request visible before
	 * the caller polls again, so a completion is seen by that poll or
	 * raises the event.
	 */
	eri_full_barrier();
	pthread_spin_unlock(&cq->lock);

	return 0;
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

/* Encode @n scatter/gather entries at @sge. */
static void eri_write_sges(struct eri_sge *sge, const struct ibv_sge *sg_list,
			   int n)
{
	int i;

	for (i = 0; i < n; i++) {
		sge[i].addr = htole64(sg_list[i].addr);
		sge[i].length = htole32(sg_list[i].length);
		sge[i].lkey = htole32(sg_list[i].lkey);
	}
}

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

/* Shared receive queues */

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
