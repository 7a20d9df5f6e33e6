// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connections at scale (issue 20, item 6), as TAP with the figures in
 * comments:
 *
 *   eri_scale_test qps -d DEV -g GIDIDX -n N -p PORT (-s | -c HOST)
 *	one process creates N RC QPs and takes them to RTS, connected to N QPs
 *	of a peer process; QP numbers and GIDs are exchanged over TCP (PORT).
 *	The two sides take turns (the server creates, the client creates,
 *	the server connects, the client connects, ..., the server destroys,
 *	the client destroys): each side's times and memory (MemAvailable
 *	before and after) are its own.  Before the destroys, one SEND per QP,
 *	client to server, carrying the QP's index: every server QP must
 *	receive exactly its own.
 *
 *   eri_scale_test cm -n N -p PORT (-s ADDR | -c ADDR)
 *	N rdma_cm connections between two processes: the client resolves,
 *	connects and is accepted N times, at most 64 in progress at once;
 *	the index of each connection travels in its private data and every
 *	one must arrive exactly once.  Then all are disconnected.
 *
 * The times are figures, not checks: a timed test under TCG would fail at
 * random.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#include "tap.h"
#include "verbs_util.h"

#define CM_WINDOW	64

static int nqp = 1000;
static int port = 18700;
static const char *devname = "eri0";
static const char *peer;	/* -c HOST / -s ADDR */
static int gid_index = -1;
static int server;

/* report() that returns its condition. */
#define ok(cond, ...) ({ bool c_ = (cond); report(c_, __VA_ARGS__); c_; })

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* MemAvailable in KiB, or -1. */
static long mem_available_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* The out-of-band TCP connection: accepted (server) or made (client). */
static int oob_connect(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	int one = 1, fd, lfd, try;

	if (server) {
		lfd = socket(AF_INET, SOCK_STREAM, 0);
		if (lfd < 0)
			return -1;
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd, (void *)&sin, sizeof(sin)) || listen(lfd, 1)) {
			close(lfd);
			return -1;
		}
		fd = accept(lfd, NULL, NULL);
		close(lfd);
	} else {
		if (inet_pton(AF_INET, peer, &sin.sin_addr) != 1)
			return -1;
		fd = -1;
		for (try = 0; try < 300 && fd < 0; try++) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			if (fd < 0)
				return -1;
			if (connect(fd, (void *)&sin, sizeof(sin))) {
				close(fd);
				fd = -1;
				usleep(100000);
			}
		}
	}
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* What each side tells the other: its GID, then nqp QP numbers. */
struct oob_hdr {
	uint32_t n;
	union ibv_gid gid;
};

struct qps_side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *mr;
	uint32_t *buf;		/* nqp send slots, then nqp receive slots */
	struct ibv_qp **qp;
	uint32_t *peer_qpn;
	union ibv_gid gid, peer_gid;
	int64_t t_create, t_connect;	/* us */
	long mem_create;		/* KiB, or -1 */
};

static int create_qps(struct qps_side *s)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	int i;

	ia.send_cq = s->scq;
	ia.recv_cq = s->rcq;
	for (i = 0; i < nqp; i++) {
		s->qp[i] = ibv_create_qp(s->pd, &ia);
		if (!s->qp[i]) {
			diag("create_qp %d: %s", i, strerror(errno));
			return i;
		}
	}
	return i;
}

static int connect_qps(struct qps_side *s)
{
	struct rc_path p;
	const char *stage;
	int i, err;

	for (i = 0; i < nqp; i++) {
		rc_path_init(&p, gid_index, &s->peer_gid, s->peer_qpn[i]);
		err = rc_connect(s->qp[i], &p, &stage);
		if (err) {
			diag("QP %d to %s: %s", i, stage, strerror(err));
			return i;
		}
	}
	return i;
}

/* One receive on each QP, into its slot. */
static int post_recvs(struct qps_side *s)
{
	struct ibv_recv_wr wr = { .num_sge = 1 }, *bad;
	struct ibv_sge sge;
	int i;

	wr.sg_list = &sge;
	for (i = 0; i < nqp; i++) {
		s->buf[nqp + i] = ~0u;
		sge = (struct ibv_sge){ (uintptr_t)&s->buf[nqp + i], 4,
					s->mr->lkey };
		wr.wr_id = i;
		if (ibv_post_recv(s->qp[i], &wr, &bad))
			return i;
	}
	return i;
}

/* Poll @n completions from @cq; count those that @accept takes. */
static int poll_all(struct qps_side *s, struct ibv_cq *cq, int n,
		    int (*accept)(struct qps_side *, struct ibv_wc *))
{
	struct ibv_wc wc[32];
	int64_t end = now_ms() + 60000;
	int got = 0, good = 0, k, i;

	while (got < n && now_ms() < end) {
		k = ibv_poll_cq(cq, 32, wc);
		if (k < 0)
			break;
		for (i = 0; i < k; i++)
			good += accept(s, &wc[i]);
		got += k;
	}
	if (got < n)
		diag("%d of %d completions", got, n);
	return good;
}

static int send_ok(struct qps_side *s __attribute__((unused)),
		   struct ibv_wc *wc)
{
	return wc->status == IBV_WC_SUCCESS;
}

static int recv_ok(struct qps_side *s, struct ibv_wc *wc)
{
	uint64_t i = wc->wr_id;

	if (wc->status != IBV_WC_SUCCESS || i >= (uint64_t)nqp ||
	    wc->byte_len != 4 || wc->qp_num != s->qp[i]->qp_num ||
	    s->buf[nqp + i] != i) {
		diag("recv wr_id %llu status %d len %u data %u",
		     (unsigned long long)i, wc->status, wc->byte_len,
		     i < (uint64_t)nqp ? s->buf[nqp + i] : 0);
		return 0;
	}
	s->buf[nqp + i] = ~0u;	/* counted once */
	return 1;
}

static int send_all(struct qps_side *s)
{
	struct ibv_send_wr wr = { .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_sge sge;
	int i;

	wr.sg_list = &sge;
	for (i = 0; i < nqp; i++) {
		s->buf[i] = i;
		sge = (struct ibv_sge){ (uintptr_t)&s->buf[i], 4, s->mr->lkey };
		wr.wr_id = i;
		if (ibv_post_send(s->qp[i], &wr, &bad))
			return i;
	}
	return i;
}

static void figure(const char *what, int64_t us)
{
	diag("%s: %d QPs in %lld ms, %lld us per QP", what, nqp,
	     (long long)us / 1000, (long long)(us / (nqp ? nqp : 1)));
}

/* Take every QP of @s to RTS; the time and memory are figures. */
static int connect_side(struct qps_side *s, const char *me)
{
	long mem0 = mem_available_kib(), mem1;
	int64_t t0 = now_us();
	int n = connect_qps(s);

	s->t_connect = now_us() - t0;
	mem1 = mem_available_kib();
	if (!ok(n == nqp, "%s: %d QPs taken to RTS", me, nqp))
		return -1;
	figure(server ? "server to RTS" : "client to RTS", s->t_connect);
	figure(server ? "server create + RTS" : "client create + RTS",
	       s->t_create + s->t_connect);
	if (s->mem_create >= 0 && mem0 > 0 && mem1 > 0)
		diag("%s memory: %ld KiB for %d QPs, %ld KiB per QP (MemAvailable)",
		     me, s->mem_create + mem0 - mem1, nqp,
		     (s->mem_create + mem0 - mem1) / nqp);
	return 0;
}

static void destroy_side(struct qps_side *s, const char *me)
{
	int64_t t0 = now_us();
	int i;

	for (i = 0; i < nqp; i++)
		if (ibv_destroy_qp(s->qp[i]))
			break;
	ok(i == nqp, "%s: every QP destroyed", me);
	figure(server ? "server destroy" : "client destroy", now_us() - t0);
}

static int run_qps(void)
{
	struct qps_side s = { 0 };
	struct oob_hdr h;
	const char *me = server ? "server" : "client";
	int64_t t0;
	long mem0, mem1;
	int fd, n, i;
	char go = 1;

	s.ctx = open_device_by_name(devname);
	if (!ok(s.ctx != NULL, "%s: open %s", me, devname))
		return 1;
	s.pd = ibv_alloc_pd(s.ctx);
	s.scq = ibv_create_cq(s.ctx, nqp, NULL, NULL, 0);
	s.rcq = ibv_create_cq(s.ctx, nqp, NULL, NULL, 0);
	s.buf = calloc(2 * nqp, sizeof(*s.buf));
	s.qp = calloc(nqp, sizeof(*s.qp));
	s.peer_qpn = calloc(nqp, sizeof(*s.peer_qpn));
	if (s.pd && s.buf)
		s.mr = ibv_reg_mr(s.pd, s.buf, 2 * nqp * sizeof(*s.buf),
				  IBV_ACCESS_LOCAL_WRITE);
	if (!ok(s.pd && s.scq && s.rcq && s.mr && s.qp && s.peer_qpn &&
		!ibv_query_gid(s.ctx, 1, gid_index, &s.gid),
		"%s: PD, two CQs of %d, MR, GID %d", me, nqp, gid_index))
		return 1;
	fd = oob_connect();
	if (!ok(fd >= 0, "%s: out-of-band connection on port %d", me, port))
		return 1;

	/* The server creates first; the client once it has the server's. */
	if (!server && read_all(fd, &h, sizeof(h)))
		return !ok(0, "client: the server's QP numbers");
	if (!server) {
		s.peer_gid = h.gid;
		if (h.n != (uint32_t)nqp ||
		    read_all(fd, s.peer_qpn, nqp * sizeof(uint32_t)))
			return !ok(0, "client: the server's QP numbers");
	}

	mem0 = mem_available_kib();
	t0 = now_us();
	n = create_qps(&s);
	s.t_create = now_us() - t0;
	mem1 = mem_available_kib();
	s.mem_create = mem0 > 0 && mem1 > 0 ? mem0 - mem1 : -1;
	ok(n == nqp, "%s: %d RC QPs created", me, nqp);
	if (n != nqp)
		return 1;
	figure(server ? "server create" : "client create", s.t_create);

	h.n = nqp;
	h.gid = s.gid;
	{
		uint32_t *mine = calloc(nqp, sizeof(*mine));

		for (i = 0; mine && i < nqp; i++)
			mine[i] = s.qp[i]->qp_num;
		if (!mine || write_all(fd, &h, sizeof(h)) ||
		    write_all(fd, mine, nqp * sizeof(*mine)))
			return !ok(0, "%s: QP numbers sent", me);
		free(mine);
	}
	if (server) {
		if (read_all(fd, &h, sizeof(h)) || h.n != (uint32_t)nqp ||
		    read_all(fd, s.peer_qpn, nqp * sizeof(uint32_t)))
			return !ok(0, "server: the client's QP numbers");
		s.peer_gid = h.gid;
	}

	/*
	 * The client connects once the server has (and has its receives
	 * posted), and destroys once the server has: no phase of one side
	 * overlaps one of the other, so each side's times and memory are its
	 * own.
	 */
	if (!server && read_all(fd, &go, 1))
		return !ok(0, "client: the server's ready");
	if (connect_side(&s, me))
		return 1;
	if (server) {
		ok(post_recvs(&s) == nqp, "server: a receive on every QP");
		if (write_all(fd, &go, 1))
			return !ok(0, "server: ready sent");
		ok(poll_all(&s, s.rcq, nqp, recv_ok) == nqp,
		   "server: every QP received its own index");
		/* The client's SENDs are acknowledged: its QPs may go. */
		if (read_all(fd, &go, 1))
			return !ok(0, "server: the client's SENDs done");
		destroy_side(&s, me);
		if (write_all(fd, &go, 1))
			return 1;
	} else {
		ok(send_all(&s) == nqp, "client: a SEND posted on every QP");
		ok(poll_all(&s, s.scq, nqp, send_ok) == nqp,
		   "client: every SEND completed");
		if (write_all(fd, &go, 1) || read_all(fd, &go, 1))
			return !ok(0, "client: the server's QPs destroyed");
		destroy_side(&s, me);
	}
	ibv_dereg_mr(s.mr);
	ibv_destroy_cq(s.scq);
	ibv_destroy_cq(s.rcq);
	ibv_dealloc_pd(s.pd);
	ibv_close_device(s.ctx);
	close(fd);
	return 0;
}

/* rdma_cm: what the client sends with each connection. */
struct cm_priv {
	uint32_t magic;
	uint32_t index;
};

#define CM_MAGIC 0x45524953	/* "ERIS" */

struct cm_side {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct rdma_cm_id **id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	unsigned char *seen;
	int established, disconnected, rejected;
};

static int cm_qp(struct cm_side *s, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	if (!s->pd) {
		s->pd = ibv_alloc_pd(id->verbs);
		s->cq = ibv_create_cq(id->verbs, 2 * nqp, NULL, NULL, 0);
		if (!s->pd || !s->cq)
			return -1;
	}
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	return rdma_create_qp(id, s->pd, &ia);
}

/* The next event within @ms, or NULL. */
static struct rdma_cm_event *cm_event(struct cm_side *s, int ms)
{
	struct pollfd pfd = { .fd = s->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) <= 0)
		return NULL;
	return rdma_get_cm_event(s->ch, &ev) ? NULL : ev;
}

static int cm_server_event(struct cm_side *s, struct rdma_cm_event *ev)
{
	const struct cm_priv *pr = ev->param.conn.private_data;
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1 };
	struct rdma_cm_id *id = ev->id;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (ev->param.conn.private_data_len < sizeof(*pr) ||
		    pr->magic != CM_MAGIC || pr->index >= (uint32_t)nqp ||
		    s->seen[pr->index] || cm_qp(s, id)) {
			rdma_reject(id, NULL, 0);
			s->rejected++;
			break;
		}
		s->seen[pr->index] = 1;
		s->id[pr->index] = id;
		if (rdma_accept(id, &cp))
			s->rejected++;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		s->established++;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		s->disconnected++;
		break;
	default:
		break;
	}
	return 0;
}

static int run_cm_server(struct cm_side *s)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	struct rdma_cm_event *ev;
	int64_t t0 = 0, end;
	int i;

	if (!ok(inet_pton(AF_INET, peer, &sin.sin_addr) == 1 &&
		!rdma_create_id(s->ch, &s->listen, NULL, RDMA_PS_TCP) &&
		!rdma_bind_addr(s->listen, (void *)&sin) &&
		!rdma_listen(s->listen, 1024),
		"server: listening on %s:%d", peer, port))
		return 1;
	end = now_ms() + 300000;
	while (s->established < nqp && now_ms() < end) {
		ev = cm_event(s, 1000);
		if (!ev)
			continue;
		if (!t0)
			t0 = now_us();
		cm_server_event(s, ev);
		rdma_ack_cm_event(ev);
	}
	ok(s->established == nqp && !s->rejected,
	   "server: %d connections established (%d rejected)",
	   s->established, s->rejected);
	if (t0)
		diag("server: %d connections from the first request in %lld ms",
		     s->established, (long long)(now_us() - t0) / 1000);
	for (i = 0; i < nqp && s->seen[i]; i++)
		;
	ok(i == nqp, "server: every index arrived exactly once");
	end = now_ms() + 120000;
	while (s->disconnected < s->established && now_ms() < end) {
		ev = cm_event(s, 1000);
		if (!ev)
			continue;
		cm_server_event(s, ev);
		rdma_ack_cm_event(ev);
	}
	ok(s->disconnected == s->established,
	   "server: %d disconnects seen", s->disconnected);
	for (i = 0; i < nqp; i++) {
		if (!s->id[i])
			continue;
		rdma_destroy_qp(s->id[i]);
		rdma_destroy_id(s->id[i]);
	}
	rdma_destroy_id(s->listen);
	return 0;
}

/* Start connection @i: address resolution first. */
static int cm_start(struct cm_side *s, int i)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };

	inet_pton(AF_INET, peer, &sin.sin_addr);
	if (rdma_create_id(s->ch, &s->id[i], (void *)(uintptr_t)i,
			   RDMA_PS_TCP))
		return -1;
	return rdma_resolve_addr(s->id[i], NULL, (void *)&sin, 5000);
}

static int cm_client_event(struct cm_side *s, struct rdma_cm_event *ev)
{
	struct cm_priv pr = { CM_MAGIC, (uint32_t)(uintptr_t)ev->id->context };
	struct rdma_conn_param cp = { .private_data = &pr,
				      .private_data_len = sizeof(pr),
				      .responder_resources = 1,
				      .initiator_depth = 1,
				      .retry_count = 7,
				      .rnr_retry_count = 7 };

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		return rdma_resolve_route(ev->id, 5000);
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (cm_qp(s, ev->id))
			return -1;
		return rdma_connect(ev->id, &cp);
	case RDMA_CM_EVENT_ESTABLISHED:
		s->established++;
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		s->disconnected++;
		return 0;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return 0;	/* after a disconnect, as on any RC QP */
	default:
		diag("client: connection %u: %s (status %d)", pr.index,
		     rdma_event_str(ev->event), ev->status);
		s->rejected++;
		return -1;
	}
}

static int run_cm_client(struct cm_side *s)
{
	struct rdma_cm_event *ev;
	int64_t t0, t_conn, end;
	int started = 0, i;

	t0 = now_us();
	end = now_ms() + 300000;
	while (s->established < nqp && !s->rejected && now_ms() < end) {
		while (started < nqp &&
		       started - s->established < CM_WINDOW) {
			if (cm_start(s, started)) {
				s->rejected++;
				break;
			}
			started++;
		}
		ev = cm_event(s, 1000);
		if (!ev)
			continue;
		if (cm_client_event(s, ev))
			s->rejected++;
		rdma_ack_cm_event(ev);
	}
	t_conn = now_us() - t0;
	ok(s->established == nqp, "client: %d rdma_cm connections established",
	   s->established);
	diag("client: %d connections in %lld ms, %lld us each (at most %d in progress)",
	     s->established, (long long)t_conn / 1000,
	     (long long)(t_conn / (nqp ? nqp : 1)), CM_WINDOW);

	t0 = now_us();
	for (i = 0; i < started; i++)
		rdma_disconnect(s->id[i]);
	end = now_ms() + 120000;
	while (s->disconnected < s->established && now_ms() < end) {
		ev = cm_event(s, 1000);
		if (!ev)
			continue;
		cm_client_event(s, ev);
		rdma_ack_cm_event(ev);
	}
	ok(s->disconnected == s->established, "client: %d disconnected",
	   s->disconnected);
	diag("client: %d disconnects in %lld ms", s->disconnected,
	     (long long)(now_us() - t0) / 1000);
	for (i = 0; i < started; i++) {
		if (s->id[i]->qp)
			rdma_destroy_qp(s->id[i]);
		rdma_destroy_id(s->id[i]);
	}
	return 0;
}

static int run_cm(void)
{
	struct cm_side s = { 0 };
	int ret;

	s.ch = rdma_create_event_channel();
	s.id = calloc(nqp, sizeof(*s.id));
	s.seen = calloc(nqp, 1);
	if (!ok(s.ch && s.id && s.seen, "%s: event channel",
		server ? "server" : "client"))
		return 1;
	ret = server ? run_cm_server(&s) : run_cm_client(&s);
	if (s.cq)
		ibv_destroy_cq(s.cq);
	if (s.pd)
		ibv_dealloc_pd(s.pd);
	rdma_destroy_event_channel(s.ch);
	return ret;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int c, ret;

	optind = 2;
	while ((c = getopt(argc, argv, "d:g:n:p:s:c:")) != -1) {
		switch (c) {
		case 'd':
			devname = optarg;
			break;
		case 'g':
			gid_index = atoi(optarg);
			break;
		case 'n':
			nqp = atoi(optarg);
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 's':
			server = 1;
			peer = optarg;
			break;
		case 'c':
			peer = optarg;
			break;
		default:
			return 2;
		}
	}
	if (nqp <= 0 || !peer ||
	    (strcmp(mode, "qps") && strcmp(mode, "cm")) ||
	    (!strcmp(mode, "qps") && gid_index < 0)) {
		fprintf(stderr,
			"usage: %s qps -d DEV -g GIDIDX -n N -p PORT (-s ADDR | -c HOST)\n"
			"       %s cm -n N -p PORT (-s ADDR | -c ADDR)\n",
			argv[0], argv[0]);
		return 2;
	}
	ret = !strcmp(mode, "qps") ? run_qps() : run_cm();
	printf("# %d passed, %d failed\n", passed, failed);
	return failed || ret;
}
