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
const fs = require('fs');
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
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads), interOpNumThreads: 1, graphOptimizationLevel: 'all',
  });
  const mxc = addon(lib);
  const handle = mxc.open(lib, name, Number(threads), files);
  const ortRun = async () => {
    Atomics.wait(pause, 0, 0, gapMs);
    const start = process.hrtime.bigint();
    await session.run(feeds);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const mxcRun = () => {
    Atomics.wait(pause, 0, 0, gapMs);
    return mxc.run(handle);
  };
  const tm = [], to = [], ratio = [];
  for (let r = -Number(warmup); r < Number(runs); ++r) {
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
})().catch((e) => {
  console.error(`vs_ort: ${e.message}`);
  process.exit(1);
});
