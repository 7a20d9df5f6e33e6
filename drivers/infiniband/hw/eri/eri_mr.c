// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI memory regions: keys, and the page list the device translates with.
 *
 * A key is an index from the device's MR table (an IDA) and a variant byte
 * that changes on every registration, so a stale key of a reused index does
 * not reach the new region.  The page list is handed to the device in a
 * DMA buffer that the device copies during REG_MR and that is freed after.
 *
 * A fast-registration MR (alloc_mr) keeps its page list for its lifetime:
 * map_mr_sg fills it in, and the device reads it when it runs the REG_MR
 * work request that registers the MR (eri_qp.c).
 */
#include <linux/bitfield.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>

#include "eri_verbs.h"

#define ERI_MR_IB_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)

/* Pages of a fast-registration region: 4 KiB to 2 MiB (eri.rst). */
#define ERI_FAST_REG_MIN_PAGE_SHIFT	12
#define ERI_FAST_REG_MAX_PAGE_SHIFT	21

static u32 eri_mr_access(int access)
{
	return (access & IB_ACCESS_LOCAL_WRITE ? ERI_MR_ACCESS_LOCAL_WRITE : 0) |
	       (access & IB_ACCESS_REMOTE_READ ? ERI_MR_ACCESS_REMOTE_READ : 0) |
	       (access & IB_ACCESS_REMOTE_WRITE ? ERI_MR_ACCESS_REMOTE_WRITE : 0) |
	       (access & IB_ACCESS_REMOTE_ATOMIC ? ERI_MR_ACCESS_REMOTE_ATOMIC : 0);
}

/**
 * eri_mr_access_to_dev - translate the rights of a REG_MR work request
 * @access: IB_ACCESS_* flags
 * @dev_access: where the ERI_MR_ACCESS_* rights go
 *
 * Accepts what a registration through the admin queue accepts: local write,
 * remote read, write and atomic, and optional hints, which are ignored.
 *
 * Return: 0, or -EINVAL for rights the device does not grant.
 */
int eri_mr_access_to_dev(int access, u32 *dev_access)
{
	if (access & ~(ERI_MR_IB_ACCESS | IB_ACCESS_OPTIONAL))
		return -EINVAL;
	*dev_access = eri_mr_access(access);
	return 0;
}

/* Allocate a region and its key; fill in what REG_MR needs of them. */
static struct eri_mr *eri_mr_alloc(struct ib_pd *ibpd, int access,
				   struct eri_com_mr_attr *attr)
{
	struct eri_dev *edev = to_eri_dev(ibpd->device);
	struct eri_mr *mr;
	int index;

	/* Optional access flags (relaxed ordering) are hints we may ignore. */
	if (access & ~(ERI_MR_IB_ACCESS | IB_ACCESS_OPTIONAL) ||
	    ((access & IB_ACCESS_REMOTE_ATOMIC) &&
	     !(edev->attr.caps & ERI_DEV_CAP_ATOMIC)))
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	index = ida_alloc_max(&edev->mr_ida, edev->attr.max_mr - 1, GFP_KERNEL);
	if (index < 0) {
		kfree(mr);
		return ERR_PTR(index);
	}
	mr->ibmr.lkey = FIELD_PREP(ERI_MR_KEY_INDEX, index) |
			FIELD_PREP(ERI_MR_KEY_VARIANT,
				   atomic_inc_return(&edev->mr_variant));
	mr->ibmr.rkey = mr->ibmr.lkey;
	attr->key = mr->ibmr.lkey;
	attr->pdn = to_eri_pd(ibpd)->pdn;
	attr->access = eri_mr_access(access);
	return mr;
}

static void eri_mr_free(struct eri_dev *edev, struct eri_mr *mr)
{
	ida_free(&edev->mr_ida, FIELD_GET(ERI_MR_KEY_INDEX, mr->ibmr.lkey));
	kfree(mr);
}

struct ib_mr *eri_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct eri_dev *edev = to_eri_dev(ibpd->device);
	struct eri_com_mr_attr attr = { .dma = true };
	struct eri_mr *mr;
	int ret;

	mr = eri_mr_alloc(ibpd, access, &attr);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	ret = eri_com_reg_mr(&edev->com, &attr);
	if (ret) {
		eri_mr_free(edev, mr);
		return ERR_PTR(ret);
	}
	return &mr->ibmr;
}

/**
 * eri_mr_fill_pbl - write the page list of a region
 * @umem: the region, DMA-mapped, its iova set by ib_umem_find_best_pgsz()
 *	(a CQ's ring: the address it was pinned at, page aligned)
 * @pgsz: the page size the device translates it with, a power of 2
 * @pbl: where the bus address of each page goes
 * @max: entries @pbl holds
 *
 * Entry i is the bus address of the @pgsz block that holds byte
 * i * @pgsz of the region counted from @umem->iova rounded down to @pgsz;
 * the device adds the offset of the iova within its block.  Pure: reads
 * the umem and its scatterlist, writes @pbl.
 *
 * Return: the entries written: ib_umem_num_dma_blocks(), or @max if that
 * is smaller.
 */
u32 eri_mr_fill_pbl(struct ib_umem *umem, unsigned long pgsz, __le64 *pbl,
		    u32 max)
{
	struct ib_block_iter biter;
	u32 i = 0;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		if (i == max)
			break;
		pbl[i++] = cpu_to_le64(rdma_block_iter_dma_address(&biter));
	}
	return i;
}

/* Build the page list of the region's umem in @pgsz blocks; register it. */
static int eri_mr_reg_umem(struct eri_dev *edev, struct eri_mr *mr,
			   struct eri_com_mr_attr *attr, unsigned long pgsz)
{
	struct eri_com_buf pbl;
	int ret;

	attr->npages = ib_umem_num_dma_blocks(mr->umem, pgsz);
	attr->page_shift = order_base_2(pgsz);
	ret = eri_com_buf_alloc(&edev->com, &pbl,
				attr->npages * sizeof(__le64));
	if (ret)
		return ret;
	eri_mr_fill_pbl(mr->umem, pgsz, pbl.va, attr->npages);
	attr->pbl = pbl.dma;
	ret = eri_com_reg_mr(&edev->com, attr);
	/* The device copied the list while it ran REG_MR. */
	eri_com_buf_free(&edev->com, &pbl);
	return ret;
}

struct ib_mr *eri_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibpd->device);
	struct eri_com_mr_attr attr = { .iova = iova, .length = length };
	unsigned long pgsz;
	struct eri_mr *mr;
	int ret;

	mr = eri_mr_alloc(ibpd, access, &attr);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		goto err_free_mr;
	}
	pgsz = ib_umem_find_best_pgsz(mr->umem, edev->attr.page_size_cap, iova);
	if (!pgsz) {
		ret = -EINVAL;
		goto err_release_umem;
	}
	ret = eri_mr_reg_umem(edev, mr, &attr, pgsz);
	if (ret)
		goto err_release_umem;
	return &mr->ibmr;

err_release_umem:
	ib_umem_release(mr->umem);
err_free_mr:
	eri_mr_free(edev, mr);
	return ERR_PTR(ret);
}

/**
 * eri_alloc_mr - allocate a fast-registration MR
 * @ibpd: the PD
 * @mr_type: IB_MR_TYPE_MEM_REG; other types are not supported
 * @max_num_sg: pages the MR may map at most
 *
 * Reserves a key index for the PD on the device (REG_MR with FAST_REG) and
 * allocates the page list that map_mr_sg fills in.  The MR is invalid until
 * a REG_MR work request registers it.  Sleeps.
 *
 * Return: the MR, or an ERR_PTR: -EOPNOTSUPP for another type or a device
 * without fast registration, -EINVAL for more pages than the device allows.
 */
struct ib_mr *eri_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			   u32 max_num_sg)
{
	struct eri_dev *edev = to_eri_dev(ibpd->device);
	struct eri_com_mr_attr attr = { .fast_reg = true };
	struct eri_mr *mr;
	int ret;

	if (mr_type != IB_MR_TYPE_MEM_REG ||
	    !(edev->attr.caps & ERI_DEV_CAP_FAST_REG))
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > edev->attr.max_fast_reg_pages)
		return ERR_PTR(-EINVAL);

	mr = eri_mr_alloc(ibpd, 0, &attr);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	ret = eri_com_buf_alloc(&edev->com, &mr->pbl,
				(size_t)max_num_sg * sizeof(__le64));
	if (ret)
		goto err_free_mr;
	mr->max_pages = max_num_sg;
	attr.npages = max_num_sg;
	ret = eri_com_reg_mr(&edev->com, &attr);
	if (ret)
		goto err_free_pbl;
	return &mr->ibmr;

err_free_pbl:
	eri_com_buf_free(&edev->com, &mr->pbl);
err_free_mr:
	eri_mr_free(edev, mr);
	return ERR_PTR(ret);
}

/* ib_sg_to_pages() callback: append the bus address of one page. */
static int eri_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct eri_mr *mr = to_eri_mr(ibmr);
	__le64 *pages = mr->pbl.va;

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	pages[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

/**
 * eri_map_mr_sg - fill in the page list of a fast-registration MR
 * @ibmr: the MR, from eri_alloc_mr()
 * @sg: the DMA-mapped scatterlist
 * @sg_nents: entries in @sg
 * @sg_offset: offset into the first entry, updated as ib_sg_to_pages() does
 *
 * Replaces the MR's page list; the core has set ibmr->page_size.  The
 * consumer must not map the MR again while a REG_MR work request of it is
 * outstanding: the device reads the list when it runs the request.  Any
 * context.
 *
 * Return: the number of entries of @sg mapped, or a negative errno.
 */
int eri_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct eri_mr *mr = to_eri_mr(ibmr);
	unsigned int shift;

	if (!mr->pbl.va || !is_power_of_2(ibmr->page_size))
		return -EINVAL;
	shift = ilog2(ibmr->page_size);
	if (shift < ERI_FAST_REG_MIN_PAGE_SHIFT ||
	    shift > ERI_FAST_REG_MAX_PAGE_SHIFT)
		return -EINVAL;
	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, eri_set_page);
}

int eri_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct eri_dev *edev = to_eri_dev(ibmr->device);
	struct eri_mr *mr = to_eri_mr(ibmr);
	int ret;

	/*
	 * Once it completes the device no longer touches the pages, nor the
	 * page list of a fast-registration MR.
	 */
	ret = eri_com_dereg_mr(&edev->com, ibmr->lkey);
	if (ret)
		return ret;
	ib_umem_release(mr->umem);
	eri_com_buf_free(&edev->com, &mr->pbl);
	eri_mr_free(edev, mr);
	return 0;
}
