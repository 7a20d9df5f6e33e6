// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_memlock_test: queue memory is charged to the process that asks for
 * it, and the deepest CQ the device advertises can be created.
 *
 * Usage: eri_memlock_test DEV   (as root)
 *
 *   a  max_cqe is what applications expect (2^22); as root (CAP_IPC_LOCK)
 *      a CQ of max_cqe entries is created, with max_cqe + 1 refused;
 *   b  a child as nobody with RLIMIT_MEMLOCK 64 KiB: a CQ of 4096 entries
 *      (128 KiB) fails with ENOMEM; CQs of one page are created until one
 *      fails with ENOMEM, at most 16 of them, and VmPin never exceeds the
 *      limit; destroyed, VmPin is 0 again;
 *   c  the same child: a QP with 64 WRs per queue is created, one with
 *      4096 send WRs (512 KiB of ring) fails with ENOMEM.
 *
 * Each check prints "ok - ..." or "not ok - ..."; the last line is "# N
 * passed, N failed", and the exit status is 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "verbs_util.h"

#define LIMIT		(64 * 1024)
#define NOBODY		65534
#define MAX_SMALL	64

/* VmPin of this process in bytes, or -1. */
static long vm_pin(void)
{
	char line[256];
	long kb = -1;
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

static void as_root(const char *dev)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct ibv_cq *cq;
	bool ok;

	ctx = open_device_by_name(dev);
	report(ctx, "open %s", dev);
	if (!ctx)
		return;
	memset(&attr, 0, sizeof(attr));
	ok = !ibv_query_device(ctx, &attr);
	report(ok && attr.max_cqe == 1 << 22, "max_cqe %d", attr.max_cqe);
	cq = ibv_create_cq(ctx, attr.max_cqe, NULL, NULL, 0);
	report(cq, "a CQ of max_cqe entries, as root%s%s",
	       cq ? "" : ": ", cq ? "" : strerror(errno));
	if (cq) {
		int cqe = cq->cqe;

		report(cqe >= attr.max_cqe && !ibv_destroy_cq(cq),
		       "it holds %d entries and is destroyed", cqe);
	}
	cq = ibv_create_cq(ctx, attr.max_cqe + 1, NULL, NULL, 0);
	report(!cq, "a CQ of max_cqe + 1 entries is refused");
	if (cq)
		ibv_destroy_cq(cq);
	ibv_close_device(ctx);
}

static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			    uint32_t send_wr)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = send_wr, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &init);
}

/* The checks of b and c, in a child that dropped its privileges. */
static void limited(const char *dev)
{
	struct rlimit rl = { .rlim_cur = LIMIT, .rlim_max = LIMIT };
	struct ibv_cq *small[MAX_SMALL], *cq;
	struct ibv_context *ctx;
	long pin, max_pin = 0;
	struct ibv_pd *pd;
	struct ibv_qp *qp;
	int n, err, i;

	report(!setrlimit(RLIMIT_MEMLOCK, &rl) && !setgroups(0, NULL) &&
	       !setgid(NOBODY) && !setuid(NOBODY),
	       "child: RLIMIT_MEMLOCK %d KiB, uid %d", LIMIT / 1024, NOBODY);
	ctx = open_device_by_name(dev);
	report(ctx, "child: open %s as nobody", dev);
	if (!ctx)
		return;
	errno = 0;
	cq = ibv_create_cq(ctx, 4096, NULL, NULL, 0);
	err = errno;
	report(!cq && err == ENOMEM,
	       "a CQ of 4096 entries past the limit fails with ENOMEM (%s)",
	       cq ? "created" : strerror(err));
	if (cq)
		ibv_destroy_cq(cq);

	for (n = 0; n < MAX_SMALL; n++) {
		small[n] = ibv_create_cq(ctx, 1, NULL, NULL, 0);
		if (!small[n])
			break;
		pin = vm_pin();
		if (pin > max_pin)
			max_pin = pin;
	}
	err = errno;
	report(n > 0 && n <= LIMIT / 4096 && n < MAX_SMALL && err == ENOMEM,
	       "%d small CQs fit, the next fails with ENOMEM (%s)", n,
	       n < MAX_SMALL ? strerror(err) : "none failed");
	report(max_pin > 0 && max_pin <= LIMIT,
	       "VmPin at most %ld bytes, within the limit", max_pin);
	for (i = 0; i < n; i++)
		ibv_destroy_cq(small[i]);
	report(vm_pin() == 0, "VmPin 0 once they are destroyed (%ld)",
	       vm_pin());

	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 128, NULL, NULL, 0);
	report(pd && cq, "a PD and a CQ of 128 entries");
	if (!pd || !cq)
		goto out;
	qp = rc_qp(pd, cq, 64);
	report(qp, "an RC QP of 64 WRs per queue%s%s", qp ? "" : ": ",
	       qp ? "" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	errno = 0;
	qp = rc_qp(pd, cq, 4096);
	err = errno;
	report(!qp && err == ENOMEM,
	       "an RC QP of 4096 send WRs fails with ENOMEM (%s)",
	       qp ? "created" : strerror(err));
	if (qp)
		ibv_destroy_qp(qp);
out:
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEV\n", argv[0]);
		return 2;
	}
	as_root(argv[1]);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		limited(argv[1]);
		printf("# child: %d passed, %d failed\n", passed, failed);
		return failed ? 1 : 0;
	}
	report(pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the child's checks passed");
	printf("# %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
