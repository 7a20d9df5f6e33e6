/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * eri_sim reliability logic: PSN arithmetic, PSN bitmaps (the responder's
 * receive map, the SACK encoding) and the requester's scoreboard with its
 * loss detector and the backoff of the retransmission timeout (the RTT
 * estimate is the congestion control's).
 *
 * Pure logic: nothing here takes a lock, allocates or reads a clock; time
 * comes in as nanoseconds on one monotonic clock.  The callers hold the
 * QP's lock (qp->lock) around every call on a QP's state; KUnit calls these
 * functions on its own copies.
 */
#ifndef _ERI_SIM_REL_H_
#define _ERI_SIM_REL_H_

#include <linux/bitmap.h>
#include <linux/types.h>

#include "eri_sim_cc.h"
#include "eri_wire_defs.h"

/* PSNs a map covers: the requester's most in flight, the responder's reach. */
#define ERI_SIM_REL_WIN		1024
/* Later PSNs SACKed that make a hole a loss, until reordering is seen. */
#define ERI_SIM_DUP_THRESH	3
/* Most the reordering seen may raise that threshold to. */
#define ERI_SIM_REORDER_MAX	128

/* The SACK words cover PSNs the maps hold; ring indexes need a power of 2. */
static_assert(ERI_WIRE_SACK_BITS < ERI_SIM_REL_WIN);
static_assert((ERI_SIM_REL_WIN & (ERI_SIM_REL_WIN - 1)) == 0);

static inline u32 eri_psn_add(u32 psn, u32 n)
{
	return (psn + n) & ERI_PSN_MASK;
}

/* Signed distance a - b in the 24-bit PSN space. */
static inline s32 eri_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

/**
 * struct eri_sim_psn_map - which PSNs of a window have arrived
 * @base: the PSN of bit 0
 * @span: no bit at or past it is set: the map's operations touch the
 *	words below it only (in order, one bit is set at a time)
 * @bits: bit i for PSN @base + i
 *
 * PSNs before @base count as arrived, PSNs at or past @base +
 * ERI_SIM_REL_WIN as out of reach.
 */
struct eri_sim_psn_map {
	u32 base;
	u32 span;
	DECLARE_BITMAP(bits, ERI_SIM_REL_WIN);
};

enum eri_sim_psn_set {
	ERI_SIM_PSN_NEW,	/* set now */
	ERI_SIM_PSN_DUP,	/* before @base or already set */
	ERI_SIM_PSN_FAR,	/* beyond the window: not set */
};

void eri_sim_psn_map_init(struct eri_sim_psn_map *m, u32 base);
enum eri_sim_psn_set eri_sim_psn_map_set(struct eri_sim_psn_map *m, u32 psn);
bool eri_sim_psn_map_test(const struct eri_sim_psn_map *m, u32 psn);
u32 eri_sim_psn_map_run(const struct eri_sim_psn_map *m);
void eri_sim_psn_map_advance(struct eri_sim_psn_map *m, u32 n);
u32 eri_sim_sack_encode(const struct eri_sim_psn_map *m, __be64 *sack);
void eri_sim_sack_decode(u32 base, u32 ack_psn, u32 off, const __be64 *sack,
			 unsigned long *out);

/* Delivery snapshots a scoreboard keeps, by PSN & (ERI_SIM_RATE_SNAPS - 1). */
#define ERI_SIM_RATE_SNAPS	256
static_assert((ERI_SIM_RATE_SNAPS & (ERI_SIM_RATE_SNAPS - 1)) == 0);
/*
 * A rate sample spans at least this many delivered PSNs where the snapshots
 * allow: two of the responder's ACKs (ERI_SIM_ACK_EVERY).
 */
#define ERI_SIM_RATE_MIN_PKTS	16
static_assert(ERI_SIM_RATE_MIN_PKTS < ERI_SIM_RATE_SNAPS);

/*
 * &eri_sim_rate_snap.tag: the PSN, a snapshot was taken, the sender idled,
 * a timeout's resent PSNs were in flight, the sender made up lost time.
 */
#define ERI_SIM_SNAP_PSN	ERI_PSN_MASK
#define ERI_SIM_SNAP_VALID	BIT(24)
#define ERI_SIM_SNAP_APP_LIMITED BIT(25)
#define ERI_SIM_SNAP_AMBIGUOUS	BIT(26)
#define ERI_SIM_SNAP_EARLY	BIT(27)

/**
 * struct eri_sim_rate_snap - the delivery state when a PSN was last sent
 * @tag: the PSN | ERI_SIM_SNAP_VALID, | ERI_SIM_SNAP_APP_LIMITED when it
 *	was sent while application limited, | ERI_SIM_SNAP_AMBIGUOUS when it
 *	was sent while &eri_sim_rate.ambiguous, | ERI_SIM_SNAP_EARLY while
 *	&eri_sim_rate.early; a later PSN of the same slot overwrites it
 * @delivered: low 32 bits of &eri_sim_rate.delivered
 * @lost: low 32 bits of &eri_sim_rate.lost_total
 * @tx_in_flight: the pipe after it was sent
 * @since_delivered_ns: its send time - &eri_sim_rate.delivered_ns, at most
 *	U32_MAX (a sample that old is invalid anyway)
 * @since_first_tx_ns: its send time - &eri_sim_rate.first_tx_ns, at most
 *	U32_MAX
 *
 * Its send time is the scoreboard's &eri_sim_sb.sent_ns; times are kept
 * relative to it so that a snapshot takes 24 bytes.
 */
struct eri_sim_rate_snap {
	u32 tag;
	u32 delivered;
	u32 lost;
	u32 tx_in_flight;
	u32 since_delivered_ns;
	u32 since_first_tx_ns;
};

static_assert(sizeof(struct eri_sim_rate_snap) == 24);

/**
 * struct eri_sim_rate - what delivery-rate samples are taken from
 * @delivered: PSNs delivered since the scoreboard's start
 * @delivered_ns: when @delivered last grew
 * @first_tx_ns: send time of the newest PSN delivered (when a flight
 *	started)
 * @lost_total: PSNs declared lost since the scoreboard's start
 * @app_limited_until: @delivered value up to which samples are application
 *	limited; 0: none
 * @acked: PSNs delivered by the ACK being taken in, not yet in @delivered
 * @newest_psn: of those, the one sent last whose snapshot is its own
 * @newest_sent_ns: its send time; valid while @newest is true
 * @newest: @newest_psn is set
 * @ambiguous_nxt: valid while @ambiguous: &eri_sim_sb.nxt when
 *	eri_sim_sb_lose_all() last declared PSNs lost
 * @ambiguous: since then, and until every PSN below @ambiguous_nxt is
 *	delivered, whose copy an ACK delivers (the first or one sent again)
 *	is unknown, and a PSN's send time is that of its last copy: a
 *	snapshot taken meanwhile gives no rate (Karn's rule, for delivery
 *	rates: the first copies' ACKs, arriving in a burst after a stall,
 *	would count as delivered within an interval that starts at a
 *	resending)
 * @early: PSNs leave ahead of the pacing rate, making up time a late host
 *	took (eri_sim_sb_early()): their snapshots give rates marked early
 * @snap: the snapshots
 */
struct eri_sim_rate {
	u64 delivered;
	u64 delivered_ns;
	u64 first_tx_ns;
	u64 lost_total;
	u64 app_limited_until;
	u32 acked;
	u32 newest_psn;
	u64 newest_sent_ns;
	bool newest;
	u32 ambiguous_nxt;
	bool ambiguous;
	bool early;
	struct eri_sim_rate_snap snap[ERI_SIM_RATE_SNAPS];
};

/**
 * struct eri_sim_sb - the requester's scoreboard of PSNs in flight
 * @una: oldest PSN not delivered; bit 0 of the bitmaps
 * @nxt: first PSN never sent; @nxt - @una <= ERI_SIM_REL_WIN
 * @sacked: delivered (acknowledged, SACKed, or a READ response arrived)
 * @lost: declared lost and not sent again yet
 * @read: belongs to a READ: only its response delivers it
 * @retx: was sent more than once
 * @sent_ns: when each PSN was last sent, by PSN & (ERI_SIM_REL_WIN - 1)
 * @rack_ns: latest send time of a packet known delivered
 * @rack_psn: that packet's PSN, the highest of those sent then: one run of
 *	the requester sends at one time, lost PSNs first, then new ones, all
 *	in PSN order, and a READ's responses leave in PSN order
 * @reorder: the duplicate threshold: later PSNs delivered that make a hole
 *	a loss; ERI_SIM_DUP_THRESH, raised to the largest reordering seen (a
 *	PSN sent once, delivered after a later one) plus one, at most
 *	ERI_SIM_REORDER_MAX
 * @stall_psn: the PSN a responder last reported waiting for while later
 *	requests arrived (eri_sim_sb_stalled())
 * @stall_top: the newest of those requests counted
 * @stall_n: how many were counted
 * @stall_sent_ns: @stall_psn's send time when counting began: a copy sent
 *	since starts the count again
 * @rate: delivery snapshots and counters for rate samples
 */
struct eri_sim_sb {
	u32 una;
	u32 nxt;
	DECLARE_BITMAP(sacked, ERI_SIM_REL_WIN);
	DECLARE_BITMAP(lost, ERI_SIM_REL_WIN);
	DECLARE_BITMAP(read, ERI_SIM_REL_WIN);
	DECLARE_BITMAP(retx, ERI_SIM_REL_WIN);
	u64 sent_ns[ERI_SIM_REL_WIN];
	u64 rack_ns;
	u32 rack_psn;
	u32 reorder;
	u32 stall_psn;
	u32 stall_top;
	u32 stall_n;
	u64 stall_sent_ns;
	struct eri_sim_rate rate;
};

void eri_sim_sb_init(struct eri_sim_sb *sb, u32 psn);
u32 eri_sim_sb_span(const struct eri_sim_sb *sb);
u32 eri_sim_sb_pipe(const struct eri_sim_sb *sb);
void eri_sim_sb_sent(struct eri_sim_sb *sb, u32 psn, bool read, u64 now_ns);
u32 eri_sim_sb_ack(struct eri_sim_sb *sb, u32 ack_psn, u32 off,
		   const __be64 *sack);
enum eri_sim_psn_set eri_sim_sb_deliver(struct eri_sim_sb *sb, u32 psn);
u32 eri_sim_sb_advance(struct eri_sim_sb *sb);
u32 eri_sim_sb_detect_loss(struct eri_sim_sb *sb, u64 now_ns, u64 srtt_ns);
u32 eri_sim_sb_stalled(struct eri_sim_sb *sb, u32 ack_psn, u32 trig,
		       u64 now_ns, u64 srtt_ns);
u32 eri_sim_sb_lose_all(struct eri_sim_sb *sb);
u32 eri_sim_sb_unlose(struct eri_sim_sb *sb);
bool eri_sim_sb_next_lost(const struct eri_sim_sb *sb, u32 *psn);
bool eri_sim_sb_una_lost(const struct eri_sim_sb *sb);
bool eri_sim_sb_last_unsacked(const struct eri_sim_sb *sb, u32 *psn);
bool eri_sim_sb_delivered(const struct eri_sim_sb *sb, u32 psn);
void eri_sim_sb_app_limited(struct eri_sim_sb *sb, u32 pipe);
void eri_sim_sb_early(struct eri_sim_sb *sb, bool early);
void eri_sim_sb_rate_sample(struct eri_sim_sb *sb, u64 now_ns,
			    u64 min_rtt_ns, struct eri_sim_cc_rs *rs);
u64 eri_sim_rto_backoff(u64 rto_ns, u32 backoff, u64 min_ns, u64 max_ns);
u64 eri_sim_retry_budget_ns(u32 retry_cnt, u64 ack_timeout_ns);
bool eri_sim_retry_exhausted(u32 retries, u32 retry_cnt, u64 quiet_ns,
			     u64 ack_timeout_ns);

/* Atomic results a responder keeps: the device's max_qp_rd_atom. */
#define ERI_SIM_ATOMIC_RES	16

/**
 * struct eri_sim_ares - the responder's atomic results (responder resources)
 * @next: slot the next result overwrites, the oldest once all are used
 * @used: slots holding a result
 * @psn: the PSN of each slot's ATOMIC request
 * @orig: the original value each slot's atomic returned
 *
 * A duplicate ATOMIC request is answered from here and never executed
 * again.  The requester has at most ERI_SIM_ATOMIC_RES READs and atomics
 * outstanding, so the result of any it may still send again is kept.
 */
struct eri_sim_ares {
	u32 next;
	u32 used;
	u32 psn[ERI_SIM_ATOMIC_RES];
	u64 orig[ERI_SIM_ATOMIC_RES];
};

void eri_sim_ares_init(struct eri_sim_ares *r);
void eri_sim_ares_save(struct eri_sim_ares *r, u32 psn, u64 orig);
bool eri_sim_ares_find(const struct eri_sim_ares *r, u32 psn, u64 *orig);

#endif /* _ERI_SIM_REL_H_ */
