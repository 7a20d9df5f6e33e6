// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the device-ABI encodings: every field lands at the byte
 * offset and bit position the specification gives, in little endian, and
 * decodes back; ring index arithmetic keeps owner bits right across wraps.
 */
#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/eri/eri_admin_defs.h>
#include <linux/eri/eri_io_defs.h>
#include <linux/eri/eri_regs_defs.h>
#include <linux/eri/eri_ring.h>
#include <linux/stddef.h>

static void eri_defs_test_cmd_hdr(struct kunit *test)
{
	struct eri_aq_create_eq_cmd cmd = {
		.hdr.hdr = cpu_to_le32(FIELD_PREP(ERI_AQ_CMD_HDR_OPCODE,
						  ERI_AQ_OP_CREATE_EQ) |
				       FIELD_PREP(ERI_AQ_CMD_HDR_COOKIE, 0xbeef)),
		.ring_addr = cpu_to_le64(0x1122334455667788ULL),
		.eqn = cpu_to_le32(7),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_EQ_DEPTH_LOG, 12) |
				   FIELD_PREP(ERI_AQ_CREATE_EQ_VECTOR, 3)),
	};
	const u8 *b = (const u8 *)&cmd;

	KUNIT_EXPECT_EQ(test, b[0], ERI_AQ_OP_CREATE_EQ);
	KUNIT_EXPECT_EQ(test, b[1], 0);
	KUNIT_EXPECT_EQ(test, b[2], 0xef);
	KUNIT_EXPECT_EQ(test, b[3], 0xbe);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_eq_cmd, ring_addr), 8);
	KUNIT_EXPECT_EQ(test, b[8], 0x88);
	KUNIT_EXPECT_EQ(test, b[15], 0x11);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_eq_cmd, dbrec_addr), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_eq_cmd, eqn), 24);
	KUNIT_EXPECT_EQ(test, b[24], 7);
	KUNIT_EXPECT_EQ(test, b[28], 12);
	KUNIT_EXPECT_EQ(test, b[29], 3);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_AQ_CREATE_EQ_VECTOR,
					le32_to_cpu(cmd.cfg)), 3);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_AQ_CMD_HDR_COOKIE,
					le32_to_cpu(cmd.hdr.hdr)), 0xbeef);
}

static void eri_defs_test_reg_mr(struct kunit *test)
{
	u32 key = FIELD_PREP(ERI_MR_KEY_INDEX, 0x12345) |
		  FIELD_PREP(ERI_MR_KEY_VARIANT, 0x9a);
	struct eri_aq_reg_mr_cmd cmd = {
		.key = cpu_to_le32(key),
		.pbl_addr = cpu_to_le64(0xabcdef000ULL),
		.npages = cpu_to_le32(3),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_REG_MR_ACCESS,
					      ERI_MR_ACCESS_REMOTE_WRITE |
					      ERI_MR_ACCESS_LOCAL_WRITE) |
				   ERI_AQ_REG_MR_DMA |
				   FIELD_PREP(ERI_AQ_REG_MR_PAGE_SHIFT, 21)),
	};
	const u8 *b = (const u8 *)&cmd;

	KUNIT_EXPECT_EQ(test, key, 0x0123459aU);
	KUNIT_EXPECT_EQ(test, b[8], 0x9a);
	KUNIT_EXPECT_EQ(test, b[9], 0x45);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_reg_mr_cmd, pdn), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_reg_mr_cmd, iova), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_reg_mr_cmd, length), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_reg_mr_cmd, pbl_addr), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_reg_mr_cmd, npages), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_reg_mr_cmd, cfg), 44);
	KUNIT_EXPECT_EQ(test, b[44], 0x85);	/* rights 0b0101, DMA bit 7 */
	KUNIT_EXPECT_EQ(test, b[45], 21);
	KUNIT_EXPECT_EQ(test, b[33], 0xf0);
	KUNIT_EXPECT_EQ(test, sizeof(struct eri_aq_dereg_mr_cmd),
			ERI_AQ_SQE_SIZE);
}

static void eri_defs_test_cqe(struct kunit *test)
{
	struct eri_aq_cqe cqe = {
		.hdr = cpu_to_le32(FIELD_PREP(ERI_AQ_CQE_HDR_OWNER, 1) |
				   FIELD_PREP(ERI_AQ_CQE_HDR_STATUS,
					      ERI_AQ_STS_NOT_FOUND) |
				   FIELD_PREP(ERI_AQ_CQE_HDR_COOKIE, 0x1234)),
	};
	const u8 *b = (const u8 *)&cqe;

	KUNIT_EXPECT_EQ(test, b[0], 1);
	KUNIT_EXPECT_EQ(test, b[1], ERI_AQ_STS_NOT_FOUND);
	KUNIT_EXPECT_EQ(test, b[2], 0x34);
	KUNIT_EXPECT_EQ(test, b[3], 0x12);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_cqe, resp), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct eri_aq_query_port_resp),
			sizeof(cqe.resp));
}

static void eri_defs_test_device_attr(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_device_attr, fw_version), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_device_attr, max_mr_size), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_device_attr, page_size_cap), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_device_attr, hw_version), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_device_attr, max_qp), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_device_attr, max_ah), 64);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_device_attr, max_send_sge), 68);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_device_attr, max_mtu), 74);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_device_attr, max_qp_rd_atom), 76);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_device_attr, cqe_shift), 80);
	KUNIT_EXPECT_EQ(test, sizeof(struct eri_aq_device_attr), 128);
	KUNIT_EXPECT_EQ(test, sizeof(struct eri_aq_query_device_cmd),
			ERI_AQ_SQE_SIZE);
	KUNIT_EXPECT_EQ(test, sizeof(struct eri_aq_query_port_cmd),
			ERI_AQ_SQE_SIZE);
	KUNIT_EXPECT_EQ(test, sizeof(struct eri_aq_destroy_eq_cmd),
			ERI_AQ_SQE_SIZE);
}

static void eri_defs_test_events(struct kunit *test)
{
	struct eri_aeqe aeqe = {
		.hdr = cpu_to_le32(FIELD_PREP(ERI_AEQE_HDR_OWNER, 1) |
				   FIELD_PREP(ERI_AEQE_HDR_TYPE,
					      ERI_AEQE_CEQ_OVERFLOW)),
		.subject = cpu_to_le32(5),
		.data = cpu_to_le64(0xa1),
	};
	struct eri_ceqe ceqe = { .cqn = cpu_to_le32(0x10203) };
	const u8 *a = (const u8 *)&aeqe, *c = (const u8 *)&ceqe;
	u32 db = FIELD_PREP(ERI_EQ_DB_CI, 0xfffe) | ERI_EQ_DB_ARM;

	KUNIT_EXPECT_EQ(test, a[0], 1);
	KUNIT_EXPECT_EQ(test, a[1], ERI_AEQE_CEQ_OVERFLOW);
	KUNIT_EXPECT_EQ(test, a[4], 5);
	KUNIT_EXPECT_EQ(test, a[8], 0xa1);
	KUNIT_EXPECT_EQ(test, c[4], 0x03);
	KUNIT_EXPECT_EQ(test, c[6], 0x01);
	KUNIT_EXPECT_EQ(test, db, 0x8000fffeU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_EQ_DB_CI, db), 0xfffe);
}

static void eri_defs_test_regs(struct kunit *test)
{
	u32 caps = FIELD_PREP(ERI_REG_CAPS_NUM_VECTORS, 17) |
		   FIELD_PREP(ERI_REG_CAPS_MAX_AQ_DEPTH_LOG, 8) |
		   FIELD_PREP(ERI_REG_CAPS_MAX_EQ_DEPTH_LOG, 15) |
		   FIELD_PREP(ERI_REG_CAPS_MAX_CEQS, 16);

	KUNIT_EXPECT_EQ(test, caps, 0x0100f811U);
	KUNIT_EXPECT_EQ(test, ERI_REG_CEQ_DB(0), 0x400);
	KUNIT_EXPECT_EQ(test, ERI_REG_CEQ_DB(ERI_MAX_CEQS - 1), 0x5fc);
	KUNIT_EXPECT_LT(test, ERI_REG_CEQ_DB(ERI_MAX_CEQS - 1), ERI_REGS_SIZE);
}

/* Owner bits flip once per pass, also where the 16-bit index wraps. */
static void eri_defs_test_ring(struct kunit *test)
{
	u32 depth_log;

	for (depth_log = 1; depth_log <= ERI_RING_MAX_DEPTH_LOG; depth_log++) {
		u32 depth = 1U << depth_log;
		u16 idx = 0;
		u32 n;

		/* Three passes, starting below the 16-bit wrap. */
		idx = (u16)(0x10000 - depth);
		KUNIT_EXPECT_EQ(test, eri_ring_owner(idx, depth_log),
				eri_ring_owner(0, depth_log) ^ 1);
		for (n = 0; n < 3 * depth; n += depth / 2) {
			u16 i = idx + n;

			KUNIT_EXPECT_EQ(test, eri_ring_slot(i, depth_log),
					n & (depth - 1));
			KUNIT_EXPECT_EQ(test, eri_ring_owner(i, depth_log),
					((n / depth) & 1) ^ 0);
		}
		KUNIT_EXPECT_EQ(test, eri_ring_used(idx + depth, idx), depth);
	}
	KUNIT_EXPECT_EQ(test, eri_ring_owner(0, 4), 1U);
	KUNIT_EXPECT_EQ(test, eri_ring_owner(16, 4), 0U);
	KUNIT_EXPECT_EQ(test, eri_ring_used(2, 0xfffe), 4U);
}

static struct kunit_case eri_defs_test_cases[] = {
	KUNIT_CASE(eri_defs_test_cmd_hdr),
	KUNIT_CASE(eri_defs_test_reg_mr),
	KUNIT_CASE(eri_defs_test_cqe),
	KUNIT_CASE(eri_defs_test_device_attr),
	KUNIT_CASE(eri_defs_test_events),
	KUNIT_CASE(eri_defs_test_regs),
	KUNIT_CASE(eri_defs_test_ring),
	{}
};

static struct kunit_suite eri_defs_test_suite = {
	.name = "eri_defs",
	.test_cases = eri_defs_test_cases,
};

kunit_test_suite(eri_defs_test_suite);
