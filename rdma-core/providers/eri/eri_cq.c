// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * liberi: completion queues.
 *
 * A CQ's ring and doorbell record are ours, pinned by the kernel
 * (ERI_UCTX_CAP_CQ_USER_RING), or allocated by the kernel and mapped to us.
 * Polling and arming touch only that memory; a completion names its QP,
 * found in the context's QPN table without a lock.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <util/udma_barrier.h>

#include "eri.h"
#include "eri-abi.h"

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

/*
 * Create a CQ for ibv_create_cq and ibv_create_cq_ex alike: the kernel
 * object, its ring and its doorbell record.  Return: the CQ, or NULL with
 * errno set.
 */
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
