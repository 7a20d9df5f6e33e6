// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_rc_test: the RC data path, end to end, in one process.
 *
 * Usage: eri_rc_test [options] DEV0 DEV1
 *
 * Opens DEV0 and DEV1 (the same name twice: loopback through one device;
 * in the default "shared" rdma netns mode a process sees the devices of
 * every network namespace), finds on each a RoCEv2 GID for an IPv4 address,
 * and connects pairs of RC queue pairs, one QP on each device, to each
 * other.  Checks, each printing "ok - ..." or "not ok - ..." (TAP style):
 *
 *   f  ibv_query_qp returns what the connection set (run first, before any
 *      traffic moves the PSNs);
 *   a  data integrity: SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM
 *      and RDMA_READ of 0 B to 8 MiB, random payload, unaligned offsets,
 *      scattered SGEs with gaps, guard bytes around every destination, every
 *      work completion field that the verbs define for the case;
 *   b  inline SENDs and WRITEs up to the QP's max_inline_data, zero-length
 *      operations of every opcode, zero-length RDMA with an invalid rkey;
 *   c  unsignaled WRs retire silently; a deep send queue moves 10000
 *      messages in order;
 *   d  completion channel: events for any and for solicited completions;
 *   g  several QPs at once: 4 pairs, both directions, 1 MiB WRITEs and
 *      SENDs posted on all of them before any is polled;
 *   e  errors: bad rkey, range, rights, the rkey of a deregistered (and of
 *      a re-registered) MR, the lkey of a deregistered MR, a READ into an
 *      MR without LOCAL_WRITE, a receive too small, RNR (recovered and
 *      exhausted), retry exhausted, and flushing in ERR;
 *   x  (not in the default set: for a cut link, e.g. netem loss 100%) a
 *      WRITE, a SEND and a READ between live QPs, retry_cnt 3, each end in
 *      RETRY_EXC_ERR with the requester in ERR.
 *
 * Every wait has a timeout (-t, per step), so the test never hangs.  The
 * last line is "# N passed, N failed"; the exit status is 0 only if every
 * check passed.  The payload comes from a seeded PRNG: -s SEED replays a run.
 *
 * Options:
 *   -s SEED   PRNG seed (default: from the clock; printed either way)
 *   -t SEC    timeout of every wait (default 10; large transfers get more)
 *   -n N      messages in the deep-queue check (default 10000)
 *   -i N      iterations of each integrity case below 1 MiB (default 2)
 *   -I N      max_inline_data to ask for (default 96, ERI's limit)
 *   -T LIST   checks to run, a subset of "fabcdgex" (default "fabcdge")
 *   -M BYTES  largest transfer of the integrity check (default 8 MiB)
 *   -q rxe    known deviations of rdma_rxe are reported as "# TODO", not
 *             as failures (validation of this test against soft-RoCE only;
 *             ERI is never run with it)
 *   -v        more diagnostics
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
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

#define MAX_SGE		16
#define GUARD		64		/* guard bytes on each side of a window */
#define MAX_XFER	(8u << 20)
#define BUF_LEN		(MAX_XFER + (1u << 16))
#define DEEP_SLOT	64		/* receive slot of the deep-queue check */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ reporting */

static int todo;
static bool verbose;
static const char *quirks = "";

/*
 * A check that rdma_rxe, the reference we validate this test against, is
 * known to fail: with "-q rxe" a failure that looks exactly like the known
 * one (seen) is printed as TODO and not counted.  Without -q (always, for
 * ERI) it is an ordinary check.
 */
static void report_quirk(bool cond, bool seen, const char *quirk,
			 const char *why, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void report_quirk(bool cond, bool seen, const char *quirk,
			 const char *why, const char *fmt, ...)
{
	va_list ap;
	bool known = !cond && seen && strstr(quirks, quirk);

	if (cond)
		passed++;
	else if (known)
		todo++;
	else
		failed++;
	va_start(ap, fmt);
	tap_line(cond, fmt, ap);
	va_end(ap);
	if (known)
		printf(" # TODO %s: %s", quirk, why);
	printf("\n");
	fflush(stdout);
}

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ------------------------------------------------------------ PRNG */

static uint64_t rng_state;

/* splitmix64: tiny, seedable with any value, good enough for payloads. */
static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)(rnd64() % n) : 0;
}

static void rnd_fill(uint8_t *p, size_t n)
{
	uint64_t v;

	while (n >= 8) {
		v = rnd64();
		memcpy(p, &v, 8);
		p += 8;
		n -= 8;
	}
	if (n) {
		v = rnd64();
		memcpy(p, &v, n);
	}
}

/* ------------------------------------------------------------ time */

static int timeout_s = 10;

/* The per-step timeout, longer for large transfers (TCG is slow). */
static int step_ms(size_t bytes)
{
	return timeout_s * 1000 * (1 + (int)(bytes / (2u << 20)));
}

/* ------------------------------------------------------------ devices */

struct dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gid_index;
	struct ibv_comp_channel *chan;
};

/* One end of the connection: a device and a registered buffer. */
struct end {
	struct dev *d;
	uint8_t *buf;
	struct ibv_mr *mr;		/* all of buf, local + remote read/write */
};

static struct dev devs[2];
static struct end ends[2];
static uint8_t *expect, *payload;
static enum ibv_mtu path_mtu;

static const int full_access = IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

static bool is_v4_mapped(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

static void gid_str(const union ibv_gid *g, char *s, size_t n)
{
	if (is_v4_mapped(g))
		snprintf(s, n, "::ffff:%u.%u.%u.%u", g->raw[12], g->raw[13],
			 g->raw[14], g->raw[15]);
	else
		inet_ntop(AF_INET6, g->raw, s, n);
}

/* The GID table through the verbs (the kernel's GID table ioctl). */
static int find_gid_table(struct dev *d)
{
	int n = d->port.gid_tbl_len ? d->port.gid_tbl_len : 256;
	struct ibv_gid_entry *ent = calloc(n, sizeof(*ent));
	ssize_t got;
	int i, idx = -1;

	if (!ent)
		return -1;
	got = ibv_query_gid_table(d->ctx, ent, n, 0);
	for (i = 0; i < got; i++) {
		if (ent[i].port_num == 1 &&
		    ent[i].gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    is_v4_mapped(&ent[i].gid)) {
			idx = ent[i].gid_index;
			d->gid = ent[i].gid;
			break;
		}
	}
	free(ent);
	return idx;
}

/* The same from sysfs, for a library without the GID table query. */
static int find_gid_sysfs(struct dev *d)
{
	char path[256], type[32];
	union ibv_gid g;
	FILE *f;
	int i;

	for (i = 0; i < d->port.gid_tbl_len; i++) {
		if (ibv_query_gid(d->ctx, 1, i, &g) || !is_v4_mapped(&g))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/gid_attrs/types/%d",
			 d->name, i);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(type, sizeof(type), f))
			type[0] = 0;
		fclose(f);
		if (!strncmp(type, "RoCE v2", 7)) {
			d->gid = g;
			return i;
		}
	}
	return -1;
}

static bool open_dev(struct dev *d, const char *name)
{
	int64_t deadline;
	char s[64];

	d->name = name;
	d->ctx = open_device_by_name(name);
	report(d->ctx, "open %s", name);
	if (!d->ctx)
		return false;
	report(!ibv_query_device(d->ctx, &d->attr), "query device %s", name);
	d->pd = ibv_alloc_pd(d->ctx);
	report(d->pd, "alloc PD on %s", name);
	d->chan = ibv_create_comp_channel(d->ctx);
	report(d->chan, "create completion channel on %s", name);
	if (!d->pd || !d->chan)
		return false;

	/* The port must be up and its GID table must hold the IPv4 GID. */
	deadline = now_ms() + step_ms(0);
	do {
		d->gid_index = -1;
		if (ibv_query_port(d->ctx, 1, &d->port))
			break;
		if (d->port.state == IBV_PORT_ACTIVE) {
			d->gid_index = find_gid_table(d);
			if (d->gid_index < 0)
				d->gid_index = find_gid_sysfs(d);
			if (d->gid_index >= 0)
				break;
		}
		usleep(100000);
	} while (now_ms() < deadline);
	report(d->port.state == IBV_PORT_ACTIVE, "%s port 1 is ACTIVE (%d)",
	       name, d->port.state);
	report(d->port.link_layer == IBV_LINK_LAYER_ETHERNET,
	       "%s link layer is Ethernet", name);
	gid_str(&d->gid, s, sizeof(s));
	report(d->gid_index >= 0, "%s has a RoCEv2 IPv4 GID: index %d, %s",
	       name, d->gid_index, d->gid_index >= 0 ? s : "none");
	printf("# %s: active_mtu %d, max_qp_wr %d, max_sge %d, max_sge_rd %d, max_qp_rd_atom %d/%d\n",
	       name, 128 << d->port.active_mtu, d->attr.max_qp_wr,
	       d->attr.max_sge, d->attr.max_sge_rd, d->attr.max_qp_rd_atom,
	       d->attr.max_qp_init_rd_atom);
	return d->gid_index >= 0;
}

static bool open_end(struct end *e, struct dev *d)
{
	e->d = d;
	e->buf = aligned_alloc(4096, BUF_LEN);
	if (!e->buf)
		return false;
	memset(e->buf, 0, BUF_LEN);
	e->mr = ibv_reg_mr(d->pd, e->buf, BUF_LEN, full_access);
	report(e->mr, "register %u bytes on %s", BUF_LEN, d->name);
	return e->mr;
}

/* ------------------------------------------------------------ QP pairs */

struct qpcfg {
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	bool channel;		/* q[1]'s receive CQ on the channel */
};

static const struct qpcfg default_cfg = {
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
};

struct qpend {
	struct end *e;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_qp_cap cap;	/* as create_qp returned it */
	uint32_t psn;		/* initial sq_psn */
};

struct pair {
	struct qpend q[2];
	struct qpcfg cfg;
	uint8_t rd_atomic, dest_rd_atomic;
};

static uint32_t want_inline = 96;
static uint32_t want_wr = 128;

static void destroy_pair(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct qpend *q = &p->q[i];

		if (q->qp)
			ibv_destroy_qp(q->qp);
		if (q->scq)
			ibv_destroy_cq(q->scq);
		if (q->rcq)
			ibv_destroy_cq(q->rcq);
	}
	memset(p, 0, sizeof(*p));
}

static uint8_t clamp_rd(int v)
{
	return v < 1 ? 1 : v > 16 ? 16 : v;
}

/* RESET -> INIT -> RTR -> RTS, connected to peer. */
static int connect_qp(struct pair *p, struct qpend *q, struct qpend *peer)
{
	struct rc_path path;

	rc_path_init(&path, q->e->d->gid_index, &peer->e->d->gid,
		     peer->qp->qp_num);
	path.access = full_access;
	path.mtu = path_mtu;
	path.rq_psn = peer->psn;
	path.sq_psn = q->psn;
	path.max_dest_rd_atomic = p->dest_rd_atomic;
	path.max_rd_atomic = p->rd_atomic;
	path.min_rnr_timer = p->cfg.min_rnr_timer;
	path.timeout = p->cfg.timeout;
	path.retry_cnt = p->cfg.retry_cnt;
	path.rnr_retry = p->cfg.rnr_retry;
	return rc_connect(q->qp, &path, NULL);
}

/*
 * A fresh pair: q[0] on ends[0] (DEV0), q[1] on ends[1] (DEV1).  The send
 * PSN of q[0] starts just below 2^24 so that long transfers wrap it.
 */
static bool create_pair(struct pair *p, const struct qpcfg *cfg,
			const char *what)
{
	int i, err = 0;

	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	p->rd_atomic = clamp_rd(devs[0].attr.max_qp_init_rd_atom);
	if (clamp_rd(devs[1].attr.max_qp_init_rd_atom) < p->rd_atomic)
		p->rd_atomic = clamp_rd(devs[1].attr.max_qp_init_rd_atom);
	p->dest_rd_atomic = clamp_rd(devs[0].attr.max_qp_rd_atom);
	if (clamp_rd(devs[1].attr.max_qp_rd_atom) < p->dest_rd_atomic)
		p->dest_rd_atomic = clamp_rd(devs[1].attr.max_qp_rd_atom);

	for (i = 0; i < 2; i++) {
		struct qpend *q = &p->q[i];
		struct dev *d = ends[i].d;
		struct ibv_qp_init_attr ia;
		int sge = d->attr.max_sge < MAX_SGE ? d->attr.max_sge : MAX_SGE;

		q->e = &ends[i];
		q->scq = ibv_create_cq(d->ctx, 4 * want_wr, q, NULL, 0);
		q->rcq = ibv_create_cq(d->ctx, 4 * want_wr, q,
				       i == 1 && cfg->channel ? d->chan : NULL,
				       0);
		if (!q->scq || !q->rcq) {
			report(false, "%s: create CQs on %s (errno %d)", what,
			       d->name, errno);
			destroy_pair(p);
			return false;
		}
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = q->scq;
		ia.recv_cq = q->rcq;
		ia.qp_type = IBV_QPT_RC;
		ia.sq_sig_all = 0;
		ia.cap.max_send_wr = want_wr;
		ia.cap.max_recv_wr = 2 * want_wr;
		ia.cap.max_send_sge = sge;
		ia.cap.max_recv_sge = sge;
		ia.cap.max_inline_data = want_inline;
		q->qp = ibv_create_qp(d->pd, &ia);
		if (!q->qp) {
			report(false, "%s: create RC QP on %s (errno %d)", what,
			       d->name, errno);
			destroy_pair(p);
			return false;
		}
		q->cap = ia.cap;
		q->psn = i == 0 ? 0xffffff - rnd(64) : rnd(1 << 24);
	}
	err = connect_qp(p, &p->q[0], &p->q[1]);
	if (!err)
		err = connect_qp(p, &p->q[1], &p->q[0]);
	if (err) {
		report(false, "%s: connect QPs %#x <-> %#x (error %d)", what,
		       p->q[0].qp->qp_num, p->q[1].qp->qp_num, err);
		destroy_pair(p);
		return false;
	}
	if (verbose)
		printf("# %s: QP %#x on %s <-> QP %#x on %s\n", what,
		       p->q[0].qp->qp_num, devs[0].name, p->q[1].qp->qp_num,
		       ends[1].d->name);
	return true;
}

/* ------------------------------------------------------------ completions */

/* One completion, or 0 after ms, or -1 when polling fails. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	int64_t deadline = now_ms() + ms;
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

/* How many completions show up within ms (expected: none). */
static int count_extra(struct ibv_cq *cq, int ms)
{
	struct ibv_wc wc;
	int n = 0;

	while (poll_one(cq, &wc, ms) == 1) {
		n++;
		diag("unexpected completion: wr_id %#" PRIx64 " status %s opcode %d",
		     wc.wr_id, ibv_wc_status_str(wc.status), wc.opcode);
	}
	return n;
}

/*
 * Wait for one completion and check it: status, wr_id, local QP number and,
 * for a success, the opcode.  Returns false (with the reason in why) when it
 * does not match.
 */
static bool expect_wc(struct ibv_cq *cq, struct ibv_qp *qp, uint64_t wr_id,
		      enum ibv_wc_status status, int opcode, int ms,
		      struct ibv_wc *wc, char *why, size_t whylen)
{
	struct ibv_wc w;
	int n;

	if (!wc)
		wc = &w;
	n = poll_one(cq, wc, ms);
	if (n <= 0) {
		snprintf(why, whylen, n ? "poll_cq failed" :
			 "no completion within %d ms", ms);
		return false;
	}
	if (wc->status != status) {
		snprintf(why, whylen, "status %s (%d), expected %s",
			 ibv_wc_status_str(wc->status), wc->status,
			 ibv_wc_status_str(status));
		return false;
	}
	if (wc->wr_id != wr_id) {
		snprintf(why, whylen, "wr_id %#" PRIx64 ", expected %#" PRIx64,
			 wc->wr_id, wr_id);
		return false;
	}
	if (wc->qp_num != qp->qp_num) {
		snprintf(why, whylen, "qp_num %#x, expected %#x", wc->qp_num,
			 qp->qp_num);
		return false;
	}
	/* The opcode is defined for successful completions only. */
	if (status == IBV_WC_SUCCESS && opcode >= 0 &&
	    wc->opcode != (enum ibv_wc_opcode)opcode) {
		snprintf(why, whylen, "opcode %d, expected %d", wc->opcode,
			 opcode);
		return false;
	}
	return true;
}

/* ------------------------------------------------------------ layouts */

/*
 * Where a message lives in a buffer: n pieces (the SGEs), in a window that
 * starts and ends with GUARD bytes.  The first piece starts at an unaligned
 * offset; with gaps, pieces are separated by 0..7 untouched bytes.
 */
struct layout {
	int n;
	size_t off[MAX_SGE], len[MAX_SGE];
	size_t win;		/* window length, guards included */
};

static void make_layout(struct layout *l, size_t cap, int max_sge, bool gaps)
{
	size_t cut[MAX_SGE], pos;
	int i, j, n;

	n = cap ? 1 + (int)rnd(max_sge < 1 ? 1 : max_sge) : 0;
	if ((size_t)n > cap)
		n = (int)cap;
	/* n - 1 distinct cut points in (0, cap), sorted. */
	for (i = 0; i < n - 1; i++) {
		size_t c;

		do {
			c = 1 + rnd64() % (cap - 1);
			for (j = 0; j < i && cut[j] != c; j++)
				;
		} while (j < i);
		for (j = i; j > 0 && cut[j - 1] > c; j--)
			cut[j] = cut[j - 1];
		cut[j] = c;
	}
	pos = GUARD + 1 + rnd(63);
	l->n = n;
	for (i = 0; i < n; i++) {
		size_t from = i ? cut[i - 1] : 0, to = i < n - 1 ? cut[i] : cap;

		l->off[i] = pos;
		l->len[i] = to - from;
		pos += l->len[i] + (gaps ? rnd(8) : 0);
	}
	if (!n)
		l->off[0] = pos;	/* where a zero-length message "is" */
	l->win = pos + GUARD;
}

/* Copy size bytes of src into the pieces of l, in order, over base. */
static void scatter(uint8_t *base, const struct layout *l, const uint8_t *src,
		    size_t size)
{
	int i;

	for (i = 0; i < l->n && size; i++) {
		size_t k = l->len[i] < size ? l->len[i] : size;

		memcpy(base + l->off[i], src, k);
		src += k;
		size -= k;
	}
}

static int to_sge(struct ibv_sge *sge, uint8_t *base, const struct layout *l,
		  uint32_t lkey)
{
	int i;

	for (i = 0; i < l->n; i++) {
		sge[i].addr = (uintptr_t)(base + l->off[i]);
		sge[i].length = l->len[i];
		sge[i].lkey = lkey;
	}
	return l->n;
}

/* Compare a window with the expected image; describe the first difference. */
static bool same(const uint8_t *got, const uint8_t *want,
		 const struct layout *l, char *why, size_t whylen)
{
	size_t i;
	int k;

	if (!memcmp(got, want, l->win))
		return true;
	for (i = 0; got[i] == want[i]; i++)
		;
	for (k = 0; k < l->n; k++)
		if (i >= l->off[k] && i < l->off[k] + l->len[k])
			break;
	snprintf(why, whylen,
		 "byte %zu of the window (%s) is %#x, expected %#x", i,
		 k < l->n ? "payload" : "guard or gap", got[i], want[i]);
	return false;
}

/* ------------------------------------------------------------ data integrity */

enum op { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_COUNT };

static const char *const op_name[] = {
	"SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM",
	"RDMA_READ",
};
static const enum ibv_wr_opcode op_wr[] = {
	IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
};
static const enum ibv_wc_opcode op_wc[] = {
	IBV_WC_SEND, IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE,
	IBV_WC_RDMA_READ,
};

static bool op_has_recv(enum op op)
{
	return op == OP_SEND || op == OP_SEND_IMM || op == OP_WRITE_IMM;
}

static bool op_has_imm(enum op op)
{
	return op == OP_SEND_IMM || op == OP_WRITE_IMM;
}

static uint64_t next_wr_id = 0x1000;

#define XF_INLINE	1	/* post with IBV_SEND_INLINE */
#define XF_BAD_RKEY	2	/* zero length with an invalid rkey */

/*
 * One message from p->q[dir] to the other QP, checked end to end: the
 * requester's completion (status, opcode, wr_id, qp_num), for a SEND or a
 * WRITE_WITH_IMM the receiver's (also byte_len, IBV_WC_WITH_IMM, imm_data),
 * and the destination window byte for byte, guards and gaps included.
 * Returns true if all matched; prints "not ok" with the reason otherwise.
 */
static bool xfer_one(struct pair *p, int dir, enum op op, size_t size,
		     int flags, const char *label)
{
	struct qpend *req = &p->q[dir], *rsp = &p->q[!dir];
	struct end *src_end = op == OP_READ ? rsp->e : req->e;
	struct end *dst_end = op == OP_READ ? req->e : rsp->e;
	struct layout src, dst;
	struct ibv_sge ssge[MAX_SGE], rsge[MAX_SGE];
	struct ibv_send_wr wr, *bad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_wc wc;
	uint64_t swr_id = next_wr_id++, rwr_id = next_wr_id++;
	uint32_t imm = htonl((uint32_t)rnd64());
	int ms = step_ms(size), max_rd_sge;
	char why[256] = "";
	bool inl = flags & XF_INLINE;
	size_t slack = 0;

	/*
	 * Source and destination layouts.  Local SGE lists are split and
	 * gapped; the remote side of an RDMA is one contiguous range.  A
	 * receive buffer is a little larger than the message: what is left
	 * over must stay untouched.
	 */
	max_rd_sge = req->e->d->attr.max_sge_rd ? req->e->d->attr.max_sge_rd :
						  (int)req->cap.max_send_sge;
	if (max_rd_sge > (int)req->cap.max_send_sge)
		max_rd_sge = req->cap.max_send_sge;
	switch (op) {
	case OP_SEND:
	case OP_SEND_IMM:
		make_layout(&src, size, req->cap.max_send_sge, true);
		slack = rnd(100);
		make_layout(&dst, size + slack, rsp->cap.max_recv_sge, true);
		break;
	case OP_WRITE:
	case OP_WRITE_IMM:
		make_layout(&src, size, req->cap.max_send_sge, true);
		make_layout(&dst, size, 1, false);
		break;
	default:
		make_layout(&src, size, 1, false);
		make_layout(&dst, size, max_rd_sge, true);
		break;
	}

	/* Payload into the source; random guard bytes around the destination. */
	rnd_fill(payload, size);
	scatter(src_end->buf, &src, payload, size);
	rnd_fill(dst_end->buf, dst.win);
	memcpy(expect, dst_end->buf, dst.win);
	scatter(expect, &dst, payload, size);

	if (op_has_recv(op)) {
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = rwr_id;
		rwr.sg_list = rsge;
		rwr.num_sge = op == OP_WRITE_IMM ? 0 :
			to_sge(rsge, dst_end->buf, &dst, dst_end->mr->lkey);
		if (ibv_post_recv(rsp->qp, &rwr, &rbad)) {
			report(false, "%s: post_recv (errno %d)", label, errno);
			return false;
		}
	}
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = swr_id;
	wr.opcode = op_wr[op];
	wr.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
	wr.sg_list = ssge;
	if (op == OP_READ)
		wr.num_sge = to_sge(ssge, dst_end->buf, &dst,
				    dst_end->mr->lkey);
	else
		wr.num_sge = to_sge(ssge, src_end->buf, &src,
				    src_end->mr->lkey);
	if (op_has_imm(op))
		wr.imm_data = imm;
	if (op == OP_READ) {
		wr.wr.rdma.remote_addr = (uintptr_t)(src_end->buf + src.off[0]);
		wr.wr.rdma.rkey = src_end->mr->rkey;
	} else if (op == OP_WRITE || op == OP_WRITE_IMM) {
		wr.wr.rdma.remote_addr = (uintptr_t)(dst_end->buf + dst.off[0]);
		wr.wr.rdma.rkey = dst_end->mr->rkey;
	}
	if (flags & XF_BAD_RKEY)
		wr.wr.rdma.rkey ^= 0x5a5a5a5a;
	if (ibv_post_send(req->qp, &wr, &bad)) {
		report(false, "%s: post_send (errno %d)", label, errno);
		return false;
	}
	/* Inline data is copied at post time: the source may change now. */
	if (inl)
		for (int i = 0; i < src.n; i++)
			memset(src_end->buf + src.off[i], 0xee, src.len[i]);

	if (!expect_wc(req->scq, req->qp, swr_id, IBV_WC_SUCCESS, op_wc[op],
		       ms, &wc, why, sizeof(why))) {
		report(false, "%s: requester completion: %s", label, why);
		return false;
	}
	if (op_has_recv(op)) {
		int want = op == OP_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM :
						IBV_WC_RECV;

		if (!expect_wc(rsp->rcq, rsp->qp, rwr_id, IBV_WC_SUCCESS, want,
			       ms, &wc, why, sizeof(why))) {
			report(false, "%s: receiver completion: %s", label,
			       why);
			return false;
		}
		if (wc.byte_len != size) {
			report(false, "%s: receiver byte_len %u, expected %zu",
			       label, wc.byte_len, size);
			return false;
		}
		if (!!(wc.wc_flags & IBV_WC_WITH_IMM) != op_has_imm(op) ||
		    (op_has_imm(op) && wc.imm_data != imm)) {
			report(false, "%s: receiver wc_flags %#x imm_data %#x, expected %s %#x",
			       label, wc.wc_flags, ntohl(wc.imm_data),
			       op_has_imm(op) ? "WITH_IMM" : "no IMM",
			       ntohl(imm));
			return false;
		}
	}
	if (!same(dst_end->buf, expect, &dst, why, sizeof(why))) {
		report(false, "%s: data: %s", label, why);
		return false;
	}
	return true;
}

/*
 * Failures in a row: each may have cost a timeout, so the integrity, inline
 * and zero-length loops give up after a few rather than run for an hour.
 */
static int streak;

static bool xfer(struct pair *p, int dir, enum op op, size_t size, int flags,
		 const char *label)
{
	bool ok = xfer_one(p, dir, op, size, flags, label);

	streak = ok ? 0 : streak + 1;
	return ok;
}

static bool give_up(const char *what)
{
	if (streak < 4)
		return false;
	report(false, "%s: 4 cases in a row failed, giving up on the rest",
	       what);
	return true;
}

/* After a failed case: give up after a streak, or go on with a new pair. */
static bool carry_on(struct pair *p, const char *what)
{
	if (give_up(what))
		return false;
	destroy_pair(p);
	return create_pair(p, &default_cfg, "replacement");
}

static const size_t sizes[] = {
	0, 1, 7, 63, 64, 1023, 1024, 1025, 4095, 4096, 4097, 65537,
	(1u << 20) + 13, 8u << 20,
};

static int iters = 2;
static size_t max_size = MAX_XFER;

/*
 * a: every opcode with every size moves exactly the payload to exactly the
 * destination (guards, gaps and receive slack untouched), in both directions
 * (alternating), with correct completions on both sides.  A failure leaves
 * the pair in an unknown state: it is replaced and the run goes on.
 */
static void check_integrity(struct pair *p)
{
	char label[128];
	size_t s;
	int op, it, n, dir = 0;
	bool ok;

	for (op = 0; op < OP_COUNT; op++) {
		for (s = 0; s < ARRAY_SIZE(sizes); s++) {
			if (sizes[s] > max_size)
				continue;
			n = sizes[s] >= (1u << 20) ? 1 : iters;
			ok = true;
			for (it = 0; it < n && ok; it++) {
				snprintf(label, sizeof(label),
					 "%s %zu bytes %s (iteration %d)",
					 op_name[op], sizes[s],
					 dir ? "DEV1->DEV0" : "DEV0->DEV1",
					 it);
				ok = xfer(p, dir, op, sizes[s], 0, label);
				dir ^= 1;
			}
			if (ok) {
				report(true, "%s %zu bytes: data, guards and completions (%d run%s)",
				       op_name[op], sizes[s], n,
				       n > 1 ? "s" : "");
				continue;
			}
			if (!carry_on(p, "data integrity"))
				return;
		}
	}
}

/*
 * b: inline sends and writes (data copied at post time: the source is
 * overwritten right after posting) up to max_inline_data; zero-length
 * operations of every opcode complete; a zero-length RDMA does not check
 * its rkey (InfiniBand allows a zero-length RDMA without a valid key;
 * ERI's wire protocol says its device does not check it).
 */
static void check_inline_zero(struct pair *p)
{
	uint32_t max = p->q[0].cap.max_inline_data;
	static const size_t isz[] = { 1, 7, 16, 32, 63, 64, 95, 96, 255, 256 };
	static const enum op inl_op[] = { OP_SEND, OP_WRITE };
	char label[128];
	int i, k, op;

	printf("# QP max_inline_data %u\n", max);
	report(max >= 1 || want_inline == 0,
	       "QP reports max_inline_data %u (asked %u)", max, want_inline);
	for (k = 0; k < 2; k++) {
		op = inl_op[k];
		/* Sizes up to max_inline_data; max itself last. */
		for (i = 0; i < (int)ARRAY_SIZE(isz); i++) {
			size_t sz = isz[i] <= max ? isz[i] : max;

			if (!sz || (i && isz[i - 1] >= max))
				break;
			snprintf(label, sizeof(label), "inline %s %zu bytes",
				 op_name[op], sz);
			if (xfer(p, 0, op, sz, XF_INLINE, label))
				report(true, "%s", label);
			else if (!carry_on(p, "inline"))
				return;
		}
	}
	for (op = 0; op < OP_COUNT; op++) {
		snprintf(label, sizeof(label), "zero-length %s completes",
			 op_name[op]);
		if (xfer(p, 1, op, 0, 0, label))
			report(true, "%s", label);
		else if (!carry_on(p, "zero-length"))
			return;
	}
	for (op = OP_WRITE; op < OP_COUNT; op++) {
		snprintf(label, sizeof(label),
			 "zero-length %s with an invalid rkey completes",
			 op_name[op]);
		if (xfer(p, 0, op, 0, XF_BAD_RKEY, label))
			report(true, "%s", label);
		else if (!carry_on(p, "zero-length"))
			return;
	}
}

/* ------------------------------------------------------------ unsignaled, deep queue */

/*
 * c1: unsignaled WRs produce no completion; the signaled one after them
 * produces exactly one, and all their data arrived.  Posted as one list and
 * as separate posts.
 */
static void check_unsignaled(struct pair *p)
{
	struct qpend *req = &p->q[0], *rsp = &p->q[1];
	struct ibv_send_wr wr[8], *bad;
	struct ibv_sge sge[8];
	char why[256];
	int round, i, n = 8, ok;

	for (round = 0; round < 2; round++) {
		uint64_t base = next_wr_id;

		next_wr_id += n;
		rnd_fill(req->e->buf, n * 512);
		memset(rsp->e->buf, 0, n * 512);
		for (i = 0; i < n; i++) {
			memset(&wr[i], 0, sizeof(wr[i]));
			sge[i].addr = (uintptr_t)(req->e->buf + i * 512);
			sge[i].length = 500;
			sge[i].lkey = req->e->mr->lkey;
			wr[i].wr_id = base + i;
			wr[i].opcode = IBV_WR_RDMA_WRITE;
			wr[i].sg_list = &sge[i];
			wr[i].num_sge = 1;
			wr[i].wr.rdma.remote_addr = (uintptr_t)(rsp->e->buf + i * 512);
			wr[i].wr.rdma.rkey = rsp->e->mr->rkey;
			wr[i].send_flags = i == n - 1 ? IBV_SEND_SIGNALED : 0;
			wr[i].next = round == 0 && i < n - 1 ? &wr[i + 1] : NULL;
		}
		ok = 1;
		if (round == 0)
			ok = !ibv_post_send(req->qp, &wr[0], &bad);
		else
			for (i = 0; i < n; i++)
				ok &= !ibv_post_send(req->qp, &wr[i], &bad);
		report(ok, "post %d unsignaled + 1 signaled RDMA_WRITE %s",
		       n - 1, round ? "one by one" : "as one list");
		ok = expect_wc(req->scq, req->qp, base + n - 1, IBV_WC_SUCCESS,
			       IBV_WC_RDMA_WRITE, step_ms(0), NULL, why,
			       sizeof(why));
		report(ok, "the signaled WR completes (%s)", ok ? "ok" : why);
		report(count_extra(req->scq, 300) == 0,
		       "exactly one completion for %d WRs", n);
		for (i = 0; i < n; i++)
			if (memcmp(req->e->buf + i * 512, rsp->e->buf + i * 512,
				   500) || rsp->e->buf[i * 512 + 500])
				break;
		report(i == n, "the data of all %d WRITEs arrived (first bad: %d)",
		       n, i < n ? i : -1);
	}
}

/*
 * c2: a deep queue: batches of max_send_wr SENDs (every 16th and the last
 * of each batch signaled) until nmsg messages moved.  Each carries its
 * sequence number; the receiver reposts its buffers as they complete and
 * checks that messages arrive in order and intact; the requester's
 * completions arrive in order.  Proves that unsignaled WRs free their slots
 * and that the queues wrap.
 */
static int nmsg = 10000;

/* Message seq: 8 bytes of seq, then (uint8_t)seq up to 8 + seq % 57 bytes. */
static bool deep_slot_ok(const uint8_t *m, uint64_t seq)
{
	size_t len = 8 + seq % 57, i;

	for (i = 8; i < DEEP_SLOT; i++)
		if (m[i] != (i < len ? (uint8_t)seq : 0))
			return false;
	return true;
}

static void check_deep(struct pair *p)
{
	struct qpend *req = &p->q[0], *rsp = &p->q[1];
	uint32_t batch = req->cap.max_send_wr, nslot = rsp->cap.max_recv_wr;
	uint64_t next_send = 0, next_recv = 0, next_scqe = 0;
	uint8_t *sbuf = req->e->buf, *rbuf = rsp->e->buf;
	struct ibv_send_wr *wrs, *bad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge *sges, rsge;
	struct ibv_wc wc[32];
	char err[256] = "";
	int64_t deadline;
	uint32_t i, slot;
	int n, k;

	/* The CQs hold 4 * want_wr entries: stay below that. */
	if (nslot > 2 * want_wr)
		nslot = 2 * want_wr;
	if (batch > nslot)
		batch = nslot;
	printf("# deep queue: %d messages, batches of %u, %u receive buffers\n",
	       nmsg, batch, nslot);
	wrs = calloc(batch, sizeof(*wrs));
	sges = calloc(batch, sizeof(*sges));
	if (!wrs || !sges)
		return;
	memset(rbuf, 0, (size_t)nslot * DEEP_SLOT);
	for (slot = 0; slot < nslot; slot++) {
		memset(&rwr, 0, sizeof(rwr));
		rsge.addr = (uintptr_t)(rbuf + slot * DEEP_SLOT);
		rsge.length = DEEP_SLOT;
		rsge.lkey = rsp->e->mr->lkey;
		rwr.wr_id = slot;
		rwr.sg_list = &rsge;
		rwr.num_sge = 1;
		if (ibv_post_recv(rsp->qp, &rwr, &rbad)) {
			snprintf(err, sizeof(err), "post_recv %u: errno %d",
				 slot, errno);
			goto out;
		}
	}
	while (next_send < (uint64_t)nmsg) {
		uint32_t b = batch;
		uint64_t last;

		if (b > nmsg - next_send)
			b = nmsg - next_send;
		for (i = 0; i < b; i++) {
			uint64_t seq = next_send + i;
			uint8_t *m = sbuf + (seq % batch) * DEEP_SLOT;

			memset(m, (uint8_t)seq, DEEP_SLOT);
			memcpy(m, &seq, sizeof(seq));
			memset(&wrs[i], 0, sizeof(wrs[i]));
			sges[i].addr = (uintptr_t)m;
			sges[i].length = 8 + seq % 57;
			sges[i].lkey = req->e->mr->lkey;
			wrs[i].wr_id = seq;
			wrs[i].opcode = IBV_WR_SEND;
			wrs[i].sg_list = &sges[i];
			wrs[i].num_sge = 1;
			wrs[i].send_flags = (seq % 16 == 15 || i == b - 1) ?
					    IBV_SEND_SIGNALED : 0;
			wrs[i].next = i < b - 1 ? &wrs[i + 1] : NULL;
		}
		if (ibv_post_send(req->qp, wrs, &bad)) {
			snprintf(err, sizeof(err),
				 "post_send of %u WRs from %" PRIu64 ": errno %d",
				 b, next_send, errno);
			goto out;
		}
		last = next_send + b - 1;
		next_send += b;
		deadline = now_ms() + step_ms(0);
		while (next_scqe <= last) {
			if (now_ms() > deadline) {
				snprintf(err, sizeof(err),
					 "timeout: %" PRIu64 " sent, %" PRIu64
					 " received, waiting for the completion of %" PRIu64,
					 next_send, next_recv, last);
				goto out;
			}
			n = ibv_poll_cq(rsp->rcq, 32, wc);
			for (k = 0; k < n; k++) {
				uint64_t seq;

				slot = wc[k].wr_id;
				memcpy(&seq, rbuf + slot * DEEP_SLOT, 8);
				if (wc[k].status != IBV_WC_SUCCESS ||
				    wc[k].opcode != IBV_WC_RECV ||
				    slot != next_recv % nslot ||
				    seq != next_recv ||
				    wc[k].byte_len != 8 + seq % 57 ||
				    !deep_slot_ok(rbuf + slot * DEEP_SLOT, seq)) {
					snprintf(err, sizeof(err),
						 "receive %" PRIu64 ": status %s, slot %u (expected %"
						 PRIu64 "), seq %" PRIu64 ", byte_len %u",
						 next_recv,
						 ibv_wc_status_str(wc[k].status),
						 slot, next_recv % nslot, seq,
						 wc[k].byte_len);
					goto out;
				}
				next_recv++;
				memset(rbuf + slot * DEEP_SLOT, 0, DEEP_SLOT);
				rsge.addr = (uintptr_t)(rbuf + slot * DEEP_SLOT);
				rwr.wr_id = slot;
				if (ibv_post_recv(rsp->qp, &rwr, &rbad)) {
					snprintf(err, sizeof(err),
						 "repost_recv: errno %d", errno);
					goto out;
				}
			}
			n = ibv_poll_cq(req->scq, 32, wc);
			for (k = 0; k < n; k++) {
				/* The next signaled sequence number. */
				uint64_t want = next_scqe | 15;

				if (want > last)
					want = last;
				if (wc[k].status != IBV_WC_SUCCESS ||
				    wc[k].wr_id != want ||
				    wc[k].opcode != IBV_WC_SEND) {
					snprintf(err, sizeof(err),
						 "send completion: wr_id %" PRIu64
						 " status %s, expected %" PRIu64,
						 wc[k].wr_id,
						 ibv_wc_status_str(wc[k].status),
						 want);
					goto out;
				}
				next_scqe = want + 1;
			}
			if (n == 0)
				usleep(50);
		}
	}
	/* The last receives may lag the last send completion a little. */
	deadline = now_ms() + step_ms(0);
	while (next_recv < (uint64_t)nmsg && now_ms() < deadline) {
		n = ibv_poll_cq(rsp->rcq, 32, wc);
		for (k = 0; k < n; k++) {
			uint64_t seq;

			memcpy(&seq, rbuf + wc[k].wr_id * DEEP_SLOT, 8);
			if (wc[k].status != IBV_WC_SUCCESS || seq != next_recv ||
			    !deep_slot_ok(rbuf + wc[k].wr_id * DEEP_SLOT, seq)) {
				snprintf(err, sizeof(err),
					 "receive %" PRIu64 ": status %s seq %" PRIu64,
					 next_recv,
					 ibv_wc_status_str(wc[k].status), seq);
				goto out;
			}
			next_recv++;
		}
		if (!n)
			usleep(100);
	}
out:
	report(!err[0] && next_recv == (uint64_t)nmsg,
	       "deep queue: %d SENDs completed in order (%" PRIu64 " received)%s%s",
	       nmsg, next_recv, err[0] ? ": " : "", err);
	free(wrs);
	free(sges);
}

/* ------------------------------------------------------------ completion channel */

/* An event on the channel within ms; true if one came, for cq. */
static bool wait_event(struct qpend *q, int ms)
{
	struct pollfd pfd = { .fd = q->e->d->chan->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;

	if (poll(&pfd, 1, ms) != 1)
		return false;
	if (ibv_get_cq_event(q->e->d->chan, &cq, &cq_ctx))
		return false;
	/* ibv_destroy_cq waits for every event taken to be acked. */
	ibv_ack_cq_events(cq, 1);
	if (cq != q->rcq || cq_ctx != q) {
		diag("event for CQ %p (context %p), expected %p (%p)",
		     (void *)cq, cq_ctx, (void *)q->rcq, (void *)q);
		return false;
	}
	return true;
}

static bool post_simple(struct qpend *req, struct qpend *rsp, int flags,
			uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)req->e->buf, .length = 32,
		.lkey = req->e->mr->lkey,
	};
	struct ibv_sge rsge = {
		.addr = (uintptr_t)rsp->e->buf, .length = 64,
		.lkey = rsp->e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | flags,
	};
	struct ibv_recv_wr rwr = { .wr_id = id, .sg_list = &rsge,
				   .num_sge = 1 };
	struct ibv_send_wr *bad;
	struct ibv_recv_wr *rbad;

	return !ibv_post_recv(rsp->qp, &rwr, &rbad) &&
	       !ibv_post_send(req->qp, &wr, &bad);
}

/*
 * d: a CQ armed with ibv_req_notify_cq raises one event on its channel for
 * the next completion; armed for solicited completions only, it ignores an
 * ordinary SEND and fires for a SEND with IBV_SEND_SOLICITED.
 */
static void check_channel(struct pair *p)
{
	struct qpend *req = &p->q[0], *rsp = &p->q[1];
	struct ibv_wc wc;
	char why[256];
	uint64_t id;
	bool ok;

	report(!ibv_req_notify_cq(rsp->rcq, 0), "arm the receive CQ");
	id = next_wr_id++;
	report(post_simple(req, rsp, 0, id), "post a SEND");
	report(wait_event(rsp, step_ms(0)),
	       "an event arrives on the channel within %d ms", step_ms(0));
	ok = expect_wc(rsp->rcq, rsp->qp, id, IBV_WC_SUCCESS, IBV_WC_RECV,
		       step_ms(0), &wc, why, sizeof(why));
	report(ok, "the receive completion is in the CQ (%s)", ok ? "ok" : why);
	ok = expect_wc(req->scq, req->qp, id, IBV_WC_SUCCESS, IBV_WC_SEND,
		       step_ms(0), &wc, why, sizeof(why));
	report(ok, "the send completes (%s)", ok ? "ok" : why);

	/* Not armed: no event. */
	id = next_wr_id++;
	post_simple(req, rsp, 0, id);
	expect_wc(rsp->rcq, rsp->qp, id, IBV_WC_SUCCESS, IBV_WC_RECV,
		  step_ms(0), &wc, why, sizeof(why));
	expect_wc(req->scq, req->qp, id, IBV_WC_SUCCESS, IBV_WC_SEND,
		  step_ms(0), &wc, why, sizeof(why));
	report(!wait_event(rsp, 300), "no event when the CQ is not armed");

	/* Solicited only. */
	report(!ibv_req_notify_cq(rsp->rcq, 1), "arm the receive CQ for solicited completions");
	id = next_wr_id++;
	post_simple(req, rsp, 0, id);
	ok = expect_wc(rsp->rcq, rsp->qp, id, IBV_WC_SUCCESS, IBV_WC_RECV,
		       step_ms(0), &wc, why, sizeof(why));
	report(ok, "an unsolicited SEND is received (%s)", ok ? "ok" : why);
	expect_wc(req->scq, req->qp, id, IBV_WC_SUCCESS, IBV_WC_SEND,
		  step_ms(0), &wc, why, sizeof(why));
	report(!wait_event(rsp, 300), "... and raises no event");
	id = next_wr_id++;
	post_simple(req, rsp, IBV_SEND_SOLICITED, id);
	report(wait_event(rsp, step_ms(0)),
	       "a solicited SEND raises an event");
	ok = expect_wc(rsp->rcq, rsp->qp, id, IBV_WC_SUCCESS, IBV_WC_RECV,
		       step_ms(0), &wc, why, sizeof(why));
	report(ok, "... and its completion is in the CQ (%s)", ok ? "ok" : why);
	expect_wc(req->scq, req->qp, id, IBV_WC_SUCCESS, IBV_WC_SEND,
		  step_ms(0), &wc, why, sizeof(why));
}

/* ------------------------------------------------------------ several QPs */

#define MQ_PAIRS	4
#define MQ_MSG		(1u << 20)
#define MQ_GUARD	4096
#define MQ_STRIDE	(MQ_MSG + 2 * MQ_GUARD)	/* 8 slots fill BUF_LEN */
#define MQ_ROUNDS	2

/* Slot k of a buffer: MQ_MSG bytes with MQ_GUARD bytes on each side. */
static uint8_t *mq_slot(struct end *e, int k)
{
	return e->buf + (size_t)k * MQ_STRIDE + MQ_GUARD;
}

/*
 * g: MQ_PAIRS pairs at once, alternating direction (pair k sends from
 * ends[k & 1]), each with a 1 MiB RDMA_WRITE and a 1 MiB SEND per round
 * (WRITE first in round 0, SEND first in round 1): everything is posted on
 * every pair before anything is polled, so the device has all QPs moving
 * at once.  Each end's buffer holds 8 slots: 0-3 the sources of the pairs
 * that send from it, 4-7 the destinations of the pairs that send to it,
 * each guarded.  Every completion (status, wr_id, QP, opcode, byte_len)
 * and every destination slot with its guards is checked.
 */
static void check_multi_qp(void)
{
	struct pair p[MQ_PAIRS];
	uint8_t *img[2] = { NULL, NULL };
	int64_t deadline;
	char why[256];
	int k, r, i, created = 0;
	bool ok;

	memset(p, 0, sizeof(p));
	for (k = 0; k < MQ_PAIRS; k++) {
		char what[32];

		snprintf(what, sizeof(what), "multi-QP pair %d", k);
		if (!create_pair(&p[k], &default_cfg, what))
			goto out;
		created++;
	}
	report(true, "%d QP pairs connected at once", MQ_PAIRS);
	/* The expected image of each end's destination half, guards included. */
	for (i = 0; i < 2; i++) {
		img[i] = malloc(4 * MQ_STRIDE);
		if (!img[i])
			goto out;
	}
	for (r = 0; r < MQ_ROUNDS; r++) {
		uint64_t id = next_wr_id;

		next_wr_id += 3 * MQ_PAIRS;
		/* Random destinations (and guards), random sources. */
		for (i = 0; i < 2; i++) {
			rnd_fill(ends[i].buf + 4 * MQ_STRIDE, 4 * MQ_STRIDE);
			rnd_fill(ends[i].buf, 4 * MQ_STRIDE);
			memcpy(img[i], ends[i].buf + 4 * MQ_STRIDE,
			       4 * MQ_STRIDE);
		}
		ok = true;
		for (k = 0; k < MQ_PAIRS && ok; k++) {
			int d = k & 1, j = k >> 1;
			struct qpend *req = &p[k].q[0], *rsp = &p[k].q[1];
			struct end *se = &ends[d], *de = &ends[!d];
			struct ibv_send_wr wr[2], *bad;
			struct ibv_recv_wr rwr = { 0 }, *rbad;
			struct ibv_sge sge[2], rsge;
			int w = r & 1, s = !w;	/* WR indexes of WRITE, SEND */

			if (d) {
				req = &p[k].q[1];
				rsp = &p[k].q[0];
			}
			/* WRITE: source slot 2j -> destination slot 4 + 2j. */
			memcpy(img[!d] + (size_t)(2 * j) * MQ_STRIDE + MQ_GUARD,
			       mq_slot(se, 2 * j), MQ_MSG);
			/* SEND: source slot 2j+1 -> receive in slot 5 + 2j. */
			memcpy(img[!d] + (size_t)(2 * j + 1) * MQ_STRIDE + MQ_GUARD,
			       mq_slot(se, 2 * j + 1), MQ_MSG);
			rsge.addr = (uintptr_t)mq_slot(de, 4 + 2 * j + 1);
			rsge.length = MQ_MSG;
			rsge.lkey = de->mr->lkey;
			rwr.wr_id = id + 3 * k + 2;
			rwr.sg_list = &rsge;
			rwr.num_sge = 1;
			memset(wr, 0, sizeof(wr));
			sge[w].addr = (uintptr_t)mq_slot(se, 2 * j);
			sge[s].addr = (uintptr_t)mq_slot(se, 2 * j + 1);
			for (i = 0; i < 2; i++) {
				sge[i].length = MQ_MSG;
				sge[i].lkey = se->mr->lkey;
				wr[i].wr_id = id + 3 * k + i;
				wr[i].sg_list = &sge[i];
				wr[i].num_sge = 1;
				wr[i].send_flags = IBV_SEND_SIGNALED;
			}
			wr[0].next = &wr[1];
			wr[w].opcode = IBV_WR_RDMA_WRITE;
			wr[w].wr.rdma.remote_addr =
				(uintptr_t)mq_slot(de, 4 + 2 * j);
			wr[w].wr.rdma.rkey = de->mr->rkey;
			wr[s].opcode = IBV_WR_SEND;
			if (ibv_post_recv(rsp->qp, &rwr, &rbad) ||
			    ibv_post_send(req->qp, wr, &bad)) {
				report(false, "multi-QP round %d pair %d: post (errno %d)",
				       r, k, errno);
				ok = false;
			}
		}
		if (!ok)
			goto out;
		/* All posted: now collect, within one deadline for the round. */
		deadline = now_ms() + step_ms((size_t)2 * MQ_PAIRS * MQ_MSG);
		for (k = 0; k < MQ_PAIRS && ok; k++) {
			int d = k & 1, w = r & 1;
			struct qpend *req = &p[k].q[d], *rsp = &p[k].q[!d];
			struct ibv_wc wc;
			int ms;

			for (i = 0; i < 2 && ok; i++) {
				ms = deadline - now_ms();
				ok = expect_wc(req->scq, req->qp, id + 3 * k + i,
					       IBV_WC_SUCCESS,
					       i == w ? IBV_WC_RDMA_WRITE :
							IBV_WC_SEND,
					       ms > 0 ? ms : 1, NULL, why,
					       sizeof(why));
				if (!ok)
					report(false, "multi-QP round %d pair %d: %s completion: %s",
					       r, k, i == w ? "WRITE" : "SEND",
					       why);
			}
			ms = deadline - now_ms();
			if (ok && !expect_wc(rsp->rcq, rsp->qp, id + 3 * k + 2,
					     IBV_WC_SUCCESS, IBV_WC_RECV,
					     ms > 0 ? ms : 1, &wc, why,
					     sizeof(why))) {
				report(false, "multi-QP round %d pair %d: receive completion: %s",
				       r, k, why);
				ok = false;
			}
			if (ok && wc.byte_len != MQ_MSG) {
				report(false, "multi-QP round %d pair %d: receive byte_len %u, expected %u",
				       r, k, wc.byte_len, MQ_MSG);
				ok = false;
			}
		}
		if (!ok)
			goto out;
		for (i = 0; i < 2 && ok; i++) {
			const uint8_t *got = ends[i].buf + 4 * MQ_STRIDE;
			size_t b;

			if (!memcmp(got, img[i], 4 * MQ_STRIDE))
				continue;
			for (b = 0; got[b] == img[i][b]; b++)
				;
			report(false, "multi-QP round %d: data on %s: byte %zu of slot %zu (%s) is %#x, expected %#x",
			       r, ends[i].d->name, b % MQ_STRIDE,
			       4 + b / MQ_STRIDE,
			       b % MQ_STRIDE < MQ_GUARD ||
			       b % MQ_STRIDE >= MQ_GUARD + MQ_MSG ?
			       "guard" : "payload",
			       got[b], img[i][b]);
			ok = false;
		}
		if (!ok)
			goto out;
		report(true, "multi-QP round %d: %d pairs, 1 MiB WRITE %s 1 MiB SEND each, both directions: data, guards and completions",
		       r, MQ_PAIRS, r & 1 ? "after" : "before");
	}
	for (k = 0; k < MQ_PAIRS; k++)
		for (i = 0; i < 2; i++)
			if (count_extra(p[k].q[i].scq, 0) +
			    count_extra(p[k].q[i].rcq, 0))
				ok = false;
	report(ok, "multi-QP: no stray completions on any of the %d CQs",
	       4 * MQ_PAIRS);
out:
	if (created < MQ_PAIRS)
		report(false, "multi-QP: only %d of %d pairs created", created,
		       MQ_PAIRS);
	for (k = 0; k < MQ_PAIRS; k++)
		destroy_pair(&p[k]);
	free(img[0]);
	free(img[1]);
}

/* ------------------------------------------------------------ errors */

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

/* Wait (bounded) for a QP to reach ERR. */
static bool reaches_err(struct ibv_qp *qp)
{
	int64_t deadline = now_ms() + step_ms(0);

	while (qp_state(qp) != IBV_QPS_ERR) {
		if (now_ms() > deadline)
			return false;
		usleep(10000);
	}
	return true;
}

static void fill_rdma(struct ibv_send_wr *wr, struct ibv_sge *sge,
		      struct qpend *req, struct qpend *rsp,
		      enum ibv_wr_opcode opc, size_t len, uint64_t id)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)req->e->buf;
	sge->length = len;
	sge->lkey = req->e->mr->lkey;
	wr->wr_id = id;
	wr->opcode = opc;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->wr.rdma.remote_addr = (uintptr_t)rsp->e->buf;
	wr->wr.rdma.rkey = rsp->e->mr->rkey;
}

/*
 * One RDMA that the responder must refuse: the requester's WQE fails with
 * REM_ACCESS_ERR, the WQEs behind it are flushed, and both QPs enter ERR.
 * mutate changes the first WR (rkey, address, or an MR without the right);
 * it may deregister the MR (and register another in its place): *mrp is
 * what is left to deregister at the end.
 */
static void error_access(const char *what, enum ibv_wr_opcode opc,
			 void (*mutate)(struct ibv_send_wr *, struct pair *,
					struct ibv_mr **),
			 int remote_access)
{
	struct pair p;
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge[3];
	struct ibv_mr *mr = NULL;
	char why[256];
	uint64_t id = next_wr_id;
	bool ok;
	int i;

	next_wr_id += 3;
	if (!create_pair(&p, &default_cfg, what))
		goto out;
	if (remote_access) {
		/* A region of q[1]'s buffer without the right in question. */
		mr = ibv_reg_mr(ends[1].d->pd, ends[1].buf + (1 << 20), 65536,
				remote_access);
		if (!mr) {
			report(false, "%s: register the MR (errno %d)", what,
			       errno);
			goto out;
		}
	}
	for (i = 0; i < 3; i++) {
		fill_rdma(&wr[i], &sge[i], &p.q[0], &p.q[1], opc, 4096, id + i);
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	mutate(&wr[0], &p, &mr);
	if (ibv_post_send(p.q[0].qp, wr, &bad)) {
		report(false, "%s: post_send (errno %d)", what, errno);
		goto out;
	}
	ok = expect_wc(p.q[0].scq, p.q[0].qp, id, IBV_WC_REM_ACCESS_ERR, -1,
		       step_ms(0), NULL, why, sizeof(why));
	report(ok, "%s: requester gets REM_ACCESS_ERR%s%s", what,
	       ok ? "" : ": ", ok ? "" : why);
	for (i = 1; i < 3; i++) {
		ok = expect_wc(p.q[0].scq, p.q[0].qp, id + i,
			       IBV_WC_WR_FLUSH_ERR, -1, step_ms(0), NULL, why,
			       sizeof(why));
		report(ok, "%s: WR %d behind it is flushed%s%s", what, i,
		       ok ? "" : ": ", ok ? "" : why);
	}
	report(reaches_err(p.q[0].qp), "%s: requester QP is in ERR", what);
	report(reaches_err(p.q[1].qp), "%s: responder QP is in ERR", what);
out:
	if (mr)
		ibv_dereg_mr(mr);
	destroy_pair(&p);
}

static void bad_rkey(struct ibv_send_wr *wr, struct pair *p,
		     struct ibv_mr **mrp)
{
	(void)p;
	(void)mrp;
	wr->wr.rdma.rkey ^= 0x5a5a5a5a;
}

static void past_end(struct ibv_send_wr *wr, struct pair *p,
		     struct ibv_mr **mrp)
{
	(void)mrp;
	/* Starts inside the region, ends 4 KiB beyond it. */
	wr->wr.rdma.remote_addr = (uintptr_t)(p->q[1].e->buf + BUF_LEN - 100);
}

static void other_mr(struct ibv_send_wr *wr, struct pair *p,
		     struct ibv_mr **mrp)
{
	(void)p;
	wr->wr.rdma.remote_addr = (uintptr_t)(*mrp)->addr;
	wr->wr.rdma.rkey = (*mrp)->rkey;
}

/*
 * The rkey and address of an MR that was deregistered: the key is not in
 * the device's table any more (ERI: not found), whatever the address.
 */
static void dead_mr(struct ibv_send_wr *wr, struct pair *p,
		    struct ibv_mr **mrp)
{
	struct ibv_mr *mr = *mrp;

	other_mr(wr, p, mrp);
	report(!ibv_dereg_mr(mr), "deregister the MR (rkey %#x) before the RDMA",
	       wr->wr.rdma.rkey);
	*mrp = NULL;
}

/*
 * The same, and then a new MR over the same memory with the same rights:
 * it most likely takes the index of the old one (ERI: a new variant byte),
 * and the old rkey must not reach it.
 */
static void stale_mr(struct ibv_send_wr *wr, struct pair *p,
		     struct ibv_mr **mrp)
{
	void *addr = (*mrp)->addr;
	size_t len = (*mrp)->length;

	dead_mr(wr, p, mrp);
	*mrp = ibv_reg_mr(ends[1].d->pd, addr, len, full_access);
	report(*mrp, "register a new MR over the same memory (errno %d)",
	       *mrp ? 0 : errno);
	if (*mrp)
		printf("# old rkey %#x, new rkey %#x%s\n", wr->wr.rdma.rkey,
		       (*mrp)->rkey, (*mrp)->rkey >> 8 == wr->wr.rdma.rkey >> 8 ?
		       " (same index)" : "");
}

/*
 * Local protection errors, found by the requester when it touches its own
 * memory through an lkey: a SEND gathering through the lkey of an MR that
 * was deregistered (nothing may reach the peer), and an RDMA_READ whose
 * response lands in an MR registered without LOCAL_WRITE (access 0: local
 * read only; ibv_reg_mr allows that, it requires LOCAL_WRITE only with
 * REMOTE_WRITE or REMOTE_ATOMIC).  The WQE completes with LOC_PROT_ERR, the
 * WR behind it is flushed, the requester QP enters ERR and the local memory
 * is untouched.
 */
static void error_local(bool read)
{
	const char *what = read ? "RDMA_READ into an MR without LOCAL_WRITE" :
				  "SEND with the lkey of a deregistered MR";
	struct pair p;
	struct ibv_send_wr wr[2], *bad;
	struct ibv_recv_wr rwr = { 0 }, *rbad;
	struct ibv_sge sge[2], rsge = { 0 };
	struct ibv_mr *mr = NULL;
	uint8_t *mem = ends[0].buf + (1 << 20);
	uint32_t lkey;
	uint64_t id = next_wr_id;
	char why[256];
	size_t i;
	bool ok;

	next_wr_id += 2;
	if (!create_pair(&p, &default_cfg, what))
		goto out;
	mr = ibv_reg_mr(ends[0].d->pd, mem, 65536, read ? 0 : full_access);
	report(mr, "%s: register the local MR with access %#x (errno %d)",
	       what, read ? 0 : full_access, mr ? 0 : errno);
	if (!mr)
		goto out;
	lkey = mr->lkey;
	if (!read) {
		report(!ibv_dereg_mr(mr), "%s: deregister it (lkey %#x)",
		       what, lkey);
		mr = NULL;
	}
	memset(mem, 0xa5, 4096);
	rnd_fill(ends[1].buf, 4096);
	memset(ends[1].buf + 8192, 0x3c, 4096);

	/* A receive for the SEND: it must stay unused. */
	rsge.addr = (uintptr_t)(ends[1].buf + 8192);
	rsge.length = 4096;
	rsge.lkey = ends[1].mr->lkey;
	rwr.wr_id = id;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	if (!read && ibv_post_recv(p.q[1].qp, &rwr, &rbad)) {
		report(false, "%s: post_recv (errno %d)", what, errno);
		goto out;
	}
	/* The bad WR, then a good RDMA_WRITE behind it. */
	fill_rdma(&wr[0], &sge[0], &p.q[0], &p.q[1],
		  read ? IBV_WR_RDMA_READ : IBV_WR_SEND, 100, id);
	sge[0].addr = (uintptr_t)mem;
	sge[0].lkey = lkey;
	if (read)
		sge[0].length = 4096;
	wr[0].next = &wr[1];
	fill_rdma(&wr[1], &sge[1], &p.q[0], &p.q[1], IBV_WR_RDMA_WRITE, 100,
		  id + 1);
	wr[1].wr.rdma.remote_addr += 16384;
	if (ibv_post_send(p.q[0].qp, wr, &bad)) {
		report(false, "%s: post_send (errno %d)", what, errno);
		goto out;
	}
	ok = expect_wc(p.q[0].scq, p.q[0].qp, id, IBV_WC_LOC_PROT_ERR, -1,
		       step_ms(0), NULL, why, sizeof(why));
	report(ok, "%s: requester gets LOC_PROT_ERR%s%s", what,
	       ok ? "" : ": ", ok ? "" : why);
	ok = expect_wc(p.q[0].scq, p.q[0].qp, id + 1, IBV_WC_WR_FLUSH_ERR, -1,
		       step_ms(0), NULL, why, sizeof(why));
	report(ok, "%s: the WR behind it is flushed%s%s", what,
	       ok ? "" : ": ", ok ? "" : why);
	report(reaches_err(p.q[0].qp), "%s: requester QP is in ERR", what);
	for (i = 0; i < 4096 && mem[i] == 0xa5; i++)
		;
	report(i == 4096, "%s: the local memory is untouched (first change at byte %zd)",
	       what, i < 4096 ? (ssize_t)i : -1);
	if (!read) {
		report(count_extra(p.q[1].rcq, 300) == 0,
		       "%s: the peer receives nothing", what);
		for (i = 0; i < 4096 && ends[1].buf[8192 + i] == 0x3c; i++)
			;
		report(i == 4096, "%s: the peer's receive buffer is untouched (first change at byte %zd)",
		       what, i < 4096 ? (ssize_t)i : -1);
	}
out:
	if (mr)
		ibv_dereg_mr(mr);
	destroy_pair(&p);
}

/*
 * A SEND longer than the receive buffer: the receive completes with
 * LOC_LEN_ERR, the requester with REM_INV_REQ_ERR.
 */
static void error_len(void)
{
	struct pair p;
	struct ibv_sge sge = { 0 }, rsge = { 0 };
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_recv_wr rwr = { 0 }, *rbad;
	uint64_t id = next_wr_id++;
	struct ibv_wc wc;
	char why[256];
	bool ok;

	if (!create_pair(&p, &default_cfg, "short receive"))
		goto out;
	rsge.addr = (uintptr_t)p.q[1].e->buf;
	rsge.length = 1000;
	rsge.lkey = p.q[1].e->mr->lkey;
	rwr.wr_id = id;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	sge.addr = (uintptr_t)p.q[0].e->buf;
	sge.length = 3000;
	sge.lkey = p.q[0].e->mr->lkey;
	wr.wr_id = id;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_recv(p.q[1].qp, &rwr, &rbad) ||
	    ibv_post_send(p.q[0].qp, &wr, &bad)) {
		report(false, "short receive: post (errno %d)", errno);
		goto out;
	}
	wc.status = IBV_WC_SUCCESS;
	ok = expect_wc(p.q[1].rcq, p.q[1].qp, id, IBV_WC_LOC_LEN_ERR, -1,
		       step_ms(0), &wc, why, sizeof(why));
	/*
	 * rdma_rxe (6.12) takes a receive too short for the message for a
	 * malformed WQE: LOC_QP_OP_ERR here, a "remote operational error"
	 * NAK and REM_OP_ERR at the requester.  ERI's wire protocol
	 * promises LOC_LEN_ERR and an INV_REQ NAK (REM_INV_REQ_ERR), as
	 * RoCE hardware reports it.
	 */
	report_quirk(ok, wc.status == IBV_WC_LOC_QP_OP_ERR, "rxe",
		     "rdma_rxe reports LOC_QP_OP_ERR (malformed WQE)",
		     "SEND of 3000 bytes into a 1000-byte receive: receiver gets LOC_LEN_ERR%s%s",
		     ok ? "" : ": ", ok ? "" : why);
	wc.status = IBV_WC_SUCCESS;
	ok = expect_wc(p.q[0].scq, p.q[0].qp, id, IBV_WC_REM_INV_REQ_ERR, -1,
		       step_ms(0), &wc, why, sizeof(why));
	report_quirk(ok, wc.status == IBV_WC_REM_OP_ERR, "rxe",
		     "rdma_rxe NAKs it as a remote operational error (REM_OP_ERR)",
		     "... and requester gets REM_INV_REQ_ERR%s%s",
		     ok ? "" : ": ", ok ? "" : why);
	report(reaches_err(p.q[0].qp) && reaches_err(p.q[1].qp),
	       "... and both QPs are in ERR");
out:
	destroy_pair(&p);
}

/*
 * RNR: a SEND finds no receive.  With rnr_retry 7 (forever) it completes
 * once a receive is posted, later; with rnr_retry 0 it fails at the first
 * RNR NAK with RNR_RETRY_EXC_ERR.
 */
static void error_rnr(void)
{
	struct qpcfg cfg = default_cfg;
	struct pair p;
	struct ibv_sge sge = { 0 }, rsge = { 0 };
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_recv_wr rwr = { 0 }, *rbad;
	struct ibv_wc wc;
	uint64_t id;
	char why[256];
	bool ok;
	int round;

	for (round = 0; round < 2; round++) {
		cfg.rnr_retry = round ? 0 : 7;
		if (!create_pair(&p, &cfg, round ? "RNR exhausted" : "RNR recovered"))
			goto next;
		id = next_wr_id++;
		sge.addr = (uintptr_t)p.q[0].e->buf;
		sge.length = 100;
		sge.lkey = p.q[0].e->mr->lkey;
		wr.wr_id = id;
		wr.opcode = IBV_WR_SEND;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		rsge.addr = (uintptr_t)p.q[1].e->buf;
		rsge.length = 100;
		rsge.lkey = p.q[1].e->mr->lkey;
		rwr.wr_id = id;
		rwr.sg_list = &rsge;
		rwr.num_sge = 1;
		if (ibv_post_send(p.q[0].qp, &wr, &bad)) {
			report(false, "RNR: post_send (errno %d)", errno);
			goto next;
		}
		if (round == 0) {
			report(poll_one(p.q[0].scq, &wc, 500) == 0,
			       "SEND without a receive waits (rnr_retry 7)");
			report(!ibv_post_recv(p.q[1].qp, &rwr, &rbad),
			       "post the receive late");
			ok = expect_wc(p.q[0].scq, p.q[0].qp, id,
				       IBV_WC_SUCCESS, IBV_WC_SEND, step_ms(0),
				       NULL, why, sizeof(why));
			report(ok, "... then the SEND completes%s%s",
			       ok ? "" : ": ", ok ? "" : why);
			ok = expect_wc(p.q[1].rcq, p.q[1].qp, id,
				       IBV_WC_SUCCESS, IBV_WC_RECV, step_ms(0),
				       &wc, why, sizeof(why));
			report(ok && wc.byte_len == 100,
			       "... and is received once, 100 bytes%s%s",
			       ok ? "" : ": ", ok ? "" : why);
			report(count_extra(p.q[1].rcq, 300) == 0,
			       "... and only once");
		} else {
			ok = expect_wc(p.q[0].scq, p.q[0].qp, id,
				       IBV_WC_RNR_RETRY_EXC_ERR, -1,
				       step_ms(0), NULL, why, sizeof(why));
			report(ok, "SEND without a receive, rnr_retry 0: RNR_RETRY_EXC_ERR%s%s",
			       ok ? "" : ": ", ok ? "" : why);
			report(reaches_err(p.q[0].qp),
			       "... and the requester QP is in ERR");
		}
next:
		destroy_pair(&p);
	}
}

/*
 * Retry exhausted: the peer QP is destroyed, nothing answers; after
 * retry_cnt retransmissions the WQE fails with RETRY_EXC_ERR.
 */
static void error_retry(void)
{
	struct qpcfg cfg = default_cfg;
	struct pair p;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	uint64_t id = next_wr_id++;
	char why[256];
	bool ok;

	cfg.retry_cnt = 2;
	if (!create_pair(&p, &cfg, "retry exhausted"))
		goto out;
	ibv_destroy_qp(p.q[1].qp);
	p.q[1].qp = NULL;
	fill_rdma(&wr, &sge, &p.q[0], &p.q[1], IBV_WR_RDMA_WRITE, 100, id);
	if (ibv_post_send(p.q[0].qp, &wr, &bad)) {
		report(false, "retry: post_send (errno %d)", errno);
		goto out;
	}
	/*
	 * timeout 14: 67 ms; the requester gives up after 2 unanswered
	 * timeouts and 3 local ACK timeouts (201 ms) without an answer:
	 * well inside one step.
	 */
	ok = expect_wc(p.q[0].scq, p.q[0].qp, id, IBV_WC_RETRY_EXC_ERR, -1,
		       step_ms(0), NULL, why, sizeof(why));
	report(ok, "WRITE to a destroyed QP, retry_cnt 2: RETRY_EXC_ERR%s%s",
	       ok ? "" : ": ", ok ? "" : why);
out:
	destroy_pair(&p);
}

/*
 * x: on a cut link (the caller drops every packet) a WRITE, a SEND and a
 * READ between two live QPs exhaust retry_cnt 3: RETRY_EXC_ERR, and the
 * requester enters ERR.  Asserts the status, not the time it took.
 */
static void check_cut_link(void)
{
	static const enum ibv_wr_opcode opc[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_SEND, IBV_WR_RDMA_READ,
	};
	static const char *const name[] = { "WRITE", "SEND", "READ" };
	struct qpcfg cfg = default_cfg;
	struct ibv_send_wr wr, *bad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge sge, rsge;
	char why[256];
	struct pair p;
	size_t i;
	bool ok;

	cfg.retry_cnt = 3;
	for (i = 0; i < ARRAY_SIZE(opc); i++) {
		uint64_t id = next_wr_id++;

		if (!create_pair(&p, &cfg, "cut link"))
			goto out;
		if (opc[i] == IBV_WR_SEND) {
			memset(&rwr, 0, sizeof(rwr));
			rsge.addr = (uintptr_t)p.q[1].e->buf;
			rsge.length = 4096;
			rsge.lkey = p.q[1].e->mr->lkey;
			rwr.wr_id = next_wr_id++;
			rwr.sg_list = &rsge;
			rwr.num_sge = 1;
			if (ibv_post_recv(p.q[1].qp, &rwr, &rbad)) {
				report(false, "cut link: post_recv (errno %d)", errno);
				goto out;
			}
		}
		fill_rdma(&wr, &sge, &p.q[0], &p.q[1], opc[i], 3000, id);
		if (ibv_post_send(p.q[0].qp, &wr, &bad)) {
			report(false, "cut link: post_send (errno %d)", errno);
			goto out;
		}
		/* At most 4 timeouts of at most 67 ms each: one step. */
		ok = expect_wc(p.q[0].scq, p.q[0].qp, id, IBV_WC_RETRY_EXC_ERR,
			       -1, step_ms(0), NULL, why, sizeof(why));
		report(ok, "%s on a cut link, retry_cnt 3: RETRY_EXC_ERR%s%s",
		       name[i], ok ? "" : ": ", ok ? "" : why);
		report(reaches_err(p.q[0].qp),
		       "%s on a cut link: the requester is in ERR", name[i]);
		destroy_pair(&p);
	}
	return;
out:
	destroy_pair(&p);
}

/*
 * Modify to ERR: every posted receive completes with WR_FLUSH_ERR, in
 * order; receives and sends posted in ERR are flushed too.
 */
static void error_flush(void)
{
	struct pair p;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_sge rsge = { 0 }, sge;
	struct ibv_recv_wr rwr = { 0 }, *rbad;
	struct ibv_send_wr wr, *bad;
	uint64_t id = next_wr_id;
	char why[256];
	bool ok, late;
	int i, n = 5, good = 0;

	next_wr_id += n + 2;
	if (!create_pair(&p, &default_cfg, "flush"))
		goto out;
	rsge.addr = (uintptr_t)p.q[1].e->buf;
	rsge.length = 4096;
	rsge.lkey = p.q[1].e->mr->lkey;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	for (i = 0; i < n; i++) {
		rwr.wr_id = id + i;
		if (ibv_post_recv(p.q[1].qp, &rwr, &rbad))
			break;
	}
	report(i == n, "post %d receives", n);
	report(!ibv_modify_qp(p.q[1].qp, &a, IBV_QP_STATE),
	       "modify the QP to ERR");
	report(qp_state(p.q[1].qp) == IBV_QPS_ERR, "query_qp says ERR");
	for (i = 0; i < n; i++) {
		ok = expect_wc(p.q[1].rcq, p.q[1].qp, id + i,
			       IBV_WC_WR_FLUSH_ERR, -1, step_ms(0), NULL, why,
			       sizeof(why));
		if (!ok)
			diag("receive %d: %s", i, why);
		good += ok;
	}
	report(good == n, "each posted receive is flushed, in order (%d of %d)",
	       good, n);
	rwr.wr_id = id + n;
	ok = !ibv_post_recv(p.q[1].qp, &rwr, &rbad);
	report(ok, "post_recv in ERR is accepted (errno %d)", ok ? 0 : errno);
	late = ok;
	ok = ok && expect_wc(p.q[1].rcq, p.q[1].qp, id + n,
			     IBV_WC_WR_FLUSH_ERR, -1, step_ms(0), NULL, why,
			     sizeof(why));
	late = late && !ok;
	/*
	 * librxe posts receives in user space, without a system call: in ERR
	 * nothing looks at the receive queue until the QP's tasks run again
	 * (below: the post_send, which enters the kernel).  ERI's device
	 * flushes what is posted in ERR (need_kick stays set).
	 */
	report_quirk(ok, late && strstr(why, "no completion"), "rxe",
		     "librxe posts receives without a kernel call; nothing flushes them in ERR until the QP's tasks run",
		     "... and the receive is flushed%s%s", ok ? "" : ": ",
		     ok ? "" : why);
	fill_rdma(&wr, &sge, &p.q[1], &p.q[0], IBV_WR_RDMA_WRITE, 100,
		  id + n + 1);
	ok = !ibv_post_send(p.q[1].qp, &wr, &bad);
	report(ok, "post_send in ERR is accepted (errno %d)", ok ? 0 : errno);
	ok = ok && expect_wc(p.q[1].scq, p.q[1].qp, id + n + 1,
			     IBV_WC_WR_FLUSH_ERR, -1, step_ms(0), NULL, why,
			     sizeof(why));
	report(ok, "... and the send is flushed%s%s", ok ? "" : ": ",
	       ok ? "" : why);
	if (late) {
		ok = expect_wc(p.q[1].rcq, p.q[1].qp, id + n,
			       IBV_WC_WR_FLUSH_ERR, -1, step_ms(0), NULL, why,
			       sizeof(why));
		diag("the receive posted in ERR: %s", ok ? "flushed late" : why);
	}
	report(count_extra(p.q[1].rcq, 200) + count_extra(p.q[1].scq, 200) == 0,
	       "no other completions");
out:
	destroy_pair(&p);
}

static void check_errors(void)
{
	error_access("RDMA_WRITE with a wrong rkey", IBV_WR_RDMA_WRITE,
		     bad_rkey, 0);
	error_access("RDMA_READ with a wrong rkey", IBV_WR_RDMA_READ,
		     bad_rkey, 0);
	error_access("RDMA_WRITE past the end of the region", IBV_WR_RDMA_WRITE,
		     past_end, 0);
	error_access("RDMA_READ from a region without REMOTE_READ",
		     IBV_WR_RDMA_READ, other_mr,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	error_access("RDMA_WRITE to a region without REMOTE_WRITE",
		     IBV_WR_RDMA_WRITE, other_mr,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	error_access("RDMA_WRITE to a deregistered MR", IBV_WR_RDMA_WRITE,
		     dead_mr, full_access);
	error_access("RDMA_READ from a deregistered MR", IBV_WR_RDMA_READ,
		     dead_mr, full_access);
	error_access("RDMA_WRITE with the rkey of an MR re-registered since",
		     IBV_WR_RDMA_WRITE, stale_mr, full_access);
	error_local(false);
	error_local(true);
	error_len();
	error_rnr();
	error_retry();
	error_flush();
}

/* ------------------------------------------------------------ query */

/*
 * f: ibv_query_qp on a freshly connected QP returns the attributes and caps
 * the connection set (queried before any traffic: the PSNs move later).
 */
static void check_query(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct qpend *q = &p->q[i], *peer = &p->q[!i];
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		int mask = IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			   IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_RQ_PSN |
			   IBV_QP_CAP | IBV_QP_AV | IBV_QP_MIN_RNR_TIMER |
			   IBV_QP_MAX_QP_RD_ATOMIC |
			   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ACCESS_FLAGS;
		const char *n = q->e->d->name;

		memset(&a, 0, sizeof(a));
		memset(&ia, 0, sizeof(ia));
		if (ibv_query_qp(q->qp, &a, mask, &ia)) {
			report(false, "query_qp on %s (errno %d)", n, errno);
			continue;
		}
		report(a.qp_state == IBV_QPS_RTS, "%s: qp_state RTS (%d)", n,
		       a.qp_state);
		report(a.dest_qp_num == peer->qp->qp_num,
		       "%s: dest_qp_num %#x (%#x)", n, a.dest_qp_num,
		       peer->qp->qp_num);
		report(a.path_mtu == path_mtu, "%s: path_mtu %d (%d)", n,
		       a.path_mtu, path_mtu);
		report(a.timeout == p->cfg.timeout &&
		       a.retry_cnt == p->cfg.retry_cnt &&
		       a.rnr_retry == p->cfg.rnr_retry,
		       "%s: timeout %u retry_cnt %u rnr_retry %u (%u %u %u)", n,
		       a.timeout, a.retry_cnt, a.rnr_retry, p->cfg.timeout,
		       p->cfg.retry_cnt, p->cfg.rnr_retry);
		report(a.min_rnr_timer == p->cfg.min_rnr_timer,
		       "%s: min_rnr_timer %u (%u)", n, a.min_rnr_timer,
		       p->cfg.min_rnr_timer);
		report(a.sq_psn == q->psn && a.rq_psn == peer->psn,
		       "%s: sq_psn %#x rq_psn %#x (%#x %#x)", n, a.sq_psn,
		       a.rq_psn, q->psn, peer->psn);
		report(a.max_rd_atomic == p->rd_atomic &&
		       a.max_dest_rd_atomic == p->dest_rd_atomic,
		       "%s: max_rd_atomic %u max_dest_rd_atomic %u (%u %u)", n,
		       a.max_rd_atomic, a.max_dest_rd_atomic, p->rd_atomic,
		       p->dest_rd_atomic);
		report(a.qp_access_flags == full_access,
		       "%s: qp_access_flags %#x (%#x)", n, a.qp_access_flags,
		       full_access);
		report(a.ah_attr.is_global &&
		       !memcmp(&a.ah_attr.grh.dgid, &peer->e->d->gid, 16) &&
		       a.ah_attr.grh.sgid_index == q->e->d->gid_index &&
		       a.ah_attr.port_num == 1,
		       "%s: ah_attr: global, dgid of the peer, sgid_index %u (%d), port %u",
		       n, a.ah_attr.grh.sgid_index, q->e->d->gid_index,
		       a.ah_attr.port_num);
		/*
		 * rdma_rxe on 6.1 returns the caps asked for from create_qp
		 * and the (larger) sizes of the queues it made from query_qp.
		 */
		report_quirk(a.cap.max_send_wr == q->cap.max_send_wr &&
			     a.cap.max_recv_wr == q->cap.max_recv_wr &&
			     a.cap.max_send_sge == q->cap.max_send_sge &&
			     a.cap.max_recv_sge == q->cap.max_recv_sge &&
			     a.cap.max_inline_data == q->cap.max_inline_data,
			     a.cap.max_send_wr > q->cap.max_send_wr &&
			     a.cap.max_recv_wr > q->cap.max_recv_wr,
			     "rxe", "rdma_rxe (6.1) reports the caps asked for, not those granted",
			     "%s: caps %u/%u wr, %u/%u sge, inline %u (created with %u/%u, %u/%u, %u)",
			     n, a.cap.max_send_wr, a.cap.max_recv_wr,
			     a.cap.max_send_sge, a.cap.max_recv_sge,
			     a.cap.max_inline_data, q->cap.max_send_wr,
			     q->cap.max_recv_wr, q->cap.max_send_sge,
			     q->cap.max_recv_sge, q->cap.max_inline_data);
		report(q->cap.max_send_wr >= want_wr &&
		       q->cap.max_recv_wr >= 2 * want_wr &&
		       q->cap.max_inline_data >= want_inline,
		       "%s: create_qp granted at least what was asked (%u/%u wr, inline %u)",
		       n, want_wr, 2 * want_wr, want_inline);
		report(ia.qp_type == IBV_QPT_RC && ia.send_cq == q->scq &&
		       ia.recv_cq == q->rcq,
		       "%s: init_attr: RC, its CQs", n);
	}
}

/* ------------------------------------------------------------ main */

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [-s SEED] [-t SEC] [-n MSGS] [-i ITERS] [-I INLINE] [-M BYTES] [-T fabcdgex] [-q rxe] [-v] DEV0 DEV1\n",
		argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *tests = "fabcdge";
	uint64_t seed = 0;
	bool seeded = false;
	struct pair p;
	int c;

	while ((c = getopt(argc, argv, "s:t:n:i:I:M:T:q:v")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			seeded = true;
			break;
		case 't':
			timeout_s = atoi(optarg);
			break;
		case 'n':
			nmsg = atoi(optarg);
			break;
		case 'i':
			iters = atoi(optarg);
			break;
		case 'I':
			want_inline = strtoul(optarg, NULL, 0);
			break;
		case 'M':
			max_size = strtoul(optarg, NULL, 0);
			break;
		case 'T':
			tests = optarg;
			break;
		case 'q':
			quirks = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (argc - optind != 2 || timeout_s < 1 || nmsg < 1 || iters < 1)
		usage(argv[0]);
	if (!seeded)
		seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
	rng_state = seed;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# eri_rc_test %s %s, seed %#" PRIx64 " (-s to replay), timeout %d s%s%s\n",
	       argv[optind], argv[optind + 1], seed, timeout_s,
	       quirks[0] ? ", known deviations of " : "", quirks);

	expect = malloc(BUF_LEN);
	payload = malloc(BUF_LEN);
	if (!expect || !payload)
		return 1;
	if (!open_dev(&devs[0], argv[optind]))
		goto done;
	if (strcmp(argv[optind], argv[optind + 1])) {
		if (!open_dev(&devs[1], argv[optind + 1]))
			goto done;
	} else {
		printf("# loopback: both QPs on %s\n", argv[optind]);
		devs[1] = devs[0];
	}
	path_mtu = devs[0].port.active_mtu < devs[1].port.active_mtu ?
		   devs[0].port.active_mtu : devs[1].port.active_mtu;
	printf("# path MTU %d\n", 128 << path_mtu);
	if (!open_end(&ends[0], &devs[0]) || !open_end(&ends[1], &devs[1]))
		goto done;

	/* The pair for f, a and b: query it before anything moves. */
	if (!create_pair(&p, &default_cfg, "main pair"))
		goto done;
	report(true, "create and connect RC QPs %#x <-> %#x (PSNs %#x, %#x)",
	       p.q[0].qp->qp_num, p.q[1].qp->qp_num, p.q[0].psn, p.q[1].psn);
	if (strchr(tests, 'f'))
		check_query(&p);
	if (strchr(tests, 'a'))
		check_integrity(&p);
	if (strchr(tests, 'b') && p.q[0].qp)
		check_inline_zero(&p);
	destroy_pair(&p);

	if (strchr(tests, 'c')) {
		if (create_pair(&p, &default_cfg, "unsignaled"))
			check_unsignaled(&p);
		destroy_pair(&p);
		if (create_pair(&p, &default_cfg, "deep queue"))
			check_deep(&p);
		destroy_pair(&p);
	}
	if (strchr(tests, 'd')) {
		struct qpcfg cfg = default_cfg;

		cfg.channel = true;
		if (create_pair(&p, &cfg, "completion channel"))
			check_channel(&p);
		destroy_pair(&p);
	}
	if (strchr(tests, 'g'))
		check_multi_qp();
	if (strchr(tests, 'e'))
		check_errors();
	if (strchr(tests, 'x'))
		check_cut_link();

done:
	/* Teardown: everything created must go away without errors. */
	for (c = 0; c < 2; c++) {
		if (ends[c].mr)
			report(!ibv_dereg_mr(ends[c].mr), "deregister buffer %d", c);
		free(ends[c].buf);
	}
	for (c = 0; c < 2; c++) {
		if (c == 1 && devs[1].ctx == devs[0].ctx)
			break;
		if (devs[c].chan)
			report(!ibv_destroy_comp_channel(devs[c].chan),
			       "destroy the completion channel of %s", devs[c].name);
		if (devs[c].pd)
			report(!ibv_dealloc_pd(devs[c].pd), "dealloc PD of %s",
			       devs[c].name);
		if (devs[c].ctx)
			report(!ibv_close_device(devs[c].ctx), "close %s",
			       devs[c].name);
	}
	free(expect);
	free(payload);
	printf("# %d passed, %d failed%s\n", passed, failed,
	       todo ? ", some known deviations (TODO) not counted" : "");
	if (todo)
		printf("# %d TODO\n", todo);
	return failed || !passed ? 1 : 0;
}
