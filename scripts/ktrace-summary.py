#!/usr/bin/env python3
"""Summarises a cz_ktrace CSV (src/gpu/tools/ktrace.c): per-kernel device time, copies, and the time no
kernel or copy ran, over the whole trace or one segment of it.

  python3 scripts/ktrace-summary.py trace.csv [--split REGEX] [--segment K] [--top N] [--gaps US]
                                    [--launches REGEX] [--bins MS]

--split REGEX starts a new segment at every kernel whose name matches (e.g. ab_rev_tiled: one PoRep
partition from its c = a b step on); --segment picks one (default -1, the last; 'all' prints each). Names keep
their template arguments (msf_bwd<cz_dfp; 2; true; 1> is round 0's backward pass). 'busy' is the union of
all intervals on all streams; 'sum' adds durations, so sum / busy > 1 means streams overlapped.

--launches REGEX lists every kernel of the segment whose name matches, in start order: its start (ms from the
segment's first record), duration and stream (e.g. ntt_pass: the NTT passes one by one). --bins MS prints the
segment as a timeline: for each MS-wide bin, the device time each kernel name (cut at its first '<') spent in
it, largest first (the phases of a partition and what runs beside what)."""
import argparse
import re
import sys
from collections import defaultdict


def load(path):
    recs = []
    dropped = 0
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split(",", 7)
            if p[0] == "D":
                dropped += int(p[1])
                continue
            if p[0] == "K" and len(p) == 8:
                recs.append(("K", int(p[1]), int(p[2]), int(p[3]), p[7], int(p[4]), int(p[5])))
            elif p[0] in ("C", "S") and len(p) >= 6:
                kind = {"1": "HtoD", "2": "DtoH", "8": "DtoD", "10": "PtoP"}.get(p[5], p[5]) if p[0] == "C" else "memset"
                recs.append((p[0], int(p[1]), int(p[2]), int(p[3]), "[%s]" % kind, int(p[4]), 0))
    recs.sort(key=lambda r: r[1])
    return recs, dropped


def union(iv):
    busy, cur_s, cur_e, gaps = 0, None, None, []
    for s, e in sorted(iv):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                busy += cur_e - cur_s
                gaps.append(s - cur_e)
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        busy += cur_e - cur_s
    return busy, gaps


def summary(recs, top, gap_us, title):
    if not recs:
        print("%s: no records" % title)
        return
    t0 = min(r[1] for r in recs)
    t1 = max(r[2] for r in recs)
    span = t1 - t0
    busy, gaps = union([(r[1], r[2]) for r in recs])
    tot = defaultdict(lambda: [0, 0, 0])  # name -> count, ns, bytes
    for r in recs:
        t = tot[r[4]]
        t[0] += 1
        t[1] += r[2] - r[1]
        if r[0] != "K":
            t[2] += r[5]
    ssum = sum(v[1] for v in tot.values())
    big = [g for g in gaps if g >= gap_us * 1000]
    print("== %s: span %.3f ms, busy %.3f ms, idle %.3f ms (%d gaps; %d >= %g us, %.3f ms), sum %.3f ms (x%.2f of busy), %d records"
          % (title, span / 1e6, busy / 1e6, (span - busy) / 1e6, len(gaps), len(big), gap_us, sum(big) / 1e6,
             ssum / 1e6, ssum / busy if busy else 0, len(recs)))
    print("%10s %7s %10s %6s  %s" % ("ms", "count", "mean us", "%span", "name"))
    for name, (cnt, ns, by) in sorted(tot.items(), key=lambda kv: -kv[1][1])[:top]:
        extra = "  %.1f MB" % (by / 1e6) if by else ""
        print("%10.3f %7d %10.1f %6.1f  %s%s" % (ns / 1e6, cnt, ns / 1e3 / cnt, 100.0 * ns / span, name, extra))


def launches(recs, pattern):
    rx = re.compile(pattern)
    t0 = min(r[1] for r in recs)
    print("  start ms     ms  stream  name")
    for r in recs:
        if r[0] == "K" and rx.search(r[4]):
            print("%10.3f %7.3f %6d  %s" % ((r[1] - t0) / 1e6, (r[2] - r[1]) / 1e6, r[3], r[4]))


def bins(recs, width_ms, top=4):
    t0 = min(r[1] for r in recs)
    w = int(width_ms * 1e6)
    per = defaultdict(lambda: defaultdict(int))  # bin -> short name -> ns
    for r in recs:
        name = r[4].split("<", 1)[0]
        s, e = r[1] - t0, r[2] - t0
        for b in range(s // w, (max(e - 1, s)) // w + 1):
            lo, hi = max(s, b * w), min(e, (b + 1) * w)
            if hi > lo:
                per[b][name] += hi - lo
    print("  bin ms  device ms by kernel (top %d)" % top)
    for b in sorted(per):
        items = sorted(per[b].items(), key=lambda kv: -kv[1])[:top]
        print("%8.1f  %s" % (b * width_ms, "  ".join("%s %.2f" % (n, ns / 1e6) for n, ns in items)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--split", help="regex: a kernel whose name matches starts a segment")
    ap.add_argument("--segment", default="-1", help="segment index, or 'all'")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--gaps", type=float, default=20.0, help="report idle gaps of at least this many us")
    ap.add_argument("--launches", help="regex: list the matching kernels of the segment one by one")
    ap.add_argument("--bins", type=float, help="timeline of the segment in bins of this many ms")
    a = ap.parse_args()
    recs, dropped = load(a.csv)
    if dropped:
        print("warning: CUPTI dropped %d records" % dropped)
    segs = [recs]
    if a.split:
        rx = re.compile(a.split)
        starts = [i for i, r in enumerate(recs) if r[0] == "K" and rx.search(r[4])]
        if not starts:
            sys.exit("no kernel matches %r" % a.split)
        segs = [recs[s:e] for s, e in zip(starts, starts[1:] + [len(recs)])]
    if a.segment == "all":
        chosen = list(enumerate(segs))
    else:
        try:
            k = int(a.segment)
        except ValueError:
            ap.error("--segment: an index or 'all', not %r" % a.segment)
        if not -len(segs) <= k < len(segs):
            ap.error("--segment %d: the trace has %d segment(s)" % (k, len(segs)))
        chosen = [(k % len(segs), segs[k])]
    for i, s in chosen:
        summary(s, a.top, a.gaps, "segment %d of %d" % (i, len(segs)))
        if a.launches:
            launches(s, a.launches)
        if a.bins:
            bins(s, a.bins)


if __name__ == "__main__":
    main()
