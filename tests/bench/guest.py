#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Guest side of the ERI benchmark (run by tests/bench/guest.sh under vm-run).

Every contender gets its own veth pair in the initial network namespace
(rdma_rxe on 6.1 works only there), one address on each end:

    198.18.N.1/32 on bench-<c>-a  <== veth ==>  bench-<c>-b with 198.18.N.2/32

Both addresses are local, so by default the kernel would deliver A->B over
lo (and rdma_rxe would short-circuit it).  Policy routing sends locally
generated traffic across the pair instead: the `local` table moves from
priority 0 to 100, and at priority 10 rules "iif lo to B" and "iif lo to A"
select per-contender tables whose only route leaves through the opposite end
(A's end for B, B's end for A), with permanent neighbour entries for the
peer's MAC.  Arriving packets (iif is the veth) skip those rules and meet
the `local` table: delivered.  accept_local=1 and rp_filter=0 let a packet
whose source is a local address in.  Every veth end has the same netem qdisc
(both directions impaired alike), and the veth's packet and byte counters
are read before and after every run and stored with it: a run whose bytes did
not cross the link is marked invalid, never counted.

netem drops whole buffers, and with GSO a stack hands the veth buffers of up
to 64 KiB that are cut into packets only after the qdisc.  Conditions with
loss ("wire": "segment") therefore send every contender's traffic through a
segmenter first: a second veth pair per contender (bench-<c>-sa and -sb,
without TSO or UDP segmentation offload, so the veth cuts every GSO buffer
into MTU-sized frames as a NIC would), whose far end hands each frame, by a
tc mirred redirect at its ingress, to the contender's veth end A (or B) and
its netem.  netem drops wire packets, the stacks above keep building
super-packets and TSO segments, and the receiving veth end has GRO on (TSO
off on the sending end: veth only gives such packets to its NAPI), so what
arrives is merged again, as a NIC's GRO would: the path of a cloud VM whose
NIC segments and merges.  A flow whose route lookup names the veth end
(rdma_rxe's, siw's accepted connections, bound to their device) takes the
veth directly (a route of lower preference), and the veth ends have
gso_max_segs 1: such flows send single packets (rdma_rxe always does).  Per
run, netem's counters (packets: a GSO buffer counts as
its segments) beside the veth's (buffers) show what netem saw; a run under
such a condition whose counters show a GSO buffer is marked invalid.
"single" conditions set gso_max_segs 1 on every veth end instead: every
stack hands netem single packets (no super-packets, no GRO).  Conditions
without loss keep GSO on for everyone on the direct veth.
The jumbo condition runs a few cells with MTU 9000 on every veth (see
CONDITIONS).  The noisy condition ("noisy neighbour") runs a few cells while
the host's cores are oversubscribed by a load outside the VM: the guest
asks scripts/bench.sh for it through OUT/host-load ("on" or "off"), and the
host confirms in OUT/host-load.ack; the condition's record says whether it
did.

Contenders are alternated inside each cell (order rotated per repeat), so
drift hits all of them alike.  Every run has a timeout; a failure or a
timeout is recorded with its reason and the harness moves on.  Results are
appended to OUT/runs.jsonl as they happen (one JSON object per run).
"""
import argparse
import json
import os
import re
import resource
import shlex
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

CONTENDERS = {
    # name: (subnet index, kind)
    "eri": (1, "rdma"),
    "rxe": (2, "rdma"),
    "siw": (3, "rdma"),
    "tcp": (4, "tcp"),
}

KIB = 1024
MIB = 1024 * 1024
SOCKPERF_MAX_MSG = 65507
IPERF3_MAX_BLOCK = 1 * MIB

GRIDS = {
    "quick": {
        "lat_ops": ["send"],
        "lat_sizes": [64, 4 * KIB],
        "lat_iters": 200,
        "bw_ops": ["write"],
        "bw_sizes": [64, 64 * KIB],
        "bw_qps": [1],
        # Bandwidth runs move bw_bytes per QP: iterations = bw_bytes / size,
        # clamped to [bw_min_iters, bw_max_iters].
        "bw_bytes": 2 * MIB, "bw_min_iters": 8, "bw_max_iters": 2000,
        "tcp_lat_secs": 3,
        "conditions": ["loss0", "loss1"],
        # Cells of the jumbo condition (veth MTU 9000), TEST:SIZE:QPS; not
        # in the quick grid's ten minutes: --set conditions=loss0,loss1,jumbo
        "jumbo_cells": ["write_bw:65536:1"],
        # Cells of the noisy condition (a load outside the VM); not in the
        # quick grid either: --set conditions=loss0,noisy
        "noisy_cells": ["write_bw:65536:1"],
        "wire0_cells": ["write_bw:65536:1"],
        "repeats": 3,
        "lat_timeout": 25, "bw_timeout": 25,
        # ERI's congestion control by name (its devices' cc_algo); empty:
        # the device's default.  --set eri_cc=fixed compares against it.
        "eri_cc": "",
    },
    "full": {
        "lat_ops": ["send", "write", "read"],
        "lat_sizes": [2, 4 * KIB, 64 * KIB],
        "lat_iters": 1000,
        "bw_ops": ["write", "read", "send"],
        "bw_sizes": [64, 64 * KIB, 4 * MIB],
        "bw_qps": [1, 4],
        # With more than one QP, one size: how a contender spreads over
        # QPs.  4 MiB on 4 QPs (80 MiB a run at perftest's least 5
        # iterations) and 64 B on 4 QPs took half of a condition's time.
        "bw_multi_qp_sizes": [64 * KIB],
        # perftest takes no fewer than 5 iterations.
        "bw_bytes": 2 * MIB, "bw_min_iters": 5, "bw_max_iters": 20000,
        # Volumes sized to the contender (see plan_iters): each run moves
        # about target_s seconds' worth, but at least lat_min_iters
        # exchanges (a p99 from 300 samples) or bw_min_bytes per QP (past
        # a slow start).  Under TCG a run's start-up (two perftest
        # processes, device open, connection) takes longer than its
        # traffic: half a second of traffic is measured over thousands of
        # messages, and the grid fits in two hours.
        "target_s": 0.5, "lat_min_iters": 300, "bw_min_bytes": 256 * KIB,
        "tcp_lat_secs": 2,
        "conditions": ["loss0", "wire0", "loss0.1", "loss1", "loss5",
                       "delay250", "loss1+delay250", "jumbo", "noisy"],
        # The bulk cells, 1 QP: what IB MTU 4096 and TCP's 9000-byte MTU
        # change (about four minutes).
        "jumbo_cells": ["write_bw:65536:1", "write_bw:4194304:1",
                        "read_bw:65536:1", "send_bw:65536:1"],
        # A shared host (issue 20): bulk writes, where a contender that
        # waits on timers or work items while its vCPU is descheduled
        # falls behind, and small-message latency.
        "noisy_cells": ["send_lat:2:1", "write_bw:65536:1"],
        # The loss conditions' path without loss, for their bulk cells: what
        # a contender keeps of it under loss.
        "wire0_cells": ["write_bw:65536:1", "write_bw:4194304:1",
                        "read_bw:65536:1", "send_bw:65536:1"],
        "repeats": 3,
        "lat_timeout": 30, "bw_timeout": 40,
        "eri_cc": "",
    },
}

# name -> how every veth end is set (the same on both ends, so each
# direction is impaired alike):
#   netem  the netem arguments;
#   wire   netem drops whole buffers, and a stack hands the veth GSO
#          buffers of up to 64 KiB (TCP's segments, ERI's super-packets)
#          cut into packets only after the qdisc: loss of 1% of those is
#          not 1% of the packets a real network would drop.  "segment":
#          every contender's traffic is cut into MTU-sized frames before
#          netem (the segmenter pair, see the module's text) and merged
#          again by GRO at the receiving end, so the stacks keep their
#          super-packets and netem drops wire packets.  "single": the veth
#          gets gso_max_segs 1, so every stack hands it single packets.
#          Checked per run: wire_check(), wire_violation().  Without it
#          (no loss) GSO stays on for everyone on the direct veth;
#   mtu    the veths' MTU (IB MTU 4096 needs 4096 bytes of payload plus
#          the headers: 9000 gives every RDMA contender its largest MTU);
#   cells  the grid entry that lists the cells measured in this condition
#          (default: all of them);
#   host_load
#          the host runs a busy process per core beside the VM while the
#          condition lasts (scripts/bench.sh, asked through OUT/host-load):
#          the vCPUs get about half a core each, and are descheduled for
#          whole time slices, as on an oversubscribed cloud host.
CONDITIONS = {
    "loss0": {"netem": []},
    "loss0.1": {"netem": ["loss", "0.1%"], "wire": "segment"},
    "loss1": {"netem": ["loss", "1%"], "wire": "segment"},
    "loss5": {"netem": ["loss", "5%"], "wire": "segment"},
    "delay250": {"netem": ["delay", "250us", "50us"]},
    "loss1+delay250": {"netem": ["loss", "1%", "delay", "250us", "50us"],
                       "wire": "segment"},
    "jumbo": {"netem": [], "mtu": 9000, "cells": "jumbo_cells"},
    "noisy": {"netem": [], "cells": "noisy_cells", "host_load": True},
    # The loss conditions' path without loss: what they would move if
    # nothing were dropped (the bulk cells: --set conditions=loss0,wire0,loss1).
    "wire0": {"netem": [], "wire": "segment", "cells": "wire0_cells"},
    # Single packets for every stack (the harness's loss conditions before
    # the segmenter), not in the grids: --set conditions=single0,single1.
    "single0": {"netem": [], "wire": "single"},
    "single1": {"netem": ["loss", "1%"], "wire": "single"},
}
DEFAULT_MTU = 1500
# The veths' GSO limits when GSO is on: the kernel's defaults for a new
# veth, read by setup_topology().
GSO_ON = {}
# Ethernet header on top of the MTU: the largest frame a veth may carry
# without GSO.
ETH_HLEN = 14

OUT = None
T0 = time.monotonic()
DEADLINE = None


def log(msg):
    print("bench: [%6.1fs] %s" % (time.monotonic() - T0, msg), flush=True)


def sh(cmd, check=True, timeout=30):
    """Run a setup command; returns (rc, output)."""
    if isinstance(cmd, str):
        cmd = shlex.split(cmd)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        if check:
            raise RuntimeError("timeout: %s" % " ".join(cmd))
        return 124, "timeout"
    if check and p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), p.stdout.strip()))
    return p.returncode, p.stdout


def write_sysctl(path, value):
    try:
        with open("/proc/sys/" + path.replace(".", "/"), "w") as f:
            f.write(str(value))
    except OSError as e:
        log("sysctl %s=%s: %s" % (path, value, e))


def ends(c):
    return "bench-%s-a" % c, "bench-%s-b" % c


def seg_ends(c):
    """The segmenter pair: A's traffic to B leaves through the first, B's to
    A through the second (see the module's text)."""
    return "bench-%s-sa" % c, "bench-%s-sb" % c


def addrs(c):
    n = CONTENDERS[c][0]
    return "198.18.%d.1" % n, "198.18.%d.2" % n


def mac_of(dev):
    with open("/sys/class/net/%s/address" % dev) as f:
        return f.read().strip()


def counters(dev):
    d = {}
    for k in ("tx_packets", "rx_packets", "tx_bytes", "rx_bytes", "tx_dropped",
              "rx_dropped"):
        try:
            with open("/sys/class/net/%s/statistics/%s" % (dev, k)) as f:
                d[k] = int(f.read())
        except OSError:
            d[k] = None
    return d


# ERI's device counters read around every run (rdma statistic shows the
# same ones): packets and the buffers they travelled in (a super-packet is
# one buffer), retransmissions, timeouts and those found spurious, doorbells.
ERI_COUNTERS = ("tx_pkts", "tx_skbs", "rx_pkts", "rx_skbs", "retrans_pkts",
                "timeouts", "timeouts_undone", "sq_kicks")


def eri_counters(info):
    """Both ERI devices' counters, summed; None for a counter not there."""
    tot = dict.fromkeys(ERI_COUNTERS, 0)
    for d in info.get("devices", []):
        for k in ERI_COUNTERS:
            try:
                with open("/sys/class/infiniband/%s/ports/1/hw_counters/%s" % (d, k)) as f:
                    v = int(f.read())
            except (OSError, ValueError):
                v = None
            tot[k] = None if v is None or tot[k] is None else tot[k] + v
    return tot


# rtnetlink (linux/rtnetlink.h, linux/pkt_sched.h, linux/gen_stats.h): a
# qdisc dump read straight from the kernel.  tc takes about a second per
# call in the TCG guest, twice per run; this takes milliseconds.
RTM_NEWQDISC, RTM_GETQDISC = 36, 38
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
TCA_KIND, TCA_STATS2 = 1, 7
TCA_STATS_BASIC, TCA_STATS_QUEUE, TCA_STATS_PKT64 = 1, 3, 8
TC_H_ROOT = 0xFFFFFFFF
QDISC_KEYS = ("bytes", "packets", "drops", "requeues", "overlimits")


def nl_attrs(buf):
    """(type, payload) of each netlink attribute in buf."""
    off = 0
    while off + 4 <= len(buf):
        ln, typ = struct.unpack_from("=HH", buf, off)
        if ln < 4:
            break
        yield typ & 0x3FFF, buf[off + 4:off + ln]
        off += (ln + 3) & ~3


def qdisc_counters():
    """Every root netem qdisc's counters, by device, from one rtnetlink dump.

    packets counts what the qdisc let through in packets: a GSO buffer
    counts as its segments (and bytes as their frames); drops counts
    buffers.  The veth's own tx_packets counts buffers: the two together
    say whether netem saw wire packets or GSO buffers (wire_check()).
    """
    try:
        return _qdisc_dump()
    except (OSError, struct.error) as e:
        log("qdisc counters: %s" % e)
        return {}


def _qdisc_dump(kinds=("netem",)):
    names = {i: n for i, n in socket.if_nameindex()}
    res = {}
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE) as sk:
        sk.settimeout(5)
        # struct nlmsghdr, then struct tcmsg (all zero: every device).
        req = struct.pack("=IHHII", 16 + 20, RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, 1, 0)
        sk.send(req + bytes(20))
        done = False
        while not done:
            data = sk.recv(1 << 16)
            off = 0
            while off + 16 <= len(data):
                ln, typ, _, _, _ = struct.unpack_from("=IHHII", data, off)
                if ln < 16:
                    done = True
                    break
                msg = data[off + 16:off + ln]
                off += (ln + 3) & ~3
                if typ in (NLMSG_DONE, NLMSG_ERROR):
                    done = True
                    break
                if typ != RTM_NEWQDISC or len(msg) < 20:
                    continue
                _, ifindex, _, parent, _ = struct.unpack_from("=BxxxiIII", msg)
                kind, st = None, {}
                for t, v in nl_attrs(msg[20:]):
                    if t == TCA_KIND:
                        kind = v.rstrip(b"\0").decode()
                    elif t == TCA_STATS2:
                        for t2, v2 in nl_attrs(v):
                            if t2 == TCA_STATS_BASIC and len(v2) >= 12:
                                st["bytes"], pk = struct.unpack_from("=QI", v2)
                                st.setdefault("packets", pk)
                            elif t2 == TCA_STATS_PKT64 and len(v2) >= 8:
                                st["packets"] = struct.unpack_from("=Q", v2)[0]
                            elif t2 == TCA_STATS_QUEUE and len(v2) >= 20:
                                (st["qlen"], st["backlog"], st["drops"], st["requeues"],
                                 st["overlimits"]) = struct.unpack_from("=IIIII", v2)
                if kind in kinds and parent == TC_H_ROOT and ifindex in names:
                    res[names[ifindex]] = {k: st.get(k) for k in QDISC_KEYS}
    return res


def link_snapshot(c):
    a, b = ends(c)
    q = qdisc_counters()
    none = dict.fromkeys(QDISC_KEYS)
    sa, sb = seg_ends(c)
    return {"a": counters(a), "b": counters(b), "lo": counters("lo"),
            "sa": counters(sa), "sb": counters(sb),
            "qdisc_a": q.get(a, none), "qdisc_b": q.get(b, none)}


def link_delta(before, after):
    out = {}
    for side in before:
        out[side] = {k: (after[side][k] - before[side][k])
                     if after[side][k] is not None and before[side][k] is not None
                     else None for k in before[side]}
    return out


def wire_check(link, mtu):
    """What netem saw on each end in one run (link: link_delta()).

    skbs: the buffers that passed netem (the veth's tx_packets and
    tx_dropped); pkts: the packets in them (netem's count, a GSO buffer's
    segments each).  Wire packets: pkts == skbs and no buffer larger than
    an MTU-sized frame (the veth's bytes per buffer).  A small excess of
    pkts is allowed: the two counters are read one after the other, and a
    packet of the connection's end can pass in between.
    """
    res = {"max_frame": mtu + ETH_HLEN, "ends": {}}
    gso = False
    for side in ("a", "b"):
        v, q = link[side], link["qdisc_" + side]
        if None in (v["tx_packets"], v["tx_bytes"], q["packets"]):
            res["unknown"] = True
            continue
        skbs = v["tx_packets"] + (v["tx_dropped"] or 0)
        e = {"skbs": skbs, "pkts": q["packets"], "drops": q["drops"],
             "pkts_per_skb": round(q["packets"] / skbs, 3) if skbs else None,
             "bytes_per_skb": round(v["tx_bytes"] / v["tx_packets"], 1)
             if v["tx_packets"] else None}
        e["gso"] = bool(q["packets"] > skbs + 2 + skbs // 100 or
                        (e["bytes_per_skb"] or 0) > mtu + ETH_HLEN)
        gso |= e["gso"]
        res["ends"][side] = e
    res["gso_buffers"] = gso
    return res


def proc_stat():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v), idle


def cpu_delta(s0, s1, wall):
    tot = s1[0] - s0[0]
    idle = s1[1] - s0[1]
    hz = os.sysconf("SC_CLK_TCK")
    ncpu = os.cpu_count() or 1
    busy = max(tot - idle, 0)
    return {"busy_pct": round(100.0 * busy / tot, 1) if tot > 0 else None,
            "busy_cpu_s": round(busy / hz, 3), "wall_s": round(wall, 3),
            "ncpu": ncpu}


class TrafficSampler:
    """The VM's busy CPU time and the bytes on a contender's veth, sampled
    every SAMPLE_S while a client runs (a thread of this process).

    A run's CPU per MB over the client's whole life counts its start-up
    (two processes, device open, registration, connection), which under
    TCG takes longer than half a second of traffic and differs between
    contenders more than their transports do.  The window in which the
    bulk of the run's bytes crossed the veth (window()) is the time the
    payload moved: its CPU, per MB of what moved in it, is what a
    contender costs per byte.
    """

    SAMPLE_S = 0.025

    def __init__(self, devs):
        self.paths = ["/sys/class/net/%s/statistics/tx_bytes" % d for d in devs]
        self.samples = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def sample(self):
        n = 0
        for path in self.paths:
            try:
                with open(path) as f:
                    n += int(f.read())
            except (OSError, ValueError):
                return
        tot, idle = proc_stat()
        self.samples.append((time.monotonic(), tot - idle, n))

    def loop(self):
        self.sample()
        while not self.stop.wait(self.SAMPLE_S):
            self.sample()
        self.sample()

    def __enter__(self):
        # No veth to watch (latency runs): no thread waking the guest.
        if self.paths:
            self.thread.start()
        return self

    def __exit__(self, *exc):
        if self.paths:
            self.stop.set()
            self.thread.join()

    def window(self):
        """busy CPU seconds, veth bytes and seconds over the bulk of the
        traffic: from the last sample before 5% of the run's veth bytes
        had moved to the first one after 95% had (the tools' own control
        connections cross the veth too, seconds before and after the
        payload, with a few kilobytes); None when that took fewer than
        MIN_SAMPLES samples."""
        sm = self.samples
        if len(sm) < 2 or sm[-1][2] <= sm[0][2]:
            return None
        total = sm[-1][2] - sm[0][2]
        lo, hi = sm[0][2] + 0.05 * total, sm[0][2] + 0.95 * total
        first = max(i for i in range(len(sm)) if sm[i][2] <= lo)
        last = min(i for i in range(len(sm)) if sm[i][2] >= hi)
        if last - first < self.MIN_SAMPLES:
            return None
        a, b = sm[first], sm[last]
        hz = os.sysconf("SC_CLK_TCK")
        return {"busy_cpu_s": round((b[1] - a[1]) / hz, 3),
                "link_bytes": b[2] - a[2], "wall_s": round(b[0] - a[0], 3),
                "samples": last - first + 1}

    # Four samples: 100 ms, ten ticks of each CPU's time.
    MIN_SAMPLES = 4


# ------------------------------------------------------------------ topology
def setup_topology(names):
    write_sysctl("net.ipv4.conf.all.rp_filter", 0)
    write_sysctl("net.ipv4.conf.default.rp_filter", 0)
    write_sysctl("net.ipv4.conf.all.accept_local", 1)
    # Move the local table behind our rules (priority 0 -> 100).
    rc, rules = sh("ip rule show", check=False)
    if not re.search(r"^100:\s+from all lookup local", rules, re.M):
        sh("ip rule add pref 100 lookup local")
    if re.search(r"^0:\s+from all lookup local", rules, re.M):
        sh("ip rule del pref 0 lookup local")
    topo = {}
    for c in names:
        n = CONTENDERS[c][0]
        a, b = ends(c)
        ipa, ipb = addrs(c)
        sh("ip link del %s" % a, check=False)
        sh("ip link add %s type veth peer name %s" % (a, b))
        for d in (a, b):
            write_sysctl("net.ipv6.conf.%s.disable_ipv6" % d, 1)
            write_sysctl("net.ipv4.conf.%s.rp_filter" % d, 0)
            write_sysctl("net.ipv4.conf.%s.accept_local" % d, 1)
            sh("ip link set %s up" % d)
            GSO_ON[d] = link_settings(d)
        sh("ip addr add %s/32 dev %s" % (ipa, a))
        sh("ip addr add %s/32 dev %s" % (ipb, b))
        ta, tb = 1000 + 2 * n, 1001 + 2 * n
        # Traffic to B leaves through A's end, traffic to A through B's end.
        sh("ip route replace %s dev %s src %s table %d metric 100" % (ipb, a, ipa, ta))
        sh("ip route replace %s dev %s src %s table %d metric 100" % (ipa, b, ipb, tb))
        sh("ip rule add pref 10 iif lo to %s lookup %d" % (ipb, ta))
        sh("ip rule add pref 10 iif lo to %s lookup %d" % (ipa, tb))
        sh("ip neigh replace %s lladdr %s dev %s nud permanent" % (ipb, mac_of(b), a))
        sh("ip neigh replace %s lladdr %s dev %s nud permanent" % (ipa, mac_of(a), b))
        setup_segmenter(c)
        _, ra = sh("ip route get %s from %s" % (ipb, ipa), check=False)
        _, rb = sh("ip route get %s from %s" % (ipa, ipb), check=False)
        topo[c] = {"ends": [a, b], "addrs": [ipa, ipb],
                   "route_a_to_b": ra.strip(), "route_b_to_a": rb.strip()}
    return topo


def setup_segmenter(c):
    """The segmenter pair of contender c (routes to it: set_condition()).

    Neither end offloads segmentation, so each cuts every GSO buffer sent
    through it into frames (validate_xmit_skb()); the far end redirects each
    frame at its ingress to the egress of the contender's veth end that
    leads on (sb's frames, from A, to A's end; sa's to B's end), through
    that end's netem.  The frames carry the destination's MAC (permanent
    neighbour entries), so the receiving end takes them as its own.
    """
    a, b = ends(c)
    sa, sb = seg_ends(c)
    ipa, ipb = addrs(c)
    sh("ip link del %s" % sa, check=False)
    sh("ip link add %s type veth peer name %s" % (sa, sb))
    for d, onward in ((sa, b), (sb, a)):
        write_sysctl("net.ipv6.conf.%s.disable_ipv6" % d, 1)
        write_sysctl("net.ipv4.conf.%s.rp_filter" % d, 0)
        sh(["ethtool", "-K", d, "tso", "off", "tx-udp-segmentation", "off"])
        sh("ip link set %s up" % d)
        GSO_ON[d] = link_settings(d)
        sh("tc qdisc replace dev %s clsact" % d)
        sh("tc filter replace dev %s ingress pref 1 matchall "
           "action mirred egress redirect dev %s" % (d, onward))
    sh("ip neigh replace %s lladdr %s dev %s nud permanent" % (ipb, mac_of(b), sa))
    sh("ip neigh replace %s lladdr %s dev %s nud permanent" % (ipa, mac_of(a), sb))


def set_routes(c, via_segmenter):
    """Send c's traffic through its segmenter (the routes of preference 10)
    or straight over its veth (the routes of preference 100 alone).  A
    route lookup that names the veth end (rdma_rxe's) always finds the
    direct route."""
    n = CONTENDERS[c][0]
    ta, tb = 1000 + 2 * n, 1001 + 2 * n
    ipa, ipb = addrs(c)
    for ip, src, dev, t in ((ipb, ipa, seg_ends(c)[0], ta), (ipa, ipb, seg_ends(c)[1], tb)):
        if via_segmenter:
            sh("ip route replace %s dev %s src %s table %d metric 10" % (ip, dev, src, t))
        else:
            sh("ip route del %s table %d metric 10" % (ip, t), check=False)


def path_check(c):
    """Ping A->B; the packets must show on the veth, not on lo."""
    ipa, ipb = addrs(c)
    s0 = link_snapshot(c)
    rc, out = sh(["ping", "-c", "5", "-i", "0.2", "-W", "2", "-I", ipa, ipb],
                 check=False, timeout=20)
    d = link_delta(s0, link_snapshot(c))
    ok = rc == 0 and d["a"]["tx_packets"] >= 5 and d["b"]["tx_packets"] >= 5
    return {"ok": ok, "ping_rc": rc, "link": d}


def link_settings(dev):
    """The veth end's MTU and GSO limits, as the kernel has them (ip link:
    6.1 has no gso_max_segs in sysfs)."""
    rc, out = sh(["ip", "-d", "-j", "link", "show", "dev", dev], check=False)
    try:
        j = json.loads(out)[0] if rc == 0 else {}
    except (ValueError, IndexError):
        j = {}
    return {k: j.get(k) for k in ("mtu", "gso_max_segs", "gso_max_size")}


def offloads(dev):
    """The veth end's offload features that decide buffer sizes (ethtool -k)."""
    rc, out = sh(["ethtool", "-k", dev], check=False)
    want = ("tcp-segmentation-offload", "generic-segmentation-offload",
            "generic-receive-offload", "tx-udp-segmentation", "rx-gro-list",
            "rx-udp-gro-forwarding", "scatter-gather", "tx-checksumming")
    res = {}
    for ln in out.splitlines() if rc == 0 else []:
        k, _, v = ln.partition(":")
        if k.strip() in want:
            res[k.strip()] = v.strip()
    return res


def host_load(on):
    """Ask the host for its load outside the VM (on) or for none; returns
    whether the host confirmed within 10 s (a guest run without
    scripts/bench.sh has nobody to ask)."""
    want = "on" if on else "off"
    req = os.path.join(OUT, "host-load")
    ack = req + ".ack"
    if not on and not os.path.exists(req):
        return True
    with open(req + ".tmp", "w") as f:
        f.write(want + "\n")
    os.rename(req + ".tmp", req)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        try:
            with open(ack) as f:
                if f.read().strip() == want:
                    # Let the load take the cores before measuring.
                    time.sleep(1 if on else 0)
                    return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def set_condition(names, cond):
    """netem, MTU and GSO limits of every veth end for cond, and the host's
    load; returns what the kernel then has (the first contender's qdisc,
    every end's MTU and GSO limits) and whether the host load is on, for
    the record."""
    spec = CONDITIONS[cond]
    loaded = host_load(spec.get("host_load", False))
    if spec.get("host_load") and not loaded:
        raise RuntimeError("the host did not confirm its load (run through scripts/bench.sh)")
    mtu = spec.get("mtu", DEFAULT_MTU)
    wire = spec.get("wire")
    links = {}
    for c in names:
        set_routes(c, wire == "segment")
        for d in ends(c) + seg_ends(c):
            seg = d in seg_ends(c)
            # Under either wire mode the netem ends take no GSO buffer: a
            # flow routed to them directly, not through the segmenter (a
            # socket bound to the device: rdma_rxe, siw's accepted
            # connections), sends single packets.
            gso = {"gso_max_segs": 1} if wire and not seg else GSO_ON[d]
            sh(["ip", "link", "set", "dev", d, "mtu", str(mtu),
                "gso_max_segs", str(gso["gso_max_segs"])] +
               (["gso_max_size", str(gso["gso_max_size"])] if "gso_max_size" in gso else []))
            if seg:
                continue
            # Behind the segmenter the receiving end merges what arrives
            # (GRO), and veth hands a sender's packets to its peer's GRO only
            # when the sender has no TSO.
            on = wire == "segment"
            sh(["ethtool", "-K", d, "tso", "off" if on else "on", "gro", "on" if on else "off"])
            # The same qdisc for every condition (netem with no impairment for
            # the clean case), a queue long enough not to drop by itself.
            sh(["tc", "qdisc", "replace", "dev", d, "root", "netem",
                "limit", "100000"] + spec["netem"])
            links[d] = link_settings(d)
            if links[d]["mtu"] != mtu or (wire and links[d]["gso_max_segs"] != 1):
                raise RuntimeError("%s: %s after setting mtu %d%s" % (
                    d, links[d], mtu, ", gso_max_segs 1" if wire else ""))
    _, q = sh("tc qdisc show dev %s" % ends(names[0])[0], check=False)
    _, r = sh("ip route show table %d" % (1000 + 2 * CONTENDERS[names[0]][0]), check=False)
    return {"qdisc": q.strip(), "mtu": mtu, "wire": wire or False,
            "host_load": bool(spec.get("host_load")),
            "routes": r.strip(), "links": links,
            "offloads": offloads(ends(names[0])[0])}


# ------------------------------------------------------------------ devices
def load_contender(c, siw_ok, eri_cc=""):
    """Load the module and create two devices; returns (ok, info)."""
    a, b = ends(c)
    info = {}
    if c == "tcp":
        return True, info
    mod = {"eri": "eri_sim", "rxe": "rdma_rxe", "siw": "siw"}[c]
    ltype = {"eri": "eri", "rxe": "rxe", "siw": "siw"}[c]
    if c == "siw" and not siw_ok:
        return False, {"reason": "siw.ko was not built (see scripts/build-siw.sh output)"}
    rc, out = sh(["modprobe", mod], check=False, timeout=60)
    if rc != 0:
        return False, {"reason": "modprobe %s failed: %s" % (mod, out.strip()[-300:])}
    sh("modprobe ib_uverbs", check=False)
    devs = []
    for i, nd in enumerate((a, b)):
        name = "b%s%d" % (c, i)
        rc, out = sh(["rdma", "link", "add", name, "type", ltype, "netdev", nd],
                     check=False, timeout=60)
        if rc != 0:
            return False, {"reason": "rdma link add %s type %s netdev %s failed: %s"
                           % (name, ltype, nd, out.strip()[-300:])}
        devs.append(name)
    info["devices"] = devs
    if c == "siw":
        # rdma_cm finds an iWARP device by the netdev its route to the
        # peer leaves through: behind the segmenter that is the segmenter's
        # end, which needs a device of its own (siw's TCP sockets, not
        # bound to a device, follow the same route).
        for i, nd in enumerate(seg_ends(c)):
            name = "b%s%d" % (c, i + 2)
            rc, out = sh(["rdma", "link", "add", name, "type", ltype, "netdev", nd],
                         check=False, timeout=60)
            if rc != 0:
                return False, {"reason": "rdma link add %s type %s netdev %s failed: %s"
                               % (name, ltype, nd, out.strip()[-300:])}
        return True, info
    # RoCEv2 GID index of each end's IPv4 address.
    gids = []
    for name, ip in zip(devs, addrs(c)):
        want = "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x" % tuple(
            int(x) for x in ip.split("."))
        idx = None
        for _ in range(100):
            gdir = "/sys/class/infiniband/%s/ports/1/gids" % name
            try:
                for g in sorted(os.listdir(gdir), key=int):
                    try:
                        with open(os.path.join(gdir, g)) as f:
                            val = f.read().strip()
                        with open("/sys/class/infiniband/%s/ports/1/gid_attrs/types/%s"
                                  % (name, g)) as f:
                            typ = f.read().strip()
                    except OSError:
                        continue
                    if val == want and "v2" in typ.lower():
                        idx = int(g)
                        break
            except OSError:
                pass
            if idx is not None:
                break
            time.sleep(0.1)
        if idx is None:
            return False, {"reason": "no RoCEv2 GID for %s on %s" % (ip, name),
                           "devices": devs}
        gids.append(idx)
    info["gid_index"] = gids
    if c == "eri" and eri_cc:
        for name in devs:
            try:
                with open("/sys/class/infiniband/%s/cc_algo" % name, "w") as f:
                    f.write(eri_cc)
            except OSError as e:
                return False, {"reason": "cc_algo %s on %s: %s" % (eri_cc, name, e),
                               "devices": devs}
        info["cc_algo"] = eri_cc
    return True, info


# ------------------------------------------------------------------ runs
PORT = [20000]


def next_port():
    PORT[0] += 1
    if PORT[0] > 60000:
        PORT[0] = 20001
    return PORT[0]


def listening(port):
    """Is a TCP socket listening on port (any address)?  /proc, not ss: cheap."""
    want = ":%04X" % port
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path) as f:
                next(f)
                for ln in f:
                    p = ln.split()
                    if len(p) > 3 and p[1].endswith(want) and p[3] == "0A":
                        return True
        except OSError:
            pass
    return False


def kill_group(p):
    if p is None or p.poll() is not None:
        return
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        p.wait(timeout=3)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def tail(path, n=12):
    try:
        with open(path, errors="replace") as f:
            lines = [ln.rstrip() for ln in f if ln.strip()]
        return lines[-n:]
    except OSError:
        return []


def reason_from(lines):
    """The most telling line of a failed tool's output."""
    pat = re.compile(r"(fail|error|unable|couldn|could not|cannot|can't|not supported|"
                     r"timeout|refused|no such|invalid|unknown)", re.I)
    for ln in lines:
        if pat.search(ln):
            return ln.strip()[:200]
    return (lines[-1].strip()[:200] if lines else "no output")


def run_pair(server_cmd, client_cmd, timeout, tag, listen_port=None, ready_wait=10,
             must_listen=True, server_exits=True, veth=()):
    """Start the server, wait for it, run the client with a timeout; the
    client's run sampled on the veth ends @veth (TrafficSampler)."""
    d = os.path.join(OUT, "logs")
    os.makedirs(d, exist_ok=True)
    so, co = os.path.join(d, tag + ".server"), os.path.join(d, tag + ".client")
    res = {"server_cmd": " ".join(server_cmd), "client_cmd": " ".join(client_cmd)}
    t_start = time.monotonic()
    with open(so, "w") as sf:
        srv = subprocess.Popen(server_cmd, stdout=sf, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + ready_wait
        while time.monotonic() < deadline:
            if srv.poll() is not None:
                break
            if listen_port is not None and listening(listen_port):
                break
            # perftest with rdma_cm (siw) listens on a kernel socket that
            # ss may not show: its banner says it is waiting.
            if not must_listen and "Waiting for client" in "".join(tail(so, 40)):
                time.sleep(0.3)
                break
            time.sleep(0.1)
        if srv.poll() is not None:
            res.update(status="failed", rc=srv.returncode,
                       reason="server exited (%d) before the client started: %s"
                       % (srv.returncode, reason_from(tail(so))),
                       server_tail=tail(so), client_tail=[])
            return res, None
        if listen_port is not None and not listening(listen_port) and must_listen:
            res.update(status="failed", reason="server not listening after %ds" % ready_wait,
                       server_tail=tail(so), client_tail=[])
            return res, None
        left = timeout - (time.monotonic() - t_start)
        s0 = proc_stat()
        c0 = time.monotonic()
        with open(co, "w") as cf, TrafficSampler(veth) as sampler:
            cli = subprocess.Popen(client_cmd, stdout=cf, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
            try:
                rc = cli.wait(timeout=max(left, 1))
            except subprocess.TimeoutExpired:
                kill_group(cli)
                res.update(status="timeout",
                           reason="no result within the %ds cell timeout (killed)" % timeout,
                           server_tail=tail(so), client_tail=tail(co))
                return res, None
            wall = time.monotonic() - c0
            res["cpu"] = cpu_delta(s0, proc_stat(), wall)
        if veth:
            res["cpu"]["traffic"] = sampler.window()
        # Give the server a moment to finish on its own (sockperf's never does).
        if server_exits:
            try:
                srv.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
        res["rc"] = rc
        res["server_tail"] = tail(so)
        res["client_tail"] = tail(co)
        if rc != 0:
            res.update(status="failed", reason="client exit %d: %s"
                       % (rc, reason_from(tail(co) + tail(so))))
            return res, None
        with open(co, errors="replace") as f:
            text = f.read()
        res["status"] = "ok"
        return res, text
    finally:
        kill_group(srv)


NUM = r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"


def parse_perftest(text, kind):
    """Data row after the '#bytes' header of perftest's report."""
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if ln.strip().startswith("#bytes"):
            for row in lines[i + 1:]:
                f = row.split()
                if len(f) < 5 or not re.fullmatch(r"\d+", f[0]):
                    continue
                bad = [x.lower().lstrip("+-") in ("inf", "nan") for x in f]
                # The typical latency (or the bandwidth) itself is inf/nan:
                # perftest could not calibrate its cycle counter.  An inf in
                # a tail column (stdev, 99.9%) with huge outliers is data.
                if any(bad[:5]):
                    return {"error": "perftest printed inf/nan (%s): its cycle-counter "
                            "calibration failed" % " ".join(f[:6]), "tool_error": True}
                if all(re.fullmatch(NUM, x) or b for x, b in zip(f, bad)):
                    v = [None if b else float(x) for x, b in zip(f, bad)]
                    if kind == "lat":
                        if len(v) < 8:
                            return None
                        return {"iters": int(v[1]), "min_us": v[2], "max_us": v[3],
                                "p50_us": v[4], "avg_us": v[5], "stdev_us": v[6],
                                "p99_us": v[7], "p999_us": v[8] if len(v) > 8 else None}
                    return {"iters": int(v[1]), "bw_peak_MBps": v[2],
                            "bw_MBps": v[3], "msg_rate_Mpps": v[4]}
    return None


def parse_sockperf(text):
    r = {}
    m = re.search(r"avg-latency=(" + NUM + r")", text)
    if m:
        r["avg_us"] = float(m.group(1))
    for pct, key in (("50.000", "p50_us"), ("99.000", "p99_us"), ("99.900", "p999_us")):
        m = re.search(r"percentile " + re.escape(pct) + r" =\s*(" + NUM + ")", text)
        if m:
            r[key] = float(m.group(1))
    m = re.search(r"Total (\d+) observations", text)
    if m:
        r["iters"] = int(m.group(1))
    return r if "p50_us" in r and "p99_us" in r else None


def parse_iperf3(text):
    try:
        j = json.loads(text[text.index("{"):])
    except ValueError:
        return None
    if "error" in j:
        return {"error": j["error"]}
    e = j.get("end", {})
    rx = e.get("sum_received", {})
    if not rx.get("seconds"):
        return None
    return {"bw_MBps": rx["bits_per_second"] / 8e6, "bytes": rx["bytes"],
            "seconds": rx["seconds"],
            "retransmits": e.get("sum_sent", {}).get("retransmits")}


def clamp(v, lo, hi):
    return max(lo, min(hi, v))


def bw_iters(grid, size):
    return clamp(grid["bw_bytes"] // size, grid["bw_min_iters"], grid["bw_max_iters"])


def plan_iters(grid, kind, size, qps, est):
    """Iterations (per QP) for one run.

    Without target_s in the grid (quick mode) every contender moves the
    same fixed volume.  With it (full mode) the volume follows the
    contender: est is its expected rate in this cell (bytes/s for
    bandwidth, microseconds per exchange for latency; see estimate()), and
    the run is sized to last about target_s seconds, so a contender a
    hundred times slower under loss still ends inside its timeout, and a
    fast one is measured over more than its start-up.  No estimate yet
    (the first size of a series): the smallest volume, which the next
    repetitions then size up (a fixed larger volume took a contender that
    crawls under 5% loss most of a timeout at 64 B).
    """
    target = grid.get("target_s")
    if kind == "lat":
        if not target:
            return grid["lat_iters"]
        if not est:
            return grid["lat_min_iters"]
        return int(clamp(target * 1e6 / est, grid["lat_min_iters"], grid["lat_iters"]))
    if not target:
        return bw_iters(grid, size)
    lo = min(max(grid["bw_min_iters"], -(-grid.get("bw_min_bytes", 0) // size)),
             grid["bw_max_iters"])
    if not est:
        return lo
    return int(clamp(target * est / (size * qps), lo, grid["bw_max_iters"]))


def run_tries(c, av, test, size, qps, grid, iters, cond, cell_to):
    """One run of a cell; a run whose tool failed is run again."""
    tries = []
    while True:
        try:
            rec = one_run(c, av, test, size, qps, grid, iters, cond)
        except Exception as e:  # never let one run stop the grid
            rec = {"status": "failed", "reason": "harness error: %r" % e}
        # perftest's clock calibration fails now and then under TCG
        # whatever the device: that run is rerun (twice at most) and the
        # discarded attempts are kept.
        if not rec.get("tool_error") or len(tries) >= 2:
            break
        if DEADLINE and time.monotonic() + cell_to + 5 > DEADLINE:
            break
        tries.append({k: rec.get(k) for k in ("status", "reason", "link")})
    if tries:
        rec["discarded_attempts"] = tries
    return rec


def upper_median(vals):
    return sorted(vals)[len(vals) // 2]


def estimate(hist, kind, size, qps):
    """Expected rate of a contender in a cell, from its earlier runs.

    hist maps (qps, size) to the rates measured so far in this series
    (one condition, contender and test): bytes/s for bandwidth, mean
    microseconds per exchange (a round trip; a read) for latency.  The
    cell's own earlier repetitions come first.  Else the nearest smaller
    size, scaled by sqrt(size ratio): bandwidth grows with message size (at
    most 4x here: a rate that did not grow gives a run 4x shorter than the
    target, one that grew more a longer one), and so does latency (an
    overestimate only costs samples, never fewer than lat_min_iters).  Else
    the same size at another QP count.
    """
    own = hist.get((qps, size))
    if own:
        return upper_median(own)
    smaller = sorted(s for (q, s) in hist if q == qps and s < size and hist[(q, s)])
    if smaller:
        s0 = smaller[-1]
        v = upper_median(hist[(qps, s0)])
        f = (size / s0) ** 0.5
        return v * (f if kind == "lat" else min(f, 4.0))
    for (q, s), vals in hist.items():
        if s == size and vals:
            return upper_median(vals)
    return None


def measured_rate(rec, kind):
    """The rate plan_iters needs, from one successful run (None if none)."""
    m = rec.get("metrics") or {}
    if rec.get("status") != "ok":
        return None
    if kind == "lat":
        # perftest and sockperf report half the round trip, except for reads.
        rt = 1 if rec.get("test", "").startswith("read") else 2
        return m["avg_us"] * rt if m.get("avg_us") else None
    return m["bw_MBps"] * 1e6 if m.get("bw_MBps") else None


def one_run(c, info, test, size, qps, grid, iters, cond):
    """One measurement of contender c; returns the record (without context).

    iters: exchanges (latency) or messages per QP (bandwidth), from
    plan_iters(); TCP's ping-pong runs for tcp_lat_secs instead.
    """
    ipa, ipb = addrs(c)
    port = next_port()
    op, kind = test.split("_")          # e.g. "send_lat" -> ("send", "lat")
    tag = "%s-%s-%d-q%d-%d" % (c, test, size, qps, port)
    rec = {}
    if c == "tcp":
        if kind == "lat":
            # sockperf's messages are 14 to 65507 bytes (its UDP limit,
            # over TCP too): 64 KiB is measured as 65507.
            msg = min(max(size, 14), SOCKPERF_MAX_MSG)
            rec["tool_size"] = msg
            srv = ["sockperf", "sr", "--tcp", "-i", ipb, "-p", str(port), "--no-rdtsc"]
            cli = ["sockperf", "pp", "--tcp", "-i", ipb, "-p", str(port),
                   "--client_ip", ipa, "-m", str(msg), "-t", str(grid["tcp_lat_secs"]),
                   "--no-rdtsc"]
        else:
            srv = ["iperf3", "-s", "-1", "-B", ipb, "-p", str(port)]
            # The same volume per stream as perftest moves per QP.  iperf3
            # writes at most 1 MiB at a time: larger sizes move the same
            # volume in 1 MiB writes.
            blk = min(size, IPERF3_MAX_BLOCK)
            rec["tool_size"] = blk
            # -n is the volume of all streams together.
            cli = ["iperf3", "-c", ipb, "-B", ipa, "-p", str(port), "-J",
                   "-n", str(iters * size * qps),
                   "-l", str(blk), "-P", str(qps)]
    else:
        tool = "ib_%s_%s" % (op, kind)
        base = [tool, "-F", "-p", str(port), "-s", str(size)]
        if kind == "lat":
            base += ["-n", str(iters)]
        else:
            # Iterations, not -D: perftest's duration mode reports 0 MB/s
            # for siw under TCG (its cycle counter calibration fails).
            base += ["-n", str(iters), "-q", str(qps)]
        dev0, dev1 = info["devices"]
        if c == "siw":
            # iWARP connects through rdma_cm.
            srv = base + ["-d", dev1, "-R"]
            cli = base + ["-d", dev0, "-R", ipb]
        else:
            g0, g1 = info["gid_index"]
            srv = base + ["-d", dev1, "-x", str(g1)]
            cli = base + ["-d", dev0, "-x", str(g0), ipb]
    timeout = grid["lat_timeout"] if kind == "lat" else grid["bw_timeout"]
    spec = CONDITIONS[cond]
    s0 = link_snapshot(c)
    e0 = eri_counters(info) if c == "eri" else None
    # siw listens through rdma_cm, with a kernel socket: wait for it as for
    # the others, but go ahead after a few seconds if ss does not show it.
    res, text = run_pair(srv, cli, timeout, tag, listen_port=port,
                         ready_wait=4 if c == "siw" else 10,
                         must_listen=(c != "siw"),
                         server_exits=not (c == "tcp" and kind == "lat"),
                         veth=ends(c) if kind == "bw" else ())
    rec.update(res)
    rec["link"] = link_delta(s0, link_snapshot(c))
    if e0 is not None:
        e1 = eri_counters(info)
        rec["eri"] = {k: e1[k] - e0[k] if None not in (e0[k], e1[k]) else None
                      for k in ERI_COUNTERS}
    rec["wire"] = wire_check(rec["link"], spec.get("mtu", DEFAULT_MTU))
    if res["status"] != "ok":
        return rec
    if c == "tcp":
        m = parse_sockperf(text) if kind == "lat" else parse_iperf3(text)
    else:
        m = parse_perftest(text, kind)
    if not m or "error" in (m or {}):
        rec.update(status="failed", reason="no result in the output: %s"
                   % (m.get("error") if m else reason_from(res.get("client_tail", []))))
        if m and m.get("tool_error"):
            rec["tool_error"] = True
        return rec
    rec["metrics"] = m
    # The path MTU the run used: perftest's (the IB MTU) or TCP's MSS.
    mt = re.search(r"^\s*Mtu\s*:\s*(\d+)", text, re.M)
    if c != "tcp" and mt:
        m["ib_mtu"] = int(mt.group(1))
    mt = re.search(r'"tcp_mss_default":\s*(\d+)', text)
    if c == "tcp" and mt:
        m["tcp_mss"] = int(mt.group(1))
    kicks = (rec.get("eri") or {}).get("sq_kicks")
    if kicks is not None:
        # Messages posted: a ping-pong posts one per side per iteration
        # (ib_read_lat: the client's reads only); bandwidth tests post
        # from the client alone.  Receives never need a system call.
        if kind == "lat":
            msgs = (m.get("iters") or 0) * (1 if op == "read" else 2)
        else:
            msgs = iters * qps
        if msgs:
            m["sq_kicks"] = kicks
            m["syscalls_per_msg"] = round(kicks / msgs, 4)
    # Proof that the bytes crossed the impaired link.
    moved = rec["link"]["a"]["tx_bytes"] + rec["link"]["b"]["tx_bytes"]
    if kind == "lat":
        iters = m.get("iters") or 0
        app = iters * rec.get("tool_size", size) * (1 if op == "read" else 2)
        # A ping-pong moves at least one packet per message each way.
        need_pk = iters
    else:
        app = m.get("bytes") or iters * size * qps
        need_pk = 1
        if not m["bw_MBps"] > 0:
            rec.update(status="failed", tool_error=True,
                       reason="the tool reported %s MB/s for %d bytes on the veth "
                       "(perftest's cycle-counter calibration failed)" % (m["bw_MBps"], moved))
            return rec
        if rec.get("cpu", {}).get("wall_s"):
            # Independent of perftest's clock: payload over the client's
            # whole life (start-up and connection included: a lower bound).
            m["wall_MBps_lower_bound"] = round(app / 1e6 / rec["cpu"]["wall_s"], 3)
            if c != "tcp" and m["bw_MBps"] < 0.8 * m["wall_MBps_lower_bound"]:
                rec.update(status="failed", tool_error=True,
                           reason="perftest reports %.2f MB/s but the payload took at most "
                           "%.1fs (>= %.2f MB/s): its cycle-counter calibration is off"
                           % (m["bw_MBps"], rec["cpu"]["wall_s"], m["wall_MBps_lower_bound"]))
                return rec
    pk = min(rec["link"]["a"]["tx_packets"], rec["link"]["b"]["tx_packets"])
    wall = (rec.get("cpu") or {}).get("wall_s")
    if kind == "lat" and c != "tcp" and wall and m.get("avg_us"):
        # perftest times with the cycle counter: its exchanges cannot add up
        # to more than the client's whole life on the wall clock.
        est = m["avg_us"] * m["iters"] * (1 if op == "read" else 2) / 1e6
        m["sum_of_latencies_s"] = round(est, 3)
        if est > 1.2 * wall + 0.5:
            rec.update(status="failed", tool_error=True,
                       reason="perftest's latencies add up to %.1fs in a %.1fs run "
                       "(its cycle-counter calibration is off)" % (est, wall))
            return rec
    rec["app_bytes"] = int(app)
    rec["link_bytes"] = moved
    rec["crossed_link"] = bool(moved >= 0.5 * app and pk >= need_pk and moved > 0)
    if not rec["crossed_link"]:
        rec.update(status="invalid",
                   reason="traffic did not cross the impaired link (%d B on the veth for %d B moved)"
                   % (moved, app))
    if kind == "bw" and rec.get("cpu") and app > 0:
        cpu = rec["cpu"]
        # Over the client's whole life, start-up included.
        cpu["cpu_us_per_MB_life"] = round(cpu["busy_cpu_s"] * 1e6 / (app / 1e6), 2)
        # While the payload moved: the window's veth bytes are headers,
        # ACKs and payload; the run's payload share of all its veth bytes
        # says how much of them was payload.
        tw = cpu.get("traffic")
        if tw and tw["link_bytes"] > 0 and moved > 0:
            payload = tw["link_bytes"] * min(app / moved, 1.0)
            cpu["cpu_us_per_MB"] = round(tw["busy_cpu_s"] * 1e6 / (payload / 1e6), 2)
    if app > 0:
        rec["per_MB"] = per_mb(rec, app)
    if spec.get("wire") and rec["status"] == "ok":
        bad = wire_violation(rec, spec["wire"])
        if bad:
            rec.update(status="invalid", reason="GSO buffers under wire-packet loss: " + bad)
    return rec


def per_mb(rec, app):
    """Packets and buffers per MB of payload, both directions.

    Every contender: pkts, the packets netem saw (passed and dropped), and
    skbs, the buffers they came in (the veth's, passed and dropped).  ERI
    also: its devices' own counters (everything both sent and took: data,
    ACKs, responses, retransmissions).
    """
    mb = app / 1e6
    res = {}
    e = rec["wire"]["ends"]
    if len(e) == 2:
        res["pkts"] = round(sum(x["pkts"] + (x["drops"] or 0) for x in e.values()) / mb, 1)
        res["skbs"] = round(sum(x["skbs"] + (x["drops"] or 0) for x in e.values()) / mb, 1)
    for k in ("tx_pkts", "tx_skbs", "rx_pkts", "rx_skbs"):
        v = (rec.get("eri") or {}).get(k)
        if v is not None:
            res["eri_" + k] = round(v / mb, 1)
    return res


def wire_violation(rec, wire):
    """Why a run under a wire-packet condition did not lose wire packets
    (netem saw GSO buffers, or ERI sent super-packets), or None."""
    w = rec["wire"]
    if w.get("unknown") or len(w["ends"]) < 2:
        return "netem's or the veth's counters unreadable"
    for side, x in sorted(w["ends"].items()):
        if x["gso"]:
            return ("%d packets in %d buffers through netem on end %s, %s bytes per "
                    "buffer (frames are at most %d)" % (x["pkts"], x["skbs"], side,
                                                        x["bytes_per_skb"], w["max_frame"]))
    e = rec.get("eri") or {}
    if (wire == "single" and
            None not in (e.get("tx_pkts"), e.get("tx_skbs")) and
            e["tx_pkts"] > e["tx_skbs"] + 2):
        return "ERI sent %d packets in %d buffers" % (e["tx_pkts"], e["tx_skbs"])
    return None


def bw_sizes_for(grid, qps):
    """Bandwidth sizes measured with qps QPs (see bw_multi_qp_sizes)."""
    if qps > 1 and "bw_multi_qp_sizes" in grid:
        return grid["bw_multi_qp_sizes"]
    return grid["bw_sizes"]


TESTS = [op + "_" + k for k in ("lat", "bw") for op in ("send", "write", "read")]


def parse_cell(text):
    """"write_bw:65536:1" -> ("write_bw", 65536, 1); ValueError if malformed."""
    p = text.split(":")
    if len(p) != 3 or p[0] not in TESTS:
        raise ValueError("cell %r: TEST:SIZE:QPS, TEST one of %s" % (text, ", ".join(TESTS)))
    return (p[0], int(p[1]), int(p[2]))


def cells(grid, spec=None):
    """The cells (test, size, qps) measured in a condition whose CONDITIONS
    entry is spec: the grid's, or the grid entry spec["cells"] names
    (latency first, then bandwidth, smaller sizes first within a test:
    plan_iters() sizes a run by the next smaller size's rate)."""
    key = (spec or {}).get("cells")
    if key:
        own = [parse_cell(x) for x in grid[key]]
        return sorted(own, key=lambda t: (t[0].endswith("_bw"), TESTS.index(t[0]), t[2], t[1]))
    out = []
    for op in grid["lat_ops"]:
        for s in grid["lat_sizes"]:
            out.append(("%s_lat" % op, s, 1))
    for op in grid["bw_ops"]:
        for q in grid["bw_qps"]:
            for s in bw_sizes_for(grid, q):
                out.append(("%s_bw" % op, s, q))
    return out


def tcp_test(test):
    # TCP has one latency test (ping-pong) and one bandwidth test (a stream):
    # measured once per cell and used as the reference for every RDMA op.
    return "pingpong_lat" if test.endswith("_lat") else "stream_bw"


def main():
    global OUT, DEADLINE
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=GRIDS, default="quick")
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=int, default=0,
                    help="seconds; cells that would start later are recorded as skipped")
    ap.add_argument("--contenders", default="eri,rxe,siw,tcp")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=V[,V...]",
                    help="override a grid entry, e.g. --set bw_sizes=64,65536")
    args = ap.parse_args()
    # siw pins memory against RLIMIT_MEMLOCK even for root (rdma_rxe and
    # ERI let CAP_IPC_LOCK pass): without this its 4 MiB and 4-QP 1 MiB
    # runs fail to register their buffers.  Inherited by every tool.
    resource.setrlimit(resource.RLIMIT_MEMLOCK,
                       (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    OUT = args.out
    os.makedirs(OUT, exist_ok=True)
    if args.budget:
        DEADLINE = T0 + args.budget
    grid = GRIDS[args.mode]
    for kv in args.set:
        k, _, val = kv.partition("=")
        if k not in grid:
            ap.error("unknown grid key %s (known: %s)" % (k, ", ".join(grid)))
        v = [x for x in val.split(",") if x]
        if k == "conditions" and any(x not in CONDITIONS for x in v):
            ap.error("unknown condition in %s (known: %s)" % (val, ", ".join(CONDITIONS)))
        if k.endswith("_cells"):
            try:
                [parse_cell(x) for x in v]
            except ValueError as e:
                ap.error(str(e))
        grid[k] = (v if k in ("lat_ops", "bw_ops", "conditions") or k.endswith("_cells")
                   else val if isinstance(grid[k], str)
                   else [int(x) for x in v] if isinstance(grid[k], list) else int(v[0]))
    names = [c for c in args.contenders.split(",") if c in CONTENDERS]
    runs_path = os.path.join(OUT, "runs.jsonl")
    runs = open(runs_path, "a")

    def emit(obj):
        runs.write(json.dumps(obj, sort_keys=True) + "\n")
        runs.flush()

    meta = {"type": "meta", "mode": args.mode, "grid": grid,
            "kernel": os.uname().release, "ncpu": os.cpu_count(),
            "conditions": {k: CONDITIONS[k]["netem"] for k in grid["conditions"]},
            "condition_spec": {k: CONDITIONS[k] for k in grid["conditions"]},
            "contenders": names, "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    for tool in (["ib_send_bw", "--version"], ["iperf3", "--version"],
                 ["sockperf", "--version"]):
        rc, out = sh(tool, check=False)
        meta.setdefault("tools", {})[tool[0]] = out.strip().splitlines()[0] if out.strip() else ""
    log("mode %s on %s, contenders %s" % (args.mode, meta["kernel"], ",".join(names)))
    topo = setup_topology(names)
    avail = {}
    for c in names:
        ok, info = load_contender(c, siw_ok=True, eri_cc=grid["eri_cc"])
        info["path_check"] = path_check(c)
        if ok and not info["path_check"]["ok"]:
            ok = False
            info["reason"] = "ping A->B did not cross the veth: %s" % info["path_check"]
        info["available"] = ok
        avail[c] = info
        topo[c].update(info)
        log("%s: %s" % (c, "ready %s" % info.get("devices", "") if ok else
                        "UNAVAILABLE: " + info.get("reason", "?")))
    meta["topology"] = topo
    rc, rules = sh("ip rule show", check=False)
    meta["ip_rules"] = rules.strip().splitlines()
    rc, rl = sh("rdma link show", check=False)
    meta["rdma_links"] = rl.strip().splitlines()
    emit(meta)

    total = sum(len(cells(grid, CONDITIONS[cond])) for cond in grid["conditions"]) * \
        grid["repeats"] * len(names)
    n = 0
    for cond in grid["conditions"]:
        allcells = cells(grid, CONDITIONS[cond])
        try:
            setup = set_condition(names, cond)
        except RuntimeError as e:
            # No run of a condition the links could not be set for.
            log("condition %s: cannot set the links: %s" % (cond, e))
            emit({"type": "condition", "condition": cond, "error": str(e)})
            failed = set()
            for (test, size, qps) in allcells:
                for c in names:
                    for rep in range(grid["repeats"]):
                        n += 1
                        t_test = tcp_test(test) if c == "tcp" else test
                        if (c, t_test, size, qps, rep) in failed:
                            continue
                        failed.add((c, t_test, size, qps, rep))
                        emit({"type": "run", "contender": c, "condition": cond,
                              "test": t_test, "size": size, "qps": qps, "rep": rep,
                              "status": "failed",
                              "reason": "the condition's link settings failed: %s" % e})
            continue
        emit(dict(setup, type="condition", condition=cond))
        log("condition %s: %s; MTU %d, %s%s" % (
            cond, setup["qdisc"], setup["mtu"],
            {"segment": "wire packets (segmented before netem, GRO behind it)",
             "single": "wire packets (gso_max_segs 1)"}.get(setup["wire"], "GSO on"),
            "; a busy process per host core" if setup["host_load"] else ""))
        tcp_done = {}
        # (contender, test) -> {(qps, size): [rates]}: what plan_iters sizes
        # the next runs by (see estimate()); per condition.
        hist = {}
        # (contender, test, size, qps) of cells whose run timed out: a
        # contender that could not finish a cell does not get another
        # timeout's worth of tries at it.
        timed_out = {}
        for (test, size, qps) in allcells:
            for rep in range(grid["repeats"]):
                k = rep % len(names)
                order = names[k:] + names[:k]
                for c in order:
                    n += 1
                    t_test = tcp_test(test) if c == "tcp" else test
                    base = {"type": "run", "contender": c, "test": t_test,
                            "size": size, "qps": qps, "condition": cond, "rep": rep}
                    if c == "tcp":
                        key = (t_test, size, qps, rep)
                        if key in tcp_done:
                            continue        # one TCP measurement serves all ops
                        tcp_done[key] = True
                    if not avail[c]["available"]:
                        emit(dict(base, status="failed",
                                  reason="contender unavailable: " + avail[c].get("reason", "?")))
                        continue
                    kind = t_test.split("_")[1]
                    cell = (c, t_test, size, qps)
                    if cell in timed_out:
                        emit(dict(base, status="skipped",
                                  reason="not repeated: rep %d timed out" % timed_out[cell]))
                        continue
                    cell_to = grid["lat_timeout"] if kind == "lat" else grid["bw_timeout"]
                    if DEADLINE and time.monotonic() + cell_to + 5 > DEADLINE:
                        emit(dict(base, status="skipped",
                                  reason="harness time budget exhausted (--budget)"))
                        continue
                    series = hist.setdefault((c, t_test), {})
                    est = estimate(series, kind, size, qps)
                    iters = plan_iters(grid, kind, size, qps, est)
                    t1 = time.monotonic()
                    rec = run_tries(c, avail[c], test, size, qps, grid, iters,
                                    cond, cell_to)
                    if (kind == "bw" and grid.get("target_s") and
                            not series.get((qps, size)) and
                            rec.get("status") != "timeout"):
                        # Sized from another cell, the run was a
                        # calibration: its rate (a short run's, low if
                        # anything) sizes the counted one.
                        rate = measured_rate(rec, kind)
                        rec.update(base, type="calibration", planned_iters=iters,
                                   elapsed_s=round(time.monotonic() - t1, 2))
                        emit(rec)
                        if rate:
                            series[(qps, size)] = [rate]
                            iters = plan_iters(grid, kind, size, qps,
                                               max(rate, est or 0))
                        t1 = time.monotonic()
                        rec = run_tries(c, avail[c], test, size, qps, grid,
                                        iters, cond, cell_to)
                    rec.update(base)
                    rec["planned_iters"] = iters
                    rate = measured_rate(rec, kind)
                    if rate:
                        series.setdefault((qps, size), []).append(rate)
                    if rec.get("status") == "timeout":
                        timed_out[cell] = rep
                    rec["elapsed_s"] = round(time.monotonic() - t1, 2)
                    emit(rec)
                    m = rec.get("metrics", {})
                    val = ("p50 %.1f us p99 %.1f us" % (m["p50_us"], m["p99_us"])
                           if "p50_us" in m else
                           "%.1f MB/s" % m["bw_MBps"] if "bw_MBps" in m else "")
                    log("[%d/%d] %s %s %s %dB q%d rep%d: %s %s (%.1fs)" % (
                        n, total, cond, c, t_test, size, qps, rep, rec["status"],
                        val or rec.get("reason", ""), rec["elapsed_s"]))
    host_load(False)
    emit({"type": "end", "elapsed_s": round(time.monotonic() - T0, 1)})
    runs.close()
    log("done in %.0fs" % (time.monotonic() - T0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
