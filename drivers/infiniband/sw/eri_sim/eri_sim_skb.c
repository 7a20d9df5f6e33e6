// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim received buffers read front to back.  A super-packet arrives as
 * the sender built it: a fragment per ERI header and one or more per
 * payload, on the buffer and on buffers chained to its frag_list.
 * skb_copy_bits() finds an offset by walking the fragments from the first,
 * so reading each of a super-packet's packets with it costs time in the
 * square of its length.  The receive path reads a buffer's packets in
 * order: a cursor (struct eri_sim_skb_cur) keeps the fragment the last
 * read ended in, and the next read starts there.
 */
#include <linux/highmem.h>
#include <linux/skbuff.h>

#include "eri_sim.h"

/**
 * eri_sim_skb_cur_init - a cursor at the first byte of a received buffer
 * @c: the cursor
 * @skb: the buffer; it must outlive the cursor and not change
 */
void eri_sim_skb_cur_init(struct eri_sim_skb_cur *c, const struct sk_buff *skb)
{
	c->root = skb;
	c->skb = skb;
	c->start = 0;
	c->frag = -1;
}

/* Bytes of the cursor's block: @skb's linear part or one of its fragments. */
static u32 eri_sim_skb_cur_block_len(const struct eri_sim_skb_cur *c)
{
	if (c->frag < 0)
		return skb_headlen(c->skb);
	return skb_frag_size(&skb_shinfo(c->skb)->frags[c->frag]);
}

/*
 * Move the cursor to the block after its own, in skb_copy_bits()'s order.
 * Return: false past the last block, or at a chained buffer with a chain
 * of its own (left to skb_copy_bits()): the cursor then no longer moves.
 */
static bool eri_sim_skb_cur_next(struct eri_sim_skb_cur *c)
{
	const struct sk_buff *next;

	c->start += eri_sim_skb_cur_block_len(c);
	if (c->frag + 1 < skb_shinfo(c->skb)->nr_frags) {
		c->frag++;
		return true;
	}
	next = c->skb == c->root ? skb_shinfo(c->root)->frag_list :
				   c->skb->next;
	if (!next || skb_has_frag_list(next)) {
		c->start = U32_MAX;
		return false;
	}
	c->skb = next;
	c->frag = -1;
	return true;
}

/* Copy @len bytes from @off into the cursor's block, all of them in it. */
static void eri_sim_skb_cur_read(const struct eri_sim_skb_cur *c, u32 off,
				 void *to, u32 len)
{
	const skb_frag_t *f;
	struct page *page;

	if (c->frag < 0) {
		memcpy(to, c->skb->data + off, len);
		return;
	}
	f = &skb_shinfo(c->skb)->frags[c->frag];
	page = skb_frag_page(f);
	off += skb_frag_off(f);
	/* A fragment may be a compound page: a page at a time. */
	while (len) {
		u32 n = min_t(u32, len, PAGE_SIZE - offset_in_page(off));

		memcpy_from_page(to, page + (off >> PAGE_SHIFT),
				 offset_in_page(off), n);
		to += n;
		off += n;
		len -= n;
	}
}

/**
 * eri_sim_skb_cur_copy - copy bytes of the cursor's buffer
 * @c: the cursor
 * @off: offset of the first byte in the buffer
 * @to: where they go
 * @len: bytes
 *
 * The cursor moves to the block of the last byte copied.  Reads at
 * increasing offsets cost the bytes and the blocks they cross; one before
 * the cursor's block is skb_copy_bits()'s, as is every read in a buffer
 * whose chained buffers have chains of their own.
 *
 * Return: 0, or -EFAULT when the buffer holds fewer bytes.
 */
int eri_sim_skb_cur_copy(struct eri_sim_skb_cur *c, u32 off, void *to,
			 u32 len)
{
	if (off > c->root->len || len > c->root->len - off)
		return -EFAULT;
	if (off < c->start)
		return skb_copy_bits(c->root, off, to, len);
	while (len) {
		u32 end = c->start + eri_sim_skb_cur_block_len(c), n;

		if (off >= end) {
			if (!eri_sim_skb_cur_next(c))
				return skb_copy_bits(c->root, off, to, len);
			continue;
		}
		n = min(len, end - off);
		eri_sim_skb_cur_read(c, off - c->start, to, n);
		to += n;
		off += n;
		len -= n;
	}
	return 0;
}
