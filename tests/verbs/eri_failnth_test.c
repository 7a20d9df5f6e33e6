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
 * With --link, the same for device creation instead: RDMA netlink's NEWLINK
 * of DEVICE (type eri) on NETDEV, which must fail cleanly and leave no
 * device behind, or succeed and then go away with DELLINK; one process
 * loops over n (an exec of ip and rdma per n costs seconds on the debug
 * kernel under TCG).  Run it in NETDEV's network namespace.
 *
 * Usage: eri_failnth_test DEVICE
 *        eri_failnth_test --link DEVICE NETDEV
 * TAP-style output; exit 0 when all pass, 77 when the kernel has no
 * fail-nth.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <infiniband/verbs.h>

#include "tap.h"
#include "verbs_util.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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
	struct rc_path p;

	rc_path_init(&p, gid_index, gid, qp->qp_num);
	p.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	p.rq_psn = 1;
	p.sq_psn = 1;
	p.min_rnr_timer = 12;
	return rc_connect(qp, &p, stage);
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

/* RDMA netlink (NLDEV): one request, its answers to cb, its status. */
static int nl_fd = -1;
static unsigned int nl_seq;

struct nl_req {
	struct nlmsghdr h;
	char attrs[256];
};

static void nl_put(struct nl_req *r, int type, const void *data, size_t len)
{
	struct nlattr *a = (void *)((char *)&r->h + NLMSG_ALIGN(r->h.nlmsg_len));

	if (NLMSG_ALIGN(r->h.nlmsg_len) + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(*r)) {
		fprintf(stderr, "netlink request too long\n");
		exit(1);
	}
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void nl_init(struct nl_req *r, int cmd, int flags)
{
	memset(r, 0, sizeof(*r));
	r->h.nlmsg_len = NLMSG_HDRLEN;
	r->h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	r->h.nlmsg_flags = NLM_F_REQUEST | flags;
	r->h.nlmsg_seq = ++nl_seq;
}

/* Send @r; hand every answer but the status to @cb; return -errno or 0. */
static int nl_talk(struct nl_req *r, void (*cb)(struct nlmsghdr *, void *),
		   void *arg)
{
	static char buf[32768];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(nl_fd, r, r->h.nlmsg_len, 0, (void *)&sa, sizeof(sa)) < 0)
		return -errno;
	for (;;) {
		ssize_t len = recv(nl_fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (void *)buf;

		if (len < 0)
			return -errno;
		for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != nl_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (cb)
				cb(h, arg);
		}
	}
}

struct dev_index {
	const char *name;
	int index;
};

static void dev_index_cb(struct nlmsghdr *h, void *arg)
{
	struct dev_index *d = arg;
	struct nlattr *a = NLMSG_DATA(h);
	int left = h->nlmsg_len - NLMSG_HDRLEN;
	const char *name = NULL;
	int index = -1;

	for (; left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= left;
	     left -= NLA_ALIGN(a->nla_len),
	     a = (void *)((char *)a + NLA_ALIGN(a->nla_len))) {
		void *data = (char *)a + NLA_HDRLEN;

		if ((a->nla_type & NLA_TYPE_MASK) == RDMA_NLDEV_ATTR_DEV_INDEX)
			index = *(__u32 *)data;
		if ((a->nla_type & NLA_TYPE_MASK) == RDMA_NLDEV_ATTR_DEV_NAME)
			name = data;
	}
	if (name && !strcmp(name, d->name))
		d->index = index;
}

static int link_add(const char *name, const char *netdev)
{
	struct nl_req r;

	nl_init(&r, RDMA_NLDEV_CMD_NEWLINK, NLM_F_ACK);
	nl_put(&r, RDMA_NLDEV_ATTR_DEV_NAME, name, strlen(name) + 1);
	nl_put(&r, RDMA_NLDEV_ATTR_LINK_TYPE, "eri", 4);
	nl_put(&r, RDMA_NLDEV_ATTR_NDEV_NAME, netdev, strlen(netdev) + 1);
	return nl_talk(&r, NULL, NULL);
}

static int link_delete(const char *name)
{
	struct dev_index d = { .name = name, .index = -1 };
	struct nl_req r;
	__u32 index;
	int ret;

	nl_init(&r, RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
	ret = nl_talk(&r, dev_index_cb, &d);
	if (ret)
		return ret;
	if (d.index < 0)
		return -ENODEV;
	index = d.index;
	nl_init(&r, RDMA_NLDEV_CMD_DELLINK, NLM_F_ACK);
	nl_put(&r, RDMA_NLDEV_ATTR_DEV_INDEX, &index, sizeof(index));
	return nl_talk(&r, NULL, NULL);
}

/* Does an ERI device (auxiliary or IB) exist? */
static int eri_left(void)
{
	static const char *const dirs[] = {
		"/sys/bus/auxiliary/devices", "/sys/class/infiniband",
	};
	struct dirent *e;
	unsigned int i;
	int found = 0;

	for (i = 0; i < 2 && !found; i++) {
		DIR *d = opendir(dirs[i]);

		while (d && !found && (e = readdir(d)))
			found = !strncmp(e->d_name, i ? "eri" : "eri_sim.", i ? 3 : 8);
		if (d)
			closedir(d);
	}
	return found;
}

/* Wait up to 5 s for ERI's devices to go (removal may be deferred). */
static int eri_gone(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!eri_left())
			return 1;
		usleep(50000);
	}
	return 0;
}

static int link_main(const char *name, const char *netdev)
{
	int n, ret, injected, nfail = 0, tolerated = 0, spurious = 0;
	int leftovers = 0, in_a_row = 0;
	static char seen[4096];
	double t0 = now();

	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (nl_fd < 0) {
		perror("NETLINK_RDMA socket");
		return 1;
	}
	report(!eri_left(), "no ERI device before");
	/* Past the last allocation twice in a row: done. */
	for (n = 1; in_a_row < 2 && n < 1000; n++) {
		failnth_arm(n);
		ret = link_add(name, netdev);
		injected = failnth_disarm();
		if (!ret && link_delete(name)) {
			printf("# allocation %d: cannot delete %s\n", n, name);
			leftovers++;
		}
		/*
		 * Not always ENOMEM: a failed probe ends in ENODEV (the driver
		 * core does not pass the probe's error on).  Say each once.
		 */
		if (ret && ret != -ENOMEM && -ret < 4096 && !seen[-ret]) {
			seen[-ret] = 1;
			printf("# allocation %d: creation failed with %s (and maybe later ones)\n",
			       n, strerror(-ret));
		}
		if (!eri_gone()) {
			printf("# allocation %d: a device was left behind\n", n);
			leftovers++;
		}
		if (injected) {
			in_a_row = 0;
			if (ret)
				nfail++;
			else
				tolerated++;
		} else {
			in_a_row++;
			if (ret)
				spurious++;
		}
		if (n % 20 == 0)
			printf("# ... allocation %d, %d failed so far, %.0f s\n",
			       n, nfail, now() - t0);
	}
	printf("# %d injected failures were absorbed (creation succeeded)\n",
	       tolerated);
	printf("# device creation failed at %d allocation points of %d (%.0f s)\n",
	       nfail, n - 1, now() - t0);
	report(nfail > 0, "some allocation failures were injected");
	report(!leftovers, "failed creations left nothing behind");
	report(!spurious, "no creation failed without an injected failure");
	report(!link_add(name, netdev), "creation works after the injected failures");
	printf("# %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ctx c = { 0 };
	union ibv_gid gid;
	int gid_index;
	int i, n;

	int link = argc == 4 && !strcmp(argv[1], "--link");

	if (argc != 2 && !link) {
		fprintf(stderr, "usage: %s DEVICE\n"
			"       %s --link DEVICE NETDEV\n", argv[0], argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	failnth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (failnth_fd < 0) {
		printf("# skip: no /proc/thread-self/fail-nth (%s)\n", strerror(errno));
		return 77;
	}
	if (link)
		return link_main(argv[2], argv[3]);
	c.ctx = open_device_by_name(argv[1]);
	report(c.ctx, "open %s", argv[1]);
	if (!c.ctx)
		return 1;
	c.pd = ibv_alloc_pd(c.ctx);
	c.cq = ibv_create_cq(c.ctx, 256, NULL, NULL, 0);
	c.buf = calloc(1, 1 << 20);
	gid_index = find_gid(c.ctx, &gid);
	report(c.pd && c.cq && c.buf && gid_index >= 0, "PD, CQ, buffer and GID");
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
			report(1, "%s: no ERI allocation to fail # SKIP", step_name[i]);
		else
			report(nfail > 0, "%s: %d injected allocation failures",
			       step_name[i], nfail);
		report(clean, "%s: every injected failure ended in a clean error or success",
		       step_name[i]);
		report(!spurious && in_a_row >= 10,
		       "%s: never failed without an injected failure (%d did)",
		       step_name[i], spurious);
	}

	report(!ibv_destroy_cq(c.cq), "destroy CQ");
	report(!ibv_dealloc_pd(c.pd), "dealloc PD");
	report(!ibv_close_device(c.ctx), "close device");
	free(c.buf);
	printf("# %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
