// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the ERI communication layer against a scripted fake
 * device: bring-up, admin commands across ring wraps, status mapping,
 * timeouts with late and stray completions, a device that fails to
 * enable, and the reconciliation of timed-out commands: idempotent destroys
 * and a device declared dead.
 */
#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/workqueue.h>

#include "eri_com_cmd.h"

struct eri_fake {
	struct eri_bus_dev bdev;
	struct device *root;
	u32 regs[ERI_REGS_SIZE / sizeof(u32)];
	irq_handler_t handler;
	void *data;
	struct work_struct work;
	bool silent;		/* do not answer commands */
	unsigned int drop;	/* run the next N commands, answer none */
	unsigned int fatals;	/* calls of the fatal handler */
	bool fail_enable;
	u8 status;		/* status of every answer */
	u16 sq_ci;
	u16 cq_pi;
	unsigned int executed;
	struct eri_com_dev com;	/* the layer under test */
	bool up;		/* com is initialized */
};

static struct eri_fake *to_fake(struct eri_bus_dev *bdev)
{
	return container_of(bdev, struct eri_fake, bdev);
}

static u32 eri_fake_read(struct eri_bus_dev *bdev, u32 off)
{
	return READ_ONCE(to_fake(bdev)->regs[off / 4]);
}

/* Answer with @cookie at the completion ring's producer index. */
static void eri_fake_complete(struct eri_fake *f, u16 cookie)
{
	struct eri_aq_cqe *ring = phys_to_virt(((u64)f->regs[ERI_REG_AQ_CQ_BASE_HI / 4] << 32) |
					       f->regs[ERI_REG_AQ_CQ_BASE_LO / 4]);
	u32 depth_log = f->regs[ERI_REG_AQ_DEPTH_LOG / 4];
	struct eri_aq_cqe *cqe = &ring[eri_ring_slot(f->cq_pi, depth_log)];

	memset(cqe->resp, 0xa5, sizeof(cqe->resp));
	cqe->resp[0] = cookie & 0xff;
	dma_wmb();
	WRITE_ONCE(cqe->hdr,
		   cpu_to_le32(FIELD_PREP(ERI_AQ_CQE_HDR_OWNER,
					  eri_ring_owner(f->cq_pi, depth_log)) |
			       FIELD_PREP(ERI_AQ_CQE_HDR_STATUS, f->status) |
			       FIELD_PREP(ERI_AQ_CQE_HDR_COOKIE, cookie)));
	f->cq_pi++;
}

static void eri_fake_irq(struct eri_fake *f)
{
	unsigned long flags;

	local_irq_save(flags);
	f->handler(ERI_MGMT_VECTOR, f->data);
	local_irq_restore(flags);
}

/* Run the commands up to the doorbell; the device's own context. */
static void eri_fake_work(struct work_struct *work)
{
	struct eri_fake *f = container_of(work, struct eri_fake, work);
	u8 *sq = phys_to_virt(((u64)f->regs[ERI_REG_AQ_SQ_BASE_HI / 4] << 32) |
			      f->regs[ERI_REG_AQ_SQ_BASE_LO / 4]);
	u32 depth_log = f->regs[ERI_REG_AQ_DEPTH_LOG / 4];
	u16 pi = f->regs[ERI_REG_AQ_SQ_DB / 4];

	if (f->silent)
		return;
	while (f->sq_ci != pi) {
		struct eri_aq_cmd_hdr *hdr = (void *)(sq +
			eri_ring_slot(f->sq_ci, depth_log) * ERI_AQ_SQE_SIZE);

		if (f->drop)
			f->drop--;
		else
			eri_fake_complete(f, FIELD_GET(ERI_AQ_CMD_HDR_COOKIE,
						       le32_to_cpu(hdr->hdr)));
		f->sq_ci++;
		f->executed++;
	}
	eri_fake_irq(f);
}

static void eri_fake_write(struct eri_bus_dev *bdev, u32 off, u32 val)
{
	struct eri_fake *f = to_fake(bdev);

	WRITE_ONCE(f->regs[off / 4], val);
	if (off == ERI_REG_DEV_CTL) {
		if (val & ERI_REG_DEV_CTL_RESET) {
			f->regs[ERI_REG_DEV_STS / 4] = 0;
			f->regs[ERI_REG_DEV_CTL / 4] = 0;
			f->sq_ci = 0;
			f->cq_pi = 0;
		} else if (val & ERI_REG_DEV_CTL_ENABLE) {
			f->regs[ERI_REG_DEV_STS / 4] = f->fail_enable ?
				ERI_REG_DEV_STS_FATAL |
				FIELD_PREP(ERI_REG_DEV_STS_ERR,
					   ERI_DEV_ERR_BAD_AQ_CONFIG) :
				ERI_REG_DEV_STS_READY;
		}
	} else if (off == ERI_REG_AQ_SQ_DB) {
		schedule_work(&f->work);
	}
}

static int eri_fake_request_irq(struct eri_bus_dev *bdev, unsigned int vector,
				irq_handler_t handler, void *data)
{
	to_fake(bdev)->handler = handler;
	to_fake(bdev)->data = data;
	return 0;
}

static void eri_fake_free_irq(struct eri_bus_dev *bdev, unsigned int vector)
{
	to_fake(bdev)->handler = NULL;
}

static const struct eri_bus_ops eri_fake_ops = {
	.reg_read32 = eri_fake_read,
	.reg_write32 = eri_fake_write,
	.request_irq = eri_fake_request_irq,
	.free_irq = eri_fake_free_irq,
};

static int eri_com_test_init(struct kunit *test)
{
	struct eri_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->root = root_device_register("eri_com_kunit");
	KUNIT_ASSERT_FALSE(test, IS_ERR(f->root));
	KUNIT_ASSERT_EQ(test, dma_coerce_mask_and_coherent(f->root,
							   DMA_BIT_MASK(64)), 0);
	f->bdev.ops = &eri_fake_ops;
	f->bdev.dma_dev = f->root;
	f->regs[ERI_REG_VERSION / 4] =
		FIELD_PREP(ERI_REG_VERSION_MAJOR, ERI_SPEC_VERSION_MAJOR);
	f->regs[ERI_REG_CAPS / 4] =
		FIELD_PREP(ERI_REG_CAPS_NUM_VECTORS, 2) |
		FIELD_PREP(ERI_REG_CAPS_MAX_AQ_DEPTH_LOG, 2) |
		FIELD_PREP(ERI_REG_CAPS_MAX_EQ_DEPTH_LOG, 4) |
		FIELD_PREP(ERI_REG_CAPS_MAX_CEQS, 1);
	f->regs[ERI_REG_ADMIN_TIMEOUT_MS / 4] = 100;
	INIT_WORK(&f->work, eri_fake_work);
	test->priv = f;
	return 0;
}

static void eri_com_test_exit(struct kunit *test)
{
	struct eri_fake *f = test->priv;

	if (f->up) {
		eri_com_stop_events(&f->com);
		eri_com_fini(&f->com);
	}
	cancel_work_sync(&f->work);
	root_device_unregister(f->root);
}

static void eri_test_event(void *priv, const struct eri_aeqe *aeqe)
{
}

static void eri_test_fatal(void *priv)
{
	struct eri_fake *f = priv;

	f->fatals++;
}

/* Bring the layer up on the fake device; the exit hook takes it down. */
static struct eri_com_dev *eri_test_up(struct kunit *test)
{
	struct eri_fake *f = test->priv;

	KUNIT_ASSERT_EQ(test, eri_com_init(&f->com, &f->bdev, eri_test_event,
					   eri_test_fatal, f), 0);
	f->up = true;
	return &f->com;
}

static int eri_test_nop(struct eri_com_dev *com, u8 *resp)
{
	struct eri_aq_cmd_hdr cmd = {
		.hdr = cpu_to_le32(FIELD_PREP(ERI_AQ_CMD_HDR_OPCODE,
					      ERI_AQ_OP_QUERY_PORT)),
	};

	return eri_com_exec(com, &cmd, sizeof(cmd), resp, 24);
}

/* Commands complete with their own responses across several ring wraps. */
static void eri_com_test_wraps(struct kunit *test)
{
	struct eri_fake *f = test->priv;
	struct eri_com_dev *com = eri_test_up(test);
	unsigned int i;
	u8 resp[24];

	/* Capped by the device's maximum of 2^2 entries. */
	KUNIT_EXPECT_EQ(test, com->aq.depth_log, 2U);
	for (i = 0; i < 3 * 4 + 1; i++) {
		KUNIT_EXPECT_EQ(test, eri_test_nop(com, resp), 0);
		KUNIT_EXPECT_EQ(test, resp[1], 0xa5);
	}
	KUNIT_EXPECT_EQ(test, f->executed, 13U);
	KUNIT_EXPECT_EQ(test, com->aq.stale_completions, 0ULL);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(com->aq.slot_busy, 4));
}

/* Device status codes become errnos. */
static void eri_com_test_status(struct kunit *test)
{
	static const struct {
		u8 status;
		int err;
	} map[] = {
		{ ERI_AQ_STS_OK, 0 },
		{ ERI_AQ_STS_BAD_OPCODE, -EOPNOTSUPP },
		{ ERI_AQ_STS_BAD_PARAM, -EINVAL },
		{ ERI_AQ_STS_NO_RESOURCE, -ENOMEM },
		{ ERI_AQ_STS_BAD_STATE, -EINVAL },
		{ ERI_AQ_STS_DMA_ERR, -EIO },
		{ ERI_AQ_STS_EXISTS, -EEXIST },
		{ ERI_AQ_STS_NOT_FOUND, -ENOENT },
		{ 200, -EIO },
	};
	struct eri_fake *f = test->priv;
	struct eri_com_dev *com = eri_test_up(test);
	unsigned int i;
	u8 resp[24];

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		f->status = map[i].status;
		KUNIT_EXPECT_EQ(test, eri_test_nop(com, resp), map[i].err);
	}
}

/*
 * A command the device does not answer times out; its slot stays reserved
 * until the late completion comes, which completes nothing else.  A
 * completion with an unknown cookie is counted and dropped.
 */
static void eri_com_test_timeout(struct kunit *test)
{
	struct eri_fake *f = test->priv;
	struct eri_com_dev *com = eri_test_up(test);
	u8 resp[24];

	f->silent = true;
	KUNIT_EXPECT_EQ(test, eri_test_nop(com, resp), -ETIMEDOUT);
	KUNIT_EXPECT_FALSE(test, bitmap_empty(com->aq.slot_busy, 4));
	KUNIT_EXPECT_EQ(test, com->aq.avail.count, 3U);

	/* The late answer frees the slot. */
	f->silent = false;
	schedule_work(&f->work);
	flush_work(&f->work);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(com->aq.slot_busy, 4));
	KUNIT_EXPECT_EQ(test, com->aq.avail.count, 4U);
	KUNIT_EXPECT_EQ(test, com->aq.stale_completions, 0ULL);

	/* A stray completion. */
	eri_fake_complete(f, 0xffff);
	eri_fake_irq(f);
	KUNIT_EXPECT_EQ(test, com->aq.stale_completions, 1ULL);

	/* The queue still works. */
	KUNIT_EXPECT_EQ(test, eri_test_nop(com, resp), 0);
}

/*
 * DESTROY_QP whose answer is lost: it is sent again, and the device's
 * NOT_FOUND then says the first one ran.  Without a timeout before it,
 * NOT_FOUND stays an error.
 */
static void eri_com_test_destroy_idempotent(struct kunit *test)
{
	struct eri_fake *f = test->priv;
	struct eri_com_dev *com = eri_test_up(test);

	f->drop = 1;
	f->status = ERI_AQ_STS_NOT_FOUND;
	KUNIT_EXPECT_EQ(test, eri_com_destroy_qp(com, 7), 0);
	KUNIT_EXPECT_EQ(test, f->executed, 2U);
	KUNIT_EXPECT_EQ(test, eri_com_destroy_qp(com, 7), -ENOENT);
	KUNIT_EXPECT_EQ(test, f->fatals, 0U);
	KUNIT_EXPECT_FALSE(test, eri_com_is_dead(com));
	/* The answer in time cleared the count of timeouts. */
	KUNIT_EXPECT_EQ(test, com->aq.timeouts, 0U);
}

/*
 * A device that answers nothing is declared dead after
 * ERI_COM_MAX_TIMEOUTS commands: it is reset, the fatal handler runs once,
 * later commands fail at once without reaching it, and destroys succeed.
 */
static void eri_com_test_dead(struct kunit *test)
{
	struct eri_fake *f = test->priv;
	struct eri_com_dev *com = eri_test_up(test);
	unsigned int i;
	u8 resp[24];

	f->silent = true;
	for (i = 0; i < ERI_COM_MAX_TIMEOUTS - 1; i++) {
		KUNIT_EXPECT_EQ(test, eri_test_nop(com, resp), -ETIMEDOUT);
		KUNIT_EXPECT_FALSE(test, eri_com_is_dead(com));
	}
	KUNIT_EXPECT_EQ(test, eri_test_nop(com, resp), -ETIMEDOUT);
	KUNIT_EXPECT_TRUE(test, eri_com_is_dead(com));
	KUNIT_EXPECT_EQ(test, f->fatals, 1U);
	/* Reset: neither ready nor enabled. */
	KUNIT_EXPECT_EQ(test, f->regs[ERI_REG_DEV_STS / 4], 0U);
	/* The abandoned slots are free again. */
	KUNIT_EXPECT_TRUE(test, bitmap_empty(com->aq.slot_busy, 4));
	KUNIT_EXPECT_EQ(test, com->aq.avail.count, 4U);

	f->silent = false;
	i = f->regs[ERI_REG_AQ_SQ_DB / 4];
	KUNIT_EXPECT_EQ(test, eri_test_nop(com, resp), -EIO);
	KUNIT_EXPECT_EQ(test, eri_com_destroy_qp(com, 7), 0);
	KUNIT_EXPECT_EQ(test, eri_com_destroy_cq(com, 3), 0);
	KUNIT_EXPECT_EQ(test, f->regs[ERI_REG_AQ_SQ_DB / 4], i);
	eri_com_declare_dead(com);
	KUNIT_EXPECT_EQ(test, f->fatals, 1U);
}

/* Answers in time between timeouts keep the device alive. */
static void eri_com_test_slow_not_dead(struct kunit *test)
{
	struct eri_fake *f = test->priv;
	struct eri_com_dev *com = eri_test_up(test);
	unsigned int i;
	u8 resp[24];

	/* Each lost answer keeps its slot: one stays for the others. */
	for (i = 0; i < ERI_COM_MAX_TIMEOUTS; i++) {
		f->drop = 1;
		KUNIT_EXPECT_EQ(test, eri_test_nop(com, resp), -ETIMEDOUT);
		KUNIT_EXPECT_EQ(test, eri_test_nop(com, resp), 0);
	}
	KUNIT_EXPECT_FALSE(test, eri_com_is_dead(com));
	KUNIT_EXPECT_EQ(test, f->fatals, 0U);
}

/* A device that says it failed is dead at its first timeout. */
static void eri_com_test_fatal_status(struct kunit *test)
{
	struct eri_fake *f = test->priv;
	struct eri_com_dev *com = eri_test_up(test);
	u8 resp[24];

	f->silent = true;
	f->regs[ERI_REG_DEV_STS / 4] = ERI_REG_DEV_STS_FATAL |
		FIELD_PREP(ERI_REG_DEV_STS_ERR, ERI_DEV_ERR_DMA);
	KUNIT_EXPECT_EQ(test, eri_test_nop(com, resp), -ETIMEDOUT);
	KUNIT_EXPECT_TRUE(test, eri_com_is_dead(com));
	KUNIT_EXPECT_EQ(test, f->fatals, 1U);
}

/*
 * The DMA buffer of a command that timed out passes to the layer, which
 * keeps it until the device is done with it (here: fini, after its reset).
 */
static void eri_com_test_orphan_buf(struct kunit *test)
{
	struct eri_fake *f = test->priv;
	struct eri_com_dev *com = eri_test_up(test);
	struct eri_aq_cmd_hdr cmd = {
		.hdr = cpu_to_le32(FIELD_PREP(ERI_AQ_CMD_HDR_OPCODE,
					      ERI_AQ_OP_QUERY_STATS)),
	};
	struct eri_com_buf buf;
	void *va;

	KUNIT_ASSERT_EQ(test, eri_com_buf_alloc(com, &buf, 64), 0);
	va = buf.va;
	f->drop = 1;
	KUNIT_EXPECT_EQ(test, eri_com_exec_buf(com, &cmd, sizeof(cmd), NULL, 0,
					       &buf), -ETIMEDOUT);
	KUNIT_EXPECT_NULL(test, buf.va);
	KUNIT_EXPECT_PTR_EQ(test, com->aq.slots[0].orphan.va, va);
	eri_com_buf_free(com, &buf);
}

/* A device that reports a fatal error on enable fails bring-up cleanly. */
static void eri_com_test_enable_fails(struct kunit *test)
{
	struct eri_fake *f = test->priv;

	f->fail_enable = true;
	KUNIT_EXPECT_EQ(test, eri_com_init(&f->com, &f->bdev, eri_test_event,
					   NULL, NULL), -EIO);
	KUNIT_EXPECT_NULL(test, f->handler);
	KUNIT_EXPECT_NULL(test, f->com.aq.sq.va);
}

/* A device of another major version is refused before anything is set up. */
static void eri_com_test_bad_version(struct kunit *test)
{
	struct eri_fake *f = test->priv;

	f->regs[ERI_REG_VERSION / 4] = FIELD_PREP(ERI_REG_VERSION_MAJOR, 2);
	KUNIT_EXPECT_EQ(test, eri_com_init(&f->com, &f->bdev, eri_test_event,
					   NULL, NULL), -ENODEV);
	KUNIT_EXPECT_NULL(test, f->handler);
}

static struct kunit_case eri_com_test_cases[] = {
	KUNIT_CASE(eri_com_test_wraps),
	KUNIT_CASE(eri_com_test_status),
	KUNIT_CASE(eri_com_test_timeout),
	KUNIT_CASE(eri_com_test_destroy_idempotent),
	KUNIT_CASE(eri_com_test_dead),
	KUNIT_CASE(eri_com_test_slow_not_dead),
	KUNIT_CASE(eri_com_test_fatal_status),
	KUNIT_CASE(eri_com_test_orphan_buf),
	KUNIT_CASE(eri_com_test_enable_fails),
	KUNIT_CASE(eri_com_test_bad_version),
	{}
};

static struct kunit_suite eri_com_test_suite = {
	.name = "eri_com",
	.init = eri_com_test_init,
	.exit = eri_com_test_exit,
	.test_cases = eri_com_test_cases,
};

kunit_test_suite(eri_com_test_suite);
