#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Cut a traced small-message ping-pong into stages (docs/design/latency.md).

    latency_budget.py eri|rxe TRACE

TRACE is /sys/kernel/tracing/trace as text, recorded with the mono clock
while one ping-pong ran (one message in flight at a time):

  eri  the eri_sim tracepoints (Documentation/infiniband/eri.rst,
       "Tracepoints"): every event names its QP, so each message is
       followed exactly from the doorbell of the sending QP to the
       completion of the receiving one, and the receiver's turn-around
       to its own doorbell;
  rxe  the function tracer on rdma_rxe's stage functions (RXE_STAGES):
       entries carry no QP, so a message is the next entry of each stage
       after the one before (one message in flight makes that exact but
       for ACKs, which the requester's stages skip).

Prints each stage's median and 90th percentile in microseconds and the
number of messages it was measured over.
"""
import collections
import re
import statistics
import sys

# "task-pid [cpu] flags time: event: args" (a tracepoint) or
# "task-pid [cpu] flags time: function <-caller" (the function tracer).
LINE = re.compile(r"^\s*\S+-\d+\s+\[\d+\]\s+\S+\s+([\d.]+):\s+(\w+)(?::\s*|\s+<-)(.*)$")

# The stages of one message, in order: (name, event, how it matches).
ERI_STAGES = [
    ("kick -> requester builds the packet", "eri_sim_req_pkt", "self"),
    ("requester -> buffer to the stack", "eri_sim_xmit", "self"),
    ("stack -> receiving device (veth, IP, UDP)", "eri_sim_rx", "peer"),
    ("receive -> responder", "eri_sim_resp_pkt", "peer"),
    ("responder -> receive completion written", "eri_sim_cqe", "peer"),
]

RXE_STAGES = [
    ("post -> requester", "rxe_requester"),
    ("requester -> packet to the stack", "rxe_xmit_packet"),
    ("stack -> receive (veth, IP, UDP)", "rxe_udp_encap_recv"),
    ("receive -> responder", "rxe_responder"),
    ("responder -> receive completion written", "rxe_cq_post"),
]
RXE_START = "rxe_post_send"


def parse(path):
    ev = []
    with open(path, errors="replace") as f:
        for ln in f:
            m = LINE.match(ln)
            if m:
                ev.append((float(m.group(1)), m.group(2), m.group(3)))
    return ev


def field(args, name):
    m = re.search(r"\b%s=(\d+)" % name, args)
    return int(m.group(1)) if m else None


def qp_of(args):
    """(device, QPN) of an eri_sim event: its arguments start with the
    device's name."""
    return (args.split()[0] if args else None, field(args, "qpn"))


def eri_budget(ev):
    """Stages of every SEND from a doorbell to the peer's completion."""
    stages = {s[0]: [] for s in ERI_STAGES}
    stages["receiver's turn-around (poll, post, kick)"] = []
    stages["one way, kick to completion"] = []
    # The QP each QP sends to: the one that most often receives next after
    # it hands the stack a buffer.
    pairs = collections.Counter()
    last_tx = None
    for t, name, args in ev:
        if name == "eri_sim_xmit":
            last_tx = qp_of(args)
        elif name == "eri_sim_rx" and last_tx is not None:
            pairs[(last_tx, qp_of(args))] += 1
            last_tx = None
    peer = {}
    for (src, dst), _ in pairs.most_common():
        peer.setdefault(src, dst)
    n = len(ev)
    for i, (t0, name, args) in enumerate(ev):
        if name != "eri_sim_doorbell" or "sq" not in args.split():
            continue
        qpn = qp_of(args)
        if qpn not in peer:
            continue
        prev, ok, times = t0, True, []
        j = i + 1
        for sname, ename, who in ERI_STAGES:
            want = qpn if who == "self" else peer[qpn]
            while j < n:
                tj, nj, aj = ev[j]
                if nj == ename and qp_of(aj) == want and \
                        (ename != "eri_sim_cqe" or " rq " in " %s " % aj):
                    break
                # Another message of this QP began: this one is broken.
                if nj == "eri_sim_doorbell" and qp_of(aj) == qpn and \
                        "sq" in aj.split():
                    j = n
                    break
                j += 1
            if j >= n:
                ok = False
                break
            times.append((sname, ev[j][0] - prev))
            prev = ev[j][0]
        if not ok:
            continue
        for sname, d in times:
            stages[sname].append(d)
        stages["one way, kick to completion"].append(prev - t0)
        # The receiver answers: its next doorbell after the completion.
        for k in range(j + 1, n):
            tk, nk, ak = ev[k]
            if nk == "eri_sim_doorbell" and qp_of(ak) == peer[qpn]:
                stages["receiver's turn-around (poll, post, kick)"].append(tk - prev)
                break
    return stages


def rxe_budget(ev):
    stages = {s[0]: [] for s in RXE_STAGES}
    stages["one way, post to completion"] = []
    n = len(ev)
    for i, (t0, name, _) in enumerate(ev):
        if name != RXE_START:
            continue
        prev, j, times = t0, i + 1, []
        for sname, fname in RXE_STAGES:
            while j < n and ev[j][1] != fname:
                if ev[j][1] == RXE_START:
                    j = n
                    break
                j += 1
            if j >= n:
                break
            times.append((sname, ev[j][0] - prev))
            prev = ev[j][0]
            j += 1
        if len(times) != len(RXE_STAGES):
            continue
        for sname, d in times:
            stages[sname].append(d)
        stages["one way, post to completion"].append(prev - t0)
    return stages


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100.0 * len(v)))]


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("eri", "rxe"):
        sys.exit(__doc__)
    ev = parse(sys.argv[2])
    st = eri_budget(ev) if sys.argv[1] == "eri" else rxe_budget(ev)
    print("| stage | median [us] | p90 [us] | messages |")
    print("|---|---|---|---|")
    for name, v in st.items():
        if not v:
            print("| %s | - | - | 0 |" % name)
            continue
        print("| %s | %.1f | %.1f | %d |" % (name, statistics.median(v) * 1e6,
                                              pct(v, 90) * 1e6, len(v)))


if __name__ == "__main__":
    main()
