// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim super-packets (Documentation/infiniband/eri.rst, "Super-packets"):
 * the requester's data packets leave as UDP segmentation-offload buffers,
 * and a received buffer of several packets is checked here before any of
 * them is placed.
 *
 * A QP's super-packet (qp->txb) is built while the requester holds
 * qp->lock: ERI header, payload, ERI header, payload..., every packet
 * txb.seg_len bytes but the last.  Payloads of ERI_SIM_TXB_ZC_MIN bytes and
 * more are not copied: the buffer's fragments are the headers (in a page
 * of the super-packet's own) and the regions' own pages, which the buffer
 * keeps referenced however long the stack holds it.  Smaller payloads are
 * copied, with their headers, into page fragments of the super-packet: a
 * chunk of a shared page for a small first packet (a ping-pong's message is
 * alone in its super-packet), pages of its own for what follows.
 * Whoever made the requester send calls eri_sim_txb_flush() before letting
 * go of the lock; the stack, or a NIC with UDP segmentation offload, then
 * cuts the buffer into datagrams at gso_size = seg_len.
 */
#include <kunit/visibility.h>
#include <linux/gfp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include "eri_sim_qp.h"

/* Pages of a super-packet: up to 32 KiB at once, where memory allows. */
#define ERI_SIM_TXB_MAX_ORDER	3
/*
 * Payloads from this size on are sent from the region's pages: two
 * fragments a packet (header, payload) cost less than copying it.
 */
#define ERI_SIM_TXB_ZC_MIN	512
/* A first packet up to this size goes into a chunk of a shared page. */
#define ERI_SIM_TXB_CHUNK_MAX	1024

/**
 * eri_sim_gso_max_segs - packets one super-packet may carry
 * @seg_len: bytes of each packet, ERI header and payload
 * @hdrs: bytes of the IP header (IPv4's: IPv6's payload length excludes
 *	it) and the UDP header
 * @dev_max_size: the most bytes of the same headers and packets the route
 *	device takes in one buffer: its gso_max_size less what else it counts
 *	(the link-layer header, IPv6's header) and one (it takes shorter
 *	buffers only)
 * @dev_max_segs: the route device's gso_max_segs
 *
 * As many as one IP datagram's 16-bit length field allows, within the
 * device's limits and ERI_SIM_GSO_MAX_SEGS.  Pure.
 *
 * Return: 1 at least.
 */
u32 eri_sim_gso_max_segs(u32 seg_len, u32 hdrs, u32 dev_max_size,
			 u32 dev_max_segs)
{
	u32 max_len = min_t(u32, dev_max_size, U16_MAX);
	u32 n = min_t(u32, dev_max_segs, ERI_SIM_GSO_MAX_SEGS);

	if (!seg_len || max_len <= hdrs)
		return 1;
	return clamp_t(u32, (max_len - hdrs) / seg_len, 1, max(n, 1U));
}

/*
 * Bytes fragment @i of the super-packet may hold: its chunk, or its page
 * from the fragment's start on.
 */
static u32 eri_sim_txb_frag_cap(const struct eri_sim_txb *b, u32 i)
{
	const skb_frag_t *f = &skb_shinfo(b->skb)->frags[i];

	if (!i && b->chunk_len)
		return b->chunk_len;
	return page_size(skb_frag_page(f)) - skb_frag_off(f);
}

/*
 * Free room of the super-packet: the fragments from the one being filled
 * on, what their pages hold beyond their bytes.
 */
static u32 eri_sim_txb_room(const struct eri_sim_txb *b)
{
	const struct skb_shared_info *si = skb_shinfo(b->skb);
	u32 room = 0, i;

	for (i = b->wfrag; i < si->nr_frags; i++)
		room += eri_sim_txb_frag_cap(b, i) -
			skb_frag_size(&si->frags[i]);
	return room;
}

/*
 * A small first packet's room: a chunk of a page the networking stack
 * shares out (netdev_alloc_frag()), where a page of the super-packet's own
 * would be allocated, and zeroed (init_on_alloc), for a few bytes when no
 * packet follows, as in a ping-pong.  Return: 0 or -ENOMEM.
 */
static int eri_sim_txb_chunk(struct eri_sim_txb *b, u32 need)
{
	void *p = netdev_alloc_frag(need);
	struct page *page;

	if (!p)
		return -ENOMEM;
	page = virt_to_head_page(p);
	skb_fill_page_desc(b->skb, 0, page, p - page_address(page), 0);
	b->skb->truesize += need;
	b->chunk_len = need;
	return 0;
}

/*
 * Make room for @need more bytes: pages added as empty fragments, as large
 * as the packets the super-packet may still take.  Return: 0, -ENOMEM, or
 * -ENOSPC when the fragment slots run out first.
 */
static int eri_sim_txb_reserve(struct eri_sim_txb *b, u32 need)
{
	struct sk_buff *skb = b->skb;
	struct skb_shared_info *si = skb_shinfo(skb);
	u32 room = eri_sim_txb_room(b);
	u32 want = (b->max_segs - b->nsegs) * b->seg_len;

	while (room < need) {
		u32 order = min_t(u32, get_order(max(want, need - room)),
				  ERI_SIM_TXB_MAX_ORDER);
		struct page *page = NULL;

		if (si->nr_frags >= MAX_SKB_FRAGS)
			return -ENOSPC;
		if (!si->nr_frags && need <= ERI_SIM_TXB_CHUNK_MAX &&
		    !eri_sim_txb_chunk(b, need))
			return 0;
		if (order)
			page = alloc_pages(GFP_ATOMIC | __GFP_COMP |
					   __GFP_NOWARN | __GFP_NORETRY, order);
		if (!page) {
			order = 0;
			page = alloc_page(GFP_ATOMIC | __GFP_NOWARN);
			if (!page)
				return -ENOMEM;
		}
		skb_fill_page_desc(skb, si->nr_frags, page, 0, 0);
		skb->truesize += PAGE_SIZE << order;
		room += PAGE_SIZE << order;
	}
	return 0;
}

/*
 * Where the next bytes of the super-packet go: returns their address, with
 * *@n of the @len wanted contiguous there.  Room must have been reserved.
 */
static void *eri_sim_txb_next(struct eri_sim_txb *b, u32 len, u32 *n)
{
	skb_frag_t *f = &skb_shinfo(b->skb)->frags[b->wfrag];

	if (skb_frag_size(f) == eri_sim_txb_frag_cap(b, b->wfrag))
		f = &skb_shinfo(b->skb)->frags[++b->wfrag];
	*n = min(len, eri_sim_txb_frag_cap(b, b->wfrag) - skb_frag_size(f));
	return page_address(skb_frag_page(f)) + skb_frag_off(f) +
	       skb_frag_size(f);
}

/* The @n bytes eri_sim_txb_next() gave are written. */
static void eri_sim_txb_commit(struct eri_sim_txb *b, u32 n)
{
	skb_frag_size_add(&skb_shinfo(b->skb)->frags[b->wfrag], n);
	b->skb->len += n;
	b->skb->data_len += n;
}

static void eri_sim_txb_put(struct eri_sim_txb *b, const void *src, u32 len)
{
	while (len) {
		u32 n;
		void *p = eri_sim_txb_next(b, len, &n);

		memcpy(p, src, n);
		eri_sim_txb_commit(b, n);
		src += n;
		len -= n;
	}
}

/* Where a packet started: what eri_sim_txb_rewind() goes back to. */
struct eri_sim_txb_mark {
	u32 len;
	u32 fsize;
	u8 wfrag;
};

static void eri_sim_txb_mark(const struct eri_sim_txb *b,
			     struct eri_sim_txb_mark *m)
{
	m->len = b->skb->len;
	m->wfrag = b->wfrag;
	m->fsize = skb_frag_size(&skb_shinfo(b->skb)->frags[b->wfrag]);
}

/* Forget the bytes written since @m: their pages stay, empty. */
static void eri_sim_txb_rewind(struct eri_sim_txb *b,
			       const struct eri_sim_txb_mark *m)
{
	struct skb_shared_info *si = skb_shinfo(b->skb);
	u32 i;

	for (i = m->wfrag + 1; i <= b->wfrag; i++)
		skb_frag_size_set(&si->frags[i], 0);
	skb_frag_size_set(&si->frags[m->wfrag], m->fsize);
	b->skb->data_len -= b->skb->len - m->len;
	b->skb->len = m->len;
	b->wfrag = m->wfrag;
}

/* A new super-packet whose packets are @seg_len bytes. */
static int eri_sim_txb_start(struct eri_sim_qp *qp, u32 seg_len)
{
	/* Room for either family's headers, pushed in front of the data. */
	u32 room = LL_RESERVED_SPACE(qp->sdev->netdev) +
		   sizeof(struct ipv6hdr) + sizeof(struct udphdr);
	struct eri_sim_txb *b = &qp->txb;
	struct sk_buff *skb;

	skb = alloc_skb(room, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, room);
	b->skb = skb;
	b->seg_len = seg_len;
	b->nsegs = 0;
	b->closed = false;
	b->wfrag = 0;
	b->chunk_len = 0;
	b->zc = false;
	b->fskb = skb;
	b->max_segs = eri_sim_pkt_max_segs(qp, seg_len);
	return 0;
}

/* Whether the super-packet being built has no room for a packet of @seg_len. */
static bool eri_sim_txb_full(const struct eri_sim_txb *b, u32 seg_len, bool zc)
{
	return b->skb && (b->zc != zc || b->closed || b->nsegs >= b->max_segs ||
			  seg_len > b->seg_len);
}

/*
 * Where a packet's payload comes from: @len bytes at offset @off of the
 * message of WQE @w (its inline data or its SGEs), or, with no @w, at
 * @iova of region @mr (a READ response).
 */
struct eri_sim_txsrc {
	const struct eri_sim_swqe *w;
	struct eri_sim_mr *mr;
	u64 iova;
	u32 off;
	u32 len;
};

/*
 * Fragments the payload @src takes at most: one per host page each of its
 * SGEs (or its region) touches.
 */
static u32 eri_sim_txb_frags_needed(const struct eri_sim_txsrc *src)
{
	const struct eri_sim_swqe *w = src->w;
	u32 i, n = 0, off = src->off, len = src->len;

	if (!w)
		return DIV_ROUND_UP(offset_in_page(src->iova) + len, PAGE_SIZE);
	for (i = 0; i < w->num_sge && len; i++) {
		u64 addr = w->sge[i].addr + off;
		u32 chunk;

		if (off >= w->sge[i].length) {
			off -= w->sge[i].length;
			continue;
		}
		chunk = min(len, w->sge[i].length - off);
		n += DIV_ROUND_UP(offset_in_page(addr) + chunk, PAGE_SIZE);
		len -= chunk;
		off = 0;
	}
	return n;
}

/*
 * The buffer a zero-copy packet's @need fragments go to: the super-packet
 * itself, or the last buffer chained to it (its frag_list) when it has
 * the slots, else a new one chained.  Return: the buffer, or NULL.
 */
static struct sk_buff *eri_sim_txb_frag_skb(struct eri_sim_txb *b, u32 need)
{
	struct sk_buff *last = b->fskb, *skb;

	if (MAX_SKB_FRAGS - skb_shinfo(last)->nr_frags >= need)
		return last;
	skb = alloc_skb(0, GFP_ATOMIC);
	if (!skb)
		return NULL;
	if (last == b->skb)
		skb_shinfo(last)->frag_list = skb;
	else
		last->next = skb;
	b->skb->truesize += skb->truesize;
	b->fskb = skb;
	return skb;
}

/* Take the last chained buffer, empty, off the super-packet's frag_list. */
static void eri_sim_txb_unchain(struct eri_sim_txb *b)
{
	struct sk_buff *skb = b->fskb, **pp = &skb_shinfo(b->skb)->frag_list;

	b->fskb = b->skb;
	while (*pp != skb) {
		b->fskb = *pp;
		pp = &(*pp)->next;
	}
	*pp = NULL;
	b->skb->truesize -= skb->truesize;
	kfree_skb(skb);
}

/*
 * Add a packet without copying its payload: a fragment for its header in
 * the super-packet's header page, the payload's pages as they are, into
 * the super-packet or a buffer chained to it.  Return: 0, -ENOMEM, or as
 * eri_sim_sgl_attach(), with nothing added.
 */
static int eri_sim_txb_attach(struct eri_sim_qp *qp,
			      const struct eri_wire_hdr *hdr,
			      const struct eri_sim_txsrc *src)
{
	u32 need = 1 + eri_sim_txb_frags_needed(src);
	struct eri_sim_txb *b = &qp->txb;
	struct skb_shared_info *si;
	u32 nr, blen, truesize;
	struct sk_buff *skb;
	int ret;

	/* One packet's fragments never span two buffers. */
	if (need > MAX_SKB_FRAGS)
		return -EOPNOTSUPP;
	if (!b->hpage || b->hoff + sizeof(*hdr) > PAGE_SIZE) {
		struct page *page = alloc_page(GFP_ATOMIC | __GFP_NOWARN);

		if (!page)
			return -ENOMEM;
		if (b->hpage)
			put_page(b->hpage);
		b->hpage = page;
		b->hoff = 0;
	}
	skb = eri_sim_txb_frag_skb(b, need);
	if (!skb)
		return -ENOMEM;
	si = skb_shinfo(skb);
	nr = si->nr_frags;
	blen = skb->len;
	truesize = skb->truesize;
	memcpy(page_address(b->hpage) + b->hoff, hdr, sizeof(*hdr));
	get_page(b->hpage);
	skb_fill_page_desc(skb, nr, b->hpage, b->hoff, sizeof(*hdr));
	b->hoff += sizeof(*hdr);
	skb->len += sizeof(*hdr);
	skb->data_len += sizeof(*hdr);
	skb->truesize += sizeof(*hdr);
	if (src->w)
		ret = eri_sim_sgl_attach(qp, qp->pdn, src->w->sge,
					 src->w->num_sge, src->off, src->len,
					 skb, &qp->tx_mrc);
	else
		ret = eri_sim_mr_attach(qp->sdev, src->mr, src->iova, src->len,
					skb);
	if (!ret) {
		if (skb != b->skb) {
			/* A chained buffer's bytes are the super-packet's. */
			b->skb->len += skb->len - blen;
			b->skb->data_len += skb->len - blen;
			b->skb->truesize += skb->truesize - truesize;
		}
		return 0;
	}
	/* Take back the fragments of the packet, header and all. */
	while (si->nr_frags > nr)
		put_page(skb_frag_page(&si->frags[--si->nr_frags]));
	skb->data_len -= skb->len - blen;
	skb->len = blen;
	skb->truesize = truesize;
	/* A chained buffer may not be empty (skb_segment() needs fragments). */
	if (skb != b->skb && !skb->len)
		eri_sim_txb_unchain(b);
	return ret;
}

/*
 * A super-packet that takes a packet of @seg_len bytes, zero-copy or not
 * (@zc): the one being built, or a new one after sending it.
 */
static int eri_sim_txb_open(struct eri_sim_qp *qp, u32 seg_len, bool zc)
{
	struct eri_sim_txb *b = &qp->txb;
	int ret;

	if (eri_sim_txb_full(b, seg_len, zc))
		eri_sim_txb_flush(qp);
	if (b->skb)
		return 0;
	ret = eri_sim_txb_start(qp, seg_len);
	if (ret)
		return ret;
	b->zc = zc;
	return 0;
}

/*
 * eri_sim_txb_add() of a payload sent from its region's pages.  Return: as
 * eri_sim_txb_add(), or -EOPNOTSUPP when it must be copied (pages that
 * cannot be shared, or more fragments than one buffer takes).
 */
static int eri_sim_txb_add_zc(struct eri_sim_qp *qp,
			      const struct eri_wire_hdr *hdr,
			      const struct eri_sim_txsrc *src)
{
	struct eri_sim_txb *b = &qp->txb;
	u32 seg_len = sizeof(*hdr) + src->len;
	int ret;

	ret = eri_sim_txb_open(qp, seg_len, true);
	if (ret)
		return ret;
	ret = eri_sim_txb_attach(qp, hdr, src);
	if (ret)
		return ret;
	b->nsegs++;
	if (seg_len < b->seg_len)
		b->closed = true;
	return 0;
}

/*
 * Room for a packet of @seg_len bytes in the QP's super-packet: the one
 * being built, or a new one after sending it.
 */
static int eri_sim_txb_make_room(struct eri_sim_qp *qp, u32 seg_len)
{
	struct eri_sim_txb *b = &qp->txb;
	int ret;

	ret = eri_sim_txb_open(qp, seg_len, false);
	if (ret)
		return ret;
	ret = eri_sim_txb_reserve(b, seg_len);
	if (!ret || !b->nsegs)
		return ret;
	/* Out of pages or fragment slots: send what there is, start anew. */
	eri_sim_txb_flush(qp);
	ret = eri_sim_txb_start(qp, seg_len);
	if (ret)
		return ret;
	return eri_sim_txb_reserve(b, seg_len);
}

/* Copy @n bytes of @src's payload, from @done on, to @p. */
static int eri_sim_txb_copy(struct eri_sim_qp *qp,
			    const struct eri_sim_txsrc *src, u32 done, void *p,
			    u32 n)
{
	const struct eri_sim_swqe *w = src->w;

	if (!w)
		return eri_sim_mr_copy(qp->sdev, src->mr, src->iova + done, p,
				       n, false);
	if (w->inline_data) {
		memcpy(p, w->data + src->off + done, n);
		return 0;
	}
	return eri_sim_sgl_read(qp, qp->pdn, w->sge, w->num_sge,
				src->off + done, p, n, &qp->tx_mrc);
}

/*
 * A packet with nothing before it in the super-packet and nothing after
 * it: one linear buffer of headers and payload, as an ACK is, with no
 * fragment to fill and no route lookup for the super-packet's size.  The
 * QP's super-packet, closed, so that eri_sim_txb_flush() sends it.
 */
static int eri_sim_txb_add_alone(struct eri_sim_qp *qp,
				 const struct eri_wire_hdr *hdr,
				 const struct eri_sim_txsrc *src)
{
	struct eri_sim_txb *b = &qp->txb;
	struct eri_wire_hdr *h;
	struct sk_buff *skb;
	int ret;

	skb = eri_sim_pkt_alloc(qp, src->len, &h);
	if (!skb)
		return -ENOMEM;
	*h = *hdr;
	ret = eri_sim_txb_copy(qp, src, 0, h + 1, src->len);
	if (ret) {
		kfree_skb(skb);
		return ret;
	}
	*b = (struct eri_sim_txb){
		.skb = skb,
		.fskb = skb,
		.seg_len = sizeof(*hdr) + src->len,
		.nsegs = 1,
		.max_segs = 1,
		.closed = true,
	};
	return 0;
}

/* eri_sim_txb_add() and eri_sim_txb_add_mr() of the payload @src. */
static int eri_sim_txb_add_src(struct eri_sim_qp *qp,
			       const struct eri_wire_hdr *hdr,
			       const struct eri_sim_txsrc *src, bool alone)
{
	struct eri_sim_txb *b = &qp->txb;
	u32 seg_len = sizeof(*hdr) + src->len, done = 0;
	struct eri_sim_txb_mark m;
	int ret;

	lockdep_assert_held(&qp->lock);
	if (alone && !b->skb && src->len < ERI_SIM_TXB_ZC_MIN)
		return eri_sim_txb_add_alone(qp, hdr, src);
	if ((!src->w || !src->w->inline_data) &&
	    src->len >= ERI_SIM_TXB_ZC_MIN) {
		ret = eri_sim_txb_add_zc(qp, hdr, src);
		if (ret != -EOPNOTSUPP)
			return ret;
	}
	ret = eri_sim_txb_make_room(qp, seg_len);
	if (ret) {
		eri_sim_txb_flush(qp);
		return ret;
	}
	eri_sim_txb_mark(b, &m);
	eri_sim_txb_put(b, hdr, sizeof(*hdr));
	while (done < src->len) {
		u32 n;
		void *p = eri_sim_txb_next(b, src->len - done, &n);

		ret = eri_sim_txb_copy(qp, src, done, p, n);
		if (ret) {
			eri_sim_txb_rewind(b, &m);
			return ret;
		}
		eri_sim_txb_commit(b, n);
		done += n;
	}
	b->nsegs++;
	if (seg_len < b->seg_len)
		b->closed = true;
	return 0;
}

/**
 * eri_sim_txb_add - put a data packet into the QP's super-packet
 * @qp: the requester's QP
 * @hdr: the packet's ERI header
 * @w: the WQE whose payload it carries
 * @off: offset of the payload in @w's message
 * @len: payload bytes
 * @alone: no packet follows it in this run of the requester (a message of
 *	one packet, the last posted)
 *
 * qp->lock held.  A packet longer than those before it, one past what the
 * route takes, or one copied after packets that were not (or the other
 * way round), starts a new super-packet after sending the one built; a
 * shorter one is the last of its super-packet.  A small packet @alone with
 * no super-packet open is built as a plain datagram.
 *
 * Return: 0; -ENOMEM (nothing was added); or the error of @w's local
 * buffer (-ENOENT, -EACCES, -ERANGE, -EFAULT), which fails the WQE.
 */
int eri_sim_txb_add(struct eri_sim_qp *qp, const struct eri_wire_hdr *hdr,
		    const struct eri_sim_swqe *w, u32 off, u32 len, bool alone)
{
	struct eri_sim_txsrc src = { .w = w, .off = off, .len = len };

	return eri_sim_txb_add_src(qp, hdr, &src, alone);
}

/**
 * eri_sim_txb_add_mr - put a READ response into the QP's super-packet
 * @qp: the responder's QP
 * @hdr: the packet's ERI header
 * @mr: the region it is read from, from eri_sim_mr_get() for its bytes
 * @iova: the payload's first byte in @mr
 * @len: payload bytes
 *
 * qp->lock held; as eri_sim_txb_add().
 *
 * Return: 0, -ENOMEM, or -EFAULT (a page of the region that is not mapped).
 */
int eri_sim_txb_add_mr(struct eri_sim_qp *qp, const struct eri_wire_hdr *hdr,
		       struct eri_sim_mr *mr, u64 iova, u32 len)
{
	struct eri_sim_txsrc src = { .mr = mr, .iova = iova, .len = len };

	return eri_sim_txb_add_src(qp, hdr, &src, false);
}

/**
 * eri_sim_txb_finish - the QP's super-packet, ready to send
 * @qp: the QP
 *
 * qp->lock held.  Several packets make a GSO buffer, a single one a plain
 * datagram.
 *
 * Return: the buffer, no longer the QP's; NULL when there is none, or it holds
 * no packet.
 */
VISIBLE_IF_KUNIT struct sk_buff *eri_sim_txb_finish(struct eri_sim_qp *qp)
{
	struct eri_sim_txb *b = &qp->txb;
	struct sk_buff *skb = b->skb;
	struct skb_shared_info *si;

	lockdep_assert_held(&qp->lock);
	if (b->hpage) {
		/* Its header fragments hold their own references. */
		put_page(b->hpage);
		b->hpage = NULL;
	}
	if (!skb)
		return NULL;
	si = skb_shinfo(skb);
	/* Pages a process may write while the stack holds them. */
	if (b->zc) {
		struct sk_buff *iter;

		si->flags |= SKBFL_SHARED_FRAG;
		skb_walk_frags(skb, iter)
			skb_shinfo(iter)->flags |= SKBFL_SHARED_FRAG;
	}
	/* Pages reserved and left empty. */
	while (si->nr_frags && !skb_frag_size(&si->frags[si->nr_frags - 1])) {
		u32 i = --si->nr_frags;

		skb->truesize -= eri_sim_txb_frag_cap(b, i);
		put_page(skb_frag_page(&si->frags[i]));
	}
	b->skb = NULL;
	if (!b->nsegs) {
		kfree_skb(skb);
		return NULL;
	}
	if (b->nsegs > 1) {
		si->gso_size = b->seg_len;
		si->gso_type = SKB_GSO_UDP_L4;
		si->gso_segs = b->nsegs;
	}
	return skb;
}

/**
 * eri_sim_txb_flush - send the QP's super-packet
 * @qp: the QP
 *
 * qp->lock held.  Several packets go as one GSO buffer, a single one as a
 * plain datagram.
 */
void eri_sim_txb_flush(struct eri_sim_qp *qp)
{
	struct sk_buff *skb = eri_sim_txb_finish(qp);

	if (skb)
		eri_sim_pkt_xmit(qp, skb);
}

/**
 * eri_sim_rx_split - check the packets of a received buffer
 * @skb: a datagram, or several packets at once (a super-packet that was
 *	never cut, or datagrams UDP GRO merged); its data starts at the first
 *	ERI header
 * @seg_len: where the length of every packet but the last goes
 * @nsegs: where the number of packets goes
 * @first: where the first packet's header goes
 *
 * Pure: reads @skb's bytes and nothing else.
 *
 * Return: true when every packet has a whole header of this version and names
 * the destination and source QP of the first; otherwise nothing of the buffer
 * may be used.
 */
bool eri_sim_rx_split(const struct sk_buff *skb, u32 *seg_len, u32 *nsegs,
		      struct eri_wire_hdr *first)
{
	const u32 hlen = sizeof(*first);
	u32 seg = skb->len, n = 1, i;
	struct eri_sim_skb_cur cur;

	if (skb_is_gso(skb)) {
		seg = skb_shinfo(skb)->gso_size;
		/* No packet is shorter than its header or longer than an MTU. */
		if (seg < hlen || seg > hlen + ERI_SIM_MAX_PAYLOAD)
			return false;
		n = DIV_ROUND_UP(skb->len, seg);
	}
	eri_sim_skb_cur_init(&cur, skb);
	if (skb->len < hlen || eri_sim_skb_cur_copy(&cur, 0, first, hlen))
		return false;
	for (i = 1; i < n; i++) {
		u32 off = i * seg, len = min(seg, skb->len - off);
		struct eri_wire_hdr h;

		if (len < hlen || eri_sim_skb_cur_copy(&cur, off, &h, hlen) ||
		    h.version != first->version || h.dqpn != first->dqpn ||
		    h.sqpn != first->sqpn)
			return false;
	}
	*seg_len = seg;
	*nsegs = n;
	return true;
}
