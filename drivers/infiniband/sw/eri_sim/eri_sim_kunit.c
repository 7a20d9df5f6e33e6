// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the software ERI device, driven through its device
 * interface: registers, rings in memory and interrupt vectors.  They cover
 * enable with bad configurations, every admin command with malformed input,
 * admin queue overrun, event queue owner bits, overflow and arming, the
 * register file, the DMA address checks, and queue pairs fed hostile send
 * queues (bad opcodes, lengths, formats, keys and indexes) and full CQs,
 * CQ rings by page list, and shared receive queues: the flush of WQEs a QP
 * took, hostile WQEs.  One case drives a bare QP's doorbell logic with
 * scripted time: the adaptive window of polling a drained send queue.
 */
#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/bottom_half.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "eri_sim_qp.h"

#define T_AQ_DEPTH_LOG	3
#define T_EQ_DEPTH_LOG	2

struct eri_sim_test {
	struct eri_sim_dev *sdev;
	u8 *sq;
	struct eri_aq_cqe *cq;
	struct eri_aeqe *aeq;
	struct eri_ceqe *ceq;
	struct eri_dbrec *dbrecs;	/* [0] AEQ, [1] CEQ */
	void *resp;
	u16 pi;
	u16 cq_ci;
	atomic_t irqs[ERI_SIM_NUM_VECTORS];
};

static void t_write(struct eri_sim_test *t, u32 off, u32 val)
{
	eri_sim_bus_ops.reg_write32(&t->sdev->bus, off, val);
}

static u32 t_read(struct eri_sim_test *t, u32 off)
{
	return eri_sim_bus_ops.reg_read32(&t->sdev->bus, off);
}

static void t_write64(struct eri_sim_test *t, u32 lo, u32 hi, u64 val)
{
	t_write(t, lo, lower_32_bits(val));
	t_write(t, hi, upper_32_bits(val));
}

/* The bus address of @len bytes at @p, mapped until the test ends. */
static u64 t_dma(struct eri_sim_test *t, const void *p, size_t len)
{
	return eri_sim_dma_map(t->sdev, virt_to_page(p), offset_in_page(p),
			       len);
}

static u64 t_dma_page(struct eri_sim_test *t, struct page *page, size_t len)
{
	return eri_sim_dma_map(t->sdev, page, 0, len);
}

static u64 t_ceq(struct eri_sim_test *t)
{
	return t_dma(t, t->ceq, sizeof(*t->ceq) << T_EQ_DEPTH_LOG);
}

static irqreturn_t t_irq(int vector, void *data)
{
	struct eri_sim_test *t = data;

	atomic_inc(&t->irqs[vector]);
	return IRQ_HANDLED;
}

static void t_sync(struct eri_sim_test *t)
{
	flush_workqueue(t->sdev->wq);
	/* Interrupts raised by the work just run. */
	flush_workqueue(t->sdev->wq);
}

static void t_program(struct eri_sim_test *t)
{
	t_write64(t, ERI_REG_AQ_SQ_BASE_LO, ERI_REG_AQ_SQ_BASE_HI,
		  t_dma(t, t->sq, ERI_AQ_SQE_SIZE << T_AQ_DEPTH_LOG));
	t_write64(t, ERI_REG_AQ_CQ_BASE_LO, ERI_REG_AQ_CQ_BASE_HI,
		  t_dma(t, t->cq, ERI_AQ_CQE_SIZE << T_AQ_DEPTH_LOG));
	t_write(t, ERI_REG_AQ_DEPTH_LOG, T_AQ_DEPTH_LOG);
	t_write64(t, ERI_REG_AEQ_BASE_LO, ERI_REG_AEQ_BASE_HI,
		  t_dma(t, t->aeq, sizeof(*t->aeq) << T_EQ_DEPTH_LOG));
	t_write64(t, ERI_REG_AEQ_DBREC_LO, ERI_REG_AEQ_DBREC_HI,
		  t_dma(t, &t->dbrecs[0], sizeof(t->dbrecs[0])));
	t_write(t, ERI_REG_AEQ_DEPTH_LOG, T_EQ_DEPTH_LOG);
}

static int eri_sim_test_init(struct kunit *test)
{
	struct eri_sim_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct eri_sim_dev *sdev;

	KUNIT_ASSERT_NOT_NULL(test, t);
	sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sdev);
	t->sdev = sdev;
	eri_sim_dev_init(sdev);
	sdev->wq = alloc_ordered_workqueue("eri_sim_kunit", 0);
	KUNIT_ASSERT_NOT_NULL(test, sdev->wq);
	sdev->qp_wq = alloc_workqueue("eri_sim_kunit_qp", 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, sdev->qp_wq);
	sdev->stats = alloc_percpu(struct eri_sim_stats);
	KUNIT_ASSERT_TRUE(test, !!sdev->stats);
	/* Packets are built on it; none of these tests sends one. */
	sdev->netdev = init_net.loopback_dev;

	t->sq = kunit_kzalloc(test, ERI_AQ_SQE_SIZE << T_AQ_DEPTH_LOG,
			      GFP_KERNEL);
	t->cq = kunit_kzalloc(test, ERI_AQ_CQE_SIZE << T_AQ_DEPTH_LOG,
			      GFP_KERNEL);
	t->aeq = kunit_kzalloc(test, sizeof(*t->aeq) << T_EQ_DEPTH_LOG,
			       GFP_KERNEL);
	t->ceq = kunit_kzalloc(test, sizeof(*t->ceq) << T_EQ_DEPTH_LOG,
			       GFP_KERNEL);
	t->dbrecs = kunit_kzalloc(test, 2 * sizeof(*t->dbrecs), GFP_KERNEL);
	t->resp = kunit_kzalloc(test, sizeof(struct eri_aq_device_attr),
				GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, t->sq && t->cq && t->aeq && t->ceq &&
			  t->dbrecs && t->resp);
	KUNIT_ASSERT_EQ(test, eri_sim_bus_ops.request_irq(&sdev->bus, 0, t_irq,
							  t), 0);
	KUNIT_ASSERT_EQ(test, eri_sim_bus_ops.request_irq(&sdev->bus, 1, t_irq,
							  t), 0);
	test->priv = t;
	return 0;
}

static void eri_sim_test_exit(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;

	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_RESET);
	t_sync(t);
	eri_sim_bus_ops.free_irq(&t->sdev->bus, 0);
	eri_sim_bus_ops.free_irq(&t->sdev->bus, 1);
	destroy_workqueue(t->sdev->wq);
	destroy_workqueue(t->sdev->qp_wq);
	free_percpu(t->sdev->stats);
	eri_sim_dma_fini(t->sdev);
}

static void t_enable(struct kunit *test, struct eri_sim_test *t)
{
	t_program(t);
	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_ENABLE);
	t_sync(t);
	KUNIT_ASSERT_EQ(test, t_read(t, ERI_REG_DEV_STS),
			(u32)ERI_REG_DEV_STS_READY);
}

/* Submit one command and return its completion status. */
static u8 t_exec(struct kunit *test, struct eri_sim_test *t, void *cmd)
{
	struct eri_aq_cmd_hdr *hdr = cmd;
	u16 cookie = 0x100 + t->pi;
	struct eri_aq_cqe *cqe;
	u32 val, owner, got;

	/* Commands are reused: replace the previous cookie. */
	hdr->hdr &= ~cpu_to_le32(ERI_AQ_CMD_HDR_COOKIE);
	hdr->hdr |= cpu_to_le32(FIELD_PREP(ERI_AQ_CMD_HDR_COOKIE, cookie));
	memcpy(t->sq + eri_ring_slot(t->pi, T_AQ_DEPTH_LOG) * ERI_AQ_SQE_SIZE,
	       cmd, ERI_AQ_SQE_SIZE);
	t->pi++;
	t_write(t, ERI_REG_AQ_SQ_DB, t->pi);
	t_sync(t);

	cqe = &t->cq[eri_ring_slot(t->cq_ci, T_AQ_DEPTH_LOG)];
	val = le32_to_cpu(cqe->hdr);
	owner = FIELD_GET(ERI_AQ_CQE_HDR_OWNER, val);
	got = FIELD_GET(ERI_AQ_CQE_HDR_COOKIE, val);
	KUNIT_EXPECT_EQ(test, owner, eri_ring_owner(t->cq_ci, T_AQ_DEPTH_LOG));
	KUNIT_EXPECT_EQ(test, got, cookie);
	t->cq_ci++;
	return FIELD_GET(ERI_AQ_CQE_HDR_STATUS, val);
}

static __le32 t_hdr(enum eri_aq_opcode op)
{
	return cpu_to_le32(FIELD_PREP(ERI_AQ_CMD_HDR_OPCODE, op));
}

static u8 t_create_eq(struct kunit *test, struct eri_sim_test *t, u32 eqn,
		      u64 ring, u32 depth_log, u32 vector)
{
	struct eri_aq_create_eq_cmd cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_CREATE_EQ),
		.ring_addr = cpu_to_le64(ring),
		.dbrec_addr = cpu_to_le64(t_dma(t, &t->dbrecs[1],
						sizeof(t->dbrecs[1]))),
		.eqn = cpu_to_le32(eqn),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_EQ_DEPTH_LOG,
					      depth_log) |
				   FIELD_PREP(ERI_AQ_CREATE_EQ_VECTOR, vector)),
	};

	return t_exec(test, t, &cmd);
}

/* An address no mapping holds. */
#define T_NOT_RAM	BIT_ULL(51)

static void eri_sim_test_enable(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	u32 sts;

	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_REG_VERSION_MAJOR,
					t_read(t, ERI_REG_VERSION)),
			ERI_SPEC_VERSION_MAJOR);

	/* Admin queue depth out of range. */
	t_program(t);
	t_write(t, ERI_REG_AQ_DEPTH_LOG, ERI_SIM_MAX_AQ_DEPTH_LOG + 1);
	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_ENABLE);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, t_read(t, ERI_REG_DEV_STS),
			(u32)(ERI_REG_DEV_STS_FATAL |
			      FIELD_PREP(ERI_REG_DEV_STS_ERR,
					 ERI_DEV_ERR_BAD_AQ_CONFIG)));

	/* FATAL sticks until a reset. */
	t_program(t);
	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_ENABLE);
	t_sync(t);
	KUNIT_EXPECT_TRUE(test, t_read(t, ERI_REG_DEV_STS) &
				ERI_REG_DEV_STS_FATAL);
	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_RESET);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, t_read(t, ERI_REG_DEV_STS), 0U);
	KUNIT_EXPECT_EQ(test, t_read(t, ERI_REG_DEV_CTL), 0U);

	/* Admin ring not in RAM. */
	t_program(t);
	t_write64(t, ERI_REG_AQ_SQ_BASE_LO, ERI_REG_AQ_SQ_BASE_HI, T_NOT_RAM);
	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_ENABLE);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_REG_DEV_STS_ERR,
					t_read(t, ERI_REG_DEV_STS)),
			ERI_DEV_ERR_BAD_AQ_CONFIG);
	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_RESET);
	/* The device's worker may finish the reset before we look (SMP). */
	sts = t_read(t, ERI_REG_DEV_STS);
	KUNIT_EXPECT_TRUE(test, (sts & ERI_REG_DEV_STS_RESETTING) || !sts);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, t_read(t, ERI_REG_DEV_STS), 0U);

	/* Reset and enable written back to back: both happen, in order. */
	t_program(t);
	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_ENABLE);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, t_read(t, ERI_REG_DEV_STS),
			(u32)ERI_REG_DEV_STS_READY);
	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_RESET);
	t_sync(t);

	/* AEQ doorbell record not in RAM. */
	t_program(t);
	t_write64(t, ERI_REG_AEQ_DBREC_LO, ERI_REG_AEQ_DBREC_HI, T_NOT_RAM);
	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_ENABLE);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_REG_DEV_STS_ERR,
					t_read(t, ERI_REG_DEV_STS)),
			ERI_DEV_ERR_BAD_AEQ_CONFIG);
	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_RESET);
	t_sync(t);

	t_enable(test, t);
}

static void eri_sim_test_admin(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	struct eri_aq_query_device_cmd qd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_QUERY_DEVICE),
		.resp_len = cpu_to_le32(sizeof(struct eri_aq_device_attr)),
	};
	struct eri_aq_query_port_cmd qp = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_QUERY_PORT),
		.port = cpu_to_le32(2),
	};
	struct eri_aq_destroy_eq_cmd de = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_DESTROY_EQ),
		.eqn = cpu_to_le32(1),
	};
	struct eri_aq_cmd_hdr bad = { .hdr = t_hdr(0xee) };
	struct eri_aq_device_attr *attr = t->resp;
	u64 ceq = t_dma(t, t->ceq, sizeof(*t->ceq) << T_EQ_DEPTH_LOG);
	unsigned int i;

	t_enable(test, t);
	KUNIT_EXPECT_EQ(test, t_exec(test, t, &bad), ERI_AQ_STS_BAD_OPCODE);

	qd.resp_addr = cpu_to_le64(T_NOT_RAM);
	KUNIT_EXPECT_EQ(test, t_exec(test, t, &qd), ERI_AQ_STS_DMA_ERR);
	qd.resp_addr = cpu_to_le64(t_dma(t, t->resp,
					 sizeof(struct eri_aq_device_attr)));
	KUNIT_EXPECT_EQ(test, t_exec(test, t, &qd), ERI_AQ_STS_OK);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(attr->max_qp), 16384U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(attr->max_mtu), 4096);

	KUNIT_EXPECT_EQ(test, t_exec(test, t, &qp), ERI_AQ_STS_BAD_PARAM);
	qp.port = cpu_to_le32(1);
	KUNIT_EXPECT_EQ(test, t_exec(test, t, &qp), ERI_AQ_STS_OK);

	KUNIT_EXPECT_EQ(test, t_create_eq(test, t, ERI_SIM_MAX_CEQS, ceq,
					  T_EQ_DEPTH_LOG, 1),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_create_eq(test, t, 1, ceq, T_EQ_DEPTH_LOG,
					  ERI_MGMT_VECTOR),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_create_eq(test, t, 1, ceq, T_EQ_DEPTH_LOG,
					  ERI_SIM_NUM_VECTORS),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_create_eq(test, t, 1, T_NOT_RAM,
					  T_EQ_DEPTH_LOG, 1),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_create_eq(test, t, 1, ceq, 0, 1),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_create_eq(test, t, 1, ceq,
					  ERI_RING_MAX_DEPTH_LOG + 1, 1),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_exec(test, t, &de), ERI_AQ_STS_NOT_FOUND);
	KUNIT_EXPECT_EQ(test, t_create_eq(test, t, 1, ceq, T_EQ_DEPTH_LOG, 1),
			ERI_AQ_STS_OK);
	KUNIT_EXPECT_EQ(test, t_create_eq(test, t, 1, ceq, T_EQ_DEPTH_LOG, 1),
			ERI_AQ_STS_EXISTS);
	KUNIT_EXPECT_EQ(test, t_exec(test, t, &de), ERI_AQ_STS_OK);
	de.eqn = cpu_to_le32(~0U);
	KUNIT_EXPECT_EQ(test, t_exec(test, t, &de), ERI_AQ_STS_BAD_PARAM);

	/* More commands than the ring holds, one at a time: owner bits wrap. */
	for (i = 0; i < 2 << T_AQ_DEPTH_LOG; i++)
		KUNIT_EXPECT_EQ(test, t_exec(test, t, &bad),
				ERI_AQ_STS_BAD_OPCODE);
	KUNIT_EXPECT_GT(test, atomic_read(&t->irqs[ERI_MGMT_VECTOR]), 0);
}

/* A doorbell further ahead than the ring is deep stops the device. */
static void eri_sim_test_aq_overrun(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;

	t_enable(test, t);
	t_write(t, ERI_REG_AQ_SQ_DB, (1 << T_AQ_DEPTH_LOG) + 1);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, t_read(t, ERI_REG_DEV_STS),
			(u32)(ERI_REG_DEV_STS_FATAL |
			      FIELD_PREP(ERI_REG_DEV_STS_ERR,
					 ERI_DEV_ERR_BAD_AQ_CONFIG)));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(t->cq[0].hdr), 0U);
}

static void t_ceq_db(struct eri_sim_test *t, u16 ci, bool arm)
{
	t->dbrecs[1].val = cpu_to_le64(ci);
	t_write(t, ERI_REG_CEQ_DB(1), ci | (arm ? ERI_EQ_DB_ARM : 0));
}

static void eri_sim_test_eq(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	u32 depth = 1 << T_EQ_DEPTH_LOG;
	struct eri_aeqe *ae = &t->aeq[0];
	unsigned int i;

	t_enable(test, t);
	KUNIT_ASSERT_EQ(test, t_create_eq(test, t, 1, t_ceq(t),
					  T_EQ_DEPTH_LOG, 1), ERI_AQ_STS_OK);
	KUNIT_EXPECT_EQ(test, eri_sim_ceq_post(t->sdev, 2, 7), -ENODEV);

	/* Not armed: no interrupt. */
	for (i = 0; i < depth; i++)
		KUNIT_EXPECT_EQ(test, eri_sim_ceq_post(t->sdev, 1, 100 + i), 0);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->irqs[1]), 0);
	for (i = 0; i < depth; i++) {
		KUNIT_EXPECT_EQ(test, le32_to_cpu(t->ceq[i].hdr), 1U);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(t->ceq[i].cqn), 100 + i);
	}

	/* Full: the event is dropped and the AEQ says so. */
	KUNIT_EXPECT_EQ(test, eri_sim_ceq_post(t->sdev, 1, 200), -ENOSPC);
	KUNIT_EXPECT_EQ(test, t->sdev->ceq[1].overflows, 1ULL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_AEQE_HDR_TYPE,
					le32_to_cpu(ae->hdr)),
			ERI_AEQE_CEQ_OVERFLOW);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_AEQE_HDR_OWNER,
					le32_to_cpu(ae->hdr)), 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ae->subject), 1U);

	/* Arming with entries unconsumed interrupts at once. */
	t_ceq_db(t, 1, true);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->irqs[1]), 1);

	/* Consumed all: arm, then the next event interrupts once. */
	t_ceq_db(t, depth, true);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->irqs[1]), 1);
	KUNIT_EXPECT_EQ(test, eri_sim_ceq_post(t->sdev, 1, 300), 0);
	KUNIT_EXPECT_EQ(test, eri_sim_ceq_post(t->sdev, 1, 301), 0);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->irqs[1]), 2);
	/* Second pass over the ring: owner bit 0. */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(t->ceq[0].hdr), 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(t->ceq[0].cqn), 300U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(t->ceq[1].cqn), 301U);

	/* After a reset the device writes nothing. */
	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_RESET);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, eri_sim_ceq_post(t->sdev, 1, 400), -ENODEV);
}

static void eri_sim_test_regs(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	u32 version = t_read(t, ERI_REG_VERSION);

	t_write(t, ERI_REG_VERSION, 0xdead);
	KUNIT_EXPECT_EQ(test, t_read(t, ERI_REG_VERSION), version);
	t_write(t, ERI_REG_DEV_STS, ERI_REG_DEV_STS_READY);
	KUNIT_EXPECT_EQ(test, t_read(t, ERI_REG_DEV_STS), 0U);
	KUNIT_EXPECT_EQ(test, t_read(t, ERI_REGS_SIZE), ~0U);
	KUNIT_EXPECT_EQ(test, t_read(t, ERI_REG_VERSION + 1), ~0U);
	t_write(t, ERI_REG_AQ_DEPTH_LOG + 2, 5);
	KUNIT_EXPECT_EQ(test, t_read(t, ERI_REG_AQ_DEPTH_LOG), 0U);
	t_write(t, ERI_REGS_SIZE + 4, 5);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_REG_CAPS_NUM_VECTORS,
					t_read(t, ERI_REG_CAPS)),
			ERI_SIM_NUM_VECTORS);
	KUNIT_EXPECT_EQ(test, eri_sim_bus_ops.request_irq(&t->sdev->bus, 1,
							  t_irq, t), -EBUSY);
	KUNIT_EXPECT_EQ(test,
			eri_sim_bus_ops.request_irq(&t->sdev->bus,
						    ERI_SIM_NUM_VECTORS,
						    t_irq, t), -EINVAL);
}

static void eri_sim_test_dma(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	struct page *pages = alloc_pages(GFP_KERNEL, 1);
	u64 a, b, c;

	KUNIT_ASSERT_NOT_NULL(test, pages);
	a = t_dma_page(t, pages, PAGE_SIZE);
	b = t_dma_page(t, pages, 2 * PAGE_SIZE);
	c = t_dma(t, page_address(pages) + 100, 8);
	KUNIT_EXPECT_NE(test, a, (u64)DMA_MAPPING_ERROR);
	KUNIT_EXPECT_NE(test, b, (u64)DMA_MAPPING_ERROR);
	/* Nothing below 4 GiB; each mapping its own addresses. */
	KUNIT_EXPECT_GE(test, a, SZ_4G);
	KUNIT_EXPECT_GT(test, b, a + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, c % PAGE_SIZE, 100ULL);
	KUNIT_EXPECT_PTR_EQ(test, eri_sim_dma_ptr(t->sdev, a, PAGE_SIZE),
			    page_address(pages));
	KUNIT_EXPECT_PTR_EQ(test, eri_sim_dma_ptr(t->sdev, b + PAGE_SIZE + 8,
						  PAGE_SIZE - 8),
			    page_address(pages) + PAGE_SIZE + 8);
	KUNIT_EXPECT_PTR_EQ(test, eri_sim_dma_ptr(t->sdev, c, 8),
			    page_address(pages) + 100);
	/* Past a mapping's end: the page after it is never mapped. */
	KUNIT_EXPECT_NULL(test, eri_sim_dma_ptr(t->sdev, a, PAGE_SIZE + 1));
	KUNIT_EXPECT_NULL(test, eri_sim_dma_ptr(t->sdev, a + PAGE_SIZE, 1));
	KUNIT_EXPECT_NULL(test, eri_sim_dma_ptr(t->sdev, a, 0));
	KUNIT_EXPECT_NULL(test, eri_sim_dma_ptr(t->sdev, ~0ULL - 8, 64));
	KUNIT_EXPECT_NULL(test, eri_sim_dma_ptr(t->sdev, T_NOT_RAM, 8));
	/* A physical address is no bus address (RAM here is below 4 GiB). */
	KUNIT_EXPECT_NULL(test, eri_sim_dma_ptr(t->sdev,
						page_to_phys(pages), 8));
	__free_pages(pages, 1);
}

#define T_MR_PAGES	3

static u8 t_reg_mr(struct kunit *test, struct eri_sim_test *t, u32 key,
		   u32 pdn, u64 iova, u64 length, u32 shift, u32 npages,
		   __le64 *pbl, u32 cfg)
{
	struct eri_aq_reg_mr_cmd cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_REG_MR),
		.key = cpu_to_le32(key),
		.pdn = cpu_to_le32(pdn),
		.iova = cpu_to_le64(iova),
		.length = cpu_to_le64(length),
		.pbl_addr = cpu_to_le64(pbl ?
					t_dma(t, pbl, npages * sizeof(*pbl)) :
					0),
		.npages = cpu_to_le32(npages),
		.cfg = cpu_to_le32(cfg |
				   FIELD_PREP(ERI_AQ_REG_MR_PAGE_SHIFT, shift)),
	};

	return t_exec(test, t, &cmd);
}

static u8 t_dereg_mr(struct kunit *test, struct eri_sim_test *t, u32 key)
{
	struct eri_aq_dereg_mr_cmd cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_DEREG_MR),
		.key = cpu_to_le32(key),
	};

	return t_exec(test, t, &cmd);
}

/*
 * A region of three scattered pages at an odd offset: copies in and out at
 * odd offsets and lengths land on the right bytes of the right pages, and
 * every check of key, PD, rights and bounds holds.
 */
static void eri_sim_test_mr(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	u32 key = FIELD_PREP(ERI_MR_KEY_INDEX, 5) | 0x2a;
	u64 iova = 0x7f0000001234ULL, len = 2 * PAGE_SIZE + 100, dma;
	struct page *pages[T_MR_PAGES];
	struct eri_sim_mr *mr;
	__le64 *pbl;
	u8 *buf;
	u32 i;

	t_enable(test, t);
	pbl = kunit_kzalloc(test, T_MR_PAGES * sizeof(*pbl), GFP_KERNEL);
	buf = kunit_kzalloc(test, 3 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, pbl && buf);
	/* Pages in reverse order of their addresses, to catch any shortcut. */
	for (i = 0; i < T_MR_PAGES; i++) {
		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		pbl[T_MR_PAGES - 1 - i] =
			cpu_to_le64(t_dma_page(t, pages[i], PAGE_SIZE));
	}

	/* Malformed registrations. */
	KUNIT_EXPECT_EQ(test, t_reg_mr(test, t, key, 1, iova, len, 11,
				       T_MR_PAGES, pbl, 0),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_reg_mr(test, t, key, 1, iova, len, PAGE_SHIFT,
				       0, pbl, 0), ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_reg_mr(test, t, key, 1, iova,
				       3 * PAGE_SIZE, PAGE_SHIFT, T_MR_PAGES,
				       pbl, 0), ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_reg_mr(test, t, key, 1, ~0ULL - 5, len,
				       PAGE_SHIFT, T_MR_PAGES, pbl, 0),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_reg_mr(test, t,
				       FIELD_PREP(ERI_MR_KEY_INDEX,
						  ERI_SIM_MAX_MR), 1, iova,
				       len, PAGE_SHIFT, T_MR_PAGES, pbl, 0),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_reg_mr(test, t, key, ERI_SIM_MAX_PD, iova, len,
				       PAGE_SHIFT, T_MR_PAGES, pbl, 0),
			ERI_AQ_STS_BAD_PARAM);
	pbl[1] = cpu_to_le64(le64_to_cpu(pbl[1]) + 8);	/* unaligned page */
	KUNIT_EXPECT_EQ(test, t_reg_mr(test, t, key, 1, iova, len, PAGE_SHIFT,
				       T_MR_PAGES, pbl, 0),
			ERI_AQ_STS_BAD_PARAM);
	pbl[1] = cpu_to_le64(T_NOT_RAM);
	KUNIT_EXPECT_EQ(test, t_reg_mr(test, t, key, 1, iova, len, PAGE_SHIFT,
				       T_MR_PAGES, pbl, 0),
			ERI_AQ_STS_BAD_PARAM);
	pbl[1] = cpu_to_le64(t_dma_page(t, pages[1], PAGE_SIZE));

	KUNIT_ASSERT_EQ(test, t_reg_mr(test, t, key, 1, iova, len, PAGE_SHIFT,
				       T_MR_PAGES, pbl,
				       ERI_MR_ACCESS_LOCAL_WRITE |
				       ERI_MR_ACCESS_REMOTE_READ),
			ERI_AQ_STS_OK);
	KUNIT_EXPECT_EQ(test, t_reg_mr(test, t, key, 1, iova, len, PAGE_SHIFT,
				       T_MR_PAGES, pbl, 0), ERI_AQ_STS_EXISTS);
	/* The device works from its own copy of the page list. */
	memset(pbl, 0, T_MR_PAGES * sizeof(*pbl));

	/* Lookups: key, variant, PD, rights, bounds. */
	KUNIT_EXPECT_EQ(test, eri_sim_mr_get(t->sdev, key ^ 1, 1, 0, iova, 1,
					     &mr), -ENOENT);
	KUNIT_EXPECT_EQ(test, eri_sim_mr_get(t->sdev, key, 2, 0, iova, 1, &mr),
			-EACCES);
	KUNIT_EXPECT_EQ(test, eri_sim_mr_get(t->sdev, key, 1,
					     ERI_MR_ACCESS_REMOTE_WRITE, iova,
					     1, &mr), -EACCES);
	KUNIT_EXPECT_EQ(test, eri_sim_mr_get(t->sdev, key, 1, 0, iova - 1, 1,
					     &mr), -ERANGE);
	KUNIT_EXPECT_EQ(test, eri_sim_mr_get(t->sdev, key, 1, 0, iova, len + 1,
					     &mr), -ERANGE);
	KUNIT_EXPECT_EQ(test, eri_sim_mr_get(t->sdev, key, 1, 0, ~0ULL, 2,
					     &mr), -ERANGE);

	/* Write the whole region across pages, then read pieces back. */
	KUNIT_ASSERT_EQ(test, eri_sim_mr_get(t->sdev, key, 1,
					     ERI_MR_ACCESS_REMOTE_READ, iova,
					     len, &mr), 0);
	for (i = 0; i < len; i++)
		buf[i] = i * 7 + 3;
	KUNIT_EXPECT_EQ(test, eri_sim_mr_copy(t->sdev, mr, iova, buf, len,
					      true), 0);
	/* Byte i of the region sits in page list entry (0x234 + i) / PAGE_SIZE. */
	for (i = 0; i < len; i += 97) {
		u32 off = offset_in_page(iova) + i;
		u8 *p = page_address(pages[T_MR_PAGES - 1 - off / PAGE_SIZE]);

		KUNIT_EXPECT_EQ(test, p[off % PAGE_SIZE], (u8)(i * 7 + 3));
	}
	memset(buf, 0, len);
	KUNIT_EXPECT_EQ(test, eri_sim_mr_copy(t->sdev, mr, iova + 3000, buf,
					      5000, false), 0);
	for (i = 0; i < 5000; i++)
		if (buf[i] != (u8)((i + 3000) * 7 + 3))
			break;
	KUNIT_EXPECT_EQ(test, i, 5000U);
	eri_sim_mr_put(mr);

	/* Deregistration: wrong variant first, then the key; lookups fail. */
	KUNIT_EXPECT_EQ(test, t_dereg_mr(test, t, key ^ 1),
			ERI_AQ_STS_NOT_FOUND);
	KUNIT_EXPECT_EQ(test, t_dereg_mr(test, t, key), ERI_AQ_STS_OK);
	KUNIT_EXPECT_EQ(test, eri_sim_mr_get(t->sdev, key, 1, 0, iova, 1, &mr),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, t_dereg_mr(test, t, key), ERI_AQ_STS_NOT_FOUND);

	/* A DMA region maps bus addresses one to one. */
	KUNIT_ASSERT_EQ(test, t_reg_mr(test, t, key, 3, 0, 0, 0, 0, NULL,
				       ERI_AQ_REG_MR_DMA |
				       ERI_MR_ACCESS_LOCAL_WRITE),
			ERI_AQ_STS_OK);
	dma = t_dma_page(t, pages[0], PAGE_SIZE) + 10;
	KUNIT_ASSERT_EQ(test, eri_sim_mr_get(t->sdev, key, 3,
					     ERI_MR_ACCESS_LOCAL_WRITE, dma,
					     20, &mr), 0);
	KUNIT_EXPECT_EQ(test, eri_sim_mr_copy(t->sdev, mr, dma, buf, 20, false),
			0);
	KUNIT_EXPECT_EQ(test, buf[0], ((u8 *)page_address(pages[0]))[10]);
	eri_sim_mr_put(mr);
	/* A reset forgets every region. */
	t_write(t, ERI_REG_DEV_CTL, ERI_REG_DEV_CTL_RESET);
	t_sync(t);
	KUNIT_EXPECT_EQ(test, eri_sim_mr_get(t->sdev, key, 3, 0, 0, 1, &mr),
			-ENOENT);

	for (i = 0; i < T_MR_PAGES; i++)
		__free_page(pages[i]);
}

/*
 * A page list whose pages are larger than the host's rounds the first one
 * down to its size, which may reach before the mapping (ib_umem does so):
 * only the bytes the region covers must be mapped.
 */
static void eri_sim_test_mr_rounded(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	u32 key = FIELD_PREP(ERI_MR_KEY_INDEX, 6) | 0x11;
	u64 iova = 0x7f0000000000ULL + PAGE_SIZE, dma;
	u32 shift = PAGE_SHIFT + 1;
	struct eri_sim_mr *mr;
	struct page *pages;
	__le64 *pbl;
	u8 *buf;

	t_enable(test, t);
	pbl = kunit_kcalloc(test, 2, sizeof(*pbl), GFP_KERNEL);
	buf = kunit_kzalloc(test, 3 * PAGE_SIZE, GFP_KERNEL);
	pages = alloc_pages(GFP_KERNEL, 2);
	KUNIT_ASSERT_TRUE(test, pbl && buf && pages);
	memset(page_address(pages), 0x5a, 4 * PAGE_SIZE);
	memset(page_address(pages) + PAGE_SIZE, 0xa5, 3 * PAGE_SIZE);
	/* Three pages from the second on: the mapping is 2-page aligned. */
	dma = t_dma(t, page_address(pages) + PAGE_SIZE, 3 * PAGE_SIZE);
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED(dma - PAGE_SIZE, 1ULL << shift));
	pbl[0] = cpu_to_le64(dma - PAGE_SIZE);
	pbl[1] = cpu_to_le64(dma + PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, t_reg_mr(test, t, key, 1, iova, 3 * PAGE_SIZE,
				       shift, 2, pbl, ERI_MR_ACCESS_LOCAL_WRITE),
			ERI_AQ_STS_OK);
	KUNIT_ASSERT_EQ(test, eri_sim_mr_get(t->sdev, key, 1,
					     ERI_MR_ACCESS_LOCAL_WRITE, iova,
					     3 * PAGE_SIZE, &mr), 0);
	KUNIT_EXPECT_EQ(test, eri_sim_mr_copy(t->sdev, mr, iova, buf,
					      3 * PAGE_SIZE, false), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(buf, 0xa5, 3 * PAGE_SIZE));
	eri_sim_mr_put(mr);
	KUNIT_EXPECT_EQ(test, t_dereg_mr(test, t, key), ERI_AQ_STS_OK);
	/* One byte more, in the unmapped half: refused. */
	KUNIT_EXPECT_EQ(test, t_reg_mr(test, t, key, 1, iova - 1,
				       3 * PAGE_SIZE + 1, shift, 2, pbl,
				       ERI_MR_ACCESS_LOCAL_WRITE),
			ERI_AQ_STS_BAD_PARAM);
	__free_pages(pages, 2);
}

#define T_QPN		5
#define T_CQN		3
#define T_SQ_LOG	2
#define T_RQ_LOG	1
#define T_CQ_LOG	3

/* A QP in RTS whose send queue a test writes as it pleases. */
struct t_qp {
	u8 *sq;
	u8 *rq;
	struct eri_qp_dbrec *db;
	struct eri_cqe *cq;
	struct eri_cq_dbrec *cq_db;
	struct eri_qp_attr *attr;
	u16 cq_ci;
	/* Set by the test: a fixed window, no pacing (all leaves at a kick). */
	bool cc_fixed;
};

static void t_qp_setup(struct kunit *test, struct eri_sim_test *t,
		       struct t_qp *q)
{
	struct eri_aq_create_cq_cmd cq_cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_CREATE_CQ),
		.cqn = cpu_to_le32(T_CQN),
		.eqn = 0,
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_CQ_DEPTH_LOG,
					      T_CQ_LOG)),
	};
	struct eri_aq_create_qp_cmd qp_cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_CREATE_QP),
		.qpn = cpu_to_le32(T_QPN),
		.pdn = cpu_to_le32(1),
		.send_cqn = cpu_to_le32(T_CQN),
		.recv_cqn = cpu_to_le32(T_CQN),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_QP_TYPE, ERI_QPT_RC) |
				   FIELD_PREP(ERI_AQ_CREATE_QP_SQ_DEPTH_LOG,
					      T_SQ_LOG) |
				   FIELD_PREP(ERI_AQ_CREATE_QP_RQ_DEPTH_LOG,
					      T_RQ_LOG)),
	};
	struct eri_aq_qp_attr_cmd mod = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_MODIFY_QP),
		.qpn = cpu_to_le32(T_QPN),
	};
	static const u8 gid[16] = { [10] = 0xff, [11] = 0xff, [12] = 127,
				    [15] = 1 };

	t_enable(test, t);
	KUNIT_ASSERT_EQ(test, t_create_eq(test, t, 0, t_ceq(t),
					  T_EQ_DEPTH_LOG, 1), ERI_AQ_STS_OK);
	if (q->cc_fixed) {
		struct eri_aq_set_cc_cmd cc = {
			.hdr.hdr = t_hdr(ERI_AQ_OP_SET_CC),
			.algo = cpu_to_le32(eri_sim_cc_fixed_ops.index),
		};

		KUNIT_ASSERT_EQ(test, t_exec(test, t, &cc), ERI_AQ_STS_OK);
	}
	q->sq = kunit_kzalloc(test, ERI_SQ_WQE_SIZE << T_SQ_LOG, GFP_KERNEL);
	q->rq = kunit_kzalloc(test, ERI_RQ_WQE_SIZE << T_RQ_LOG, GFP_KERNEL);
	q->db = kunit_kzalloc(test, sizeof(*q->db), GFP_KERNEL);
	q->cq = kunit_kzalloc(test, sizeof(*q->cq) << T_CQ_LOG, GFP_KERNEL);
	q->cq_db = kunit_kzalloc(test, sizeof(*q->cq_db), GFP_KERNEL);
	q->attr = kunit_kzalloc(test, sizeof(*q->attr), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, q->sq && q->rq && q->db && q->cq &&
			  q->cq_db && q->attr);

	cq_cmd.ring_addr = cpu_to_le64(t_dma(t, q->cq,
					     sizeof(*q->cq) << T_CQ_LOG));
	cq_cmd.dbrec_addr = cpu_to_le64(t_dma(t, q->cq_db, sizeof(*q->cq_db)));
	KUNIT_ASSERT_EQ(test, t_exec(test, t, &cq_cmd), ERI_AQ_STS_OK);
	qp_cmd.sq_addr = cpu_to_le64(t_dma(t, q->sq,
					   ERI_SQ_WQE_SIZE << T_SQ_LOG));
	qp_cmd.rq_addr = cpu_to_le64(t_dma(t, q->rq,
					   ERI_RQ_WQE_SIZE << T_RQ_LOG));
	qp_cmd.dbrec_addr = cpu_to_le64(t_dma(t, q->db, sizeof(*q->db)));
	KUNIT_ASSERT_EQ(test, t_exec(test, t, &qp_cmd), ERI_AQ_STS_OK);
	/* The device is idle: a producer must kick. */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->db->sq_need_kick), 1U);

	q->attr->mask = cpu_to_le32(ERI_QP_ATTR_ALL);
	q->attr->state = ERI_QPS_RTS;
	q->attr->path_mtu_log = 10;
	q->attr->timeout = 14;
	q->attr->retry_cnt = 7;
	q->attr->rnr_retry = 7;
	q->attr->dest_qpn = cpu_to_le32(7);
	memcpy(q->attr->sgid, gid, sizeof(gid));
	memcpy(q->attr->dgid, gid, sizeof(gid));
	mod.attr_addr = cpu_to_le64(t_dma(t, q->attr, sizeof(*q->attr)));
	KUNIT_ASSERT_EQ(test, t_exec(test, t, &mod), ERI_AQ_STS_OK);
}

static u8 t_qp_state(struct kunit *test, struct eri_sim_test *t,
		     struct t_qp *q)
{
	struct eri_aq_qp_attr_cmd cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_QUERY_QP),
		.qpn = cpu_to_le32(T_QPN),
		.attr_addr = cpu_to_le64(t_dma(t, q->attr, sizeof(*q->attr))),
	};

	KUNIT_EXPECT_EQ(test, t_exec(test, t, &cmd), ERI_AQ_STS_OK);
	return q->attr->state;
}

/* Write send WQE @idx: a header and, from @body, the rest. */
static void t_put_wqe(struct t_qp *q, u16 idx, u32 hdr, u32 length,
		      const void *body, size_t body_len)
{
	struct eri_sq_wqe_hdr *h = (void *)(q->sq +
		((size_t)eri_ring_slot(idx, T_SQ_LOG) << ERI_SQ_WQE_SHIFT));

	memset(h, 0, ERI_SQ_WQE_SIZE);
	h->hdr = cpu_to_le32(hdr);
	h->length = cpu_to_le32(length);
	memcpy(h + 1, body, body_len);
}

static void t_kick(struct eri_sim_test *t, struct t_qp *q, u16 pi)
{
	WRITE_ONCE(q->db->sq_pi, cpu_to_le32(pi));
	t_write(t, ERI_REG_SQ_DB, T_QPN);
	/* Nothing is sent: what a kick does is done when it returns. */
	t_sync(t);
}

/* The next completion must be a send completion of @idx with @status. */
static void t_expect_cqe(struct kunit *test, struct t_qp *q, u16 idx,
			 u8 status)
{
	struct eri_cqe *cqe = &q->cq[eri_ring_slot(q->cq_ci, T_CQ_LOG)];
	u32 hdr = le32_to_cpu(READ_ONCE(cqe->hdr));

	KUNIT_ASSERT_EQ(test, FIELD_GET(ERI_CQE_HDR_OWNER, hdr),
			eri_ring_owner(q->cq_ci, T_CQ_LOG));
	KUNIT_EXPECT_TRUE(test, hdr & ERI_CQE_HDR_SQ);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_CQE_HDR_STATUS, hdr), (u32)status);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cqe->qpn), (u32)T_QPN);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cqe->wqe_idx) & 0xffff, (u32)idx);
	q->cq_ci++;
	q->cq_db->ci = cpu_to_le32(q->cq_ci);
}

static void t_expect_no_cqe(struct kunit *test, struct t_qp *q)
{
	struct eri_cqe *cqe = &q->cq[eri_ring_slot(q->cq_ci, T_CQ_LOG)];

	KUNIT_EXPECT_NE(test, FIELD_GET(ERI_CQE_HDR_OWNER,
					le32_to_cpu(READ_ONCE(cqe->hdr))),
			eri_ring_owner(q->cq_ci, T_CQ_LOG));
}

/*
 * The QP failed on its own: ERR, both kicks asked for, and QP_FATAL raised
 * if @fatal (a broken queue), not if a completion said why.
 */
static void t_expect_err(struct kunit *test, struct eri_sim_test *t,
			 struct t_qp *q, bool fatal)
{
	u32 i, found = 0;

	KUNIT_EXPECT_EQ(test, t_qp_state(test, t, q), (u8)ERI_QPS_ERR);
	for (i = 0; i < (1U << T_EQ_DEPTH_LOG); i++) {
		u32 hdr = le32_to_cpu(t->aeq[i].hdr);

		if (FIELD_GET(ERI_AEQE_HDR_TYPE, hdr) == ERI_AEQE_QP_FATAL &&
		    le32_to_cpu(t->aeq[i].subject) == T_QPN)
			found++;
	}
	KUNIT_EXPECT_EQ(test, found, fatal ? 1U : 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->db->sq_need_kick), 1U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->db->rq_need_kick), 1U);
}

/* An opcode the device does not know; a WQE posted after it is flushed. */
static void eri_sim_test_sq_bad_opcode(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	struct t_qp q = {};

	t_qp_setup(test, t, &q);
	t_put_wqe(&q, 0, FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE, 0x7f) |
		  ERI_SQ_WQE_HDR_SIGNALED, 0, NULL, 0);
	t_kick(t, &q, 1);
	t_expect_cqe(test, &q, 0, ERI_CQE_STS_LOC_QP_OP_ERR);
	t_expect_err(test, t, &q, false);

	t_put_wqe(&q, 1, FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE, ERI_SQ_OP_SEND), 0,
		  NULL, 0);
	t_kick(t, &q, 2);
	t_expect_cqe(test, &q, 1, ERI_CQE_STS_WR_FLUSH_ERR);
	t_expect_no_cqe(test, &q);
}

/* SGE lengths that add up past 2^31. */
static void eri_sim_test_sq_huge_length(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	struct eri_sge sge[2] = {
		{ .addr = 0, .length = cpu_to_le32(0x80000000), .lkey = 0 },
		{ .addr = 0, .length = cpu_to_le32(0x80000000), .lkey = 0 },
	};
	struct t_qp q = {};

	t_qp_setup(test, t, &q);
	t_put_wqe(&q, 0, FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE, ERI_SQ_OP_SEND) |
		  FIELD_PREP(ERI_SQ_WQE_HDR_NUM_SGE, 2), 0, sge, sizeof(sge));
	t_kick(t, &q, 1);
	t_expect_cqe(test, &q, 0, ERI_CQE_STS_LOC_LEN_ERR);
	t_expect_err(test, t, &q, false);
}

/* Too many SGEs, and inline data longer than a WQE holds. */
static void eri_sim_test_sq_bad_format(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	struct t_qp q = {};

	t_qp_setup(test, t, &q);
	t_put_wqe(&q, 0, FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE, ERI_SQ_OP_WRITE) |
		  FIELD_PREP(ERI_SQ_WQE_HDR_NUM_SGE, ERI_SQ_WQE_MAX_SGE + 1),
		  0, NULL, 0);
	t_put_wqe(&q, 1, FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE, ERI_SQ_OP_SEND) |
		  ERI_SQ_WQE_HDR_INLINE, ERI_SQ_WQE_MAX_INLINE + 1, NULL, 0);
	t_kick(t, &q, 2);
	/* The first fails the QP; the second is flushed. */
	t_expect_cqe(test, &q, 0, ERI_CQE_STS_LOC_QP_OP_ERR);
	t_expect_cqe(test, &q, 1, ERI_CQE_STS_WR_FLUSH_ERR);
	t_expect_err(test, t, &q, false);
}

/* A SEND from a key the device never registered. */
static void eri_sim_test_sq_bad_lkey(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	struct eri_sge sge = {
		.addr = cpu_to_le64(0x1000),
		.length = cpu_to_le32(16),
		.lkey = cpu_to_le32(0xdead00),
	};
	struct t_qp q = {};

	t_qp_setup(test, t, &q);
	t_put_wqe(&q, 0, FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE, ERI_SQ_OP_SEND) |
		  FIELD_PREP(ERI_SQ_WQE_HDR_NUM_SGE, 1), 0, &sge, sizeof(sge));
	t_kick(t, &q, 1);
	t_expect_cqe(test, &q, 0, ERI_CQE_STS_LOC_PROT_ERR);
	t_expect_err(test, t, &q, false);
}

/* A producer index beyond the ring: the QP fails, the ring is flushed. */
static void eri_sim_test_sq_bad_index(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	struct t_qp q = {};
	u16 i;

	t_qp_setup(test, t, &q);
	t_kick(t, &q, 100);
	for (i = 0; i < (1U << T_SQ_LOG); i++)
		t_expect_cqe(test, &q, i, ERI_CQE_STS_WR_FLUSH_ERR);
	t_expect_no_cqe(test, &q);
	t_expect_err(test, t, &q, true);
}

/*
 * The READ responses of a received batch are placed as they come and
 * accounted once, at the batch's end, as one ACK of all their PSNs: the
 * READ completes there, with every byte in place.
 */
static void eri_sim_test_read_batch(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	u32 key = FIELD_PREP(ERI_MR_KEY_INDEX, 6) | 0x11, i, j;
	u64 iova = 0x10000;
	struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	__le64 *pbl = kunit_kzalloc(test, sizeof(*pbl), GFP_KERNEL);
	struct eri_sq_wqe_hdr *wh;
	struct eri_sim_qp *qp;
	struct t_qp q = {};
	struct eri_sge sge;
	u8 *data;

	KUNIT_ASSERT_TRUE(test, page && pbl);
	t_qp_setup(test, t, &q);
	pbl[0] = cpu_to_le64(t_dma_page(t, page, PAGE_SIZE));
	KUNIT_ASSERT_EQ(test, t_reg_mr(test, t, key, 1, iova, 3 * 1024,
				       PAGE_SHIFT, 1, pbl,
				       ERI_MR_ACCESS_LOCAL_WRITE),
			ERI_AQ_STS_OK);
	/* A READ of three packets; it leaves (to no network) at the kick. */
	sge.addr = cpu_to_le64(iova);
	sge.length = cpu_to_le32(3 * 1024);
	sge.lkey = cpu_to_le32(key);
	t_put_wqe(&q, 0, FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE, ERI_SQ_OP_READ) |
		  ERI_SQ_WQE_HDR_SIGNALED |
		  FIELD_PREP(ERI_SQ_WQE_HDR_NUM_SGE, 1), 3 * 1024, &sge,
		  sizeof(sge));
	wh = (void *)q.sq;
	wh->remote_addr = cpu_to_le64(0x5000);
	wh->rkey = cpu_to_le32(0x4242);
	t_kick(t, &q, 1);
	t_expect_no_cqe(test, &q);

	qp = eri_sim_qp_get(t->sdev, T_QPN);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	spin_lock_bh(&qp->lock);
	qp->rx_batch = true;
	for (i = 0; i < 3; i++) {
		struct eri_wire_hdr rh = {
			.version = ERI_WIRE_VERSION,
			.opcode = ERI_OP_READ_RESP,
			.flags = (i ? 0 : ERI_WIRE_FIRST) |
				 (i == 2 ? ERI_WIRE_LAST : 0),
			.dqpn = cpu_to_be32(T_QPN),
			.sqpn = cpu_to_be32(7),
			.psn = cpu_to_be32(i),
			.ack_psn = 0,
			.msg_len = cpu_to_be32(3 * 1024),
			.offset = cpu_to_be32(i * 1024),
		};
		struct sk_buff *skb = alloc_skb(1024, GFP_ATOMIC);
		struct eri_sim_rx_pkt pkt = { .len = 1024 };
		struct eri_sim_skb_cur cur;

		KUNIT_ASSERT_NOT_NULL(test, skb);
		data = skb_put(skb, 1024);
		for (j = 0; j < 1024; j++)
			data[j] = i * 1024 + j;
		eri_sim_skb_cur_init(&cur, skb);
		pkt.cur = &cur;
		eri_sim_req_rx_locked(qp, &rh, &pkt);
		kfree_skb(skb);
	}
	/* Placed, not accounted: no completion before the batch's end. */
	KUNIT_EXPECT_TRUE(test, qp->rd_acct.due);
	KUNIT_EXPECT_EQ(test, qp->rd_acct.acked, 3U);
	KUNIT_EXPECT_EQ(test, qp->sq_comp, 0);
	eri_sim_req_rx_batch_end_locked(qp);
	KUNIT_EXPECT_FALSE(test, qp->rd_acct.due);
	KUNIT_EXPECT_EQ(test, qp->sq_comp, 1);
	/* The rest of the batch's end, as the receive path has it. */
	qp->rx_batch = false;
	qp->run_due = false;
	eri_sim_mr_cache_drop(&qp->rx_mrc);
	spin_unlock_bh(&qp->lock);
	eri_sim_qp_put(qp);
	t_sync(t);
	t_expect_cqe(test, &q, 0, ERI_CQE_STS_SUCCESS);
	data = page_address(page);
	for (j = 0; j < 3 * 1024; j++)
		if (data[j] != (u8)j)
			break;
	KUNIT_EXPECT_EQ(test, j, 3U * 1024);
	KUNIT_EXPECT_EQ(test, t_dereg_mr(test, t, key), ERI_AQ_STS_OK);
	__free_page(page);
}

static u64 t_stat(struct eri_sim_test *t, enum eri_stat stat)
{
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(t->sdev->stats, cpu)->v[stat];
	return sum;
}

/*
 * A READ request lost in a stream of READs: the responder keeps the later
 * requests and answers each with an ACK naming it past the PSN it waits
 * for; those ACKs deliver nothing.  The third declares the gap lost: its
 * request goes again at once (fast_retrans), before any timeout.
 */
static void eri_sim_test_read_stall(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	u32 key = FIELD_PREP(ERI_MR_KEY_INDEX, 6) | 0x11;
	u64 iova = 0x10000, fast, retrans;
	struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	__le64 *pbl = kunit_kzalloc(test, sizeof(*pbl), GFP_KERNEL);
	struct eri_aq_qp_attr_cmd mod = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_MODIFY_QP),
		.qpn = cpu_to_le32(T_QPN),
	};
	struct t_qp q = { .cc_fixed = true };
	struct eri_sim_qp *qp;
	u16 i;

	KUNIT_ASSERT_TRUE(test, page && pbl);
	t_qp_setup(test, t, &q);
	q.attr->mask = cpu_to_le32(ERI_QP_ATTR_MAX_RD_ATOMIC);
	q.attr->max_rd_atomic = 4;
	mod.attr_addr = cpu_to_le64(t_dma(t, q.attr, sizeof(*q.attr)));
	KUNIT_ASSERT_EQ(test, t_exec(test, t, &mod), ERI_AQ_STS_OK);
	pbl[0] = cpu_to_le64(t_dma_page(t, page, PAGE_SIZE));
	KUNIT_ASSERT_EQ(test, t_reg_mr(test, t, key, 1, iova, 4 * 1024,
				       PAGE_SHIFT, 1, pbl,
				       ERI_MR_ACCESS_LOCAL_WRITE),
			ERI_AQ_STS_OK);
	/* Four READs of a packet each: requests at PSNs 0 to 3. */
	for (i = 0; i < 4; i++) {
		struct eri_sge sge = {
			.addr = cpu_to_le64(iova + i * 1024),
			.length = cpu_to_le32(1024),
			.lkey = cpu_to_le32(key),
		};
		struct eri_sq_wqe_hdr *wh;

		t_put_wqe(&q, i, FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE,
					    ERI_SQ_OP_READ) |
			  FIELD_PREP(ERI_SQ_WQE_HDR_NUM_SGE, 1), 1024, &sge,
			  sizeof(sge));
		wh = (void *)(q.sq + ((size_t)i << ERI_SQ_WQE_SHIFT));
		wh->remote_addr = cpu_to_le64(0x5000 + i * 1024);
		wh->rkey = cpu_to_le32(0x4242);
	}
	t_kick(t, &q, 4);

	qp = eri_sim_qp_get(t->sdev, T_QPN);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	fast = t_stat(t, ERI_STAT_FAST_RETRANS);
	retrans = t_stat(t, ERI_STAT_RETRANS_PKTS);
	spin_lock_bh(&qp->lock);
	KUNIT_EXPECT_EQ(test, qp->sb->nxt, 4U);
	for (i = 1; i < 4; i++) {
		struct eri_wire_hdr ah = {
			.version = ERI_WIRE_VERSION,
			.opcode = ERI_OP_ACK,
			.syndrome = ERI_SYN_ACK,
			.dqpn = cpu_to_be32(T_QPN),
			.sqpn = cpu_to_be32(7),
			.psn = cpu_to_be32(i),
			.ack_psn = 0,
		};
		struct eri_sim_rx_pkt pkt = {};

		eri_sim_req_rx_locked(qp, &ah, &pkt);
		/* Two reports are no loss yet (the duplicate threshold). */
		if (i < 3)
			KUNIT_EXPECT_FALSE(test, test_bit(0, qp->sb->retx));
	}
	/* Found lost and asked for again; nothing delivered, no timeout. */
	KUNIT_EXPECT_TRUE(test, test_bit(0, qp->sb->retx));
	KUNIT_EXPECT_FALSE(test, test_bit(0, qp->sb->lost));
	KUNIT_EXPECT_EQ(test, qp->sb->una, 0U);
	KUNIT_EXPECT_EQ(test, qp->retries, (u8)0);
	spin_unlock_bh(&qp->lock);
	eri_sim_qp_put(qp);
	KUNIT_EXPECT_EQ(test, t_stat(t, ERI_STAT_FAST_RETRANS), fast + 1);
	KUNIT_EXPECT_EQ(test, t_stat(t, ERI_STAT_RETRANS_PKTS), retrans + 1);
	KUNIT_EXPECT_EQ(test, t_stat(t, ERI_STAT_TIMEOUTS), 0ULL);
	t_expect_no_cqe(test, &q);
	KUNIT_EXPECT_EQ(test, t_dereg_mr(test, t, key), ERI_AQ_STS_OK);
	__free_page(page);
}

/*
 * The device asked for a kick at @now, after @pkts packets since the last,
 * with no request arriving since it took the producer's last WQE.
 */
static void t_sq_ask(struct eri_sim_qp *qp, u64 now, u64 pkts, bool lapsed)
{
	qp->tx_pkts = qp->sq_kick_pkts + pkts;
	qp->sq_rx_seen = false;
	eri_sim_req_ask_locked(qp, now);
	qp->sq_poll_lapsed = lapsed;
}

/*
 * Polling a drained send queue: the streak of small kicks that came within
 * the largest window of the asking, and the window that adapts to the kick
 * answering the asking that ended the looks (doubled when it came within
 * the window, halved when not, or when a request came first), within its
 * bounds; no streak for a producer that answers requests, also those that
 * came before the asking, or waits for its READs' data.
 */
static void eri_sim_test_sq_poll_window(struct kunit *test)
{
	struct eri_sim_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	const u64 us = NSEC_PER_USEC;
	u64 now = 1000 * us;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, qp);
	spin_lock_init(&qp->lock);
	qp->sq_poll_window_ns = ERI_SIM_SQ_POLL_WINDOW_NS;
	spin_lock_bh(&qp->lock);

	/* Small kicks soon after the asking make the streak... */
	for (i = 0; i < ERI_SIM_SQ_POLL_STREAK; i++) {
		KUNIT_EXPECT_EQ(test, qp->sq_streak, i);
		t_sq_ask(qp, now, 1, false);
		now += 20 * us;
		eri_sim_req_kicked_locked(qp, now);
	}
	KUNIT_EXPECT_EQ(test, qp->sq_streak, ERI_SIM_SQ_POLL_STREAK);
	/* ...a kick after many packets (large messages) breaks it... */
	t_sq_ask(qp, now, ERI_SIM_SQ_POLL_MAX_PKTS + 1, false);
	eri_sim_req_kicked_locked(qp, now + 20 * us);
	KUNIT_EXPECT_EQ(test, qp->sq_streak, 0);
	/*
	 * ...one later than the current window but within the largest makes
	 * it too (a slow host's streaming producer)...
	 */
	t_sq_ask(qp, now, 1, false);
	eri_sim_req_kicked_locked(qp, now + ERI_SIM_SQ_POLL_WINDOW_NS + 1);
	KUNIT_EXPECT_EQ(test, qp->sq_streak, 1);
	/* ...but later than the largest breaks it, as one after a request. */
	qp->sq_streak = 2;
	t_sq_ask(qp, now, 1, false);
	eri_sim_req_kicked_locked(qp, now + ERI_SIM_SQ_POLL_WINDOW_MAX_NS + 1);
	KUNIT_EXPECT_EQ(test, qp->sq_streak, 0);
	qp->sq_streak = 2;
	t_sq_ask(qp, now, 1, false);
	qp->sq_rx_seen = true;
	eri_sim_req_kicked_locked(qp, now + 1);
	KUNIT_EXPECT_EQ(test, qp->sq_streak, 0);
	/*
	 * ...or before the asking, the peer's answer overtaking the ACK of
	 * what it answers...
	 */
	qp->sq_streak = 2;
	qp->sq_rx_seen = true;
	qp->tx_pkts = qp->sq_kick_pkts + 1;
	eri_sim_req_ask_locked(qp, now);
	KUNIT_EXPECT_TRUE(test, qp->sq_rx_seen);
	eri_sim_req_kicked_locked(qp, now + 1);
	KUNIT_EXPECT_EQ(test, qp->sq_streak, 0);
	/* ...and one asked for after a READ or ATOMIC completed. */
	qp->sq_streak = 2;
	qp->sq_read_done = true;
	t_sq_ask(qp, now, 1, false);
	KUNIT_EXPECT_TRUE(test, qp->sq_rx_seen);
	eri_sim_req_kicked_locked(qp, now + 1);
	KUNIT_EXPECT_EQ(test, qp->sq_streak, 0);
	qp->sq_read_done = false;
	/* A kick that the device did not ask for changes nothing. */
	eri_sim_req_kicked_locked(qp, now + 1);
	KUNIT_EXPECT_EQ(test, qp->sq_streak, 0);
	KUNIT_EXPECT_EQ(test, qp->sq_poll_window_ns,
			(u32)ERI_SIM_SQ_POLL_WINDOW_NS);

	/*
	 * The looks lapsed and the kick came within the window, after
	 * however many packets the looks sent: the window doubles, up to its
	 * bound, and the looks start again at once.
	 */
	for (i = 0; i < 8; i++) {
		t_sq_ask(qp, now, 1000, true);
		now += qp->sq_poll_window_ns - 1;
		eri_sim_req_kicked_locked(qp, now);
		KUNIT_EXPECT_EQ(test, qp->sq_streak, ERI_SIM_SQ_POLL_STREAK);
		KUNIT_EXPECT_FALSE(test, qp->sq_poll_lapsed);
	}
	KUNIT_EXPECT_EQ(test, qp->sq_poll_window_ns,
			(u32)ERI_SIM_SQ_POLL_WINDOW_MAX_NS);

	/* Later than the window: it halves, and the streak starts anew. */
	t_sq_ask(qp, now, 1, true);
	now += ERI_SIM_SQ_POLL_WINDOW_MAX_NS + 1;
	eri_sim_req_kicked_locked(qp, now);
	KUNIT_EXPECT_EQ(test, qp->sq_streak, 0);
	KUNIT_EXPECT_EQ(test, qp->sq_poll_window_ns,
			(u32)ERI_SIM_SQ_POLL_WINDOW_MAX_NS / 2);
	/* Soon, but a request came first (a ping-pong): halves too. */
	for (i = 0; i < 8; i++) {
		t_sq_ask(qp, now, 1, true);
		qp->sq_rx_seen = true;
		now += 1;
		eri_sim_req_kicked_locked(qp, now);
		KUNIT_EXPECT_EQ(test, qp->sq_streak, 0);
	}
	KUNIT_EXPECT_EQ(test, qp->sq_poll_window_ns,
			(u32)ERI_SIM_SQ_POLL_WINDOW_MIN_NS);
	spin_unlock_bh(&qp->lock);
}

/* A full CQ: the completion is dropped and CQ_ERR raised, not overwritten. */
static void eri_sim_test_cq_overrun(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	struct t_qp q = {};
	u32 i, found = 0;

	t_qp_setup(test, t, &q);
	/* Nine bad WQEs for eight CQEs: one fails, the rest are flushed. */
	for (i = 0; i < (1U << T_SQ_LOG); i++)
		t_put_wqe(&q, i, FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE, 0x7f), 0,
			  NULL, 0);
	t_kick(t, &q, 4);
	t_kick(t, &q, 8);
	t_kick(t, &q, 9);
	for (i = 0; i < (1U << T_CQ_LOG); i++)
		KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_CQE_HDR_OWNER,
						le32_to_cpu(q.cq[i].hdr)), 1U);
	for (i = 0; i < (1U << T_EQ_DEPTH_LOG); i++) {
		u32 hdr = le32_to_cpu(t->aeq[i].hdr);

		if (FIELD_GET(ERI_AEQE_HDR_TYPE, hdr) == ERI_AEQE_CQ_ERR &&
		    le32_to_cpu(t->aeq[i].subject) == T_CQN)
			found++;
	}
	KUNIT_EXPECT_EQ(test, found, 1U);
}

#define T_PBL_CQN	4
#define T_PBL_LOG	16	/* 2 MiB of CQEs: indices pass the 16-bit wrap */
#define T_PBL_SHIFT	16	/* in 32 pages of 64 KiB */
#define T_PBL_PAGES	BIT(T_PBL_LOG + 5 - T_PBL_SHIFT)

static u8 t_create_cq(struct kunit *test, struct eri_sim_test *t, u32 cqn,
		      u32 depth_log, u64 ring, u32 npages, u32 page_shift,
		      void *dbrec)
{
	struct eri_aq_create_cq_cmd cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_CREATE_CQ),
		.ring_addr = cpu_to_le64(ring),
		.dbrec_addr = cpu_to_le64(t_dma(t, dbrec,
						sizeof(struct eri_dbrec))),
		.cqn = cpu_to_le32(cqn),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_CQ_DEPTH_LOG,
					      depth_log) |
				   (npages ? ERI_AQ_CREATE_CQ_PBL |
				    FIELD_PREP(ERI_AQ_CREATE_CQ_PAGE_SHIFT,
					       page_shift) : 0)),
		.npages = cpu_to_le32(npages),
	};

	return t_exec(test, t, &cmd);
}

static u8 t_destroy_cq(struct kunit *test, struct eri_sim_test *t, u32 cqn)
{
	struct eri_aq_destroy_cq_cmd cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_DESTROY_CQ),
		.cqn = cpu_to_le32(cqn),
	};

	return t_exec(test, t, &cmd);
}

/*
 * Post @cqe to @cq as a QP does: under its lock, which softirqs (the
 * QP's timers) take, so with bottom halves off.  Return: as
 * eri_sim_cq_post().
 */
static int t_cq_post(struct eri_sim_cq *cq, const struct eri_cqe *cqe)
{
	int ret;

	local_bh_disable();
	ret = eri_sim_cq_post(cq, cqe);
	local_bh_enable();
	return ret;
}

/* Post CQE @i of CQ @cqn; the entry must land at @e with its owner bit. */
static void t_post_cqe(struct kunit *test, struct eri_sim_cq *cq,
		       const struct eri_cqe *e, u32 i)
{
	struct eri_cqe cqe = { .qpn = cpu_to_le32(i) };
	u32 hdr;

	KUNIT_ASSERT_EQ(test, t_cq_post(cq, &cqe), 0);
	hdr = le32_to_cpu(READ_ONCE(e->hdr));
	KUNIT_ASSERT_EQ(test, FIELD_GET(ERI_CQE_HDR_OWNER, hdr),
			eri_ring_owner(i, cq->depth_log));
	KUNIT_ASSERT_EQ(test, le32_to_cpu(e->qpn), i);
}

/*
 * A CQ ring given by page list: bad lists are refused; a good one takes
 * completions page by page, with 32-bit indices past the 16-bit wrap (owner
 * bits flip at 2^16), and overruns when full.  A 16-bit consumer of a
 * small contiguous ring keeps working past the wrap of its index.
 */
static void eri_sim_test_cq_pbl(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	const u32 per_page = BIT(T_PBL_SHIFT - 5);
	struct eri_cq_dbrec *db;
	struct eri_cqe *small;
	struct page **pages;
	struct eri_sim_cq *cq;
	__le64 *pbl;
	u64 pbl_pa;
	u32 i;

	pages = kunit_kcalloc(test, T_PBL_PAGES, sizeof(*pages), GFP_KERNEL);
	pbl = kunit_kcalloc(test, T_PBL_PAGES, sizeof(*pbl), GFP_KERNEL);
	db = kunit_kzalloc(test, sizeof(*db), GFP_KERNEL);
	small = kunit_kzalloc(test, sizeof(*small) << 3, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, pages && pbl && db && small);
	for (i = 0; i < T_PBL_PAGES; i++) {
		pages[i] = alloc_pages(GFP_KERNEL | __GFP_ZERO,
				       T_PBL_SHIFT - PAGE_SHIFT);
		if (!pages[i])
			break;
		pbl[i] = cpu_to_le64(t_dma_page(t, pages[i],
						1UL << T_PBL_SHIFT));
	}
	if (i < T_PBL_PAGES)
		goto out_free;
	pbl_pa = t_dma(t, pbl, T_PBL_PAGES * sizeof(*pbl));

	t_enable(test, t);
	KUNIT_ASSERT_EQ(test, t_create_eq(test, t, 0, t_ceq(t),
					  T_EQ_DEPTH_LOG, 1), ERI_AQ_STS_OK);
	/* Page size out of range, a count that does not match the depth. */
	KUNIT_EXPECT_EQ(test, t_create_cq(test, t, T_PBL_CQN, T_PBL_LOG, pbl_pa,
					  T_PBL_PAGES, 11, db),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_create_cq(test, t, T_PBL_CQN, T_PBL_LOG, pbl_pa,
					  T_PBL_PAGES, 31, db),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_create_cq(test, t, T_PBL_CQN, T_PBL_LOG, pbl_pa,
					  T_PBL_PAGES - 1, T_PBL_SHIFT, db),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t_create_cq(test, t, T_PBL_CQN, T_PBL_LOG,
					  T_NOT_RAM, T_PBL_PAGES, T_PBL_SHIFT,
					  db),
			ERI_AQ_STS_DMA_ERR);
	/* A page not aligned to the page size, a page that is not RAM. */
	pbl[3] = cpu_to_le64(le64_to_cpu(pbl[3]) + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, t_create_cq(test, t, T_PBL_CQN, T_PBL_LOG, pbl_pa,
					  T_PBL_PAGES, T_PBL_SHIFT, db),
			ERI_AQ_STS_BAD_PARAM);
	pbl[3] = cpu_to_le64(T_NOT_RAM);
	KUNIT_EXPECT_EQ(test, t_create_cq(test, t, T_PBL_CQN, T_PBL_LOG, pbl_pa,
					  T_PBL_PAGES, T_PBL_SHIFT, db),
			ERI_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_NULL(test, eri_sim_cq_find(t->sdev, T_PBL_CQN));
	pbl[3] = cpu_to_le64(t_dma_page(t, pages[3], 1UL << T_PBL_SHIFT));
	KUNIT_ASSERT_EQ(test, t_create_cq(test, t, T_PBL_CQN, T_PBL_LOG, pbl_pa,
					  T_PBL_PAGES, T_PBL_SHIFT, db),
			ERI_AQ_STS_OK);
	/* The device copied the list: changing it now changes nothing. */
	memset(pbl, 0, T_PBL_PAGES * sizeof(*pbl));

	cq = eri_sim_cq_find(t->sdev, T_PBL_CQN);
	KUNIT_ASSERT_NOT_NULL(test, cq);
	for (i = 0; i < BIT(T_PBL_LOG) + 3; i++) {
		u32 slot = eri_ring_slot(i, T_PBL_LOG);

		t_post_cqe(test, cq, (struct eri_cqe *)
			   page_address(pages[slot / per_page]) +
			   slot % per_page, i);
		WRITE_ONCE(db->ci, cpu_to_le32(i + 1));
	}
	/* Full once a whole ring is unconsumed, not earlier. */
	for (; i < BIT(T_PBL_LOG + 1) + 3; i++) {
		struct eri_cqe cqe = {};

		KUNIT_ASSERT_EQ(test, t_cq_post(cq, &cqe), 0);
	}
	KUNIT_EXPECT_EQ(test, t_cq_post(cq, &(struct eri_cqe){}), -ENOSPC);
	KUNIT_EXPECT_EQ(test, t_destroy_cq(test, t, T_PBL_CQN), ERI_AQ_STS_OK);

	/* Eight contiguous entries, a consumer that writes 16 bits of ci. */
	KUNIT_ASSERT_EQ(test, t_create_cq(test, t, T_PBL_CQN, 3,
					  t_dma(t, small, sizeof(*small) << 3),
					  0, 0, db),
			ERI_AQ_STS_OK);
	WRITE_ONCE(db->ci, 0);
	cq = eri_sim_cq_find(t->sdev, T_PBL_CQN);
	KUNIT_ASSERT_NOT_NULL(test, cq);
	for (i = 0; i < BIT(16) + 20; i++) {
		t_post_cqe(test, cq, &small[eri_ring_slot(i, 3)], i);
		WRITE_ONCE(db->ci, cpu_to_le32((u16)(i + 1)));
	}
	KUNIT_EXPECT_EQ(test, t_destroy_cq(test, t, T_PBL_CQN), ERI_AQ_STS_OK);

out_free:
	for (i = 0; i < T_PBL_PAGES && pages[i]; i++)
		__free_pages(pages[i], T_PBL_SHIFT - PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, i, (u32)T_PBL_PAGES);
}

#define T_SRQN		2
#define T_SRQ_LOG	3

/* An SRQ, its CQ and the QPs that receive from it, for the SRQ cases. */
struct t_srq {
	u8 *ring;
	struct eri_srq_dbrec *db;
	struct eri_cqe *cq;
	struct eri_cq_dbrec *cq_db;
	struct eri_qp_attr *attr;
	struct eri_qp_dbrec *qp_db[4];
	u8 *qp_sq[4];
	u16 pi;
	u16 cq_ci;
	u16 aeq_ci;
	/* The async events consumed last: type and subject. */
	u32 ev[1U << T_EQ_DEPTH_LOG][2];
	u32 nev;
};

/* Enable, a CEQ, CQ T_CQN and SRQ T_SRQN of PD @pdn. */
static void t_srq_setup(struct kunit *test, struct eri_sim_test *t,
			struct t_srq *s, u32 pdn)
{
	struct eri_aq_create_cq_cmd cq_cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_CREATE_CQ),
		.cqn = cpu_to_le32(T_CQN),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_CQ_DEPTH_LOG,
					      T_CQ_LOG)),
	};
	struct eri_aq_create_srq_cmd srq_cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_CREATE_SRQ),
		.srqn = cpu_to_le32(T_SRQN),
		.pdn = cpu_to_le32(pdn),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_SRQ_DEPTH_LOG,
					      T_SRQ_LOG)),
	};

	t_enable(test, t);
	KUNIT_ASSERT_EQ(test, t_create_eq(test, t, 0, t_ceq(t),
					  T_EQ_DEPTH_LOG, 1), ERI_AQ_STS_OK);
	s->ring = kunit_kzalloc(test, ERI_RQ_WQE_SIZE << T_SRQ_LOG,
				GFP_KERNEL);
	s->db = kunit_kzalloc(test, sizeof(*s->db), GFP_KERNEL);
	s->cq = kunit_kzalloc(test, sizeof(*s->cq) << T_CQ_LOG, GFP_KERNEL);
	s->cq_db = kunit_kzalloc(test, sizeof(*s->cq_db), GFP_KERNEL);
	s->attr = kunit_kzalloc(test, sizeof(*s->attr), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, s->ring && s->db && s->cq && s->cq_db &&
			  s->attr);
	cq_cmd.ring_addr = cpu_to_le64(t_dma(t, s->cq,
					     sizeof(*s->cq) << T_CQ_LOG));
	cq_cmd.dbrec_addr = cpu_to_le64(t_dma(t, s->cq_db, sizeof(*s->cq_db)));
	KUNIT_ASSERT_EQ(test, t_exec(test, t, &cq_cmd), ERI_AQ_STS_OK);
	srq_cmd.ring_addr = cpu_to_le64(t_dma(t, s->ring,
					      ERI_RQ_WQE_SIZE << T_SRQ_LOG));
	srq_cmd.dbrec_addr = cpu_to_le64(t_dma(t, s->db, sizeof(*s->db)));
	KUNIT_ASSERT_EQ(test, t_exec(test, t, &srq_cmd), ERI_AQ_STS_OK);
}

static u8 t_srq_qp_state(struct kunit *test, struct eri_sim_test *t,
			 struct t_srq *s, u32 qpn, u8 state)
{
	struct eri_aq_qp_attr_cmd cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_MODIFY_QP),
		.qpn = cpu_to_le32(qpn),
		.attr_addr = cpu_to_le64(t_dma(t, s->attr, sizeof(*s->attr))),
	};

	memset(s->attr, 0, sizeof(*s->attr));
	s->attr->mask = cpu_to_le32(ERI_QP_ATTR_STATE);
	s->attr->state = state;
	return t_exec(test, t, &cmd);
}

/* QP @qpn (T_QPN + @i) of PD 1 on the SRQ, in RTS, expecting PSN 0. */
static void t_srq_qp(struct kunit *test, struct eri_sim_test *t,
		     struct t_srq *s, unsigned int i)
{
	struct eri_aq_create_qp_cmd qp_cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_CREATE_QP),
		.qpn = cpu_to_le32(T_QPN + i),
		.pdn = cpu_to_le32(1),
		.send_cqn = cpu_to_le32(T_CQN),
		.recv_cqn = cpu_to_le32(T_CQN),
		.srqn = cpu_to_le32(T_SRQN),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_QP_TYPE, ERI_QPT_RC) |
				   FIELD_PREP(ERI_AQ_CREATE_QP_SQ_DEPTH_LOG,
					      T_SQ_LOG) |
				   ERI_AQ_CREATE_QP_SRQ),
	};
	struct eri_aq_qp_attr_cmd mod = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_MODIFY_QP),
		.qpn = cpu_to_le32(T_QPN + i),
		.attr_addr = cpu_to_le64(t_dma(t, s->attr, sizeof(*s->attr))),
	};
	static const u8 gid[16] = { [10] = 0xff, [11] = 0xff, [12] = 127,
				    [15] = 1 };

	s->qp_sq[i] = kunit_kzalloc(test, ERI_SQ_WQE_SIZE << T_SQ_LOG,
				    GFP_KERNEL);
	s->qp_db[i] = kunit_kzalloc(test, sizeof(*s->qp_db[i]), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, s->qp_sq[i] && s->qp_db[i]);
	qp_cmd.sq_addr = cpu_to_le64(t_dma(t, s->qp_sq[i],
					   ERI_SQ_WQE_SIZE << T_SQ_LOG));
	qp_cmd.dbrec_addr = cpu_to_le64(t_dma(t, s->qp_db[i],
					      sizeof(*s->qp_db[i])));
	KUNIT_ASSERT_EQ(test, t_exec(test, t, &qp_cmd), ERI_AQ_STS_OK);

	memset(s->attr, 0, sizeof(*s->attr));
	s->attr->mask = cpu_to_le32(ERI_QP_ATTR_ALL);
	s->attr->state = ERI_QPS_RTS;
	s->attr->path_mtu_log = 10;
	s->attr->timeout = 14;
	s->attr->retry_cnt = 7;
	s->attr->rnr_retry = 7;
	s->attr->dest_qpn = cpu_to_le32(7);
	memcpy(s->attr->sgid, gid, sizeof(gid));
	memcpy(s->attr->dgid, gid, sizeof(gid));
	KUNIT_ASSERT_EQ(test, t_exec(test, t, &mod), ERI_AQ_STS_OK);
}

/* Post one WQE, tagged @tag, with @num_sge in its header and @sge. */
static void t_srq_post(struct t_srq *s, u32 tag, u32 num_sge,
		       const struct eri_sge *sge)
{
	struct eri_rq_wqe_hdr *h = (void *)(s->ring +
		((size_t)eri_ring_slot(s->pi, T_SRQ_LOG) << ERI_RQ_WQE_SHIFT));

	memset(h, 0, ERI_RQ_WQE_SIZE);
	h->hdr = cpu_to_le32(FIELD_PREP(ERI_RQ_WQE_HDR_NUM_SGE, num_sge));
	h->tag = cpu_to_le32(tag);
	if (sge)
		memcpy(h + 1, sge, sizeof(*sge));
	s->pi++;
	/* The WQE before the index, as a producer does. */
	wmb();
	WRITE_ONCE(s->db->pi, cpu_to_le32(s->pi));
}

/* A SEND packet for QP @qpn: PSN @psn of message @msn, as the wire has it. */
static void t_srq_rx(struct eri_sim_test *t, u32 qpn, u32 psn, u32 msn,
		     u8 flags, const void *payload, u32 len)
{
	struct eri_wire_hdr hdr = {
		.version = ERI_WIRE_VERSION,
		.opcode = ERI_OP_SEND,
		.flags = flags,
		.dqpn = cpu_to_be32(qpn),
		.sqpn = cpu_to_be32(7),
		.psn = cpu_to_be32(psn),
		.msg_len = cpu_to_be32(len),
		.msn = cpu_to_be32(msn),
	};
	struct eri_sim_qp *qp = eri_sim_qp_get(t->sdev, qpn);
	/* The payload as a received packet holds it. */
	struct sk_buff *skb = alloc_skb(max(len, 1U), GFP_KERNEL);
	struct eri_sim_rx_pkt pkt = { .len = len };
	struct eri_sim_skb_cur cur;

	if (!qp || !skb)
		goto out;
	skb_put_data(skb, payload, len);
	eri_sim_skb_cur_init(&cur, skb);
	pkt.cur = &cur;
	/* As the socket's receive path: the responder under the QP's lock. */
	spin_lock_bh(&qp->lock);
	eri_sim_resp_rx_locked(qp, &hdr, &pkt);
	spin_unlock_bh(&qp->lock);
	t_sync(t);
out:
	kfree_skb(skb);
	if (qp)
		eri_sim_qp_put(qp);
}

/* The next completion: a receive of QP @qpn from the SRQ, tag @tag. */
static void t_srq_expect_cqe(struct kunit *test, struct t_srq *s, u32 qpn,
			     u8 status, u32 tag)
{
	struct eri_cqe *cqe = &s->cq[eri_ring_slot(s->cq_ci, T_CQ_LOG)];
	u32 hdr = le32_to_cpu(READ_ONCE(cqe->hdr));

	KUNIT_ASSERT_EQ(test, FIELD_GET(ERI_CQE_HDR_OWNER, hdr),
			eri_ring_owner(s->cq_ci, T_CQ_LOG));
	KUNIT_EXPECT_FALSE(test, hdr & ERI_CQE_HDR_SQ);
	KUNIT_EXPECT_TRUE(test, hdr & ERI_CQE_HDR_SRQ);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_CQE_HDR_STATUS, hdr), (u32)status);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cqe->qpn), qpn);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cqe->srqn), (u32)T_SRQN);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cqe->wqe_idx), tag);
	s->cq_ci++;
	s->cq_db->ci = cpu_to_le32(s->cq_ci);
}

static void t_srq_expect_no_cqe(struct kunit *test, struct t_srq *s)
{
	struct eri_cqe *cqe = &s->cq[eri_ring_slot(s->cq_ci, T_CQ_LOG)];

	KUNIT_EXPECT_NE(test, FIELD_GET(ERI_CQE_HDR_OWNER,
					le32_to_cpu(READ_ONCE(cqe->hdr))),
			eri_ring_owner(s->cq_ci, T_CQ_LOG));
}

/*
 * Consume the AEQ as the driver does (record, then doorbell with ARM),
 * keeping the events in @s->ev; return how many there were.
 */
static u32 t_srq_aeq_drain(struct eri_sim_test *t, struct t_srq *s)
{
	s->nev = 0;
	while (s->nev < ARRAY_SIZE(s->ev)) {
		struct eri_aeqe *e = &t->aeq[eri_ring_slot(s->aeq_ci,
							   T_EQ_DEPTH_LOG)];
		u32 hdr = le32_to_cpu(READ_ONCE(e->hdr));

		if (FIELD_GET(ERI_AEQE_HDR_OWNER, hdr) !=
		    eri_ring_owner(s->aeq_ci, T_EQ_DEPTH_LOG))
			break;
		s->ev[s->nev][0] = FIELD_GET(ERI_AEQE_HDR_TYPE, hdr);
		s->ev[s->nev][1] = le32_to_cpu(e->subject);
		s->nev++;
		s->aeq_ci++;
	}
	t->dbrecs[0].val = cpu_to_le64(FIELD_PREP(ERI_EQ_DB_CI, s->aeq_ci));
	t_write(t, ERI_REG_AEQ_DB, s->aeq_ci | ERI_EQ_DB_ARM);
	t_sync(t);
	return s->nev;
}

/* Events of @type about @subject among those t_srq_aeq_drain() kept. */
static u32 t_srq_ev(struct t_srq *s, u8 type, u32 subject)
{
	u32 i, found = 0;

	for (i = 0; i < s->nev; i++)
		if (s->ev[i][0] == type && s->ev[i][1] == subject)
			found++;
	return found;
}

static void t_query_srq(struct kunit *test, struct eri_sim_test *t,
			struct eri_aq_query_srq_resp *resp)
{
	struct eri_aq_query_srq_cmd cmd = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_QUERY_SRQ),
		.srqn = cpu_to_le32(T_SRQN),
	};

	KUNIT_ASSERT_EQ(test, t_exec(test, t, &cmd), ERI_AQ_STS_OK);
	memcpy(resp, t->cq[eri_ring_slot(t->cq_ci - 1, T_AQ_DEPTH_LOG)].resp,
	       sizeof(*resp));
}

/*
 * A QP that took WQEs ahead (a middle packet of message 2 binds the WQEs
 * of messages 0, 1 and 2) and goes to ERR completes them with
 * WR_FLUSH_ERR and their tags, in taking order; the SRQ's other WQEs stay
 * for the other QPs, and its index does not move.  QP_LAST_WQE follows;
 * when it finds the AEQ full it counts in aeq_overflows and comes with
 * the next AEQ doorbell.
 */
static void eri_sim_test_srq_flush(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	struct eri_aq_query_srq_resp resp;
	struct t_srq s = {};
	u32 i;

	t_srq_setup(test, t, &s, 1);
	t_srq_qp(test, t, &s, 0);
	t_srq_qp(test, t, &s, 1);
	for (i = 0; i < 5; i++)
		t_srq_post(&s, 0xa0 + i, 0, NULL);

	t_srq_rx(t, T_QPN, 2, 2, 0, NULL, 0);
	t_srq_expect_no_cqe(test, &s);
	t_query_srq(test, t, &resp);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(resp.ci), 3U);

	/* Fill the AEQ: QP_LAST_WQE will find no room. */
	for (i = 0; i < (1U << T_EQ_DEPTH_LOG); i++)
		KUNIT_ASSERT_EQ(test, eri_sim_aeq_post(t->sdev,
						       ERI_AEQE_PORT_CHANGE,
						       1, 0), 0);
	KUNIT_ASSERT_EQ(test, t_stat(t, ERI_STAT_AEQ_OVERFLOWS), 0ULL);
	KUNIT_ASSERT_EQ(test, t_srq_qp_state(test, t, &s, T_QPN, ERI_QPS_ERR),
			ERI_AQ_STS_OK);
	for (i = 0; i < 3; i++)
		t_srq_expect_cqe(test, &s, T_QPN, ERI_CQE_STS_WR_FLUSH_ERR,
				 0xa0 + i);
	t_srq_expect_no_cqe(test, &s);
	KUNIT_EXPECT_EQ(test, t_stat(t, ERI_STAT_AEQ_OVERFLOWS), 1ULL);
	t_query_srq(test, t, &resp);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(resp.ci), 3U);

	/* The doorbell that consumed the four makes room: it comes now. */
	KUNIT_EXPECT_EQ(test, t_srq_aeq_drain(t, &s), 1U << T_EQ_DEPTH_LOG);
	KUNIT_EXPECT_EQ(test, t_srq_ev(&s, ERI_AEQE_QP_LAST_WQE, T_QPN), 0U);
	KUNIT_EXPECT_EQ(test, t_srq_aeq_drain(t, &s), 1U);
	KUNIT_EXPECT_EQ(test, t_srq_ev(&s, ERI_AEQE_QP_LAST_WQE, T_QPN), 1U);
	/* Once. */
	KUNIT_EXPECT_EQ(test, t_srq_aeq_drain(t, &s), 0U);

	/* The other QP takes the next WQE, a4 after a3. */
	t_srq_rx(t, T_QPN + 1, 0, 0, ERI_WIRE_FIRST | ERI_WIRE_LAST, NULL, 0);
	t_srq_expect_cqe(test, &s, T_QPN + 1, ERI_CQE_STS_SUCCESS, 0xa3);
	t_srq_rx(t, T_QPN + 1, 1, 1, ERI_WIRE_FIRST | ERI_WIRE_LAST, NULL, 0);
	t_srq_expect_cqe(test, &s, T_QPN + 1, ERI_CQE_STS_SUCCESS, 0xa4);
	t_srq_expect_no_cqe(test, &s);
}

/*
 * Hostile SRQ WQEs: more SGEs than a WQE holds, a key of another PD than
 * the SRQ's, and a producer index beyond the ring.  Each fails only what
 * it must: the QP that took the malformed WQE (its tag in the completion),
 * then the SRQ, once; nothing is written through the foreign key.
 */
static void eri_sim_test_srq_hostile(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	u32 key1 = FIELD_PREP(ERI_MR_KEY_INDEX, 3) | 0x11;
	u32 key2 = FIELD_PREP(ERI_MR_KEY_INDEX, 4) | 0x22;
	static const u8 msg[] = "0123456789abcdef";
	const u32 len = sizeof(msg) - 1;
	struct eri_aq_query_srq_resp resp;
	struct eri_sge sge = {};
	struct t_srq s = {};
	u8 *buf;

	/* The SRQ in PD 2, its QPs in PD 1. */
	t_srq_setup(test, t, &s, 2);
	buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, t_reg_mr(test, t, key1, 1, 0, 0, 0, 0, NULL,
				       ERI_AQ_REG_MR_DMA |
				       ERI_MR_ACCESS_LOCAL_WRITE),
			ERI_AQ_STS_OK);
	KUNIT_ASSERT_EQ(test, t_reg_mr(test, t, key2, 2, 0, 0, 0, 0, NULL,
				       ERI_AQ_REG_MR_DMA |
				       ERI_MR_ACCESS_LOCAL_WRITE),
			ERI_AQ_STS_OK);
	t_srq_qp(test, t, &s, 0);
	t_srq_qp(test, t, &s, 1);
	t_srq_qp(test, t, &s, 2);

	/* A key of the SRQ's PD works (not the QP's: PD 1). */
	sge.addr = cpu_to_le64(t_dma(t, buf, 64));
	sge.length = cpu_to_le32(16);
	sge.lkey = cpu_to_le32(key2);
	t_srq_post(&s, 0x100, 1, &sge);
	/* Eight SGEs: the header says more than the WQE holds. */
	t_srq_post(&s, 0xdeadbeef, ERI_RQ_WQE_MAX_SGE + 1, &sge);
	/* A key of PD 1: the QP's, not the SRQ's. */
	sge.addr = cpu_to_le64(t_dma(t, buf, 64) + 32);
	sge.lkey = cpu_to_le32(key1);
	t_srq_post(&s, 0x102, 1, &sge);

	t_srq_rx(t, T_QPN, 0, 0, ERI_WIRE_FIRST | ERI_WIRE_LAST, msg, len);
	t_srq_expect_cqe(test, &s, T_QPN, ERI_CQE_STS_SUCCESS, 0x100);
	KUNIT_EXPECT_EQ(test, memcmp(buf, msg, len), 0);

	t_srq_rx(t, T_QPN, 1, 1, ERI_WIRE_FIRST | ERI_WIRE_LAST, NULL, 0);
	t_srq_expect_cqe(test, &s, T_QPN, ERI_CQE_STS_LOC_QP_OP_ERR,
			 0xdeadbeef);
	t_srq_expect_no_cqe(test, &s);
	t_srq_aeq_drain(t, &s);
	KUNIT_EXPECT_EQ(test, t_srq_ev(&s, ERI_AEQE_QP_FATAL, T_QPN), 1U);
	KUNIT_EXPECT_EQ(test, t_srq_ev(&s, ERI_AEQE_QP_LAST_WQE, T_QPN), 1U);
	t_query_srq(test, t, &resp);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(resp.ci), 2U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(resp.flags), 0U);

	/* The SRQ goes on: the next QP takes the foreign key's WQE. */
	t_srq_rx(t, T_QPN + 1, 0, 0, ERI_WIRE_FIRST | ERI_WIRE_LAST, msg, len);
	t_srq_expect_cqe(test, &s, T_QPN + 1, ERI_CQE_STS_LOC_PROT_ERR, 0x102);
	t_srq_expect_no_cqe(test, &s);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(buf + 32, 0, 32));
	t_srq_aeq_drain(t, &s);
	KUNIT_EXPECT_EQ(test, t_srq_ev(&s, ERI_AEQE_QP_REQ_ERR, T_QPN + 1), 1U);
	KUNIT_EXPECT_EQ(test, t_srq_ev(&s, ERI_AEQE_QP_LAST_WQE, T_QPN + 1),
			1U);

	/* A producer index a whole ring and one beyond the device's. */
	WRITE_ONCE(s.db->pi, cpu_to_le32((u16)(s.pi + (1U << T_SRQ_LOG) + 1)));
	t_srq_rx(t, T_QPN + 2, 0, 0, ERI_WIRE_FIRST | ERI_WIRE_LAST, NULL, 0);
	t_srq_expect_no_cqe(test, &s);
	t_query_srq(test, t, &resp);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(resp.flags), (u32)ERI_AQ_SRQ_BROKEN);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(resp.ci), 3U);
	t_srq_aeq_drain(t, &s);
	KUNIT_EXPECT_EQ(test, t_srq_ev(&s, ERI_AEQE_SRQ_ERR, T_SRQN), 1U);
	KUNIT_EXPECT_EQ(test, t_srq_ev(&s, ERI_AEQE_QP_FATAL, T_QPN + 2), 1U);

	/* Broken for the next QP too, without a second SRQ_ERR. */
	t_srq_qp(test, t, &s, 3);
	t_srq_rx(t, T_QPN + 3, 0, 0, ERI_WIRE_FIRST | ERI_WIRE_LAST, NULL, 0);
	t_srq_expect_no_cqe(test, &s);
	t_srq_aeq_drain(t, &s);
	KUNIT_EXPECT_EQ(test, t_srq_ev(&s, ERI_AEQE_SRQ_ERR, T_SRQN), 0U);
	KUNIT_EXPECT_EQ(test, t_srq_ev(&s, ERI_AEQE_QP_FATAL, T_QPN + 3), 1U);
}

/*
 * An SRQ_LIMIT that finds the AEQ full is not lost: it counts in
 * aeq_overflows, the limit stays armed (QUERY_SRQ shows it), and the next
 * take, after the driver made room, posts it with the WQEs then left.
 */
static void eri_sim_test_srq_limit_full_aeq(struct kunit *test)
{
	struct eri_sim_test *t = test->priv;
	struct eri_aq_modify_srq_cmd mod = {
		.hdr.hdr = t_hdr(ERI_AQ_OP_MODIFY_SRQ),
		.srqn = cpu_to_le32(T_SRQN),
		.mask = cpu_to_le32(ERI_AQ_MODIFY_SRQ_LIMIT),
		.limit = cpu_to_le32(3),
	};
	struct eri_aq_query_srq_resp resp;
	struct t_srq s = {};
	struct eri_aeqe *ae;
	u32 i;

	t_srq_setup(test, t, &s, 1);
	t_srq_qp(test, t, &s, 0);
	for (i = 0; i < 4; i++)
		t_srq_post(&s, 0xc0 + i, 0, NULL);
	/* Four left, not below 3: armed, no event. */
	KUNIT_ASSERT_EQ(test, t_exec(test, t, &mod), ERI_AQ_STS_OK);
	KUNIT_EXPECT_EQ(test, t_srq_aeq_drain(t, &s), 0U);
	for (i = 0; i < (1U << T_EQ_DEPTH_LOG); i++)
		KUNIT_ASSERT_EQ(test, eri_sim_aeq_post(t->sdev,
						       ERI_AEQE_PORT_CHANGE,
						       1, 0), 0);

	/* Three left, then two: it fires into a full AEQ. */
	for (i = 0; i < 2; i++) {
		t_srq_rx(t, T_QPN, i, i, ERI_WIRE_FIRST | ERI_WIRE_LAST, NULL,
			 0);
		t_srq_expect_cqe(test, &s, T_QPN, ERI_CQE_STS_SUCCESS,
				 0xc0 + i);
	}
	KUNIT_EXPECT_EQ(test, t_stat(t, ERI_STAT_AEQ_OVERFLOWS), 1ULL);
	t_query_srq(test, t, &resp);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(resp.limit), 3U);
	KUNIT_EXPECT_EQ(test, t_srq_aeq_drain(t, &s), 1U << T_EQ_DEPTH_LOG);
	KUNIT_EXPECT_EQ(test, t_srq_ev(&s, ERI_AEQE_SRQ_LIMIT, T_SRQN), 0U);

	/* The next take finds room: one event, with one WQE left. */
	t_srq_rx(t, T_QPN, 2, 2, ERI_WIRE_FIRST | ERI_WIRE_LAST, NULL, 0);
	t_srq_expect_cqe(test, &s, T_QPN, ERI_CQE_STS_SUCCESS, 0xc2);
	KUNIT_EXPECT_EQ(test, t_srq_aeq_drain(t, &s), 1U);
	KUNIT_EXPECT_EQ(test, t_srq_ev(&s, ERI_AEQE_SRQ_LIMIT, T_SRQN), 1U);
	ae = &t->aeq[eri_ring_slot(s.aeq_ci - 1, T_EQ_DEPTH_LOG)];
	KUNIT_EXPECT_EQ(test, le64_to_cpu(ae->data), 1ULL);
	t_query_srq(test, t, &resp);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(resp.limit), 0U);

	/* One event per arm: the last take raises none. */
	t_srq_rx(t, T_QPN, 3, 3, ERI_WIRE_FIRST | ERI_WIRE_LAST, NULL, 0);
	t_srq_expect_cqe(test, &s, T_QPN, ERI_CQE_STS_SUCCESS, 0xc3);
	KUNIT_EXPECT_EQ(test, t_srq_aeq_drain(t, &s), 0U);
	KUNIT_EXPECT_EQ(test, t_stat(t, ERI_STAT_AEQ_OVERFLOWS), 1ULL);
}

static struct kunit_case eri_sim_test_cases[] = {
	KUNIT_CASE(eri_sim_test_enable),
	KUNIT_CASE(eri_sim_test_admin),
	KUNIT_CASE(eri_sim_test_aq_overrun),
	KUNIT_CASE(eri_sim_test_eq),
	KUNIT_CASE(eri_sim_test_regs),
	KUNIT_CASE(eri_sim_test_dma),
	KUNIT_CASE(eri_sim_test_mr),
	KUNIT_CASE(eri_sim_test_mr_rounded),
	KUNIT_CASE(eri_sim_test_sq_bad_opcode),
	KUNIT_CASE(eri_sim_test_sq_huge_length),
	KUNIT_CASE(eri_sim_test_sq_bad_format),
	KUNIT_CASE(eri_sim_test_sq_bad_lkey),
	KUNIT_CASE(eri_sim_test_sq_bad_index),
	KUNIT_CASE(eri_sim_test_sq_poll_window),
	KUNIT_CASE(eri_sim_test_read_batch),
	KUNIT_CASE(eri_sim_test_read_stall),
	KUNIT_CASE(eri_sim_test_cq_overrun),
	KUNIT_CASE(eri_sim_test_cq_pbl),
	KUNIT_CASE(eri_sim_test_srq_flush),
	KUNIT_CASE(eri_sim_test_srq_hostile),
	KUNIT_CASE(eri_sim_test_srq_limit_full_aeq),
	{}
};

static struct kunit_suite eri_sim_test_suite = {
	.name = "eri_sim",
	.init = eri_sim_test_init,
	.exit = eri_sim_test_exit,
	.test_cases = eri_sim_test_cases,
};

kunit_test_suite(eri_sim_test_suite);
