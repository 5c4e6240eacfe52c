# check_trace.py TRACE.json ITERATIONS: a Chrome trace with one complete ("X") slice per kernel
# per iteration, each with its instruction, shapes, FLOPs and bytes; slices of one iteration
# do not overlap and run in order.
import json, sys
t = json.load(open(sys.argv[1]))
ev = [e for e in t["traceEvents"] if e.get("cat") == "kernel"]
its = int(sys.argv[2])
if not ev or len(ev) % its: sys.exit("%d kernel events for %d iterations" % (len(ev), its))
for e in ev:
    if e["ph"] != "X" or e["dur"] < 0: sys.exit("bad slice %s" % e)
    for k in ("instruction", "inputs", "output", "flops", "bytes"):
        if k not in e["args"]: sys.exit("slice without %s: %s" % (k, e))
per = len(ev) // its
for i in range(its):
    s = ev[i * per:(i + 1) * per]
    for a, b in zip(s, s[1:]):
        if b["ts"] < a["ts"] + a["dur"] - 1e-3: sys.exit("overlapping slices %s %s" % (a, b))
