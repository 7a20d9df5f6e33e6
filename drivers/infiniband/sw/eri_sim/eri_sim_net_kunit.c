// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of eri_sim's receive-side header check (eri_sim_hdr_check()
 * in eri_sim_net.c) with malformed input: truncated headers, other wire
 * versions, opcodes it does not know, UD lengths that disagree with the
 * packet, and the fields it leaves to the QPs.  Every packet is a buffer
 * of exactly its length, so KASAN sees any read past it.
 */
#include <kunit/test.h>
#include <kunit/visibility.h>

#include "eri_sim_qp.h"

#define HDR_LEN	sizeof(struct eri_wire_hdr)

/* The check of a device that speaks the protocol's version. */
static enum eri_sim_rx_verdict hdr_check_current(const void *buf,
						 unsigned int len)
{
	return eri_sim_hdr_check(buf, len, ERI_WIRE_VERSION);
}

/* A packet of @plen payload bytes, a valid header of opcode @op. */
static struct eri_wire_hdr *pkt(struct kunit *test, u8 op, u32 plen)
{
	struct eri_wire_hdr *hdr;

	hdr = kunit_kzalloc(test, HDR_LEN + plen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hdr);
	hdr->version = ERI_WIRE_VERSION;
	hdr->opcode = op;
	hdr->flags = ERI_WIRE_FIRST | ERI_WIRE_LAST;
	hdr->dqpn = cpu_to_be32(2);
	hdr->sqpn = cpu_to_be32(3);
	hdr->msg_len = cpu_to_be32(plen);
	return hdr;
}

#define takes eri_sim_rx_takes

static void eri_sim_net_test_valid(struct kunit *test)
{
	static const u8 req[] = { ERI_OP_SEND, ERI_OP_SEND_IMM,
				  ERI_OP_SEND_INV, ERI_OP_WRITE,
				  ERI_OP_WRITE_IMM, ERI_OP_READ_REQ,
				  ERI_OP_ATOMIC_REQ };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(req); i++)
		KUNIT_EXPECT_EQ(test, hdr_check_current(pkt(test, req[i], 64),
							HDR_LEN + 64),
				ERI_SIM_RX_RC_REQ);
	/* A header alone is a whole packet: an empty SEND or an ACK. */
	KUNIT_EXPECT_EQ(test, hdr_check_current(pkt(test, ERI_OP_SEND, 0),
						HDR_LEN), ERI_SIM_RX_RC_REQ);
	KUNIT_EXPECT_EQ(test, hdr_check_current(pkt(test, ERI_OP_ACK, 0),
						HDR_LEN), ERI_SIM_RX_RC_RESP);
	KUNIT_EXPECT_EQ(test, hdr_check_current(pkt(test, ERI_OP_READ_RESP,
						    4096), HDR_LEN + 4096),
			ERI_SIM_RX_RC_RESP);
	KUNIT_EXPECT_EQ(test, hdr_check_current(pkt(test, ERI_OP_ATOMIC_RESP,
						    8), HDR_LEN + 8),
			ERI_SIM_RX_RC_RESP);
	KUNIT_EXPECT_EQ(test, hdr_check_current(pkt(test, ERI_OP_UD_SEND, 0),
						HDR_LEN), ERI_SIM_RX_UD);
	KUNIT_EXPECT_EQ(test, hdr_check_current(pkt(test, ERI_OP_UD_SEND, 1),
						HDR_LEN + 1), ERI_SIM_RX_UD);
	KUNIT_EXPECT_EQ(test,
			hdr_check_current(pkt(test, ERI_OP_UD_SEND_IMM,
					      ERI_SIM_UD_MAX_PAYLOAD),
					  HDR_LEN + ERI_SIM_UD_MAX_PAYLOAD),
			ERI_SIM_RX_UD);
}

static void eri_sim_net_test_truncated(struct kunit *test)
{
	struct eri_wire_hdr *hdr = pkt(test, ERI_OP_SEND, 0);
	unsigned int len;
	u8 *buf;

	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, 0), ERI_SIM_RX_DROP_SHORT);
	KUNIT_EXPECT_FALSE(test, takes(ERI_SIM_RX_DROP_SHORT, ERI_QPT_RC));
	KUNIT_EXPECT_FALSE(test, takes(ERI_SIM_RX_DROP_SHORT, ERI_QPT_UD));
	/* Each length short of the header, in a buffer of just that size. */
	for (len = 1; len < HDR_LEN; len++) {
		buf = kunit_kmalloc(test, len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		memcpy(buf, hdr, len);
		KUNIT_EXPECT_EQ(test, hdr_check_current(buf, len),
				ERI_SIM_RX_DROP_SHORT);
	}
	/* Truncation is found before the version. */
	buf = kunit_kzalloc(test, 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, hdr_check_current(buf, 1), ERI_SIM_RX_DROP_SHORT);
	/* A UD packet cut in its payload disagrees with its msg_len. */
	hdr = pkt(test, ERI_OP_UD_SEND, 100);
	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN + 99),
			ERI_SIM_RX_UD_BAD_LEN);
}

static void eri_sim_net_test_version(struct kunit *test)
{
	static const u8 bad[] = { 0, 1, ERI_WIRE_VERSION + 1, 0x82, 0xff };
	struct eri_wire_hdr *hdr;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		hdr = pkt(test, ERI_OP_UD_SEND, 8);
		hdr->version = bad[i];
		KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN + 8),
				ERI_SIM_RX_DROP_VERSION);
		hdr->opcode = ERI_OP_ACK;
		KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN + 8),
				ERI_SIM_RX_DROP_VERSION);
	}
	KUNIT_EXPECT_FALSE(test, takes(ERI_SIM_RX_DROP_VERSION, ERI_QPT_RC));
	KUNIT_EXPECT_FALSE(test, takes(ERI_SIM_RX_DROP_VERSION, ERI_QPT_UD));

	/* A device set to speak another version accepts that one alone. */
	hdr = pkt(test, ERI_OP_SEND, 8);
	hdr->version = ERI_WIRE_VERSION + 1;
	KUNIT_EXPECT_EQ(test, eri_sim_hdr_check(hdr, HDR_LEN + 8,
						ERI_WIRE_VERSION + 1),
			ERI_SIM_RX_RC_REQ);
	hdr->version = ERI_WIRE_VERSION;
	KUNIT_EXPECT_EQ(test, eri_sim_hdr_check(hdr, HDR_LEN + 8,
						ERI_WIRE_VERSION + 1),
			ERI_SIM_RX_DROP_VERSION);
}

static void eri_sim_net_test_opcode(struct kunit *test)
{
	static const u8 unknown[] = { 0, ERI_OP_UD_SEND_IMM + 1, 0x80, 0xff };
	enum eri_sim_rx_verdict v;
	unsigned int i;

	/*
	 * An RC responder answers an opcode it does not know with a NAK, so
	 * the check passes it on as a request; a UD QP drops it.
	 */
	for (i = 0; i < ARRAY_SIZE(unknown); i++) {
		v = hdr_check_current(pkt(test, unknown[i], 16), HDR_LEN + 16);
		KUNIT_EXPECT_EQ(test, v, ERI_SIM_RX_RC_REQ);
		KUNIT_EXPECT_TRUE(test, takes(v, ERI_QPT_RC));
		KUNIT_EXPECT_FALSE(test, takes(v, ERI_QPT_UD));
		KUNIT_EXPECT_FALSE(test, takes(v, ERI_QPT_GSI));
	}
	/* RC opcodes on a UD QP: dropped. */
	v = hdr_check_current(pkt(test, ERI_OP_ACK, 0), HDR_LEN);
	KUNIT_EXPECT_FALSE(test, takes(v, ERI_QPT_UD));
	v = hdr_check_current(pkt(test, ERI_OP_SEND, 0), HDR_LEN);
	KUNIT_EXPECT_FALSE(test, takes(v, ERI_QPT_GSI));
	/* A UD opcode on an RC QP: the responder NAKs it. */
	v = hdr_check_current(pkt(test, ERI_OP_UD_SEND, 0), HDR_LEN);
	KUNIT_EXPECT_TRUE(test, takes(v, ERI_QPT_RC));
	KUNIT_EXPECT_TRUE(test, takes(v, ERI_QPT_UD));
}

static void eri_sim_net_test_length(struct kunit *test)
{
	struct eri_wire_hdr *hdr;

	/* msg_len says more than the packet carries, or less. */
	hdr = pkt(test, ERI_OP_UD_SEND, 32);
	hdr->msg_len = cpu_to_be32(33);
	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN + 32),
			ERI_SIM_RX_UD_BAD_LEN);
	hdr->msg_len = cpu_to_be32(31);
	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN + 32),
			ERI_SIM_RX_UD_BAD_LEN);
	hdr->msg_len = cpu_to_be32(U32_MAX);
	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN + 32),
			ERI_SIM_RX_UD_BAD_LEN);
	/* msg_len counting the header too. */
	hdr->msg_len = cpu_to_be32(HDR_LEN + 32);
	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN + 32),
			ERI_SIM_RX_UD_BAD_LEN);
	/* Larger than one UD packet, even when msg_len agrees. */
	hdr = pkt(test, ERI_OP_UD_SEND_IMM, ERI_SIM_UD_MAX_PAYLOAD + 1);
	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN +
						ERI_SIM_UD_MAX_PAYLOAD + 1),
			ERI_SIM_RX_UD_BAD_LEN);
	KUNIT_EXPECT_FALSE(test, takes(ERI_SIM_RX_UD_BAD_LEN, ERI_QPT_UD));
	KUNIT_EXPECT_FALSE(test, takes(ERI_SIM_RX_UD_BAD_LEN, ERI_QPT_GSI));
	/*
	 * RC lengths and offsets are the responder's: it checks them against
	 * the receive WQE or the MR and NAKs what does not fit.
	 */
	hdr = pkt(test, ERI_OP_WRITE, 8);
	hdr->msg_len = cpu_to_be32(4);
	hdr->offset = cpu_to_be32(U32_MAX);
	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN + 8),
			ERI_SIM_RX_RC_REQ);
}

static void eri_sim_net_test_fields(struct kunit *test)
{
	struct eri_wire_hdr *hdr;

	/*
	 * PSN bits above the 24, any MSN, timestamps and seg_max (read from
	 * ACKs alone): the QPs mask or check them against their state; the
	 * header check passes them.
	 */
	hdr = pkt(test, ERI_OP_SEND, 4);
	hdr->psn = cpu_to_be32(U32_MAX);
	hdr->ack_psn = cpu_to_be32(U32_MAX);
	hdr->msn = cpu_to_be32(U32_MAX);
	hdr->seg_max = cpu_to_be32(1);
	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN + 4),
			ERI_SIM_RX_RC_REQ);
	/* Invalid SACK and flag combinations do not change the verdict. */
	hdr = pkt(test, ERI_OP_SEND, 4);
	hdr->flags = 0xff;
	hdr->syndrome = 0xff;
	memset(hdr->sack, 0xff, sizeof(hdr->sack));
	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN + 4),
			ERI_SIM_RX_RC_REQ);
	/* A NAK with SACK bits: the requester ignores them. */
	hdr = pkt(test, ERI_OP_ACK, 0);
	hdr->syndrome = ERI_SYN_RNR_NAK;
	memset(hdr->sack, 0xff, sizeof(hdr->sack));
	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN),
			ERI_SIM_RX_RC_RESP);
	/* An ACK carrying payload. */
	hdr = pkt(test, ERI_OP_ACK, 16);
	hdr->flags = ERI_WIRE_ECE | ERI_WIRE_RETX | ERI_WIRE_INORDER;
	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN + 16),
			ERI_SIM_RX_RC_RESP);
	/* A UD datagram with RC flags. */
	hdr = pkt(test, ERI_OP_UD_SEND, 4);
	hdr->flags = 0xff;
	KUNIT_EXPECT_EQ(test, hdr_check_current(hdr, HDR_LEN + 4),
			ERI_SIM_RX_UD);
}

/*
 * Payload per packet: what a link carries, what an RC QP picks from its
 * path MTU, its link and its peer's word, and what a READ request may ask.
 */
static void eri_sim_net_test_seg(struct kunit *test)
{
	/* 1500 - 128 bytes of IPv6, UDP and ERI headers, in 64-byte steps. */
	KUNIT_EXPECT_EQ(test, eri_sim_seg_max(1500), 1344U);
	KUNIT_EXPECT_EQ(test, eri_sim_seg_max(4224), 4096U);
	KUNIT_EXPECT_EQ(test, eri_sim_seg_max(9000), 4096U);
	KUNIT_EXPECT_EQ(test, eri_sim_seg_max(384), 256U);
	KUNIT_EXPECT_EQ(test, eri_sim_seg_max(383), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_seg_max(0), 0U);

	/* Both ends take 1344 at MTU 1500: the path MTU's 1024 grows. */
	KUNIT_EXPECT_EQ(test, eri_sim_seg_pick(1024, 1344, 1344), 1344U);
	/* The peer said nothing (or is of before seg_max): the path MTU. */
	KUNIT_EXPECT_EQ(test, eri_sim_seg_pick(1024, 1344, 0), 1024U);
	/* The smaller end's, in 64-byte steps, never below the path MTU. */
	KUNIT_EXPECT_EQ(test, eri_sim_seg_pick(1024, 1344, 1100), 1088U);
	KUNIT_EXPECT_EQ(test, eri_sim_seg_pick(1024, 1344, 1000), 1024U);
	KUNIT_EXPECT_EQ(test, eri_sim_seg_pick(1024, 1344, 1345), 1344U);
	KUNIT_EXPECT_EQ(test, eri_sim_seg_pick(1024, 1344, U32_MAX), 1344U);
	KUNIT_EXPECT_EQ(test, eri_sim_seg_pick(2048, 2816, 4096), 2816U);
	/* A path MTU below the link's largest: the QP was told; it keeps it. */
	KUNIT_EXPECT_EQ(test, eri_sim_seg_pick(512, 1344, 1344), 512U);
	KUNIT_EXPECT_EQ(test, eri_sim_seg_pick(1024, 4096, 4096), 1024U);
	KUNIT_EXPECT_EQ(test, eri_sim_seg_pick(4096, 4096, 4096), 4096U);
	/* A link that carries no more than 256 bytes, or none. */
	KUNIT_EXPECT_EQ(test, eri_sim_seg_pick(256, 0, 1344), 256U);

	/* A READ's aux: log2 of the path MTU, or bytes up to the link's. */
	KUNIT_EXPECT_EQ(test, eri_sim_read_seg(8, 1344), 256U);
	KUNIT_EXPECT_EQ(test, eri_sim_read_seg(10, 1344), 1024U);
	KUNIT_EXPECT_EQ(test, eri_sim_read_seg(12, 1344), 4096U);
	KUNIT_EXPECT_EQ(test, eri_sim_read_seg(256, 1344), 256U);
	KUNIT_EXPECT_EQ(test, eri_sim_read_seg(1344, 1344), 1344U);
	/* Hostile: not a log, not a step, more than the link, absurd. */
	KUNIT_EXPECT_EQ(test, eri_sim_read_seg(0, 1344), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_read_seg(7, 1344), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_read_seg(13, 1344), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_read_seg(255, 1344), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_read_seg(1345, 1344), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_read_seg(1408, 1344), 0U);
	KUNIT_EXPECT_EQ(test, eri_sim_read_seg(U32_MAX, 4096), 0U);
}

static struct kunit_case eri_sim_net_test_cases[] = {
	KUNIT_CASE(eri_sim_net_test_valid),
	KUNIT_CASE(eri_sim_net_test_truncated),
	KUNIT_CASE(eri_sim_net_test_version),
	KUNIT_CASE(eri_sim_net_test_opcode),
	KUNIT_CASE(eri_sim_net_test_length),
	KUNIT_CASE(eri_sim_net_test_fields),
	KUNIT_CASE(eri_sim_net_test_seg),
	{}
};

static struct kunit_suite eri_sim_net_test_suite = {
	.name = "eri_sim_net",
	.test_cases = eri_sim_net_test_cases,
};

kunit_test_suite(eri_sim_net_test_suite);
