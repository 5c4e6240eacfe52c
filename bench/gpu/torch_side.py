"""The PyTorch half of bench/gpu/bench.py (imported only on the device: nothing else in the
benchmark needs torch): the models as torch modules (torchvision with random weights; the
zoo's BERT-base with the zoo's own weights), their ONNX export, and timing with CUDA events.
"""
import copy
import math
import time

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper

TORCHVISION = {"resnet50": "resnet50", "mobilenetv2": "mobilenet_v2", "vit_b_16": "vit_b_16"}


def versions():
    import torchvision
    return {"torch": torch.__version__, "torchvision": torchvision.__version__, "cuda": torch.version.cuda,
            "cudnn": str(torch.backends.cudnn.version()), "gpu": torch.cuda.get_device_name(0)}


def setup(tf32):
    """cuDNN picks its fastest algorithms (benchmark mode); TF32 off unless asked, so the fp32
    rows compare IEEE fp32 with IEEE fp32 (PyTorch's default lets cuDNN convolutions use TF32)."""
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.set_grad_enabled(False)


def torchvision_model(name):
    import torchvision
    torch.manual_seed(0)
    return calibrate(getattr(torchvision.models, TORCHVISION[name])(weights=None)).eval()


def calibrate(module):
    """torchvision's initialisation leaves BatchNorm's running statistics at mean 0, variance 1
    (activations then grow layer by layer: MobileNetV2's overflow float16) and ViT's classifier at
    zero (every output 0: nothing to compare). As in a trained model, the statistics are measured
    on random batches (train mode, no gradients; a cumulative average) and a zero classifier gets
    random weights (std 0.02), so outputs depend on the input and stay in range."""
    for mod in module.modules():
        if isinstance(mod, torch.nn.Linear) and not mod.weight.detach().abs().sum():
            torch.nn.init.normal_(mod.weight, std=0.02)
    bns = [mod for mod in module.modules() if isinstance(mod, torch.nn.modules.batchnorm._BatchNorm)]
    if bns:
        for bn in bns:
            bn.reset_running_stats()
            bn.momentum = None
        module.train()
        with torch.no_grad():
            for _ in range(4):
                module(torch.rand(8, 3, 224, 224) * 2 - 1)  # the benchmark feeds uniform(-1, 1) images
    return module.eval()


def export(module, inputs, input_names, output_names, path, opset):
    """torch.onnx.export with fixed shapes. The TorchScript exporter first (opset as asked);
    where this torch has dropped it or it fails, the dynamo exporter (which writes opset 18 or
    later: the model's opset is recorded in the results). Both trace with grad enabled and the
    MultiheadAttention fast path off, so ViT's attention is exported as ONNX ops rather than as
    aten::_native_multi_head_attention (which has no ONNX form)."""
    args = tuple(torch.from_numpy(a) for a in inputs)
    names = dict(input_names=input_names, output_names=output_names)
    mha = getattr(torch.backends, "mha", None)
    fast = mha.get_fastpath_enabled() if mha else None
    if mha:
        mha.set_fastpath_enabled(False)
    try:
        with torch.enable_grad():
            try:
                torch.onnx.export(module, args, path, opset_version=opset, do_constant_folding=True, dynamo=False,
                                  **names)
                return "torchscript"
            except Exception as e:  # noqa: BLE001 (any exporter failure: try the other one)
                print("  torchscript exporter failed (%s: %s); trying dynamo=True" % (type(e).__name__, str(e)[:200]),
                      flush=True)
            # The dynamo exporter writes opset 18 natively; asking it for less runs the ONNX
            # version converter, which fails on some ops: never below 18 (mxc imports up to 28).
            torch.onnx.export(module, args, path, opset_version=max(opset, 18), dynamo=True, external_data=False,
                              **names)
            return "dynamo"
    finally:
        if mha:
            mha.set_fastpath_enabled(fast)


class ZooBert(torch.nn.Module):
    """tools/models/zoo.py's BERT-base as a torch module, with the zoo model's weights (its
    initializers in creation order: embeddings and their LayerNorm, then per layer q, k, v,
    attention output, LayerNorm, feed-forward in and out, LayerNorm). The head count comes from
    the first [heads, head] reshape constant of the graph."""

    def __init__(self, onnx_path):
        super().__init__()
        m = onnx.load(onnx_path)
        arrays = [numpy_helper.to_array(t) for t in m.graph.initializer]
        shapes = [numpy_helper.to_array(n.attribute[0].t) for n in m.graph.node if n.op_type == "Constant"]
        split = next(s for s in shapes if s.dtype == np.int64 and s.shape == (2,))
        self.heads, self.head = int(split[0]), int(split[1])
        it = iter(arrays)

        def take(shape):
            a = next(it)
            if tuple(a.shape) != tuple(shape):
                raise ValueError("ZooBert: expected a weight of shape %s, found %s" % (shape, a.shape))
            return torch.nn.Parameter(torch.from_numpy(a.copy()), requires_grad=False)

        word = next(it)
        hidden = word.shape[1]
        seq = next(a for a in arrays if a.dtype == np.int64).shape[1]
        self.word = torch.nn.Parameter(torch.from_numpy(word.copy()), requires_grad=False)
        self.register_buffer("position_ids", torch.from_numpy(next(it).copy()))
        self.pos = take((512, hidden))
        self.register_buffer("token_type_ids", torch.from_numpy(next(it).copy()))
        self.tt = take((2, hidden))
        self.ln0 = torch.nn.ParameterList([take((hidden,)), take((hidden,))])
        n_layers = (len(arrays) - 7) // 16
        self.layers = torch.nn.ModuleList()
        for _ in range(n_layers):
            p = torch.nn.ParameterList()
            for shape in [(hidden, hidden), (hidden,)] * 4 + [(hidden,), (hidden,), (hidden, 4 * hidden), (4 * hidden,),
                                                              (4 * hidden, hidden), (hidden,), (hidden,), (hidden,)]:
                p.append(take(shape))
            self.layers.append(p)
        if next(it, None) is not None or self.position_ids.shape != (1, seq):
            raise ValueError("ZooBert: %s does not have the zoo BERT's initializers" % onnx_path)

    def forward(self, input_ids, attention_mask):
        hidden = self.word.shape[1]
        ln = lambda v, g, b: F.layer_norm(v, (hidden,), g, b, eps=1e-12)  # noqa: E731
        x = F.embedding(input_ids, self.word) + F.embedding(self.position_ids, self.pos) + \
            F.embedding(self.token_type_ids, self.tt)
        x = ln(x, self.ln0[0], self.ln0[1])
        mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        b, s = input_ids.shape

        def split(v):
            return v.reshape(b, s, self.heads, self.head).transpose(1, 2)

        for p in self.layers:
            q, k, v = split(x @ p[0] + p[1]), split(x @ p[2] + p[3]), split(x @ p[4] + p[5])
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.head) + mask, dim=-1)
            c = (att @ v).transpose(1, 2).reshape(b, s, hidden)
            x = ln(c @ p[6] + p[7] + x, p[8], p[9])
            f = F.gelu(x @ p[10] + p[11]) @ p[12] + p[13]
            x = ln(f + x, p[14], p[15])
        return x


def prepare(module, dtype):
    """A copy of the module on the GPU in `dtype` ("fp32" or "fp16"); the original stays as it
    was (fp32, on the host) for the next row."""
    module = copy.deepcopy(module).cuda().eval()
    return module.half() if dtype == "fp16" else module.float()


def to_device(arrays, dtype):
    out = []
    for a in arrays:
        t = torch.from_numpy(np.ascontiguousarray(a)).cuda()
        out.append(t.half() if dtype == "fp16" and t.is_floating_point() else t)
    return out


def time_cuda(fn, runs, warmup):
    """Milliseconds of each of `runs` calls of fn() after `warmup` untimed ones: CUDA events
    recorded on the current stream around each call, synchronised after each, so a number is
    one run's latency (host launch work included) and runs do not overlap."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return times


def outputs_numpy(result):
    if isinstance(result, (tuple, list)):
        return [r.float().cpu().numpy() for r in result]
    return [result.float().cpu().numpy()]


def run_eager(module, inputs, dtype, runs, warmup):
    """(median ms, all ms, outputs as float32 numpy) of the module in eager mode."""
    m = prepare(module, dtype)
    xs = to_device(inputs, dtype)
    out = outputs_numpy(m(*xs))
    times = time_cuda(lambda: m(*xs), runs, warmup)
    return float(np.median(times)), times, out


def run_compiled(module, inputs, dtype, runs, warmup, mode):
    """As run_eager, through torch.compile(mode=mode); also the seconds the first call took
    (compilation)."""
    m = prepare(module, dtype)
    xs = to_device(inputs, dtype)
    c = torch.compile(m, mode=mode, dynamic=False)
    t0 = time.perf_counter()
    out = outputs_numpy(c(*xs))
    torch.cuda.synchronize()
    compile_s = time.perf_counter() - t0
    times = time_cuda(lambda: c(*xs), runs, warmup)
    return float(np.median(times)), times, out, compile_s


def release():
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def run_mxc(lib_path, name, feeds, runs, warmup):
    """(median ms, all ms, outputs, median ms of synchronous runs) of a hip library built by mxc,
    in device-pointer mode on the current stream (feeds: input name -> numpy array): inputs
    copied to the GPU once, so the times exclude host copies; the outputs are poisoned with NaN
    before the first run (an unwritten element shows). Timed as eager is (time_cuda): the run
    enqueued with run_async between the two events, as eager's module enqueues its kernels; the
    synchronous run (run: returns when done) also counts the host's wake-up and the second
    event's enqueue after it, which eager's times do not have."""
    from mxclib import Library
    lib = Library(lib_path, name, device_pointers=True, stream=torch.cuda.current_stream().cuda_stream)
    try:
        xs = [torch.from_numpy(np.ascontiguousarray(feeds[i["name"]], dtype=i["dtype"])).cuda() for i in lib.inputs]
        ys = [torch.from_numpy(np.full(o["shape"], np.nan if o["dtype"].kind == "f" else 0, o["dtype"])).cuda()
              for o in lib.outputs]
        lib.set_pointers([x.data_ptr() for x in xs], [y.data_ptr() for y in ys])
        torch.cuda.synchronize()
        lib.run()
        torch.cuda.synchronize()
        out = [y.float().cpu().numpy() for y in ys]
        stream = torch.cuda.current_stream().cuda_stream
        times = time_cuda(lambda: lib.run_async(stream), runs, warmup)
        sync = float(np.median(time_cuda(lib.run, runs, warmup)))
        return float(np.median(times)), times, out, sync
    finally:
        torch.cuda.synchronize()
        lib.close()


def profile_kernels(fn, runs=20):
    """The GPU kernels of `runs` calls of fn() as CUPTI records them (torch.profiler, which sees
    every kernel of the process, a library's graph launches included): (kernel ms per run,
    [(name, ms per run, launches per run)] longest first, the timeline's summary: busy time,
    overlap, gaps and launch latency per run, bench/gpu/timeline.py)."""
    import timeline
    import json
    import tempfile
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        p.export_chrome_trace(f.name)
        with open(f.name) as g:
            events = json.load(g).get("traceEvents", [])
    per = {}
    for e in events:
        if e.get("cat") == "kernel" and "dur" in e:
            t = per.setdefault(e.get("name", "?"), [0.0, 0])
            t[0] += e["dur"] / 1000.0
            t[1] += 1
    rows = sorted(((n, t / runs, c / runs) for n, (t, c) in per.items()), key=lambda r: -r[1])
    return sum(r[1] for r in rows), rows, timeline.summarize(events, runs)


def profile_mxc(lib_path, name, feeds, runs=20, timed_runs=0):
    """profile_kernels of a library's runs in device-pointer mode (as run_mxc); with timed_runs,
    a fourth item: the median ms of that many runs timed as run_mxc's just before (the same
    process and GPU clocks as the profile: a run's time minus its busy time is the host
    overhead; across processes the clocks alone can differ by a percent of the run)."""
    from mxclib import Library
    lib = Library(lib_path, name, device_pointers=True, stream=torch.cuda.current_stream().cuda_stream)
    try:
        xs = [torch.from_numpy(np.ascontiguousarray(feeds[i["name"]], dtype=i["dtype"])).cuda() for i in lib.inputs]
        ys = [torch.empty(o["shape"], dtype=torch.from_numpy(np.zeros(1, o["dtype"])).dtype, device="cuda") for o in lib.outputs]
        lib.set_pointers([x.data_ptr() for x in xs], [y.data_ptr() for y in ys])
        stream = torch.cuda.current_stream().cuda_stream
        timed = float(np.median(time_cuda(lambda: lib.run_async(stream), timed_runs, 10))) if timed_runs else None
        return profile_kernels(lib.run, runs) + ((timed,) if timed_runs else ())
    finally:
        torch.cuda.synchronize()
        lib.close()


def profile_eager(module, inputs, dtype, runs=20):
    m = prepare(module, dtype)
    xs = to_device(inputs, dtype)
    with torch.no_grad():
        return profile_kernels(lambda: m(*xs), runs)


PROFILES = {"mxc": profile_mxc, "eager": profile_eager}


def profile_in_child(jobs, tf32):
    """Runs profiles (jobs: [(kind, args)], kind a key of PROFILES) in a child process, one
    result or error text per job. torch.profiler leaves CUPTI attached to the process that used
    it: every later launch there pays for it (on the H200, 2026-11-26: host overheads of 65-376 us
    for rows that measured 10-67 us without it), so the process that times runs never profiles."""
    import os
    import subprocess
    import sys
    import tempfile
    with tempfile.TemporaryDirectory(prefix="mxc-profile-") as d:
        a, r = os.path.join(d, "jobs.pt"), os.path.join(d, "results.pt")
        torch.save((tf32, jobs), a)
        subprocess.run([sys.executable, os.path.abspath(__file__), a, r], check=True)
        return torch.load(r, weights_only=False)


def child_main(jobs_path, results_path):
    tf32, jobs = torch.load(jobs_path, weights_only=False)
    setup(tf32)
    results = []
    with torch.cuda.stream(torch.cuda.Stream()):  # as bench.py's runs: not the legacy default stream
        for kind, args in jobs:
            try:
                results.append(PROFILES[kind](*args))
            except Exception as e:  # noqa: BLE001 (the parent records it in the row)
                results.append("%s: %s" % (type(e).__name__, str(e).strip()[:300]))
    torch.save(results, results_path)


if __name__ == "__main__":
    import sys
    child_main(sys.argv[1], sys.argv[2])
