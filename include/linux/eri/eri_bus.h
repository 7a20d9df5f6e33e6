/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The binding between an ERI device and the eri driver.
 *
 * An ERI device is what a MoC PCI function would be: a register window,
 * interrupt vectors and DMA.  struct eri_bus_dev is all the driver's core sees
 * of it; whatever provides the device fills it in: the software device
 * (eri_sim) over the auxiliary bus, or the binding of a PCI function.
 * Register accessors stand in for MMIO and never sleep; interrupt handlers
 * are called in atomic context, as hard interrupt handlers are.
 */
#ifndef _ERI_BUS_H_
#define _ERI_BUS_H_

#include <linux/auxiliary_bus.h>
#include <linux/interrupt.h>
#include <linux/types.h>

/* Auxiliary device name: "<provider module>.eri". */
#define ERI_AUX_DEV_NAME	"eri"

struct eri_bus_dev;

struct eri_bus_ops {
	u32 (*reg_read32)(struct eri_bus_dev *bdev, u32 off);
	void (*reg_write32)(struct eri_bus_dev *bdev, u32 off, u32 val);
	/*
	 * Attach @handler to interrupt @vector (< the vector count in
	 * ERI_REG_CAPS).  After free_irq() returns, the handler is not
	 * running and will not run again.
	 */
	int (*request_irq)(struct eri_bus_dev *bdev, unsigned int vector,
			   irq_handler_t handler, void *data);
	void (*free_irq)(struct eri_bus_dev *bdev, unsigned int vector);
};

struct eri_bus_dev {
	struct auxiliary_device adev;
	const struct eri_bus_ops *ops;
	/* Device that DMA memory is allocated and mapped for. */
	struct device *dma_dev;
	/* The network port the device sends and receives on. */
	struct net_device *netdev;
	/* Requested IB device name, or NULL for "eri%d". */
	const char *ibdev_name;
	/* The device was created by the user (rdma link add) and may be
	 * removed by the user (rdma link delete).
	 */
	bool user_removable;
};

static inline struct eri_bus_dev *to_eri_bus_dev(struct auxiliary_device *adev)
{
	return container_of(adev, struct eri_bus_dev, adev);
}

#endif /* _ERI_BUS_H_ */
