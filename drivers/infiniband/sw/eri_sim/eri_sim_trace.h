/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Tracepoints of the software device's datapath, one per stage a message
 * goes through (Documentation/infiniband/eri.rst, "Tracepoints"): the
 * doorbell, a packet built by the requester, a buffer handed to the
 * network stack, a buffer received, a request taken by the responder, an
 * ACK sent, an ACK taken by the requester, a completion written.  With
 * their timestamps the time a message spends in each stage can be read
 * off a trace (docs/design/latency.md).  One more, eri_sim_cc, shows what
 * congestion control made of each ACK and timeout.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM eri_sim

#if !defined(_ERI_SIM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ERI_SIM_TRACE_H

#include <linux/bitfield.h>
#include <linux/eri/eri_io_defs.h>
#include <linux/tracepoint.h>

#include "eri_sim_cc.h"

/* The device's name in each event: "eri0", cut to fit. */
#define ERI_SIM_TRACE_DEV_LEN	16

/* A producer rang a QP's send or receive queue doorbell. */
TRACE_EVENT(eri_sim_doorbell,
	    TP_PROTO(const char *dev, u32 qpn, bool sq),
	    TP_ARGS(dev, qpn, sq),
	    TP_STRUCT__entry(__array(char, dev, ERI_SIM_TRACE_DEV_LEN)
			     __field(u32, qpn)
			     __field(bool, sq)),
	    TP_fast_assign(strscpy(__entry->dev, dev, ERI_SIM_TRACE_DEV_LEN);
			   __entry->qpn = qpn;
			   __entry->sq = sq;),
	    TP_printk("%s qpn=%u %s", __entry->dev, __entry->qpn,
		      __entry->sq ? "sq" : "rq")
);

/* A data packet of a QP: built by the requester, or taken by the responder. */
DECLARE_EVENT_CLASS(eri_sim_pkt,
		    TP_PROTO(const char *dev, u32 qpn, u32 psn, u8 opcode,
			     u32 len),
		    TP_ARGS(dev, qpn, psn, opcode, len),
		    TP_STRUCT__entry(__array(char, dev, ERI_SIM_TRACE_DEV_LEN)
				     __field(u32, qpn)
				     __field(u32, psn)
				     __field(u32, len)
				     __field(u8, opcode)),
		    TP_fast_assign(strscpy(__entry->dev, dev,
					   ERI_SIM_TRACE_DEV_LEN);
				   __entry->qpn = qpn;
				   __entry->psn = psn;
				   __entry->len = len;
				   __entry->opcode = opcode;),
		    TP_printk("%s qpn=%u psn=%u opcode=%u len=%u", __entry->dev,
			      __entry->qpn, __entry->psn, __entry->opcode,
			      __entry->len)
);

/* The requester put a new data packet into the QP's super-packet. */
DEFINE_EVENT(eri_sim_pkt, eri_sim_req_pkt,
	     TP_PROTO(const char *dev, u32 qpn, u32 psn, u8 opcode, u32 len),
	     TP_ARGS(dev, qpn, psn, opcode, len)
);

/* The responder took a request packet (before it is checked). */
DEFINE_EVENT(eri_sim_pkt, eri_sim_resp_pkt,
	     TP_PROTO(const char *dev, u32 qpn, u32 psn, u8 opcode, u32 len),
	     TP_ARGS(dev, qpn, psn, opcode, len)
);

/* A buffer of @pkts packets, @len bytes, of a QP's. */
DECLARE_EVENT_CLASS(eri_sim_buf,
		    TP_PROTO(const char *dev, u32 qpn, u32 pkts, u32 len),
		    TP_ARGS(dev, qpn, pkts, len),
		    TP_STRUCT__entry(__array(char, dev, ERI_SIM_TRACE_DEV_LEN)
				     __field(u32, qpn)
				     __field(u32, pkts)
				     __field(u32, len)),
		    TP_fast_assign(strscpy(__entry->dev, dev,
					   ERI_SIM_TRACE_DEV_LEN);
				   __entry->qpn = qpn;
				   __entry->pkts = pkts;
				   __entry->len = len;),
		    TP_printk("%s qpn=%u pkts=%u len=%u", __entry->dev,
			      __entry->qpn, __entry->pkts, __entry->len)
);

/* The QP's buffer went to the network stack. */
DEFINE_EVENT(eri_sim_buf, eri_sim_xmit,
	     TP_PROTO(const char *dev, u32 qpn, u32 pkts, u32 len),
	     TP_ARGS(dev, qpn, pkts, len)
);

/* A received buffer for the QP was accepted. */
DEFINE_EVENT(eri_sim_buf, eri_sim_rx,
	     TP_PROTO(const char *dev, u32 qpn, u32 pkts, u32 len),
	     TP_ARGS(dev, qpn, pkts, len)
);

/* The responder sends an ACK or NAK. */
TRACE_EVENT(eri_sim_ack_tx,
	    TP_PROTO(const char *dev, u32 qpn, u32 ack_psn, u8 syndrome),
	    TP_ARGS(dev, qpn, ack_psn, syndrome),
	    TP_STRUCT__entry(__array(char, dev, ERI_SIM_TRACE_DEV_LEN)
			     __field(u32, qpn)
			     __field(u32, ack_psn)
			     __field(u8, syndrome)),
	    TP_fast_assign(strscpy(__entry->dev, dev, ERI_SIM_TRACE_DEV_LEN);
			   __entry->qpn = qpn;
			   __entry->ack_psn = ack_psn;
			   __entry->syndrome = syndrome;),
	    TP_printk("%s qpn=%u ack_psn=%u syndrome=%u", __entry->dev,
		      __entry->qpn, __entry->ack_psn, __entry->syndrome)
);

/* The requester took an ACK, NAK or response up to @ack_psn. */
TRACE_EVENT(eri_sim_req_ack,
	    TP_PROTO(const char *dev, u32 qpn, u32 ack_psn, u8 opcode,
		     u32 rtt_ns),
	    TP_ARGS(dev, qpn, ack_psn, opcode, rtt_ns),
	    TP_STRUCT__entry(__array(char, dev, ERI_SIM_TRACE_DEV_LEN)
			     __field(u32, qpn)
			     __field(u32, ack_psn)
			     __field(u32, rtt_ns)
			     __field(u8, opcode)),
	    TP_fast_assign(strscpy(__entry->dev, dev, ERI_SIM_TRACE_DEV_LEN);
			   __entry->qpn = qpn;
			   __entry->ack_psn = ack_psn;
			   __entry->rtt_ns = rtt_ns;
			   __entry->opcode = opcode;),
	    TP_printk("%s qpn=%u ack_psn=%u opcode=%u rtt_ns=%u", __entry->dev,
		      __entry->qpn, __entry->ack_psn, __entry->opcode,
		      __entry->rtt_ns)
);

/* A completion was written into CQ @cqn; @event: a completion event too. */
TRACE_EVENT(eri_sim_cqe,
	    TP_PROTO(const char *dev, u32 cqn, const struct eri_cqe *cqe,
		     bool event),
	    TP_ARGS(dev, cqn, cqe, event),
	    TP_STRUCT__entry(__array(char, dev, ERI_SIM_TRACE_DEV_LEN)
			     __field(u32, cqn)
			     __field(u32, qpn)
			     __field(u8, status)
			     __field(u8, opcode)
			     __field(bool, sq)
			     __field(bool, event)),
	    TP_fast_assign(u32 hdr = le32_to_cpu(cqe->hdr);

			   strscpy(__entry->dev, dev, ERI_SIM_TRACE_DEV_LEN);
			   __entry->cqn = cqn;
			   __entry->qpn = le32_to_cpu(cqe->qpn);
			   __entry->status = FIELD_GET(ERI_CQE_HDR_STATUS, hdr);
			   __entry->opcode = FIELD_GET(ERI_CQE_HDR_OPCODE, hdr);
			   __entry->sq = hdr & ERI_CQE_HDR_SQ;
			   __entry->event = event;),
	    TP_printk("%s cqn=%u qpn=%u %s opcode=%u status=%u event=%u",
		      __entry->dev, __entry->cqn, __entry->qpn,
		      __entry->sq ? "sq" : "rq", __entry->opcode,
		      __entry->status, __entry->event)
);

/*
 * Congestion control updated a QP's state from an ACK (@timeout false:
 * its RTT sample, PSNs it delivered and declared lost, its ECN echo) or a
 * retransmission timeout (@lost: the PSNs it declared lost); @pipe: PSNs
 * in flight after it.  Fired under the QP's lock, after the update.
 */
TRACE_EVENT(eri_sim_cc,
	    TP_PROTO(const char *dev, u32 qpn, const struct eri_sim_cc *cc,
		     bool timeout, u32 pipe, u64 rtt_ns, u32 acked, u32 lost,
		     bool ce, const struct eri_sim_cc_rs *rs),
	    TP_ARGS(dev, qpn, cc, timeout, pipe, rtt_ns, acked, lost, ce, rs),
	    TP_STRUCT__entry(__array(char, dev, ERI_SIM_TRACE_DEV_LEN)
			     __array(char, mode, ERI_CC_NAME_MAX)
			     __field(u64, pacing_rate)
			     __field(u64, bw)
			     __field(u64, srtt_ns)
			     __field(u64, min_rtt_ns)
			     __field(u64, rtt_ns)
			     __field(u64, rs_interval_ns)
			     __field(u32, qpn)
			     __field(u32, cwnd)
			     __field(u32, pipe)
			     __field(u32, acked)
			     __field(u32, lost)
			     __field(u32, rs_delivered)
			     __field(u32, rs_bw)
			     __field(u8, algo)
			     __field(bool, timeout)
			     __field(bool, ce)),
	    TP_fast_assign(strscpy(__entry->dev, dev, ERI_SIM_TRACE_DEV_LEN);
			   strscpy(__entry->mode, eri_sim_cc_mode(cc),
				   ERI_CC_NAME_MAX);
			   __entry->pacing_rate = cc->pacing_rate;
			   __entry->bw = eri_sim_cc_bw(cc);
			   __entry->srtt_ns = cc->srtt_ns;
			   __entry->min_rtt_ns = cc->min_rtt_ns;
			   __entry->rtt_ns = rtt_ns;
			   __entry->qpn = qpn;
			   __entry->cwnd = cc->cwnd;
			   __entry->pipe = pipe;
			   __entry->acked = acked;
			   __entry->lost = lost;
			   __entry->algo = cc->ops->index;
			   __entry->timeout = timeout;
			   __entry->ce = ce;
			   __entry->rs_interval_ns = rs && rs->valid ?
						     rs->interval_ns : 0;
			   __entry->rs_delivered = rs && rs->valid ?
						   rs->delivered : 0;
			   __entry->rs_bw = rs && rs->valid ? rs->bw : 0;),
	    TP_printk("%s qpn=%u %s algo=%u mode=%s cwnd=%u.%03u pipe=%u pacing_rate=%llu bw=%llu srtt_ns=%llu min_rtt_ns=%llu rtt_ns=%llu acked=%u lost=%u ce=%u rs_delivered=%u rs_interval_ns=%llu rs_bw=%u",
		      __entry->dev, __entry->qpn,
		      __entry->timeout ? "timeout" : "ack", __entry->algo,
		      __entry->mode, __entry->cwnd >> ERI_SIM_CC_FP_SHIFT,
		      (u32)(((u64)(__entry->cwnd & (ERI_SIM_CC_ONE - 1)) *
			     1000) >> ERI_SIM_CC_FP_SHIFT),
		      __entry->pipe, __entry->pacing_rate, __entry->bw,
		      __entry->srtt_ns, __entry->min_rtt_ns, __entry->rtt_ns,
		      __entry->acked, __entry->lost, __entry->ce,
		      __entry->rs_delivered, __entry->rs_interval_ns,
		      __entry->rs_bw)
);

#endif /* _ERI_SIM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE eri_sim_trace

#include <trace/define_trace.h>
