#!/usr/bin/env node
// mxc against ONNX Runtime (CPU) with their runs interleaved in one process: pair i runs the
// mxc library then ORT's session (odd i: ORT first), each after a pause of VS_GAP_MS (default
// 100 ms) in which both thread pools' workers go to sleep: ORT's intra-op workers spin on for
// about 55 ms of CPU after a run (measured here, 2 threads, MobileNetV2), and an mxc run
// inside that time shared its cores with them (2.5x slower); mxc's spin 0.2 ms. On a shared or
// virtual machine whose speed moves from one second to the next, the ratio of a pair's two
// runs holds still where each side's own median does not (session 37: rounds of ort_time.js
// and time_lib a minute apart put MobileNetV2's ratio anywhere from 0.62 to 1.05).
//   node bench/cpu/vs_ort.js MODEL.onnx LIB.so NAME THREADS RUNS WARMUP NAME:TYPE:D0xD1:FILE...
// The inputs as for ort_time.js (bench/cpu/make_inputs.py), in the library's input order. The
// mxc library runs through bench/cpu/mxc_node.c, built beside LIB.so on first use. Prints
// "mxc_median_ms ort_median_ms ratio lo hi": ratio = the median over the pairs of ORT / mxc
// (above 1: mxc is faster), [lo, hi] the order statistics that bound it with about 95%
// confidence (n/2 -+ sqrt(n), the sign test's interval).
// VS_PROFILE=1 (LIB.so built with `mxc --profile-hooks`): both sides also time their kernels
// in the same interleaved runs (mxc's hooks; ORT's profiler, its JSON in the system's temp
// folder), and stderr lists the mean time per run of each mxc kernel and each ORT node, in
// run order, and the totals per op type.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const ort = require(path.join(__dirname, '..', '..', 'tools', 'ort', 'node_modules', 'onnxruntime-node'));

const arrays = { float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array };
const pause = new Int32Array(new SharedArrayBuffer(4));
const gapMs = Number(process.env.VS_GAP_MS || 100);

function addon(lib) {
  const out = path.join(path.dirname(lib), 'mxc_node.node');
  const src = path.join(__dirname, 'mxc_node.c');
  if (!fs.existsSync(out) || fs.statSync(out).mtimeMs < fs.statSync(src).mtimeMs) {
    const header = lib.replace(/\.so$/, '.h');
    execFileSync('cc', ['-O2', '-shared', '-fPIC', '-I/usr/include/node', `-DMXC_HEADER="${path.resolve(header)}"`,
      '-DNODE_GYP_MODULE_NAME=mxc_node', src, '-o', out, '-ldl'], { stdio: 'inherit' });
  }
  return require(path.resolve(out));
}

// stderr: mxc's kernels and ORT's nodes in run order, mean ms a run, and the sums per op type
function report(kernels, kernelMs, session, prefix, warmup, runs) {
  session.endProfiling(); // (the node binding returns no file name: the newest PREFIX_*.json)
  const dir = path.dirname(prefix), base = path.basename(prefix) + '_';
  const file = fs.readdirSync(dir).filter((f) => f.startsWith(base) && f.endsWith('.json'))
    .map((f) => path.join(dir, f)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  const events = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.unlinkSync(file);
  const bounds = events.filter((e) => e.name === 'model_run').map((e) => [e.ts, e.ts + e.dur]).slice(warmup);
  const nodes = new Map(); // name -> [op, us]
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time') || !bounds.some(([a, b]) => e.ts >= a && e.ts < b)) continue;
    const key = e.name.slice(0, -'_kernel_time'.length), [op, us] = nodes.get(key) || [e.args.op_name, 0];
    nodes.set(key, [op, us + e.dur]);
  }
  const mx = kernels.map((k, i) => [k.op, k.output, kernelMs[i] / runs]);
  const ox = [...nodes].map(([key, [op, us]]) => [op, key, us / runs / 1e3]);
  const rows = Math.max(mx.length, ox.length), cell = (v, w) => String(v).slice(0, w).padEnd(w);
  console.error(`${'#'.padStart(3)}  ${cell('mxc kernel', 20)} ${cell('output', 22)} ${'ms'.padStart(7)}  |  ${cell('ORT node', 16)} ${cell('name', 24)} ${'ms'.padStart(7)}`);
  for (let i = 0; i < rows; ++i) {
    const [a, b, c] = mx[i] || ['', '', null], [d, e, f] = ox[i] || ['', '', null];
    console.error(`${String(i).padStart(3)}  ${cell(a, 20)} ${cell(b, 22)} ${c === null ? ''.padStart(7) : c.toFixed(3).padStart(7)}  |  ` +
      `${cell(d, 16)} ${cell(e, 24)} ${f === null ? '' : f.toFixed(3).padStart(7)}`);
  }
  const byOp = (list) => {
    const m = new Map();
    for (const [op, , ms] of list) m.set(op, (m.get(op) || 0) + ms);
    return [...m].sort((x, y) => y[1] - x[1]).map(([op, ms]) => `${op} ${ms.toFixed(3)}`).join(', ');
  };
  console.error(`mxc per op type (ms a run): ${byOp(mx)}`);
  console.error(`ORT per op type (ms a run): ${byOp(ox)}`);
}

const median = (v) => {
  const t = [...v].sort((a, b) => a - b), n = t.length;
  return n % 2 ? t[(n - 1) / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
};

(async () => {
  const [model, lib, name, threads, runs, warmup, ...specs] = process.argv.slice(2);
  if (!specs.length) throw new Error('usage: vs_ort.js MODEL.onnx LIB.so NAME THREADS RUNS WARMUP NAME:TYPE:DIMS:FILE...');
  const feeds = {}, files = [];
  for (const spec of specs) {
    const [input, type, dims, file] = spec.split(':');
    const buf = fs.readFileSync(file);
    const data = new arrays[type](buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    feeds[input] = new ort.Tensor(type, data, dims === '' ? [] : dims.split('x').map(Number));
    files.push(file);
  }
  const profile = process.env.VS_PROFILE === '1';
  const prefix = path.join(os.tmpdir(), `vs_ort_${process.pid}`);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads), interOpNumThreads: 1, graphOptimizationLevel: 'all',
    ...(profile ? { enableProfiling: true, profileFilePrefix: prefix } : {}),
  });
  const mxc = addon(lib);
  const handle = mxc.open(lib, name, Number(threads), files);
  const kernels = profile ? mxc.kernels(handle) : null;
  if (profile && !kernels) throw new Error(`${lib} has no profiling hooks: build it with mxc --profile-hooks`);
  const kernelMs = kernels ? kernels.map(() => 0) : [];
  const ortRun = async () => {
    Atomics.wait(pause, 0, 0, gapMs);
    const start = process.hrtime.bigint();
    await session.run(feeds);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  let timed = false; // (kernel times are summed over the timed runs only)
  const mxcRun = () => {
    Atomics.wait(pause, 0, 0, gapMs);
    if (!profile) return mxc.run(handle);
    const t = mxc.profile(handle);
    if (timed) for (let i = 0; i < kernelMs.length; ++i) kernelMs[i] += t[i + 1];
    return t[0];
  };
  const tm = [], to = [], ratio = [];
  for (let r = -Number(warmup); r < Number(runs); ++r) {
    timed = r >= 0;
    let a, b;
    if (r & 1) {
      b = await ortRun();
      a = mxcRun();
    } else {
      a = mxcRun();
      b = await ortRun();
    }
    if (r < 0) continue;
    tm.push(a);
    to.push(b);
    ratio.push(b / a);
  }
  const n = ratio.length, half = Math.ceil(Math.sqrt(n)), sorted = [...ratio].sort((x, y) => x - y);
  const lo = sorted[Math.max(0, Math.floor(n / 2) - half)], hi = sorted[Math.min(n - 1, Math.floor((n - 1) / 2) + half)];
  console.log(`${median(tm).toFixed(3)} ${median(to).toFixed(3)} ${median(ratio).toFixed(4)} ${lo.toFixed(4)} ${hi.toFixed(4)}`);
  if (profile) report(kernels, kernelMs, session, prefix, Number(warmup), n);
})().catch((e) => {
  console.error(`vs_ort: ${e.message}`);
  process.exit(1);
});
