"""Where a run's time goes on the GPU, from a torch.profiler (Kineto) Chrome trace: no torch
needed, so that it is checked here (test/lit/bench/timeline.test) and used on the device by
torch_side.profile_kernels.

Issue 6 asks for a per-run host overhead (run time minus the sum of kernel times) under 20 us.
With programmatic dependent launch (templates/hip/common.hpp) a kernel starts before the one
before it ends and waits on the device, so CUPTI's durations overlap and their sum can exceed
the time the GPU was busy; and the overhead itself is made of parts that call for different
fixes. So, per run (the activities of one graph launch: the kernels and memsets that share its
correlation id):
  busy      the union of the run's activity intervals (kernels overlapping count once)
  overlap   the sum of durations minus busy (what PDL overlapped)
  span      first activity start to last activity end
  idle      span minus busy, in `gaps` gaps between consecutive activities (median, largest)
  latency   the first activity's start minus the start of the graph launch call (host clock
            and GPU timestamps are on one time base in the trace)
and over all runs the kernel time and busy time per run. Runs that cannot be told apart (no
correlation ids, or not one group per run) give the totals only.

  python3 bench/gpu/timeline.py TRACE.json RUNS     prints the summary (JSON)
"""
import json
import statistics
import sys

GPU_CATS = ("kernel", "gpu_memset", "gpu_memcpy")
LAUNCHES = ("cudaGraphLaunch", "cudaGraphLaunch_v10000", "hipGraphLaunch")


def union_us(intervals):
    """Total length of the union of (start, end) intervals."""
    total, end = 0.0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def gaps_us(intervals):
    """The idle stretches between the intervals (their union's holes), in order."""
    out, end = [], None
    for s, e in sorted(intervals):
        if end is not None and s > end:
            out.append(s - end)
        end = e if end is None or e > end else end
    return out


def summarize(events, runs):
    acts, launch_ts = [], {}
    for e in events:
        cat, args = e.get("cat"), e.get("args") or {}
        if cat in GPU_CATS and "dur" in e and "ts" in e:
            acts.append((float(e["ts"]), float(e["ts"]) + float(e["dur"]), cat, args.get("correlation"), e.get("name", cat)))
        elif cat == "cuda_runtime" and e.get("name") in LAUNCHES and "correlation" in args:
            launch_ts[args["correlation"]] = float(e["ts"])
    kernels = [a for a in acts if a[2] == "kernel"]
    out = {
        "runs": runs,
        "kernel_ms": sum(a[1] - a[0] for a in kernels) / runs / 1000.0,
        "launches": len(kernels) / runs,
        "memsets": sum(1 for a in acts if a[2] == "gpu_memset") / runs,
        "memcpys": sum(1 for a in acts if a[2] == "gpu_memcpy") / runs,
        "busy_ms": union_us([(a[0], a[1]) for a in acts]) / runs / 1000.0,
    }
    groups = {}
    for a in acts:
        if a[3] is not None:
            groups.setdefault(a[3], []).append(a)
    if len(groups) != runs:
        out["per_run"] = None
        return out
    per, where = [], {}
    for corr, g in groups.items():
        w = largest_gap_at(g)
        if w:
            where[w] = where.get(w, 0) + 1
        iv = [(a[0], a[1]) for a in g]
        busy = union_us(iv)
        holes = gaps_us(iv)
        span = max(e for _, e in iv) - min(s for s, _ in iv)
        per.append({
            "busy_us": busy,
            "overlap_us": sum(e - s for s, e in iv) - busy,
            "span_us": span,
            "idle_us": span - busy,
            "gaps": len(holes),
            "gap_median_us": statistics.median(holes) if holes else 0.0,
            "gap_max_us": max(holes) if holes else 0.0,
            "latency_us": min(s for s, _ in iv) - launch_ts[corr] if corr in launch_ts else None,
        })
    med = {}
    for k in per[0]:
        vals = [p[k] for p in per if p[k] is not None]
        med[k] = statistics.median(vals) if vals else None
    out["per_run"] = med  # medians over the runs
    if where:  # the activities on either side of each run's largest gap, the commonest pair
        (before, after), n = max(where.items(), key=lambda kv: kv[1])
        out["largest_gap_at"] = {"before": before, "after": after, "runs": n, "activity": position(groups, before, after)}
    return out


def short(name):
    """A kernel's name without its template arguments' insides: enough to tell kernels apart."""
    name = name.replace("void ", "", 1)
    return name if len(name) <= 90 else name[:90] + "..."


def largest_gap_at(group):
    """(name before, name after) of the largest hole between a run's activities, or None."""
    iv = sorted(group)
    best, end, prev = None, None, None
    for a in iv:
        if end is not None and a[0] > end and (best is None or a[0] - end > best[0]):
            best = (a[0] - end, prev[4], a[4])
        if end is None or a[1] > end:
            end, prev = a[1], a
    return (short(best[1]), short(best[2])) if best else None


def position(groups, before, after):
    """Index (from 0) of the activity after the gap in the first run that has that pair."""
    for g in groups.values():
        iv = sorted(g)
        for i in range(1, len(iv)):
            if short(iv[i - 1][4]) == before and short(iv[i][4]) == after:
                return i
    return None


def describe(s):
    """One line for the profile files."""
    line = "busy %.3f ms per run (%.0f launches, %.0f memsets)" % (s["busy_ms"], s["launches"], s["memsets"])
    p = s.get("per_run")
    if p:
        line += "; per run (medians): span %.1f us, overlap %.1f us, idle %.1f us in %d gaps (median %.2f us, largest %.1f us)" % (
            p["span_us"], p["overlap_us"], p["idle_us"], p["gaps"], p["gap_median_us"], p["gap_max_us"])
        if p["latency_us"] is not None:
            line += ", first activity %.1f us after the graph launch call" % p["latency_us"]
        g = s.get("largest_gap_at")
        if g:
            line += "; largest gap (%d of %d runs) before activity %s: %s -> %s" % (
                g["runs"], s["runs"], g["activity"], g["before"], g["after"])
    else:
        line += "; runs not told apart (no per-run breakdown)"
    return line


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: timeline.py TRACE.json RUNS\n")
        return 2
    with open(argv[1]) as f:
        events = json.load(f).get("traceEvents", [])
    s = summarize(events, int(argv[2]))
    print(json.dumps(s, sort_keys=True))
    print(describe(s))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
