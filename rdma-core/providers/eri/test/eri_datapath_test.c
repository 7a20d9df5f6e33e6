// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Standalone test of liberi's data path without a device: it compiles
 * eri_cq.c, eri_qp.c and eri_srq.c in, builds a CQ and a QP on plain
 * memory, plays the device by reading WQEs and writing CQEs, and checks the
 * encodings of eri_hw.h byte for byte.  The command file the kicks go to is a socket the test
 * reads them from.
 *
 * Built and run by test/run.sh against the rdma-core tree of
 * scripts/rdma-core.sh.
 */
#include <stdio.h>
#include <sys/socket.h>

#include "../eri_cq.c"
#include "../eri_qp.c"
#include "../eri_srq.c"

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
	qp->sq.wqe_shift = ERI_SQ_WQE_SHIFT;
	/* Room for UD WQEs too: the tests turn the QP into a UD one. */
	qp->sq.ring = calloc(1U << SQ_DEPTH_LOG, ERI_SQ_UD_WQE_SIZE);
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
	       ((size_t)eri_ring_slot(idx, SQ_DEPTH_LOG) << qp->sq.wqe_shift);
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
	struct ibv_sge many[ERI_SQ_UD_MAX_SGE];
	char big[ERI_SQ_UD_MAX_INLINE];
	struct ibv_sge big_sge = { .addr = (uintptr_t)big, .length = sizeof(big) };
	struct eri_ah ah = {};
	struct ibv_send_wr wr[2] = {}, *bad;
	uint16_t idx = qp->sq.pi;
	struct ibv_wc wc;
	uint8_t *w;
	int i;

	qp->ud = true;
	qp->max_inline_data = ERI_SQ_UD_MAX_INLINE;
	qp->sq.max_sge = ERI_SQ_UD_MAX_SGE;
	qp->sq.wqe_shift = ERI_SQ_UD_WQE_SHIFT;
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

	/* Both complete: room for two more in the four slots. */
	dev_cqe(QPN, true, ERI_CQE_OP_SEND, 0, 0, idx + 1, 5, 0, 0);
	CHECK(eri_poll_cq(&cq->vcq.cq, 1, &wc) == 1 && wc.wr_id == 201 &&
	      qp->sq.tail == qp->sq.pi);

	/* As many SGEs and as much inline data as an RC WQE takes. */
	for (i = 0; i < ERI_SQ_UD_MAX_SGE; i++) {
		many[i].addr = 0x10000 * (i + 1);
		many[i].length = i + 1;
		many[i].lkey = 0x40 + i;
	}
	for (i = 0; i < ERI_SQ_UD_MAX_INLINE; i++)
		big[i] = (char)(0x80 + i);
	wr[0].next = &wr[1];
	wr[0].sg_list = many;
	wr[0].num_sge = ERI_SQ_UD_MAX_SGE;
	wr[1].sg_list = &big_sge;
	wr[1].num_sge = 1;
	CHECK(eri_post_send(&qp->vqp.qp, wr, &bad) == 0);
	CHECK(qp->sq.pi == (uint16_t)(idx + 4));
	w = sq_wqe(idx + 2);
	CHECK(rd32(w) == (ERI_SQ_OP_SEND | 0x100 | ERI_SQ_UD_MAX_SGE << 16));
	CHECK(rd32(w + 4) == 21 && rd32(w + 64) == 0x654321);
	for (i = 0; i < ERI_SQ_UD_MAX_SGE; i++)
		CHECK(rd64(w + 80 + 16 * i) == 0x10000 * (uint64_t)(i + 1) &&
		      rd32(w + 88 + 16 * i) == (uint32_t)i + 1 &&
		      rd32(w + 92 + 16 * i) == 0x40 + (uint32_t)i);
	w = sq_wqe(idx + 3);
	CHECK(rd32(w + 4) == ERI_SQ_UD_MAX_INLINE &&
	      memcmp(w + 80, big, ERI_SQ_UD_MAX_INLINE) == 0);
	/* The WQEs before them are untouched: each has its own slot. */
	w = sq_wqe(idx + 1);
	CHECK(memcmp(w + 80, inl, 5) == 0);
	wr[0].sg_list = sge;
	wr[1].sg_list = &sge[2];
	idx += 2;

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
	qp->sq.wqe_shift = ERI_SQ_WQE_SHIFT;
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
		switch (i % 4) {
		case 0:
			dev_cqe(QPN, false, ERI_CQE_OP_RECV, 0,
				ERI_CQE_HDR_IMM, idx, 33, htobe32(0x01020304),
				0);
			break;
		case 1:
			dev_cqe(QPN, false, ERI_CQE_OP_RECV, 0,
				ERI_CQE_HDR_INV, idx, 34, 0, 0x777);
			break;
		case 2:
			dev_cqe(QPN, false, ERI_CQE_OP_RECV_WRITE_IMM, 0,
				ERI_CQE_HDR_IMM, idx, 0, htobe32(5), 0);
			break;
		default:
			/* A datagram over IPv4: the GRH area, then 8 bytes. */
			dev_cqe(QPN, false, ERI_CQE_OP_RECV, 0,
				ERI_CQE_HDR_GRH | ERI_CQE_HDR_IPV4, idx, 48,
				0, 0);
			break;
		}
		CHECK(eri_poll_cq(&cq->vcq.cq, 1, &wc) == 1);
		CHECK(wc.wr_id == (uint64_t)(1000 + i));
		CHECK(wc.src_qp == 7);
		switch (i % 4) {
		case 0:
			CHECK(wc.opcode == IBV_WC_RECV && wc.byte_len == 33 &&
			      wc.wc_flags == IBV_WC_WITH_IMM &&
			      wc.imm_data == htobe32(0x01020304) && !wc.sl);
			break;
		case 1:
			CHECK(wc.opcode == IBV_WC_RECV &&
			      wc.wc_flags == IBV_WC_WITH_INV &&
			      wc.invalidated_rkey == 0x777 && !wc.sl);
			break;
		case 2:
			CHECK(wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
			      wc.wc_flags == IBV_WC_WITH_IMM &&
			      wc.imm_data == htobe32(5) && !wc.sl);
			break;
		default:
			/* The network header type in sl, as RoCE reports it. */
			CHECK(wc.opcode == IBV_WC_RECV && wc.byte_len == 48 &&
			      wc.wc_flags == IBV_WC_GRH &&
			      wc.sl == ERI_WC_SL_IPV4);
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

/*
 * A CQ deeper than 2^15 entries: its consumer index is 32 bits wide, so
 * the owner bits read right past the 16-bit wrap, and ci reaches the
 * device in full.  The CQEs name no QP: each is consumed and dropped.
 */
static void test_cq_deep(void)
{
	const uint32_t log = 16, n = (1U << log) + 3000;
	struct eri_cq *big = calloc(1, sizeof(*big));
	struct ibv_wc wc;
	uint32_t pi = 0, i;

	big->vcq.cq.context = &ctx->ibvctx.context;
	pthread_spin_init(&big->lock, PTHREAD_PROCESS_PRIVATE);
	big->depth_log = log;
	big->ring = calloc(1U << log, sizeof(struct eri_cqe));
	big->dbrec = calloc(1, sizeof(*big->dbrec));
	while (pi < n) {
		/* Up to 1000 at a time; each poll consumes them all. */
		for (i = 0; i < 1000 && pi < n; i++, pi++) {
			struct eri_cqe *e = &big->ring[eri_ring_slot(pi, log)];

			e->qpn = htole32(QPN + 1);
			e->hdr = htole32(ERI_CQE_HDR_SQ |
					 eri_ring_owner(pi, log));
		}
		CHECK(eri_poll_cq(&big->vcq.cq, 1, &wc) == 0);
		CHECK(big->ci == pi && le32toh(big->dbrec->ci) == pi);
	}
	CHECK(big->stale_cqes == n);
	pthread_spin_destroy(&big->lock);
	free(big->dbrec);
	free(big->ring);
	free(big);
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

/*
 * Extended verbs.  The ibv_qp_ex API gets the same work requests as
 * post_send, translated by qpx_post(), into the next slot of the same SQ,
 * and both WQEs must be the same bytes; the ring slots start from the same
 * pattern, as the encoders leave the bytes after the data alone.
 */
static struct ibv_qp_ex *qpx;

static void set_ops(uint64_t ops)
{
	/* Every function pointer of ibv_qp_ex, none of qp_base. */
	memset((uint8_t *)qpx + offsetof(struct ibv_qp_ex, wr_atomic_cmp_swp),
	       0, sizeof(*qpx) - offsetof(struct ibv_qp_ex, wr_atomic_cmp_swp));
	qp->vqp.comp_mask = 0;
	eri_qp_set_send_ops(qp, ops);
	CHECK(ibv_qp_to_qp_ex(&qp->vqp.qp) == qpx);
}

/* Build @wr through the ibv_qp_ex API, within a batch the caller opened. */
static void qpx_build(const struct ibv_send_wr *wr)
{
	bool inl = wr->send_flags & IBV_SEND_INLINE;
	struct ibv_data_buf buf[ERI_SQ_WQE_MAX_SGE];
	int i;

	qpx->wr_id = wr->wr_id;
	qpx->wr_flags = wr->send_flags;
	switch (wr->opcode) {
	case IBV_WR_SEND:
		qpx->wr_send(qpx);
		break;
	case IBV_WR_SEND_WITH_IMM:
		qpx->wr_send_imm(qpx, wr->imm_data);
		break;
	case IBV_WR_SEND_WITH_INV:
		qpx->wr_send_inv(qpx, wr->invalidate_rkey);
		break;
	case IBV_WR_RDMA_WRITE:
		qpx->wr_rdma_write(qpx, wr->wr.rdma.rkey,
				   wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		qpx->wr_rdma_write_imm(qpx, wr->wr.rdma.rkey,
				       wr->wr.rdma.remote_addr, wr->imm_data);
		break;
	case IBV_WR_RDMA_READ:
		qpx->wr_rdma_read(qpx, wr->wr.rdma.rkey,
				  wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		qpx->wr_atomic_cmp_swp(qpx, wr->wr.atomic.rkey,
				       wr->wr.atomic.remote_addr,
				       wr->wr.atomic.compare_add,
				       wr->wr.atomic.swap);
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		qpx->wr_atomic_fetch_add(qpx, wr->wr.atomic.rkey,
					 wr->wr.atomic.remote_addr,
					 wr->wr.atomic.compare_add);
		break;
	default:
		CHECK(!"an opcode of the test");
		return;
	}
	if (qp->ud)
		qpx->wr_set_ud_addr(qpx, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				    wr->wr.ud.remote_qkey);
	if (inl) {
		for (i = 0; i < wr->num_sge; i++) {
			buf[i].addr = (void *)(uintptr_t)wr->sg_list[i].addr;
			buf[i].length = wr->sg_list[i].length;
		}
		if (wr->num_sge == 1)
			qpx->wr_set_inline_data(qpx, buf[0].addr,
						buf[0].length);
		else
			qpx->wr_set_inline_data_list(qpx, wr->num_sge, buf);
	} else if (wr->num_sge == 1) {
		qpx->wr_set_sge(qpx, wr->sg_list[0].lkey, wr->sg_list[0].addr,
				wr->sg_list[0].length);
	} else if (wr->num_sge) {
		qpx->wr_set_sge_list(qpx, wr->num_sge, wr->sg_list);
	}
}

/* Complete every outstanding send WQE with one CQE of the last. */
static void sq_drain(void)
{
	struct ibv_wc wc;

	if (qp->sq.tail == qp->sq.pi)
		return;
	dev_cqe(QPN, true, ERI_CQE_OP_SEND, 0, 0, qp->sq.pi - 1, 0, 0, 0);
	CHECK(eri_poll_cq(&cq->vcq.cq, 1, &wc) == 1);
	CHECK(qp->sq.tail == qp->sq.pi);
}

/*
 * Post @wr with ibv_post_send, then with ibv_qp_ex; both WQEs must be the
 * same bytes, with the same wr_id, and each must move the index by one.
 */
static void same_wqe(const struct ibv_send_wr *wr)
{
	uint8_t a[ERI_SQ_UD_WQE_SIZE];
	size_t size = (size_t)1 << qp->sq.wqe_shift;
	struct ibv_send_wr one = *wr, *bad = NULL;
	uint16_t idx;

	one.next = NULL;
	sq_drain();
	idx = qp->sq.pi;
	memset(sq_wqe(idx), 0xa5, size);
	CHECK(eri_post_send(&qp->vqp.qp, &one, &bad) == 0);
	CHECK(qp->sq.pi == (uint16_t)(idx + 1) &&
	      le32toh(qp->dbrec->sq_pi) == qp->sq.pi);
	memcpy(a, sq_wqe(idx), size);
	sq_drain();

	idx = qp->sq.pi;
	memset(sq_wqe(idx), 0xa5, size);
	qpx->wr_start(qpx);
	qpx_build(wr);
	CHECK(qpx->wr_complete(qpx) == 0);
	CHECK(qp->sq.pi == (uint16_t)(idx + 1) &&
	      le32toh(qp->dbrec->sq_pi) == qp->sq.pi);
	if (memcmp(a, sq_wqe(idx), size)) {
		fprintf(stderr, "opcode %d: the WQEs differ\n", wr->opcode);
		CHECK(!"ibv_qp_ex and ibv_post_send write the same WQE");
	}
	CHECK(qp->sq.wr_id[eri_ring_slot(idx, SQ_DEPTH_LOG)] == wr->wr_id);
	sq_drain();
}

static void test_qp_ex_wqes(void)
{
	static const char text[] = "The quick brown fox jumps over the lazy dog";
	struct ibv_sge sge[6] = {
		{ .addr = 0x1122334455667788ULL, .length = 100, .lkey = 0xaabb },
		{ .addr = 0x1000, .length = 28, .lkey = 0xccdd },
		{ .addr = 0x2000, .length = 1 << 20, .lkey = 0x1234 },
		{ .addr = 0x3000, .length = 8, .lkey = 0x99 },
		{ .addr = 0x4000, .length = 0, .lkey = 0x98 },
		{ .addr = 0x5000, .length = 77, .lkey = 0x97 },
	};
	struct ibv_sge isge[3] = {
		{ .addr = (uintptr_t)text, .length = 9 },
		{ .addr = (uintptr_t)text + 10, .length = 0 },
		{ .addr = (uintptr_t)text + 20, .length = 23 },
	};
	struct ibv_sge asge = { .addr = 0x8000, .length = 8, .lkey = 0x5151 };
	struct ibv_send_wr wr;
	struct eri_ah ah = {};
	int i;

	set_ops(ERI_QP_EX_RC_OPS);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	wr.sg_list = sge;
	wr.num_sge = 6;
	same_wqe(&wr);
	wr.num_sge = 0;			/* zero length */
	same_wqe(&wr);
	wr.send_flags = IBV_SEND_INLINE;
	wr.sg_list = isge;
	wr.num_sge = 3;
	same_wqe(&wr);
	wr.num_sge = 1;
	same_wqe(&wr);

	wr.wr_id = 2;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.send_flags = IBV_SEND_FENCE;
	wr.imm_data = htobe32(0xcafef00d);
	wr.sg_list = sge;
	wr.num_sge = 2;
	same_wqe(&wr);

	wr.wr_id = 3;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = 0x10203040;
	wr.num_sge = 1;
	same_wqe(&wr);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 4;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.sg_list = sge;
	wr.num_sge = 3;
	wr.wr.rdma.remote_addr = 0xfedcba9876543210ULL;
	wr.wr.rdma.rkey = 0x4242;
	same_wqe(&wr);
	wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	wr.sg_list = isge;
	same_wqe(&wr);

	wr.wr_id = 5;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = IBV_SEND_SOLICITED;
	wr.imm_data = htobe32(7);
	wr.sg_list = sge;
	wr.num_sge = 1;
	same_wqe(&wr);

	wr.wr_id = 6;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	wr.num_sge = 6;
	same_wqe(&wr);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 7;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &asge;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = 0x7700;
	wr.wr.atomic.rkey = 0x3131;
	wr.wr.atomic.compare_add = 0x0102030405060708ULL;
	wr.wr.atomic.swap = 0x1112131415161718ULL;
	same_wqe(&wr);
	wr.wr_id = 8;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.send_flags = IBV_SEND_FENCE;
	wr.wr.atomic.swap = 0;
	same_wqe(&wr);

	/* UD: the address through wr_set_ud_addr. */
	qp->ud = true;
	qp->max_inline_data = ERI_SQ_UD_MAX_INLINE;
	qp->sq.max_sge = ERI_SQ_UD_MAX_SGE;
	qp->sq.wqe_shift = ERI_SQ_UD_WQE_SHIFT;
	set_ops(ERI_QP_EX_UD_OPS);
	CHECK(qpx->wr_set_ud_addr && !qpx->wr_rdma_write);
	for (i = 0; i < 16; i++)
		ah.av.dgid[i] = 0xf0 + i;
	ah.av.sgid[3] = 9;
	ah.av.hop_limit = 17;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 9;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = sge;
	wr.num_sge = 3;
	wr.wr.ud.ah = &ah.ibvah;
	wr.wr.ud.remote_qpn = 0x123456;
	wr.wr.ud.remote_qkey = 0x80010000;
	same_wqe(&wr);
	wr.wr_id = 10;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SOLICITED;
	wr.imm_data = htobe32(0x55aa55aa);
	wr.sg_list = isge;
	wr.num_sge = 3;
	same_wqe(&wr);
	/* Six SGEs, the most a UD WQE takes. */
	wr.wr_id = 11;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = sge;
	wr.num_sge = 6;
	same_wqe(&wr);
	qp->ud = false;
	qp->max_inline_data = ERI_SQ_WQE_MAX_INLINE;
	qp->sq.max_sge = ERI_SQ_WQE_MAX_SGE;
	qp->sq.wqe_shift = ERI_SQ_WQE_SHIFT;
	set_ops(ERI_QP_EX_RC_OPS);
}

/* The SQ lock is free (wr_complete and wr_abort release it). */
static bool sq_unlocked(void)
{
	if (pthread_spin_trylock(&qp->sq.lock))
		return false;
	pthread_spin_unlock(&qp->sq.lock);
	return true;
}

static void test_qp_ex_batches(void)
{
	uint8_t before[ERI_SQ_WQE_SIZE];
	struct ibv_qp_init_attr_ex qattr = {};
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge = { .addr = 0x1000, .length = 64, .lkey = 0x77 };
	int kicks, i;
	uint16_t idx;

	/* Only the builders asked for; never LOCAL_INV, BIND_MW and the rest. */
	set_ops(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_READ);
	CHECK(qpx->wr_send && qpx->wr_rdma_read && !qpx->wr_send_imm &&
	      !qpx->wr_send_inv && !qpx->wr_rdma_write &&
	      !qpx->wr_rdma_write_imm && !qpx->wr_atomic_cmp_swp &&
	      !qpx->wr_atomic_fetch_add && !qpx->wr_local_inv &&
	      !qpx->wr_bind_mw && !qpx->wr_send_tso && !qpx->wr_set_ud_addr &&
	      !qpx->wr_set_xrc_srqn && !qpx->wr_atomic_write &&
	      !qpx->wr_flush);
	CHECK(qpx->wr_set_sge && qpx->wr_set_sge_list &&
	      qpx->wr_set_inline_data && qpx->wr_set_inline_data_list &&
	      qpx->wr_start && qpx->wr_complete && qpx->wr_abort);

	/* Refused before any command reaches the kernel. */
	qattr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qattr.qp_type = IBV_QPT_RC;
	qattr.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_LOCAL_INV;
	errno = 0;
	CHECK(!eri_create_qp_ex(&ctx->ibvctx.context, &qattr) &&
	      errno == EOPNOTSUPP);
	qattr.send_ops_flags = IBV_QP_EX_WITH_BIND_MW;
	CHECK(!eri_create_qp_ex(&ctx->ibvctx.context, &qattr) &&
	      errno == EOPNOTSUPP);
	qattr.qp_type = IBV_QPT_UD;
	qattr.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	CHECK(!eri_create_qp_ex(&ctx->ibvctx.context, &qattr) &&
	      errno == EOPNOTSUPP);
	ctx->dev_caps = 0;
	qattr.qp_type = IBV_QPT_RC;
	qattr.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	CHECK(!eri_create_qp_ex(&ctx->ibvctx.context, &qattr) &&
	      errno == EOPNOTSUPP);
	ctx->dev_caps = ERI_UCTX_CAP_IMM;
	qattr.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
	qattr.send_ops_flags = IBV_QP_EX_WITH_SEND;
	CHECK(!eri_create_qp_ex(&ctx->ibvctx.context, &qattr) &&
	      errno == EOPNOTSUPP);
	qattr.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	CHECK(!eri_create_qp_ex(&ctx->ibvctx.context, &qattr) &&
	      errno == EINVAL);

	set_ops(ERI_QP_EX_RC_OPS);
	sq_drain();

	/*
	 * A batch of three rings one doorbell: one index update, one kick
	 * although the device asks for one, as post_send of a list does.
	 */
	take_kicks();
	kicks = kicks_send;
	qp->dbrec->sq_need_kick = htole32(1);
	idx = qp->sq.pi;
	qpx->wr_start(qpx);
	for (i = 0; i < 3; i++) {
		qpx->wr_id = 300 + i;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		qpx->wr_send(qpx);
		qpx->wr_set_sge(qpx, 0x77, 0x1000 * i, 64);
		/* Nothing is visible before wr_complete. */
		CHECK(le32toh(qp->dbrec->sq_pi) == idx);
	}
	CHECK(!sq_unlocked());
	CHECK(qpx->wr_complete(qpx) == 0);
	CHECK(sq_unlocked());
	take_kicks();
	CHECK(kicks_send == kicks + 1);
	CHECK(qp->sq.pi == (uint16_t)(idx + 3) &&
	      le32toh(qp->dbrec->sq_pi) == qp->sq.pi);
	for (i = 0; i < 3; i++)
		CHECK(qp->sq.wr_id[eri_ring_slot(idx + i, SQ_DEPTH_LOG)] ==
		      (uint64_t)(300 + i));
	/* Without the device asking: no kick; an empty batch: nothing. */
	qp->dbrec->sq_need_kick = 0;
	sq_drain();
	qpx->wr_start(qpx);
	qpx->wr_send(qpx);
	qpx->wr_set_sge(qpx, 1, 2, 3);
	CHECK(qpx->wr_complete(qpx) == 0);
	qp->dbrec->sq_need_kick = htole32(1);
	idx = qp->sq.pi;
	qpx->wr_start(qpx);
	CHECK(qpx->wr_complete(qpx) == 0);
	take_kicks();
	CHECK(kicks_send == kicks + 1 && qp->sq.pi == idx);
	qp->dbrec->sq_need_kick = 0;

	/*
	 * wr_abort: the index, the doorbell record and the WQE outstanding
	 * stay as they were, and the next post goes where the aborted did.
	 */
	idx = qp->sq.pi;
	memcpy(before, sq_wqe(idx - 1), sizeof(before));
	qpx->wr_start(qpx);
	qpx->wr_id = 400;
	qpx->wr_rdma_write(qpx, 1, 2);
	qpx->wr_set_sge(qpx, 3, 4, 5);
	qpx->wr_id = 401;
	qpx->wr_send(qpx);
	qpx->wr_abort(qpx);
	CHECK(sq_unlocked());
	CHECK(qp->sq.pi == idx && le32toh(qp->dbrec->sq_pi) == idx &&
	      qp->sq.tail == (uint16_t)(idx - 1));
	CHECK(memcmp(before, sq_wqe(idx - 1), sizeof(before)) == 0);
	take_kicks();
	CHECK(kicks_send == kicks + 1);
	wr.wr_id = 402;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	CHECK(eri_post_send(&qp->vqp.qp, &wr, &bad) == 0);
	CHECK(qp->sq.pi == (uint16_t)(idx + 1) &&
	      qp->sq.wr_id[eri_ring_slot(idx, SQ_DEPTH_LOG)] == 402);
	sq_drain();

	/*
	 * A bad WR fails wr_complete and none of the batch is posted: an
	 * inline READ, an atomic without its SGE, too many SGEs, too much
	 * inline data, a setter without a builder, a full SQ, not in RTS.
	 */
	for (i = 0; i < 7; i++) {
		static char big[ERI_SQ_WQE_MAX_INLINE + 1];
		struct ibv_sge many[ERI_SQ_WQE_MAX_SGE + 1] = {};
		int j, want = EINVAL;

		idx = qp->sq.pi;
		if (i == 6)
			qp->vqp.qp.state = IBV_QPS_RTR;
		qpx->wr_start(qpx);
		qpx->wr_send(qpx);		/* a good one first */
		qpx->wr_set_sge(qpx, 1, 2, 3);
		switch (i) {
		case 0:
			qpx->wr_rdma_read(qpx, 1, 2);
			qpx->wr_set_inline_data(qpx, big, 4);
			break;
		case 1:
			qpx->wr_atomic_fetch_add(qpx, 1, 8, 1);
			break;
		case 2:
			qpx->wr_send(qpx);
			qpx->wr_set_sge_list(qpx, ERI_SQ_WQE_MAX_SGE + 1, many);
			break;
		case 3:
			qpx->wr_send(qpx);
			qpx->wr_set_inline_data(qpx, big, sizeof(big));
			break;
		case 4:
			qpx->wr_abort(qpx);
			qpx->wr_start(qpx);
			qpx->wr_set_sge(qpx, 1, 2, 3);
			break;
		case 5:
			for (j = 0; j < (1 << SQ_DEPTH_LOG); j++) {
				qpx->wr_send(qpx);
				qpx->wr_set_sge(qpx, 1, 2, 3);
			}
			want = ENOMEM;
			break;
		default:
			break;
		}
		qpx->wr_send(qpx);		/* and a good one after */
		CHECK(qpx->wr_complete(qpx) == want);
		CHECK(sq_unlocked());
		CHECK(qp->sq.pi == idx && le32toh(qp->dbrec->sq_pi) == idx);
	}
	qp->vqp.qp.state = IBV_QPS_RTS;
	take_kicks();
	CHECK(kicks_send == kicks + 1);
}

/*
 * cq_ex polling reports what poll_cq reports: the same CQEs (with a
 * stale one among them) polled both ways must give the same fields.
 */
static void cq_ex_round(void)
{
	struct ibv_recv_wr rwr = {};
	struct ibv_send_wr swr = {}, *sbad;
	struct ibv_recv_wr *rbad;
	uint16_t r = qp->rq.pi, s = qp->sq.pi;
	int i;

	for (i = 0; i < 2; i++) {
		rwr.wr_id = 500 + i;
		CHECK(eri_post_recv(&qp->vqp.qp, &rwr, &rbad) == 0);
		swr.wr_id = 600 + i;
		swr.opcode = IBV_WR_RDMA_READ;
		swr.send_flags = IBV_SEND_SIGNALED;
		CHECK(eri_post_send(&qp->vqp.qp, &swr, &sbad) == 0);
	}
	dev_cqe(QPN, false, ERI_CQE_OP_RECV, 0, ERI_CQE_HDR_IMM, r, 33,
		htobe32(0x01020304), 0);
	dev_cqe(QPN + 77, false, ERI_CQE_OP_RECV, 0, 0, 0, 1, 0, 0);
	dev_cqe(QPN, true, ERI_CQE_OP_READ, 0, 0, s, 4096, 0, 0);
	dev_cqe(QPN, false, ERI_CQE_OP_RECV_WRITE_IMM, 0,
		ERI_CQE_HDR_IMM | ERI_CQE_HDR_GRH, r + 1, 0, htobe32(9), 0);
	dev_cqe(QPN, true, ERI_CQE_OP_READ, ERI_CQE_STS_REM_ACCESS_ERR, 0,
		s + 1, 0, 0, 0);
}

static void test_cq_ex(void)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_cq_init_attr_ex cattr = {};
	struct ibv_wc a[8], b[8];
	int n, i, ret;

	/* The read functions of the flags asked for, and those always there. */
	eri_cq_ex_init(cq, IBV_WC_EX_WITH_BYTE_LEN);
	CHECK(cqx->start_poll && cqx->next_poll && cqx->end_poll &&
	      cqx->read_opcode && cqx->read_vendor_err && cqx->read_wc_flags &&
	      cqx->read_byte_len && !cqx->read_imm_data &&
	      !cqx->read_qp_num && !cqx->read_src_qp && !cqx->read_slid &&
	      !cqx->read_sl && !cqx->read_dlid_path_bits &&
	      !cqx->read_completion_ts && !cqx->read_completion_wallclock_ns);
	eri_cq_ex_init(cq, IBV_WC_STANDARD_FLAGS);

	/* No timestamps (the device has none), no overrun; before any command. */
	cattr.cqe = 8;
	cattr.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	CHECK(!eri_create_cq_ex(&ctx->ibvctx.context, &cattr) &&
	      errno == EOPNOTSUPP);
	cattr.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
	CHECK(!eri_create_cq_ex(&ctx->ibvctx.context, &cattr) &&
	      errno == EOPNOTSUPP);
	cattr.wc_flags = IBV_WC_STANDARD_FLAGS;
	cattr.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	cattr.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	CHECK(!eri_create_cq_ex(&ctx->ibvctx.context, &cattr) &&
	      errno == EOPNOTSUPP);
	cattr.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	CHECK(!eri_create_cq_ex(&ctx->ibvctx.context, &cattr) &&
	      errno == EOPNOTSUPP);

	/* Empty: ENOENT, and the lock is not held (no end_poll follows). */
	CHECK(cqx->start_poll(cqx, &pattr) == ENOENT);
	CHECK(pthread_spin_trylock(&cq->lock) == 0);
	pthread_spin_unlock(&cq->lock);
	pattr.comp_mask = 1;
	CHECK(cqx->start_poll(cqx, &pattr) == EINVAL);
	pattr.comp_mask = 0;

	cq_ex_round();
	memset(a, 0x5a, sizeof(a));
	n = eri_poll_cq(&cq->vcq.cq, 8, a);
	CHECK(n == 4);

	cq_ex_round();
	memset(b, 0x5a, sizeof(b));
	i = 0;
	for (ret = cqx->start_poll(cqx, &pattr); !ret;
	     ret = cqx->next_poll(cqx)) {
		CHECK(pthread_spin_trylock(&cq->lock) != 0);
		if (i == 8)
			break;
		memset(&b[i], 0, sizeof(b[i]));
		b[i].wr_id = cqx->wr_id;
		b[i].status = cqx->status;
		b[i].opcode = ibv_wc_read_opcode(cqx);
		b[i].vendor_err = ibv_wc_read_vendor_err(cqx);
		b[i].byte_len = ibv_wc_read_byte_len(cqx);
		b[i].imm_data = ibv_wc_read_imm_data(cqx);
		b[i].qp_num = ibv_wc_read_qp_num(cqx);
		b[i].src_qp = ibv_wc_read_src_qp(cqx);
		b[i].wc_flags = ibv_wc_read_wc_flags(cqx);
		b[i].slid = ibv_wc_read_slid(cqx);
		b[i].sl = ibv_wc_read_sl(cqx);
		b[i].dlid_path_bits = ibv_wc_read_dlid_path_bits(cqx);
		i++;
	}
	CHECK(ret == ENOENT && i == n);
	/* ci is the device's only at end_poll. */
	CHECK(le32toh(cq->dbrec->ci) != dev_cq_pi);
	cqx->end_poll(cqx);
	CHECK(le32toh(cq->dbrec->ci) == dev_cq_pi);
	CHECK(pthread_spin_trylock(&cq->lock) == 0);
	pthread_spin_unlock(&cq->lock);
	for (i = 0; i < n; i++) {
		CHECK(a[i].wr_id == b[i].wr_id && a[i].status == b[i].status &&
		      a[i].opcode == b[i].opcode &&
		      a[i].vendor_err == b[i].vendor_err &&
		      a[i].byte_len == b[i].byte_len &&
		      a[i].imm_data == b[i].imm_data &&
		      a[i].qp_num == b[i].qp_num && a[i].src_qp == b[i].src_qp &&
		      a[i].wc_flags == b[i].wc_flags && a[i].slid == b[i].slid &&
		      a[i].sl == b[i].sl &&
		      a[i].dlid_path_bits == b[i].dlid_path_bits);
	}
	/* What poll_cq said, so that the comparison means something. */
	CHECK(a[0].wr_id == 500 && a[0].opcode == IBV_WC_RECV &&
	      a[0].wc_flags == IBV_WC_WITH_IMM &&
	      a[0].imm_data == htobe32(0x01020304) && a[0].byte_len == 33);
	CHECK(a[1].wr_id == 600 && a[1].opcode == IBV_WC_RDMA_READ &&
	      a[1].byte_len == 4096 && a[1].qp_num == QPN);
	CHECK(a[2].wr_id == 501 &&
	      a[2].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	      a[2].wc_flags == (IBV_WC_WITH_IMM | IBV_WC_GRH) &&
	      a[2].src_qp == 7 && a[2].sl == ERI_WC_SL_IPV6);
	CHECK(a[3].wr_id == 601 && a[3].status == IBV_WC_REM_ACCESS_ERR &&
	      a[3].vendor_err == ERI_CQE_STS_REM_ACCESS_ERR);

	/* Only stale CQEs: ENOENT, and they are given back at once. */
	dev_cqe(QPN + 77, false, ERI_CQE_OP_RECV, 0, 0, 0, 1, 0, 0);
	CHECK(cqx->start_poll(cqx, &pattr) == ENOENT);
	CHECK(le32toh(cq->dbrec->ci) == dev_cq_pi);
}

static void test_ex(void)
{
	qpx = &qp->vqp.qp_ex;
	/* test_recv took the QP out of the table and reset it. */
	eri_qp_reset(qp);
	CHECK(eri_qp_table_insert(ctx, qp) == 0);
	/* A QP of ibv_create_qp has no ibv_qp_ex. */
	CHECK(!ibv_qp_to_qp_ex(&qp->vqp.qp));

	test_qp_ex_wqes();
	test_qp_ex_batches();
	test_cq_ex();
}

int main(void)
{
	setup();
	test_layout();
	test_send();
	test_ud();
	test_recv();
	test_cq_deep();
	test_arm();
	test_srq();
	test_ex();
	if (failures) {
		fprintf(stderr, "eri_datapath_test: %d failures\n", failures);
		return 1;
	}
	printf("eri_datapath_test: ok\n");
	return 0;
}
