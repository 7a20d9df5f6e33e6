// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The application's side of tests/vm/admin_fault.sh: verbs on a device
 * whose admin queue misbehaves on demand (eri_sim's debugfs knobs).
 *
 *   eri_admin_fault_test DEV destroy   PD, CQ and QP; "ready"; after a line
 *                                      on stdin the QP, CQ and PD are
 *                                      destroyed: each must succeed
 *   eri_admin_fault_test DEV create    "ready"; after a line on stdin a CQ
 *                                      is created twice: the first must fail
 *                                      with ENOMEM, the second succeed
 *   eri_admin_fault_test DEV watch SEC PD, CQ and QP; "ready"; waits up to
 *                                      SEC seconds for IBV_EVENT_DEVICE_FATAL,
 *                                      then cleans up and closes the device
 *
 * The script arms the fault between "ready" and the line it sends, so the
 * fault meets the command the mode is about.  TAP lines; exit 0 when all
 * passed.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "tap.h"
#include "verbs_util.h"

struct objs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static int setup(struct objs *o, const char *dev)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	o->ctx = open_device_by_name(dev);
	if (!o->ctx)
		return -1;
	o->pd = ibv_alloc_pd(o->ctx);
	o->cq = ibv_create_cq(o->ctx, 16, NULL, NULL, 0);
	if (!o->pd || !o->cq)
		return -1;
	qa.send_cq = o->cq;
	qa.recv_cq = o->cq;
	o->qp = ibv_create_qp(o->pd, &qa);
	return o->qp ? 0 : -1;
}

/* "ready", then wait for the script's line. */
static void handshake(void)
{
	char line[64];

	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
}

static int destroy_all(struct objs *o)
{
	int64_t t0 = now_ms();
	int ret;

	ret = ibv_destroy_qp(o->qp);
	report(!ret, "ibv_destroy_qp succeeds (%s, %lld ms)",
	       ret ? strerror(ret) : "0", (long long)(now_ms() - t0));
	ret = ibv_destroy_cq(o->cq);
	report(!ret, "ibv_destroy_cq succeeds (%s)",
	       ret ? strerror(ret) : "0");
	ret = ibv_dealloc_pd(o->pd);
	report(!ret, "ibv_dealloc_pd succeeds (%s)",
	       ret ? strerror(ret) : "0");
	return 0;
}

static void mode_create(struct ibv_context *ctx)
{
	struct ibv_cq *cq;

	handshake();
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	report(!cq && errno == ENOMEM,
	       "CREATE_CQ failed by the device: ibv_create_cq fails with ENOMEM (%s)",
	       cq ? "created" : strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	report(cq, "the next ibv_create_cq succeeds");
	if (cq)
		report(!ibv_destroy_cq(cq), "and its CQ is destroyed");
}

/* Async events until DEVICE_FATAL or @sec seconds. */
static bool wait_fatal(struct ibv_context *ctx, int sec)
{
	int64_t end = now_ms() + sec * 1000LL;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	while (now_ms() < end) {
		if (poll(&pfd, 1, (int)(end - now_ms())) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &ev))
			return false;
		printf("# async event: %s\n", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			return true;
	}
	return false;
}

static int finish(void)
{
	printf("# %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct objs o = {};
	int ret;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DEV destroy|create|watch [SEC]\n",
			argv[0]);
		return 2;
	}
	if (!strcmp(argv[2], "create")) {
		o.ctx = open_device_by_name(argv[1]);
		report(o.ctx, "open %s", argv[1]);
		if (o.ctx) {
			mode_create(o.ctx);
			ibv_close_device(o.ctx);
		}
		return finish();
	}
	ret = setup(&o, argv[1]);
	report(!ret, "PD, CQ and RC QP on %s", argv[1]);
	if (ret)
		return finish();
	if (!strcmp(argv[2], "destroy")) {
		handshake();
		destroy_all(&o);
	} else if (!strcmp(argv[2], "watch")) {
		handshake();
		report(wait_fatal(o.ctx, argc > 3 ? atoi(argv[3]) : 60),
		       "IBV_EVENT_DEVICE_FATAL reaches the application");
		/* The device is gone: what is left is freed, never in error. */
		ibv_destroy_qp(o.qp);
		ibv_destroy_cq(o.cq);
		ibv_dealloc_pd(o.pd);
	}
	ret = ibv_close_device(o.ctx);
	report(!ret, "ibv_close_device");
	return finish();
}
