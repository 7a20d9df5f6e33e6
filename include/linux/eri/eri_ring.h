/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ERI ring index arithmetic, shared by the device and the driver.
 *
 * Producers and consumers keep free-running 16-bit indices into rings of
 * 2^depth_log entries, depth_log <= ERI_RING_MAX_DEPTH_LOG; CQs 32-bit ones
 * (depth_log <= ERI_CQ_MAX_DEPTH_LOG).  The slot of index
 * i is its low depth_log bits; the owner bit of the entry written at i is 1
 * on even passes over the ring and 0 on odd ones (eri_io_defs.h).  Carried
 * verbatim by the userspace provider, as eri_io_defs.h.
 */
#ifndef _ERI_RING_H_
#define _ERI_RING_H_

#include <linux/types.h>

/* A 16-bit index must tell a full ring from an empty one. */
#define ERI_RING_MAX_DEPTH_LOG	15

/*
 * A CQ's indices are 32 bits wide (Documentation/infiniband/eri.rst,
 * "Completion queues"), so its ring may be larger; this deep with a page
 * list (ERI_DEV_CAP_CQ_PBL).
 */
#define ERI_CQ_MAX_DEPTH_LOG	22

static inline __u32 eri_ring_slot(__u32 idx, __u32 depth_log)
{
	return idx & ((1U << depth_log) - 1);
}

static inline __u32 eri_ring_owner(__u32 idx, __u32 depth_log)
{
	return !((idx >> depth_log) & 1);
}

/* Entries produced and not yet consumed; > depth means a broken producer. */
static inline __u32 eri_ring_used(__u16 pi, __u16 ci)
{
	/* A mask, not a (u16) cast: sparse warns of casts of constants. */
	return (pi - ci) & 0xffff;
}

/*
 * Entries of a CQ produced and not yet consumed: modulo 2^16 for a ring of
 * at most 2^ERI_RING_MAX_DEPTH_LOG entries, whose consumer may keep a
 * 16-bit index, modulo 2^32 for a larger one.
 */
static inline __u32 eri_cq_used(__u32 pi, __u32 ci, __u32 depth_log)
{
	if (depth_log <= ERI_RING_MAX_DEPTH_LOG)
		return (pi - ci) & 0xffff;
	return pi - ci;
}

#endif /* _ERI_RING_H_ */
