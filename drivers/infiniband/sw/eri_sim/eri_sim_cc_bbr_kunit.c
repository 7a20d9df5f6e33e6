// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of bbr on a path model (eri.rst, "Congestion control"): a
 * sender that sends as the requester does (while the pipe is below the
 * window and pacing allows, a quantum at a time, lost PSNs first), a
 * bottleneck of rate C with a FIFO of Q packets that drops at its tail or
 * marks CE above a threshold, a base RTT, a responder that acknowledges
 * every 8 packets, at once when asked (the last packet of a quantum) or
 * when it sees a hole, with SACKs and echoed timestamps, and the
 * requester's scoreboard for losses and rate samples; for one case, an
 * application that keeps a few messages posted.  Noise, loss and
 * reordering come from a fixed-seed generator, so every run is the same.
 */
#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/time64.h>

#include "eri_sim_cc_bbr.h"
#include "eri_sim_rel.h"

#define T_US		1000ULL
#define T_MS		(1000 * T_US)
#define T_SEC		(1000 * T_MS)
#define T_MTU		1024U
#define T_HDRS		ERI_PKT_OVERHEAD_IPV4
/* A packet on the link: its IP bytes and Ethernet's 14. */
#define T_FRAME		(T_MTU + T_HDRS + 14)
#define T_RATE		3000000ULL	/* C: bytes per second, 24 Mbit/s */
#define T_BASE_RTT	(300 * T_US)
#define T_ACK_EVERY	8
#define T_DELACK	(100 * T_US)
#define T_RING		1024		/* packets a ring of the model holds */
#define T_MIN_RTO	(5 * T_MS)
#define T_MAX_RTO	(2 * T_SEC)

/* A packet (or an ACK) on its way, due at @at. */
struct t_pkt {
	u64 at;
	u64 sent_ns;	/* the data packet's send time: what an ACK echoes */
	u32 psn;	/* data: its PSN; ACK: the cumulative PSN */
	u32 off;	/* ACK: SACK offset */
	__be64 sack[ERI_WIRE_SACK_BITS / 64];
	bool ce;	/* data: marked; ACK: echoes a mark */
	bool ack_req;
};

/* A FIFO of packets on their way: due times never decrease. */
struct t_ring {
	struct t_pkt p[T_RING];
	u32 head, tail;
};

struct t_path {
	/* The script. */
	u64 rate;		/* bytes per second of the bottleneck */
	u32 q_max;		/* packets the FIFO holds, the one sent included */
	u32 ce_above;		/* mark CE above this many queued; 0: never */
	u64 base_rtt;
	u32 noise;		/* enum t_noise */
	u32 data_loss;		/* per 10000 */
	u32 ack_loss;		/* per 10000 */
	u32 reorder_pct;	/* packets 1 ms later, in % */
	/*
	 * The application, when @msg_pkts is set (else there is always
	 * something to send): messages of @msg_pkts PSNs, at most @app_depth
	 * posted and not seen completed; it sees completions @app_batch
	 * messages at a time (perftest's CQ moderation) and posts again.
	 */
	u32 msg_pkts;
	u32 app_depth;
	u32 app_batch;
	u32 posted;		/* messages posted */
	u32 reaped;		/* completions the application has seen */
	/* The sender. */
	struct eri_sim_cc cc;
	struct eri_sim_sb sb;
	u64 rto_at;		/* 0: not armed */
	u32 retries;
	u32 rto_win;		/* the window after a timeout; 0: none */
	/* The bottleneck: departure times of the packets it holds. */
	u64 depart[T_RING];
	u32 q_head, q_tail;
	u64 link_free_ns;
	/* Towards the responder: by path (direct, reordered). */
	struct t_ring fwd[2];
	/* The responder. */
	struct eri_sim_psn_map rx;
	u32 unacked;
	u64 delack_at;		/* 0: no delayed ACK pending */
	u64 last_sent_ns;	/* of the last packet received */
	bool ce_pending;
	/* Towards the requester. */
	struct t_ring rev;
	struct rnd_state rnd;
	/* What happened. */
	u64 now;
	u64 sent, drops, marks, q_sum, q_samples;
	u32 min_window, max_pipe;
};

enum t_noise {
	T_NOISE_NONE,
	T_NOISE_STALLS,	/* 60% nothing, 30% uniform 0-2 ms, 10% 5 ms */
};

static struct eri_sim_cc_bbr *t_bbr(struct t_path *p)
{
	return eri_sim_cc_bbr(&p->cc);
}

static u32 t_rand(struct t_path *p, u32 n)
{
	return prandom_u32_state(&p->rnd) % n;
}

static bool t_ring_empty(const struct t_ring *r)
{
	return r->head == r->tail;
}

static struct t_pkt *t_ring_peek(struct t_ring *r)
{
	return &r->p[r->head % T_RING];
}

static struct t_pkt *t_ring_push(struct t_ring *r)
{
	struct t_pkt *pkt;

	if (r->tail - r->head >= T_RING)
		return NULL;
	pkt = &r->p[r->tail++ % T_RING];
	memset(pkt, 0, sizeof(*pkt));
	return pkt;
}

/*
 * A packet due at @at, in its place: one delayed more than those after it
 * is overtaken by them.
 */
static struct t_pkt *t_ring_insert(struct t_ring *r, u64 at)
{
	u32 i;

	if (r->tail - r->head >= T_RING)
		return NULL;
	for (i = r->tail; i != r->head && r->p[(i - 1) % T_RING].at > at; i--)
		r->p[i % T_RING] = r->p[(i - 1) % T_RING];
	r->tail++;
	memset(&r->p[i % T_RING], 0, sizeof(r->p[0]));
	r->p[i % T_RING].at = at;
	return &r->p[i % T_RING];
}

static struct t_path *t_path_new(struct kunit *test, u64 seed)
{
	struct t_path *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	if (!p)
		return NULL;
	p->rate = T_RATE;
	p->q_max = 200;
	p->base_rtt = T_BASE_RTT;
	eri_sim_cc_init(&p->cc, &eri_sim_cc_bbr_ops, T_MTU, T_HDRS, 0, 7);
	eri_sim_sb_init(&p->sb, 0);
	eri_sim_psn_map_init(&p->rx, 0);
	prandom_seed_state(&p->rnd, seed);
	p->min_window = U32_MAX;
	return p;
}

/* Packets the bottleneck holds at @now, the one on the wire included. */
static u32 t_queued(struct t_path *p)
{
	while (p->q_head != p->q_tail &&
	       p->depart[p->q_head % T_RING] <= p->now)
		p->q_head++;
	return p->q_tail - p->q_head;
}

/* A data packet enters the bottleneck. */
static void t_link(struct t_path *p, u32 psn, bool ack_req)
{
	u32 q = t_queued(p);
	struct t_pkt *pkt;
	u64 depart;
	int path;

	p->sent++;
	p->q_sum += q;
	p->q_samples++;
	if (q >= p->q_max || q >= T_RING ||
	    (p->data_loss && t_rand(p, 10000) < p->data_loss)) {
		p->drops++;
		return;
	}
	depart = max(p->link_free_ns, p->now) +
		 div64_u64(T_FRAME * NSEC_PER_SEC, p->rate);
	p->link_free_ns = depart;
	p->depart[p->q_tail++ % T_RING] = depart;
	path = p->reorder_pct && t_rand(p, 100) < p->reorder_pct;
	pkt = t_ring_push(&p->fwd[path]);
	if (!pkt)
		return;
	pkt->at = depart + p->base_rtt / 2 + (path ? T_MS : 0);
	pkt->psn = psn;
	pkt->sent_ns = p->now;
	pkt->ack_req = ack_req;
	if (p->ce_above && q > p->ce_above) {
		pkt->ce = true;
		p->marks++;
	}
}

/* The extra delay of an ACK: a descheduled vCPU, a busy host. */
static u64 t_noise(struct t_path *p)
{
	u32 r;

	if (p->noise != T_NOISE_STALLS)
		return 0;
	r = t_rand(p, 100);
	if (r < 60)
		return 0;
	if (r < 90)
		return t_rand(p, 2000) * T_US;
	return 5 * T_MS;
}

/* The responder acknowledges what it received, echoing @sent_ns. */
static void t_ack(struct t_path *p, u64 sent_ns)
{
	struct t_pkt *a;

	p->unacked = 0;
	p->delack_at = 0;
	if (p->ack_loss && t_rand(p, 10000) < p->ack_loss) {
		p->ce_pending = false;
		return;
	}
	a = t_ring_insert(&p->rev, p->now + p->base_rtt / 2 + t_noise(p));
	if (!a)
		return;
	a->psn = p->rx.base;
	a->off = eri_sim_sack_encode(&p->rx, a->sack);
	a->sent_ns = sent_ns;
	a->ce = p->ce_pending;
	p->ce_pending = false;
}

static bool t_rx_hole(struct t_path *p)
{
	return find_first_bit(p->rx.bits, ERI_SIM_REL_WIN) < ERI_SIM_REL_WIN;
}

/*
 * The responder takes in a data packet and acknowledges as eri_sim_resp.c
 * does: at once when asked, for the first packet past a new hole and for
 * one that closes a hole, else every T_ACK_EVERY packets or after the
 * delayed-ACK time.
 */
static void t_respond(struct t_path *p, const struct t_pkt *d)
{
	bool had_hole = t_rx_hole(p), now;
	u32 run, base = p->rx.base;

	eri_sim_psn_map_set(&p->rx, d->psn);
	run = eri_sim_psn_map_run(&p->rx);
	if (run)
		eri_sim_psn_map_advance(&p->rx, run);
	p->ce_pending |= d->ce;
	p->last_sent_ns = d->sent_ns;
	now = d->ack_req || (!had_hole && t_rx_hole(p)) ||
	      eri_psn_diff(p->rx.base, base) > 1 ||
	      ++p->unacked >= T_ACK_EVERY;
	if (now)
		t_ack(p, d->sent_ns);
	else if (!p->delack_at)
		p->delack_at = p->now + T_DELACK;
}

static void t_arm_rto(struct t_path *p)
{
	u64 rto = eri_sim_rto_backoff(eri_sim_cc_rto_ns(&p->cc, T_MIN_RTO,
							T_MAX_RTO),
				      p->retries, T_MIN_RTO, T_MAX_RTO);

	p->rto_at = eri_sim_sb_span(&p->sb) ? p->now + rto : 0;
}

/* The requester takes in an ACK, as eri_sim_req.c does. */
static void t_on_ack(struct t_path *p, const struct t_pkt *a)
{
	struct eri_sim_cc_ack ack = { .now_ns = p->now, .ce = a->ce };
	u32 acked, lost;

	if (eri_psn_diff(a->psn, p->sb.nxt) > 0)
		return;
	acked = eri_sim_sb_ack(&p->sb, a->psn, a->off, a->sack);
	if (acked) {
		p->retries = 0;
		if (p->rto_win) {
			p->rto_win += acked;
			if (p->rto_win >= eri_sim_cc_window(&p->cc))
				p->rto_win = 0;
		}
		eri_sim_cc_rtt_sample(&p->cc, p->now, p->now - a->sent_ns);
		ack.rtt_ns = p->now - a->sent_ns;
	}
	ack.inflight = eri_sim_sb_pipe(&p->sb);
	eri_sim_sb_advance(&p->sb);
	lost = eri_sim_sb_detect_loss(&p->sb, p->now,
				      eri_sim_cc_srtt_ns(&p->cc));
	eri_sim_sb_rate_sample(&p->sb, p->now, p->cc.min_rtt_ns, &ack.rs);
	if (acked || lost || ack.ce) {
		ack.acked = acked;
		ack.lost = lost;
		eri_sim_cc_ack(&p->cc, &ack);
	}
	if (acked)
		t_arm_rto(p);
	p->min_window = min(p->min_window, eri_sim_cc_window(&p->cc));
}

static u32 t_window(struct t_path *p)
{
	u32 win = min_t(u32, eri_sim_cc_window(&p->cc), ERI_SIM_REL_WIN);

	return p->rto_win ? min(win, p->rto_win) : win;
}

/*
 * Whether the application posted @psn; it first takes in the completions
 * it sees (every @app_batch messages) and posts up to @app_depth again.
 */
static bool t_app_has(struct t_path *p, u32 psn)
{
	u32 done;

	if (!p->msg_pkts)
		return true;
	done = p->sb.una / p->msg_pkts;
	while (done - p->reaped >= p->app_batch)
		p->reaped += p->app_batch;
	p->posted = p->reaped + p->app_depth;
	return psn < p->posted * p->msg_pkts;
}

/* The requester sends what window and pacing allow, a quantum at a time. */
static void t_send(struct t_path *p)
{
	u32 win = t_window(p), n, q, psn;
	bool had = eri_sim_sb_span(&p->sb), ack_req;
	u64 bytes;

	while (eri_sim_sb_pipe(&p->sb) < win &&
	       eri_sim_cc_next_send_ns(&p->cc) <= p->now) {
		q = eri_sim_cc_quantum(&p->cc);
		for (n = 0, bytes = 0; n < q && eri_sim_sb_pipe(&p->sb) < win;
		     n++) {
			if (!eri_sim_sb_next_lost(&p->sb, &psn)) {
				if (eri_sim_sb_span(&p->sb) >= ERI_SIM_REL_WIN)
					break;
				psn = p->sb.nxt;
				if (!t_app_has(p, psn)) {
					u32 pipe = eri_sim_sb_pipe(&p->sb);

					/* As eri_sim_req.c: nothing to send. */
					eri_sim_sb_app_limited(&p->sb, pipe);
					break;
				}
			}
			/* eri_sim_req.c asks every T_ACK_EVERY PSNs and, in a
			 * small window, on the packet that fills it.
			 */
			ack_req = !((psn + 1) % T_ACK_EVERY) ||
				  (win < 2 * T_ACK_EVERY &&
				   eri_sim_sb_pipe(&p->sb) + 1 >= win);
			eri_sim_sb_sent(&p->sb, psn, false, p->now);
			t_link(p, psn, ack_req);
			bytes += T_MTU + T_HDRS;
		}
		if (!n)
			break;
		eri_sim_cc_sent(&p->cc, p->now, bytes);
	}
	p->max_pipe = max(p->max_pipe, eri_sim_sb_pipe(&p->sb));
	if (!had && eri_sim_sb_span(&p->sb))
		t_arm_rto(p);
}

static void t_timeout(struct t_path *p)
{
	p->retries++;
	p->rto_win = 1;
	eri_sim_cc_on_timeout(&p->cc, p->now, eri_sim_sb_lose_all(&p->sb));
	t_arm_rto(p);
}

/* The earliest of the path's next events, at most @end. */
static u64 t_next_event(struct t_path *p, u64 end)
{
	u64 next = end;
	u32 psn;
	int i;

	for (i = 0; i < 2; i++)
		if (!t_ring_empty(&p->fwd[i]))
			next = min(next, t_ring_peek(&p->fwd[i])->at);
	if (!t_ring_empty(&p->rev))
		next = min(next, t_ring_peek(&p->rev)->at);
	if (p->rto_at)
		next = min(next, p->rto_at);
	if (p->delack_at)
		next = min(next, p->delack_at);
	if (eri_sim_sb_pipe(&p->sb) < t_window(p) &&
	    (t_app_has(p, p->sb.nxt) || eri_sim_sb_next_lost(&p->sb, &psn)))
		next = min(next, max(eri_sim_cc_next_send_ns(&p->cc),
				     p->now + 1));
	return next;
}

/* Run the path until @end; @on_ack, if any, sees every ACK's result. */
static void t_run(struct t_path *p, u64 end,
		  void (*on_ack)(struct t_path *p, void *arg), void *arg)
{
	struct t_pkt pkt;
	int i;

	while (p->now < end) {
		p->now = t_next_event(p, end);
		for (i = 0; i < 2; i++) {
			while (!t_ring_empty(&p->fwd[i]) &&
			       t_ring_peek(&p->fwd[i])->at <= p->now) {
				pkt = *t_ring_peek(&p->fwd[i]);
				p->fwd[i].head++;
				t_respond(p, &pkt);
			}
		}
		if (p->delack_at && p->delack_at <= p->now)
			t_ack(p, p->last_sent_ns);
		while (!t_ring_empty(&p->rev) &&
		       t_ring_peek(&p->rev)->at <= p->now) {
			pkt = *t_ring_peek(&p->rev);
			p->rev.head++;
			t_on_ack(p, &pkt);
			if (on_ack)
				on_ack(p, arg);
		}
		if (p->rto_at && p->rto_at <= p->now)
			t_timeout(p);
		t_send(p);
	}
}

/* The link's capacity over @ns, in packets. */
static u64 t_capacity(u64 rate, u64 ns)
{
	return div64_u64(rate * div64_u64(ns, T_US), T_FRAME * USEC_PER_SEC);
}

/* Packets of @ns at @rate within the base RTT: the path's BDP, rounded up. */
static u32 t_bdp(u64 rate, u64 rtt)
{
	return DIV_ROUND_UP_ULL(rate * div64_u64(rtt, T_US),
				T_FRAME * USEC_PER_SEC);
}

static void t_report(struct kunit *test, struct t_path *p, u64 ns)
{
	struct eri_sim_cc_bbr *b = t_bbr(p);

	kunit_info(test,
		   "delivered %llu of %llu, drops %llu, marks %llu, mean queue %llu/100, window min %u, pipe max %u, rounds %u, cuts %llu, mode %u, min_rtt %u us",
		   p->sb.rate.delivered, t_capacity(p->rate, ns), p->drops,
		   p->marks, div64_u64(p->q_sum * 100, max(p->q_samples, 1ULL)),
		   p->min_window, p->max_pipe, b->round, p->cc.cuts, b->mode,
		   b->min_rtt_us);
}

/*
 * RTT samples of a host whose CPUs stall for milliseconds (an emulated or
 * overcommitted one): the window never starves, the link stays busy, the
 * queue short.
 */
static void eri_sim_cc_bbr_test_noisy_rtt(struct kunit *test)
{
	struct t_path *p = t_path_new(test, 1);
	const u64 T = 20 * T_SEC;
	u32 quantum = ERI_SIM_CC_QUANTUM_MIN;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->noise = T_NOISE_STALLS;
	t_run(p, T, NULL, NULL);
	t_report(test, p, T);
	KUNIT_EXPECT_GE(test, p->min_window, ERI_SIM_CC_BBR_MIN_CWND);
	KUNIT_EXPECT_GE(test, p->sb.rate.delivered * 10,
			t_capacity(p->rate, T) * 9);
	/*
	 * The mean queue, in 1/100 packets: what the window allows beyond
	 * the BDP, 1 BDP and 3 quanta, and the ACK aggregation the window
	 * adds, about one ACK's packets.
	 */
	KUNIT_EXPECT_LE(test, div64_u64(p->q_sum * 100, p->q_samples),
			100ULL * (t_bdp(p->rate, p->base_rtt) +
				  ERI_SIM_CC_BBR_QUANTA * quantum +
				  T_ACK_EVERY));
}

struct t_step {
	u64 at;			/* when C halves */
	bool halved;
	u64 drops, marks;	/* when C halved */
	u64 cuts;		/* before the first drop or mark after it */
	u32 round;		/* the round of that drop or mark; 0: none */
	u32 cut_round;		/* the round a cut followed it; 0: none */
	u32 step_round;		/* the round C halved in */
	u32 slow_round;		/* first round pacing <= 1.25 C / 2 */
	u32 max_pipe;		/* most in flight from slow_round on */
	u32 ce_above;		/* set when C halves */
	u32 q_max;
};

static void t_step_ack(struct t_path *p, void *arg)
{
	struct t_step *s = arg;
	u32 round = t_bbr(p)->round;
	u64 slow;

	if (!s->halved && p->now >= s->at) {
		s->halved = true;
		p->rate /= 2;
		p->ce_above = s->ce_above;
		p->q_max = s->q_max;
		s->step_round = round;
		s->drops = p->drops;
		s->marks = p->marks;
	}
	if (!s->halved)
		return;
	if (!s->round && (p->drops > s->drops || p->marks > s->marks)) {
		s->round = round;
		s->cuts = p->cc.cuts;
	}
	if (s->round && !s->cut_round && p->cc.cuts > s->cuts)
		s->cut_round = round;
	/* 1.25 C / 2 (C halved already) in the pacing rate's wire bytes. */
	slow = div64_u64(p->rate * 5 / 4 * (T_MTU + T_HDRS), T_FRAME);
	if (!s->slow_round && p->cc.pacing_rate <= slow)
		s->slow_round = round;
	if (s->slow_round)
		s->max_pipe = max(s->max_pipe, eri_sim_sb_pipe(&p->sb));
}

/* C halves at 5 s: the model follows, through drops, marks or neither. */
static void eri_sim_cc_bbr_test_congestion_step(struct kunit *test)
{
	static const struct {
		u32 q_max, ce_above;
	} v[] = {
		{ 20, 0 },	/* (a) a short FIFO drops */
		{ 200, 5 },	/* (b) CE above 5 packets */
		{ 200, 0 },	/* (c) a deep FIFO, no marks */
		{ 8, 0 },	/* (d) a FIFO of 8: once shorter than the window */
	};
	const u64 T = 10 * T_SEC;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		struct t_path *p = t_path_new(test, 2 + i);
		struct t_step s = {
			.at = 5 * T_SEC,
			.q_max = v[i].q_max,
			.ce_above = v[i].ce_above,
		};

		KUNIT_ASSERT_NOT_NULL(test, p);
		p->q_max = v[i].q_max;
		p->ce_above = v[i].ce_above;
		t_run(p, T, t_step_ack, &s);
		t_report(test, p, T);
		kunit_info(test,
			   "case %c: step in round %u, first signal %u, cut %u, slow %u, then in flight %u, drops after the step %llu",
			   'a' + i, s.step_round, s.round, s.cut_round,
			   s.slow_round, s.max_pipe, p->drops - s.drops);
		/*
		 * A cut within 2 rounds of the first drop or mark after the
		 * step.  The marking queue always gives one; the drop-tail
		 * FIFOs (Q = 20 and Q = 8) may give none: a flight kept near
		 * the BDP (the drain to it, the bound on a standing queue)
		 * stays below them, and then the rate must follow by itself
		 * within 12 rounds.
		 */
		if (i == 1 || (i != 2 && s.round)) {
			KUNIT_EXPECT_NE(test, s.round, 0U);
			KUNIT_EXPECT_NE(test, s.cut_round, 0U);
			KUNIT_EXPECT_LE(test, s.cut_round, s.round + 2);
		} else if (i != 2) {
			KUNIT_EXPECT_NE(test, s.slow_round, 0U);
			KUNIT_EXPECT_LE(test, s.slow_round, s.step_round + 12);
		}
		if (i == 1)
			KUNIT_EXPECT_EQ(test, p->drops, 0ULL);
		if (i == 2) {
			/* The rate follows within 12 rounds... */
			KUNIT_EXPECT_NE(test, s.slow_round, 0U);
			KUNIT_EXPECT_LE(test, s.slow_round, s.step_round + 12);
			/* ...what is in flight stays bounded. */
			KUNIT_EXPECT_LE(test, s.max_pipe,
					2 * t_bdp(p->rate, p->base_rtt +
						  div64_u64(T_FRAME *
							    NSEC_PER_SEC,
							    p->rate)) +
					ERI_SIM_CC_BBR_QUANTA *
					ERI_SIM_CC_QUANTUM_MIN + T_ACK_EVERY +
					ERI_SIM_CC_BBR_PROBE_UP_EXTRA);
		}
	}
}

struct t_cuts {
	u32 round;
	u64 cuts;
	u32 over;	/* rounds with more than one cut */
};

static void t_cuts_ack(struct t_path *p, void *arg)
{
	struct t_cuts *c = arg;

	if (t_bbr(p)->round != c->round) {
		c->round = t_bbr(p)->round;
		c->cuts = p->cc.cuts;
	} else if (p->cc.cuts > c->cuts + 1) {
		c->over++;
		c->cuts = p->cc.cuts;
	}
}

/* 1% of data and ACKs lost at random: no collapse. */
static void eri_sim_cc_bbr_test_random_loss(struct kunit *test)
{
	struct t_path *p = t_path_new(test, 5);
	const u64 T = 20 * T_SEC;
	struct t_cuts c = {};

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->data_loss = 100;
	p->ack_loss = 100;
	t_run(p, T, t_cuts_ack, &c);
	t_report(test, p, T);
	KUNIT_EXPECT_GT(test, p->drops, 0ULL);
	KUNIT_EXPECT_EQ(test, c.over, 0U);
	KUNIT_EXPECT_LE(test, p->cc.cuts, (u64)t_bbr(p)->round);
	KUNIT_EXPECT_GE(test, p->sb.rate.delivered * 100,
			t_capacity(p->rate, T) * 85);
}

/*
 * A quarter of the packets at the base RTT, the rest 1 ms later: min_rtt is
 * the early quarter's (PROBE_RTT finds it), the window the model sizes from
 * it still covers the path.  Once the first second taught the scoreboard
 * the reordering, fewer than 1% of the PSNs are declared lost (those the
 * late route holds longer than twice srtt, which a drained queue shortens);
 * a scoreboard that took reordering for loss would declare most of the
 * late three quarters.
 */
static void eri_sim_cc_bbr_test_reorder_delay(struct kunit *test)
{
	struct t_path *p = t_path_new(test, 6);
	const u64 T = 10 * T_SEC;
	u64 lost, delivered;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->base_rtt = 200 * T_US;
	p->reorder_pct = 75;
	t_run(p, T_SEC, NULL, NULL);
	lost = p->sb.rate.lost_total;
	delivered = p->sb.rate.delivered;
	t_run(p, T, NULL, NULL);
	t_report(test, p, T);
	kunit_info(test, "declared lost in the first second %llu, after %llu",
		   lost, p->sb.rate.lost_total - lost);
	KUNIT_EXPECT_EQ(test, p->drops, 0ULL);
	KUNIT_EXPECT_LT(test, (p->sb.rate.lost_total - lost) * 100,
			p->sb.rate.delivered - delivered);
	KUNIT_EXPECT_GE(test, (p->sb.rate.delivered - delivered) * 100,
			t_capacity(p->rate, T - T_SEC) * 95);
}

/*
 * The path gets longer at 1 s (a route change: base RTT 300 us, then
 * 10 ms), with no queue to show it: every RTT sample is above min_rtt,
 * whose model of the path holds a BDP of about two packets against the
 * twenty-eight it has now.  Within MIN_RTT_WIN_NS of the last lower sample
 * PROBE_RTT takes the new base RTT and the link is busy again by 7 s (with
 * a window of 10 s, 61% idle from 7 to 9 s).
 */
static void eri_sim_cc_bbr_test_route_change(struct kunit *test)
{
	struct t_path *p = t_path_new(test, 9);
	const u64 T = 9 * T_SEC;
	u64 before;

	KUNIT_ASSERT_NOT_NULL(test, p);
	t_run(p, T_SEC, NULL, NULL);
	p->base_rtt = 10 * T_MS;
	t_run(p, 7 * T_SEC, NULL, NULL);
	before = p->sb.rate.delivered;
	KUNIT_EXPECT_GE(test, t_bbr(p)->min_rtt_us, 10000U);
	t_run(p, T, NULL, NULL);
	t_report(test, p, T);
	kunit_info(test, "delivered from 7 s %llu of %llu",
		   p->sb.rate.delivered - before,
		   t_capacity(p->rate, T - 7 * T_SEC));
	KUNIT_EXPECT_GE(test, (p->sb.rate.delivered - before) * 10,
			t_capacity(p->rate, T - 7 * T_SEC) * 9);
}

struct t_startup {
	u64 end_ns;		/* when STARTUP ended; 0: not yet */
	u32 end_round;
};

static void t_startup_ack(struct t_path *p, void *arg)
{
	struct t_startup *s = arg;

	if (!s->end_ns && t_bbr(p)->full_bw_reached) {
		s->end_ns = p->now;
		s->end_round = t_bbr(p)->round;
	}
}

/*
 * A bulk writer on a path of about 170 MB/s, its BDP far below the
 * engine's ERI_SIM_CC_MAX_WND, and an application that keeps 64 KiB
 * messages posted (64 PSNs at MTU 1024), as many as the window holds.
 * The send queue runs dry whenever an ACK opens the window, so every PSN
 * is sent application limited; yet what is in flight is several BDPs and
 * the bottleneck's queue sets the delivery rate: STARTUP ends.  An
 * application that keeps less than a BDP posted stays in STARTUP.
 */
static void eri_sim_cc_bbr_test_app_window(struct kunit *test)
{
	static const struct {
		u32 msg_pkts, depth;
		bool full;
	} v[] = {
		{ 64, ERI_SIM_CC_MAX_WND / 64, true },
		{ 16, 1, false },
	};
	const u64 T = 200 * T_MS;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		struct t_path *p = t_path_new(test, 7 + i);
		struct t_startup s = {};
		u64 q_sum, q_samples, q;

		KUNIT_ASSERT_NOT_NULL(test, p);
		p->rate = 170000000;
		p->q_max = 1000;
		p->msg_pkts = v[i].msg_pkts;
		p->app_depth = v[i].depth;
		p->app_batch = 1;
		t_run(p, T / 2, t_startup_ack, &s);
		q_sum = p->q_sum;
		q_samples = p->q_samples;
		t_run(p, T, t_startup_ack, &s);
		t_report(test, p, T);
		/* The mean queue of the second half, in 1/100 packets. */
		q = div64_u64((p->q_sum - q_sum) * 100,
			      max(p->q_samples - q_samples, 1ULL));
		kunit_info(test,
			   "case %c: %u PSNs posted, STARTUP ended in round %u at %llu us, then mean queue %llu/100",
			   'a' + i, v[i].msg_pkts * v[i].depth, s.end_round,
			   div64_u64(s.end_ns, T_US), q);
		KUNIT_EXPECT_EQ(test, t_bbr(p)->full_bw_reached, v[i].full);
		if (!v[i].full)
			continue;
		/* The link is kept busy... */
		KUNIT_EXPECT_GE(test, p->sb.rate.delivered * 100,
				t_capacity(p->rate, T) * 95);
		/*
		 * ...and, once STARTUP is over, paced at the bandwidth: the
		 * mean queue is well below the window's excess over the BDP,
		 * which STARTUP keeps queued.
		 */
		KUNIT_EXPECT_LT(test, 2 * q, 100ULL * (ERI_SIM_CC_MAX_WND -
						       t_bdp(p->rate,
							     p->base_rtt)));
	}
}

/* Phase 0's rule, fed ACKs directly: what its path looks like, below. */
struct t_probe {
	struct eri_sim_cc cc;
	u64 now;
	u64 delivered;
};

#define T_PROBE_MIN_RTT_US	60000	/* the other sender's queue in it */
#define T_PROBE_BDP		40	/* packets */
#define T_PROBE_FLIGHT		50	/* what the window holds: 1.25 BDP */
#define T_PROBE_ACK_GAP		(1600 * T_US)	/* a round: 80 ms */

/*
 * A bbr QP in PROBE_BW's phase 0 whose model is a BDP of T_PROBE_BDP
 * packets at a min_rtt of T_PROBE_MIN_RTT_US, its window @hi packets, the
 * bound inflight_hi @hi (BBR_NONE: none).
 */
static void t_probe_init(struct t_probe *t, u32 hi)
{
	struct eri_sim_cc_bbr *b;

	t->now = T_SEC;
	t->delivered = 1000;
	eri_sim_cc_init(&t->cc, &eri_sim_cc_bbr_ops, T_MTU, T_HDRS, t->now, 7);
	b = eri_sim_cc_bbr(&t->cc);
	minmax_reset(&b->max_bw, 0,
		     div_u64((u64)T_PROBE_BDP << ERI_SIM_CC_BW_SHIFT,
			     T_PROBE_MIN_RTT_US));
	b->min_rtt_us = T_PROBE_MIN_RTT_US;
	b->min_rtt_stamp_ns = t->now;
	b->full_bw_reached = true;
	b->mode = ERI_SIM_CC_BBR_PROBE_BW;
	b->phase = 0;
	b->phase_ns = t->now;
	b->delivered = t->delivered;
	b->next_round_delivered = t->delivered;
	b->inflight_hi = hi;
	t->cc.cwnd = (hi == ERI_SIM_CC_BBR_NONE ? T_PROBE_FLIGHT : hi) <<
		     ERI_SIM_CC_FP_SHIFT;
}

/*
 * One ACK of one packet, T_PROBE_ACK_GAP after the last, for a packet sent
 * with @flight in flight, as many delivered since (a round is @flight
 * ACKs), and leaving as many; @lost packets declared lost with it; an RTT
 * sample of @rtt_us (0: none).  With T_PROBE_FLIGHT: always 1.25 BDP, a
 * window-limited flow whose RTT the queue inflates.
 */
static void t_probe_ack(struct t_probe *t, u32 flight, u32 lost, u32 rtt_us)
{
	struct eri_sim_cc_ack ack = {
		.acked = 1,
		.lost = lost,
		.inflight = flight,
		.rtt_ns = rtt_us * T_US,
		.rs = {
			.prior_delivered = t->delivered + 1 - flight,
			.delivered = flight,
			.lost = lost,
			.tx_in_flight = flight,
		},
	};

	t->now += T_PROBE_ACK_GAP;
	t->delivered++;
	ack.now_ns = t->now;
	eri_sim_cc_ack(&t->cc, &ack);
}

/*
 * Beside another sender that keeps a queue full, a window-limited QP has
 * more than 1.25 BDP in flight all along: while inflight_hi, below the
 * model's target, bounds its window, phase 0 goes on, raising the bound
 * each round, until a loss; without a bound, 1.25 BDP ends it after
 * min_rtt, as before.
 */
static void eri_sim_cc_bbr_test_probe_up_bound(struct kunit *test)
{
	struct t_probe *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct eri_sim_cc_bbr *b;
	u32 i, hi = 21;

	KUNIT_ASSERT_NOT_NULL(test, t);
	b = eri_sim_cc_bbr(&t->cc);
	/* No bound: the phase ends within its first round. */
	t_probe_init(t, ERI_SIM_CC_BBR_NONE);
	for (i = 0; i < T_PROBE_FLIGHT; i++)
		t_probe_ack(t, T_PROBE_FLIGHT, 0, 0);
	KUNIT_EXPECT_NE(test, b->phase, 0);
	/* A bound of 21 packets: four rounds later still probing, raised. */
	t_probe_init(t, hi);
	for (i = 0; i < 4 * T_PROBE_FLIGHT; i++)
		t_probe_ack(t, T_PROBE_FLIGHT, 0, 0);
	KUNIT_EXPECT_EQ(test, b->phase, 0);
	KUNIT_EXPECT_GE(test, b->inflight_hi, hi + 1 + 2 + 4);
	/* The window follows, an ACK at a time. */
	KUNIT_EXPECT_GT(test, t->cc.cwnd >> ERI_SIM_CC_FP_SHIFT, hi + 1 + 2 + 4);
	kunit_info(test, "inflight_hi %u after 4 rounds from %u", b->inflight_hi,
		   hi);
	/* Losses beyond 2% of the flight end it and cut the bound. */
	t_probe_ack(t, T_PROBE_FLIGHT, 5, 0);
	KUNIT_EXPECT_EQ(test, b->phase, 1);
	KUNIT_EXPECT_EQ(test, b->inflight_hi,
			T_PROBE_FLIGHT * ERI_SIM_CC_BBR_BETA >> 10);
}

/* A flight of two packets: a round is two ACKs, as on a slow path. */
#define T_SLOW_FLIGHT	2

/* A QP of t_probe_init()'s model without a bound, cruising (phase 2). */
static struct t_probe *t_probe_cruising(struct kunit *test)
{
	struct t_probe *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	t_probe_init(t, ERI_SIM_CC_BBR_NONE);
	eri_sim_cc_bbr(&t->cc)->phase = 2;
	return t;
}

/*
 * The cruising bound on a standing queue (eri.rst, step 6): a path that
 * delays two packets of three by twice the base RTT (a second route) gives
 * rounds of late samples alone, and no cut; a queue that delays every
 * sample is bounded within QUEUE_SAMPLES samples and a round.
 */
static void eri_sim_cc_bbr_test_queue_bound(struct kunit *test)
{
	struct t_probe *t = t_probe_cruising(test);
	const u32 late = 3 * T_PROBE_MIN_RTT_US;
	struct eri_sim_cc_bbr *b;
	u32 i, win;

	KUNIT_ASSERT_NOT_NULL(test, t);
	b = eri_sim_cc_bbr(&t->cc);
	for (i = 0; i < 3 * ERI_SIM_CC_BBR_QUEUE_SAMPLES; i++)
		t_probe_ack(t, T_SLOW_FLIGHT, 0,
			    i % 3 ? late : T_PROBE_MIN_RTT_US);
	KUNIT_EXPECT_EQ(test, t->cc.cuts, 0ULL);
	KUNIT_EXPECT_EQ(test, b->inflight_lo, ERI_SIM_CC_BBR_NONE);
	win = eri_sim_cc_window(&t->cc);
	for (i = 0; i < ERI_SIM_CC_BBR_QUEUE_SAMPLES + 2; i++)
		t_probe_ack(t, T_SLOW_FLIGHT, 0, late);
	kunit_info(test, "window %u, then bound %u", win, b->inflight_lo);
	KUNIT_EXPECT_GE(test, b->phase, 2);
	KUNIT_EXPECT_EQ(test, t->cc.cuts, 1ULL);
	KUNIT_EXPECT_LT(test, b->inflight_lo, win);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&t->cc), b->inflight_lo);
}

/*
 * A sample marked early (PSNs sent ahead of pacing after a host's stall)
 * shows what the round delivered, the floor of the loss bounds, and leaves
 * the modelled bandwidth as it was; the same sample on time raises it.
 */
static void eri_sim_cc_bbr_test_early_sample(struct kunit *test)
{
	struct t_probe *t = t_probe_cruising(test);
	struct eri_sim_cc_ack ack = {
		.acked = 1,
		.inflight = T_PROBE_FLIGHT,
		.rs = {
			.delivered = T_PROBE_FLIGHT,
			.tx_in_flight = T_PROBE_FLIGHT,
			.early = true,
			.valid = true,
		},
	};
	struct eri_sim_cc_bbr *b;
	u32 bw;

	KUNIT_ASSERT_NOT_NULL(test, t);
	b = eri_sim_cc_bbr(&t->cc);
	bw = minmax_get(&b->max_bw);
	ack.rs.bw = 2 * bw;
	/* Within the round: no round end clears bw_latest. */
	ack.rs.prior_delivered = t->delivered + 1 - T_PROBE_FLIGHT;
	t->now += T_PROBE_ACK_GAP;
	ack.now_ns = t->now;
	eri_sim_cc_ack(&t->cc, &ack);
	KUNIT_EXPECT_EQ(test, minmax_get(&b->max_bw), bw);
	KUNIT_EXPECT_EQ(test, b->bw_latest, 2 * bw);
	ack.rs.early = false;
	t->now += T_PROBE_ACK_GAP;
	ack.now_ns = t->now;
	eri_sim_cc_ack(&t->cc, &ack);
	KUNIT_EXPECT_EQ(test, minmax_get(&b->max_bw), 2 * bw);
}

/*
 * PROBE_RTT (eri.rst, step 8): once min_rtt is older than MIN_RTT_WIN_NS
 * the window drops to max(4, BDP / 2) for PROBE_RTT_NS and a round, then
 * comes back to what it was, as in Linux's BBR: not a slow start from
 * there, which on a long path costs more than the probe.  A lower bound
 * that a loss set meanwhile from the drained window goes with it.
 */
static void eri_sim_cc_bbr_test_probe_rtt(struct kunit *test)
{
	struct t_probe *t = t_probe_cruising(test);
	struct eri_sim_cc_bbr *b;
	u32 i, win;

	KUNIT_ASSERT_NOT_NULL(test, t);
	b = eri_sim_cc_bbr(&t->cc);
	win = eri_sim_cc_window(&t->cc);
	t->now += ERI_SIM_CC_BBR_MIN_RTT_WIN_NS;
	t_probe_ack(t, T_SLOW_FLIGHT, 0, T_PROBE_MIN_RTT_US);
	KUNIT_EXPECT_EQ(test, b->mode, ERI_SIM_CC_BBR_PROBE_RTT);
	KUNIT_EXPECT_EQ(test, eri_sim_cc_window(&t->cc), T_PROBE_BDP / 2);
	b->inflight_lo = T_PROBE_BDP / 2;
	b->bw_lo = minmax_get(&b->max_bw) / 2;
	for (i = 0; i < 1000 && b->mode == ERI_SIM_CC_BBR_PROBE_RTT; i++)
		t_probe_ack(t, T_SLOW_FLIGHT, 0, T_PROBE_MIN_RTT_US);
	kunit_info(test, "PROBE_RTT for %u ACKs, window %u, then %u", i, win,
		   eri_sim_cc_window(&t->cc));
	KUNIT_EXPECT_GE(test, (u64)i * T_PROBE_ACK_GAP,
			ERI_SIM_CC_BBR_PROBE_RTT_NS);
	KUNIT_EXPECT_EQ(test, b->mode, ERI_SIM_CC_BBR_PROBE_BW);
	KUNIT_EXPECT_GE(test, eri_sim_cc_window(&t->cc), win);
	KUNIT_EXPECT_EQ(test, b->inflight_lo, ERI_SIM_CC_BBR_NONE);
	KUNIT_EXPECT_EQ(test, b->bw_lo, ERI_SIM_CC_BBR_NONE);
}

/* Seconds each on a kernel built with KASAN and lockdep. */
static struct kunit_case eri_sim_cc_bbr_test_cases[] = {
	KUNIT_CASE_SLOW(eri_sim_cc_bbr_test_noisy_rtt),
	KUNIT_CASE_SLOW(eri_sim_cc_bbr_test_congestion_step),
	KUNIT_CASE_SLOW(eri_sim_cc_bbr_test_random_loss),
	KUNIT_CASE_SLOW(eri_sim_cc_bbr_test_reorder_delay),
	KUNIT_CASE_SLOW(eri_sim_cc_bbr_test_route_change),
	KUNIT_CASE_SLOW(eri_sim_cc_bbr_test_app_window),
	KUNIT_CASE(eri_sim_cc_bbr_test_probe_up_bound),
	KUNIT_CASE(eri_sim_cc_bbr_test_queue_bound),
	KUNIT_CASE(eri_sim_cc_bbr_test_early_sample),
	KUNIT_CASE(eri_sim_cc_bbr_test_probe_rtt),
	{}
};

static struct kunit_suite eri_sim_cc_bbr_test_suite = {
	.name = "eri_sim_cc_bbr",
	.test_cases = eri_sim_cc_bbr_test_cases,
};

kunit_test_suite(eri_sim_cc_bbr_test_suite);
