# check_perf.py < PERF_OUTPUT: the numbers of `mxc perf` add up. The instruction times sum to
# "Total instructions time", so do the per-type totals of the Summary (with their counts), the
# shares sum to 100%, and Total time = Total instructions time + Overhead (never negative).
import re, sys
text = sys.stdin.read()
def close(a, b, what, tol):
    if abs(a - b) > tol: sys.exit("%s: %.4f vs %.4f" % (what, a, b))
inst = [(float(m), float(s)) for m, s in re.findall(r"^\S+ = .*: (-?[0-9.]+)ms, (-?[0-9.]+)%$", text, re.M)]
summary = [(float(t), int(n), float(s)) for t, n, s in
           re.findall(r"^\S+: ([0-9.]+)ms / ([0-9]+) = [0-9.]+ms, ([0-9.]+)%$", text, re.M)]
total = float(re.search(r"^Total time: ([0-9.]+)ms", text, re.M).group(1))
itime = float(re.search(r"^Total instructions time: ([0-9.]+)ms", text, re.M).group(1))
over, over_pct = map(float, re.search(r"^Overhead time: (-?[0-9.]+)ms, (-?[0-9.]+)%", text, re.M).groups())
if not inst or not summary: sys.exit("no instruction lines or no Summary")
close(sum(t for t, _ in inst), itime, "instruction times vs Total instructions time", 1e-4 * len(inst) + 1e-3)
close(sum(t for t, _, _ in summary), itime, "Summary totals vs Total instructions time", 1e-4 * len(summary) + 1e-3)
if sum(n for _, n, _ in summary) != len(inst): sys.exit("Summary counts %d kernels, the program lists %d" % (sum(n for _, n, _ in summary), len(inst)))
close(sum(s for _, s in inst), 100.0, "instruction shares", 0.01 * len(inst) + 0.05)
close(sum(s for _, _, s in summary), 100.0, "Summary shares", 0.01 * len(summary) + 0.05)
close(itime + over, total, "Total instructions time + Overhead vs Total time", 2e-3)
# the share is printed to 0.01% and computed from unrounded times; the times here are rounded
# to 0.0001 ms, which on a run of a few microseconds moves the recomputed share by more
close(100 * over / total, over_pct, "Overhead share", 0.005 + 100 * 1e-4 / total * (1 + abs(over) / total))
if over < 0: sys.exit("negative overhead %.4f ms: the instruction times exceed the total" % over)
print("perf adds up: %d instructions, %.4f ms of %.4f ms, overhead %.4f ms (%.2f%%)" % (len(inst), itime, total, over, over_pct))
