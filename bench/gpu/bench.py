"""mxc against PyTorch on a GPU (issue 6, point 6): for each model, batch and dtype, compile
with mxc, check the outputs against ONNX Runtime (CPU) on the same inputs, time mxc, PyTorch
eager and torch.compile in the same process, and write one JSON line per row as soon as it is
done (a command stopped at its limit keeps the finished rows), then a markdown table.

    python3 -u bench/gpu/bench.py [--models resnet50,mobilenetv2,vit_b_16,bert-base]
        [--batches 1,32] [--dtypes fp32,fp16] [--out DIR] [--runs 50] ...
    /usr/bin/python3 bench/gpu/bench.py --target cpu --small     (dry run, no GPU, no torch)

Device mode (--target hip, the default) needs torch (bench/gpu/torch_side.py) and onnxruntime;
the torchvision models are exported with torch.onnx.export (random weights, fixed shapes).
--target cpu is the plumbing check that runs anywhere: the zoo's resnet50 / mobilenetv2 /
vit-b16 (for vit_b_16) / bert-base (tools/models/zoo.py) built for the cpu target and timed with
the host clock, ONNX Runtime from python or tools/ort (node); no torch columns.

Accuracy (against ONNX Runtime CPU fp32 on the same inputs): fp32 rows pass with
max|mxc - ort| / max|ort| <= 1e-3; fp16 rows with the normalised RMS error
||mxc - ort||_2 / (sqrt(n) max|ort|) <= 1e-2 (mxc verify's measure).
"""
import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from mxclib import Library, run_host  # noqa: E402

SEQ = 128  # the zoo BERT's sequence length (tools/models/zoo.py)
ALL_MODELS = ["resnet50", "mobilenetv2", "vit_b_16", "bert-base"]
FP32_MAX_REL, FP16_NRMS = 1e-3, 1e-2


def log(*a):
    print(*a, flush=True)


# --- inputs, models, reference --------------------------------------------------------------
def make_inputs(model, batch):
    """Seeded inputs in the model's input order: images uniform in [-1, 1); BERT token ids
    uniform over the vocabulary and an attention mask with the last eighth of each row 0."""
    rng = np.random.default_rng(batch)
    if model == "bert-base":
        seq = SMALL_SEQ if ARGS.small else SEQ
        vocab = 100 if ARGS.small else 30522
        mask = np.ones((batch, seq), np.int64)
        mask[:, seq - seq // 8:] = 0
        return ["input_ids", "attention_mask"], [rng.integers(0, vocab, (batch, seq)).astype(np.int64), mask]
    size = 32 if ARGS.small else 224
    return ["image"], [rng.uniform(-1, 1, (batch, 3, size, size)).astype(np.float32)]


SMALL_SEQ = 16


def set_batch(src, dst, batch):
    """Copies a model whose graph inputs and outputs have batch 1 in front, declaring `batch`
    instead (the zoo models compute their reshapes from Shape, so nothing else changes)."""
    m = onnx.load(src)
    for v in list(m.graph.input) + list(m.graph.output):
        d = v.type.tensor_type.shape.dim
        if len(d) and d[0].HasField("dim_value"):
            d[0].dim_value = batch
    onnx.save(m, dst)


def zoo_model(name, batch):
    """tools/models/zoo.py's model (run with this python: needs onnx and numpy only) with the
    batch set."""
    base = os.path.join(ARGS.work, "zoo-%s%s.onnx" % (name, "-small" if ARGS.small else ""))
    if not os.path.exists(base):
        cmd = [sys.executable, os.path.join(ROOT, "tools/models/zoo.py"), name, "-o", base] + (["--small"] if ARGS.small else [])
        subprocess.run(cmd, check=True)
    if batch == 1:
        return base
    path = base.replace(".onnx", "-b%d.onnx" % batch)
    if not os.path.exists(path):
        set_batch(base, path, batch)
    return path


def get_model(name, batch):
    """(ONNX path, torch module or None, exporter) for a row."""
    if ARGS.target == "cpu":
        # the dry run has the zoo models only: ViT-B/16 as the zoo writes torchvision's export
        return zoo_model("vit-b16" if name == "vit_b_16" else name, batch), None, "zoo"
    import torch_side
    if name == "bert-base":
        path = zoo_model(name, batch)
        return path, torch_side.ZooBert(zoo_model(name, 1)), "zoo"
    module = torch_side.torchvision_model(name)
    path = os.path.join(ARGS.work, "%s-b%d.onnx" % (name, batch))
    exporter = "cached"
    if not os.path.exists(path):
        t0 = time.perf_counter()
        names, inputs = make_inputs(name, batch)
        exporter = torch_side.export(module, inputs, names, ["logits"], path + ".tmp", ARGS.opset)
        os.replace(path + ".tmp", path)
        log("  exported %s (%s exporter) in %.1f s" % (path, exporter, time.perf_counter() - t0))
    return path, module, exporter


def ort_reference(path, names, inputs):
    """ONNX Runtime CPU outputs, in graph output order: the python package when there is one,
    else tools/ort (node). Cached beside the model (same seeded inputs every time)."""
    cache = path + ".ort-b%d.npz" % inputs[0].shape[0]
    if os.path.exists(cache):
        z = np.load(cache)
        return [z["arr_%d" % i] for i in range(len(z.files))]
    try:
        import onnxruntime as ort
        s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        outs = s.run(None, dict(zip(names, inputs)))
    except ImportError:
        outs = ort_node(path, names, inputs)
    np.savez(cache, *outs)
    return outs


def ort_node(path, names, inputs):
    d = os.path.join(ARGS.work, "ort-io")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    specs = []
    for n, a in zip(names, inputs):
        f = os.path.join(d, n + ".in")
        a.tofile(f)
        specs.append("%s:%s:%s:%s" % (n, a.dtype.name, "x".join(map(str, a.shape)), f))
    r = subprocess.run(["node", os.path.join(ROOT, "tools/ort/run.js"), path, d] + specs, check=True,
                       capture_output=True, text=True)
    outs = []
    for line in r.stdout.split("\n"):
        if line.strip():
            n, t, dims = line.split()
            outs.append(np.fromfile(os.path.join(d, n + ".bin"), dtype=t).reshape([int(x) for x in dims.split("x")]))
    return outs


def errors(got, ref):
    """max|a-b|/max|b| and the normalised RMS ||a-b||/(sqrt(n) max|b|), worst over outputs;
    NaN anywhere (or a shape mismatch) is an infinite error."""
    worst_rel, worst_nrms = 0.0, 0.0
    for a, b in zip(got, ref):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if a.shape != b.shape or not np.all(np.isfinite(a)):
            return float("inf"), float("inf")
        scale = max(np.max(np.abs(b)), 1e-30)
        d = np.abs(a - b)
        worst_rel = max(worst_rel, float(np.max(d)) / scale)
        worst_nrms = max(worst_nrms, float(np.sqrt(np.mean(d * d))) / scale)
    return worst_rel, worst_nrms


def accuracy(dtype, got, ref):
    rel, nrms = errors(got, ref)
    ok = rel <= FP32_MAX_REL if dtype == "fp32" else nrms <= FP16_NRMS
    return {"max_rel": rel, "nrms": nrms, "pass": bool(ok)}


# --- mxc ------------------------------------------------------------------------------------
def mxc_cmd(*args):
    return [ARGS.mxc] + list(args)


def target_args(dtype):
    a = ["--target", ARGS.target]
    if ARGS.target == "hip":
        a += ["--offload-arch", ARGS.arch]
    if ARGS.hip_compiler:
        a += ["--hip-compiler", ARGS.hip_compiler]
    if ARGS.tuning_db:
        a += ["--tuning-db", ARGS.tuning_db]
    return a + (["--fp16"] if dtype == "fp16" else [])


def compile_mxc(path, lib, dtype):
    """Compiles twice; (seconds of the first build, of the second, the second's --report JSON
    with the first build's slowest passes added as "slowest_passes": [[pass, seconds], ...],
    from -v: on the H200 the rebuild's passes took 0.7-1.2 s for ViT-B/16 and 9.2 s for
    BERT-base at batch 32 in fp32, 2026-11-26, where the zoo models' took 0.04-0.5 s here; the
    rebuild now comes from the whole-build cache, no passes run)."""
    report = lib + ".report.json"
    cmd = mxc_cmd(path, "-o", lib, "--name", "m", "-q", "--report", report, *target_args(dtype))
    times, first = [], None
    for i in range(2):
        t0 = time.perf_counter()
        r = subprocess.run(cmd + ([] if i else ["-v"]), capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if r.returncode != 0:
            raise RuntimeError("mxc compile failed: " + (r.stderr.strip().splitlines() or ["?"])[-1])
        if first is None:
            first = r.stderr
            with open(report) as f:
                first_seconds = json.load(f).get("seconds")
    with open(report) as f:
        rep = json.load(f)
    rep["first_seconds"] = first_seconds
    passes = [(m.group(2), float(m.group(1))) for m in re.finditer(r"^ +([0-9.]+)  (\S+)$", first, re.M)
              if m.group(2) != "total"]
    rep["slowest_passes"] = [[n, t] for n, t in sorted(passes, key=lambda p: -p[1])[:5]]
    return times[0], times[1], rep


def mxc_perf(path, dtype):
    """`mxc perf`: the sum of the kernel times (a build with --profile-hooks: one event pair per
    kernel; the kernel objects come from the cache) and its own overhead figure (its runs use
    host pointers, so that one includes the input and output copies)."""
    r = subprocess.run(mxc_cmd("perf", path, "-n", str(ARGS.perf_runs), "--warmup", "10", "-q", *target_args(dtype)),
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("mxc perf failed: " + (r.stderr.strip().splitlines() or ["?"])[-1])
    return parse_perf(r.stdout)


def parse_perf(text):
    num = r"([0-9.eE+-]+)ms"
    m = re.search(r"Total time: " + num + r" \(Min: " + num + r", Median: " + num, text)
    k = re.search(r"Total instructions time: " + num, text)
    o = re.search(r"Overhead time: " + num, text)
    if not (m and k and o):
        raise RuntimeError("mxc perf: unexpected output (no Total time / Total instructions time / Overhead lines)")
    mean, median, kernels = float(m.group(1)), float(m.group(3)), float(k.group(1))
    return {"perf_mean_ms": mean, "perf_median_ms": median, "kernels_ms": kernels,
            "perf_overhead_us": 1000 * (mean - kernels)}


def time_host(fn, runs, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(1000 * (time.perf_counter() - t0))
    return times


def run_mxc(lib_path, feeds):
    """(median ms, outputs) for feeds (input name -> array): device pointers and CUDA events on
    the GPU; on cpu, host buffers and the host clock."""
    if ARGS.target == "hip":
        import torch_side
        median, _, out, sync = torch_side.run_mxc(lib_path, "m", feeds, ARGS.runs, ARGS.warmup)
        return median, out, sync
    lib = Library(lib_path, "m")
    try:
        inputs = [feeds[i["name"]] for i in lib.inputs]
        out = run_host(lib, inputs)
        return float(np.median(time_host(lambda: run_host(lib, inputs), ARGS.runs, ARGS.warmup))), out
    finally:
        lib.close()


def write_profile(row, who, prof):
    """The kernels of one row's runs (CUPTI, per run, longest first) to OUT/profile-....txt."""
    import timeline
    total, rows, tl = prof
    path = os.path.join(ARGS.out, "profile-%s-b%d-%s.txt" % (row["model"], row["batch"], row["dtype"]))
    with open(path, "a") as f:
        f.write("== %s: %.3f ms of kernels per run, %.0f launches\n" % (who, total, sum(r[2] for r in rows)))
        f.write("   timeline: %s\n" % timeline.describe(tl))
        for name, ms, n in rows:
            f.write("%9.4f ms %5.1f%% x%-4g %s\n" % (ms, 100 * ms / total if total else 0, n, name[:200]))


# --- one row --------------------------------------------------------------------------------
def step(row, key, fn):
    """Runs one step of a row; a failure is recorded in row['errors'][key], not raised."""
    t0 = time.perf_counter()
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 (every failure becomes a line of the results)
        msg = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:300] if str(e).strip() else "")
        row.setdefault("errors", {})[key] = msg
        log("  %s FAILED after %.1f s: %s" % (key, time.perf_counter() - t0, msg))
        return None


def bench_row(name, batch, dtype, path, module, exporter, names, inputs, ref):
    row = {"model": name, "batch": batch, "dtype": dtype, "target": ARGS.target,
           "arch": ARGS.arch if ARGS.target == "hip" else platform.machine(), "exporter": exporter,
           "opset": max((o.version for o in onnx.load(path, load_external_data=False).opset_import
                         if o.domain in ("", "ai.onnx")), default=0)}
    profiles = []  # (kind, args) for torch_side.profile_in_child, after the timed runs
    lib = os.path.join(ARGS.work, "%s-b%d-%s" % (name, batch, dtype), "libm.so")
    os.makedirs(os.path.dirname(lib), exist_ok=True)
    c = step(row, "compile", lambda: compile_mxc(path, lib, dtype))
    if c:
        row["compile_s"], row["recompile_s"], rep = c
        row["kernels"] = rep.get("kernels")
        row["phases_s"], row["objects"] = rep.get("seconds"), rep.get("objects")
        row["slowest_passes"], row["first_phases_s"] = rep.get("slowest_passes"), rep.get("first_seconds")
        log("  mxc compile %.1f s, recompile %.2f s" % (row["compile_s"], row["recompile_s"]))
        r = step(row, "mxc_run", lambda: run_mxc(lib, dict(zip(names, inputs))))
        if r:
            row["mxc_ms"] = r[0]
            if len(r) > 2:
                row["mxc_sync_ms"] = r[2]  # the synchronous run (run_mxc)
            if ref is not None:
                row["mxc_acc"] = accuracy(dtype, r[1], ref)
            log("  mxc %.3f ms, accuracy %s" % (r[0], row.get("mxc_acc")))
        if r and ARGS.target == "hip":
            profiles.append(("mxc", (lib, "m", dict(zip(names, inputs)), 20, ARGS.runs)))
        if not ARGS.no_perf:
            p = step(row, "perf", lambda: mxc_perf(path, dtype))
            if p:
                row.update(p)
                if "mxc_ms" in row and "overhead_us" not in row:  # without CUPTI: the run time minus perf's kernel times
                    row["overhead_us"] = 1000 * (row["mxc_ms"] - p["kernels_ms"])
                log("  mxc perf: kernels %.3f ms (event pair per kernel)" % p["kernels_ms"])
    if module is not None and not ARGS.no_torch:
        import torch_side
        e = step(row, "eager", lambda: torch_side.run_eager(module, inputs, dtype, ARGS.runs, ARGS.warmup))
        if e:
            row["eager_ms"] = e[0]
            if ref is not None:
                row["eager_acc"] = accuracy(dtype, e[2], ref)
            log("  eager %.3f ms, accuracy %s" % (e[0], row.get("eager_acc")))
            profiles.append(("eager", (module, inputs, dtype)))
        torch_side.release()
        if not ARGS.no_compile:
            k = step(row, "torch_compile", lambda: torch_side.run_compiled(module, inputs, dtype, ARGS.runs, ARGS.warmup,
                                                                           ARGS.compile_mode))
            if k:
                row["compile_ms"], row["torch_compile_s"] = k[0], k[3]
                log("  torch.compile %.3f ms (compiled in %.1f s)" % (k[0], k[3]))
        torch_side.release()
    if profiles:
        add_profiles(row, profiles)
    return row


def add_profiles(row, profiles):
    """The row's CUPTI profiles (mxc's and eager's kernels), taken after every timed run of the
    row, in a child process (torch_side.profile_in_child: CUPTI slows every later launch of the
    process it attached to, which with --same-process times the later rows)."""
    import torch_side
    got = step(row, "profile", lambda: torch_side.profile_in_child(profiles, ARGS.tf32))
    for (kind, _), k in zip(profiles, got or []):
        if isinstance(k, str):
            row.setdefault("errors", {})[kind + "_profile"] = k
            log("  %s profile FAILED: %s" % (kind, k))
        elif kind == "eager":
            row["eager_kernels_ms"], row["eager_kernels_n"] = k[0], sum(x[2] for x in k[1])
            write_profile(row, "eager", k)
        else:
            # the run time minus the kernel times, and minus the GPU's busy time (overlapping
            # kernels counted once), both from the profile's process (its runs timed first)
            row["kernels_cupti_ms"], row["kernels_cupti_n"] = k[0], sum(x[2] for x in k[1])
            row["profile_run_ms"] = k[3]
            row["overhead_us"] = 1000 * (k[3] - k[0])
            row["timeline"] = k[2]
            row["overhead_busy_us"] = 1000 * (k[3] - k[2]["busy_ms"])
            write_profile(row, "mxc", k)
            log("  mxc kernels (CUPTI) %.3f ms in %d launches, host overhead %.1f us (run minus busy time %.1f us)" %
                (k[0], round(row["kernels_cupti_n"]), row["overhead_us"], row["overhead_busy_us"]))


# --- the table ------------------------------------------------------------------------------
def fmt(v, digits=3):
    return "—" if v is None else ("%.*f" % (digits, v))


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


# The build and launch settings a row was measured with, where they differ from the defaults
# (versions(), below; bench/gpu/session.sh's stage suffixes set them): "" for the defaults.
DEFAULT_SETTINGS = {"pdl": "off", "async_copy": "on", "channels_last": "rule", "fp32_matrix_units": "dot products",
                    "large_ring": "on", "fuse_attention": "on", "tuning_db": "none"}


def variant_of(meta):
    v = meta.get("versions", {})
    return ", ".join("%s %s" % (k, v[k]) for k in DEFAULT_SETTINGS if k in v and v[k] != DEFAULT_SETTINGS[k])


def table(rows, meta):
    variants = any(variant_of(r.get("_meta", meta)) for r in rows)
    lines = ["| model | batch | dtype |%s accuracy vs ORT | mxc ms | eager ms | compile ms | mxc /s | eager /s | "
             "compile /s | mxc/eager | mxc/compile | host overhead µs | mxc build s | rebuild s |" % (" build |" if variants else ""),
             "| --- | ---: | --- |%s --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" % (
                 " --- |" if variants else "")]
    for r in rows:
        acc = r.get("mxc_acc")
        if acc:
            measure = ("max rel %.1e" % acc["max_rel"]) if r["dtype"] == "fp32" else ("nrms %.1e" % acc["nrms"])
            acc_s = "%s %s" % ("pass" if acc["pass"] else "**FAIL**", measure)
        else:
            acc_s = "—"
        thr = lambda ms: None if ms is None else 1000.0 * r["batch"] / ms  # noqa: E731
        m, e, c = r.get("mxc_ms"), r.get("eager_ms"), r.get("compile_ms")
        # the run time minus the GPU's busy time (kernels that overlap under PDL counted once); the
        # run time minus the sum of kernel times where the trace had no per-run breakdown
        over = r.get("overhead_busy_us", r.get("overhead_us"))
        build = (" %s |" % (variant_of(r.get("_meta", meta)) or "default")) if variants else ""
        lines.append("| %s | %d | %s |%s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["model"], r["batch"], r["dtype"], build, acc_s, fmt(m), fmt(e), fmt(c), fmt(thr(m), 1), fmt(thr(e), 1),
            fmt(thr(c), 1), fmt(ratio(e, m), 2), fmt(ratio(c, m), 2), fmt(over, 1),
            fmt(r.get("compile_s"), 1), fmt(r.get("recompile_s"), 2)))
    errs = [(r["model"], r["batch"], r["dtype"], k, v) for r in rows for k, v in r.get("errors", {}).items()]
    notes = ["", "Latency: median of %s runs after %s warm-ups, milliseconds, one run at a time (synchronised after "
             "each), each row (model, batch, dtype) in a process of its own unless the run says --same-process. /s: throughput, batch / latency (images or sequences per second). mxc/eager and mxc/compile: throughput ratios (above 1: mxc is "
             "faster)." % (meta.get("runs"), meta.get("warmup")),
             "mxc: the library's C API called through ctypes (bench/gpu/mxclib.py), device-pointer mode on the "
             "caller's stream (inputs and outputs stay on the GPU: no host copies in the time), CUDA events around "
             "each run enqueued with run_async, as eager's module enqueues its kernels (`mxc_sync_ms` in bench.jsonl: "
             "the synchronous run, which also counts the host's wake-up after the run). Host overhead: the median of as many runs timed the same way in a child process, minus the time the "
             "GPU was busy in one run as CUPTI records it there just after (the union of its kernels' intervals: kernels "
             "that overlap under programmatic dependent launch count once; torch.profiler over 20 runs of the same "
             "library; without it, `mxc perf`'s event pairs). The profiles run in a child process (mxc's and eager's, after "
             "the row's timed runs): CUPTI, once attached, slows every later launch of its process. The kernels of each "
             "row are listed in profile-MODEL-bB-DTYPE.txt, PyTorch eager's beside them, with a timeline line per run (bench/gpu/timeline.py: busy time, the overlap of programmatic dependent launch, the idle gaps between kernels, the first kernel's latency after the graph launch; `overhead_busy_us` in bench.jsonl: the run time minus the busy time). Rebuild: the same mxc command again (object and library cache).",
             "Accuracy: against ONNX Runtime CPU (fp32 model) on the same inputs; fp32 passes with "
             "max|mxc-ort|/max|ort| <= 1e-3, fp16 with ||mxc-ort||/(sqrt(n) max|ort|) <= 1e-2."]
    if errs:
        notes += ["", "Failures:", ""] + ["- %s b%d %s, %s: %s" % e for e in errs]
    return "\n".join(lines + notes) + "\n"


def write_table(path_jsonl, out_md):
    rows, meta = [], {}
    with open(path_jsonl) as f:
        for line in f:
            d = json.loads(line)
            if d.get("kind") == "meta":
                meta = d
            else:
                d["_meta"] = meta  # the settings the row was measured with (a file may hold several runs)
                rows.append(d)
    head = ["# mxc vs PyTorch: %s" % meta.get("date", "?"), "",
            "Made by `bench/gpu/run.sh` (bench/gpu/bench.py). " + ", ".join(
                "%s %s" % (k, v) for k, v in meta.get("versions", {}).items()), ""]
    with open(out_md, "w") as f:
        f.write("\n".join(head) + "\n" + table(rows, meta))


# --- main -----------------------------------------------------------------------------------
def versions():
    v = {}
    r = subprocess.run([ARGS.mxc, "version"], capture_output=True, text=True)
    v["mxc"] = (r.stdout.strip().splitlines() or ["?"])[0].replace("mxc ", "", 1)
    carried = os.path.join(ROOT, ".carry", "COMMIT")  # bench/gpu/prepare.sh: the commit the carried mxc was built from
    if os.path.exists(carried):
        with open(carried) as f:
            v["git"] = f.read().strip() or "?"
    else:
        try:
            v["git"] = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True,
                                      text=True).stdout.strip() or "?"
        except OSError:
            v["git"] = "?"
    v["onnx"] = onnx.__version__
    v["numpy"] = np.__version__
    try:
        import onnxruntime
        v["onnxruntime"] = onnxruntime.__version__
    except ImportError:
        v["onnxruntime"] = "node tools/ort"
    if ARGS.target == "hip":
        import torch_side
        v.update(torch_side.versions())
        nvcc = ARGS.hip_compiler or os.environ.get("NVCC") or "/usr/local/cuda/bin/nvcc"  # (not always on PATH)
        try:
            r = subprocess.run([nvcc, "--version"], capture_output=True, text=True)
            v["nvcc"] = (r.stdout.strip().splitlines() or ["?"])[-1]
        except OSError as e:
            v["nvcc"] = "? (%s)" % e
    if ARGS.target == "hip":  # programmatic dependent launch (sm_90+), README: MXC_PDL
        v["pdl"] = "on (MXC_PDL=1)" if os.environ.get("MXC_PDL", "0") not in ("", "0") else "off"
        # bench/gpu/session.sh's -noasync stages: built with -DMXC_NO_ASYNC_COPY (templates/hip/async_copy.hpp)
        v["async_copy"] = "off (MXC_NO_ASYNC_COPY)" if os.environ.get("MXC_NO_ASYNC_COPY", "0") not in ("", "0") else "on"
        # the -nchw / -nhwc stages: mxc built the libraries with MXC_CHANNELS_LAST=0 / 1 (docs/tuning.md)
        v["channels_last"] = {"0": "never (MXC_CHANNELS_LAST=0)", "1": "wherever allowed (MXC_CHANNELS_LAST=1)"}.get(
            os.environ.get("MXC_CHANNELS_LAST", ""), "rule")
        # the -simt / -mmaall stages: float products on the SIMT engine (MXC_FP32_MMA=0), convolutions on the matrix units too (=all)
        v["fp32_matrix_units"] = {"0": "off (MXC_FP32_MMA=0)", "all": "dot products and convolutions (MXC_FP32_MMA=all)"}.get(
            os.environ.get("MXC_FP32_MMA", ""), "dot products")
        # the -noring stages: the half large tile without its ring of stages (MXC_LARGE_RING=0, docs/tuning.md)
        v["large_ring"] = "off (MXC_LARGE_RING=0)" if os.environ.get("MXC_LARGE_RING", "") == "0" else "on"
        # the -noattn stages: attention as three to five kernels, not fused (MXC_FUSE_ATTENTION=0, passes/fuse_attention.cpp)
        v["fuse_attention"] = "off (MXC_FUSE_ATTENTION=0)" if os.environ.get("MXC_FUSE_ATTENTION", "") == "0" else "on"
        # the -simtattn stages: the SIMT attention kernel instead of the matrix-unit one (MXC_MMA_ATTENTION=0)
        v["attention_kernel"] = "SIMT (MXC_MMA_ATTENTION=0)" if os.environ.get("MXC_MMA_ATTENTION", "") == "0" else "matrix units"
        # the -tuned stages: the tile of every GEMM problem the database has (--tuning-db, docs/tuning.md)
        v["tuning_db"] = "none"
        if ARGS.tuning_db:
            with open(ARGS.tuning_db) as f:
                n = sum(1 for line in f if line.strip() and not line.startswith("#")) - 1
            v["tuning_db"] = "%s (%d entries)" % (os.path.basename(ARGS.tuning_db), n)
    v["cpu"] = platform.processor() or platform.machine()
    return v


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(ALL_MODELS))
    ap.add_argument("--batches", default="1,32")
    ap.add_argument("--dtypes", default="fp32,fp16")
    ap.add_argument("--target", default="hip", choices=["hip", "cpu"])
    ap.add_argument("--arch", default="sm_90", help="--offload-arch for hip")
    ap.add_argument("--mxc", default=None, help="default: .carry/bin/mxc, else build/mxc")
    ap.add_argument("--hip-compiler", default=None, help="passed to mxc (default: mxc's, /usr/local/cuda/bin/nvcc)")
    ap.add_argument("--tuning-db", default=None, help="passed to mxc: the tiles --tune chose (docs/tuning.md)")
    ap.add_argument("--out", default=os.environ.get("OUT") or os.path.join(ROOT, "build/bench-gpu"),
                    help="results: bench.jsonl (one line per row, appended) and bench.md")
    ap.add_argument("--work", default="/tmp/mxc-bench", help="models, libraries, reference outputs")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--perf-runs", type=int, default=100)
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--compile-mode", default="default", help="torch.compile mode")
    ap.add_argument("--tf32", action="store_true", help="let PyTorch use TF32 in fp32 rows (default: off)")
    ap.add_argument("--no-torch", action="store_true", help="mxc and ORT only")
    ap.add_argument("--no-compile", action="store_true", help="no torch.compile")
    ap.add_argument("--no-perf", action="store_true", help="no mxc perf (host overhead)")
    ap.add_argument("--deadline", type=float, default=0, help="seconds: start no row (model, batch, dtype) that would end after this, going by the longest row so far (0: none)")
    ap.add_argument("--small", action="store_true", help="cpu dry run: the zoo's --small variants")
    ap.add_argument("--table", metavar="JSONL", help="only write the markdown table of a results file and print it")
    ap.add_argument("--same-process", action="store_true",
                    help="every row in this process (default: each row (model, batch, dtype) in a child process of "
                         "its own, so that no row's times depend on what ran before it: on the H200, 2026-11-26, "
                         "eager ViT-B/16 fp32 took 3.40 ms as its process's first row, 4.92 ms after four others)")
    ap.add_argument("--row", metavar="MODEL,BATCH,DTYPE", help="(what each row's child process runs) only this row, "
                    "appended to the results without a meta line")
    a = ap.parse_args(argv)
    if a.mxc is None:
        carried = os.path.join(ROOT, ".carry/bin/mxc")
        a.mxc = carried if os.path.exists(carried) else os.path.join(ROOT, "build/mxc")
    return a


def main(argv):
    global ARGS
    ARGS = parse_args(argv)
    if ARGS.table:
        out = os.path.splitext(ARGS.table)[0] + ".md"
        write_table(ARGS.table, out)
        sys.stdout.write(open(out).read())
        return 0
    models = [m for m in ARGS.models.split(",") if m]
    for m in models:
        if m not in ALL_MODELS:
            sys.exit("bench.py: unknown model %s (known: %s)" % (m, ", ".join(ALL_MODELS)))
    batches = [int(b) for b in ARGS.batches.split(",")]
    dtypes = [d for d in ARGS.dtypes.split(",") if d]
    if any(d not in ("fp32", "fp16") for d in dtypes):
        sys.exit("bench.py: --dtypes takes fp32 and/or fp16")
    os.makedirs(ARGS.out, exist_ok=True)
    os.makedirs(ARGS.work, exist_ok=True)
    jsonl, md = os.path.join(ARGS.out, "bench.jsonl"), os.path.join(ARGS.out, "bench.md")
    if ARGS.row:
        name, batch, dtype = ARGS.row.split(",")
        models, batches, dtypes = [name], [int(batch)], [dtype]
        ARGS.deadline = 0  # the parent's, which started this row
    elif not ARGS.same_process:
        return rows_in_children(argv, models, batches, dtypes, jsonl, md)
    start = time.perf_counter()
    longest = 0.0  # seconds of the longest row so far: a row is not started unless that much is left

    def late():
        return ARGS.deadline and time.perf_counter() - start + longest > ARGS.deadline

    stream = None
    if ARGS.target == "hip":  # torch holds the device buffers of mxc's runs too
        import torch
        import torch_side
        torch_side.setup(ARGS.tf32)
        stream = torch.cuda.Stream()  # not the legacy default stream: mxc runs asynchronously on it
    if not ARGS.row:
        write_meta(argv, jsonl)
    for name in models:
        for batch in batches:
            if late():
                log("%s b%d: skipped (--deadline %.0f s: %.0f s in, longest row %.0f s)" % (
                    name, batch, ARGS.deadline, time.perf_counter() - start, longest))
                continue
            log("%s batch %d (%.0f s in)" % (name, batch, time.perf_counter() - start))
            holder = {}
            got = step(holder, "model", lambda: get_model(name, batch))
            if got is None:
                rows = [dict(holder, model=name, batch=batch, dtype=d, target=ARGS.target) for d in dtypes]
            else:
                path, module, exporter = got
                names, inputs = make_inputs(name, batch)
                ref = step(holder, "ort", lambda: ort_reference(path, names, inputs))
                rows = []
                for dtype in dtypes:
                    if late():
                        log(" %s b%d %s: skipped (--deadline %.0f s: %.0f s in, longest row %.0f s)" % (
                            name, batch, dtype, ARGS.deadline, time.perf_counter() - start, longest))
                        continue
                    t0 = time.perf_counter()
                    log(" %s %s b%d %s" % (ARGS.target, name, batch, dtype))
                    if stream is not None:
                        import torch
                        with torch.cuda.stream(stream):
                            row = bench_row(name, batch, dtype, path, module, exporter, names, inputs, ref)
                    else:
                        row = bench_row(name, batch, dtype, path, module, exporter, names, inputs, ref)
                    if holder.get("errors"):
                        row.setdefault("errors", {}).update(holder["errors"])
                    rows.append(row)
                    longest = max(longest, time.perf_counter() - t0)
                    with open(jsonl, "a") as f:
                        f.write(json.dumps(row) + "\n")
                    write_table(jsonl, md)
                continue
            with open(jsonl, "a") as f:
                for row in rows:
                    f.write(json.dumps(row) + "\n")
            write_table(jsonl, md)
    if ARGS.row:
        return 0
    return finish(jsonl, md, start)


def finish(jsonl, md, start):
    """The table of the results file, printed, and the run's time."""
    write_table(jsonl, md)
    log("")
    sys.stdout.write(open(md).read())
    log("bench: %.0f s; results in %s and %s" % (time.perf_counter() - start, jsonl, md))
    return 0


def write_meta(argv, jsonl):
    """The line that heads a run's rows in bench.jsonl: date, versions, settings, arguments."""
    meta = {"kind": "meta", "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "versions": versions(),
            "runs": ARGS.runs, "warmup": ARGS.warmup, "argv": argv}
    log("bench: %s" % json.dumps(meta))
    with open(jsonl, "a") as f:
        f.write(json.dumps(meta) + "\n")


def rows_in_children(argv, models, batches, dtypes, jsonl, md):
    """Each row in a child process of its own (bench.py ARGV --row MODEL,BATCH,DTYPE), one at a
    time, under the deadline; a child that ends without its row leaves a row naming its exit."""
    start = time.perf_counter()
    longest = 0.0
    write_meta(argv, jsonl)
    for name in models:
        for batch in batches:
            for dtype in dtypes:
                if ARGS.deadline and time.perf_counter() - start + longest > ARGS.deadline:
                    log("%s b%d %s: skipped (--deadline %.0f s: %.0f s in, longest row %.0f s)" % (
                        name, batch, dtype, ARGS.deadline, time.perf_counter() - start, longest))
                    continue
                log("%s batch %d %s (%.0f s in): a child process" % (name, batch, dtype, time.perf_counter() - start))
                t0 = time.perf_counter()
                before = os.path.getsize(jsonl)
                rc = subprocess.run([sys.executable, os.path.abspath(__file__)] + argv +
                                    ["--row", "%s,%d,%s" % (name, batch, dtype)]).returncode
                if os.path.getsize(jsonl) == before:
                    row = {"model": name, "batch": batch, "dtype": dtype, "target": ARGS.target,
                           "errors": {"process": "the row's process exited with %d and wrote no row" % rc}}
                    log("  %s" % row["errors"]["process"])
                    with open(jsonl, "a") as f:
                        f.write(json.dumps(row) + "\n")
                longest = max(longest, time.perf_counter() - t0)
                write_table(jsonl, md)
    return finish(jsonl, md, start)


ARGS = None

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
