// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_exverbs_test: the extended verbs end to end, in one process: RC and
 * UD queue pairs of ibv_create_qp_ex posting through ibv_wr_*, completion
 * queues of ibv_create_cq_ex polled through ibv_start_poll/ibv_next_poll.
 *
 * Usage: eri_exverbs_test [-t SEC] DEV0 GID0 DEV1 GID1
 *
 * Opens DEV0 and DEV1 (in the default "shared" rdma netns mode a process
 * sees the devices of every network namespace), connects an RC QP of each,
 * and checks (TAP style, "ok - ..." or "not ok - ..."):
 *
 *   - ibv_query_device_ex; ibv_create_cq_ex with the standard wc_flags,
 *     completion timestamps refused (EOPNOTSUPP); ibv_create_qp_ex with
 *     every send_ops_flag liberi has, LOCAL_INV and BIND_MW refused, and
 *     the builders not asked for not offered; CREATE_FLAGS in comp_mask
 *     with no flag (RC, UD) taken, a flag refused; the FLUSH access
 *     rights accepted (dropped), an undefined access bit refused;
 *   - SEND (SGE list, inline, inline list, with immediate data), RDMA
 *     WRITE and WRITE with immediate, RDMA READ, CMP_SWP and FETCH_ADD,
 *     each byte for byte (data, immediate, original values, the remote
 *     word) and with every completion field read through ibv_cq_ex;
 *   - inline data is copied by the setter: the buffer changed before
 *     ibv_wr_complete does not change what arrives;
 *   - a batch of 16 WRITEs in one ibv_wr_start/ibv_wr_complete; a batch
 *     aborted with ibv_wr_abort sends nothing; a bad WR fails
 *     ibv_wr_complete and nothing of its batch is sent; ibv_post_send
 *     between batches on the same QP;
 *   - a completion event of a CQ of ibv_create_cq_ex;
 *   - UD: ibv_wr_set_ud_addr, the datagram with its GRH and source QPN;
 *   - last, a WRITE with a bad rkey: REM_ACCESS_ERR and its vendor error.
 *
 * Every wait has a timeout (-t), so the test never hangs.  The last line is
 * "# N passed, N failed"; the exit status is 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "tap.h"
#include "verbs_util.h"

#define BUF_LEN		(256 * 1024)
#define QKEY		0x11220000
#define RC_OPS		(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_SEND_WITH_INV |			\
			 IBV_QP_EX_WITH_RDMA_WRITE |			\
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |		\
			 IBV_QP_EX_WITH_RDMA_READ |			\
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |		\
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

static int timeout_s = 10;

struct side {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_device_attr_ex attr;
	struct ibv_pd *pd;
	int gid_index;
	union ibv_gid gid;
	struct ibv_comp_channel *ch;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	uint8_t *buf;			/* local data, then the target region */
	struct ibv_mr *mr;
};

static struct side s[2];

static bool open_side(struct side *d, const char *name, int gid_index)
{
	d->name = name;
	d->gid_index = gid_index;
	d->ctx = open_device_by_name(name);
	report(d->ctx, "open %s", name);
	if (!d->ctx)
		return false;
	report(!ibv_query_device_ex(d->ctx, NULL, &d->attr),
	       "%s: ibv_query_device_ex (max_qp_wr %d, atomic_cap %d)", name,
	       d->attr.orig_attr.max_qp_wr, d->attr.orig_attr.atomic_cap);
	report(!ibv_query_gid(d->ctx, 1, gid_index, &d->gid),
	       "%s: GID index %d", name, gid_index);
	d->pd = ibv_alloc_pd(d->ctx);
	if (posix_memalign((void **)&d->buf, 4096, BUF_LEN))
		d->buf = NULL;
	if (!d->pd || !d->buf)
		return false;
	memset(d->buf, 0, BUF_LEN);
	d->mr = ibv_reg_mr(d->pd, d->buf, BUF_LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	report(d->mr, "%s: register %d KiB", name, BUF_LEN >> 10);
	return d->mr;
}

static struct ibv_cq_ex *create_cqx(struct side *d, struct ibv_comp_channel *ch,
				    uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 256,
		.channel = ch,
		.wc_flags = wc_flags,
	};

	return ibv_create_cq_ex(d->ctx, &ca);
}

static struct ibv_qp *create_qpx(struct side *d, struct ibv_cq_ex *cq,
				 enum ibv_qp_type type, uint64_t ops)
{
	/* UD WQEs carry the address: less room for inline data. */
	uint32_t inl = type == IBV_QPT_UD ? 32 : 64;
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = ibv_cq_ex_to_cq(cq),
		.recv_cq = ibv_cq_ex_to_cq(cq),
		.qp_type = type,
		.cap = {
			.max_send_wr = 64,
			.max_recv_wr = 64,
			.max_send_sge = 3,
			.max_recv_sge = 1,
			.max_inline_data = inl,
		},
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = d->pd,
		.send_ops_flags = ops,
	};

	return ibv_create_qp_ex(d->ctx, &ia);
}

/* RESET -> INIT -> RTR -> RTS, connected to @peer's QP @pqpn. */
static int connect_rc(struct side *d, struct ibv_qp *qp, struct side *peer,
		      uint32_t pqpn)
{
	struct rc_path p;

	rc_path_init(&p, d->gid_index, &peer->gid, pqpn);
	p.access = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
		   IBV_ACCESS_REMOTE_ATOMIC;
	p.rq_psn = 100;
	p.sq_psn = 100;
	return rc_connect(qp, &p, NULL);
}

/*
 * Poll @cq through the ibv_cq_ex API until @n completions arrived or the
 * timeout passed, reading every standard field into @wc.  Return: the
 * number read.
 */
static int poll_cqx(struct ibv_cq_ex *cq, struct ibv_wc *wc, int n,
		    int wait_ms)
{
	struct ibv_poll_cq_attr pa = {};
	int64_t end = now_ms() + wait_ms;
	int got = 0, ret;

	while (got < n && now_ms() < end) {
		ret = ibv_start_poll(cq, &pa);
		if (ret == ENOENT) {
			usleep(100);
			continue;
		}
		if (ret) {
			report(false, "ibv_start_poll: %s", strerror(ret));
			return got;
		}
		do {
			struct ibv_wc *w = &wc[got++];

			memset(w, 0, sizeof(*w));
			w->wr_id = cq->wr_id;
			w->status = cq->status;
			w->opcode = ibv_wc_read_opcode(cq);
			w->vendor_err = ibv_wc_read_vendor_err(cq);
			w->byte_len = ibv_wc_read_byte_len(cq);
			w->imm_data = ibv_wc_read_imm_data(cq);
			w->qp_num = ibv_wc_read_qp_num(cq);
			w->src_qp = ibv_wc_read_src_qp(cq);
			w->wc_flags = ibv_wc_read_wc_flags(cq);
			w->slid = ibv_wc_read_slid(cq);
			w->sl = ibv_wc_read_sl(cq);
			w->dlid_path_bits = ibv_wc_read_dlid_path_bits(cq);
		} while (got < n && !ibv_next_poll(cq));
		ibv_end_poll(cq);
	}
	return got;
}

/* One completion on @d's CQ, expected with @status (and @opcode if ok). */
static bool one_wc(struct side *d, struct ibv_wc *wc, uint64_t wr_id,
		   enum ibv_wc_opcode opcode, const char *what)
{
	bool ok;

	if (poll_cqx(d->cq, wc, 1, timeout_s * 1000) != 1) {
		report(false, "%s: %s: a completion within %d s", what,
		       d->name, timeout_s);
		return false;
	}
	ok = wc->status == IBV_WC_SUCCESS && wc->opcode == opcode &&
	     wc->wr_id == wr_id && wc->qp_num == d->qp->qp_num;
	report(ok, "%s: %s: completion %s, opcode %d, wr_id %" PRIu64
	       ", qp_num %u", what, d->name, ibv_wc_status_str(wc->status),
	       wc->opcode, wc->wr_id, wc->qp_num);
	return ok;
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static void post_recv(struct side *d, uint64_t wr_id, size_t off,
		      uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)d->buf + off,
		.length = len,
		.lkey = d->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	if (ibv_post_recv(d->qp, &wr, &bad))
		report(false, "%s: ibv_post_recv", d->name);
}

/* Offsets in each buffer: what we send from, where it lands. */
#define SRC	0
#define DST	(64 * 1024)
#define WORD	(200 * 1024)		/* the atomics' word */
#define RES	(201 * 1024)		/* their original values */

static void test_sends(void)
{
	struct side *a = &s[0], *b = &s[1];
	struct ibv_qp_ex *x = a->qpx;
	struct ibv_sge sgl[3];
	struct ibv_data_buf bufs[3];
	uint8_t inl[64], want[4096];
	struct ibv_wc wc;
	int ret;

	/* SEND with an SGE list of three pieces, 4000 bytes. */
	fill(a->buf + SRC, 8192, 1);
	memset(b->buf + DST, 0, 8192);
	post_recv(b, 11, DST, 8192);
	sgl[0] = (struct ibv_sge){ (uintptr_t)a->buf + SRC, 1000, a->mr->lkey };
	sgl[1] = (struct ibv_sge){ (uintptr_t)a->buf + SRC + 3000, 2000,
				   a->mr->lkey };
	sgl[2] = (struct ibv_sge){ (uintptr_t)a->buf + SRC + 7000, 1000,
				   a->mr->lkey };
	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge_list(x, 3, sgl);
	ret = ibv_wr_complete(x);
	report(!ret, "SEND (3 SGEs): ibv_wr_complete (%d)", ret);
	one_wc(a, &wc, 1, IBV_WC_SEND, "SEND");
	if (one_wc(b, &wc, 11, IBV_WC_RECV, "SEND")) {
		memcpy(want, a->buf + SRC, 1000);
		memcpy(want + 1000, a->buf + SRC + 3000, 2000);
		memcpy(want + 3000, a->buf + SRC + 7000, 1000);
		report(wc.byte_len == 4000 && wc.wc_flags == 0 &&
		       !memcmp(b->buf + DST, want, 4000),
		       "SEND: 4000 bytes arrive in order (byte_len %u, flags %#x)",
		       wc.byte_len, wc.wc_flags);
	}

	/* Inline: the setter copies; changing the buffer after it is fine. */
	fill(inl, sizeof(inl), 2);
	memcpy(want, inl, sizeof(inl));
	post_recv(b, 12, DST, 8192);
	ibv_wr_start(x);
	x->wr_id = 2;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, inl, sizeof(inl));
	memset(inl, 0xee, sizeof(inl));
	ret = ibv_wr_complete(x);
	report(!ret, "SEND inline: ibv_wr_complete (%d)", ret);
	one_wc(a, &wc, 2, IBV_WC_SEND, "SEND inline");
	if (one_wc(b, &wc, 12, IBV_WC_RECV, "SEND inline"))
		report(wc.byte_len == sizeof(inl) &&
		       !memcmp(b->buf + DST, want, sizeof(inl)),
		       "SEND inline: the 64 bytes as they were at the setter");

	/* SEND_IMM, inline from three buffers, unsignaled then a signaled. */
	fill(a->buf + SRC, 64, 3);
	bufs[0] = (struct ibv_data_buf){ a->buf + SRC, 10 };
	bufs[1] = (struct ibv_data_buf){ a->buf + SRC + 20, 0 };
	bufs[2] = (struct ibv_data_buf){ a->buf + SRC + 30, 30 };
	memcpy(want, a->buf + SRC, 10);
	memcpy(want + 10, a->buf + SRC + 30, 30);
	post_recv(b, 13, DST, 8192);
	post_recv(b, 14, DST + 4096, 8192);
	ibv_wr_start(x);
	x->wr_id = 3;
	x->wr_flags = 0;
	ibv_wr_send_imm(x, htonl(0x12345678));
	ibv_wr_set_inline_data_list(x, 3, bufs);
	x->wr_id = 4;
	x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf + SRC, 0);
	ret = ibv_wr_complete(x);
	report(!ret, "SEND_IMM inline list + zero-length SEND: one batch (%d)",
	       ret);
	one_wc(a, &wc, 4, IBV_WC_SEND,
	       "SEND_IMM + SEND (the unsignaled one retires with it)");
	if (one_wc(b, &wc, 13, IBV_WC_RECV, "SEND_IMM"))
		report(wc.byte_len == 40 && (wc.wc_flags & IBV_WC_WITH_IMM) &&
		       wc.imm_data == htonl(0x12345678) &&
		       !memcmp(b->buf + DST, want, 40),
		       "SEND_IMM: 40 bytes of three buffers, immediate %#x",
		       ntohl(wc.imm_data));
	if (one_wc(b, &wc, 14, IBV_WC_RECV, "zero-length SEND"))
		report(wc.byte_len == 0 && !(wc.wc_flags & IBV_WC_WITH_IMM),
		       "zero-length SEND: byte_len 0, no immediate");
}

static void test_rdma(void)
{
	struct side *a = &s[0], *b = &s[1];
	struct ibv_qp_ex *x = a->qpx;
	uint8_t want[8192];
	struct ibv_sge sgl[2];
	struct ibv_wc wc[16];
	uint64_t *word = (uint64_t *)(b->buf + WORD);
	uint64_t *res = (uint64_t *)(a->buf + RES);
	int ret, i, n;
	bool ok;

	/* WRITE from two SGEs. */
	fill(a->buf + SRC, 8192, 4);
	memset(b->buf + DST, 0, 8192);
	sgl[0] = (struct ibv_sge){ (uintptr_t)a->buf + SRC + 1, 3000,
				   a->mr->lkey };
	sgl[1] = (struct ibv_sge){ (uintptr_t)a->buf + SRC + 5000, 3001,
				   a->mr->lkey };
	memcpy(want, a->buf + SRC + 1, 3000);
	memcpy(want + 3000, a->buf + SRC + 5000, 3001);
	ibv_wr_start(x);
	x->wr_id = 20;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, b->mr->rkey, (uintptr_t)b->buf + DST + 3);
	ibv_wr_set_sge_list(x, 2, sgl);
	ret = ibv_wr_complete(x);
	report(!ret, "WRITE (2 SGEs): ibv_wr_complete (%d)", ret);
	if (one_wc(a, wc, 20, IBV_WC_RDMA_WRITE, "WRITE"))
		report(!memcmp(b->buf + DST + 3, want, 6001) &&
		       b->buf[DST + 2] == 0 && b->buf[DST + 6004] == 0,
		       "WRITE: 6001 bytes at +3, none around them");

	/* WRITE_IMM: the peer's receive completes with the immediate. */
	fill(a->buf + SRC, 100, 5);
	post_recv(b, 21, DST, 0);
	ibv_wr_start(x);
	x->wr_id = 22;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(x, b->mr->rkey, (uintptr_t)b->buf + DST + 8000,
			      htonl(0xa1b2c3d4));
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf + SRC, 100);
	ret = ibv_wr_complete(x);
	report(!ret, "WRITE_IMM: ibv_wr_complete (%d)", ret);
	one_wc(a, wc, 22, IBV_WC_RDMA_WRITE, "WRITE_IMM");
	if (one_wc(b, wc, 21, IBV_WC_RECV_RDMA_WITH_IMM, "WRITE_IMM"))
		report((wc[0].wc_flags & IBV_WC_WITH_IMM) &&
		       wc[0].imm_data == htonl(0xa1b2c3d4) &&
		       !memcmp(b->buf + DST + 8000, a->buf + SRC, 100),
		       "WRITE_IMM: data and immediate %#x",
		       ntohl(wc[0].imm_data));

	/* READ into two SGEs. */
	fill(b->buf + DST, 8192, 6);
	memset(a->buf + SRC, 0, 16384);
	sgl[0] = (struct ibv_sge){ (uintptr_t)a->buf + SRC, 5000, a->mr->lkey };
	sgl[1] = (struct ibv_sge){ (uintptr_t)a->buf + SRC + 10000, 3000,
				   a->mr->lkey };
	ibv_wr_start(x);
	x->wr_id = 23;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(x, b->mr->rkey, (uintptr_t)b->buf + DST + 100);
	ibv_wr_set_sge_list(x, 2, sgl);
	ret = ibv_wr_complete(x);
	report(!ret, "READ: ibv_wr_complete (%d)", ret);
	if (one_wc(a, wc, 23, IBV_WC_RDMA_READ, "READ"))
		report(wc[0].byte_len == 8000 &&
		       !memcmp(a->buf + SRC, b->buf + DST + 100, 5000) &&
		       !memcmp(a->buf + SRC + 10000, b->buf + DST + 5100, 3000),
		       "READ: 8000 bytes into two SGEs (byte_len %u)",
		       wc[0].byte_len);

	/* Atomics: a compare that fails, one that swaps, an add. */
	*word = 0x1111222233334444ULL;
	memset(res, 0xa5, 32);
	ibv_wr_start(x);
	x->wr_id = 30;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_cmp_swp(x, b->mr->rkey, (uintptr_t)word, 5, 6);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)&res[0], 8);
	x->wr_id = 31;
	ibv_wr_atomic_cmp_swp(x, b->mr->rkey, (uintptr_t)word,
			      0x1111222233334444ULL, 40);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)&res[1], 8);
	x->wr_id = 32;
	ibv_wr_atomic_fetch_add(x, b->mr->rkey, (uintptr_t)word, 2);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)&res[2], 8);
	ret = ibv_wr_complete(x);
	report(!ret, "CMP_SWP, CMP_SWP, FETCH_ADD in one batch (%d)", ret);
	n = poll_cqx(a->cq, wc, 3, timeout_s * 1000);
	ok = n == 3;
	for (i = 0; ok && i < 3; i++)
		ok = wc[i].status == IBV_WC_SUCCESS &&
		     wc[i].wr_id == (uint64_t)(30 + i) &&
		     wc[i].opcode == (i < 2 ? IBV_WC_COMP_SWAP :
					      IBV_WC_FETCH_ADD) &&
		     wc[i].byte_len == 8;
	report(ok, "atomics: 3 completions in order, opcodes and byte_len 8");
	report(res[0] == 0x1111222233334444ULL &&
	       res[1] == 0x1111222233334444ULL && res[2] == 40 && *word == 42,
	       "atomics: originals %#" PRIx64 ", %#" PRIx64 ", %" PRIu64
	       "; the word ends at %" PRIu64, res[0], res[1], res[2], *word);
}

static void test_batches(void)
{
	struct side *a = &s[0], *b = &s[1];
	struct ibv_qp_ex *x = a->qpx;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc[20];
	int ret, i, n;
	bool ok;

	/* 16 WRITEs, one batch. */
	fill(a->buf + SRC, 16 * 1024, 7);
	memset(b->buf + DST, 0, 16 * 1024);
	ibv_wr_start(x);
	for (i = 0; i < 16; i++) {
		x->wr_id = 100 + i;
		x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(x, b->mr->rkey,
				  (uintptr_t)b->buf + DST + i * 1024);
		ibv_wr_set_sge(x, a->mr->lkey,
			       (uintptr_t)a->buf + SRC + i * 1024, 1024);
	}
	ret = ibv_wr_complete(x);
	report(!ret, "16 WRITEs in one batch: ibv_wr_complete (%d)", ret);
	n = poll_cqx(a->cq, wc, 16, timeout_s * 1000);
	ok = n == 16;
	for (i = 0; ok && i < 16; i++)
		ok = wc[i].status == IBV_WC_SUCCESS &&
		     wc[i].wr_id == (uint64_t)(100 + i);
	report(ok && !memcmp(a->buf + SRC, b->buf + DST, 16 * 1024),
	       "16 WRITEs: 16 completions in order (%d), 16 KiB in place", n);

	/* Aborted: nothing is sent; then ibv_post_send on the same QP. */
	memset(b->buf + DST, 0, 1024);
	ibv_wr_start(x);
	x->wr_id = 200;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, b->mr->rkey, (uintptr_t)b->buf + DST);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf + SRC, 1024);
	ibv_wr_abort(x);
	sge = (struct ibv_sge){ (uintptr_t)a->buf + SRC + 2048, 8, a->mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 201;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)b->buf + DST + 2048;
	wr.wr.rdma.rkey = b->mr->rkey;
	ret = ibv_post_send(a->qp, &wr, &bad);
	report(!ret, "ibv_post_send after ibv_wr_abort (%d)", ret);
	n = poll_cqx(a->cq, wc, 2, 500 + timeout_s * 100);
	report(n == 1 && wc[0].wr_id == 201 && wc[0].status == IBV_WC_SUCCESS,
	       "the aborted WRITE never completes, the posted one does (%d, wr_id %" PRIu64 ")",
	       n, n ? wc[0].wr_id : 0);
	for (i = 0; i < 1024 && !b->buf[DST + i]; i++)
		;
	report(i == 1024 &&
	       !memcmp(b->buf + DST + 2048, a->buf + SRC + 2048, 8),
	       "the aborted WRITE wrote nothing");

	/* A bad WR (inline READ): EINVAL, none of the batch goes out. */
	memset(b->buf + DST, 0, 1024);
	ibv_wr_start(x);
	x->wr_id = 300;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, b->mr->rkey, (uintptr_t)b->buf + DST);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf + SRC, 1024);
	x->wr_id = 301;
	ibv_wr_rdma_read(x, b->mr->rkey, (uintptr_t)b->buf + DST);
	ibv_wr_set_inline_data(x, a->buf + SRC, 8);
	ret = ibv_wr_complete(x);
	report(ret == EINVAL, "a READ with inline data: ibv_wr_complete says EINVAL (%d)",
	       ret);
	n = poll_cqx(a->cq, wc, 1, 500 + timeout_s * 100);
	for (i = 0; i < 1024 && !b->buf[DST + i]; i++)
		;
	report(n == 0 && i == 1024, "... and nothing of its batch went out (%d)",
	       n);
	/* The QP still works. */
	ibv_wr_start(x);
	x->wr_id = 302;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, b->mr->rkey, (uintptr_t)b->buf + DST);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf + SRC, 1024);
	ret = ibv_wr_complete(x);
	if (one_wc(a, wc, 302, IBV_WC_RDMA_WRITE, "WRITE after the failed batch"))
		report(!ret && !memcmp(b->buf + DST, a->buf + SRC, 1024),
		       "WRITE after the failed batch: in place");
}

/* A completion event of a CQ of ibv_create_cq_ex. */
static void test_event(void)
{
	struct side *a = &s[0], *b = &s[1];
	struct pollfd pfd = { .fd = b->ch->fd, .events = POLLIN };
	struct ibv_cq *ecq;
	void *ectx;
	struct ibv_wc wc;
	int ret;

	post_recv(b, 40, DST, 64);
	report(!ibv_req_notify_cq(ibv_cq_ex_to_cq(b->cq), 0),
	       "ibv_req_notify_cq on a CQ of ibv_create_cq_ex");
	ibv_wr_start(a->qpx);
	a->qpx->wr_id = 41;
	a->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(a->qpx);
	ibv_wr_set_inline_data(a->qpx, "event", 5);
	ret = ibv_wr_complete(a->qpx);
	report(!ret, "SEND for the event (%d)", ret);
	one_wc(a, &wc, 41, IBV_WC_SEND, "SEND for the event");
	ret = poll(&pfd, 1, timeout_s * 1000);
	report(ret == 1 && !ibv_get_cq_event(b->ch, &ecq, &ectx) &&
	       ecq == ibv_cq_ex_to_cq(b->cq),
	       "the completion event arrives for that CQ");
	if (ret == 1)
		ibv_ack_cq_events(ibv_cq_ex_to_cq(b->cq), 1);
	if (one_wc(b, &wc, 40, IBV_WC_RECV, "SEND for the event"))
		report(wc.byte_len == 5 && !memcmp(b->buf + DST, "event", 5),
		       "the event's message: 5 bytes");
}

/* UD through ibv_wr_set_ud_addr. */
static void test_ud(void)
{
	struct side *a = &s[0], *b = &s[1];
	struct ibv_cq_ex *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_qp_ex *x;
	struct ibv_ah_attr aa;
	struct ibv_qp_attr at;
	struct ibv_ah *ah = NULL;
	struct ibv_sge sge;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_wc wc;
	int i, ret;
	bool ok = true;

	for (i = 0; i < 2; i++) {
		cq[i] = create_cqx(&s[i], NULL, IBV_WC_STANDARD_FLAGS);
		qp[i] = cq[i] ? create_qpx(&s[i], cq[i], IBV_QPT_UD,
					   IBV_QP_EX_WITH_SEND |
					   IBV_QP_EX_WITH_SEND_WITH_IMM) : NULL;
		if (!qp[i]) {
			report(false, "UD: %s: ibv_create_qp_ex: %s",
			       s[i].name, strerror(errno));
			ok = false;
			continue;
		}
		memset(&at, 0, sizeof(at));
		at.qp_state = IBV_QPS_INIT;
		at.port_num = 1;
		at.qkey = QKEY;
		ret = ibv_modify_qp(qp[i], &at, IBV_QP_STATE |
				    IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_QKEY);
		if (!ret) {
			at.qp_state = IBV_QPS_RTR;
			ret = ibv_modify_qp(qp[i], &at, IBV_QP_STATE);
		}
		if (!ret) {
			at.qp_state = IBV_QPS_RTS;
			at.sq_psn = 0;
			ret = ibv_modify_qp(qp[i], &at, IBV_QP_STATE |
					    IBV_QP_SQ_PSN);
		}
		if (ret) {
			report(false, "UD: %s: to state %d: %s", s[i].name,
			       at.qp_state, strerror(ret));
			ok = false;
		}
	}
	report(ok, "UD: two QPs of ibv_create_qp_ex (SEND, SEND_IMM) in RTS");
	if (!ok)
		goto out;
	x = ibv_qp_to_qp_ex(qp[0]);
	report(x && x->wr_set_ud_addr && !x->wr_rdma_write,
	       "UD: ibv_qp_ex has wr_set_ud_addr, no RDMA builders");
	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	aa.grh.dgid = b->gid;
	aa.grh.sgid_index = a->gid_index;
	aa.grh.hop_limit = 64;
	aa.port_num = 1;
	ah = ibv_create_ah(a->pd, &aa);
	report(ah, "UD: address handle to %s", b->name);
	if (!ah || !x)
		goto out;

	memset(b->buf + DST, 0, 256);
	sge = (struct ibv_sge){ (uintptr_t)b->buf + DST, 40 + 100, b->mr->lkey };
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 50;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	ret = ibv_post_recv(qp[1], &rwr, &rbad);
	fill(a->buf + SRC, 100, 8);
	ibv_wr_start(x);
	x->wr_id = 51;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(x, htonl(77));
	ibv_wr_set_ud_addr(x, ah, qp[1]->qp_num, QKEY);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf + SRC, 100);
	ret = ret ?: ibv_wr_complete(x);
	report(!ret, "UD SEND_IMM: ibv_wr_complete (%d)", ret);
	ok = poll_cqx(cq[0], &wc, 1, timeout_s * 1000) == 1 &&
	     wc.status == IBV_WC_SUCCESS && wc.wr_id == 51 &&
	     wc.opcode == IBV_WC_SEND;
	report(ok, "UD SEND_IMM: the sender's completion");
	ok = poll_cqx(cq[1], &wc, 1, timeout_s * 1000) == 1 &&
	     wc.status == IBV_WC_SUCCESS && wc.wr_id == 50;
	report(ok && wc.byte_len == 140 && (wc.wc_flags & IBV_WC_GRH) &&
	       (wc.wc_flags & IBV_WC_WITH_IMM) && wc.imm_data == htonl(77) &&
	       wc.src_qp == qp[0]->qp_num &&
	       !memcmp(b->buf + DST + 40, a->buf + SRC, 100),
	       "UD SEND_IMM: 40-byte GRH and 100 bytes, immediate, src_qp %u",
	       ok ? wc.src_qp : 0);
out:
	if (ah)
		ibv_destroy_ah(ah);
	for (i = 0; i < 2; i++) {
		if (qp[i])
			ibv_destroy_qp(qp[i]);
		if (cq[i])
			ibv_destroy_cq(ibv_cq_ex_to_cq(cq[i]));
	}
}

/* Last: a bad rkey fails the QP. */
static void test_error(void)
{
	struct side *a = &s[0], *b = &s[1];
	struct ibv_qp_ex *x = a->qpx;
	struct ibv_wc wc = {};
	int ret, n;

	ibv_wr_start(x);
	x->wr_id = 60;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, b->mr->rkey ^ 0x5a5a00, (uintptr_t)b->buf + DST);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf + SRC, 64);
	ret = ibv_wr_complete(x);
	report(!ret, "WRITE with a bad rkey: posted (%d)", ret);
	n = poll_cqx(a->cq, &wc, 1, timeout_s * 1000);
	report(n == 1 && wc.wr_id == 60 && wc.status == IBV_WC_REM_ACCESS_ERR &&
	       wc.vendor_err != 0,
	       "WRITE with a bad rkey: REM_ACCESS_ERR, vendor_err %u",
	       wc.vendor_err);
}

static struct ibv_qp *create_qp_flags(struct side *d, struct ibv_cq_ex *cq,
				       enum ibv_qp_type type, uint32_t flags)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = ibv_cq_ex_to_cq(cq),
		.recv_cq = ibv_cq_ex_to_cq(cq),
		.qp_type = type,
		.cap = {
			.max_send_wr = 8,
			.max_recv_wr = 8,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.pd = d->pd,
		.create_flags = flags,
	};

	return ibv_create_qp_ex(d->ctx, &ia);
}

/*
 * IBV_QP_INIT_ATTR_CREATE_FLAGS with no flag set is no request (rdma-core's
 * tests send it at random); a flag set is refused.
 */
static void test_create_flags(struct side *d, struct ibv_cq_ex *cq,
			      enum ibv_qp_type type)
{
	const char *t = type == IBV_QPT_UD ? "UD" : "RC";
	struct ibv_qp *qp;

	errno = 0;
	qp = create_qp_flags(d, cq, type, 0);
	report(qp, "ibv_create_qp_ex, %s, CREATE_FLAGS with no flag (%s)", t,
	       qp ? "created" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	errno = 0;
	qp = create_qp_flags(d, cq, type, IBV_QP_CREATE_SCATTER_FCS);
	report(!qp && errno == EOPNOTSUPP,
	       "ibv_create_qp_ex, %s, with SCATTER_FCS: EOPNOTSUPP (%s)", t,
	       qp ? "created" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
}

/* INIT with access flags @access.  Return: 0 or the errno. */
static int qp_init_access(struct ibv_qp *qp, unsigned int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = access,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/*
 * The FLUSH rights (which ERI does not carry) are accepted and dropped, on
 * every kernel; a bit no kernel defines is refused.
 */
static void test_access_flags(struct side *d, struct ibv_cq_ex *cq)
{
	unsigned int flush = IBV_ACCESS_FLUSH_GLOBAL |
			     IBV_ACCESS_FLUSH_PERSISTENT;
	struct ibv_qp *qp;
	int err;

	qp = create_qp_flags(d, cq, IBV_QPT_RC, 0);
	if (!qp) {
		report(false, "RC QP for the access flags (%s)",
		       strerror(errno));
		return;
	}
	err = qp_init_access(qp, IBV_ACCESS_REMOTE_WRITE | flush);
	report(!err, "INIT with REMOTE_WRITE and both FLUSH rights (%s)",
	       err ? strerror(err) : "ok");
	ibv_destroy_qp(qp);
	qp = create_qp_flags(d, cq, IBV_QPT_RC, 0);
	if (!qp)
		return;
	err = qp_init_access(qp, IBV_ACCESS_REMOTE_WRITE | 1U << 12);
	report(err == EINVAL, "INIT with access bit 12 (undefined): EINVAL (%s)",
	       err ? strerror(err) : "accepted");
	ibv_destroy_qp(qp);
}

static void test_create(void)
{
	struct side *a = &s[0];
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *x;

	errno = 0;
	cq = ibv_create_cq_ex(a->ctx, &ca);
	report(!cq && errno == EOPNOTSUPP,
	       "ibv_create_cq_ex with COMPLETION_TIMESTAMP: EOPNOTSUPP (%s)",
	       cq ? "created" : strerror(errno));
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	cq = create_cqx(a, NULL, IBV_WC_EX_WITH_BYTE_LEN);
	report(cq && cq->read_byte_len && !cq->read_imm_data &&
	       !cq->read_completion_ts,
	       "ibv_create_cq_ex offers the read functions asked for");
	if (!cq)
		return;
	errno = 0;
	qp = create_qpx(a, cq, IBV_QPT_RC,
			IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_LOCAL_INV);
	report(!qp && errno == EOPNOTSUPP,
	       "ibv_create_qp_ex with LOCAL_INV: EOPNOTSUPP (%s)",
	       qp ? "created" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	errno = 0;
	qp = create_qpx(a, cq, IBV_QPT_RC, IBV_QP_EX_WITH_BIND_MW);
	report(!qp && errno == EOPNOTSUPP,
	       "ibv_create_qp_ex with BIND_MW: EOPNOTSUPP (%s)",
	       qp ? "created" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	qp = create_qpx(a, cq, IBV_QPT_RC, IBV_QP_EX_WITH_RDMA_WRITE);
	x = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	report(x && x->wr_rdma_write && !x->wr_send && !x->wr_rdma_read &&
	       !x->wr_local_inv && !x->wr_bind_mw,
	       "ibv_create_qp_ex with RDMA_WRITE alone offers only wr_rdma_write");
	if (qp)
		ibv_destroy_qp(qp);
	test_create_flags(a, cq, IBV_QPT_RC);
	test_create_flags(a, cq, IBV_QPT_UD);
	test_access_flags(a, cq);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

int main(int argc, char **argv)
{
	int opt, i;
	bool ok = true;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't')
			goto usage;
		timeout_s = atoi(optarg);
	}
	if (argc - optind != 4)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!open_side(&s[0], argv[optind], atoi(argv[optind + 1])) ||
	    !open_side(&s[1], argv[optind + 2], atoi(argv[optind + 3])))
		goto out;
	test_create();

	for (i = 0; i < 2; i++) {
		s[i].ch = ibv_create_comp_channel(s[i].ctx);
		s[i].cq = s[i].ch ? create_cqx(&s[i], s[i].ch,
					       IBV_WC_STANDARD_FLAGS) : NULL;
		report(s[i].cq, "%s: ibv_create_cq_ex, standard wc_flags (%s)",
		       s[i].name, s[i].cq ? "ok" : strerror(errno));
		s[i].qp = s[i].cq ? create_qpx(&s[i], s[i].cq, IBV_QPT_RC,
					       RC_OPS) : NULL;
		s[i].qpx = s[i].qp ? ibv_qp_to_qp_ex(s[i].qp) : NULL;
		report(s[i].qpx, "%s: ibv_create_qp_ex, RC, 8 send ops (%s)",
		       s[i].name, s[i].qp ? "ok" : strerror(errno));
		ok = ok && s[i].qpx;
	}
	if (!ok)
		goto out;
	report(!connect_rc(&s[0], s[0].qp, &s[1], s[1].qp->qp_num) &&
	       !connect_rc(&s[1], s[1].qp, &s[0], s[0].qp->qp_num),
	       "connect the two RC QPs");

	test_sends();
	test_rdma();
	test_batches();
	test_event();
	test_ud();
	test_error();
out:
	printf("# %d passed, %d failed\n", passed, failed);
	return failed || !passed ? 1 : 0;

usage:
	fprintf(stderr, "usage: %s [-t SEC] DEV0 GID0 DEV1 GID1\n", argv[0]);
	return 2;
}
