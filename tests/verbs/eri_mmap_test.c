// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_mmap_test: what a process maps of the uverbs file stays as the kernel
 * gave it.
 *
 * Usage: eri_mmap_test DEV
 *
 * With a context, a CQ and an RC QP open it reads its own /proc/self/maps
 * and finds the mappings of the uverbs file:
 *   a  at least one is read-only: the context's status page, whose state
 *      word says the device is live (1);
 *   b  no read-only one can be made writable with mprotect() (the kernel
 *      clears VM_MAYWRITE), nor mapped again for writing at its offset;
 *   c  a forked child cannot make them writable either (it does not even
 *      inherit them: ERI's mappings are VM_DONTCOPY).
 *
 * Each check prints "ok - ..." or "not ok - ..."; the last line is "# N
 * passed, N failed", and the exit status is 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "verbs_util.h"

#define MAX_MAPS	64

struct map {
	void *addr;
	size_t len;
	off_t off;
	bool writable;
};

/* The mappings of the uverbs file; Return: how many, or -1. */
static int uverbs_maps(struct map *maps, int max)
{
	unsigned long start, end, off;
	char line[512], perms[8];
	int n = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms,
			   &off) != 4)
			continue;
		maps[n].addr = (void *)start;
		maps[n].len = end - start;
		maps[n].off = off;
		maps[n].writable = perms[1] == 'w';
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Try to make every read-only mapping writable, both ways.  Return: how
 * many attempts succeeded (0 is right).
 */
static int make_writable(const struct map *maps, int n, int cmd_fd)
{
	int i, wrong = 0;
	void *p;

	for (i = 0; i < n; i++) {
		if (maps[i].writable)
			continue;
		if (!mprotect(maps[i].addr, maps[i].len,
			      PROT_READ | PROT_WRITE)) {
			wrong++;
			mprotect(maps[i].addr, maps[i].len, PROT_READ);
		}
		p = mmap(NULL, maps[i].len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 cmd_fd, maps[i].off);
		if (p != MAP_FAILED) {
			wrong++;
			munmap(p, maps[i].len);
		}
	}
	return wrong;
}

int main(int argc, char **argv)
{
	struct map maps[MAX_MAPS];
	struct ibv_qp_init_attr qpa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_context *ctx;
	int i, n, ro = 0, live = 0, wrong, status;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEV\n", argv[0]);
		return 2;
	}
	ctx = open_device_by_name(argv[1]);
	if (!ctx)
		return 1;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!pd || !cq) {
		fprintf(stderr, "cannot create a PD and a CQ\n");
		return 1;
	}
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	qp = ibv_create_qp(pd, &qpa);
	if (!qp) {
		fprintf(stderr, "cannot create a QP: %s\n", strerror(errno));
		return 1;
	}

	n = uverbs_maps(maps, MAX_MAPS);
	for (i = 0; i < n; i++) {
		if (maps[i].writable)
			continue;
		ro++;
		if (*(volatile uint32_t *)maps[i].addr == 1)
			live++;
	}
	printf("# %d mappings of the uverbs file, %d read-only\n", n, ro);
	report(ro > 0 && live > 0,
	       "a read-only mapping says the device is live (%d of %d)",
	       live, ro);

	wrong = make_writable(maps, n, ctx->cmd_fd);
	report(!wrong, "no read-only mapping can be made writable (%d could)",
	       wrong);

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(make_writable(maps, n, ctx->cmd_fd) ? 1 : 0);
	report(pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "nor in a forked child");

	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);

	printf("# %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
