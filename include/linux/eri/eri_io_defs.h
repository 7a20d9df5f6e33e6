/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ERI event queues and doorbells: entry formats shared by the device and
 * the driver through rings in host memory.  All fields are little endian.
 *
 * Every ring the device produces into uses an owner bit: the device writes
 * an entry with owner = 1 on its first pass over the ring, 0 on the second,
 * and so on; a consumer owns an entry when the owner bit equals the parity of
 * its own pass (starting at 1 on zeroed memory), reads the owner bit first
 * and then, after dma_rmb(), the rest of the entry.
 */
#ifndef _ERI_IO_DEFS_H_
#define _ERI_IO_DEFS_H_

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

/* Async event queue entry. */
struct eri_aeqe {
	__le32 hdr;
	__le32 subject;			/* port, QPN or CQN, per event type */
	__le64 data;
};

#define ERI_AEQE_HDR_OWNER		BIT(0)
#define ERI_AEQE_HDR_TYPE		GENMASK(15, 8)

static_assert(sizeof(struct eri_aeqe) == 16);

enum eri_aeqe_type {
	/* Port state, MTU or speed changed: query the port. */
	ERI_AEQE_PORT_CHANGE = 1,
	/* Completion event queue @subject overflowed; events were lost. */
	ERI_AEQE_CEQ_OVERFLOW = 2,
};

/* Completion event queue entry: CQ @cqn has a new completion. */
struct eri_ceqe {
	__le32 hdr;
	__le32 cqn;
};

#define ERI_CEQE_HDR_OWNER		BIT(0)

static_assert(sizeof(struct eri_ceqe) == 8);

/*
 * Event queue doorbell (ERI_REG_AEQ_DB, ERI_REG_CEQ_DB(n)): the free-running
 * 16-bit consumer index and, with ARM set, a request for one interrupt at
 * the next event.  The driver writes the same value into the queue's 8-byte
 * doorbell record before it rings the doorbell; the device reads the record
 * to learn how much room the ring has.
 */
#define ERI_EQ_DB_CI			GENMASK(15, 0)
#define ERI_EQ_DB_ARM			BIT(31)

struct eri_dbrec {
	__le64 val;
};

static_assert(sizeof(struct eri_dbrec) == 8);

#endif /* _ERI_IO_DEFS_H_ */
