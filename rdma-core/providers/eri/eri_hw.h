/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * liberi: the ERI device structures that userspace shares with the device
 * through mmap()ed memory (completion queue entries, send and receive WQEs,
 * the CQ and QP doorbell records).
 *
 * eri_io_defs.h and eri_ring.h are the kernel's include/linux/eri/ files,
 * carried verbatim (the build copies them here): one definition of every
 * format for the device, the driver and us.  They take BIT(), GENMASK()
 * and static_assert() from their includer.  All fields are little endian
 * except the immediate data, which is carried in network byte order as the
 * verbs hand it over.
 */
#ifndef __ERI_HW_H__
#define __ERI_HW_H__

#include <assert.h>
#include <endian.h>
#include <stdint.h>
#include <linux/types.h>

#include <util/util.h>

#include "eri_io_defs.h"
#include "eri_ring.h"

/* Largest total length of one WQE the device accepts. */
#define ERI_WQE_MAX_LENGTH		(1ULL << 31)

#define ERI_CQE_SHIFT			5

static_assert(sizeof(struct eri_cqe) == 1 << ERI_CQE_SHIFT, "eri_cqe size");

/*
 * Accessors for memory the device reads or writes concurrently (doorbell
 * records, the owner word of a CQE): one untorn access the compiler may
 * neither elide, repeat nor merge.  Ordering is the caller's business, with
 * the barriers of <util/udma_barrier.h> or a full fence.
 */
static inline uint32_t eri_read_once32(const __le32 *p)
{
	return le32toh(*(const volatile __le32 *)p);
}

static inline void eri_write_once32(__le32 *p, uint32_t val)
{
	*(volatile __le32 *)p = htole32(val);
}

#endif /* __ERI_HW_H__ */
