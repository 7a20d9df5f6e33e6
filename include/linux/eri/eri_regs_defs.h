/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ERI device register map.
 *
 * The register window is 4 KiB of little-endian 32-bit registers.  The
 * driver reaches it only through the bus accessors of struct eri_bus_dev
 * (see eri_bus.h); Documentation/infiniband/eri.rst is the specification.
 */
#ifndef _ERI_REGS_DEFS_H_
#define _ERI_REGS_DEFS_H_

#include <linux/bits.h>

#define ERI_REGS_SIZE			4096

/* Spec version implemented by the device (RO). */
#define ERI_REG_VERSION			0x000
#define ERI_REG_VERSION_MAJOR		GENMASK(31, 16)
#define ERI_REG_VERSION_MINOR		GENMASK(15, 0)

#define ERI_SPEC_VERSION_MAJOR		1
#define ERI_SPEC_VERSION_MINOR		0

/* Device-level capabilities needed before the admin queue exists (RO). */
#define ERI_REG_CAPS			0x004
#define ERI_REG_CAPS_NUM_VECTORS	GENMASK(7, 0)
#define ERI_REG_CAPS_MAX_AQ_DEPTH_LOG	GENMASK(11, 8)
#define ERI_REG_CAPS_MAX_EQ_DEPTH_LOG	GENMASK(19, 12)
#define ERI_REG_CAPS_MAX_CEQS		GENMASK(27, 20)

/* Device control (RW).  Writes are posted; DEV_STS tells the outcome. */
#define ERI_REG_DEV_CTL			0x008
#define ERI_REG_DEV_CTL_ENABLE		BIT(0)
#define ERI_REG_DEV_CTL_RESET		BIT(1)

/* Device status (RO). */
#define ERI_REG_DEV_STS			0x00c
#define ERI_REG_DEV_STS_READY		BIT(0)
#define ERI_REG_DEV_STS_RESETTING	BIT(1)
#define ERI_REG_DEV_STS_FATAL		BIT(2)
#define ERI_REG_DEV_STS_ERR		GENMASK(15, 8)

/* Values of ERI_REG_DEV_STS_ERR when FATAL is set. */
enum eri_dev_err {
	ERI_DEV_ERR_NONE = 0,
	ERI_DEV_ERR_BAD_AQ_CONFIG = 1,
	ERI_DEV_ERR_BAD_AEQ_CONFIG = 2,
	ERI_DEV_ERR_DMA = 3,
};

/* Upper bound of admin command execution time in milliseconds (RO). */
#define ERI_REG_ADMIN_TIMEOUT_MS	0x010

/* PCI-style identity (RO). */
#define ERI_REG_VENDOR_ID		0x014
#define ERI_VENDOR_ID_OUI		GENMASK(23, 0)
#define ERI_REG_DEVICE_ID		0x018

/* Admin queue: submission and completion rings of 2^depth_log entries. */
#define ERI_REG_AQ_SQ_BASE_LO		0x020
#define ERI_REG_AQ_SQ_BASE_HI		0x024
#define ERI_REG_AQ_CQ_BASE_LO		0x028
#define ERI_REG_AQ_CQ_BASE_HI		0x02c
#define ERI_REG_AQ_DEPTH_LOG		0x030
/* Doorbell: the free-running 16-bit producer index of the submission ring. */
#define ERI_REG_AQ_SQ_DB		0x034
#define ERI_REG_AQ_SQ_DB_PI		GENMASK(15, 0)

/* Async event queue. */
#define ERI_REG_AEQ_BASE_LO		0x040
#define ERI_REG_AEQ_BASE_HI		0x044
#define ERI_REG_AEQ_DEPTH_LOG		0x048
#define ERI_REG_AEQ_DBREC_LO		0x04c
#define ERI_REG_AEQ_DBREC_HI		0x050
/* Doorbell: consumer index and arm, in the ERI_EQ_DB_* format. */
#define ERI_REG_AEQ_DB			0x054

/*
 * Queue pair doorbells: writing a QPN tells the device that the queue's
 * producer index in the doorbell record moved (see struct eri_qp_dbrec).
 */
#define ERI_REG_SQ_DB			0x060
#define ERI_REG_RQ_DB			0x064
#define ERI_REG_QP_DB_QPN		GENMASK(23, 0)

/* Event queue doorbells of the completion event queues, one per EQN. */
#define ERI_REG_CEQ_DB_BASE		0x400
#define ERI_REG_CEQ_DB(eqn)		(ERI_REG_CEQ_DB_BASE + 4 * (eqn))
#define ERI_MAX_CEQS			128

/*
 * Interrupt vectors: vector 0 signals admin completions and async events,
 * vector n (n >= 1) the completion event queue created with that vector.
 */
#define ERI_MGMT_VECTOR			0

#endif /* _ERI_REGS_DEFS_H_ */
