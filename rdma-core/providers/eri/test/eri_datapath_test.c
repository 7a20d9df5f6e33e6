// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Standalone test of liberi's data path without a device: it compiles
 * eri_verbs.c in, builds a CQ and a QP on plain memory, plays the device by
 * reading WQEs and writing CQEs, and checks the encodings of eri_hw.h
 * byte for byte.  The command file the kicks go to is a socket the test
 * reads them from.
 *
 * Built and run by test/run.sh against the rdma-core tree of
 * scripts/rdma-core.sh.
 */
#include <stdio.h>
#include <sys/socket.h>

#include "../eri_verbs.c"

static int failures;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: CHECK failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			failures++;					\
		}							\
	} while (0)

/*
 * The kicks: liberi writes a POST_SEND or POST_RECV command carrying no work
 * request to the context's command file.  Here that is one end of a
 * datagram socket pair; the test reads the commands from the other end,
 * checks them and counts them.
 */
#define QP_HANDLE	0x5a5a
static int cmd_fd, kick_fd, kicks_send, kicks_recv;

static void take_kicks(void)
{
	union {
		struct ib_uverbs_cmd_hdr hdr;
		struct ibv_post_send send;
		struct ibv_post_recv recv;
		uint8_t raw[256];
	} cmd;
	ssize_t n;

	while ((n = recv(kick_fd, &cmd, sizeof(cmd), MSG_DONTWAIT)) >= 0) {
		CHECK(n == sizeof(cmd.send) && n == sizeof(cmd.recv) &&
		      cmd.hdr.in_words * 4 == n);
		switch (cmd.hdr.command) {
		case IB_USER_VERBS_CMD_POST_SEND:
			CHECK(cmd.hdr.out_words * 4 ==
			      sizeof(struct ib_uverbs_post_send_resp));
			CHECK(cmd.send.response && cmd.send.qp_handle == QP_HANDLE);
			CHECK(cmd.send.wr_count == 0 && cmd.send.sge_count == 0);
			CHECK(cmd.send.wqe_size ==
			      sizeof(struct ib_uverbs_send_wr));
			kicks_send++;
			break;
		case IB_USER_VERBS_CMD_POST_RECV:
			CHECK(cmd.hdr.out_words * 4 ==
			      sizeof(struct ib_uverbs_post_recv_resp));
			CHECK(cmd.recv.response && cmd.recv.qp_handle == QP_HANDLE);
			CHECK(cmd.recv.wr_count == 0 && cmd.recv.sge_count == 0);
			CHECK(cmd.recv.wqe_size ==
			      sizeof(struct ib_uverbs_recv_wr));
			kicks_recv++;
			break;
		default:
			CHECK(!"a kick is POST_SEND or POST_RECV");
			break;
		}
	}
	CHECK(errno == EAGAIN || errno == EWOULDBLOCK);
}

#define CQ_DEPTH_LOG	3
#define SQ_DEPTH_LOG	2
#define RQ_DEPTH_LOG	2
#define QPN		0x12345

static struct eri_context *ctx;
static struct eri_cq *cq;
static struct eri_qp *qp;
static uint16_t dev_cq_pi;	/* the "device's" CQ producer index */

static void setup(void)
{
	int sv[2];

	ctx = calloc(1, sizeof(*ctx));
	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
	cmd_fd = sv[0];
	ctx->ibvctx.context.cmd_fd = cmd_fd;
	kick_fd = sv[1];
	ctx->dev_caps = ERI_UCTX_CAP_IMM;
	pthread_mutex_init(&ctx->qp_table_mutex, NULL);

	cq = calloc(1, sizeof(*cq));
	cq->vcq.cq.context = &ctx->ibvctx.context;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	cq->depth_log = CQ_DEPTH_LOG;
	cq->ring = calloc(1U << CQ_DEPTH_LOG, sizeof(struct eri_cqe));
	cq->dbrec = calloc(1, sizeof(*cq->dbrec));

	qp = calloc(1, sizeof(*qp));
	qp->vqp.qp.context = &ctx->ibvctx.context;
	qp->vqp.qp.send_cq = &cq->vcq.cq;
	qp->vqp.qp.recv_cq = &cq->vcq.cq;
	qp->vqp.qp.qp_num = QPN;
	qp->vqp.qp.handle = QP_HANDLE;
	qp->vqp.qp.state = IBV_QPS_RTS;
	qp->qpn = QPN;
	qp->max_inline_data = ERI_SQ_WQE_MAX_INLINE;
	qp->dbrec = calloc(1, sizeof(*qp->dbrec));

	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	qp->sq.depth_log = SQ_DEPTH_LOG;
	qp->sq.max_wr = 1U << SQ_DEPTH_LOG;
	qp->sq.max_sge = ERI_SQ_WQE_MAX_SGE;
	qp->sq.ring = calloc(1U << SQ_DEPTH_LOG, ERI_SQ_WQE_SIZE);
	qp->sq.wr_id = calloc(1U << SQ_DEPTH_LOG, sizeof(uint64_t));

	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	qp->rq.depth_log = RQ_DEPTH_LOG;
	qp->rq.max_wr = 1U << RQ_DEPTH_LOG;
	qp->rq.max_sge = ERI_RQ_WQE_MAX_SGE;
	qp->rq.ring = calloc(1U << RQ_DEPTH_LOG, ERI_RQ_WQE_SIZE);
	qp->rq.wr_id = calloc(1U << RQ_DEPTH_LOG, sizeof(uint64_t));

	CHECK(eri_qp_table_insert(ctx, qp) == 0);
	CHECK(eri_qp_table_insert(ctx, qp) == EEXIST);
	CHECK(eri_qp_table_lookup(ctx, QPN) == qp);
	CHECK(eri_qp_table_lookup(ctx, QPN + 1) == NULL);
	CHECK(eri_qp_table_lookup(ctx, 1U << 24) == NULL);
}

/* The device writes a CQE: the body, then the word with the owner bit. */
static void dev_cqe(uint32_t qpn, bool sq, uint32_t op, uint32_t status,
		    uint32_t flags, uint16_t wqe_idx, uint32_t byte_len,
		    __be32 imm, uint32_t inv_rkey)
{
	struct eri_cqe *e = &cq->ring[eri_ring_slot(dev_cq_pi, CQ_DEPTH_LOG)];
	uint32_t hdr;

	e->qpn = htole32(qpn);
	e->wqe_idx = htole32(wqe_idx);
	e->byte_len = htole32(byte_len);
	e->imm_data = imm;
	e->inv_rkey = htole32(inv_rkey);
	e->src_qpn = htole32(7);
	hdr = flags | (sq ? ERI_CQE_HDR_SQ : 0) | (op << 8) | (status << 16) |
	      eri_ring_owner(dev_cq_pi, CQ_DEPTH_LOG);
	e->hdr = htole32(hdr);
	dev_cq_pi++;
}

static uint8_t *sq_wqe(uint16_t idx)
{
	return (uint8_t *)qp->sq.ring +
	       eri_ring_slot(idx, SQ_DEPTH_LOG) * ERI_SQ_WQE_SIZE;
}

static uint32_t rd32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void test_layout(void)
{
	/* Offsets as in include/linux/eri/eri_io_defs.h. */
	CHECK(offsetof(struct eri_qp_dbrec, sq_need_kick) == 8);
	CHECK(offsetof(struct eri_cq_dbrec, arm) == 4);
	CHECK(offsetof(struct eri_sq_wqe_hdr, imm_data) == 8);
	CHECK(offsetof(struct eri_sq_wqe_hdr, remote_addr) == 16);
	CHECK(offsetof(struct eri_sq_wqe_hdr, rkey) == 24);
	CHECK(offsetof(struct eri_cqe, wqe_idx) == 8);
	CHECK(offsetof(struct eri_cqe, imm_data) == 16);
	CHECK(offsetof(struct eri_cqe, src_qpn) == 24);
	CHECK(ERI_SQ_WQE_HDR_NUM_SGE == 0xf0000);
	CHECK(ERI_CQE_HDR_STATUS == 0xff0000);
	CHECK(ERI_CQ_ARM_SN == 0xfffffffc);
	CHECK(eri_ring_owner(0, 3) == 1 && eri_ring_owner(8, 3) == 0 &&
	      eri_ring_owner(16, 3) == 1 && eri_ring_owner(0xffff, 15) == 0);
}

static void test_send(void)
{
	char inl[10] = "0123456789";
	struct ibv_sge sge[7] = {
		{ .addr = 0x1122334455667788ULL, .length = 100, .lkey = 0xaabb },
		{ .addr = 0x1000, .length = 28, .lkey = 0xccdd },
	};
	struct ibv_sge isge = { .addr = (uintptr_t)inl, .length = 10 };
	struct ibv_send_wr wr[5] = {}, *bad;
	struct ibv_wc wc[4];
	uint8_t *w;

	wr[0].wr_id = 100;
	wr[0].opcode = IBV_WR_SEND;
	wr[0].send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	wr[0].sg_list = sge;
	wr[0].num_sge = 2;
	wr[0].next = &wr[1];
	wr[1].wr_id = 101;
	wr[1].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr[1].send_flags = IBV_SEND_INLINE | IBV_SEND_FENCE;
	wr[1].sg_list = &isge;
	wr[1].num_sge = 1;
	wr[1].imm_data = htobe32(0xdeadbeef);
	wr[1].wr.rdma.remote_addr = 0xfedcba9876543210ULL;
	wr[1].wr.rdma.rkey = 0x4242;

	bad = NULL;
	CHECK(eri_post_send(&qp->vqp.qp, wr, &bad) == 0);
	CHECK(qp->sq.pi == 2 && le32toh(qp->dbrec->sq_pi) == 2);
	/* The device did not ask for a kick: none. */
	take_kicks();
	CHECK(qp->sq.kicks_skipped == 1 && kicks_send == 0);

	w = sq_wqe(0);
	CHECK(rd32(w) == (ERI_SQ_OP_SEND | 0x100 | 0x200 | 2 << 16));
	CHECK(rd32(w + 4) == 128);
	CHECK(rd64(w + 32) == 0x1122334455667788ULL);
	CHECK(rd32(w + 40) == 100 && rd32(w + 44) == 0xaabb);
	CHECK(rd64(w + 48) == 0x1000);
	CHECK(rd32(w + 56) == 28 && rd32(w + 60) == 0xccdd);

	w = sq_wqe(1);
	CHECK(rd32(w) == (ERI_SQ_OP_WRITE_IMM | 0x400 | 0x800));
	CHECK(rd32(w + 4) == 10);
	CHECK(w[8] == 0xde && w[9] == 0xad && w[10] == 0xbe && w[11] == 0xef);
	CHECK(rd64(w + 16) == 0xfedcba9876543210ULL);
	CHECK(rd32(w + 24) == 0x4242);
	CHECK(memcmp(w + 32, inl, 10) == 0);

	/*
	 * Malformed WRs fail one by one, nothing posted, and with nothing
	 * new in the SQ no kick, even though the device asks for one.
	 */
	qp->dbrec->sq_need_kick = htole32(1);
	memset(&wr[2], 0, sizeof(wr[2]));
	wr[2].opcode = IBV_WR_RDMA_READ;
	wr[2].send_flags = IBV_SEND_INLINE;
	CHECK(eri_post_send(&qp->vqp.qp, &wr[2], &bad) == EINVAL &&
	      bad == &wr[2]);
	wr[2].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr[2].send_flags = 0;
	CHECK(eri_post_send(&qp->vqp.qp, &wr[2], &bad) == EINVAL);
	wr[2].opcode = IBV_WR_SEND;
	wr[2].sg_list = sge;
	wr[2].num_sge = 7;
	CHECK(eri_post_send(&qp->vqp.qp, &wr[2], &bad) == EINVAL);
	wr[2].num_sge = 1;
	sge[0].length = 97;
	wr[2].send_flags = IBV_SEND_INLINE;
	wr[2].sg_list = sge;
	CHECK(eri_post_send(&qp->vqp.qp, &wr[2], &bad) == EINVAL);
	CHECK(qp->sq.pi == 2 && le32toh(qp->dbrec->sq_pi) == 2);
	take_kicks();
	CHECK(kicks_send == 0 && qp->sq.kicks == 0 &&
	      qp->sq.kicks_skipped == 1);

	/*
	 * The third and fourth fit, the fifth finds the SQ full; the device
	 * asks for a kick: one for the call, after the index moved.
	 */
	sge[0].length = 100;
	wr[2].send_flags = 0;
	wr[2].wr_id = 102;
	wr[2].next = &wr[3];
	wr[3] = wr[2];
	wr[3].wr_id = 103;
	wr[3].next = &wr[4];
	wr[4] = wr[2];
	wr[4].next = NULL;
	CHECK(eri_post_send(&qp->vqp.qp, &wr[2], &bad) == ENOMEM &&
	      bad == &wr[4]);
	take_kicks();
	CHECK(qp->sq.pi == 4 && le32toh(qp->dbrec->sq_pi) == 4);
	CHECK(kicks_send == 1 && qp->sq.kicks == 1 && kicks_recv == 0);

	/* SQ CQEs: 0 (signaled), then 3 retires 1, 2 and 3. */
	dev_cqe(QPN, true, ERI_CQE_OP_SEND, 0, 0, 0, 128, 0, 0);
	dev_cqe(QPN, true, ERI_CQE_OP_SEND, 0, 0, 3, 100, 0, 0);
	CHECK(eri_poll_cq(&cq->vcq.cq, 4, wc) == 2);
	CHECK(wc[0].wr_id == 100 && wc[0].status == IBV_WC_SUCCESS &&
	      wc[0].opcode == IBV_WC_SEND && wc[0].qp_num == QPN);
	CHECK(wc[1].wr_id == 103 && qp->sq.tail == 4);
	CHECK(le32toh(cq->dbrec->ci) == 2);

	/*
	 * A failed kick (here the command file is not open) is reported
	 * with no WR to blame; the WR stays posted.
	 */
	ctx->ibvctx.context.cmd_fd = -1;
	wr[4].wr_id = 104;
	bad = &wr[0];
	CHECK(eri_post_send(&qp->vqp.qp, &wr[4], &bad) == EBADF && bad == NULL);
	CHECK(qp->sq.kick_errors == 1 && qp->sq.kicks == 2 &&
	      qp->sq.pi == 5 && le32toh(qp->dbrec->sq_pi) == 5);
	ctx->ibvctx.context.cmd_fd = cmd_fd;
	qp->dbrec->sq_need_kick = 0;

	/* An error CQE, then a stale one (index not outstanding). */
	dev_cqe(QPN, true, ERI_CQE_OP_WRITE, ERI_CQE_STS_REM_ACCESS_ERR, 0, 4,
		0, 0, 0);
	dev_cqe(QPN, true, ERI_CQE_OP_SEND, 0, 0, 4, 0, 0, 0);
	CHECK(eri_poll_cq(&cq->vcq.cq, 4, wc) == 1);
	CHECK(wc[0].wr_id == 104 && wc[0].status == IBV_WC_REM_ACCESS_ERR &&
	      wc[0].vendor_err == 10);
	CHECK(cq->stale_cqes == 1 && le32toh(cq->dbrec->ci) == 4);

	/* Not before RTS. */
	qp->vqp.qp.state = IBV_QPS_RTR;
	CHECK(eri_post_send(&qp->vqp.qp, &wr[4], &bad) == EINVAL);
	qp->vqp.qp.state = IBV_QPS_RTS;
}

static void test_ud(void)
{
	char inl[5] = "abcde";
	struct ibv_sge sge[4] = {
		{ .addr = 0x2000, .length = 10, .lkey = 0x11 },
		{ .addr = 0x3000, .length = 20, .lkey = 0x22 },
		{ .addr = (uintptr_t)inl, .length = 5 },
	};
	struct eri_ah ah = {};
	struct ibv_send_wr wr[2] = {}, *bad;
	uint16_t idx = qp->sq.pi;
	struct ibv_wc wc;
	uint8_t *w;
	int i;

	qp->ud = true;
	qp->max_inline_data = ERI_SQ_UD_MAX_INLINE;
	qp->sq.max_sge = ERI_SQ_UD_MAX_SGE;
	for (i = 0; i < 16; i++)
		ah.av.dgid[i] = i;
	ah.av.hop_limit = 64;

	wr[0].wr_id = 200;
	wr[0].opcode = IBV_WR_SEND;
	wr[0].send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	wr[0].sg_list = sge;
	wr[0].num_sge = 2;
	wr[0].wr.ud.ah = &ah.ibvah;
	wr[0].wr.ud.remote_qpn = 0x654321;
	wr[0].wr.ud.remote_qkey = 0x11223344;
	wr[0].next = &wr[1];
	wr[1] = wr[0];
	wr[1].wr_id = 201;
	wr[1].opcode = IBV_WR_SEND_WITH_IMM;
	wr[1].send_flags = IBV_SEND_INLINE | IBV_SEND_SOLICITED;
	wr[1].imm_data = htobe32(0x0a0b0c0d);
	wr[1].sg_list = &sge[2];
	wr[1].num_sge = 1;
	wr[1].next = NULL;
	CHECK(eri_post_send(&qp->vqp.qp, wr, &bad) == 0);
	CHECK(qp->sq.pi == (uint16_t)(idx + 2));

	/* Header, AV (FENCE is not for UD), then the SGEs or the data. */
	w = sq_wqe(idx);
	CHECK(rd32(w) == (ERI_SQ_OP_SEND | 0x100 | 2 << 16));
	CHECK(rd32(w + 4) == 30 && rd32(w + 8) == 0);
	CHECK(w[32] == 0 && w[47] == 15 && rd32(w + 64) == 0x654321 &&
	      rd32(w + 68) == 0x11223344 && w[76] == 64);
	CHECK(rd64(w + 80) == 0x2000 && rd32(w + 88) == 10 &&
	      rd32(w + 92) == 0x11);
	CHECK(rd64(w + 96) == 0x3000 && rd32(w + 104) == 20 &&
	      rd32(w + 108) == 0x22);
	w = sq_wqe(idx + 1);
	CHECK(rd32(w) == (ERI_SQ_OP_SEND_IMM | 0x200 | 0x800));
	CHECK(rd32(w + 4) == 5);
	CHECK(w[8] == 0x0a && w[9] == 0x0b && w[10] == 0x0c && w[11] == 0x0d);
	CHECK(rd32(w + 64) == 0x654321 && memcmp(w + 80, inl, 5) == 0);

	/* Not a UD opcode; too much inline data; too many SGEs; no AH. */
	wr[0].next = NULL;
	wr[0].opcode = IBV_WR_RDMA_WRITE;
	CHECK(eri_post_send(&qp->vqp.qp, wr, &bad) == EINVAL && bad == wr);
	wr[0].opcode = IBV_WR_SEND;
	sge[0].length = ERI_SQ_UD_MAX_INLINE + 1;
	wr[0].send_flags = IBV_SEND_INLINE;
	wr[0].num_sge = 1;
	CHECK(eri_post_send(&qp->vqp.qp, wr, &bad) == EINVAL);
	sge[0].length = 10;
	wr[0].send_flags = 0;
	wr[0].num_sge = ERI_SQ_UD_MAX_SGE + 1;
	CHECK(eri_post_send(&qp->vqp.qp, wr, &bad) == EINVAL);
	wr[0].num_sge = 1;
	wr[0].wr.ud.ah = NULL;
	CHECK(eri_post_send(&qp->vqp.qp, wr, &bad) == EINVAL);
	CHECK(qp->sq.pi == (uint16_t)(idx + 2));

	/* Both complete; back to RC. */
	dev_cqe(QPN, true, ERI_CQE_OP_SEND, 0, 0, idx + 1, 5, 0, 0);
	CHECK(eri_poll_cq(&cq->vcq.cq, 1, &wc) == 1 && wc.wr_id == 201 &&
	      qp->sq.tail == qp->sq.pi);
	qp->ud = false;
	qp->max_inline_data = ERI_SQ_WQE_MAX_INLINE;
	qp->sq.max_sge = ERI_SQ_WQE_MAX_SGE;
}

static void test_recv(void)
{
	struct ibv_sge sge = { .addr = 0xabc000, .length = 4096, .lkey = 9 };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_wc wc;
	int i;

	/* Many passes over the RQ and the CQ: owner bits flip. */
	for (i = 0; i < 40; i++) {
		const uint8_t *w;
		uint16_t idx = qp->rq.pi;

		wr.wr_id = 1000 + i;
		CHECK(eri_post_recv(&qp->vqp.qp, &wr, &bad) == 0);
		CHECK(le32toh(qp->dbrec->rq_pi) == (uint16_t)(idx + 1));
		w = (uint8_t *)qp->rq.ring +
		    eri_ring_slot(idx, RQ_DEPTH_LOG) * ERI_RQ_WQE_SIZE;
		CHECK(rd32(w) == 1 && rd32(w + 4) == 0);
		CHECK(rd64(w + 16) == 0xabc000 && rd32(w + 24) == 4096 &&
		      rd32(w + 28) == 9);

		CHECK(eri_poll_cq(&cq->vcq.cq, 1, &wc) == 0);
		switch (i % 3) {
		case 0:
			dev_cqe(QPN, false, ERI_CQE_OP_RECV, 0,
				ERI_CQE_HDR_IMM, idx, 33, htobe32(0x01020304),
				0);
			break;
		case 1:
			dev_cqe(QPN, false, ERI_CQE_OP_RECV, 0,
				ERI_CQE_HDR_INV, idx, 34, 0, 0x777);
			break;
		default:
			dev_cqe(QPN, false, ERI_CQE_OP_RECV_WRITE_IMM, 0,
				ERI_CQE_HDR_IMM, idx, 0, htobe32(5), 0);
			break;
		}
		CHECK(eri_poll_cq(&cq->vcq.cq, 1, &wc) == 1);
		CHECK(wc.wr_id == (uint64_t)(1000 + i));
		CHECK(wc.src_qp == 7);
		switch (i % 3) {
		case 0:
			CHECK(wc.opcode == IBV_WC_RECV && wc.byte_len == 33 &&
			      wc.wc_flags == IBV_WC_WITH_IMM &&
			      wc.imm_data == htobe32(0x01020304));
			break;
		case 1:
			CHECK(wc.opcode == IBV_WC_RECV &&
			      wc.wc_flags == IBV_WC_WITH_INV &&
			      wc.invalidated_rkey == 0x777);
			break;
		default:
			CHECK(wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
			      wc.wc_flags == IBV_WC_WITH_IMM &&
			      wc.imm_data == htobe32(5));
			break;
		}
		CHECK(le32toh(cq->dbrec->ci) == dev_cq_pi);
	}
	/* Receive queues need no kick while the QP works. */
	take_kicks();
	CHECK(qp->rq.kicks_skipped == 40 && kicks_recv == 0 &&
	      qp->rq.kicks == 0);

	/* Full RQ; then the kick in ERR. */
	for (i = 0; i < 4; i++)
		CHECK(eri_post_recv(&qp->vqp.qp, &wr, &bad) == 0);
	CHECK(eri_post_recv(&qp->vqp.qp, &wr, &bad) == ENOMEM && bad == &wr);
	dev_cqe(QPN, false, ERI_CQE_OP_RECV, ERI_CQE_STS_WR_FLUSH_ERR, 0,
		qp->rq.tail, 0, 0, 0);
	CHECK(eri_poll_cq(&cq->vcq.cq, 1, &wc) == 1 &&
	      wc.status == IBV_WC_WR_FLUSH_ERR);
	qp->dbrec->rq_need_kick = htole32(1);
	CHECK(eri_post_recv(&qp->vqp.qp, &wr, &bad) == 0);
	take_kicks();
	CHECK(kicks_recv == 1 && qp->rq.kicks == 1 && kicks_send == 1);
	qp->dbrec->rq_need_kick = 0;

	/* RESET starts the queues over; old CQEs are dropped. */
	eri_qp_reset(qp);
	CHECK(qp->rq.pi == 0 && qp->dbrec->rq_pi == 0 && qp->dbrec->sq_pi == 0);
	dev_cqe(QPN, false, ERI_CQE_OP_RECV, ERI_CQE_STS_WR_FLUSH_ERR, 0,
		41, 0, 0, 0);
	CHECK(eri_poll_cq(&cq->vcq.cq, 1, &wc) == 0);

	/* A QP gone from the table: its CQEs are dropped. */
	pthread_mutex_lock(&ctx->qp_table_mutex);
	eri_qp_table_remove_locked(ctx, qp);
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	CHECK(eri_post_recv(&qp->vqp.qp, &wr, &bad) == 0);
	dev_cqe(QPN, false, ERI_CQE_OP_RECV, 0, 0, 0, 0, 0, 0);
	CHECK(eri_poll_cq(&cq->vcq.cq, 1, &wc) == 0);
	CHECK(le32toh(cq->dbrec->ci) == dev_cq_pi);
}

static void test_arm(void)
{
	CHECK(eri_req_notify_cq(&cq->vcq.cq, 0) == 0);
	CHECK(le32toh(cq->dbrec->arm) == (1 << 2 | ERI_CQ_ARM));
	CHECK(eri_req_notify_cq(&cq->vcq.cq, 1) == 0);
	CHECK(le32toh(cq->dbrec->arm) ==
	      (2 << 2 | ERI_CQ_ARM | ERI_CQ_ARM_SOLICITED));
	cq->arm_sn = (1U << 30) - 1;
	CHECK(eri_req_notify_cq(&cq->vcq.cq, 0) == 0);
	CHECK(le32toh(cq->dbrec->arm) == (1 << 2 | ERI_CQ_ARM));
}

/*
 * Shared receive queue: tags from a free stack in the WQEs, ENOMEM at
 * depth + 1, completions in any order give every wr_id once, a tag of a
 * vanished QP is given back, a tag completed twice is dropped.
 */
#define SRQ_QPN		0x2345
#define SRQ_DEPTH_LOG	3
#define SRQN		9

static void dev_srq_cqe(uint32_t qpn, uint32_t tag)
{
	struct eri_cqe *e = &cq->ring[eri_ring_slot(dev_cq_pi, CQ_DEPTH_LOG)];

	e->srqn = htole32(SRQN);
	dev_cqe(qpn, false, ERI_CQE_OP_RECV, ERI_CQE_STS_SUCCESS,
		ERI_CQE_HDR_SRQ, tag, 10, 0, 0);
}

static uint8_t *srq_wqe(struct eri_srq *srq, uint16_t idx)
{
	return (uint8_t *)srq->ring +
	       ((size_t)eri_ring_slot(idx, SRQ_DEPTH_LOG) << ERI_RQ_WQE_SHIFT);
}

static void test_srq(void)
{
	static const uint32_t order[] = { 5, 2, 7, 0 };
	struct ibv_recv_wr wr[9], *bad = NULL;
	struct ibv_sge sge = { .addr = 0x1000, .length = 64, .lkey = 0x77 };
	struct eri_srq *srq = calloc(1, sizeof(*srq));
	struct eri_qp *sqp = calloc(1, sizeof(*sqp));
	struct ibv_cq other_cq = {};
	struct ibv_wc wc[8];
	uint32_t i, depth = 1U << SRQ_DEPTH_LOG;

	pthread_spin_init(&ctx->srq_lock, PTHREAD_PROCESS_PRIVATE);
	list_head_init(&ctx->srqs);
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	srq->srqn = SRQN;
	srq->depth_log = SRQ_DEPTH_LOG;
	srq->max_sge = ERI_RQ_WQE_MAX_SGE;
	srq->ring = calloc(depth, ERI_RQ_WQE_SIZE);
	srq->dbrec = calloc(1, sizeof(*srq->dbrec));
	srq->wr_id = calloc(depth, sizeof(*srq->wr_id));
	srq->free = calloc(depth, sizeof(*srq->free));
	srq->busy = calloc(1, sizeof(*srq->busy));
	for (i = 0; i < depth; i++)
		srq->free[i] = depth - 1 - i;
	srq->nfree = depth;
	list_add_tail(&ctx->srqs, &srq->entry);

	sqp->vqp.qp.context = &ctx->ibvctx.context;
	sqp->vqp.qp.send_cq = &cq->vcq.cq;
	sqp->vqp.qp.recv_cq = &cq->vcq.cq;
	sqp->vqp.qp.state = IBV_QPS_RTS;
	sqp->qpn = SRQ_QPN;
	sqp->srq = srq;
	CHECK(eri_qp_table_insert(ctx, sqp) == 0);

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 9; i++) {
		wr[i].wr_id = 100 + i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i < 8 ? &wr[i + 1] : NULL;
	}
	/* The ninth finds no tag. */
	CHECK(eri_post_srq_recv(&srq->ibvsrq, wr, &bad) == ENOMEM);
	CHECK(bad == &wr[8]);
	CHECK(le32toh(srq->dbrec->pi) == depth);
	for (i = 0; i < depth; i++) {
		uint8_t *w = srq_wqe(srq, i);

		CHECK(rd32(w) == 1);			/* NUM_SGE */
		CHECK(rd32(w + 4) == i);		/* tag 0 first */
		CHECK(rd32(w + 8) == 0 && rd32(w + 12) == 0);
		CHECK(rd64(w + 16) == 0x1000);
		CHECK(rd32(w + 24) == 64 && rd32(w + 28) == 0x77);
	}
	/* A QP of an SRQ has no receive queue of its own. */
	bad = NULL;
	CHECK(eri_post_recv(&sqp->vqp.qp, &wr[8], &bad) == EINVAL);

	for (i = 0; i < 4; i++)
		dev_srq_cqe(SRQ_QPN, order[i]);
	CHECK(eri_poll_cq(&cq->vcq.cq, 8, wc) == 4);
	for (i = 0; i < 4; i++) {
		CHECK(wc[i].wr_id == 100 + order[i]);
		CHECK(wc[i].qp_num == SRQ_QPN);
		CHECK(wc[i].opcode == IBV_WC_RECV);
		CHECK(wc[i].status == IBV_WC_SUCCESS);
	}
	/* The same tag again, and one never handed out: dropped. */
	dev_srq_cqe(SRQ_QPN, 5);
	dev_srq_cqe(SRQ_QPN, 1000);
	CHECK(eri_poll_cq(&cq->vcq.cq, 8, wc) == 0);
	CHECK(srq->nfree == 4);
	/* A vanished QP's completion gives its tag back and is dropped. */
	dev_srq_cqe(SRQ_QPN + 1, 1);
	CHECK(eri_poll_cq(&cq->vcq.cq, 8, wc) == 0);
	CHECK(srq->nfree == 5 && srq->stale_cqes == 1);

	/* Freed tags go out again, the last freed first. */
	wr[4].next = NULL;
	bad = NULL;
	CHECK(eri_post_srq_recv(&srq->ibvsrq, wr, &bad) == 0);
	CHECK(rd32(srq_wqe(srq, 8) + 4) == 1);
	CHECK(rd32(srq_wqe(srq, 9) + 4) == 0);
	CHECK(rd32(srq_wqe(srq, 10) + 4) == 7);
	CHECK(rd32(srq_wqe(srq, 11) + 4) == 2);
	CHECK(rd32(srq_wqe(srq, 12) + 4) == 5);
	CHECK(le32toh(srq->dbrec->pi) == depth + 5);
	CHECK(srq->nfree == 0);
	dev_srq_cqe(SRQ_QPN, 1);
	CHECK(eri_poll_cq(&cq->vcq.cq, 8, wc) == 1 && wc[0].wr_id == 100);
	/*
	 * The QPN reused by a QP of the same SRQ that receives into another
	 * CQ: the completion is a vanished QP's, its tag given back.
	 */
	sqp->vqp.qp.recv_cq = &other_cq;
	dev_srq_cqe(SRQ_QPN, 3);
	CHECK(eri_poll_cq(&cq->vcq.cq, 8, wc) == 0);
	CHECK(srq->nfree == 2 && srq->stale_cqes == 2);
	sqp->vqp.qp.recv_cq = &cq->vcq.cq;
}

int main(void)
{
	setup();
	test_layout();
	test_send();
	test_ud();
	test_recv();
	test_arm();
	test_srq();
	if (failures) {
		fprintf(stderr, "eri_datapath_test: %d failures\n", failures);
		return 1;
	}
	printf("eri_datapath_test: ok\n");
	return 0;
}
