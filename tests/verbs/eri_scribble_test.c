// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_scribble_test: a hostile process scribbles over everything the device
 * maps to it while it uses the device.
 *
 * Usage: eri_scribble_test DEV GID_INDEX SECONDS
 *
 * Until SECONDS pass or the device goes, in rounds: a CQ, an SRQ and two RC
 * QPs connected to each other through the device's own GID, a registered
 * buffer; receive WQEs and a valid SEND are posted; then random bytes go to random places of
 * every writable mapping of the uverbs file (send and receive rings, their
 * WQEs and producer indexes, doorbell records, the SRQ), a child is forked
 * now and then (so that forks race with the device's removal; it must
 * inherit none of the device's mappings), more SENDs ring the doorbell
 * over the garbage, and the CQ is polled; everything is destroyed and the
 * next round begins.  Nothing here checks the device's answers: the kernel
 * must survive (no oops, KASAN or lockdep report, no leak), the process
 * must end, and the device must still be removable.
 *
 * Prints "# N rounds, N scribbles, N forks, N completions (N in error)";
 * exits 0 when SECONDS passed, 3 when the device went, 1 when nothing
 * could be set up, 4 when a child inherited a mapping of the device.
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

#include "verbs_util.h"

#define MAX_MAPS	64

struct map {
	uint8_t *addr;
	size_t len;
};

static unsigned long scribbles, forks, inherited, cqes, cqe_errors;

/* The writable mappings of the uverbs file; Return: how many. */
static int writable_maps(struct map *maps, int max)
{
	unsigned long start, end;
	char line[512], perms[8];
	int n = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 ||
		    perms[1] != 'w')
			continue;
		maps[n].addr = (uint8_t *)start;
		maps[n].len = end - start;
		n++;
	}
	fclose(f);
	return n;
}

/* Random bytes at random places of every writable mapping. */
static void scribble(void)
{
	struct map maps[MAX_MAPS];
	int i, j, n = writable_maps(maps, MAX_MAPS);

	for (i = 0; i < n; i++) {
		for (j = 0; j < 16; j++) {
			size_t off = (size_t)random() % maps[i].len & ~3UL;
			uint32_t v = (uint32_t)random();

			if (j == 0)
				off = 0;	/* producer indexes, records */
			memcpy(maps[i].addr + off, &v, sizeof(v));
			scribbles++;
		}
	}
}

static void post_send(struct ibv_qp *qp, struct ibv_mr *mr, void *buf)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	ibv_post_send(qp, &wr, &bad);
}

/* Receive WQEs for QP 0's receive queue and the SRQ of QP 1. */
static void post_recvs(struct ibv_qp *qp, struct ibv_srq *srq,
		       struct ibv_mr *mr, void *buf)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + 2048, .length = 2048, .lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i;

	for (i = 0; i < 8; i++) {
		ibv_post_recv(qp, &wr, &bad);
		ibv_post_srq_recv(srq, &wr, &bad);
	}
}

static void poll_some(struct ibv_cq *cq)
{
	struct ibv_wc wc[16];
	int i, n;

	for (i = 0; i < 20; i++) {
		n = ibv_poll_cq(cq, 16, wc);
		if (n <= 0) {
			usleep(100);
			continue;
		}
		cqes += n;
		while (n--)
			if (wc[n].status != IBV_WC_SUCCESS)
				cqe_errors++;
	}
}

/*
 * One round on @ctx.  Return: 0, or -1 when the objects could not be
 * made (the device is gone, or the process is out of memory or limits).
 */
static int round_once(struct ibv_context *ctx, int gid_index, int nround)
{
	struct ibv_qp_init_attr qpa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = 64, .max_sge = 1 },
	};
	struct ibv_qp *qp[2] = { NULL, NULL };
	struct ibv_srq *srq = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_pd *pd = NULL;
	union ibv_gid gid;
	struct rc_path p;
	static char buf[4096];
	int i, ret = -1;
	pid_t pid;

	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 256, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	srq = mr ? ibv_create_srq(pd, &sa) : NULL;
	if (!srq || ibv_query_gid(ctx, 1, gid_index, &gid))
		goto out;
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	qp[0] = ibv_create_qp(pd, &qpa);
	qpa.srq = srq;
	qp[1] = qp[0] ? ibv_create_qp(pd, &qpa) : NULL;
	if (!qp[1])
		goto out;
	for (i = 0; i < 2; i++) {
		rc_path_init(&p, gid_index, &gid, qp[!i]->qp_num);
		p.access = IBV_ACCESS_REMOTE_WRITE;
		p.timeout = 8;
		p.retry_cnt = 1;
		p.rnr_retry = 1;
		if (rc_connect(qp[i], &p, NULL))
			goto out;
	}
	ret = 0;

	post_recvs(qp[0], srq, mr, buf);
	post_send(qp[0], mr, buf);
	poll_some(cq);
	for (i = 0; i < 4; i++) {
		scribble();
		if (nround % 4 == 0 && i == 0) {
			fflush(stdout);
			pid = fork();
			if (pid == 0) {
				struct map maps[MAX_MAPS];

				_exit(writable_maps(maps, MAX_MAPS) ? 1 : 0);
			}
			if (pid > 0) {
				int status;

				forks++;
				if (waitpid(pid, &status, 0) == pid &&
				    (!WIFEXITED(status) || WEXITSTATUS(status)))
					inherited++;
			}
		}
		post_send(qp[i & 1], mr, buf);
		poll_some(cq);
	}
out:
	for (i = 0; i < 2; i++)
		if (qp[i])
			ibv_destroy_qp(qp[i]);
	if (srq)
		ibv_destroy_srq(srq);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	return ret;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	int64_t end;
	int rounds = 0, gone = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: %s DEV GID_INDEX SECONDS\n", argv[0]);
		return 2;
	}
	srandom(getpid());
	ctx = open_device_by_name(argv[1]);
	if (!ctx) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	end = now_ms() + atoi(argv[3]) * 1000LL;
	while (now_ms() < end) {
		if (round_once(ctx, atoi(argv[2]), rounds)) {
			/* The first round must work; later, the device went. */
			gone = 1;
			break;
		}
		rounds++;
	}
	ibv_close_device(ctx);
	printf("# %d rounds, %lu scribbles, %lu forks, %lu completions (%lu in error)\n",
	       rounds, scribbles, forks, cqes, cqe_errors);
	if (inherited) {
		printf("# %lu children inherited a mapping of the device\n",
		       inherited);
		return 4;
	}
	if (gone)
		return rounds ? 3 : 1;
	return 0;
}
