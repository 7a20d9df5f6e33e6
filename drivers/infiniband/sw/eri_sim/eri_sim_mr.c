// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim memory regions: the device's MR table and the translation of
 * (key, PD, access, iova, length) into host memory.
 *
 * REG_MR copies the driver's page list into memory of the device's own, so
 * later writes to the list change nothing.  Every access takes a reference
 * on the region; DEREG_MR removes the region from the table and completes only
 * once the last access dropped its reference, so deregistration with traffic
 * in flight is safe.  Lookups run under RCU and free the region after a grace
 * period.
 */
#include <linux/bitfield.h>
#include <linux/hash.h>
#include <linux/net.h>
#include <linux/overflow.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "eri_sim.h"
#include "eri_wire_defs.h"

#define ERI_SIM_MR_MIN_PAGE_SHIFT	12
#define ERI_SIM_MR_MAX_PAGE_SHIFT	30
/* Fast registration checks its pages under a lock: 2 MiB at most. */
#define ERI_SIM_FAST_REG_MAX_PAGE_SHIFT	21

struct eri_sim_mr {
	/*
	 * Protects the fields below up to @pages of a fast-registration
	 * region, which REG_MR and LOCAL_INV work requests change; other
	 * regions never change them after REG_MR.
	 */
	spinlock_t lock;
	u32 key;
	u32 pdn;
	u32 access;		/* ERI_MR_ACCESS_* */
	bool dma;		/* bus addresses, one to one */
	bool fast_reg;		/* filled in by work requests */
	bool valid;		/* accessible at all */
	u32 max_pages;		/* room in @pages of a fast-registration one */
	u64 iova;
	u64 length;
	u32 page_shift;
	u32 npages;
	void **pages;		/* kernel address of each page */
	refcount_t ref;		/* the table's, plus one per access */
	struct completion unused;
	struct rcu_head rcu;
};

static u64 eri_sim_mr_base(const struct eri_sim_mr *mr)
{
	return round_down(mr->iova, 1ULL << mr->page_shift);
}

static u8 eri_sim_mr_check(struct eri_sim_dev *sdev,
			   const struct eri_aq_reg_mr_cmd *cmd, u32 cfg)
{
	u64 iova = le64_to_cpu(cmd->iova), length = le64_to_cpu(cmd->length);
	u32 shift = FIELD_GET(ERI_AQ_REG_MR_PAGE_SHIFT, cfg);
	u32 npages = le32_to_cpu(cmd->npages);
	u64 end, span;

	if (FIELD_GET(ERI_MR_KEY_INDEX, le32_to_cpu(cmd->key)) >=
	    ERI_SIM_MAX_MR ||
	    le32_to_cpu(cmd->pdn) >= ERI_SIM_MAX_PD)
		return ERI_AQ_STS_BAD_PARAM;
	if (cfg & ERI_AQ_REG_MR_FAST_REG)
		return npages && npages <= ERI_SIM_MAX_FAST_REG_PAGES &&
		       !(cfg & ERI_AQ_REG_MR_DMA) ?
		       ERI_AQ_STS_OK : ERI_AQ_STS_BAD_PARAM;
	if (check_add_overflow(iova, length, &end))
		return ERI_AQ_STS_BAD_PARAM;
	if (cfg & ERI_AQ_REG_MR_DMA)
		return npages ? ERI_AQ_STS_BAD_PARAM : ERI_AQ_STS_OK;
	if (shift < ERI_SIM_MR_MIN_PAGE_SHIFT ||
	    shift > ERI_SIM_MR_MAX_PAGE_SHIFT ||
	    !npages || npages > ERI_SIM_MR_MAX_PAGES)
		return ERI_AQ_STS_BAD_PARAM;
	/* The pages must cover the region from iova's page on. */
	span = (u64)npages << shift;
	if (end - round_down(iova, 1ULL << shift) > span)
		return ERI_AQ_STS_BAD_PARAM;
	return ERI_AQ_STS_OK;
}

/*
 * Look up page @i, at bus address @addr, of the region [@iova, @iova +
 * @length) whose pages of 2^@shift bytes start at @iova's page: *@page is
 * the kernel address of its first byte.  Only the bytes of the page that
 * the region covers must be mapped (a page list rounds its first and last
 * page to the page size, ib_umem's and a ULP's ib_sg_to_pages() alike,
 * and those may reach past the mapping); no access reaches the others.  A
 * page the region does not reach is NULL.  Return: false when @addr is
 * not aligned or the covered bytes are not mapped, by one mapping.
 */
static bool eri_sim_mr_page(struct eri_sim_dev *sdev, u64 iova, u64 length,
			    u32 shift, u32 i, u64 addr, void **page)
{
	u64 start = round_down(iova, 1ULL << shift) + ((u64)i << shift);
	u64 lo = max(iova, start);
	u64 hi = min(iova + length, start + (1ULL << shift));
	void *p;

	*page = NULL;
	if (!IS_ALIGNED(addr, 1ULL << shift))
		return false;
	if (lo >= hi)
		return true;
	p = eri_sim_dma_ptr(sdev, addr + (lo - start), hi - lo);
	if (!p)
		return false;
	*page = p - (lo - start);
	return true;
}

/* Copy and check the page list; device context. */
static u8 eri_sim_mr_load_pages(struct eri_sim_dev *sdev,
				struct eri_sim_mr *mr, u64 pbl_addr)
{
	const __le64 *pbl;
	u32 i;

	pbl = eri_sim_dma_ptr(sdev, pbl_addr, (size_t)mr->npages * sizeof(*pbl));
	if (!pbl)
		return ERI_AQ_STS_DMA_ERR;
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return ERI_AQ_STS_NO_RESOURCE;
	for (i = 0; i < mr->npages; i++) {
		if (!eri_sim_mr_page(sdev, mr->iova, mr->length,
				     mr->page_shift, i,
				     le64_to_cpu(READ_ONCE(pbl[i])),
				     &mr->pages[i])) {
			kvfree(mr->pages);
			return ERI_AQ_STS_BAD_PARAM;
		}
	}
	return ERI_AQ_STS_OK;
}

u8 eri_sim_reg_mr(struct eri_sim_dev *sdev, const struct eri_aq_reg_mr_cmd *cmd)
{
	u32 cfg = le32_to_cpu(cmd->cfg);
	struct eri_sim_mr *mr;
	u8 status;
	int ret;

	status = eri_sim_mr_check(sdev, cmd, cfg);
	if (status)
		return status;
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERI_AQ_STS_NO_RESOURCE;
	spin_lock_init(&mr->lock);
	mr->key = le32_to_cpu(cmd->key);
	mr->pdn = le32_to_cpu(cmd->pdn);
	refcount_set(&mr->ref, 1);
	init_completion(&mr->unused);
	if (cfg & ERI_AQ_REG_MR_FAST_REG) {
		mr->fast_reg = true;
		mr->max_pages = le32_to_cpu(cmd->npages);
		mr->pages = kvcalloc(mr->max_pages, sizeof(*mr->pages),
				     GFP_KERNEL);
		if (!mr->pages) {
			status = ERI_AQ_STS_NO_RESOURCE;
			goto err_free_mr;
		}
		goto insert;
	}
	mr->valid = true;
	mr->access = FIELD_GET(ERI_AQ_REG_MR_ACCESS, cfg);
	mr->dma = cfg & ERI_AQ_REG_MR_DMA;
	mr->iova = le64_to_cpu(cmd->iova);
	mr->length = le64_to_cpu(cmd->length);
	if (!mr->dma) {
		mr->page_shift = FIELD_GET(ERI_AQ_REG_MR_PAGE_SHIFT, cfg);
		mr->npages = le32_to_cpu(cmd->npages);
		status = eri_sim_mr_load_pages(sdev, mr,
					       le64_to_cpu(cmd->pbl_addr));
		if (status)
			goto err_free_mr;
	}
insert:
	ret = xa_insert(&sdev->mrs, FIELD_GET(ERI_MR_KEY_INDEX, mr->key), mr,
			GFP_KERNEL);
	if (ret) {
		status = ret == -EBUSY ? ERI_AQ_STS_EXISTS :
					 ERI_AQ_STS_NO_RESOURCE;
		goto err_free_pages;
	}
	return ERI_AQ_STS_OK;

err_free_pages:
	kvfree(mr->pages);
err_free_mr:
	kfree(mr);
	return status;
}

/* Remove @mr from the table and free it once unused; device context. */
static void eri_sim_mr_destroy(struct eri_sim_dev *sdev, struct eri_sim_mr *mr)
{
	xa_erase(&sdev->mrs, FIELD_GET(ERI_MR_KEY_INDEX, mr->key));
	eri_sim_mr_put(mr);
	wait_for_completion(&mr->unused);
	kvfree(mr->pages);
	kfree_rcu(mr, rcu);
}

u8 eri_sim_dereg_mr(struct eri_sim_dev *sdev,
		    const struct eri_aq_dereg_mr_cmd *cmd)
{
	u32 key = le32_to_cpu(cmd->key);
	struct eri_sim_mr *mr;

	mr = xa_load(&sdev->mrs, FIELD_GET(ERI_MR_KEY_INDEX, key));
	/* A fast-registration region goes by any variant of its index. */
	if (!mr || (!mr->fast_reg && mr->key != key))
		return ERI_AQ_STS_NOT_FOUND;
	eri_sim_mr_destroy(sdev, mr);
	return ERI_AQ_STS_OK;
}

/* Forget every region (reset); device context. */
void eri_sim_mrs_destroy(struct eri_sim_dev *sdev)
{
	struct eri_sim_mr *mr;
	unsigned long index;

	xa_for_each(&sdev->mrs, index, mr)
		eri_sim_mr_destroy(sdev, mr);
}

/* The checks of eri_sim_mr_get(); mr->lock held for a fast-reg region. */
static int eri_sim_mr_allows(const struct eri_sim_mr *mr, u32 key, u32 pdn,
			     u32 access, u64 iova, u64 len)
{
	u64 end;

	if (!mr->valid || mr->key != key)
		return -ENOENT;
	if (mr->pdn != pdn || (mr->access & access) != access)
		return -EACCES;
	if (check_add_overflow(iova, len, &end) ||
	    (!mr->dma && (iova < mr->iova || end > mr->iova + mr->length)))
		return -ERANGE;
	return 0;
}

/* eri_sim_mr_allows() of a region in use, under its lock if it can change. */
static int eri_sim_mr_check_access(struct eri_sim_mr *mr, u32 key, u32 pdn,
				   u32 access, u64 iova, u64 len)
{
	int ret;

	/* Only fast-registration regions change after REG_MR. */
	if (!mr->fast_reg)
		return eri_sim_mr_allows(mr, key, pdn, access, iova, len);
	spin_lock_bh(&mr->lock);
	ret = eri_sim_mr_allows(mr, key, pdn, access, iova, len);
	spin_unlock_bh(&mr->lock);
	return ret;
}

/**
 * eri_sim_mr_get - look up a region for one access
 * @sdev: the device
 * @key: the lkey or rkey presented
 * @pdn: the PD of the queue pair making the access
 * @access: ERI_MR_ACCESS_* rights the access needs (0: local read)
 * @iova: first byte
 * @len: bytes
 * @mrp: the region, with a reference for the caller to put
 *
 * Any context.
 *
 * Return: 0, -ENOENT for an unknown key, -EACCES for another PD or a missing
 * right, -ERANGE when the bytes are not all in the region.
 */
int eri_sim_mr_get(struct eri_sim_dev *sdev, u32 key, u32 pdn, u32 access,
		   u64 iova, u64 len, struct eri_sim_mr **mrp)
{
	struct eri_sim_mr *mr;
	int ret;

	rcu_read_lock();
	mr = xa_load(&sdev->mrs, FIELD_GET(ERI_MR_KEY_INDEX, key));
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	if (!mr)
		return -ENOENT;
	ret = eri_sim_mr_check_access(mr, key, pdn, access, iova, len);
	if (ret) {
		eri_sim_mr_put(mr);
		return ret;
	}
	*mrp = mr;
	return 0;
}

void eri_sim_mr_put(struct eri_sim_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->unused);
}

/**
 * eri_sim_mr_get_cached - eri_sim_mr_get() for a packet of a batch
 * @sdev: the device
 * @c: the batch's cache, or NULL for a lookup of its own
 * @key: as eri_sim_mr_get()
 * @pdn: as eri_sim_mr_get()
 * @access: as eri_sim_mr_get()
 * @iova: as eri_sim_mr_get()
 * @len: as eri_sim_mr_get()
 * @mrp: as eri_sim_mr_get()
 *
 * A key of the region in @c is checked against that region as it is now
 * (its key, PD, rights and bounds; a fast-registration region under its
 * lock), without a lookup; another key replaces the region in @c.  The
 * caller of the batch holds whatever serializes the batch (qp->lock) and
 * empties @c with eri_sim_mr_cache_drop() when it ends; a deregistration
 * waits for that.
 *
 * Return: as eri_sim_mr_get(); release *@mrp with eri_sim_mr_put_cached().
 */
int eri_sim_mr_get_cached(struct eri_sim_dev *sdev, struct eri_sim_mr_cache *c,
			  u32 key, u32 pdn, u32 access, u64 iova, u64 len,
			  struct eri_sim_mr **mrp)
{
	u32 index = FIELD_GET(ERI_MR_KEY_INDEX, key);
	struct eri_sim_mr *mr;
	int ret;

	if (!c)
		return eri_sim_mr_get(sdev, key, pdn, access, iova, len, mrp);
	if (c->mr && c->index == index) {
		ret = eri_sim_mr_check_access(c->mr, key, pdn, access, iova, len);
		if (!ret)
			*mrp = c->mr;
		return ret;
	}
	ret = eri_sim_mr_get(sdev, key, pdn, access, iova, len, &mr);
	if (ret)
		return ret;
	eri_sim_mr_cache_drop(c);
	c->mr = mr;
	c->index = index;
	*mrp = mr;
	return 0;
}

/* Release a region eri_sim_mr_get_cached() gave for the cache @c. */
void eri_sim_mr_put_cached(struct eri_sim_mr_cache *c, struct eri_sim_mr *mr)
{
	if (!c)
		eri_sim_mr_put(mr);
}

/* Forget the region of @c: its batch ended. */
void eri_sim_mr_cache_drop(struct eri_sim_mr_cache *c)
{
	if (!c->mr)
		return;
	eri_sim_mr_put(c->mr);
	c->mr = NULL;
}

/*
 * The kernel address of @iova in @mr and how many bytes from there lie in
 * one host page (at most @len).  A region's pages were looked up when it
 * was registered; a DMA region's bus addresses are looked up here.
 * Return: the address, or NULL when a DMA region's page is not mapped.
 */
static void *eri_sim_mr_chunk(struct eri_sim_dev *sdev, struct eri_sim_mr *mr,
			      u64 iova, size_t len, size_t *chunk)
{
	u64 off;
	void *p;

	if (mr->dma) {
		*chunk = min_t(u64, len, PAGE_SIZE - offset_in_page(iova));
		return eri_sim_dma_ptr(sdev, iova, *chunk);
	}
	off = iova - eri_sim_mr_base(mr);
	p = mr->pages[off >> mr->page_shift] +
	    (off & ((1ULL << mr->page_shift) - 1));
	*chunk = min_t(u64, len, PAGE_SIZE - offset_in_page(p));
	return p;
}

/**
 * eri_sim_mr_copy - copy between a buffer and a region
 * @sdev: the device
 * @mr: a region from eri_sim_mr_get() that covers [iova, iova + len)
 * @iova: first byte of the region
 * @buf: the buffer
 * @len: bytes
 * @to_mr: copy from @buf into the region, else from the region into @buf
 *
 * Any context.
 *
 * Return: 0, or -EFAULT when a page is not mapped.
 */
int eri_sim_mr_copy(struct eri_sim_dev *sdev, struct eri_sim_mr *mr, u64 iova,
		    void *buf, size_t len, bool to_mr)
{
	while (len) {
		size_t chunk;
		void *p;

		p = eri_sim_mr_chunk(sdev, mr, iova, len, &chunk);
		if (!p)
			return -EFAULT;
		if (to_mr)
			memcpy(p, buf, chunk);
		else
			memcpy(buf, p, chunk);
		buf += chunk;
		iova += chunk;
		len -= chunk;
	}
	return 0;
}

/**
 * eri_sim_mr_attach - add a region's bytes to a packet as page fragments
 * @sdev: the device
 * @mr: a region from eri_sim_mr_get() that covers [iova, iova + len)
 * @iova: first byte of the region
 * @len: bytes
 * @skb: the packet; its fragments take a reference on each page
 *
 * Any context.  The packet may outlive the region: its references keep
 * the pages.
 *
 * Return: 0; -EFAULT when a page is not mapped, -EOPNOTSUPP when one cannot be
 * shared (slab memory of a kernel region: copy it instead), -ENOSPC when @skb's
 * fragment slots run out.  Fragments added before a failure stay; the caller
 * takes them back.
 */
int eri_sim_mr_attach(struct eri_sim_dev *sdev, struct eri_sim_mr *mr,
		      u64 iova, size_t len, struct sk_buff *skb)
{
	while (len) {
		u32 i = skb_shinfo(skb)->nr_frags;
		struct page *page;
		size_t chunk;
		void *p;

		p = eri_sim_mr_chunk(sdev, mr, iova, len, &chunk);
		if (!p)
			return -EFAULT;
		page = virt_to_page(p);
		if (!sendpage_ok(page))
			return -EOPNOTSUPP;
		if (i && skb_can_coalesce(skb, i, page, offset_in_page(p))) {
			skb_frag_size_add(&skb_shinfo(skb)->frags[i - 1], chunk);
		} else {
			if (i >= MAX_SKB_FRAGS)
				return -ENOSPC;
			get_page(page);
			skb_fill_page_desc(skb, i, page, offset_in_page(p),
					   chunk);
		}
		skb->len += chunk;
		skb->data_len += chunk;
		skb->truesize += chunk;
		iova += chunk;
		len -= chunk;
	}
	return 0;
}

/**
 * eri_sim_mr_place - copy received bytes into a region
 * @sdev: the device
 * @mr: a region from eri_sim_mr_get() that covers [iova, iova + len)
 * @iova: first byte of the region
 * @cur: a cursor in the packet (linear or not: a super-packet keeps its
 *	pages)
 * @off: offset of the bytes in the cursor's buffer
 * @len: bytes
 *
 * Any context.
 *
 * Return: 0, or -EFAULT when a page is not mapped or the buffer holds fewer
 * bytes.
 */
int eri_sim_mr_place(struct eri_sim_dev *sdev, struct eri_sim_mr *mr, u64 iova,
		     struct eri_sim_skb_cur *cur, u32 off, size_t len)
{
	while (len) {
		size_t chunk;
		void *p;

		p = eri_sim_mr_chunk(sdev, mr, iova, len, &chunk);
		if (!p || eri_sim_skb_cur_copy(cur, off, p, chunk))
			return -EFAULT;
		off += chunk;
		iova += chunk;
		len -= chunk;
	}
	return 0;
}

/*
 * Atomics of every eri_sim device serialize on these locks, hashed by the
 * physical address of the word: each protects the read-modify-write of the
 * words that hash to it, so atomics from any QP of any device (all of them
 * reach the same host memory) are atomic with respect to each other.  The
 * CPU and READs and WRITEs do not take them (IB_ATOMIC_HCA).  Taken inside
 * qp->lock, never nested with each other.
 */
#define ERI_SIM_ATOMIC_LOCKS_LOG	6
static spinlock_t eri_sim_atomic_locks[1U << ERI_SIM_ATOMIC_LOCKS_LOG] = {
	[0 ... (1U << ERI_SIM_ATOMIC_LOCKS_LOG) - 1] =
		__SPIN_LOCK_UNLOCKED(eri_sim_atomic_locks),
};

/**
 * eri_sim_mr_atomic - execute an atomic on an 8-byte word of a region
 * @sdev: the device
 * @mr: the region, from eri_sim_mr_get() for these 8 bytes
 * @iova: the word's address, 8-byte aligned
 * @op: enum eri_wire_atomic_op
 * @swap_add: swap value (CMP_SWP) or addend (FETCH_ADD)
 * @compare: CMP_SWP's compare value
 * @orig: where the word's value before the atomic goes
 *
 * Any context.  An aligned word never crosses a page: one translation.
 * Return: 0, -EINVAL for a bad @op or alignment, -EFAULT.
 */
int eri_sim_mr_atomic(struct eri_sim_dev *sdev, struct eri_sim_mr *mr,
		      u64 iova, u32 op, u64 swap_add, u64 compare, u64 *orig)
{
	size_t chunk;
	u64 *p, val;
	u32 h;

	if (!IS_ALIGNED(iova, sizeof(u64)) ||
	    (op != ERI_ATOMIC_CMP_SWP && op != ERI_ATOMIC_FETCH_ADD))
		return -EINVAL;
	/* Pages are aligned to at least 4 KiB: the word stays aligned. */
	p = eri_sim_mr_chunk(sdev, mr, iova, sizeof(u64), &chunk);
	if (!p || chunk != sizeof(u64) || !IS_ALIGNED((unsigned long)p, 8))
		return -EFAULT;
	h = hash_64(virt_to_phys(p) >> 3, ERI_SIM_ATOMIC_LOCKS_LOG);
	/* Serializes with every other atomic on this word (see above). */
	spin_lock_bh(&eri_sim_atomic_locks[h]);
	val = READ_ONCE(*p);
	if (op == ERI_ATOMIC_FETCH_ADD)
		WRITE_ONCE(*p, val + swap_add);
	else if (val == compare)
		WRITE_ONCE(*p, swap_add);
	spin_unlock_bh(&eri_sim_atomic_locks[h]);
	*orig = val;
	return 0;
}

/* Look up the fast-registration region of @key's index for a WR. */
static struct eri_sim_mr *eri_sim_fast_mr_get(struct eri_sim_dev *sdev,
					      u32 key)
{
	struct eri_sim_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mrs, FIELD_GET(ERI_MR_KEY_INDEX, key));
	if (mr && (!mr->fast_reg || !refcount_inc_not_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/**
 * eri_sim_mr_fast_reg - execute a REG_MR work request
 * @sdev: the device
 * @pdn: the PD of the QP that posted it
 * @key: the key to register, index of a fast-registration region
 * @reg: the rest of the request, as the device copied it
 *
 * Any context.  The consumer must not register a region again while an
 * access through its previous registration may still be in progress.
 * Return: 0, or -EINVAL for a request the device refuses.
 */
int eri_sim_mr_fast_reg(struct eri_sim_dev *sdev, u32 pdn, u32 key,
			const struct eri_sim_reg_mr *reg)
{
	u32 shift = reg->page_shift, i;
	struct eri_sim_mr *mr;
	const __le64 *pbl;
	u64 end;
	int ret = -EINVAL;

	mr = eri_sim_fast_mr_get(sdev, key);
	if (!mr)
		return -EINVAL;
	if (shift < ERI_SIM_MR_MIN_PAGE_SHIFT ||
	    shift > ERI_SIM_FAST_REG_MAX_PAGE_SHIFT || !reg->npages ||
	    check_add_overflow(reg->iova, reg->length, &end) ||
	    end - round_down(reg->iova, 1ULL << shift) >
	    (u64)reg->npages << shift)
		goto out_put;
	pbl = eri_sim_dma_ptr(sdev, reg->pbl_addr,
			      (size_t)reg->npages * sizeof(*pbl));
	if (!pbl)
		goto out_put;

	spin_lock_bh(&mr->lock);
	if (mr->valid || mr->pdn != pdn || reg->npages > mr->max_pages)
		goto out_unlock;
	for (i = 0; i < reg->npages; i++)
		if (!eri_sim_mr_page(sdev, reg->iova, reg->length, shift, i,
				     le64_to_cpu(READ_ONCE(pbl[i])),
				     &mr->pages[i]))
			goto out_unlock;
	mr->npages = reg->npages;
	mr->page_shift = shift;
	mr->iova = reg->iova;
	mr->length = reg->length;
	mr->access = reg->access;
	mr->key = key;
	mr->valid = true;
	ret = 0;
out_unlock:
	spin_unlock_bh(&mr->lock);
out_put:
	eri_sim_mr_put(mr);
	return ret;
}

/**
 * eri_sim_mr_invalidate - execute LOCAL_INV, or the invalidation of SEND_INV
 * @sdev: the device
 * @pdn: the PD of the QP
 * @key: the key to invalidate
 *
 * Any context.
 *
 * Return: 0, or -EINVAL when @key names no valid fast-registration region of
 * @pdn.
 */
int eri_sim_mr_invalidate(struct eri_sim_dev *sdev, u32 pdn, u32 key)
{
	struct eri_sim_mr *mr = eri_sim_fast_mr_get(sdev, key);
	int ret = -EINVAL;

	if (!mr)
		return -EINVAL;
	spin_lock_bh(&mr->lock);
	if (mr->valid && mr->key == key && mr->pdn == pdn) {
		mr->valid = false;
		ret = 0;
	}
	spin_unlock_bh(&mr->lock);
	eri_sim_mr_put(mr);
	return ret;
}
