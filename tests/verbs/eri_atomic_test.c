// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_atomic_test: RC atomics end to end, in one process.
 *
 * Usage: eri_atomic_test [-T LIST] [-n N] [-t SEC] DEV0 GID0 DEV1 GID1
 *
 * Opens DEV0 and DEV1 (in the default "shared" rdma netns mode a process
 * sees the devices of every network namespace) and connects RC queue pairs
 * between them, using the RoCEv2 GIDs of index GID0 and GID1.  Checks, each
 * printing "ok - ..." or "not ok - ..." (TAP style):
 *
 *   a  CMP_SWP and FETCH_ADD: the original value in the local buffer, the
 *      word afterwards, the completion's opcode and byte count, a compare
 *      that fails, wrap-around, unsignaled atomics, both directions;
 *      QUERY_DEVICE reports IBV_ATOMIC_HCA;
 *   b  contention: 4 QPs from DEV0 and one loopback QP on DEV1 each add 1
 *      N times (default 1000) to one word of DEV1, up to 16 in flight per
 *      QP: the word ends at 5 * N, each QP sees its original values rise,
 *      and together they are exactly 0 .. 5 * N - 1, each once;
 *   c  as b with N / 4 per QP, plus one QP alone whose N original values
 *      must be exactly 0 .. N - 1 in order: run under packet loss (netem),
 *      a request executed twice would show;
 *   d  errors: a misaligned address (REM_INV_REQ_ERR), an MR and a QP
 *      without remote atomic rights, a bad rkey and a word past the MR's
 *      end (REM_ACCESS_ERR), a local SGE of 4 bytes (LOC_LEN_ERR), two SGEs
 *      (refused by post_send); the target word is untouched.
 *
 * Every wait has a timeout (-t), so the test never hangs.  The last line is
 * "# N passed, N failed"; the exit status is 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
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

#define NQP		4		/* QPs of the contention checks */
#define WINDOW		16		/* atomics in flight per QP */
#define TGT_LEN		4096
#define RES_SLOTS	4096		/* results per QP */

static int timeout_s = 10;

struct dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_pd *pd;
	int gid_index;
	union ibv_gid gid;
	uint64_t *tgt;			/* the words atomics target */
	struct ibv_mr *tgt_mr;		/* with remote atomic rights */
	struct ibv_mr *noat_mr;		/* the same words without them */
};

/* One end of a connection: a QP, its CQ, and where its results land. */
struct qpend {
	struct dev *d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint64_t *res;
	struct ibv_mr *res_mr;
};

struct conn {
	struct qpend e[2];
};

static struct dev devs[2];

static bool open_dev(struct dev *d, const char *name, int gid_index)
{
	d->name = name;
	d->gid_index = gid_index;
	d->ctx = open_device_by_name(name);
	report(d->ctx, "open %s", name);
	if (!d->ctx)
		return false;
	report(!ibv_query_device(d->ctx, &d->attr), "query device %s", name);
	report(!ibv_query_gid(d->ctx, 1, gid_index, &d->gid),
	       "%s: GID index %d", name, gid_index);
	d->pd = ibv_alloc_pd(d->ctx);
	if (posix_memalign((void **)&d->tgt, 4096, TGT_LEN))
		d->tgt = NULL;
	if (!d->pd || !d->tgt)
		return false;
	memset(d->tgt, 0, TGT_LEN);
	d->tgt_mr = ibv_reg_mr(d->pd, d->tgt, TGT_LEN,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			       IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_ATOMIC);
	report(d->tgt_mr, "%s: register an MR with REMOTE_ATOMIC (%s)", name,
	       d->tgt_mr ? "ok" : strerror(errno));
	d->noat_mr = ibv_reg_mr(d->pd, d->tgt, TGT_LEN,
				IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_WRITE);
	return d->tgt_mr && d->noat_mr;
}

static void close_end(struct qpend *q)
{
	if (q->qp)
		ibv_destroy_qp(q->qp);
	if (q->cq)
		ibv_destroy_cq(q->cq);
	if (q->res_mr)
		ibv_dereg_mr(q->res_mr);
	free(q->res);
	memset(q, 0, sizeof(*q));
}

static void close_conn(struct conn *c)
{
	close_end(&c->e[0]);
	close_end(&c->e[1]);
}

static bool open_end(struct qpend *q, struct dev *d)
{
	struct ibv_qp_init_attr ia;

	q->d = d;
	q->cq = ibv_create_cq(d->ctx, 256, NULL, NULL, 0);
	if (posix_memalign((void **)&q->res, 4096, RES_SLOTS * 8))
		q->res = NULL;
	if (!q->cq || !q->res)
		return false;
	memset(q->res, 0xa5, RES_SLOTS * 8);
	q->res_mr = ibv_reg_mr(d->pd, q->res, RES_SLOTS * 8,
			       IBV_ACCESS_LOCAL_WRITE);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = q->cq;
	ia.recv_cq = q->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 1;
	q->qp = ibv_create_qp(d->pd, &ia);
	return q->res_mr && q->qp;
}

static int clamp_rd(int v)
{
	return v < 1 ? 1 : v > 16 ? 16 : v;
}

/* RESET -> INIT -> RTR -> RTS, connected to @peer. */
static int connect_qp(struct qpend *q, struct qpend *peer, int access)
{
	struct rc_path p;

	rc_path_init(&p, q->d->gid_index, &peer->d->gid, peer->qp->qp_num);
	p.access = access;
	p.rq_psn = 0xfffff0;		/* atomics cross the PSN wrap */
	p.sq_psn = 0xfffff0;
	p.max_dest_rd_atomic = clamp_rd(q->d->attr.max_qp_rd_atom);
	p.max_rd_atomic = clamp_rd(q->d->attr.max_qp_init_rd_atom);
	return rc_connect(q->qp, &p, NULL);
}

#define ACC_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
		 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)

/* A connection from @a to @b; @b_access: the rights of @b's QP. */
static bool open_conn(struct conn *c, struct dev *a, struct dev *b,
		      int b_access)
{
	bool ok;

	memset(c, 0, sizeof(*c));
	ok = open_end(&c->e[0], a) && open_end(&c->e[1], b) &&
	     !connect_qp(&c->e[0], &c->e[1], ACC_ALL) &&
	     !connect_qp(&c->e[1], &c->e[0], b_access);
	if (!ok) {
		report(false, "connect a QP of %s to one of %s", a->name,
		       b->name);
		close_conn(c);
	}
	return ok;
}

/* Post one atomic from @q: the original value goes to res[slot]. */
static int post_atomic(struct qpend *q, enum ibv_wr_opcode op, uint32_t slot,
		       uint64_t raddr, uint32_t rkey, uint64_t cmp_add,
		       uint64_t swap, bool signaled)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;

	sge.addr = (uintptr_t)&q->res[slot];
	sge.length = 8;
	sge.lkey = q->res_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = slot;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	return ibv_post_send(q->qp, &wr, &bad);
}

/* Wait for one completion.  Return: 1, 0 on timeout, -1 on error. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int64_t deadline = now_ms() + timeout_s * 1000;
	unsigned int spins = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? -1 : 1;
		if (now_ms() >= deadline)
			return 0;
		/* Spin briefly, then leave the CPU to the device (TCG). */
		if (++spins > 200)
			usleep(100);
	}
}

/* One signaled atomic, waited for.  Return: its completion's status. */
static int one_atomic(struct qpend *q, enum ibv_wr_opcode op, uint32_t slot,
		      uint64_t raddr, uint32_t rkey, uint64_t cmp_add,
		      uint64_t swap, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	if (post_atomic(q, op, slot, raddr, rkey, cmp_add, swap, true))
		return -1;
	if (poll_one(q->cq, wc) != 1)
		return -2;
	return wc->status;
}

/* ------------------------------------------------------------ a */

static void test_basic(struct dev *from, struct dev *to)
{
	uint64_t *w = &to->tgt[1];
	uint64_t raddr = (uintptr_t)w;
	uint32_t rkey = to->tgt_mr->rkey;
	struct ibv_wc wc;
	struct conn c;
	struct qpend *q;
	int i, st;

	if (!open_conn(&c, from, to, ACC_ALL))
		return;
	q = &c.e[0];
	printf("# basic semantics, %s -> %s\n", from->name, to->name);

	*w = 5;
	st = one_atomic(q, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, raddr, rkey, 10, 0,
			&wc);
	report(st == IBV_WC_SUCCESS && wc.opcode == IBV_WC_FETCH_ADD &&
	       wc.byte_len == 8 && wc.wr_id == 0 && wc.qp_num == q->qp->qp_num,
	       "FETCH_ADD completes: status %d, opcode %d, byte_len %u", st,
	       wc.opcode, wc.byte_len);
	report(q->res[0] == 5 && *w == 15,
	       "FETCH_ADD 5 + 10: returned %" PRIu64 ", word %" PRIu64,
	       q->res[0], *w);
	report(q->res[1] == 0xa5a5a5a5a5a5a5a5ULL,
	       "... and nothing past the 8-byte local buffer");

	st = one_atomic(q, IBV_WR_ATOMIC_CMP_AND_SWP, 1, raddr, rkey, 15, 100,
			&wc);
	report(st == IBV_WC_SUCCESS && wc.opcode == IBV_WC_COMP_SWAP &&
	       wc.byte_len == 8,
	       "CMP_SWP completes: status %d, opcode %d, byte_len %u", st,
	       wc.opcode, wc.byte_len);
	report(q->res[1] == 15 && *w == 100,
	       "CMP_SWP 15 == 15 -> 100: returned %" PRIu64 ", word %" PRIu64,
	       q->res[1], *w);
	st = one_atomic(q, IBV_WR_ATOMIC_CMP_AND_SWP, 2, raddr, rkey, 15, 7,
			&wc);
	report(st == IBV_WC_SUCCESS && q->res[2] == 100 && *w == 100,
	       "CMP_SWP 100 != 15: no swap, returned %" PRIu64 ", word %" PRIu64,
	       q->res[2], *w);

	*w = UINT64_MAX - 1;
	st = one_atomic(q, IBV_WR_ATOMIC_FETCH_AND_ADD, 3, raddr, rkey, 3, 0,
			&wc);
	report(st == IBV_WC_SUCCESS && q->res[3] == UINT64_MAX - 1 && *w == 1,
	       "FETCH_ADD wraps around 2^64: returned %#" PRIx64 ", word %" PRIu64,
	       q->res[3], *w);
	*w = 0x0123456789abcdefULL;
	st = one_atomic(q, IBV_WR_ATOMIC_CMP_AND_SWP, 4, raddr, rkey,
			0x0123456789abcdefULL, 0xfedcba9876543210ULL, &wc);
	report(st == IBV_WC_SUCCESS && q->res[4] == 0x0123456789abcdefULL &&
	       *w == 0xfedcba9876543210ULL,
	       "CMP_SWP of all 64 bits: returned %#" PRIx64 ", word %#" PRIx64,
	       q->res[4], *w);

	/* Ten unsignaled, then a signaled one that retires them. */
	*w = 1000;
	for (i = 0; i < 10; i++)
		if (post_atomic(q, IBV_WR_ATOMIC_FETCH_AND_ADD, 10 + i, raddr,
				rkey, 1, 0, false))
			break;
	st = one_atomic(q, IBV_WR_ATOMIC_FETCH_AND_ADD, 20, raddr, rkey, 1, 0,
			&wc);
	for (i = 0; i <= 10; i++)
		if (q->res[10 + i] != 1000ULL + i)
			break;
	report(st == IBV_WC_SUCCESS && wc.wr_id == 20 && i == 11 && *w == 1011,
	       "10 unsignaled FETCH_ADDs and a signaled one: one completion, values 1000..1010 (%d right), word %" PRIu64,
	       i, *w);
	close_conn(&c);
}

/* ------------------------------------------------------------ b, c */

/*
 * @nq connections each add 1 @n times to @word of DEV1, WINDOW in flight
 * per QP; every original value is recorded in @seen (size @total).
 */
static bool run_adders(struct conn *c, int nq, int n, uint64_t *word,
		       uint32_t rkey, uint8_t *seen, uint64_t total,
		       bool *rising)
{
	int posted[8] = { 0 }, done[8] = { 0 }, out[8] = { 0 };
	uint64_t last[8];
	int64_t deadline;
	struct ibv_wc wc;
	bool ok = true;
	int i, left = nq * n;

	for (i = 0; i < nq; i++)
		last[i] = UINT64_MAX;
	*rising = true;
	deadline = now_ms() + (int64_t)timeout_s * 1000;
	while (left && ok) {
		for (i = 0; i < nq; i++) {
			struct qpend *q = &c[i].e[0];

			while (posted[i] < n && out[i] < WINDOW) {
				if (post_atomic(q, IBV_WR_ATOMIC_FETCH_AND_ADD,
						posted[i] % RES_SLOTS,
						(uintptr_t)word, rkey, 1, 0,
						true)) {
					ok = false;
					break;
				}
				posted[i]++;
				out[i]++;
			}
			while (ok && ibv_poll_cq(q->cq, 1, &wc) == 1) {
				uint64_t v = q->res[wc.wr_id];

				if (wc.status != IBV_WC_SUCCESS ||
				    wc.opcode != IBV_WC_FETCH_ADD) {
					printf("#   QP %d: status %d (%s)\n", i,
					       wc.status,
					       ibv_wc_status_str(wc.status));
					ok = false;
					break;
				}
				if (v >= total || seen[v]++) {
					printf("#   QP %d: value %" PRIu64 " twice or out of range\n",
					       i, v);
					ok = false;
				}
				if (last[i] != UINT64_MAX && v <= last[i])
					*rising = false;
				last[i] = v;
				out[i]--;
				done[i]++;
				left--;
				deadline = now_ms() + (int64_t)timeout_s * 1000;
			}
		}
		if (now_ms() > deadline) {
			printf("#   no completion for %d s, %d left\n",
			       timeout_s, left);
			ok = false;
		}
		usleep(50);
	}
	return ok;
}

static void test_contention(int n, const char *what)
{
	struct dev *d1 = &devs[1];
	uint64_t *word = &d1->tgt[8];
	struct conn c[NQP + 1];
	uint64_t total = (uint64_t)(NQP + 1) * n, i, missing = 0;
	bool ok = true, rising;
	uint8_t *seen;
	int k, opened = 0;
	int64_t t0;

	printf("# %s: %d QPs x %d FETCH_ADDs of 1 on one word of %s\n", what,
	       NQP + 1, n, d1->name);
	for (k = 0; k < NQP && ok; k++, opened++)
		ok = open_conn(&c[k], &devs[0], d1, ACC_ALL);
	/* The fifth from DEV1 itself: a loopback connection. */
	if (ok) {
		ok = open_conn(&c[k], d1, d1, ACC_ALL);
		opened += ok;
	}
	seen = calloc(total, 1);
	if (!ok || !seen)
		goto out;
	*word = 0;
	t0 = now_ms();
	ok = run_adders(c, NQP + 1, n, word, d1->tgt_mr->rkey, seen, total,
			&rising);
	report(ok, "%s: every FETCH_ADD completed, none returned a value twice (%" PRId64 " ms)",
	       what, now_ms() - t0);
	report(*word == total, "%s: the word is %" PRIu64 " (want %" PRIu64 ")",
	       what, *word, total);
	for (i = 0; i < total; i++)
		missing += !seen[i];
	report(ok && !missing,
	       "%s: the original values are 0..%" PRIu64 ", each once (%" PRIu64 " missing)",
	       what, total - 1, missing);
	report(rising, "%s: each QP's original values rise (PSN order)",
	       what);
out:
	free(seen);
	for (k = 0; k < opened; k++)
		close_conn(&c[k]);
}

/* One QP alone: its original values must be 0 .. n - 1, in order. */
static void test_alone(int n)
{
	struct dev *d1 = &devs[1];
	uint64_t *word = &d1->tgt[16];
	uint64_t total = n;
	bool ok, rising;
	uint8_t *seen;
	struct conn c;

	if (!open_conn(&c, &devs[0], d1, ACC_ALL))
		return;
	seen = calloc(total, 1);
	*word = 0;
	ok = seen && run_adders(&c, 1, n, word, d1->tgt_mr->rkey, seen,
				total, &rising);
	report(ok && rising && *word == total,
	       "one QP, %d FETCH_ADDs: original values 0..%d in order, word %" PRIu64,
	       n, n - 1, *word);
	free(seen);
	close_conn(&c);
}

/* ------------------------------------------------------------ d */

static void expect_error(const char *what, int b_access, uint64_t raddr_off,
			 bool no_atomic_mr, bool bad_rkey, uint32_t len,
			 int want)
{
	struct dev *d1 = &devs[1];
	uint64_t *w = &d1->tgt[32];
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct conn c;
	uint32_t rkey;
	int st;

	if (!open_conn(&c, &devs[0], d1, b_access))
		return;
	*w = 77;
	rkey = no_atomic_mr ? d1->noat_mr->rkey : d1->tgt_mr->rkey;
	if (bad_rkey)
		rkey ^= 0x5500;
	sge.addr = (uintptr_t)&c.e[0].res[0];
	sge.length = len;
	sge.lkey = c.e[0].res_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = (uintptr_t)w + raddr_off;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = 1;
	memset(&wc, 0, sizeof(wc));
	st = ibv_post_send(c.e[0].qp, &wr, &bad);
	if (!st)
		st = poll_one(c.e[0].cq, &wc) == 1 ? (int)wc.status : -2;
	else
		st = -1;
	report(st == want && *w == 77,
	       "%s: %s (%d, want %s), word untouched (%" PRIu64 ")", what,
	       st >= 0 ? ibv_wc_status_str(st) : "no completion", st,
	       ibv_wc_status_str(want), *w);
	close_conn(&c);
}

static void test_errors(void)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge[2];
	struct conn c;
	int ret;

	printf("# errors\n");
	expect_error("misaligned remote address (+4)", ACC_ALL, 4, false,
		     false, 8, IBV_WC_REM_INV_REQ_ERR);
	expect_error("MR without REMOTE_ATOMIC", ACC_ALL, 0, true, false, 8,
		     IBV_WC_REM_ACCESS_ERR);
	expect_error("responder QP without REMOTE_ATOMIC",
		     ACC_ALL & ~IBV_ACCESS_REMOTE_ATOMIC, 0, false, false, 8,
		     IBV_WC_REM_ACCESS_ERR);
	expect_error("bad rkey", ACC_ALL, 0, false, true, 8,
		     IBV_WC_REM_ACCESS_ERR);
	expect_error("word past the MR's end", ACC_ALL,
		     TGT_LEN - 32 * 8, false, false, 8,
		     IBV_WC_REM_ACCESS_ERR);
	expect_error("local SGE of 4 bytes", ACC_ALL, 0, false, false, 4,
		     IBV_WC_LOC_LEN_ERR);

	if (!open_conn(&c, &devs[0], &devs[1], ACC_ALL))
		return;
	memset(sge, 0, sizeof(sge));
	sge[0].addr = sge[1].addr = (uintptr_t)c.e[0].res;
	sge[0].length = sge[1].length = 4;
	sge[0].lkey = sge[1].lkey = c.e[0].res_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.sg_list = sge;
	wr.num_sge = 2;
	wr.wr.atomic.remote_addr = (uintptr_t)devs[1].tgt;
	wr.wr.atomic.rkey = devs[1].tgt_mr->rkey;
	ret = ibv_post_send(c.e[0].qp, &wr, &bad);
	report(ret == EINVAL, "CMP_SWP with two SGEs: post_send says EINVAL (%d)",
	       ret);
	close_conn(&c);
}

int main(int argc, char **argv)
{
	const char *tests = "abd";
	int n = 1000, opt;

	while ((opt = getopt(argc, argv, "T:n:t:")) != -1) {
		switch (opt) {
		case 'T':
			tests = optarg;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 't':
			timeout_s = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 4 || n < 4 || n > RES_SLOTS * 64)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!open_dev(&devs[0], argv[optind], atoi(argv[optind + 1])) ||
	    !open_dev(&devs[1], argv[optind + 2], atoi(argv[optind + 3])))
		goto out;
	report(devs[0].attr.atomic_cap == IBV_ATOMIC_HCA &&
	       devs[1].attr.atomic_cap == IBV_ATOMIC_HCA,
	       "atomic_cap is IBV_ATOMIC_HCA (%d, %d)",
	       devs[0].attr.atomic_cap, devs[1].attr.atomic_cap);
	report(devs[0].attr.max_qp_rd_atom >= 1 &&
	       devs[0].attr.max_qp_init_rd_atom >= 1,
	       "max_qp_rd_atom %d, max_qp_init_rd_atom %d, max_res_rd_atom %d",
	       devs[0].attr.max_qp_rd_atom, devs[0].attr.max_qp_init_rd_atom,
	       devs[0].attr.max_res_rd_atom);
	if (strchr(tests, 'a')) {
		test_basic(&devs[0], &devs[1]);
		test_basic(&devs[1], &devs[0]);
	}
	if (strchr(tests, 'b'))
		test_contention(n, "contention");
	if (strchr(tests, 'c')) {
		test_alone(n);
		test_contention(n / 4, "contention under loss");
	}
	if (strchr(tests, 'd'))
		test_errors();
out:
	printf("# %d passed, %d failed\n", passed, failed);
	return failed || !passed ? 1 : 0;

usage:
	fprintf(stderr, "usage: %s [-T abcd] [-n N] [-t SEC] DEV0 GID0 DEV1 GID1\n",
		argv[0]);
	return 2;
}
