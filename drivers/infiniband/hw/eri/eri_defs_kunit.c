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
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_device_attr,
				       ud_sq_wqe_shift), 81);
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

/*
 * CQ indices are 32 bits: owner bits of rings deeper than 2^15 flip past
 * the 16-bit wrap, and a ring of at most 2^15 entries is counted modulo
 * 2^16 (a 16-bit consumer's zero-extended ci), a deeper one modulo 2^32.
 */
static void eri_defs_test_cq_ring(struct kunit *test)
{
	u32 log = ERI_CQ_MAX_DEPTH_LOG;

	KUNIT_EXPECT_EQ(test, eri_ring_owner(BIT(16), 16), 0U);
	KUNIT_EXPECT_EQ(test, eri_ring_owner(BIT(17), 16), 1U);
	KUNIT_EXPECT_EQ(test, eri_ring_owner(BIT(log), log), 0U);
	KUNIT_EXPECT_EQ(test, eri_ring_slot(BIT(log) + 5, log), 5U);
	KUNIT_EXPECT_EQ(test, eri_ring_slot(0xfffffffeU + 3, log), 1U);
	KUNIT_EXPECT_EQ(test, eri_cq_used(0x10002, 0xfffe, 16), 4U);
	KUNIT_EXPECT_EQ(test, eri_cq_used(0x10000 + BIT(16), 0x10000, 16),
			BIT(16));
	KUNIT_EXPECT_EQ(test, eri_cq_used(2, 0xfffffffe, log), 4U);
	/* A 16-bit consumer of a small ring. */
	KUNIT_EXPECT_EQ(test, eri_cq_used(0x12345, 0x2340, 15), 5U);
	KUNIT_EXPECT_EQ(test, eri_cq_used(0x10001, 0xffff, 3), 2U);
	/* A deep ring is counted in full: that would be an overrun. */
	KUNIT_EXPECT_EQ(test, eri_cq_used(0x12345, 0x2340, 16), 0x10005U);
}

static void eri_defs_test_cq_qp_cmds(struct kunit *test)
{
	struct eri_aq_create_cq_cmd cq = {
		.cqn = cpu_to_le32(0x123),
		.eqn = cpu_to_le32(2),
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_CQ_DEPTH_LOG, 15)),
	};
	struct eri_aq_create_qp_cmd qp = {
		.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_QP_TYPE, ERI_QPT_RC) |
				   FIELD_PREP(ERI_AQ_CREATE_QP_SQ_DEPTH_LOG, 10) |
				   FIELD_PREP(ERI_AQ_CREATE_QP_RQ_DEPTH_LOG, 15) |
				   ERI_AQ_CREATE_QP_SQ_SIG_ALL),
	};
	const u8 *c = (const u8 *)&cq, *q = (const u8 *)&qp;

	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_cq_cmd, ring_addr), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_cq_cmd, dbrec_addr), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_cq_cmd, cqn), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_cq_cmd, eqn), 28);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_cq_cmd, cfg), 32);
	KUNIT_EXPECT_EQ(test, c[24], 0x23);
	KUNIT_EXPECT_EQ(test, c[25], 0x01);
	KUNIT_EXPECT_EQ(test, c[28], 2);
	KUNIT_EXPECT_EQ(test, c[32], 15);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_cq_cmd, npages), 36);
	cq.cfg = cpu_to_le32(FIELD_PREP(ERI_AQ_CREATE_CQ_DEPTH_LOG, 22) |
			     ERI_AQ_CREATE_CQ_PBL |
			     FIELD_PREP(ERI_AQ_CREATE_CQ_PAGE_SHIFT, 16));
	cq.npages = cpu_to_le32(2048);
	KUNIT_EXPECT_EQ(test, c[32], 22 | 0x80);
	KUNIT_EXPECT_EQ(test, c[33], 16);
	KUNIT_EXPECT_EQ(test, c[36], 0);
	KUNIT_EXPECT_EQ(test, c[37], 8);

	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_qp_cmd, sq_addr), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_qp_cmd, rq_addr), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_qp_cmd, dbrec_addr), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_qp_cmd, qpn), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_qp_cmd, pdn), 36);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_qp_cmd, send_cqn), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_qp_cmd, recv_cqn), 44);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_create_qp_cmd, cfg), 48);
	KUNIT_EXPECT_EQ(test, q[48], ERI_QPT_RC);
	KUNIT_EXPECT_EQ(test, q[49], 0xfa);	/* rq 15, sq 10 */
	KUNIT_EXPECT_EQ(test, q[50], 0x01);	/* SQ_SIG_ALL */

	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_qp_attr_cmd, attr_addr), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_qp_attr_cmd, qpn), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_destroy_qp_cmd, qpn), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_destroy_cq_cmd, cqn), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_query_stats_cmd, resp_len), 16);
	KUNIT_EXPECT_EQ(test, ERI_STAT_CQ_EVENTS, 9);
	KUNIT_EXPECT_EQ(test, ERI_STAT_ECN_ECHOES, 14);
	KUNIT_EXPECT_EQ(test, ERI_STAT_AEQ_OVERFLOWS, 15);
	KUNIT_EXPECT_EQ(test, ERI_STAT_RX_SKBS, 17);
	KUNIT_EXPECT_EQ(test, ERI_STAT_MAD_DROPS, 18);
	KUNIT_EXPECT_EQ(test, ERI_STAT_SQ_POLLS, 19);
	KUNIT_EXPECT_EQ(test, ERI_STAT_NUM, 23);
	KUNIT_EXPECT_EQ(test, ERI_AQ_OP_QUERY_CC, 19);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_query_cc_cmd, resp_addr), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_aq_query_cc_cmd, resp_len), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_cc_desc, flags), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct eri_cc_desc), 32);
	KUNIT_EXPECT_EQ(test, ERI_CC_MAX_ALGOS * sizeof(struct eri_cc_desc),
			1024);
	KUNIT_EXPECT_EQ(test, ERI_DEV_CAP_CC_NAMES, BIT(8));
	KUNIT_EXPECT_EQ(test, ERI_AQ_OP_QUERY_QP_CC, 20);
	KUNIT_EXPECT_EQ(test, ERI_DEV_CAP_QP_CC, BIT(9));
}

/* struct eri_qp_cc as eri.rst's table of "Per-QP visibility" lays it out. */
static void eri_defs_test_qp_cc(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, algo), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, cwnd), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, pacing_rate), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, bw), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, srtt_us), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, rttvar_us), 28);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, min_rtt_us), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, inflight_hi), 36);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, rtt_samples), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, rtt_sum_us), 48);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, mode), 56);
	KUNIT_EXPECT_EQ(test, sizeof_field(struct eri_qp_cc, mode), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, cuts), 72);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, losses), 76);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, ecn_echoes), 80);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, timeouts), 84);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, inflight_lo), 88);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, quantum), 92);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_cc, reserved2), 96);
	KUNIT_EXPECT_EQ(test, sizeof(struct eri_qp_cc), 128);
}

static void eri_defs_test_qp_attr(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, state), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, path_mtu_log), 5);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, timeout), 6);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, min_rnr_timer), 9);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, max_dest_rd_atomic), 11);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, access), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, sq_draining), 15);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, dest_qpn), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, rq_psn), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, sq_psn), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, flow_label), 28);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, sgid), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, dgid), 48);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, retrans_pkts), 88);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, ooo_pkts), 96);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, cwnd), 104);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, srtt_us), 108);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, cc_algo), 112);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, qkey), 116);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_attr, rx_skbs), 124);
	KUNIT_EXPECT_EQ(test, ERI_QP_ATTR_QKEY, BIT(13));
	KUNIT_EXPECT_EQ(test, ERI_QP_ATTR_ALL, 0x3fffU);
	KUNIT_EXPECT_EQ(test, ERI_QPT_GSI, 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_sq_ud_av, dest_qpn), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_sq_ud_av, hop_limit), 44);
	/* A UD WQE takes what an RC one does: six SGEs or 96 bytes inline. */
	KUNIT_EXPECT_EQ(test, ERI_SQ_UD_WQE_SIZE, 256);
	KUNIT_EXPECT_EQ(test, ERI_SQ_UD_MAX_SGE, ERI_SQ_WQE_MAX_SGE);
	KUNIT_EXPECT_EQ(test, ERI_SQ_UD_MAX_INLINE, ERI_SQ_WQE_MAX_INLINE);
	KUNIT_EXPECT_EQ(test, ERI_QPS_ERR, 6);
}

static void eri_defs_test_wqe_cqe(struct kunit *test)
{
	struct eri_sq_wqe_hdr sq = {
		.hdr = cpu_to_le32(FIELD_PREP(ERI_SQ_WQE_HDR_OPCODE,
					      ERI_SQ_OP_WRITE_IMM) |
				   ERI_SQ_WQE_HDR_SIGNALED |
				   ERI_SQ_WQE_HDR_INLINE |
				   FIELD_PREP(ERI_SQ_WQE_HDR_NUM_SGE,
					      ERI_SQ_WQE_MAX_SGE)),
		.imm_data = cpu_to_be32(0x01020304),
		.remote_addr = cpu_to_le64(0x1122334455667788ULL),
	};
	struct eri_rq_wqe_hdr rq = {
		.hdr = cpu_to_le32(FIELD_PREP(ERI_RQ_WQE_HDR_NUM_SGE,
					      ERI_RQ_WQE_MAX_SGE)),
	};
	struct eri_cqe cqe = {
		.hdr = cpu_to_le32(ERI_CQE_HDR_OWNER | ERI_CQE_HDR_SQ |
				   ERI_CQE_HDR_IMM |
				   FIELD_PREP(ERI_CQE_HDR_OPCODE,
					      ERI_CQE_OP_RECV_WRITE_IMM) |
				   FIELD_PREP(ERI_CQE_HDR_STATUS,
					      ERI_CQE_STS_REM_ACCESS_ERR)),
		.wqe_idx = cpu_to_le32(0xfffe),
	};
	u32 arm = FIELD_PREP(ERI_CQ_ARM_SN, 5) | ERI_CQ_ARM |
		  ERI_CQ_ARM_SOLICITED;
	const u8 *s = (const u8 *)&sq, *r = (const u8 *)&rq;
	const u8 *c = (const u8 *)&cqe;
	u32 hdr = le32_to_cpu(cqe.hdr);

	KUNIT_EXPECT_EQ(test, s[0], ERI_SQ_OP_WRITE_IMM);
	KUNIT_EXPECT_EQ(test, s[1], 0x09);	/* SIGNALED, INLINE */
	KUNIT_EXPECT_EQ(test, s[2], ERI_SQ_WQE_MAX_SGE);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_sq_wqe_hdr, length), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_sq_wqe_hdr, imm_data), 8);
	KUNIT_EXPECT_EQ(test, s[8], 0x01);	/* network byte order */
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_sq_wqe_hdr, inv_rkey), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_sq_wqe_hdr, remote_addr), 16);
	KUNIT_EXPECT_EQ(test, s[16], 0x88);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_sq_wqe_hdr, rkey), 24);
	KUNIT_EXPECT_EQ(test, r[0], ERI_RQ_WQE_MAX_SGE);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_sge, length), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_sge, lkey), 12);

	KUNIT_EXPECT_EQ(test, c[0], 0x0b);	/* OWNER, SQ, IMM */
	KUNIT_EXPECT_EQ(test, c[1], ERI_CQE_OP_RECV_WRITE_IMM);
	KUNIT_EXPECT_EQ(test, c[2], ERI_CQE_STS_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_CQE_HDR_STATUS, hdr),
			ERI_CQE_STS_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_CQE_HDR_OPCODE, hdr),
			ERI_CQE_OP_RECV_WRITE_IMM);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_cqe, wqe_idx), 8);
	KUNIT_EXPECT_EQ(test, c[8], 0xfe);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_cqe, byte_len), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_cqe, imm_data), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_cqe, src_qpn), 24);

	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_dbrec, rq_pi), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_dbrec, sq_need_kick), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_qp_dbrec, rq_need_kick), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct eri_cq_dbrec, arm), 4);
	KUNIT_EXPECT_EQ(test, arm, 0x17U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ERI_CQ_ARM_SN, arm), 5);
	KUNIT_EXPECT_LT(test, ERI_REG_RQ_DB, ERI_REG_CEQ_DB_BASE);
	KUNIT_EXPECT_EQ(test, FIELD_PREP(ERI_REG_QP_DB_QPN, 0xabcdef), 0xabcdef);
}

static struct kunit_case eri_defs_test_cases[] = {
	KUNIT_CASE(eri_defs_test_cmd_hdr),
	KUNIT_CASE(eri_defs_test_reg_mr),
	KUNIT_CASE(eri_defs_test_cqe),
	KUNIT_CASE(eri_defs_test_device_attr),
	KUNIT_CASE(eri_defs_test_events),
	KUNIT_CASE(eri_defs_test_regs),
	KUNIT_CASE(eri_defs_test_ring),
	KUNIT_CASE(eri_defs_test_cq_ring),
	KUNIT_CASE(eri_defs_test_cq_qp_cmds),
	KUNIT_CASE(eri_defs_test_qp_attr),
	KUNIT_CASE(eri_defs_test_qp_cc),
	KUNIT_CASE(eri_defs_test_wqe_cqe),
	{}
};

static struct kunit_suite eri_defs_test_suite = {
	.name = "eri_defs",
	.test_cases = eri_defs_test_cases,
};

kunit_test_suite(eri_defs_test_suite);
