// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of eri_sim's super-packets (eri_sim_gso.c): how many packets
 * a route lets one carry; the requester's builder (segment boundaries,
 * zero-copy fragments and the frag_list past one skb's slots, copied small
 * payloads, a short last packet, the route's limit, a bad key taking back
 * nothing but its own packet), every byte checked against the region; and
 * the receive side's check of hostile buffers, which must refuse any whose
 * packets disagree before one of them is placed.
 */
#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/ip.h>
#include <linux/udp.h>

#include "eri_sim_qp.h"

#define HDR_LEN		sizeof(struct eri_wire_hdr)
#define T_MR_PAGES	24
#define T_MR_IOVA	0x10000ULL
#define T_MR_KEY	(FIELD_PREP(ERI_MR_KEY_INDEX, 5) | 0x21)
#define T_PDN		3

struct t_gso {
	struct eri_sim_dev *sdev;
	struct eri_sim_qp *qp;
	struct page *pages[T_MR_PAGES];
	__le64 *pbl;
	bool mr;
};

static void t_gso_exit(struct kunit *test)
{
	struct t_gso *t = test->priv;
	struct eri_aq_dereg_mr_cmd dereg = { .key = cpu_to_le32(T_MR_KEY) };
	u32 i;

	if (t->mr)
		KUNIT_EXPECT_EQ(test, eri_sim_dereg_mr(t->sdev, &dereg),
				ERI_AQ_STS_OK);
	for (i = 0; i < T_MR_PAGES; i++)
		if (t->pages[i])
			__free_page(t->pages[i]);
	free_percpu(t->sdev->stats);
	eri_sim_dma_fini(t->sdev);
}

/*
 * A device with no network (nothing is sent), a QP of PD T_PDN, and a
 * region of T_MR_PAGES pages at T_MR_IOVA whose byte i holds (u8)(i * 7).
 */
static int t_gso_init(struct kunit *test)
{
	struct eri_aq_reg_mr_cmd reg = {};
	struct t_gso *t;
	u32 i, j;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	test->priv = t;
	t->sdev = kunit_kzalloc(test, sizeof(*t->sdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->sdev);
	eri_sim_dev_init(t->sdev);
	t->sdev->stats = alloc_percpu(struct eri_sim_stats);
	KUNIT_ASSERT_TRUE(test, !!t->sdev->stats);
	t->sdev->netdev = init_net.loopback_dev;
	t->qp = kunit_kzalloc(test, sizeof(*t->qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->qp);
	spin_lock_init(&t->qp->lock);
	t->qp->sdev = t->sdev;
	t->qp->pdn = T_PDN;

	t->pbl = kunit_kzalloc(test, T_MR_PAGES * sizeof(*t->pbl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->pbl);
	for (i = 0; i < T_MR_PAGES; i++) {
		u8 *p;

		t->pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, t->pages[i]);
		p = page_address(t->pages[i]);
		for (j = 0; j < PAGE_SIZE; j++)
			p[j] = (u8)((i * PAGE_SIZE + j) * 7);
		t->pbl[i] = cpu_to_le64(eri_sim_dma_map(t->sdev, t->pages[i], 0,
							PAGE_SIZE));
	}
	reg.key = cpu_to_le32(T_MR_KEY);
	reg.pdn = cpu_to_le32(T_PDN);
	reg.iova = cpu_to_le64(T_MR_IOVA);
	reg.length = cpu_to_le64(T_MR_PAGES * PAGE_SIZE);
	reg.pbl_addr = cpu_to_le64(eri_sim_dma_map(t->sdev,
						   virt_to_page(t->pbl),
						   offset_in_page(t->pbl),
						   T_MR_PAGES *
						   sizeof(*t->pbl)));
	reg.npages = cpu_to_le32(T_MR_PAGES);
	reg.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_REG_MR_ACCESS,
					 ERI_MR_ACCESS_LOCAL_WRITE) |
			      FIELD_PREP(ERI_AQ_REG_MR_PAGE_SHIFT, PAGE_SHIFT));
	KUNIT_ASSERT_EQ(test, eri_sim_reg_mr(t->sdev, &reg), ERI_AQ_STS_OK);
	t->mr = true;
	return 0;
}

/* A WQE of one SGE: @len bytes of the region from offset @off. */
static void t_wqe(struct eri_sim_swqe *w, u32 off, u32 len)
{
	memset(w, 0, sizeof(*w));
	w->opcode = ERI_SQ_OP_WRITE;
	w->num_sge = 1;
	w->length = len;
	w->sge[0].addr = T_MR_IOVA + off;
	w->sge[0].length = len;
	w->sge[0].lkey = T_MR_KEY;
}

/*
 * Add the packet at @off of @w, @len bytes, with PSN @psn in its header;
 * @alone: the requester sends nothing after it.
 */
static int t_add_hint(struct t_gso *t, const struct eri_sim_swqe *w, u32 psn,
		      u32 off, u32 len, bool alone)
{
	struct eri_wire_hdr hdr = {
		.version = ERI_WIRE_VERSION,
		.opcode = ERI_OP_WRITE,
		.dqpn = cpu_to_be32(9),
		.sqpn = cpu_to_be32(8),
		.psn = cpu_to_be32(psn),
		.offset = cpu_to_be32(off),
	};

	return eri_sim_txb_add(t->qp, &hdr, w, off, len, alone);
}

static int t_add(struct t_gso *t, const struct eri_sim_swqe *w, u32 psn,
		 u32 off, u32 len)
{
	return t_add_hint(t, w, psn, off, len, false);
}

/*
 * Check packet @i of @skb (@seg_len bytes each): its header has PSN @psn,
 * its @len payload bytes are the region's from @off.
 */
static void t_check_seg(struct kunit *test, const struct sk_buff *skb,
			u32 seg_len, u32 i, u32 psn, u32 off, u32 len)
{
	struct eri_wire_hdr hdr;
	u8 *buf = kunit_kmalloc(test, len, GFP_KERNEL);
	u32 j;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, i * seg_len, &hdr, HDR_LEN),
			0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(hdr.psn), psn);
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, i * seg_len + HDR_LEN, buf,
					    len), 0);
	for (j = 0; j < len; j++)
		if (buf[j] != (u8)((off + j) * 7)) {
			KUNIT_FAIL(test, "packet %u byte %u: %#x", i, j, buf[j]);
			return;
		}
}

/* The limits of a route: the IP length field, the device's. */
static void eri_sim_gso_test_max_segs(struct kunit *test)
{
	u32 v4 = sizeof(struct iphdr) + sizeof(struct udphdr);
	u32 seg = HDR_LEN + 1024;

	/* 65535 - 28 = 65507 bytes of UDP payload: 59 packets of 1104. */
	KUNIT_EXPECT_EQ(test, eri_sim_gso_max_segs(seg, v4, 65536, 65535), 59U);
	KUNIT_EXPECT_EQ(test, eri_sim_gso_max_segs(seg, v4, 65536, 16), 16U);
	KUNIT_EXPECT_EQ(test, eri_sim_gso_max_segs(seg, v4, 65536, 1), 1U);
	/* A device with gso_max_segs 0 or a tiny gso_max_size: single. */
	KUNIT_EXPECT_EQ(test, eri_sim_gso_max_segs(seg, v4, 65536, 0), 1U);
	KUNIT_EXPECT_EQ(test, eri_sim_gso_max_segs(seg, v4, 1500, 64), 1U);
	KUNIT_EXPECT_EQ(test, eri_sim_gso_max_segs(seg, v4, 20, 64), 1U);
	KUNIT_EXPECT_EQ(test, eri_sim_gso_max_segs(seg, v4, 4 * seg + v4, 64),
			4U);
	/* Small packets: ERI_SIM_GSO_MAX_SEGS at most; jumbo ones: 15. */
	KUNIT_EXPECT_EQ(test, eri_sim_gso_max_segs(HDR_LEN + 64, v4, 65536,
						   65535),
			(u32)ERI_SIM_GSO_MAX_SEGS);
	KUNIT_EXPECT_EQ(test, eri_sim_gso_max_segs(HDR_LEN + 4096, v4, 65536,
						   65535), 15U);
	/* BIG TCP's larger gso_max_size changes nothing for UDP. */
	KUNIT_EXPECT_EQ(test, eri_sim_gso_max_segs(seg, v4, 512 * 1024, 65535),
			59U);
	/*
	 * 1344-byte payloads under an Ethernet device's gso_max_size of 65536
	 * (less its 14-byte header and one): 45 packets, 64122 bytes, not the
	 * 46 the IP length field alone allows (65546 bytes with the header,
	 * which the device would cut in software).
	 */
	KUNIT_EXPECT_EQ(test, eri_sim_gso_max_segs(HDR_LEN + 1344, v4,
						   65536 - 14 - 1, 65535),
			45U);
	KUNIT_EXPECT_EQ(test, eri_sim_gso_max_segs(HDR_LEN + 1344, v4, 65536,
						   65535), 46U);
}

/*
 * Zero-copy packets of 1024 bytes: header and payload fragments, a
 * frag_list past one skb's slots, every byte where it belongs; a short
 * packet ends the super-packet.
 */
static void eri_sim_gso_test_build_zc(struct kunit *test)
{
	struct t_gso *t = test->priv;
	struct eri_sim_swqe w;
	struct sk_buff *skb;
	u32 i, n = 20;

	t_wqe(&w, 100, n * 1024 + 600);
	spin_lock_bh(&t->qp->lock);
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 0, 0, 1024), 0);
	/* The test's QP has no route: give it a veth's segment limit. */
	t->qp->txb.max_segs = 59;
	for (i = 1; i < n; i++)
		KUNIT_ASSERT_EQ(test, t_add(t, &w, i, i * 1024, 1024), 0);
	KUNIT_ASSERT_EQ(test, t_add(t, &w, n, n * 1024, 600), 0);
	KUNIT_EXPECT_TRUE(test, t->qp->txb.closed);
	skb = eri_sim_txb_finish(t->qp);
	eri_sim_mr_cache_drop(&t->qp->tx_mrc);
	spin_unlock_bh(&t->qp->lock);
	KUNIT_ASSERT_NOT_NULL(test, skb);

	KUNIT_EXPECT_EQ(test, skb->len, n * (HDR_LEN + 1024) + HDR_LEN + 600);
	KUNIT_EXPECT_EQ(test, skb_headlen(skb), 0U);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_size, HDR_LEN + 1024);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_segs, n + 1);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_type, SKB_GSO_UDP_L4);
	KUNIT_EXPECT_TRUE(test, skb_shinfo(skb)->flags & SKBFL_SHARED_FRAG);
	/* Two fragments a packet: 21 packets need more than one skb. */
	KUNIT_EXPECT_TRUE(test, skb_has_frag_list(skb));
	for (i = 0; i < n; i++)
		t_check_seg(test, skb, HDR_LEN + 1024, i, i, 100 + i * 1024,
			    1024);
	t_check_seg(test, skb, HDR_LEN + 1024, n, n, 100 + n * 1024, 600);
	/* The payload is the region's own page, not a copy. */
	KUNIT_EXPECT_PTR_EQ(test, skb_frag_page(&skb_shinfo(skb)->frags[1]),
			    t->pages[0]);
	kfree_skb(skb);
}

/* Small payloads are copied, packets back to back in the skb's pages. */
static void eri_sim_gso_test_build_copy(struct kunit *test)
{
	struct t_gso *t = test->priv;
	struct eri_sim_swqe w;
	struct sk_buff *skb;
	u32 i, n = 40;

	t_wqe(&w, 3, n * 100);
	spin_lock_bh(&t->qp->lock);
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 0, 0, 100), 0);
	t->qp->txb.max_segs = n;
	for (i = 1; i < n; i++)
		KUNIT_ASSERT_EQ(test, t_add(t, &w, i, i * 100, 100), 0);
	skb = eri_sim_txb_finish(t->qp);
	eri_sim_mr_cache_drop(&t->qp->tx_mrc);
	spin_unlock_bh(&t->qp->lock);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, skb->len, n * (HDR_LEN + 100));
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_segs, n);
	KUNIT_EXPECT_FALSE(test, skb_has_frag_list(skb));
	KUNIT_EXPECT_FALSE(test, skb_shinfo(skb)->flags & SKBFL_SHARED_FRAG);
	for (i = 0; i < n; i++)
		t_check_seg(test, skb, HDR_LEN + 100, i, i, 3 + i * 100, 100);
	kfree_skb(skb);
}

/*
 * A small packet the requester sends alone is one linear datagram; after
 * packets already in the super-packet, or from the region's pages, it is
 * not.
 */
static void eri_sim_gso_test_alone(struct kunit *test)
{
	struct t_gso *t = test->priv;
	struct sk_buff *skb[3];
	struct eri_sim_swqe w;

	spin_lock_bh(&t->qp->lock);
	t_wqe(&w, 5, 64);
	KUNIT_EXPECT_EQ(test, t_add_hint(t, &w, 7, 0, 64, true), 0);
	skb[0] = eri_sim_txb_finish(t->qp);
	/* Behind a packet of the super-packet: the super-packet's second. */
	t_wqe(&w, 5, 128);
	KUNIT_EXPECT_EQ(test, t_add(t, &w, 8, 0, 64), 0);
	t->qp->txb.max_segs = 4;
	KUNIT_EXPECT_EQ(test, t_add_hint(t, &w, 9, 64, 64, true), 0);
	skb[1] = eri_sim_txb_finish(t->qp);
	/* Large enough to be sent from the region's pages: zero copy. */
	t_wqe(&w, 0, 1024);
	KUNIT_EXPECT_EQ(test, t_add_hint(t, &w, 10, 0, 1024, true), 0);
	skb[2] = eri_sim_txb_finish(t->qp);
	eri_sim_mr_cache_drop(&t->qp->tx_mrc);
	spin_unlock_bh(&t->qp->lock);

	KUNIT_ASSERT_TRUE(test, skb[0] && skb[1] && skb[2]);
	KUNIT_EXPECT_EQ(test, skb[0]->len, HDR_LEN + 64);
	KUNIT_EXPECT_EQ(test, skb_headlen(skb[0]), skb[0]->len);
	KUNIT_EXPECT_FALSE(test, skb_is_gso(skb[0]));
	t_check_seg(test, skb[0], HDR_LEN + 64, 0, 7, 5, 64);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb[1])->gso_segs, 2);
	t_check_seg(test, skb[1], HDR_LEN + 64, 1, 9, 69, 64);
	KUNIT_EXPECT_EQ(test, skb_headlen(skb[2]), 0U);
	t_check_seg(test, skb[2], HDR_LEN + 1024, 0, 10, 0, 1024);
	kfree_skb(skb[0]);
	kfree_skb(skb[1]);
	kfree_skb(skb[2]);
}

/*
 * What starts a new super-packet: the route's limit, a longer packet, a
 * packet after a short one, a copied packet after zero-copy ones; one
 * packet alone is a plain datagram.
 */
static void eri_sim_gso_test_boundaries(struct kunit *test)
{
	struct t_gso *t = test->priv;
	struct eri_sim_txb *b = &t->qp->txb;
	struct eri_sim_swqe w;
	struct sk_buff *skb;

	t_wqe(&w, 0, 16 * 1024);
	spin_lock_bh(&t->qp->lock);
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 0, 0, 1024), 0);
	b->max_segs = 3;
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 1, 1024, 1024), 0);
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 2, 2048, 1024), 0);
	KUNIT_EXPECT_EQ(test, b->nsegs, 3U);
	/* Past the limit: the three go (nowhere here), a new one starts. */
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 3, 3072, 1024), 0);
	KUNIT_EXPECT_EQ(test, b->nsegs, 1U);
	b->max_segs = 59;
	/* Shorter: joins and closes it; then a new one. */
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 4, 4096, 700), 0);
	KUNIT_EXPECT_EQ(test, b->nsegs, 2U);
	KUNIT_EXPECT_TRUE(test, b->closed);
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 5, 5120, 700), 0);
	KUNIT_EXPECT_EQ(test, b->nsegs, 1U);
	KUNIT_EXPECT_FALSE(test, b->closed);
	b->max_segs = 59;
	/* Longer: a new one. */
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 6, 6144, 1024), 0);
	KUNIT_EXPECT_EQ(test, b->nsegs, 1U);
	KUNIT_EXPECT_EQ(test, b->seg_len, HDR_LEN + 1024);
	/* Copied after zero-copy: a new one, of its own size. */
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 7, 8192, 300), 0);
	KUNIT_EXPECT_EQ(test, b->nsegs, 1U);
	KUNIT_EXPECT_FALSE(test, b->zc);
	skb = eri_sim_txb_finish(t->qp);
	eri_sim_mr_cache_drop(&t->qp->tx_mrc);
	spin_unlock_bh(&t->qp->lock);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_FALSE(test, skb_is_gso(skb));
	KUNIT_EXPECT_EQ(test, skb->len, HDR_LEN + 300);
	t_check_seg(test, skb, HDR_LEN + 300, 0, 7, 8192, 300);
	kfree_skb(skb);
}

/*
 * A packet whose key or bounds are refused fails alone: the packets before
 * it stay, byte for byte.
 */
static void eri_sim_gso_test_bad_key(struct kunit *test)
{
	struct t_gso *t = test->priv;
	struct eri_sim_swqe w, bad;
	struct sk_buff *skb;

	t_wqe(&w, 0, 8 * 1024);
	spin_lock_bh(&t->qp->lock);
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 0, 0, 1024), 0);
	t->qp->txb.max_segs = 59;
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 1, 1024, 1024), 0);
	/* Another key; beyond the region; copied and beyond it. */
	t_wqe(&bad, 0, 1024);
	bad.sge[0].lkey = T_MR_KEY + 1;
	KUNIT_EXPECT_EQ(test, t_add(t, &bad, 2, 0, 1024), -ENOENT);
	t_wqe(&bad, T_MR_PAGES * PAGE_SIZE - 512, 1024);
	KUNIT_EXPECT_EQ(test, t_add(t, &bad, 2, 0, 1024), -ERANGE);
	KUNIT_EXPECT_EQ(test, t->qp->txb.nsegs, 2U);
	KUNIT_EXPECT_EQ(test, t->qp->txb.skb->len, 2 * (HDR_LEN + 1024));
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 2, 2048, 1024), 0);
	skb = eri_sim_txb_finish(t->qp);
	eri_sim_mr_cache_drop(&t->qp->tx_mrc);
	spin_unlock_bh(&t->qp->lock);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_segs, 3);
	t_check_seg(test, skb, HDR_LEN + 1024, 0, 0, 0, 1024);
	t_check_seg(test, skb, HDR_LEN + 1024, 1, 1, 1024, 1024);
	t_check_seg(test, skb, HDR_LEN + 1024, 2, 2, 2048, 1024);
	kfree_skb(skb);
}

/*
 * A received buffer of @n packets of @seg_len bytes (the last @last), QPs
 * 9 and 8, as GSO with gso_size @gso (0: a plain datagram), the bytes in
 * page fragments.
 */
static struct sk_buff *t_rx_buf(struct kunit *test, u32 n, u32 seg_len,
				u32 last, u32 gso)
{
	u32 len = (n - 1) * seg_len + last, i;
	struct sk_buff *skb;
	u8 *p;

	p = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < n; i++) {
		struct eri_wire_hdr *h = (void *)(p + i * seg_len);

		if (i == n - 1 && last < HDR_LEN)
			break;
		h->version = ERI_WIRE_VERSION;
		h->opcode = ERI_OP_WRITE;
		h->dqpn = cpu_to_be32(9);
		h->sqpn = cpu_to_be32(8);
		h->psn = cpu_to_be32(i);
	}
	skb = alloc_skb(len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_data(skb, p, len);
	if (gso) {
		skb_shinfo(skb)->gso_size = gso;
		skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
		skb_shinfo(skb)->gso_segs = n;
	}
	return skb;
}

/* Rewrite byte @off of @skb's data to @val. */
static void t_poke(struct sk_buff *skb, u32 off, u8 val)
{
	skb->data[off] = val;
}

/*
 * The receive side's check: whole buffers pass with their geometry; a
 * buffer one of whose packets disagrees, is cut short or has another
 * version than the first, or whose segment size cannot be ERI's, is refused
 * whole.  Whether the device accepts the version is its caller's question.
 */
static void eri_sim_gso_test_rx_split(struct kunit *test)
{
	struct eri_wire_hdr first;
	u32 seg = HDR_LEN + 1024, seg_len, nsegs, i;
	struct sk_buff *skb;

	skb = t_rx_buf(test, 5, seg, 300, seg);
	KUNIT_EXPECT_TRUE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						 &first));
	KUNIT_EXPECT_EQ(test, seg_len, seg);
	KUNIT_EXPECT_EQ(test, nsegs, 5U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(first.dqpn), 9U);
	kfree_skb(skb);

	/* A datagram: one packet, its length its own. */
	skb = t_rx_buf(test, 1, seg, 500, 0);
	KUNIT_EXPECT_TRUE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						 &first));
	KUNIT_EXPECT_EQ(test, nsegs, 1U);
	KUNIT_EXPECT_EQ(test, seg_len, 500U);
	kfree_skb(skb);

	/* Packet 3 for another QP, or from another. */
	skb = t_rx_buf(test, 5, seg, seg, seg);
	t_poke(skb, 3 * seg + offsetof(struct eri_wire_hdr, dqpn) + 3, 10);
	KUNIT_EXPECT_FALSE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						  &first));
	kfree_skb(skb);
	skb = t_rx_buf(test, 5, seg, seg, seg);
	t_poke(skb, 4 * seg + offsetof(struct eri_wire_hdr, sqpn) + 3, 7);
	KUNIT_EXPECT_FALSE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						  &first));
	kfree_skb(skb);
	/* Another version in packet 2. */
	skb = t_rx_buf(test, 5, seg, seg, seg);
	t_poke(skb, 2 * seg, ERI_WIRE_VERSION + 1);
	KUNIT_EXPECT_FALSE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						  &first));
	kfree_skb(skb);
	/* Another version in every packet: the caller decides. */
	skb = t_rx_buf(test, 3, seg, seg, seg);
	for (i = 0; i < 3; i++)
		t_poke(skb, i * seg, ERI_WIRE_VERSION + 1);
	KUNIT_EXPECT_TRUE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						 &first));
	KUNIT_EXPECT_EQ(test, first.version, ERI_WIRE_VERSION + 1);
	KUNIT_EXPECT_EQ(test, nsegs, 3U);
	kfree_skb(skb);
	/* The last packet cut inside its header. */
	skb = t_rx_buf(test, 4, seg, HDR_LEN - 1, seg);
	KUNIT_EXPECT_FALSE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						  &first));
	kfree_skb(skb);
	/* A segment size shorter than a header, or longer than an MTU. */
	skb = t_rx_buf(test, 3, seg, seg, HDR_LEN - 1);
	KUNIT_EXPECT_FALSE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						  &first));
	kfree_skb(skb);
	skb = t_rx_buf(test, 2, HDR_LEN + ERI_SIM_MAX_PAYLOAD + 1, 200,
		       HDR_LEN + ERI_SIM_MAX_PAYLOAD + 1);
	KUNIT_EXPECT_FALSE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						  &first));
	kfree_skb(skb);
	/* A gso_size that does not match the headers: packet 1 is garbage. */
	skb = t_rx_buf(test, 4, seg, seg, seg - 16);
	KUNIT_EXPECT_FALSE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						  &first));
	kfree_skb(skb);
	/* Shorter than a header, and empty. */
	skb = t_rx_buf(test, 1, seg, HDR_LEN - 1, 0);
	KUNIT_EXPECT_FALSE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						  &first));
	kfree_skb(skb);
	skb = alloc_skb(0, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_FALSE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						  &first));
	kfree_skb(skb);
}

/* A super-packet the builder made passes the receive side's check. */
static void eri_sim_gso_test_roundtrip(struct kunit *test)
{
	struct t_gso *t = test->priv;
	struct eri_sim_skb_cur cur;
	struct eri_wire_hdr first;
	struct eri_sim_swqe w;
	u32 seg_len, nsegs, i;
	struct sk_buff *skb;

	t_wqe(&w, 0, 30 * 1024);
	spin_lock_bh(&t->qp->lock);
	KUNIT_ASSERT_EQ(test, t_add(t, &w, 0, 0, 1024), 0);
	t->qp->txb.max_segs = 59;
	for (i = 1; i < 30; i++)
		KUNIT_ASSERT_EQ(test, t_add(t, &w, i, i * 1024, 1024), 0);
	skb = eri_sim_txb_finish(t->qp);
	eri_sim_mr_cache_drop(&t->qp->tx_mrc);
	spin_unlock_bh(&t->qp->lock);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_TRUE(test, eri_sim_rx_split(skb, &seg_len, &nsegs,
						 &first));
	KUNIT_EXPECT_EQ(test, nsegs, 30U);
	KUNIT_EXPECT_EQ(test, seg_len, HDR_LEN + 1024);
	/* Read as the receive path does: every packet, through one cursor. */
	eri_sim_skb_cur_init(&cur, skb);
	for (i = 0; i < nsegs; i++) {
		struct eri_wire_hdr h;
		u8 payload[1024];
		u32 j;

		KUNIT_ASSERT_EQ(test, eri_sim_skb_cur_copy(&cur, i * seg_len,
							   &h, HDR_LEN), 0);
		KUNIT_EXPECT_EQ(test, be32_to_cpu(h.offset), i * 1024);
		KUNIT_ASSERT_EQ(test, eri_sim_skb_cur_copy(&cur,
							   i * seg_len + HDR_LEN,
							   payload, 1024), 0);
		for (j = 0; j < 1024; j++)
			if (payload[j] != (u8)((i * 1024 + j) * 7))
				break;
		KUNIT_EXPECT_EQ(test, j, 1024U);
	}
	kfree_skb(skb);
}

/* Byte @off of the buffers eri_sim_gso_test_cursor() builds. */
static u8 t_cur_byte(u32 off)
{
	return off * 13 + (off >> 8);
}

/* A new fragment of @skb: @len bytes at @page_off of @page, byte @off on. */
static void t_cur_frag(struct sk_buff *skb, struct page *page, u32 page_off,
		       u32 len, u32 *off)
{
	u8 *p = page_address(page) + page_off;
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = t_cur_byte((*off)++);
	get_page(page);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page, page_off,
			   len);
	skb->len += len;
	skb->data_len += len;
}

/* A buffer of @head linear bytes, from byte @off on. */
static struct sk_buff *t_cur_skb(struct kunit *test, u32 head, u32 *off)
{
	struct sk_buff *skb = alloc_skb(head, GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	for (i = 0; i < head; i++)
		skb_put_u8(skb, t_cur_byte((*off)++));
	return skb;
}

/* @child chained to @parent's frag_list after @prev (NULL: first). */
static void t_cur_chain(struct sk_buff *parent, struct sk_buff *prev,
			struct sk_buff *child)
{
	if (prev)
		prev->next = child;
	else
		skb_shinfo(parent)->frag_list = child;
	parent->len += child->len;
	parent->data_len += child->len;
}

/* Compare @len bytes the cursor copies from @off with what is there. */
static void t_cur_expect(struct kunit *test, struct eri_sim_skb_cur *c,
			 u32 off, u32 len)
{
	u8 *buf = kunit_kzalloc(test, max(len, 1U), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, eri_sim_skb_cur_copy(c, off, buf, len), 0);
	for (i = 0; i < len; i++)
		if (buf[i] != t_cur_byte(off + i))
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, len, "read of %u at %u", len, off);
}

/*
 * The receive cursor against every layout a buffer may have: a linear part,
 * page fragments (one across the pages of a compound page), buffers on the
 * frag_list (with fragments, with none), reads forward within a block and
 * across many, reads backward, past the end; and a chained buffer with a
 * chain of its own, which only skb_copy_bits() reads.
 */
static void eri_sim_gso_test_cursor(struct kunit *test)
{
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_COMP, 1);
	struct sk_buff *skb, *a, *b, *c;
	struct eri_sim_skb_cur cur;
	u32 off = 0, len, at;
	u8 byte;

	KUNIT_ASSERT_NOT_NULL(test, page);
	skb = t_cur_skb(test, 100, &off);
	t_cur_frag(skb, page, 0, 50, &off);
	t_cur_frag(skb, page, 64, 5000, &off);
	t_cur_frag(skb, page, 5100, 7, &off);
	a = t_cur_skb(test, 30, &off);
	t_cur_frag(a, page, 6000, 200, &off);
	t_cur_frag(a, page, 6300, 1800, &off);
	t_cur_chain(skb, NULL, a);
	b = t_cur_skb(test, 64, &off);
	t_cur_chain(skb, a, b);
	KUNIT_ASSERT_EQ(test, skb->len, off);

	/* Forward in steps of every size, then backward, then past the end. */
	eri_sim_skb_cur_init(&cur, skb);
	for (at = 0, len = 1; at < skb->len; at += len, len = len * 3 + 1)
		t_cur_expect(test, &cur, at, min(len, skb->len - at));
	t_cur_expect(test, &cur, 0, skb->len);
	t_cur_expect(test, &cur, 120, 20);
	eri_sim_skb_cur_init(&cur, skb);
	t_cur_expect(test, &cur, 5000, 2000);
	t_cur_expect(test, &cur, 4000, 10);
	t_cur_expect(test, &cur, 7000, skb->len - 7000);
	KUNIT_EXPECT_EQ(test, eri_sim_skb_cur_copy(&cur, skb->len, &byte, 1),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, eri_sim_skb_cur_copy(&cur, skb->len - 1, &byte,
						   2), -EFAULT);
	t_cur_expect(test, &cur, skb->len - 1, 1);

	/* A chain within the chain: @b gets one of its own. */
	c = t_cur_skb(test, 40, &off);
	skb_shinfo(b)->frag_list = c;
	b->len += c->len;
	b->data_len += c->len;
	skb->len += c->len;
	skb->data_len += c->len;
	eri_sim_skb_cur_init(&cur, skb);
	for (at = 0; at < skb->len; at += 37)
		t_cur_expect(test, &cur, at, min(37U, skb->len - at));
	kfree_skb(skb);
	put_page(page);
}

static struct kunit_case eri_sim_gso_test_cases[] = {
	KUNIT_CASE(eri_sim_gso_test_max_segs),
	KUNIT_CASE(eri_sim_gso_test_build_zc),
	KUNIT_CASE(eri_sim_gso_test_build_copy),
	KUNIT_CASE(eri_sim_gso_test_alone),
	KUNIT_CASE(eri_sim_gso_test_boundaries),
	KUNIT_CASE(eri_sim_gso_test_bad_key),
	KUNIT_CASE(eri_sim_gso_test_rx_split),
	KUNIT_CASE(eri_sim_gso_test_roundtrip),
	KUNIT_CASE(eri_sim_gso_test_cursor),
	{}
};

static struct kunit_suite eri_sim_gso_test_suite = {
	.name = "eri_sim_gso",
	.init = t_gso_init,
	.exit = t_gso_exit,
	.test_cases = eri_sim_gso_test_cases,
};

kunit_test_suite(eri_sim_gso_test_suite);
