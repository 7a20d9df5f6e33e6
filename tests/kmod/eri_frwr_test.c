// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_frwr_test: fast-registration memory regions between two ERI devices,
 * run by module init.
 *
 * Fixed topology, set up by tests/vm/frwr.sh: device eri0 on a netdev with
 * 198.18.0.1 (the requester), device eri1 on its peer with 198.18.0.2 (the
 * responder), an RC QP on each, connected through their RoCE v2 GIDs.  The
 * responder allocates an MR with ib_alloc_mr(), maps a scatterlist of
 * separately allocated pages into it with ib_map_mr_sg() and registers it
 * with an IB_WR_REG_MR work request; the requester RDMA WRITEs and READs
 * through its rkey (every byte checked), and runs FETCH_ADD and CMP_SWP on
 * a word of it (kernel atomics, the rights of a REG_MR).  Then: LOCAL_INV, a new key with
 * ib_update_fast_reg_key(), a mapping that starts inside the first page, a
 * new registration and more traffic; SEND_WITH_INV from the requester,
 * which the responder sees as IB_WC_WITH_INVALIDATE with the key; and last
 * a WRITE through the invalidated key, which fails with
 * IB_WC_REM_ACCESS_ERR and leaves the pages untouched.
 *
 * Each check prints "ok - ..." or "not ok - ..."; init returns 0 only when
 * all passed, so insmod fails otherwise.  Everything is freed before init
 * returns; exit has nothing to do.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#define FT_PAGES	4
#define FT_MR_PAGES	8
#define FT_BUF_SIZE	(FT_PAGES * PAGE_SIZE)
#define FT_CQE		32
#define FT_WR		16
#define FT_TIMEOUT_MS	10000
#define FT_CLEAR	0xa5
#define FT_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ | \
			 IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)

struct ft_side {
	const char *name;
	const char *ip;
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;		/* send and receive, IB_POLL_DIRECT */
	struct ib_qp *qp;
	u32 sgid_index;
	union ib_gid gid;
	u32 psn;
	u8 *buf;			/* FT_BUF_SIZE, local_dma_lkey */
	u64 buf_dma;
};

static struct ft_side ft_a = {
	.name = "eri0", .ip = "198.18.0.1", .psn = 0x4321,
};

static struct ft_side ft_b = {
	.name = "eri1", .ip = "198.18.0.2", .psn = 0x9876,
};

/* The responder's region: FT_PAGES pages, not contiguous, one MR. */
static struct page *ft_pages[FT_PAGES];
static struct scatterlist ft_sgl[FT_PAGES];
static int ft_nents;
static struct ib_mr *ft_mr;
/* Offset into the first page where the current mapping starts. */
static unsigned int ft_sg_off;

static unsigned int ft_pass, ft_fail;
static u64 ft_wr_id;
static unsigned int ft_poll_ms = FT_TIMEOUT_MS;

static __printf(2, 3) bool ft_check(bool ok, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("%s - %pV\n", ok ? "ok" : "not ok", &vaf);
	va_end(args);
	if (ok)
		ft_pass++;
	else
		ft_fail++;
	return ok;
}

/* Byte @i of the pattern of @seed. */
static u8 ft_pat(u32 seed, u32 i)
{
	u32 x = (seed * 2654435761U) ^ (i * 40503U);

	return (x >> 13) ^ (x >> 5) ^ i;
}

/* Byte @i of the MR's current mapping, in the responder's pages. */
static u8 *ft_mr_byte(u32 i)
{
	u32 pos = ft_sg_off + i;

	return page_address(ft_pages[pos / PAGE_SIZE]) + pos % PAGE_SIZE;
}

static void ft_pages_fill(u8 val)
{
	int i;

	for (i = 0; i < FT_PAGES; i++)
		memset(page_address(ft_pages[i]), val, PAGE_SIZE);
}

static void ft_pages_for_device(void)
{
	struct scatterlist *sg;
	int i;

	for_each_sg(ft_sgl, sg, ft_nents, i)
		ib_dma_sync_single_for_device(ft_b.dev, sg_dma_address(sg),
					      sg_dma_len(sg),
					      DMA_BIDIRECTIONAL);
}

static void ft_pages_for_cpu(void)
{
	struct scatterlist *sg;
	int i;

	for_each_sg(ft_sgl, sg, ft_nents, i)
		ib_dma_sync_single_for_cpu(ft_b.dev, sg_dma_address(sg),
					   sg_dma_len(sg), DMA_BIDIRECTIONAL);
}

static void ft_buf_for_device(struct ft_side *s)
{
	ib_dma_sync_single_for_device(s->dev, s->buf_dma, FT_BUF_SIZE,
				      DMA_BIDIRECTIONAL);
}

static void ft_buf_for_cpu(struct ft_side *s)
{
	ib_dma_sync_single_for_cpu(s->dev, s->buf_dma, FT_BUF_SIZE,
				   DMA_BIDIRECTIONAL);
}

static int ft_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ft_poll_ms);
	int n;

	for (;;) {
		n = ib_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? n : 0;
		if (time_after(jiffies, deadline)) {
			/* Bound the run once things go wrong. */
			ft_poll_ms = 500;
			return -ETIMEDOUT;
		}
		usleep_range(50, 200);
	}
}

/* The next completion of @cq must be of @wr_id with @status and @opcode. */
static bool ft_expect(struct ib_cq *cq, const char *what, u64 wr_id,
		      enum ib_wc_status status, enum ib_wc_opcode opcode,
		      struct ib_wc *wc)
{
	int ret;

	memset(wc, 0, sizeof(*wc));
	ret = ft_poll(cq, wc);
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

/* Map the pages into the MR from @sg_off into the first page on. */
static bool ft_map(unsigned int sg_off)
{
	unsigned int off = sg_off;
	int n;

	n = ib_map_mr_sg(ft_mr, ft_sgl, ft_nents, sg_off ? &off : NULL,
			 PAGE_SIZE);
	ft_sg_off = sg_off;
	return ft_check(n == ft_nents &&
			ft_mr->length == FT_BUF_SIZE - sg_off &&
			ft_mr->iova == sg_dma_address(ft_sgl) + sg_off,
			"ib_map_mr_sg from offset %u: %d of %d entries, iova 0x%llx length %llu",
			sg_off, n, ft_nents, ft_mr->iova, ft_mr->length);
}

/* The responder registers the MR under its current key. */
static bool ft_reg(const char *what)
{
	u64 id = ++ft_wr_id;
	struct ib_reg_wr wr = {
		.wr = {
			.wr_id = id, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = ft_mr,
		.key = ft_mr->rkey,
		.access = FT_ACCESS,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	int ret;

	ret = ib_post_send(ft_b.qp, &wr.wr, &bad);
	return ft_check(!ret && ft_expect(ft_b.cq, what, id, IB_WC_SUCCESS,
					  IB_WC_REG_MR, &wc),
			"%s: IB_WR_REG_MR key 0x%x completes as IB_WC_REG_MR (post %d)",
			what, ft_mr->rkey, ret);
}

/* The responder invalidates @key itself. */
static bool ft_local_inv(u32 key)
{
	u64 id = ++ft_wr_id;
	struct ib_send_wr wr = {
		.wr_id = id, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = key,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	int ret;

	ret = ib_post_send(ft_b.qp, &wr, &bad);
	return ft_check(!ret && ft_expect(ft_b.cq, "LOCAL_INV", id,
					  IB_WC_SUCCESS, IB_WC_LOCAL_INV,
					  &wc),
			"IB_WR_LOCAL_INV key 0x%x completes as IB_WC_LOCAL_INV (post %d)",
			key, ret);
}

/* One RDMA WRITE or READ of the requester's buffer through the MR. */
static int ft_rdma(enum ib_wr_opcode op, u32 len, u32 off, u32 rkey,
		   enum ib_wc_status status, const char *what)
{
	u64 id = ++ft_wr_id;
	struct ib_sge sge = {
		.addr = ft_a.buf_dma, .length = len,
		.lkey = ft_a.pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = id, .sg_list = &sge, .num_sge = 1,
			.opcode = op, .send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = ft_mr->iova + off,
		.rkey = rkey,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	int ret;

	ret = ib_post_send(ft_a.qp, &wr.wr, &bad);
	if (ret) {
		pr_info("# %s: post_send: %d\n", what, ret);
		return ret;
	}
	if (!ft_expect(ft_a.cq, what, id, status,
		       op == IB_WR_RDMA_READ ? IB_WC_RDMA_READ :
					       IB_WC_RDMA_WRITE, &wc))
		return -EIO;
	return 0;
}

/* WRITE @len bytes at MR offset @off; check them and what is around. */
static void ft_write(u32 len, u32 off)
{
	u32 seed = ++ft_wr_id, i, bad = U32_MAX;
	u32 mr_len = ft_mr->length;
	int ret;

	for (i = 0; i < len; i++)
		ft_a.buf[i] = ft_pat(seed, i);
	ft_buf_for_device(&ft_a);
	ft_pages_fill(FT_CLEAR);
	ft_pages_for_device();
	ret = ft_rdma(IB_WR_RDMA_WRITE, len, off, ft_mr->rkey, IB_WC_SUCCESS,
		      "WRITE");
	ft_pages_for_cpu();
	for (i = 0; !ret && i < mr_len && bad == U32_MAX; i++) {
		u8 want = i >= off && i < off + len ? ft_pat(seed, i - off) :
						      FT_CLEAR;

		if (*ft_mr_byte(i) != want)
			bad = i;
	}
	if (bad != U32_MAX)
		pr_info("# WRITE: MR byte %u is 0x%02x\n", bad,
			*ft_mr_byte(bad));
	ft_check(!ret && bad == U32_MAX,
		 "RDMA WRITE %u bytes at MR offset %u through rkey 0x%x: the pages hold them (%d)",
		 len, off, ft_mr->rkey, ret);
}

/* READ @len bytes at MR offset @off into the requester's buffer. */
static void ft_read(u32 len, u32 off)
{
	u32 seed = ++ft_wr_id, i, bad = U32_MAX;
	int ret;

	for (i = 0; i < ft_mr->length; i++)
		*ft_mr_byte(i) = ft_pat(seed, i);
	ft_pages_for_device();
	memset(ft_a.buf, FT_CLEAR, FT_BUF_SIZE);
	ft_buf_for_device(&ft_a);
	ret = ft_rdma(IB_WR_RDMA_READ, len, off, ft_mr->rkey, IB_WC_SUCCESS,
		      "READ");
	ft_buf_for_cpu(&ft_a);
	for (i = 0; !ret && i < FT_BUF_SIZE && bad == U32_MAX; i++) {
		u8 want = i < len ? ft_pat(seed, off + i) : FT_CLEAR;

		if (ft_a.buf[i] != want)
			bad = i;
	}
	if (bad != U32_MAX)
		pr_info("# READ: byte %u is 0x%02x\n", bad, ft_a.buf[bad]);
	ft_check(!ret && bad == U32_MAX,
		 "RDMA READ %u bytes at MR offset %u through rkey 0x%x: data match (%d)",
		 len, off, ft_mr->rkey, ret);
}

/*
 * One atomic of the requester on the 8-byte word at MR offset @off (in one
 * page): the original value lands in the requester's buffer.
 */
static void ft_atomic(enum ib_wr_opcode op, u32 off, u64 old, u64 cmp_add,
		      u64 swap, u64 want)
{
	bool cas = op == IB_WR_ATOMIC_CMP_AND_SWP;
	u64 id = ++ft_wr_id, got, now;
	struct ib_sge sge = {
		.addr = ft_a.buf_dma, .length = sizeof(u64),
		.lkey = ft_a.pd->local_dma_lkey,
	};
	struct ib_atomic_wr wr = {
		.wr = {
			.wr_id = id, .sg_list = &sge, .num_sge = 1,
			.opcode = op, .send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = ft_mr->iova + off,
		.rkey = ft_mr->rkey,
		.compare_add = cmp_add,
		.swap = swap,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	bool ok;
	int ret;

	memcpy(ft_mr_byte(off), &old, sizeof(old));
	ft_pages_for_device();
	memset(ft_a.buf, FT_CLEAR, FT_BUF_SIZE);
	ft_buf_for_device(&ft_a);
	ret = ib_post_send(ft_a.qp, &wr.wr, &bad);
	ok = !ret && ft_expect(ft_a.cq, cas ? "CMP_SWP" : "FETCH_ADD", id,
			       IB_WC_SUCCESS,
			       cas ? IB_WC_COMP_SWAP : IB_WC_FETCH_ADD, &wc);
	ft_pages_for_cpu();
	ft_buf_for_cpu(&ft_a);
	memcpy(&got, ft_a.buf, sizeof(got));
	memcpy(&now, ft_mr_byte(off), sizeof(now));
	ft_check(ok && wc.byte_len == sizeof(u64) && got == old &&
		 now == want && ft_a.buf[sizeof(u64)] == FT_CLEAR,
		 "%s at MR offset %u: returned %llu (want %llu), word %llu (want %llu) (post %d)",
		 cas ? "IB_WR_ATOMIC_CMP_AND_SWP" : "IB_WR_ATOMIC_FETCH_AND_ADD",
		 off, got, old, now, want, ret);
}

/* The requester SENDs with invalidation of the MR's key. */
static bool ft_send_inv(void)
{
	u64 sid = ++ft_wr_id, rid = ++ft_wr_id;
	struct ib_sge ssge = {
		.addr = ft_a.buf_dma, .length = 64,
		.lkey = ft_a.pd->local_dma_lkey,
	};
	struct ib_sge rsge = {
		.addr = ft_b.buf_dma, .length = FT_BUF_SIZE,
		.lkey = ft_b.pd->local_dma_lkey,
	};
	struct ib_send_wr swr = {
		.wr_id = sid, .sg_list = &ssge, .num_sge = 1,
		.opcode = IB_WR_SEND_WITH_INV, .send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = ft_mr->rkey,
	};
	struct ib_recv_wr rwr = {
		.wr_id = rid, .sg_list = &rsge, .num_sge = 1,
	};
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *sbad;
	struct ib_wc swc, rwc;
	bool ok;
	int ret;

	ret = ib_post_recv(ft_b.qp, &rwr, &rbad);
	if (!ret)
		ret = ib_post_send(ft_a.qp, &swr, &sbad);
	ok = !ret;
	ok = ok && ft_expect(ft_a.cq, "SEND_WITH_INV", sid, IB_WC_SUCCESS,
			     IB_WC_SEND, &swc);
	ok = ok && ft_expect(ft_b.cq, "SEND_WITH_INV receive", rid,
			     IB_WC_SUCCESS, IB_WC_RECV, &rwc);
	if (ok)
		pr_info("# receive: wc_flags 0x%x invalidate_rkey 0x%x byte_len %u\n",
			rwc.wc_flags, rwc.ex.invalidate_rkey, rwc.byte_len);
	return ft_check(ok && (rwc.wc_flags & IB_WC_WITH_INVALIDATE) &&
			rwc.ex.invalidate_rkey == ft_mr->rkey &&
			rwc.byte_len == 64,
			"SEND_WITH_INV of rkey 0x%x: the receive has IB_WC_WITH_INVALIDATE and the key (%d)",
			ft_mr->rkey, ret);
}

/* A WRITE through the invalidated key fails; the pages stay as they were. */
static void ft_write_invalid(void)
{
	u32 i;
	int ret;
	bool same = true;

	memset(ft_a.buf, 0x11, 256);
	ft_buf_for_device(&ft_a);
	ft_pages_fill(FT_CLEAR);
	ft_pages_for_device();
	ret = ft_rdma(IB_WR_RDMA_WRITE, 256, 0, ft_mr->rkey,
		      IB_WC_REM_ACCESS_ERR, "WRITE after invalidation");
	ft_pages_for_cpu();
	for (i = 0; i < FT_PAGES; i++)
		same &= !memchr_inv(page_address(ft_pages[i]), FT_CLEAR,
				    PAGE_SIZE);
	ft_check(!ret && same,
		 "RDMA WRITE through invalidated rkey 0x%x: IB_WC_REM_ACCESS_ERR, pages untouched (%d)",
		 ft_mr->rkey, ret);
}

static void ft_frwr(void)
{
	struct ib_device_attr *attrs = &ft_b.dev->attrs;
	struct ib_mr *mr;
	u32 old_key;
	int i;

	ft_check(attrs->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS &&
		 attrs->max_fast_reg_page_list_len >= FT_MR_PAGES,
		 "%s: IB_DEVICE_MEM_MGT_EXTENSIONS, max_fast_reg_page_list_len %u",
		 ft_b.name, attrs->max_fast_reg_page_list_len);

	mr = ib_alloc_mr(ft_b.pd, IB_MR_TYPE_SG_GAPS, FT_MR_PAGES);
	ft_check(IS_ERR(mr) && PTR_ERR(mr) == -EOPNOTSUPP,
		 "ib_alloc_mr(IB_MR_TYPE_SG_GAPS): -EOPNOTSUPP (%d)",
		 PTR_ERR_OR_ZERO(mr));
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	mr = ib_alloc_mr(ft_b.pd, IB_MR_TYPE_MEM_REG,
			 attrs->max_fast_reg_page_list_len + 1);
	ft_check(IS_ERR(mr) && PTR_ERR(mr) == -EINVAL,
		 "ib_alloc_mr beyond max_fast_reg_page_list_len: -EINVAL (%d)",
		 PTR_ERR_OR_ZERO(mr));
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);

	for (i = 0; i < FT_PAGES; i++) {
		ft_pages[i] = alloc_page(GFP_KERNEL);
		if (!ft_check(ft_pages[i], "page %d of the region", i))
			return;
	}
	sg_init_table(ft_sgl, FT_PAGES);
	/* Listed in reverse order of allocation. */
	for (i = 0; i < FT_PAGES; i++)
		sg_set_page(&ft_sgl[i], ft_pages[FT_PAGES - 1 - i], PAGE_SIZE,
			    0);
	for (i = 0; i < FT_PAGES / 2; i++)
		swap(ft_pages[i], ft_pages[FT_PAGES - 1 - i]);
	ft_nents = ib_dma_map_sg(ft_b.dev, ft_sgl, FT_PAGES,
				 DMA_BIDIRECTIONAL);
	if (!ft_check(ft_nents > 0, "ib_dma_map_sg: %d entries", ft_nents))
		return;

	ft_mr = ib_alloc_mr(ft_b.pd, IB_MR_TYPE_MEM_REG, FT_MR_PAGES);
	if (!ft_check(!IS_ERR(ft_mr), "ib_alloc_mr(IB_MR_TYPE_MEM_REG, %d) (%d)",
		      FT_MR_PAGES, PTR_ERR_OR_ZERO(ft_mr))) {
		ft_mr = NULL;
		return;
	}
	pr_info("# MR lkey 0x%x rkey 0x%x\n", ft_mr->lkey, ft_mr->rkey);
	ft_check(ft_mr->lkey == ft_mr->rkey, "lkey equals rkey");

	if (!ft_map(0) || !ft_reg("first registration"))
		return;
	ft_write(FT_BUF_SIZE, 0);
	ft_write(5000, PAGE_SIZE - 1000);
	ft_read(FT_BUF_SIZE, 0);
	ft_read(3333, 2 * PAGE_SIZE - 7);
	ft_atomic(IB_WR_ATOMIC_FETCH_AND_ADD, 2 * PAGE_SIZE + 8, 5, 10, 0, 15);
	ft_atomic(IB_WR_ATOMIC_CMP_AND_SWP, 2 * PAGE_SIZE + 8, 15, 15, 100,
		  100);
	ft_atomic(IB_WR_ATOMIC_CMP_AND_SWP, PAGE_SIZE - 8, 7, 15, 100, 7);

	/* LOCAL_INV, a new key, a mapping inside the first page, again. */
	old_key = ft_mr->rkey;
	if (!ft_local_inv(old_key))
		return;
	ib_update_fast_reg_key(ft_mr, ib_inc_rkey(ft_mr->rkey));
	ft_check(ft_mr->rkey != old_key &&
		 (ft_mr->rkey & ~0xffU) == (old_key & ~0xffU),
		 "ib_update_fast_reg_key: rkey 0x%x -> 0x%x", old_key,
		 ft_mr->rkey);
	if (!ft_map(100) || !ft_reg("registration under the new key"))
		return;
	ft_write(FT_BUF_SIZE - 100, 0);
	ft_write(10, FT_BUF_SIZE - 110);
	ft_read(FT_BUF_SIZE - 100, 0);

	/* The peer invalidates; then the key is dead. */
	if (!ft_send_inv())
		return;
	/* Last: it moves the QPs to the error state. */
	ft_write_invalid();
}

static int ft_map_buf(struct ft_side *s)
{
	s->buf = kmalloc(FT_BUF_SIZE, GFP_KERNEL);
	if (!s->buf)
		return -ENOMEM;
	s->buf_dma = ib_dma_map_single(s->dev, s->buf, FT_BUF_SIZE,
				       DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(s->dev, s->buf_dma)) {
		kfree(s->buf);
		s->buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Device, GID, PD, CQ, buffer and QP of one side. */
static bool ft_setup(struct ft_side *s)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = FT_WR, .max_recv_wr = FT_WR,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};
	const struct ib_gid_attr *gid_attr;
	int ret;

	s->dev = ib_device_get_by_name(s->name, RDMA_DRIVER_UNKNOWN);
	if (!ft_check(s->dev, "%s: ib_device_get_by_name", s->name)) {
		s->dev = NULL;
		return false;
	}
	ipv6_addr_set_v4mapped(in_aton(s->ip), (struct in6_addr *)s->gid.raw);
	gid_attr = rdma_find_gid(s->dev, &s->gid, IB_GID_TYPE_ROCE_UDP_ENCAP,
				 NULL);
	if (!ft_check(!IS_ERR(gid_attr), "%s: RoCE v2 GID of %s", s->name,
		      s->ip))
		return false;
	s->sgid_index = gid_attr->index;
	rdma_put_gid_attr(gid_attr);

	s->pd = ib_alloc_pd(s->dev, 0);
	if (!ft_check(!IS_ERR(s->pd), "%s: ib_alloc_pd (%d)", s->name,
		      PTR_ERR_OR_ZERO(s->pd))) {
		s->pd = NULL;
		return false;
	}
	s->cq = ib_alloc_cq(s->dev, s, FT_CQE, 0, IB_POLL_DIRECT);
	if (!ft_check(!IS_ERR(s->cq), "%s: ib_alloc_cq (%d)", s->name,
		      PTR_ERR_OR_ZERO(s->cq))) {
		s->cq = NULL;
		return false;
	}
	ret = ft_map_buf(s);
	if (!ft_check(!ret, "%s: buffer (%d)", s->name, ret))
		return false;
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ib_create_qp(s->pd, &init);
	if (!ft_check(!IS_ERR(s->qp), "%s: ib_create_qp RC (%d)", s->name,
		      PTR_ERR_OR_ZERO(s->qp))) {
		s->qp = NULL;
		return false;
	}
	return true;
}

/* INIT, RTR and RTS for @s's QP, towards @peer's. */
static bool ft_connect(struct ft_side *s, struct ft_side *peer)
{
	struct ib_qp_attr attr = {};
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = FT_ACCESS;
	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (!ft_check(!ret, "%s: QP to INIT (%d)", s->name, ret))
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
	if (!ft_check(!ret, "%s: QP to RTR (%d)", s->name, ret))
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
	return ft_check(!ret, "%s: QP to RTS (%d)", s->name, ret);
}

static void ft_teardown(struct ft_side *s)
{
	if (s->qp)
		ib_destroy_qp(s->qp);
	s->qp = NULL;
	if (s->cq)
		ib_free_cq(s->cq);
	s->cq = NULL;
	if (s->buf) {
		ib_dma_unmap_single(s->dev, s->buf_dma, FT_BUF_SIZE,
				    DMA_BIDIRECTIONAL);
		kfree(s->buf);
		s->buf = NULL;
	}
	if (s->pd)
		ib_dealloc_pd(s->pd);
	s->pd = NULL;
	if (s->dev)
		ib_device_put(s->dev);
	s->dev = NULL;
}

/* The MR and the pages, before the responder's PD and device go. */
static void ft_region_free(void)
{
	int i, ret;

	if (ft_mr) {
		ret = ib_dereg_mr(ft_mr);
		ft_check(!ret, "ib_dereg_mr of the fast-registration MR (%d)",
			 ret);
		ft_mr = NULL;
	}
	if (ft_nents > 0)
		ib_dma_unmap_sg(ft_b.dev, ft_sgl, FT_PAGES, DMA_BIDIRECTIONAL);
	ft_nents = 0;
	for (i = 0; i < FT_PAGES; i++) {
		if (ft_pages[i])
			__free_page(ft_pages[i]);
		ft_pages[i] = NULL;
	}
}

static int __init ft_init(void)
{
	unsigned long t0 = jiffies;

	pr_info("# %s (%s) requester, %s (%s) responder\n", ft_a.name,
		ft_a.ip, ft_b.name, ft_b.ip);
	if (ft_setup(&ft_a) && ft_setup(&ft_b) &&
	    ft_connect(&ft_a, &ft_b) && ft_connect(&ft_b, &ft_a))
		ft_frwr();
	/* The QPs first: nothing may access the region any more. */
	if (ft_a.qp)
		ib_destroy_qp(ft_a.qp);
	ft_a.qp = NULL;
	if (ft_b.qp)
		ib_destroy_qp(ft_b.qp);
	ft_b.qp = NULL;
	if (ft_b.dev)
		ft_region_free();
	ft_teardown(&ft_a);
	ft_teardown(&ft_b);
	pr_info("# %u passed, %u failed (%u ms)\n", ft_pass, ft_fail,
		jiffies_to_msecs(jiffies - t0));
	if (!ft_pass && !ft_fail)
		return -ENODEV;
	return ft_fail ? -EIO : 0;
}

static void __exit ft_exit(void)
{
}

module_init(ft_init);
module_exit(ft_exit);

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Fast-registration MR test between ERI devices eri0 and eri1");
