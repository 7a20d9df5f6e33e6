// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_srq_test: shared receive queues end to end, in one process.
 *
 * Usage: eri_srq_test DEV0 GID0 DEV1 GID1
 *
 * Opens DEV0 and DEV1 (in the default "shared" rdma netns mode a process
 * sees the devices of every network namespace) and connects NQP RC QPs of
 * DEV0 to NQP RC QPs of DEV1 that all receive from one SRQ.  Checks, each
 * printing "ok - ..." or "not ok - ..." (TAP style):
 *
 *   a  ibv_query_srq after create: max_wr, limit 0;
 *   b  sends from every QP, round robin: every wr_id completes once, from
 *      the right QP, with its message byte for byte, in order per QP;
 *   c  the limit: armed at 8 with 16 posted, it fires once when fewer than
 *      8 are left (IBV_EVENT_SRQ_LIMIT_REACHED), query says 0 afterwards,
 *      no second event; armed above what is left, it fires at once;
 *   d  resizing (IBV_SRQ_MAX_WR) and a limit above max_wr are refused;
 *   e  ibv_destroy_srq with QPs attached fails (EBUSY);
 *   f  a QP of the SRQ moved to ERR raises IBV_EVENT_QP_LAST_WQE_REACHED,
 *      and the other QPs go on receiving;
 *   g  once the QPs are gone the SRQ is destroyed;
 *   h  a UD QP on a new SRQ: each datagram takes one WQE (GRH, payload,
 *      every wr_id once), a datagram finding the SRQ empty is dropped.
 *
 * Every wait has a timeout, so the test never hangs.  The last line is
 * "# N passed, N failed"; the exit status is 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "tap.h"
#include "verbs_util.h"

#define NQP		4
#define MSG		256
#define NBUF		64
#define SRQ_WR		64

struct dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int gid_index;
	union ibv_gid gid;
	struct ibv_cq *cq;
	uint8_t *buf;
	struct ibv_mr *mr;
};

static struct dev devs[2];
static struct ibv_qp *qp0[NQP], *qp1[NQP];
static struct ibv_srq *srq;

static bool open_dev(struct dev *d, const char *name, int gid_index)
{
	d->name = name;
	d->gid_index = gid_index;
	d->ctx = open_device_by_name(name);
	report(d->ctx, "open %s", name);
	if (!d->ctx)
		return false;
	if (ibv_query_gid(d->ctx, 1, gid_index, &d->gid))
		return false;
	/* Async events are waited for with poll(). */
	fcntl(d->ctx->async_fd, F_SETFL,
	      fcntl(d->ctx->async_fd, F_GETFL) | O_NONBLOCK);
	d->pd = ibv_alloc_pd(d->ctx);
	d->cq = ibv_create_cq(d->ctx, 1024, NULL, NULL, 0);
	if (posix_memalign((void **)&d->buf, 4096, NBUF * MSG))
		d->buf = NULL;
	if (!d->pd || !d->cq || !d->buf)
		return false;
	memset(d->buf, 0, NBUF * MSG);
	d->mr = ibv_reg_mr(d->pd, d->buf, NBUF * MSG, IBV_ACCESS_LOCAL_WRITE);
	return d->mr;
}

static struct ibv_qp *make_qp(struct dev *d, struct ibv_srq *s)
{
	struct ibv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = d->cq;
	ia.recv_cq = d->cq;
	ia.srq = s;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = s ? 0 : 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = s ? 0 : 1;
	return ibv_create_qp(d->pd, &ia);
}

/* RESET -> INIT -> RTR -> RTS, connected to @peer of device @pd. */
static int connect_qp(struct ibv_qp *q, struct dev *d, struct ibv_qp *peer,
		      struct dev *pd)
{
	struct rc_path p;

	rc_path_init(&p, d->gid_index, &pd->gid, peer->qp_num);
	p.access = IBV_ACCESS_LOCAL_WRITE;
	return rc_connect(q, &p, NULL);
}

/* Post @n receives to the SRQ: wr_id base + i, buffer (base + i) % NBUF. */
static int post_srq(uint64_t base, int n)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	int i, err;

	for (i = 0; i < n; i++) {
		sge.addr = (uintptr_t)devs[1].buf + ((base + i) % NBUF) * MSG;
		sge.length = MSG;
		sge.lkey = devs[1].mr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = base + i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		err = ibv_post_srq_recv(srq, &wr, &bad);
		if (err)
			return err;
	}
	return 0;
}

/* Send message (@q, @seq) from QP @q of DEV0: MSG bytes of a pattern. */
static int send_msg(int q, uint32_t seq)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	uint8_t *p = devs[0].buf + (seq % NBUF) * MSG;
	int i;

	for (i = 0; i < MSG; i++)
		p[i] = (uint8_t)(q * 31 + seq * 7 + i);
	sge.addr = (uintptr_t)p;
	sge.length = MSG;
	sge.lkey = devs[0].mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = seq;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htonl(q << 16 | seq);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	return ibv_post_send(qp0[q], &wr, &bad);
}

/* Poll @n completions of @d's CQ into @wc within a few seconds. */
static int poll_n(struct dev *d, struct ibv_wc *wc, int n)
{
	int64_t end = now_ms() + 10000;
	int got = 0, r;

	while (got < n && now_ms() < end) {
		r = ibv_poll_cq(d->cq, n - got, wc + got);
		if (r < 0)
			return -1;
		got += r;
	}
	return got;
}

/* Wait up to @ms for an async event of @d; 0 and the event, or -1. */
static int wait_event(struct dev *d, struct ibv_async_event *ev, int ms)
{
	struct pollfd pfd = { .fd = d->ctx->async_fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	if (ibv_get_async_event(d->ctx, ev))
		return -1;
	ibv_ack_async_event(ev);
	return 0;
}

/* Send @n messages round robin over @qmask, from @seq on; check them. */
static bool traffic(uint32_t seq, int n, unsigned int qmask, uint64_t base,
		    const char *what)
{
	struct ibv_wc wc[NBUF], swc[NBUF];
	uint32_t last[NQP];
	bool seen[NBUF] = { false }, ok = true;
	int i, q, got, sgot;

	for (q = 0; q < NQP; q++)
		last[q] = UINT32_MAX;
	for (i = 0, q = 0; i < n; q = (q + 1) % NQP) {
		if (!(qmask & (1U << q)))
			continue;
		if (send_msg(q, seq + i))
			return false;
		i++;
	}
	sgot = poll_n(&devs[0], swc, n);
	got = poll_n(&devs[1], wc, n);
	for (i = 0; i < sgot; i++)
		ok &= swc[i].status == IBV_WC_SUCCESS;
	report(sgot == n && ok, "%s: %d sends complete", what, n);
	ok = got == n;
	for (i = 0; i < got && ok; i++) {
		uint32_t imm = ntohl(wc[i].imm_data), s = imm & 0xffff;
		uint8_t *p;
		int j;

		q = imm >> 16;
		if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != IBV_WC_RECV ||
		    wc[i].byte_len != MSG || q >= NQP ||
		    wc[i].qp_num != qp1[q]->qp_num ||
		    wc[i].wr_id < base || wc[i].wr_id >= base + n ||
		    seen[wc[i].wr_id - base]) {
			printf("# wc %d: status %d opcode %d len %u qp %u wr_id %llu\n",
			       i, wc[i].status, wc[i].opcode, wc[i].byte_len,
			       wc[i].qp_num, (unsigned long long)wc[i].wr_id);
			ok = false;
			break;
		}
		seen[wc[i].wr_id - base] = true;
		/* Per QP, messages complete in order. */
		if (last[q] != UINT32_MAX && s <= last[q])
			ok = false;
		last[q] = s;
		p = devs[1].buf + (wc[i].wr_id % NBUF) * MSG;
		for (j = 0; j < MSG; j++)
			if (p[j] != (uint8_t)(q * 31 + s * 7 + j))
				ok = false;
	}
	report(ok, "%s: %d receives from the SRQ, every wr_id once, data and per-QP order right (got %d)",
	       what, n, got);
	return ok;
}

/* INIT -> RTR -> RTS for a UD QP. */
static int ud_up(struct ibv_qp *q)
{
	struct ibv_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x11111111;
	err = ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	if (err)
		return err;
	a.qp_state = IBV_QPS_RTR;
	err = ibv_modify_qp(q, &a, IBV_QP_STATE);
	if (err)
		return err;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* h: UD QPs, DEV0 -> DEV1, the receiver on an SRQ. */
static void test_ud(void)
{
	struct ibv_qp_init_attr ia;
	struct ibv_srq_init_attr sia;
	struct ibv_ah_attr aa;
	struct ibv_wc wc[8];
	struct ibv_qp *us = NULL, *ur = NULL;
	struct ibv_srq *usrq;
	struct ibv_ah *ah = NULL;
	bool seen[4] = { false }, ok;
	int i, got;

	memset(&sia, 0, sizeof(sia));
	sia.attr.max_wr = 16;
	sia.attr.max_sge = 1;
	usrq = ibv_create_srq(devs[1].pd, &sia);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = devs[0].cq;
	ia.recv_cq = devs[0].cq;
	ia.qp_type = IBV_QPT_UD;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	us = ibv_create_qp(devs[0].pd, &ia);
	ia.send_cq = devs[1].cq;
	ia.recv_cq = devs[1].cq;
	ia.srq = usrq;
	ia.cap.max_recv_wr = 0;
	ia.cap.max_recv_sge = 0;
	ur = usrq ? ibv_create_qp(devs[1].pd, &ia) : NULL;
	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	aa.grh.dgid = devs[1].gid;
	aa.grh.sgid_index = devs[0].gid_index;
	aa.grh.hop_limit = 64;
	aa.port_num = 1;
	ah = ibv_create_ah(devs[0].pd, &aa);
	ok = usrq && us && ur && ah && !ud_up(us) && !ud_up(ur);
	report(ok, "UD: a QP on an SRQ, a sender, an AH");
	if (!ok)
		goto out;
	srq = usrq;
	ok = !post_srq(200, 4);
	for (i = 0; i < 5 && ok; i++) {
		struct ibv_send_wr wr, *bad;
		struct ibv_sge sge;
		uint8_t *p = devs[0].buf + i * MSG;
		int j;

		for (j = 0; j < 100; j++)
			p[j] = (uint8_t)(i * 13 + j);
		sge.addr = (uintptr_t)p;
		sge.length = 100;
		sge.lkey = devs[0].mr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = htonl(i);
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = ur->qp_num;
		wr.wr.ud.remote_qkey = 0x11111111;
		ok = !ibv_post_send(us, &wr, &bad) && poll_n(&devs[0], wc, 1) == 1 &&
		     wc[0].status == IBV_WC_SUCCESS;
		/* One at a time: the fifth must find the SRQ empty. */
		if (i < 4) {
			uint32_t k;

			got = poll_n(&devs[1], wc, 1);
			k = got == 1 ? ntohl(wc[0].imm_data) : 99;
			ok = ok && got == 1 && wc[0].status == IBV_WC_SUCCESS &&
			     (wc[0].wc_flags & IBV_WC_GRH) &&
			     wc[0].byte_len == 140 && wc[0].qp_num == ur->qp_num &&
			     wc[0].wr_id >= 200 && wc[0].wr_id < 204 &&
			     !seen[wc[0].wr_id - 200] && k == (uint32_t)i;
			if (ok) {
				seen[wc[0].wr_id - 200] = true;
				p = devs[1].buf + (wc[0].wr_id % NBUF) * MSG + 40;
				for (j = 0; j < 100; j++)
					ok &= p[j] == (uint8_t)(i * 13 + j);
			}
		}
	}
	report(ok, "UD: 4 datagrams into the SRQ, GRH and data right, each wr_id once");
	got = ibv_poll_cq(devs[1].cq, 1, wc);
	usleep(300000);
	got += ibv_poll_cq(devs[1].cq, 1, wc);
	report(got == 0, "UD: a datagram finding the SRQ empty is dropped");
out:
	if (ah)
		ibv_destroy_ah(ah);
	if (ur)
		ibv_destroy_qp(ur);
	if (us)
		ibv_destroy_qp(us);
	srq = NULL;
	if (usrq)
		report(!ibv_destroy_srq(usrq), "UD: destroy the SRQ");
}

int main(int argc, char **argv)
{
	struct ibv_srq_init_attr sia;
	struct ibv_srq_attr sa;
	struct ibv_async_event ev;
	struct ibv_wc wc[NBUF];
	int i, err, got;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV0 GID0 DEV1 GID1\n", argv[0]);
		return 2;
	}
	if (!open_dev(&devs[0], argv[1], atoi(argv[2])) ||
	    !open_dev(&devs[1], argv[3], atoi(argv[4]))) {
		report(false, "set up both devices");
		goto out;
	}

	/* a */
	memset(&sia, 0, sizeof(sia));
	sia.attr.max_wr = SRQ_WR;
	sia.attr.max_sge = 1;
	srq = ibv_create_srq(devs[1].pd, &sia);
	report(srq, "ibv_create_srq max_wr %d (%s)", SRQ_WR,
	       srq ? "ok" : strerror(errno));
	if (!srq)
		goto out;
	memset(&sa, 0xff, sizeof(sa));
	err = ibv_query_srq(srq, &sa);
	report(!err && sa.max_wr >= SRQ_WR && sa.srq_limit == 0,
	       "ibv_query_srq: max_wr %u >= %d, limit %u == 0",
	       sa.max_wr, SRQ_WR, sa.srq_limit);
	for (i = 0; i < NQP; i++) {
		qp0[i] = make_qp(&devs[0], NULL);
		qp1[i] = make_qp(&devs[1], srq);
		if (!qp0[i] || !qp1[i] ||
		    connect_qp(qp0[i], &devs[0], qp1[i], &devs[1]) ||
		    connect_qp(qp1[i], &devs[1], qp0[i], &devs[0])) {
			report(false, "connect QP pair %d", i);
			goto out;
		}
	}
	report(true, "%d RC QPs on one SRQ, connected", NQP);
	{
		struct ibv_recv_wr wr = {}, *bad;

		report(ibv_post_recv(qp1[0], &wr, &bad) != 0,
		       "ibv_post_recv on an SRQ QP is refused");
	}

	/* b */
	report(!post_srq(0, 48), "post 48 receives to the SRQ");
	traffic(0, 48, 0xf, 0, "four QPs");

	/* c: 16 posted, limit 8: fires when 7 are left, after the 9th. */
	report(!post_srq(100, 16), "post 16 receives");
	memset(&sa, 0, sizeof(sa));
	sa.srq_limit = 8;
	report(!ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), "arm the limit at 8");
	report(wait_event(&devs[1], &ev, 300) != 0,
	       "no limit event with 16 left");
	traffic(1000, 8, 0xf, 100, "8 of 16");
	report(wait_event(&devs[1], &ev, 500) != 0,
	       "no limit event with 8 left");
	traffic(2000, 1, 0x1, 108, "the 9th");
	err = wait_event(&devs[1], &ev, 5000);
	report(!err && ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
	       ev.element.srq == srq,
	       "IBV_EVENT_SRQ_LIMIT_REACHED once fewer than 8 are left");
	memset(&sa, 0xff, sizeof(sa));
	err = ibv_query_srq(srq, &sa);
	report(!err && sa.srq_limit == 0,
	       "the limit disarmed itself (query: %u)", sa.srq_limit);
	traffic(3000, 1, 0x2, 109, "the 10th");
	report(wait_event(&devs[1], &ev, 500) != 0, "no second limit event");
	memset(&sa, 0, sizeof(sa));
	sa.srq_limit = 10;
	report(!ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT),
	       "arm the limit at 10 with 6 left");
	err = wait_event(&devs[1], &ev, 5000);
	report(!err && ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED,
	       "it fires at once");

	/* d */
	memset(&sa, 0, sizeof(sa));
	sa.max_wr = 2 * SRQ_WR;
	report(ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR) != 0,
	       "resizing the SRQ is refused");
	memset(&sa, 0, sizeof(sa));
	sa.srq_limit = 100000;
	report(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT) != 0,
	       "a limit above max_wr is refused");

	/* e */
	err = ibv_destroy_srq(srq);
	report(err == EBUSY, "ibv_destroy_srq with QPs attached: EBUSY (%d)",
	       err);

	/* f: QP 0 to ERR; the 6 left go to the others. */
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

		report(!ibv_modify_qp(qp1[0], &a, IBV_QP_STATE),
		       "move an SRQ QP to ERR");
		err = wait_event(&devs[1], &ev, 5000);
		report(!err && ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED &&
		       ev.element.qp == qp1[0],
		       "IBV_EVENT_QP_LAST_WQE_REACHED for it");
		got = poll_n(&devs[1], wc, 1);
		report(got == 0, "it had taken nothing: no flush completion");
		traffic(4000, 6, 0xe, 110, "the other QPs");
	}

	/* g */
	for (i = 0; i < NQP; i++) {
		ibv_destroy_qp(qp1[i]);
		qp1[i] = NULL;
	}
	err = ibv_destroy_srq(srq);
	report(!err, "ibv_destroy_srq once its QPs are gone (%d)", err);
	srq = NULL;

	/* h */
	test_ud();
out:
	for (i = 0; i < NQP; i++) {
		if (qp1[i])
			ibv_destroy_qp(qp1[i]);
		if (qp0[i])
			ibv_destroy_qp(qp0[i]);
	}
	if (srq)
		ibv_destroy_srq(srq);
	printf("# %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
