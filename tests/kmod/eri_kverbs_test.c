// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_kverbs_test: kernel verbs between two ERI devices, run by module init.
 *
 * Fixed topology, set up by tests/vm/kverbs.sh: device eri0 on a netdev with
 * 198.18.0.1, device eri1 on its peer with 198.18.0.2 (two network
 * namespaces joined by a veth: kernel verbs do not care about namespaces).
 * Each device gets a PD with the unsafe global rkey, a send CQ polled
 * directly (ib_alloc_cq, IB_POLL_DIRECT), a receive CQ with a completion
 * handler (ib_create_cq) and an RC QP; the two QPs are connected through the
 * RoCE v2 GIDs of the two addresses.  Data lives in kmalloc'ed buffers mapped
 * with ib_dma_map_single and addressed through the PDs' local_dma_lkey and
 * unsafe_global_rkey; every transfer is checked byte for byte.
 *
 * Each check prints "ok - ..." or "not ok - ..."; init returns 0 only when
 * all passed, so insmod fails otherwise.  Everything is freed before init
 * returns; exit has nothing to do.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#define KV_BUF_SIZE	(128 * 1024)
#define KV_CQE		64
#define KV_WR		16
#define KV_SGE		3
#define KV_INLINE	64
#define KV_TIMEOUT_MS	10000
#define KV_CLEAR	0xa5

struct kv_side {
	const char *name;
	const char *ip;
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *scq;		/* send: IB_POLL_DIRECT */
	struct ib_cq *rcq;		/* receive: comp_handler */
	struct ib_qp *qp;
	u32 sgid_index;
	union ib_gid gid;
	u32 psn;
	u32 max_inline;
	u8 *tx, *rx;
	u64 tx_dma, rx_dma;
	struct completion rcq_event;
};

/* A part of a buffer: one SGE. */
struct kv_seg {
	u32 off;
	u32 len;
};

static struct kv_side kv_a = {
	.name = "eri0", .ip = "198.18.0.1", .psn = 0x1234,
};

static struct kv_side kv_b = {
	.name = "eri1", .ip = "198.18.0.2", .psn = 0xabcde,
};

static unsigned int kv_pass, kv_fail;
static u64 kv_wr_id;
/* After a completion failed to come, the others get less time: bounded runs. */
static unsigned int kv_poll_ms = KV_TIMEOUT_MS;

static __printf(2, 3) bool kv_check(bool ok, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("%s - %pV\n", ok ? "ok" : "not ok", &vaf);
	va_end(args);
	if (ok)
		kv_pass++;
	else
		kv_fail++;
	return ok;
}

/* A reproducible pseudo-random byte stream (xorshift32). */
struct kv_pat {
	u32 x;
};

static void kv_pat_init(struct kv_pat *p, u32 seed)
{
	p->x = (seed * 2654435761U) | 1;
}

static u8 kv_pat_next(struct kv_pat *p)
{
	p->x ^= p->x << 13;
	p->x ^= p->x >> 17;
	p->x ^= p->x << 5;
	return p->x >> 24;
}

static void kv_fill(u8 *buf, const struct kv_seg *segs, int n, u32 seed)
{
	struct kv_pat p;
	u32 i;
	int s;

	kv_pat_init(&p, seed);
	for (s = 0; s < n; s++)
		for (i = 0; i < segs[s].len; i++)
			buf[segs[s].off + i] = kv_pat_next(&p);
}

/*
 * @total bytes of the stream of @seed must fill @segs in order; the rest of
 * each segment must still hold KV_CLEAR.
 */
static bool kv_verify(const char *what, const u8 *buf,
		      const struct kv_seg *segs, int n, u32 total, u32 seed)
{
	struct kv_pat p;
	u32 i, done = 0;
	int s;

	kv_pat_init(&p, seed);
	for (s = 0; s < n; s++) {
		for (i = 0; i < segs[s].len; i++, done++) {
			u8 want = done < total ? kv_pat_next(&p) : KV_CLEAR;
			u8 got = buf[segs[s].off + i];

			if (got != want) {
				pr_info("# %s: byte %u of segment %d (message byte %u): 0x%02x, want 0x%02x\n",
					what, i, s, done, got, want);
				return false;
			}
		}
	}
	if (done < total) {
		pr_info("# %s: %u bytes do not fit the segments\n", what, total);
		return false;
	}
	return true;
}

static void kv_sync_for_device(struct kv_side *s)
{
	ib_dma_sync_single_for_device(s->dev, s->tx_dma, KV_BUF_SIZE,
				      DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_device(s->dev, s->rx_dma, KV_BUF_SIZE,
				      DMA_BIDIRECTIONAL);
}

static void kv_sync_for_cpu(struct kv_side *s)
{
	ib_dma_sync_single_for_cpu(s->dev, s->tx_dma, KV_BUF_SIZE,
				   DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_cpu(s->dev, s->rx_dma, KV_BUF_SIZE,
				   DMA_BIDIRECTIONAL);
}

/* Clear both receive buffers before a transfer, under CPU ownership. */
static void kv_clear_rx(void)
{
	memset(kv_a.rx, KV_CLEAR, KV_BUF_SIZE);
	memset(kv_b.rx, KV_CLEAR, KV_BUF_SIZE);
}

/* Poll one completion of @cq for up to kv_poll_ms. */
static int kv_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(kv_poll_ms);
	int n;

	for (;;) {
		n = ib_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? n : 0;
		if (time_after(jiffies, deadline)) {
			kv_poll_ms = 500;
			return -ETIMEDOUT;
		}
		usleep_range(50, 200);
	}
}

/* The next completion of @cq must be of @wr_id with @status and @opcode. */
static bool kv_expect(struct ib_cq *cq, const char *what, u64 wr_id,
		      enum ib_wc_status status, enum ib_wc_opcode opcode,
		      struct ib_wc *wc)
{
	int ret;

	memset(wc, 0, sizeof(*wc));
	ret = kv_poll(cq, wc);
	if (ret) {
		pr_info("# %s: no completion (%d)\n", what, ret);
		return false;
	}
	if (wc->wr_id != wr_id || wc->status != status ||
	    (status == IB_WC_SUCCESS && wc->opcode != opcode)) {
		pr_info("# %s: wr_id %llu status %s opcode %d, want wr_id %llu status %s opcode %d\n",
			what, wc->wr_id, ib_wc_status_msg(wc->status),
			wc->opcode, wr_id, ib_wc_status_msg(status), opcode);
		return false;
	}
	return true;
}

/* No completion may be left on @cq. */
static bool kv_cq_empty(struct ib_cq *cq, const char *what)
{
	struct ib_wc wc;
	int n = ib_poll_cq(cq, 1, &wc);

	if (n)
		pr_info("# %s: unexpected completion (%d): wr_id %llu status %s\n",
			what, n, wc.wr_id, ib_wc_status_msg(wc.status));
	return n == 0;
}

static int kv_post_recv(struct kv_side *r, const struct kv_seg *segs, int n,
			u64 wr_id)
{
	struct ib_sge sge[KV_SGE];
	struct ib_recv_wr wr = {
		.wr_id = wr_id, .sg_list = sge, .num_sge = n,
	};
	const struct ib_recv_wr *bad;
	int i;

	for (i = 0; i < n; i++) {
		sge[i].addr = r->rx_dma + segs[i].off;
		sge[i].length = segs[i].len;
		sge[i].lkey = r->pd->local_dma_lkey;
	}
	return ib_post_recv(r->qp, &wr, &bad);
}

/* Fill @n SGEs of @s's send buffer; inline ones take virtual addresses. */
static void kv_tx_sges(struct kv_side *s, struct ib_sge *sge,
		       const struct kv_seg *segs, int n, bool inl)
{
	int i;

	for (i = 0; i < n; i++) {
		sge[i].addr = inl ? (u64)(uintptr_t)(s->tx + segs[i].off) :
				    s->tx_dma + segs[i].off;
		sge[i].length = segs[i].len;
		sge[i].lkey = s->pd->local_dma_lkey;
	}
}

static u32 kv_total(const struct kv_seg *segs, int n)
{
	u32 len = 0;
	int i;

	for (i = 0; i < n; i++)
		len += segs[i].len;
	return len;
}

/*
 * @s sends the @ntx segments of its send buffer to one receive of @r into
 * @nrx segments of its receive buffer; with @imm as SEND_WITH_IMM.
 */
static bool kv_send(struct kv_side *s, struct kv_side *r, const char *name,
		    const struct kv_seg *tx, int ntx, const struct kv_seg *rx,
		    int nrx, int flags, bool imm)
{
	u32 len = kv_total(tx, ntx), seed = ++kv_wr_id;
	u64 rid = ++kv_wr_id, sid = ++kv_wr_id;
	__be32 imm_data = cpu_to_be32(0xe1000000 | (u32)sid);
	struct ib_sge sge[KV_SGE];
	struct ib_send_wr wr = {
		.wr_id = sid, .sg_list = sge, .num_sge = ntx,
		.opcode = imm ? IB_WR_SEND_WITH_IMM : IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED | flags,
	};
	const struct ib_send_wr *bad;
	struct ib_wc swc, rwc;
	bool ok;
	int ret;

	if (imm)
		wr.ex.imm_data = imm_data;
	kv_fill(s->tx, tx, ntx, seed);
	kv_clear_rx();
	kv_sync_for_device(s);
	kv_sync_for_device(r);
	kv_tx_sges(s, sge, tx, ntx, flags & IB_SEND_INLINE);

	ret = kv_post_recv(r, rx, nrx, rid);
	if (ret) {
		pr_info("# %s: post_recv: %d\n", name, ret);
		return kv_check(false, "%s", name);
	}
	ret = ib_post_send(s->qp, &wr, &bad);
	if (ret) {
		pr_info("# %s: post_send: %d\n", name, ret);
		/* The receive stays posted: later checks may fail too. */
		return kv_check(false, "%s", name);
	}
	ok = kv_expect(s->scq, name, sid, IB_WC_SUCCESS, IB_WC_SEND, &swc);
	ok &= kv_expect(r->rcq, name, rid, IB_WC_SUCCESS, IB_WC_RECV, &rwc);
	if (ok && rwc.byte_len != len) {
		pr_info("# %s: byte_len %u, want %u\n", name, rwc.byte_len, len);
		ok = false;
	}
	if (ok && rwc.qp != r->qp) {
		pr_info("# %s: completion of another QP\n", name);
		ok = false;
	}
	if (ok && imm != !!(rwc.wc_flags & IB_WC_WITH_IMM)) {
		pr_info("# %s: wc_flags 0x%x\n", name, rwc.wc_flags);
		ok = false;
	}
	if (ok && imm && rwc.ex.imm_data != imm_data) {
		pr_info("# %s: imm_data 0x%08x, want 0x%08x\n", name,
			be32_to_cpu(rwc.ex.imm_data), be32_to_cpu(imm_data));
		ok = false;
	}
	kv_sync_for_cpu(s);
	kv_sync_for_cpu(r);
	if (ok)
		ok = kv_verify(name, r->rx, rx, nrx, len, seed);
	return kv_check(ok, "%s", name);
}

/*
 * @s writes @len bytes of its send buffer at @r's receive buffer + @off,
 * with immediate data when @imm (consuming a receive of @r).
 */
static bool kv_write(struct kv_side *s, struct kv_side *r, const char *name,
		     u32 len, u32 off, bool imm)
{
	struct kv_seg tx = { 0, len }, rx = { off, len };
	u32 seed = ++kv_wr_id;
	u64 rid = ++kv_wr_id, sid = ++kv_wr_id;
	__be32 imm_data = cpu_to_be32(0x3a000000 | (u32)sid);
	struct ib_sge sge;
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = sid, .sg_list = &sge, .num_sge = 1,
			.opcode = imm ? IB_WR_RDMA_WRITE_WITH_IMM :
					IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = r->rx_dma + off,
		.rkey = r->pd->unsafe_global_rkey,
	};
	const struct ib_send_wr *bad;
	struct ib_wc swc, rwc;
	bool ok;
	int ret;

	if (imm)
		wr.wr.ex.imm_data = imm_data;
	kv_fill(s->tx, &tx, 1, seed);
	kv_clear_rx();
	kv_sync_for_device(s);
	kv_sync_for_device(r);
	kv_tx_sges(s, &sge, &tx, 1, false);
	if (imm) {
		/* The receive's buffer stays untouched: no SGE. */
		ret = kv_post_recv(r, NULL, 0, rid);
		if (ret) {
			pr_info("# %s: post_recv: %d\n", name, ret);
			return kv_check(false, "%s", name);
		}
	}
	ret = ib_post_send(s->qp, &wr.wr, &bad);
	if (ret) {
		pr_info("# %s: post_send: %d\n", name, ret);
		return kv_check(false, "%s", name);
	}
	ok = kv_expect(s->scq, name, sid, IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
		       &swc);
	if (imm) {
		ok &= kv_expect(r->rcq, name, rid, IB_WC_SUCCESS,
				IB_WC_RECV_RDMA_WITH_IMM, &rwc);
		if (ok && (!(rwc.wc_flags & IB_WC_WITH_IMM) ||
			   rwc.ex.imm_data != imm_data)) {
			pr_info("# %s: wc_flags 0x%x imm_data 0x%08x, want 0x%08x\n",
				name, rwc.wc_flags,
				be32_to_cpu(rwc.ex.imm_data),
				be32_to_cpu(imm_data));
			ok = false;
		}
	} else {
		ok &= kv_cq_empty(r->rcq, name);
	}
	kv_sync_for_cpu(s);
	kv_sync_for_cpu(r);
	/* Only the bytes written changed: before, the data and after. */
	if (ok && off)
		ok = !memchr_inv(r->rx, KV_CLEAR, off);
	if (ok)
		ok = kv_verify(name, r->rx, &rx, 1, len, seed);
	if (ok && off + len < KV_BUF_SIZE)
		ok = !memchr_inv(r->rx + off + len, KV_CLEAR,
				 KV_BUF_SIZE - off - len);
	return kv_check(ok, "%s", name);
}

/* @s reads @len bytes of @r's send buffer + @off into its receive buffer. */
static bool kv_read(struct kv_side *s, struct kv_side *r, const char *name,
		    u32 len, u32 off)
{
	struct kv_seg src = { off, len }, dst = { 0, KV_BUF_SIZE };
	u32 seed = ++kv_wr_id;
	u64 sid = ++kv_wr_id;
	struct ib_sge sge = {
		.addr = s->rx_dma, .length = len, .lkey = s->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = sid, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_READ,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = r->tx_dma + off,
		.rkey = r->pd->unsafe_global_rkey,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	bool ok;
	int ret;

	kv_fill(r->tx, &src, 1, seed);
	kv_clear_rx();
	kv_sync_for_device(s);
	kv_sync_for_device(r);
	ret = ib_post_send(s->qp, &wr.wr, &bad);
	if (ret) {
		pr_info("# %s: post_send: %d\n", name, ret);
		return kv_check(false, "%s", name);
	}
	ok = kv_expect(s->scq, name, sid, IB_WC_SUCCESS, IB_WC_RDMA_READ, &wc);
	kv_sync_for_cpu(s);
	kv_sync_for_cpu(r);
	if (ok)
		ok = kv_verify(name, s->rx, &dst, 1, len, seed);
	return kv_check(ok, "%s", name);
}

/* Two SENDs in one post, the first unsignaled: one send completion. */
static bool kv_unsignaled(struct kv_side *s, struct kv_side *r)
{
	const char *name = "unsignaled SEND then signaled SEND: one send completion, two receives";
	struct kv_seg tx[2] = { { 0, 64 }, { 4096, 128 } };
	struct kv_seg rx[2] = { { 0, 4096 }, { 8192, 4096 } };
	u32 seed = kv_wr_id + 1;
	u64 rid = kv_wr_id + 1, sid = kv_wr_id + 3;
	struct ib_sge sge[2];
	struct ib_send_wr wr[2] = {
		{ .wr_id = sid, .sg_list = &sge[0], .num_sge = 1,
		  .opcode = IB_WR_SEND, .next = &wr[1] },
		{ .wr_id = sid + 1, .sg_list = &sge[1], .num_sge = 1,
		  .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED },
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	bool ok;
	int ret;

	kv_wr_id += 4;
	kv_fill(s->tx, tx, 2, seed);
	kv_clear_rx();
	kv_sync_for_device(s);
	kv_sync_for_device(r);
	kv_tx_sges(s, sge, tx, 2, false);
	ret = kv_post_recv(r, &rx[0], 1, rid);
	if (!ret)
		ret = kv_post_recv(r, &rx[1], 1, rid + 1);
	if (!ret)
		ret = ib_post_send(s->qp, wr, &bad);
	if (ret) {
		pr_info("# %s: post: %d\n", name, ret);
		return kv_check(false, "%s", name);
	}
	ok = kv_expect(s->scq, name, sid + 1, IB_WC_SUCCESS, IB_WC_SEND, &wc);
	ok &= kv_expect(r->rcq, name, rid, IB_WC_SUCCESS, IB_WC_RECV, &wc) &&
	      wc.byte_len == tx[0].len;
	ok &= kv_expect(r->rcq, name, rid + 1, IB_WC_SUCCESS, IB_WC_RECV,
			&wc) && wc.byte_len == tx[1].len;
	/* The unsignaled one completed before the signaled one: nothing left. */
	ok &= kv_cq_empty(s->scq, name);
	kv_sync_for_cpu(s);
	kv_sync_for_cpu(r);
	if (ok) {
		/* The stream of @seed continues from the first into the second. */
		struct kv_pat p;
		u32 i;

		kv_pat_init(&p, seed);
		for (i = 0; i < tx[0].len && ok; i++)
			ok = r->rx[rx[0].off + i] == kv_pat_next(&p);
		for (i = 0; i < tx[1].len && ok; i++)
			ok = r->rx[rx[1].off + i] == kv_pat_next(&p);
		if (!ok)
			pr_info("# %s: data differs\n", name);
	}
	return kv_check(ok, "%s", name);
}

static void kv_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct kv_side *s = ctx;

	complete(&s->rcq_event);
}

static void kv_cq_event(struct ib_event *ev, void *ctx)
{
	struct kv_side *s = ctx;

	pr_info("# %s: CQ event %s\n", s->name, ib_event_msg(ev->event));
}

static void kv_qp_event(struct ib_event *ev, void *ctx)
{
	struct kv_side *s = ctx;

	pr_info("# %s: QP event %s\n", s->name, ib_event_msg(ev->event));
}

/* Arm @r's receive CQ; a SEND from @s must call its completion handler. */
static void kv_notify(struct kv_side *s, struct kv_side *r)
{
	struct kv_seg seg = { 0, 256 };
	u64 rid = ++kv_wr_id, sid = ++kv_wr_id;
	struct ib_sge sge;
	struct ib_send_wr wr = {
		.wr_id = sid, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	unsigned long left;
	bool ok;
	int ret;

	kv_fill(s->tx, &seg, 1, sid);
	kv_sync_for_device(s);
	reinit_completion(&r->rcq_event);
	ret = ib_req_notify_cq(r->rcq, IB_CQ_NEXT_COMP |
				       IB_CQ_REPORT_MISSED_EVENTS);
	if (!kv_check(ret == 0,
		      "ib_req_notify_cq(NEXT_COMP | REPORT_MISSED_EVENTS) on an empty CQ: 0 (%d)",
		      ret))
		return;
	kv_tx_sges(s, &sge, &seg, 1, false);
	ret = kv_post_recv(r, &seg, 1, rid);
	if (!ret)
		ret = ib_post_send(s->qp, &wr, &bad);
	if (ret) {
		pr_info("# notify: post: %d\n", ret);
		kv_check(false, "completion handler called");
		return;
	}
	left = wait_for_completion_timeout(&r->rcq_event,
					   msecs_to_jiffies(KV_TIMEOUT_MS));
	kv_check(left, "completion handler called (%u ms)",
		 jiffies_to_msecs(msecs_to_jiffies(KV_TIMEOUT_MS) - left));
	ok = kv_expect(r->rcq, "notify", rid, IB_WC_SUCCESS, IB_WC_RECV, &wc);
	ok &= kv_expect(s->scq, "notify", sid, IB_WC_SUCCESS, IB_WC_SEND, &wc);
	kv_check(ok, "... and the SEND completed on both sides");
}

/* A wrong rkey: the requester completes with a remote access error. */
static void kv_bad_rkey(struct kv_side *s, struct kv_side *r)
{
	u64 sid = ++kv_wr_id;
	struct ib_sge sge = {
		.addr = s->tx_dma, .length = 64, .lkey = s->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = sid, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = r->rx_dma,
		/* Same MR index, another variant: a stale key. */
		.rkey = r->pd->unsafe_global_rkey ^ 0xff,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	bool ok;
	int ret;

	kv_clear_rx();
	kv_sync_for_device(s);
	kv_sync_for_device(r);
	ret = ib_post_send(s->qp, &wr.wr, &bad);
	ok = !ret && kv_expect(s->scq, "bad rkey", sid, IB_WC_REM_ACCESS_ERR,
			       IB_WC_RDMA_WRITE, &wc);
	kv_sync_for_cpu(r);
	if (ok && memchr_inv(r->rx, KV_CLEAR, KV_BUF_SIZE)) {
		pr_info("# bad rkey: the target buffer changed\n");
		ok = false;
	}
	kv_check(ok,
		 "RDMA WRITE with a wrong rkey: IB_WC_REM_ACCESS_ERR, target untouched (post %d)",
		 ret);
}

static int kv_map(struct kv_side *s, u8 **buf, u64 *dma)
{
	*buf = kmalloc(KV_BUF_SIZE, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	*dma = ib_dma_map_single(s->dev, *buf, KV_BUF_SIZE, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(s->dev, *dma)) {
		kfree(*buf);
		*buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void kv_unmap(struct kv_side *s, u8 **buf, u64 dma)
{
	if (!*buf)
		return;
	ib_dma_unmap_single(s->dev, dma, KV_BUF_SIZE, DMA_BIDIRECTIONAL);
	kfree(*buf);
	*buf = NULL;
}

/* Device, GID, PD, CQs, buffers and a QP of one side. */
static bool kv_setup(struct kv_side *s)
{
	struct ib_cq_init_attr cq_attr = { .cqe = KV_CQE };
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.event_handler = kv_qp_event,
		.qp_context = s,
		.cap = {
			.max_send_wr = KV_WR, .max_recv_wr = KV_WR,
			.max_send_sge = KV_SGE, .max_recv_sge = KV_SGE,
			.max_inline_data = KV_INLINE,
		},
	};
	const struct ib_gid_attr *gid_attr;
	struct ib_port_attr port;
	int ret;

	init_completion(&s->rcq_event);
	s->dev = ib_device_get_by_name(s->name, RDMA_DRIVER_UNKNOWN);
	if (!kv_check(s->dev, "%s: ib_device_get_by_name", s->name)) {
		s->dev = NULL;
		return false;
	}
	ret = ib_query_port(s->dev, 1, &port);
	if (!kv_check(!ret && port.state == IB_PORT_ACTIVE &&
		      rdma_protocol_roce_udp_encap(s->dev, 1),
		      "%s: port 1 is an active RoCE v2 port (ret %d, state %d, active_mtu %d)",
		      s->name, ret, port.state,
		      ib_mtu_enum_to_int(port.active_mtu)))
		return false;

	ipv6_addr_set_v4mapped(in_aton(s->ip), (struct in6_addr *)s->gid.raw);
	gid_attr = rdma_find_gid(s->dev, &s->gid, IB_GID_TYPE_ROCE_UDP_ENCAP,
				 NULL);
	if (!kv_check(!IS_ERR(gid_attr), "%s: RoCE v2 GID of %s (%pI6) at index %d",
		      s->name, s->ip, s->gid.raw,
		      IS_ERR(gid_attr) ? (int)PTR_ERR(gid_attr) :
					 (int)gid_attr->index))
		return false;
	s->sgid_index = gid_attr->index;
	rdma_put_gid_attr(gid_attr);

	s->pd = ib_alloc_pd(s->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (!kv_check(!IS_ERR(s->pd), "%s: ib_alloc_pd(IB_PD_UNSAFE_GLOBAL_RKEY) (%d)",
		      s->name, PTR_ERR_OR_ZERO(s->pd))) {
		s->pd = NULL;
		return false;
	}
	pr_info("# %s: local_dma_lkey 0x%x unsafe_global_rkey 0x%x\n", s->name,
		s->pd->local_dma_lkey, s->pd->unsafe_global_rkey);

	s->scq = ib_alloc_cq(s->dev, s, KV_CQE, 0, IB_POLL_DIRECT);
	if (!kv_check(!IS_ERR(s->scq), "%s: ib_alloc_cq(IB_POLL_DIRECT) (%d)",
		      s->name, PTR_ERR_OR_ZERO(s->scq))) {
		s->scq = NULL;
		return false;
	}
	s->rcq = ib_create_cq(s->dev, kv_comp_handler, kv_cq_event, s,
			      &cq_attr);
	if (!kv_check(!IS_ERR(s->rcq), "%s: ib_create_cq with a completion handler (%d)",
		      s->name, PTR_ERR_OR_ZERO(s->rcq))) {
		s->rcq = NULL;
		return false;
	}

	ret = kv_map(s, &s->tx, &s->tx_dma);
	if (!ret)
		ret = kv_map(s, &s->rx, &s->rx_dma);
	if (!kv_check(!ret, "%s: two %u-byte buffers, kmalloc and ib_dma_map_single (%d)",
		      s->name, KV_BUF_SIZE, ret))
		return false;

	init.send_cq = s->scq;
	init.recv_cq = s->rcq;
	s->qp = ib_create_qp(s->pd, &init);
	if (!kv_check(!IS_ERR(s->qp), "%s: ib_create_qp RC (%d)", s->name,
		      PTR_ERR_OR_ZERO(s->qp))) {
		s->qp = NULL;
		return false;
	}
	s->max_inline = init.cap.max_inline_data;
	pr_info("# %s: QP %u: %u/%u WRs, %u/%u SGEs, %u bytes inline\n",
		s->name, s->qp->qp_num, init.cap.max_send_wr,
		init.cap.max_recv_wr, init.cap.max_send_sge,
		init.cap.max_recv_sge, init.cap.max_inline_data);
	return kv_check(init.cap.max_send_sge >= KV_SGE &&
			init.cap.max_recv_sge >= KV_SGE &&
			init.cap.max_inline_data >= KV_INLINE,
			"%s: the QP got the capabilities it asked for", s->name);
}

/* INIT, RTR and RTS for @s's QP, towards @peer's. */
static bool kv_connect(struct kv_side *s, struct kv_side *peer)
{
	struct ib_qp_attr attr = {};
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |
			       IB_ACCESS_LOCAL_WRITE;
	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (!kv_check(!ret, "%s: QP to INIT (%d)", s->name, ret))
		return false;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = peer->qp->qp_num;
	attr.rq_psn = peer->psn;
	attr.max_dest_rd_atomic = min_t(int, s->dev->attrs.max_qp_rd_atom, 4);
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = rdma_ah_find_type(s->dev, 1);
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &peer->gid, 0, s->sgid_index, 64, 0);
	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (!kv_check(!ret, "%s: QP to RTR towards %s QP %u (%d)", s->name,
		      peer->ip, peer->qp->qp_num, ret))
		return false;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = s->psn;
	attr.max_rd_atomic = min_t(int, s->dev->attrs.max_qp_init_rd_atom, 4);
	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			   IB_QP_MAX_QP_RD_ATOMIC);
	return kv_check(!ret, "%s: QP to RTS (%d)", s->name, ret);
}

static void kv_teardown(struct kv_side *s)
{
	int ret;

	if (s->qp) {
		ret = ib_destroy_qp(s->qp);
		kv_check(!ret, "%s: ib_destroy_qp (%d)", s->name, ret);
		s->qp = NULL;
	}
	if (s->rcq)
		ib_destroy_cq(s->rcq);
	if (s->scq)
		ib_free_cq(s->scq);
	s->rcq = NULL;
	s->scq = NULL;
	if (s->dev) {
		kv_unmap(s, &s->rx, s->rx_dma);
		kv_unmap(s, &s->tx, s->tx_dma);
	}
	if (s->pd)
		ib_dealloc_pd(s->pd);
	s->pd = NULL;
	if (s->dev)
		ib_device_put(s->dev);
	s->dev = NULL;
}

static void kv_srq(struct kv_side *a, struct kv_side *b);

static void kv_traffic(struct kv_side *a, struct kv_side *b)
{
	static const u32 sizes[] = { 0, 64, 4096, 100000 };
	const struct kv_seg rx_all = { 0, KV_BUF_SIZE };
	/* Gather from three places, scatter to three others. */
	const struct kv_seg tx3[] = { { 100, 1000 }, { 8192, 3000 },
				      { 20000, 5000 } };
	const struct kv_seg rx3[] = { { 0, 4000 }, { 32768, 2500 },
				      { 65536, 5000 } };
	struct kv_seg tx;
	char name[96];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		tx = (struct kv_seg){ 0, sizes[i] };
		snprintf(name, sizeof(name), "SEND %u bytes %s -> %s", sizes[i],
			 a->name, b->name);
		kv_send(a, b, name, &tx, sizes[i] ? 1 : 0, &rx_all, 1, 0,
			false);
	}
	tx = (struct kv_seg){ 0, 4096 };
	snprintf(name, sizeof(name), "SEND 4096 bytes %s -> %s", b->name,
		 a->name);
	kv_send(b, a, name, &tx, 1, &rx_all, 1, 0, false);
	kv_send(a, b, "SEND 9000 bytes, 3 SGEs gathered, 3 SGEs scattered",
		tx3, ARRAY_SIZE(tx3), rx3, ARRAY_SIZE(rx3), 0, false);
	tx = (struct kv_seg){ 0, 3000 };
	kv_send(a, b, "SEND_WITH_IMM 3000 bytes: IB_WC_WITH_IMM, imm_data",
		&tx, 1, &rx_all, 1, 0, true);
	tx = (struct kv_seg){ 0, a->max_inline };
	snprintf(name, sizeof(name), "SEND IB_SEND_INLINE %u bytes",
		 a->max_inline);
	kv_send(a, b, name, &tx, 1, &rx_all, 1, IB_SEND_INLINE, false);

	kv_write(a, b, "RDMA WRITE 100000 bytes at offset 0", 100000, 0,
		 false);
	kv_write(a, b, "RDMA WRITE 5000 bytes at offset 777", 5000, 777,
		 false);
	kv_write(a, b, "RDMA WRITE 1 byte at offset 4095", 1, 4095, false);
	kv_write(a, b, "RDMA WRITE_WITH_IMM 8192 bytes: imm_data, no data in the receive",
		 8192, 1024, true);
	kv_read(a, b, "RDMA READ 100000 bytes", 100000, 0);
	kv_read(a, b, "RDMA READ 3333 bytes at offset 12345", 3333, 12345);
	kv_read(b, a, "RDMA READ 65536 bytes, the other way", 65536, 0);
	kv_unsignaled(a, b);
	kv_notify(a, b);
	kv_check(kv_cq_empty(a->scq, "end") && kv_cq_empty(a->rcq, "end") &&
		 kv_cq_empty(b->scq, "end") && kv_cq_empty(b->rcq, "end"),
		 "no stray completions");
	kv_srq(a, b);
	/* Last: it moves the QPs to the error state. */
	kv_bad_rkey(a, b);
}

static struct completion kv_srq_limit;
static atomic_t kv_srq_limits;

static void kv_srq_event(struct ib_event *ev, void *ctx)
{
	pr_info("# SRQ event %s\n", ib_event_msg(ev->event));
	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED) {
		atomic_inc(&kv_srq_limits);
		complete(&kv_srq_limit);
	}
}

#define KV_SRQ_POSTED	8
#define KV_SRQ_LIMIT	4

/*
 * One SEND of @sa's QP to @sb's, which receives it through @srq into @cq:
 * one of the SRQ's wr_ids (500 + i), none twice (@seen).
 */
static bool kv_srq_send(struct kv_side *a, struct kv_side *sa,
			struct kv_side *sb, struct ib_cq *cq, int i,
			unsigned long *seen)
{
	struct ib_sge sge = { .addr = a->tx_dma, .length = 100,
			      .lkey = a->pd->local_dma_lkey };
	struct ib_send_wr wr = { .wr_id = 900 + i, .sg_list = &sge,
				 .num_sge = 1, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	const struct ib_send_wr *bad;
	struct ib_wc wc;

	if (ib_post_send(sa->qp, &wr, &bad) ||
	    !kv_expect(a->scq, "SRQ: SEND", 900 + i, IB_WC_SUCCESS,
		       IB_WC_SEND, &wc))
		return false;
	memset(&wc, 0, sizeof(wc));
	if (kv_poll(cq, &wc) || wc.status != IB_WC_SUCCESS ||
	    wc.qp != sb->qp || wc.byte_len != 100 || wc.wr_id < 500 ||
	    wc.wr_id >= 500 + KV_SRQ_POSTED || (*seen & BIT(wc.wr_id - 500))) {
		pr_info("# SRQ: receive %d: wr_id %llu status %s\n", i,
			wc.wr_id, ib_wc_status_msg(wc.status));
		return false;
	}
	*seen |= BIT(wc.wr_id - 500);
	return true;
}

/*
 * A kernel SRQ on @b: a QP of @a sends to a QP of @b that receives from
 * it.  8 receives posted, the limit armed at 4: after four SENDs 4 WQEs
 * are left, not below the limit, and no event comes; the fifth leaves 3
 * and raises exactly one IB_EVENT_SRQ_LIMIT_REACHED, the sixth none (one
 * event per arm).  Every receive completes with an SRQ wr_id, each once;
 * ib_destroy_srq is refused while the QP exists.
 */
static void kv_srq(struct kv_side *a, struct kv_side *b)
{
	struct ib_srq_init_attr sattr = {
		.event_handler = kv_srq_event,
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.event_handler = kv_qp_event,
		.cap = { .max_send_wr = KV_WR, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct kv_side sa = *a, sb = *b;
	struct ib_srq_attr lattr = { .srq_limit = KV_SRQ_LIMIT };
	struct ib_cq *cq = NULL;
	struct ib_srq *srq;
	unsigned long seen = 0;
	bool ok = true;
	int i, ret;

	init_completion(&kv_srq_limit);
	atomic_set(&kv_srq_limits, 0);
	srq = ib_create_srq(b->pd, &sattr);
	if (!kv_check(!IS_ERR(srq), "%s: ib_create_srq (%d)", b->name,
		      PTR_ERR_OR_ZERO(srq)))
		return;
	cq = ib_alloc_cq(b->dev, NULL, KV_CQE, 0, IB_POLL_DIRECT);
	if (!kv_check(!IS_ERR(cq), "%s: ib_alloc_cq for the SRQ's QP (%d)",
		      b->name, PTR_ERR_OR_ZERO(cq))) {
		cq = NULL;
		goto out;
	}
	init.send_cq = a->scq;
	init.recv_cq = a->rcq;
	init.qp_context = &sa;
	sa.qp = ib_create_qp(a->pd, &init);
	init.send_cq = b->scq;
	init.recv_cq = cq;
	init.srq = srq;
	init.qp_context = &sb;
	init.cap.max_recv_wr = 0;
	init.cap.max_recv_sge = 0;
	sb.qp = ib_create_qp(b->pd, &init);
	if (!kv_check(!IS_ERR(sa.qp) && !IS_ERR(sb.qp),
		      "%s: ib_create_qp on the SRQ", b->name)) {
		sa.qp = IS_ERR(sa.qp) ? NULL : sa.qp;
		sb.qp = IS_ERR(sb.qp) ? NULL : sb.qp;
		goto out;
	}
	sa.psn = 0x777;
	sb.psn = 0x999;
	if (!kv_connect(&sa, &sb) || !kv_connect(&sb, &sa))
		goto out;
	for (i = 0; i < KV_SRQ_POSTED; i++) {
		struct ib_sge sge = {
			.addr = b->rx_dma + i * 1024, .length = 1024,
			.lkey = b->pd->local_dma_lkey,
		};
		struct ib_recv_wr wr = { .wr_id = 500 + i, .sg_list = &sge,
					 .num_sge = 1 };
		const struct ib_recv_wr *bad;

		ok &= !ib_post_srq_recv(srq, &wr, &bad);
	}
	ret = ib_modify_srq(srq, &lattr, IB_SRQ_LIMIT);
	if (!kv_check(ok && !ret,
		      "%s: %d receives on the SRQ, limit armed at %d (%d)",
		      b->name, KV_SRQ_POSTED, KV_SRQ_LIMIT, ret))
		goto out;
	for (i = 0; ok && i < KV_SRQ_POSTED - KV_SRQ_LIMIT; i++)
		ok = kv_srq_send(a, &sa, &sb, cq, i, &seen);
	if (!kv_check(ok, "%s: %d SENDs received through the SRQ, each wr_id once",
		      b->name, KV_SRQ_POSTED - KV_SRQ_LIMIT))
		goto out;
	/* Exactly the limit left: not below it. */
	msleep(200);
	kv_check(atomic_read(&kv_srq_limits) == 0,
		 "%s: %d WQEs left, as many as the limit: no event within 200 ms (%d)",
		 b->name, KV_SRQ_LIMIT, atomic_read(&kv_srq_limits));
	ok = kv_srq_send(a, &sa, &sb, cq, i++, &seen);
	if (!kv_check(ok, "%s: one more SEND received through the SRQ",
		      b->name))
		goto out;
	wait_for_completion_timeout(&kv_srq_limit, msecs_to_jiffies(5000));
	kv_check(atomic_read(&kv_srq_limits) == 1,
		 "%s: %d left, below the limit: one IB_EVENT_SRQ_LIMIT_REACHED (%d)",
		 b->name, KV_SRQ_LIMIT - 1, atomic_read(&kv_srq_limits));
	/* One event per arm: the limit disarmed as it fired. */
	ok = kv_srq_send(a, &sa, &sb, cq, i++, &seen);
	msleep(200);
	kv_check(ok && atomic_read(&kv_srq_limits) == 1,
		 "%s: %d left: no second event (%d)", b->name,
		 KV_SRQ_LIMIT - 2, atomic_read(&kv_srq_limits));
	ret = ib_query_srq(srq, &lattr);
	kv_check(!ret && lattr.srq_limit == 0 && lattr.max_wr >= 16,
		 "%s: ib_query_srq: limit disarmed, max_wr %u (%d)", b->name,
		 lattr.max_wr, ret);
	ret = ib_destroy_srq_user(srq, NULL);
	kv_check(ret == -EBUSY, "%s: ib_destroy_srq with a QP attached: -EBUSY (%d)",
		 b->name, ret);
out:
	if (sb.qp)
		kv_check(!ib_destroy_qp(sb.qp), "%s: destroy the SRQ's QP",
			 b->name);
	if (sa.qp)
		ib_destroy_qp(sa.qp);
	if (cq)
		ib_free_cq(cq);
	ret = ib_destroy_srq_user(srq, NULL);
	kv_check(!ret, "%s: ib_destroy_srq with WQEs still posted (%d)",
		 b->name, ret);
}

static int __init kv_init(void)
{
	unsigned long t0 = jiffies;

	pr_info("# %s (%s) <-> %s (%s), RC over RoCE v2\n", kv_a.name,
		kv_a.ip, kv_b.name, kv_b.ip);
	if (kv_setup(&kv_a) && kv_setup(&kv_b) &&
	    kv_connect(&kv_a, &kv_b) && kv_connect(&kv_b, &kv_a))
		kv_traffic(&kv_a, &kv_b);
	kv_teardown(&kv_a);
	kv_teardown(&kv_b);
	pr_info("# %u passed, %u failed (%u ms)\n", kv_pass, kv_fail,
		jiffies_to_msecs(jiffies - t0));
	if (!kv_pass && !kv_fail)
		return -ENODEV;
	return kv_fail ? -EIO : 0;
}

static void __exit kv_exit(void)
{
}

module_init(kv_init);
module_exit(kv_exit);

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Kernel verbs test between ERI devices eri0 and eri1");
