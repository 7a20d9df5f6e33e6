// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_failnth_test: object creation under injected allocation failures.
 *
 * For each verb that creates a device object (PD, CQ, QP, MR) and for the
 * QP's transitions to INIT, RTR and RTS, fail the n-th slab allocation the
 * calling task makes inside it (the kernel's fault injection,
 * /proc/thread-self/fail-nth, with failslab enabled) for n = 1, 2, ...
 * until ten n in a row inject no failure (past the verb's last allocation).
 * Every injected failure must end in a clean error (NULL or non-zero with
 * errno set), the verb must not fail without one, and the objects that did
 * get created must be destroyable, so that a kmemleak scan after the test
 * (vm-run does one on the debug kernel) finds nothing.
 *
 * Usage: eri_failnth_test DEVICE.  TAP-style output; exit 0 when all pass,
 * 77 when the kernel has no fail-nth.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

static int passed, failed;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define CHECK(cond, ...)						\
	do {								\
		if (cond) {						\
			passed++;					\
			printf("ok - ");				\
		} else {						\
			failed++;					\
			printf("not ok - ");				\
		}							\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	} while (0)

static int failnth_fd = -1;

/* Arm: the n-th slab allocation of this task from now on fails. */
static void failnth_arm(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	if (pwrite(failnth_fd, buf, len, 0) != len) {
		perror("fail-nth");
		exit(1);
	}
}

/* Disarm; return whether a failure was injected since failnth_arm(). */
static int failnth_disarm(void)
{
	char buf[16] = "";
	int injected;

	if (pread(failnth_fd, buf, sizeof(buf) - 1, 0) < 0) {
		perror("fail-nth");
		exit(1);
	}
	/* Reading 0 means the counter ran out: the failure happened. */
	injected = atoi(buf) == 0;
	if (pwrite(failnth_fd, "0", 1, 0) != 1) {
		perror("fail-nth");
		exit(1);
	}
	return injected;
}

struct ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	void *buf;
};

enum step { STEP_PD, STEP_CQ, STEP_QP, STEP_MR, STEP_QP_RTS, STEP_NUM };
static const char *const step_name[STEP_NUM] = {
	"alloc_pd", "create_cq", "create_qp", "reg_mr", "modify_qp to RTS",
};
/*
 * Verbs for which ERI allocates nothing in the caller's context: alloc_pd
 * (a number from an IDA that has room) and modify_qp (an admin command
 * built on the stack; the device's side runs in its own work).  No failure
 * to inject there; still, they run and must not fail.
 */
static const int step_may_not_allocate[STEP_NUM] = {
	[STEP_PD] = 1, [STEP_QP_RTS] = 1,
};

static struct ibv_qp *create_qp(struct ctx *c)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(c->pd, &ia);
}

/*
 * INIT, RTR, RTS against itself (loopback addressing is not exercised).
 * On failure *stage names the transition that failed.
 */
static int to_rts(struct ibv_qp *qp, const union ibv_gid *gid, int gid_index,
		  const char **stage)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	*stage = "INIT";
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.rq_psn = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	*stage = "RTR";
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	*stage = "RTS";
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * Port 1's RoCE v2 GID of the device's IPv4 address (IPv4-mapped), not the
 * first GID: that is the netdev's IPv6 link-local address, and often RoCE v1.
 */
static int find_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	static const __u8 v4_mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	int i;

	if (ibv_query_port(ctx, 1, &pa))
		return -1;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e.gid.raw, v4_mapped, sizeof(v4_mapped))) {
			*gid = e.gid;
			return i;
		}
	}
	return -1;
}

/*
 * One attempt at @step with the n-th allocation failing.  Return 1 when the
 * verb succeeded, 0 when it failed cleanly, -1 on an unclean failure.
 * *injected tells whether a failure was injected.
 */
static int attempt(struct ctx *c, enum step step, int n, int *injected,
		   const union ibv_gid *gid, int gid_index)
{
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_mr *mr = NULL;
	const char *stage = "";
	int ok = 0, ret;

	*injected = 0;
	if (step == STEP_QP_RTS) {
		qp = create_qp(c);
		if (!qp)
			return -1;
	}
	errno = 0;
	failnth_arm(n);
	switch (step) {
	case STEP_PD:
		pd = ibv_alloc_pd(c->ctx);
		ok = !!pd;
		break;
	case STEP_CQ:
		cq = ibv_create_cq(c->ctx, 256, NULL, NULL, 0);
		ok = !!cq;
		break;
	case STEP_QP:
		qp = create_qp(c);
		ok = !!qp;
		break;
	case STEP_MR:
		mr = ibv_reg_mr(c->pd, c->buf, 1 << 20, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE);
		ok = !!mr;
		break;
	case STEP_QP_RTS:
		ok = !to_rts(qp, gid, gid_index, &stage);
		break;
	default:
		break;
	}
	*injected = failnth_disarm();
	ret = ok ? 1 : (errno ? 0 : -1);
	if (!ok && !*injected)
		printf("# %s%s%s failed without an injected failure: %s\n",
		       step_name[step], *stage ? ", " : "", stage,
		       strerror(errno));

	/* Whatever exists must go away cleanly. */
	if (pd && ibv_dealloc_pd(pd))
		ret = -1;
	if (cq && ibv_destroy_cq(cq))
		ret = -1;
	if (mr && ibv_dereg_mr(mr))
		ret = -1;
	if (qp && ibv_destroy_qp(qp))
		ret = -1;
	return ret;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ctx c = { 0 };
	union ibv_gid gid;
	int gid_index;
	int i, n;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	failnth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (failnth_fd < 0) {
		printf("# skip: no /proc/thread-self/fail-nth (%s)\n", strerror(errno));
		return 77;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			c.ctx = ibv_open_device(list[i]);
	CHECK(c.ctx, "open %s", argv[1]);
	if (!c.ctx)
		return 1;
	c.pd = ibv_alloc_pd(c.ctx);
	c.cq = ibv_create_cq(c.ctx, 256, NULL, NULL, 0);
	c.buf = calloc(1, 1 << 20);
	gid_index = find_gid(c.ctx, &gid);
	CHECK(c.pd && c.cq && c.buf && gid_index >= 0, "PD, CQ, buffer and GID");
	if (!c.pd || !c.cq || !c.buf || gid_index < 0)
		return 1;

	for (i = 0; i < STEP_NUM; i++) {
		int injected, ret, clean = 1, nfail = 0, spurious = 0;
		int in_a_row = 0;
		double t0 = now();

		for (n = 1; in_a_row < 10 && n < 1000; n++) {
			ret = attempt(&c, i, n, &injected, &gid, gid_index);
			if (ret < 0) {
				clean = 0;
				printf("# %s: unclean result with allocation %d failing\n",
				       step_name[i], n);
			}
			if (injected)
				nfail++;
			else if (ret != 1)
				spurious++;
			/* Past the last allocation: no failure happens. */
			in_a_row = injected ? 0 : in_a_row + 1;
		}
		printf("# %s: n = 1..%d, %.1f s\n", step_name[i], n - 1, now() - t0);
		if (step_may_not_allocate[i] && !nfail)
			CHECK(1, "%s: no ERI allocation to fail # SKIP", step_name[i]);
		else
			CHECK(nfail > 0, "%s: %d injected allocation failures",
			      step_name[i], nfail);
		CHECK(clean, "%s: every injected failure ended in a clean error or success",
		      step_name[i]);
		CHECK(!spurious && in_a_row >= 10,
		      "%s: never failed without an injected failure (%d did)",
		      step_name[i], spurious);
	}

	CHECK(!ibv_destroy_cq(c.cq), "destroy CQ");
	CHECK(!ibv_dealloc_pd(c.pd), "dealloc PD");
	CHECK(!ibv_close_device(c.ctx), "close device");
	ibv_free_device_list(list);
	free(c.buf);
	printf("# %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
