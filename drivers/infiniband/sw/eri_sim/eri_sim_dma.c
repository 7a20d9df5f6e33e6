// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim DMA: the bus addresses of the software device, and how it reaches
 * the memory they name (Documentation/infiniband/eri.rst, "Binding").
 *
 * The simulator is the bus as well as the device: its auxiliary device has
 * DMA operations of its own, so every mapping the driver makes for it
 * (coherent memory, dma_map_single(), ib_umem's scatterlists, a kernel
 * ULP's ib_dma_map_*()) comes here, never to dma-direct, swiotlb or an
 * IOMMU, and the device uses the pages it was given, not bounce buffers.
 * A mapping gets a range of the device's own I/O address space, handed out
 * in increasing order and never reused while the device lives, with an
 * unmapped page before it; the IOTLB (@sdev->iotlb, bus page number to host
 * page) is the only way from a bus address to memory.  An address it does
 * not hold is a DMA error, never a dereference.
 */
#include <linux/dma-map-ops.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>

#include <kunit/visibility.h>

#include "eri_sim.h"

/*
 * The first bus page: nothing below 4 GiB is ever mapped, so that neither
 * zero nor a physical address handed over by mistake names memory.
 */
#define ERI_SIM_DMA_FIRST_PFN	(SZ_4G >> PAGE_SHIFT)
/* The last bus page: the top of a 64-bit address space. */
#define ERI_SIM_DMA_LAST_PFN	(U64_MAX >> PAGE_SHIFT)
/*
 * A mapping's bus address agrees with its physical one modulo up to this
 * size, as dma-direct's would: ib_umem then finds the same large pages.
 */
#define ERI_SIM_DMA_MAX_ALIGN	SZ_1G

static struct eri_sim_dev *eri_sim_dma_dev(struct device *dev)
{
	return to_eri_sim_dev(to_eri_bus_dev(to_auxiliary_dev(dev)));
}

/*
 * Bus pages for @npages pages starting at host page @pfn: a range after a
 * page that stays unmapped, so that no two mappings are contiguous.
 * Return: its first bus page number, or 0 when the address space is spent.
 */
static unsigned long eri_sim_dma_range(struct eri_sim_dev *sdev,
				       unsigned long pfn, unsigned long npages)
{
	unsigned long align = min_t(unsigned long,
				    rounddown_pow_of_two(npages),
				    ERI_SIM_DMA_MAX_ALIGN >> PAGE_SHIFT);
	long old = atomic_long_read(&sdev->dma_next_pfn);
	unsigned long start;

	do {
		start = ALIGN((unsigned long)old + 1, align) +
			(pfn & (align - 1));
		if (start > ERI_SIM_DMA_LAST_PFN - npages)
			return 0;
	} while (!atomic_long_try_cmpxchg(&sdev->dma_next_pfn, &old,
					  start + npages));
	return start;
}

/* Forget the @npages bus pages from @first on; in any context. */
static void eri_sim_dma_unmap_range(struct eri_sim_dev *sdev,
				    unsigned long first, unsigned long npages)
{
	unsigned long flags, i;

	/* A page at a time: interrupts stay off briefly, however large. */
	for (i = 0; i < npages; i++) {
		xa_lock_irqsave(&sdev->iotlb, flags);
		__xa_erase(&sdev->iotlb, first + i);
		xa_unlock_irqrestore(&sdev->iotlb, flags);
	}
}

/**
 * eri_sim_dma_map - give physically contiguous memory a bus address
 * @sdev: the device
 * @page: its first page
 * @offset: its first byte's offset from @page (may exceed a page)
 * @size: its length in bytes
 *
 * Any context: the IOTLB's entries are allocated without sleeping, charged
 * to the memory cgroup of the task that maps (XA_FLAGS_ACCOUNT: a process
 * registering memory pays for its entries).
 *
 * Return: the bus address of the first byte, or DMA_MAPPING_ERROR.
 */
VISIBLE_IF_KUNIT dma_addr_t eri_sim_dma_map(struct eri_sim_dev *sdev,
					    struct page *page,
					    unsigned long offset, size_t size)
{
	unsigned long npages, first, flags, i;
	int ret;

	page = nth_page(page, offset >> PAGE_SHIFT);
	offset &= ~PAGE_MASK;
	npages = max(PFN_UP(offset + size), 1UL);
	first = eri_sim_dma_range(sdev, page_to_pfn(page), npages);
	if (!first)
		return DMA_MAPPING_ERROR;
	for (i = 0; i < npages; i++) {
		xa_lock_irqsave(&sdev->iotlb, flags);
		ret = xa_err(__xa_store(&sdev->iotlb, first + i,
					nth_page(page, i),
					GFP_NOWAIT | __GFP_NOWARN));
		xa_unlock_irqrestore(&sdev->iotlb, flags);
		if (ret) {
			eri_sim_dma_unmap_range(sdev, first, i);
			return DMA_MAPPING_ERROR;
		}
	}
	return PFN_PHYS(first) + offset;
}
EXPORT_SYMBOL_IF_KUNIT(eri_sim_dma_map);

/* Undo eri_sim_dma_map() of @size bytes at @addr. */
static void eri_sim_dma_unmap(struct eri_sim_dev *sdev, dma_addr_t addr,
			      size_t size)
{
	eri_sim_dma_unmap_range(sdev, PHYS_PFN(addr),
				max(PFN_UP(offset_in_page(addr) + size), 1UL));
}

static dma_addr_t eri_sim_dma_map_page(struct device *dev, struct page *page,
				       unsigned long offset, size_t size,
				       enum dma_data_direction dir,
				       unsigned long attrs)
{
	return eri_sim_dma_map(eri_sim_dma_dev(dev), page, offset, size);
}

static void eri_sim_dma_unmap_page(struct device *dev, dma_addr_t addr,
				   size_t size, enum dma_data_direction dir,
				   unsigned long attrs)
{
	eri_sim_dma_unmap(eri_sim_dma_dev(dev), addr, size);
}

static void eri_sim_dma_unmap_sg(struct device *dev, struct scatterlist *sgl,
				 int nents, enum dma_data_direction dir,
				 unsigned long attrs)
{
	struct eri_sim_dev *sdev = eri_sim_dma_dev(dev);
	struct scatterlist *sg;
	int i;

	for_each_sg(sgl, sg, nents, i)
		eri_sim_dma_unmap(sdev, sg_dma_address(sg), sg_dma_len(sg));
}

/* Each entry its own mapping: entries are contiguous, lists need not be. */
static int eri_sim_dma_map_sg(struct device *dev, struct scatterlist *sgl,
			      int nents, enum dma_data_direction dir,
			      unsigned long attrs)
{
	struct eri_sim_dev *sdev = eri_sim_dma_dev(dev);
	struct scatterlist *sg;
	int i;

	for_each_sg(sgl, sg, nents, i) {
		sg_dma_address(sg) = eri_sim_dma_map(sdev, sg_page(sg),
						     sg->offset, sg->length);
		if (sg_dma_address(sg) == DMA_MAPPING_ERROR) {
			eri_sim_dma_unmap_sg(dev, sgl, i, dir, attrs);
			return -ENOMEM;
		}
		sg_dma_len(sg) = sg->length;
	}
	return nents;
}

/* Coherent memory: zeroed whole pages, mapped as any other. */
static void *eri_sim_dma_alloc(struct device *dev, size_t size,
			       dma_addr_t *dma_handle, gfp_t gfp,
			       unsigned long attrs)
{
	void *va;

	size = PAGE_ALIGN(size);
	va = alloc_pages_exact(size, gfp | __GFP_ZERO);
	if (!va)
		return NULL;
	*dma_handle = eri_sim_dma_map(eri_sim_dma_dev(dev), virt_to_page(va),
				      0, size);
	if (*dma_handle == DMA_MAPPING_ERROR) {
		free_pages_exact(va, size);
		return NULL;
	}
	return va;
}

static void eri_sim_dma_free(struct device *dev, size_t size, void *va,
			     dma_addr_t dma_handle, unsigned long attrs)
{
	size = PAGE_ALIGN(size);
	eri_sim_dma_unmap(eri_sim_dma_dev(dev), dma_handle, size);
	free_pages_exact(va, size);
}

/*
 * The device is cache-coherent and uses the pages themselves: no sync
 * operation has anything to do.
 */
static const struct dma_map_ops eri_sim_dma_ops = {
	.alloc = eri_sim_dma_alloc,
	.free = eri_sim_dma_free,
	.map_page = eri_sim_dma_map_page,
	.map_sg = eri_sim_dma_map_sg,
	.unmap_page = eri_sim_dma_unmap_page,
	.unmap_sg = eri_sim_dma_unmap_sg,
};

/**
 * eri_sim_dma_init - an empty I/O address space for @sdev
 * @sdev: the device
 */
void eri_sim_dma_init(struct eri_sim_dev *sdev)
{
	xa_init_flags(&sdev->iotlb, XA_FLAGS_LOCK_IRQ | XA_FLAGS_ACCOUNT);
	atomic_long_set(&sdev->dma_next_pfn, ERI_SIM_DMA_FIRST_PFN);
}

/**
 * eri_sim_dma_attach - make the device's DMA operations those of @dev
 * @sdev: the device
 * @dev: the auxiliary device of @sdev, not yet bound, that the driver maps
 *	memory for
 *
 * A kernel built without per-device DMA operations (x86 has them with
 * GART_IOMMU or XEN) leaves @dev to dma-direct: its bus addresses are then
 * physical ones, which the device reaches through the linear map, and
 * bounce buffering (swiotlb=force) is not supported.
 *
 * Return: 0 or a negative errno.
 */
int eri_sim_dma_attach(struct eri_sim_dev *sdev, struct device *dev)
{
	sdev->dma_direct = !IS_ENABLED(CONFIG_ARCH_HAS_DMA_OPS) &&
			   !IS_ENABLED(CONFIG_DMA_OPS);
	if (!sdev->dma_direct)
		set_dma_ops(dev, &eri_sim_dma_ops);
	dma_set_max_seg_size(dev, UINT_MAX);
	return dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(64));
}

/**
 * eri_sim_dma_fini - forget what a driver left mapped
 * @sdev: the device, off the bus
 *
 * The pages stay their owners'.
 */
void eri_sim_dma_fini(struct eri_sim_dev *sdev)
{
	xa_destroy(&sdev->iotlb);
}

/**
 * eri_sim_dma_ptr - kernel address of a device-visible buffer
 * @sdev: the device
 * @addr: bus address the driver gave the device
 * @len: length of the access in bytes, > 0
 *
 * Any context.  The whole range must lie in one mapping (a mapping is
 * physically contiguous); the caller checks the length it may touch.
 *
 * Return: the kernel address of @len bytes at @addr, or NULL when a page of
 * the range is not mapped or belongs to another mapping.
 */
void *eri_sim_dma_ptr(struct eri_sim_dev *sdev, u64 addr, size_t len)
{
	unsigned long pfn = PHYS_PFN(addr), last, i;
	struct page *first;

	if (!len || addr + len < addr)
		return NULL;
	last = PHYS_PFN(addr + len - 1);
	if (sdev->dma_direct) {
		/* dma-direct's physical addresses: RAM the kernel may lend. */
		for (i = pfn; i <= last; i++)
			if (!pfn_valid(i) || PageReserved(pfn_to_page(i)))
				return NULL;
		return phys_to_virt(addr);
	}
	first = xa_load(&sdev->iotlb, pfn);
	if (!first)
		return NULL;
	for (i = 1; i <= last - pfn; i++)
		if (xa_load(&sdev->iotlb, pfn + i) != nth_page(first, i))
			return NULL;
	return page_address(first) + offset_in_page(addr);
}
