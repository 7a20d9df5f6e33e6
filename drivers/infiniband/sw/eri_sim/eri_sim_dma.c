// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim DMA: how the software device reaches host memory.
 *
 * The driver hands the device bus addresses of memory it allocated or mapped
 * for bus.dma_dev.  The simulated device has no IOMMU and is set up with a
 * 64-bit mask and no DMA ops, so those addresses are physical addresses
 * (dma-direct); the device reaches them through the kernel's linear map.
 * An address that is not backed by RAM is a DMA error, never a dereference.
 */
#include <linux/io.h>
#include <linux/mm.h>

#include "eri_sim.h"

/**
 * eri_sim_dma_ptr - kernel address of a device-visible buffer
 * @sdev: the device
 * @addr: bus address the driver gave the device
 * @len: length of the access in bytes, > 0
 *
 * Return: the address of @len bytes at @addr in the linear map, or NULL when
 * any page of the range is not RAM.  The range must be physically contiguous,
 * as coherent allocations are; the caller checks the length it may touch.
 */
void *eri_sim_dma_ptr(struct eri_sim_dev *sdev, u64 addr, size_t len)
{
	unsigned long pfn, last;

	if (!len || addr + len < addr)
		return NULL;
	last = PHYS_PFN(addr + len - 1);
	for (pfn = PHYS_PFN(addr); pfn <= last; pfn++)
		if (!pfn_valid(pfn) || PageReserved(pfn_to_page(pfn)))
			return NULL;
	return phys_to_virt(addr);
}
