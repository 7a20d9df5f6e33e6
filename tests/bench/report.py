#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Turn the benchmark's runs.jsonl into results.json, table.md and PNG plots.

    report.py --runs runs.jsonl --out DIR [--vm-status N] [--git REV] ...

results.json holds the run's metadata, every run as measured and a summary
per cell (median, min, max and spread of the runs that succeeded, and the
failures with their reasons).  table.md shows ERI / best peer for every cell
and condition ("n/a (ERI failed)" where ERI has no number), then every
contender's medians, then the failures.  Plots are drawn with gnuplot
(pngcairo): throughput versus loss rate per contender, and latency p50/p99
per condition.  A contender that failed everywhere in a plot is named in it
as failed, never drawn as zero.
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys

from guest import bw_sizes_for, cells as grid_cells

ORDER = ["eri", "rxe", "siw", "tcp"]
LABEL = {"eri": "ERI", "rxe": "rdma_rxe", "siw": "siw", "tcp": "TCP"}
COLOR = {"eri": "#d62728", "rxe": "#1f77b4", "siw": "#2ca02c", "tcp": "#7f7f7f"}
LOSS_CONDS = ["loss0", "loss0.1", "loss1", "loss5"]
# (gnuplot xtics labels are format strings: %% is a percent sign)
LOSS_X = {"loss0": "0", "loss0.1": "0.1%%", "loss1": "1%%", "loss5": "5%%"}


def human(n):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return "%d %s" % (n // div, unit)
    return "%d B" % n


def load(path):
    meta, runs, end = {}, [], None
    setups = {}
    with open(path) as f:
        for ln in f:
            ln = ln.strip()
            if not ln:
                continue
            try:
                o = json.loads(ln)
            except ValueError:
                continue
            if o.get("type") == "meta":
                meta = o
            elif o.get("type") == "run":
                runs.append(o)
            elif o.get("type") == "condition":
                setups[o.get("condition")] = o
            elif o.get("type") == "end":
                end = o
    if meta:
        # How each condition's links were really set (MTU, GSO limits,
        # qdisc, offloads), as the guest read them back.
        meta["condition_setup"] = setups
    return meta, runs, end


def cond_cells(meta, cond):
    """The cells (test, size, qps) measured in cond."""
    return grid_cells(meta["grid"], (meta.get("condition_spec") or {}).get(cond))


def wire_text(spec):
    """How a condition's buffers met netem (results from before the
    segmenter say True for gso_max_segs 1)."""
    w = spec.get("wire")
    if w == "segment":
        return "wire packets (segmented before netem, GRO behind it)"
    if w:
        return "wire packets (gso_max_segs 1)"
    return "GSO on"


def cond_text(meta, cond):
    """cond's netem arguments, MTU and GSO setting, in words."""
    spec = (meta.get("condition_spec") or {}).get(cond)
    netem = " ".join(meta["conditions"][cond]) or "no impairment"
    if spec is None:            # results of a harness without the setting
        return netem
    return "%s, MTU %d, %s%s" % (netem, spec.get("mtu", 1500), wire_text(spec),
                                 ", a busy process per host core beside the VM"
                                 if spec.get("host_load") else "")


# A "metric" row of the table: which runs feed it and how to read a value.
# (key, title, unit, better, kind)
LAT_METRICS = [("p50_us", "p50", "us", "lower"), ("p99_us", "p99", "us", "lower")]
BW_METRICS = [("bw_MBps", "bandwidth", "MB/s", "higher"),
              ("cpu_us_per_MB", "CPU", "CPU-us/MB", "lower")]
RATE_METRIC = ("msg_rate", "message rate", "Mmsg/s", "higher")
# Packets and buffers per MB of payload (guest.py's per_mb()): every
# contender's as netem and the veth counted them, ERI's devices' own.
PER_MB_KEYS = ["pkts_per_MB", "skbs_per_MB", "eri_tx_pkts_per_MB", "eri_tx_skbs_per_MB",
               "eri_rx_pkts_per_MB", "eri_rx_skbs_per_MB"]


def value(run, key, test):
    """The value of metric key in one run, in the RDMA test's terms."""
    m = run.get("metrics") or {}
    if key == "cpu_us_per_MB":
        return (run.get("cpu") or {}).get("cpu_us_per_MB")
    if key in PER_MB_KEYS:
        return (run.get("per_MB") or {}).get(key[:-len("_per_MB")])
    if key == "msg_rate":
        if "msg_rate_Mpps" in m:
            return m["msg_rate_Mpps"]
        if "bw_MBps" in m:          # TCP: application writes per second
            return m["bw_MBps"] / run["size"]
        return None
    v = m.get(key)
    if v is not None and run["contender"] == "tcp" and test.startswith("read_lat"):
        v = 2 * v                   # sockperf gives RTT/2; ib_read_lat a full round trip
    return v


def stats(vals):
    if not vals:
        return None
    med = statistics.median(vals)
    return {"median": med, "min": min(vals), "max": max(vals), "n": len(vals),
            "spread_pct": round(100.0 * (max(vals) - min(vals)) / med, 1) if med else None}


def summarize(meta, runs):
    """summary[(cond, contender, test, size, qps)] -> {...}"""
    groups = collections.defaultdict(list)
    for r in runs:
        groups[(r["condition"], r["contender"], r["test"], r["size"], r["qps"])].append(r)
    summ = {}
    for k, rs in groups.items():
        ok = [r for r in rs if r.get("status") == "ok"]
        fails = collections.Counter("%s: %s" % (r.get("status"), r.get("reason", "?"))
                                    for r in rs if r.get("status") != "ok")
        s = {"runs": len(rs), "ok": len(ok), "failures": dict(fails), "metrics": {}}
        test = k[2]
        keys = (["p50_us", "p99_us", "avg_us"] if test.endswith("_lat")
                else ["bw_MBps", "msg_rate", "cpu_us_per_MB"]) + \
            ["syscalls_per_msg"] + PER_MB_KEYS
        for key in keys:
            st = stats([v for v in (value(r, key, test) for r in ok) if v is not None])
            if st:
                s["metrics"][key] = st
        link = [r.get("link_bytes", 0) / r["app_bytes"] for r in ok if r.get("app_bytes")]
        if link:
            s["link_bytes_per_app_byte_min"] = round(min(link), 3)
        summ[k] = s
    return summ


def peer_test(contender, test):
    if contender == "tcp":
        return "pingpong_lat" if test.endswith("_lat") else "stream_bw"
    return test


def rows(meta, cond=None):
    """The table's rows (test, size, qps, key, title, better): the cells
    of cond, or of every condition (in the grid's order, then a
    condition's own cells)."""
    g = meta["grid"]
    want = []
    for c in ([cond] if cond else g["conditions"]):
        for cell in cond_cells(meta, c):
            if cell not in want:
                want.append(cell)
    grid_order = grid_cells(g)
    want.sort(key=lambda x: grid_order.index(x) if x in grid_order else len(grid_order))
    out = []
    for (test, s, q) in want:
        op = test.split("_")[0]
        if test.endswith("_lat"):
            for key, title, unit, better in LAT_METRICS:
                out.append((test, s, q, key,
                            "ib_%s_lat %s %s [%s]" % (op, human(s), title, unit), better))
            continue
        qn = "%d QP%s" % (q, "s" if q > 1 else "")
        out.append((test, s, q, "bw_MBps",
                    "ib_%s_bw %s %s [MB/s]" % (op, human(s), qn), "higher"))
        if s == min(g["bw_sizes"]):
            out.append((test, s, q, "msg_rate",
                        "ib_%s_bw %s %s msg rate [Mmsg/s]" % (op, human(s), qn), "higher"))
        out.append((test, s, q, "cpu_us_per_MB",
                    "ib_%s_bw %s %s CPU [CPU-us/MB]" % (op, human(s), qn), "lower"))
    return out


def fmt(v):
    if v is None:
        return "-"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    if v >= 0.1:
        return "%.2f" % v
    return "%.3g" % v


def short_reason(s):
    if not s or not s["failures"]:
        return "?"
    # "status: reason" (failed, timeout, invalid or skipped), the most common.
    r = max(s["failures"].items(), key=lambda kv: kv[1])[0]
    return r if len(r) < 80 else r[:77] + "..."


def tool_version(line):
    m = re.search(r"(\d+\.\d+(?:\.\d+)?)", line or "")
    return m.group(1) if m else "?"


def table(meta, summ, runs, names, conds, extra):
    L = []
    L.append("## ERI benchmark: %s, kernel %s, %s mode" % (
        meta.get("started", "?")[:10], meta.get("kernel", "?"), meta.get("mode", "?")))
    L.append("")
    L.append("Made by `make bench%s` (scripts/bench.sh) on %s; git %s; %s; VM with %s vCPUs "
             "under TCG: absolute numbers are emulation speed, compare ratios only." % (
                 " QUICK=1" if meta.get("mode") == "quick" else "", meta.get("started", "?"),
                 extra.get("git", "?"), ", ".join("%s %s" % (k, tool_version(v))
                                                   for k, v in sorted(meta.get("tools", {}).items())),
                 meta.get("ncpu", "?")))
    L.append("")
    L.append("Contenders: %s; siw built from %s.  Conditions are netem on both veth "
             "ends (each direction): %s.  Every cell ran %d times per contender, "
             "contenders alternating." % (
                 ", ".join(LABEL.get(c, c) for c in names), extra.get("siw") or "?",
                 "; ".join("%s = %s" % (c, cond_text(meta, c)) for c in conds),
                 meta["grid"]["repeats"]))
    if meta.get("condition_spec"):
        own = ["%s: %s" % (c, ", ".join("%s %s %s" % (t, human(sz), "%d QP%s" % (q, "s" * (q > 1)))
                                         for t, sz, q in cond_cells(meta, c)))
               for c in conds if meta["condition_spec"].get(c, {}).get("cells")]
        L.append("")
        L.append("netem drops whole buffers.  Under \"wire packets (segmented before "
                 "netem)\" every contender's traffic passes a second veth pair without "
                 "segmentation offloads first, which cuts its GSO buffers (TCP's "
                 "segments, ERI's super-packets) into MTU-sized frames and hands them, "
                 "by a tc redirect, to the veth and its netem; the receiving end has GRO "
                 "on.  The stacks keep their super-packets, netem drops wire packets, as "
                 "a network would, and the receiver merges what arrives, as a NIC would.  "
                 "Under \"wire packets (gso_max_segs 1)\" every stack hands netem single "
                 "packets.  A run whose counters show a GSO buffer passing netem under "
                 "either is marked invalid (see \"What netem saw\").  Under \"GSO on\" "
                 "buffers of up to 64 KiB pass netem whole on the direct veth.%s"
                 % ("  Conditions with cells of their own: %s." % "; ".join(own)
                               if own else ""))
    L.append("")
    g = meta["grid"]
    if g.get("target_s"):
        L.append("Volumes follow the contender: each run moves about %g s of traffic at "
                 "the rate the contender showed earlier in the cell (for a latency cell's "
                 "first repetition, at the next smaller size; a bandwidth cell's first "
                 "run, sized that way, is a calibration that only sizes the counted "
                 "ones; the smallest size starts at the least volume), but at least "
                 "%d exchanges for "
                 "latency (at most %d) and %s per QP for bandwidth; a run that timed "
                 "out (%d s for latency, %d s for bandwidth) is not repeated.  Each "
                 "run's iteration count is in results.json (planned_iters)." % (
                     g["target_s"], g["lat_min_iters"], g["lat_iters"],
                     human(g["bw_min_bytes"]), g["lat_timeout"], g["bw_timeout"]))
    else:
        L.append("Every contender moves the same volume per run: %d exchanges for "
                 "latency, %s per QP for bandwidth (%d to %d messages)." % (
                     g["lat_iters"], human(g["bw_bytes"]), g["bw_min_iters"],
                     g["bw_max_iters"]))
    L.append("")
    L.append("### ERI / best peer")
    L.append("")
    L.append("Each cell: ERI's median divided by the best peer's median, the peer, and "
             "whether ERI wins (higher is better for bandwidth and message rate, lower "
             "for latency and CPU).  TCP is the peer for every op: sockperf ping-pong "
             "for latency (its round trip for ib_read_lat), an iperf3 stream for "
             "bandwidth (its message rate counts 64 B application writes, which the "
             "stream may coalesce).  CPU is the busy CPU time of the whole VM (both "
             "ends, kernel included) while the payload moved (from the first to the "
             "last 25 ms sample that saw bytes on the veth; process start-up, device "
             "open and connection left out), per MB of payload; perftest busy-polls "
             "its completion queues (the client, and a SEND's server), iperf3 "
             "sleeps in the kernel.")
    L.append("")
    L.append("| cell | " + " | ".join(conds) + " |")
    L.append("|---|" + "---|" * len(conds))
    wins = loses = na = 0
    unmeasured = False
    for (test, size, qps, key, title, better) in rows(meta):
        cells = []
        for cond in conds:
            if (test, size, qps) not in cond_cells(meta, cond):
                cells.append("·")
                unmeasured = True
                continue
            e = summ.get((cond, "eri", test, size, qps))
            ev = e["metrics"].get(key, {}).get("median") if e else None
            best = None
            for c in names:
                if c == "eri":
                    continue
                s = summ.get((cond, c, peer_test(c, test), size, qps))
                v = s["metrics"].get(key, {}).get("median") if s else None
                if v is None:
                    continue
                if best is None or (v > best[1] if better == "higher" else v < best[1]):
                    best = (c, v)
            if ev is None:
                if e and e["ok"] == 0 and any(not f.startswith("skipped")
                                              for f in e["failures"]):
                    cells.append("n/a (ERI failed)")
                elif e and e["ok"] == 0:
                    cells.append("n/a (skipped: time budget)")
                else:
                    cells.append("n/a (no ERI run)")
                na += 1
            elif best is None or not best[1]:
                cells.append("%s (no peer)" % fmt(ev))
            else:
                ratio = ev / best[1]
                win = ratio > 1 if better == "higher" else ratio < 1
                wins += win
                loses += not win
                cells.append("%.2f vs %s, %s" % (ratio, LABEL[best[0]], "wins" if win else "**loses**"))
        L.append("| %s | %s |" % (title, " | ".join(cells)))
    L.append("")
    L.append("ERI wins %d cells, loses %d, has no number in %d%s." % (
        wins, loses, na, "; ·: not measured in that condition" if unmeasured else ""))
    L.append("")
    L.append("### Medians per contender (min..max over the repeats)")
    for cond in conds:
        L.append("")
        L.append("**%s** (%s)" % (cond, cond_text(meta, cond)))
        L.append("")
        L.append("| cell | " + " | ".join(LABEL[c] for c in names) + " |")
        L.append("|---|" + "---|" * len(names))
        for (test, size, qps, key, title, better) in rows(meta, cond):
            cols = []
            for c in names:
                s = summ.get((cond, c, peer_test(c, test), size, qps))
                st = s["metrics"].get(key) if s else None
                if st:
                    note = "" if s["ok"] == s["runs"] else " (%d/%d ok)" % (s["ok"], s["runs"])
                    cols.append("%s (%s..%s)%s" % (fmt(st["median"]), fmt(st["min"]),
                                                   fmt(st["max"]), note))
                elif s and s["ok"] == 0:
                    cols.append(short_reason(s).replace("|", "/"))
                else:
                    cols.append("-")
            L.append("| %s | %s |" % (title, " | ".join(cols)))
    # ERI's doorbell system calls per message: no peer has the number.
    L.append("")
    L.append("### ERI: system calls per message")
    L.append("")
    L.append("SQ doorbells the devices received (each is one system call from "
             "liberi) divided by the messages posted; receives need none, and "
             "a doorbell is skipped while the device still drains the queue.")
    L.append("")
    L.append("| cell | " + " | ".join(conds) + " |")
    L.append("|---|" + "---|" * len(conds))
    seen = set()
    for (test, size, qps, key, title, better) in rows(meta):
        if (test, size, qps) in seen:
            continue
        seen.add((test, size, qps))
        cols = []
        for cond in conds:
            if (test, size, qps) not in cond_cells(meta, cond):
                cols.append("·")
                continue
            s = summ.get((cond, "eri", test, size, qps))
            st = s["metrics"].get("syscalls_per_msg") if s else None
            cols.append("%.3f (%.3f..%.3f)" % (st["median"], st["min"], st["max"])
                        if st else "-")
        name = "ib_%s %s%s" % (test, human(size), "" if qps == 1 else " %d QPs" % qps)
        L.append("| %s | %s |" % (name, " | ".join(cols)))
    L += per_byte_table(meta, summ, names, conds)
    L += wire_table(meta, runs, names, conds)
    # Failures.
    L.append("")
    L.append("### Failures")
    L.append("")
    fl = collections.Counter()
    for k, s in summ.items():
        for r, n in s["failures"].items():
            fl[(k[1], r)] += n
    if not fl:
        L.append("None.")
    else:
        L.append("| contender | runs | reason |")
        L.append("|---|---|---|")
        for (c, r), n in sorted(fl.items(), key=lambda kv: (ORDER.index(kv[0][0])
                                                           if kv[0][0] in ORDER else 9, -kv[1])):
            L.append("| %s | %d | %s |" % (LABEL.get(c, c), n, r.replace("|", "/")[:160]))
    L.append("")
    L.append("### The path")
    L.append("")
    topo = meta.get("topology", {})
    for c in names:
        t = topo.get(c, {})
        pc = t.get("path_check", {})
        L.append("- %s: %s <-> %s on veth %s; ping check %s; %s" % (
            LABEL[c], *t.get("addrs", ["?", "?"]), "/".join(t.get("ends", [])),
            "crossed the veth" if pc.get("ok") else "FAILED",
            "ready" if t.get("available") else "unavailable: %s" % t.get("reason", "?")))
    okruns = extra["okruns"]
    L.append("")
    L.append("Every successful run must move at least half its payload bytes over the "
             "veth (counters read before and after each run, kept in results.json); %d "
             "successful runs, %d marked invalid for not crossing it; lowest veth "
             "bytes / payload bytes: %s." % (okruns, extra["invalid"],
                                            extra.get("min_link_ratio", "-")))
    return "\n".join(L) + "\n"


def per_byte_table(meta, summ, names, conds):
    """Per condition, for the bandwidth cells: every contender's CPU per
    MB next to ERI's packets and buffers per MB and the peers' buffers."""
    def med(cond, c, test, size, qps, key):
        s = summ.get((cond, c, peer_test(c, test), size, qps))
        st = s["metrics"].get(key) if s else None
        return st["median"] if st else None

    peers = [c for c in names if c != "eri"]
    L = ["", "### Per-byte costs", "",
         "Medians per MB of payload.  CPU: as above, every contender.  ERI's "
         "packets and buffers: what its two devices sent (`tx_pkts`, `tx_skbs` of "
         "`rdma statistic`: data, ACKs, read responses and retransmissions, both "
         "directions; a super-packet is one buffer) and the buffers they took "
         "(`rx_skbs`), counted before and after each run.  The peers' buffers: "
         "what their stacks handed the veth ends (the veth's packet counters, "
         "both directions, with netem's drops)."]
    for cond in conds:
        bw = [(t, sz, q) for (t, sz, q) in cond_cells(meta, cond) if t.endswith("_bw")]
        if not bw:
            continue
        L += ["", "**%s** (%s)" % (cond, cond_text(meta, cond)), ""]
        hdr = (["CPU-us/MB %s" % LABEL[c] for c in names] +
               (["ERI pkt/MB", "ERI skb/MB", "ERI pkt/skb", "ERI rx skb/MB"]
                if "eri" in names else []) +
               ["%s skb/MB" % LABEL[c] for c in peers])
        L.append("| cell | " + " | ".join(hdr) + " |")
        L.append("|---|" + "---|" * len(hdr))
        for (test, size, qps) in bw:
            op = test.split("_")[0]
            cols = [fmt(med(cond, c, test, size, qps, "cpu_us_per_MB")) for c in names]
            if "eri" in names:
                p = med(cond, "eri", test, size, qps, "eri_tx_pkts_per_MB")
                k = med(cond, "eri", test, size, qps, "eri_tx_skbs_per_MB")
                cols += [fmt(p), fmt(k), fmt(p / k) if p and k else "-",
                         fmt(med(cond, "eri", test, size, qps, "eri_rx_skbs_per_MB"))]
            cols += [fmt(med(cond, c, test, size, qps, "skbs_per_MB")) for c in peers]
            L.append("| ib_%s_bw %s %d QP%s | %s |" % (op, human(size), qps, "s" * (qps > 1),
                                                      " | ".join(cols)))
    return L


def wire_table(meta, runs, names, conds):
    """What netem saw, per condition and contender: packets per buffer."""
    L = ["", "### What netem saw", "",
         "Per condition and contender, over the runs that finished: the packets "
         "netem let through (its own count: a GSO buffer counts as its packets) "
         "per buffer the veth carried, all runs together and the largest of any "
         "run's end, and the largest bytes per buffer (a frame of the MTU is at "
         "most MTU + 14).  1.00 and no more than a frame: netem saw wire packets.  "
         "ERI: also its devices' packets per buffer sent (`tx_pkts` / `tx_skbs`) and "
         "taken (`rx_pkts` / `rx_skbs`: super-packets, or GRO's merges).  "
         "The MTU the runs used: the IB MTU perftest reports, TCP's MSS (iperf3).  "
         "Invalid: runs under wire packets whose counters show a GSO buffer.", ""]
    L.append("| condition | " + " | ".join(LABEL[c] for c in names) + " |")
    L.append("|---|" + "---|" * len(names))
    for cond in conds:
        cols = []
        for c in names:
            rs = [r for r in runs if r["condition"] == cond and r["contender"] == c
                  and r.get("status") in ("ok", "invalid") and (r.get("wire") or {}).get("ends")]
            if not rs:
                cols.append("-")
                continue
            ends = [e for r in rs for e in r["wire"]["ends"].values()]
            pk = sum(e["pkts"] for e in ends)
            sk = sum(e["skbs"] for e in ends)
            worst = max((e["pkts_per_skb"] or 0) for e in ends)
            big = max((e["bytes_per_skb"] or 0) for e in ends)
            txt = "%.2f (max %.2f), <= %d B" % (pk / sk if sk else 0, worst, big)
            if c == "eri":
                tp = sum((r.get("eri") or {}).get("tx_pkts") or 0 for r in rs)
                ts = sum((r.get("eri") or {}).get("tx_skbs") or 0 for r in rs)
                rp = sum((r.get("eri") or {}).get("rx_pkts") or 0 for r in rs)
                rsk = sum((r.get("eri") or {}).get("rx_skbs") or 0 for r in rs)
                if ts:
                    txt += "; device %.2f" % (tp / ts)
                if rsk:
                    txt += " sent, %.2f taken" % (rp / rsk)
            mtus = sorted({(r.get("metrics") or {}).get("ib_mtu") or
                           (r.get("metrics") or {}).get("tcp_mss") for r in rs} - {None})
            if mtus:
                txt += "; %s %s" % ("MSS" if c == "tcp" else "IB MTU",
                                    "/".join(str(x) for x in mtus))
            bad = sum(1 for r in rs if r.get("status") == "invalid")
            if bad:
                txt += "; **%d invalid**" % bad
            cols.append(txt)
        L.append("| %s (%s) | %s |" % (cond, cond_text(meta, cond), " | ".join(cols)))
    return L


# ------------------------------------------------------------------ plots
def gp_quote(s):
    return '"%s"' % s.replace("\\", "/").replace('"', "'").replace("\n", "\\n")


def plot(outdir, meta, summ, names):
    g = meta["grid"]
    conds = [c for c in g["conditions"]]
    pd = os.path.join(outdir, "plotdata")
    os.makedirs(pd, exist_ok=True)
    made = []
    scripts = []

    def failed_note(test_for, size, qps, cs):
        notes = []
        for c in names:
            has = any(summ.get((cond, c, test_for(c), size, qps), {}).get("ok")
                      for cond in cs)
            if not has:
                s = next((summ.get((cond, c, test_for(c), size, qps)) for cond in cs
                          if summ.get((cond, c, test_for(c), size, qps))), None)
                notes.append("%s: failed (%s)" % (LABEL[c], short_reason(s)[:55]))
        return notes

    # Throughput versus loss.
    lconds = [c for c in LOSS_CONDS if c in conds]
    for op in g["bw_ops"]:
        for q in g["bw_qps"]:
            panels = []
            for size in bw_sizes_for(g, q):
                series = []
                for c in names:
                    t = peer_test(c, "%s_bw" % op)
                    rowsd = []
                    for i, cond in enumerate(lconds):
                        st = summ.get((cond, c, t, size, q), {}).get("metrics", {}).get("bw_MBps")
                        if st:
                            rowsd.append("%d %g %g %g" % (i, st["median"], st["min"], st["max"]))
                    if rowsd:
                        fn = os.path.join(pd, "bw_%s_q%d_%d_%s.dat" % (op, q, size, c))
                        with open(fn, "w") as f:
                            f.write("\n".join(rowsd) + "\n")
                        series.append((c, fn))
                notes = failed_note(lambda c: peer_test(c, "%s_bw" % op), size, q, lconds)
                panels.append((size, series, notes))
            if not lconds or not panels:
                continue
            png = "bw_vs_loss_%s_q%d.png" % (op, q)
            n = len(panels)
            cols = min(n, 3)
            rws = (n + cols - 1) // cols
            S = ["set terminal pngcairo noenhanced size %d,%d font 'sans,10'" % (560 * cols, 400 * rws + 60),
                 "set output %s" % gp_quote(os.path.join(outdir, png)),
                 "set multiplot layout %d,%d title %s" % (rws, cols, gp_quote(
                     "ib_%s_bw, %d QP%s (TCP: iperf3, %d stream%s): throughput vs loss\n"
                     "median and min..max of %d runs; %s, %s" % (
                         op, q, "s" if q > 1 else "", q, "s" if q > 1 else "", g["repeats"],
                         meta.get("kernel", "?"), meta.get("started", "?")[:10]))),
                 "set xtics (%s)" % ", ".join('"%s" %d' % (LOSS_X[c], i) for i, c in enumerate(lconds)),
                 "set xrange [-0.3:%g]" % (len(lconds) - 0.7),
                 "unset xlabel", "set ylabel 'MB/s'",
                 "set yrange [0:*]", "set key below horizontal", "set grid ytics"]
            for size, series, notes in panels:
                S.append("unset label")
                S.append("set title %s" % gp_quote(human(size) + " messages; x: packet loss, each direction"))
                for i, nt in enumerate(notes):
                    S.append("set label %d %s at graph 0.02, graph %g left textcolor rgb %s font ',9'"
                             % (i + 1, gp_quote(nt), 0.95 - 0.07 * i, gp_quote("#d62728")))
                if series:
                    parts = []
                    for c, fn in series:
                        parts.append("%s using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb %s title %s"
                                     % (gp_quote(fn), gp_quote(COLOR[c]), gp_quote(LABEL[c])))
                    S.append("plot " + ", ".join(parts))
                else:
                    S.append("set yrange [0:1]")
                    S.append("plot NaN notitle")
                    S.append("set yrange [0:*]")
            S.append("unset multiplot")
            scripts.append(("\n".join(S) + "\n", png))

    # Latency percentiles per condition (those that measure the op).
    for op in g["lat_ops"]:
        panels = []
        lconds = [c for c in conds
                  if any(t == "%s_lat" % op for (t, _, _) in cond_cells(meta, c))]
        for size in g["lat_sizes"]:
            series = []
            for c in names:
                t = peer_test(c, "%s_lat" % op)
                rowsd = []
                for i, cond in enumerate(lconds):
                    s = summ.get((cond, c, t, size, 1), {}).get("metrics", {})
                    if s.get("p50_us") and s.get("p99_us"):
                        rowsd.append("%d %g %g %g %g" % (i, s["p50_us"]["median"], s["p50_us"]["min"],
                                                         s["p50_us"]["max"], s["p99_us"]["median"]))
                if rowsd:
                    fn = os.path.join(pd, "lat_%s_%d_%s.dat" % (op, size, c))
                    with open(fn, "w") as f:
                        f.write("\n".join(rowsd) + "\n")
                    series.append((c, fn))
            notes = failed_note(lambda c: peer_test(c, "%s_lat" % op), size, 1,
                                [c for c in lconds
                                 if ("%s_lat" % op, size, 1) in cond_cells(meta, c)])
            panels.append((size, series, notes))
        png = "latency_%s.png" % op
        n = len(panels)
        if not n:
            continue  # a grid without latency sizes (--set lat_sizes=)
        cols = min(n, 3)
        rws = (n + cols - 1) // cols
        S = ["set terminal pngcairo noenhanced size %d,%d font 'sans,10'" % (560 * cols, 420 * rws + 60),
             "set output %s" % gp_quote(os.path.join(outdir, png)),
             "set multiplot layout %d,%d title %s" % (rws, cols, gp_quote(
                 "ib_%s_lat (TCP: sockperf ping-pong%s)\np50 (solid, min..max bars) and p99 "
                 "(dashed), %d runs; %s, %s" % (
                     op, ", round trip" if op == "read" else "", g["repeats"],
                     meta.get("kernel", "?"), meta.get("started", "?")[:10]))),
             "set xtics (%s)" % ", ".join('"%s" %d' % (c, i) for i, c in enumerate(lconds)),
             "set xrange [-0.3:%g]" % (len(lconds) - 0.7),
             "unset xlabel", "set ylabel 'latency, us'",
             "set logscale y", "set key below horizontal", "set grid ytics"]
        for size, series, notes in panels:
            S.append("unset label")
            S.append("set title %s" % gp_quote(human(size) + " messages; x: netem condition, each direction"))
            for i, nt in enumerate(notes):
                S.append("set label %d %s at graph 0.98, graph %g right textcolor rgb %s font ',9'"
                         % (i + 1, gp_quote(nt), 0.06 + 0.07 * i, gp_quote("#d62728")))
            if series:
                parts = []
                for c, fn in series:
                    parts.append("%s using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb %s title %s"
                                 % (gp_quote(fn), gp_quote(COLOR[c]), gp_quote(LABEL[c] + " p50")))
                    parts.append("%s using 1:5 with linespoints dt 2 lw 2 pt 6 lc rgb %s title %s"
                                 % (gp_quote(fn), gp_quote(COLOR[c]), gp_quote(LABEL[c] + " p99")))
                S.append("plot " + ", ".join(parts))
            else:
                S.append("unset logscale y")
                S.append("plot NaN notitle")
                S.append("set logscale y")
        S.append("unset multiplot")
        scripts.append(("\n".join(S) + "\n", png))

    for text, png in scripts:
        gp = os.path.join(pd, png.replace(".png", ".gp"))
        with open(gp, "w") as f:
            f.write(text)
        p = subprocess.run(["gnuplot", gp], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if p.returncode != 0 or not os.path.exists(os.path.join(outdir, png)):
            print("report: gnuplot failed for %s: %s" % (png, p.stdout.strip()[-500:]),
                  file=sys.stderr)
            try:
                os.unlink(os.path.join(outdir, png))    # never leave a half-drawn plot
            except OSError:
                pass
        else:
            made.append(png)
    return made


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--vm-status", type=int, default=None)
    ap.add_argument("--git", default="?")
    ap.add_argument("--siw-source", default="")
    ap.add_argument("--rdma-core", default="")
    a = ap.parse_args()
    meta, runs, end = load(a.runs)
    if not meta:
        sys.exit("report: no metadata in %s" % a.runs)
    names = [c for c in ORDER if c in meta.get("contenders", [])]
    conds = meta["grid"]["conditions"]
    summ = summarize(meta, runs)
    okruns = sum(1 for r in runs if r.get("status") == "ok")
    invalid = sum(1 for r in runs if r.get("status") == "invalid")
    ratios = [r["link_bytes"] / r["app_bytes"] for r in runs
              if r.get("status") == "ok" and r.get("app_bytes")]
    extra = {"git": a.git, "siw": a.siw_source, "okruns": okruns, "invalid": invalid,
             "min_link_ratio": "%.2f" % min(ratios) if ratios else "-"}
    complete = end is not None and a.vm_status in (0, None)
    md = table(meta, summ, runs, names, conds, extra)
    if not complete:
        md = ("**Incomplete run** (VM status %s%s): the numbers below are what was "
              "measured before it stopped.\n\n" % (a.vm_status, "" if end else ", no end record")) + md
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(md)
    pngs = plot(a.out, meta, summ, names)
    res = {"meta": meta, "git": a.git, "siw_source": a.siw_source, "rdma_core": a.rdma_core,
           "vm_status": a.vm_status, "complete": complete,
           "elapsed_s": end.get("elapsed_s") if end else None,
           "summary": [dict(zip(("condition", "contender", "test", "size", "qps"), k), **v)
                       for k, v in sorted(summ.items(), key=lambda kv: str(kv[0]))],
           "runs": runs, "plots": pngs}
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print("report: %d runs (%d ok, %d invalid), %s, table.md, %s" % (
        len(runs), okruns, invalid, "results.json", ", ".join(pngs)), file=sys.stderr)


if __name__ == "__main__":
    main()
