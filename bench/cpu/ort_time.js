#!/usr/bin/env node
// Times ONNX Runtime (CPU) on a model: median (and min) of RUNS runs after WARMUP untimed
// ones, in milliseconds, with THREADS intra-op threads (inter-op 1, all graph optimisations).
//   node bench/cpu/ort_time.js MODEL.onnx THREADS RUNS WARMUP NAME:TYPE:D0xD1:FILE...
// Prints "median_ms min_ms". Used by bench/cpu/run.sh.
// ORT_PROFILE=PREFIX: ORT's profiler on (its JSON goes to PREFIX_<date>.json) and, on stderr,
// ORT's kernel time per op type, per run (the warm-up runs excluded), next to `mxc perf`'s
// summary: NAME: TOTAL ms / COUNT = MEAN ms, SHARE%.
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, '..', '..', 'tools', 'ort', 'node_modules', 'onnxruntime-node'));

const arrays = { float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array };

// The kernel events of the profile (cat "Node", name "<node>_kernel_time"), run by run
// (each run's "model_run" event bounds it), summed per op type over the timed runs.
function summarise(file, warmup, runs) {
  const events = JSON.parse(fs.readFileSync(file, 'utf8'));
  const bounds = events.filter((e) => e.name === 'model_run').map((e) => [e.ts, e.ts + e.dur]).slice(warmup);
  const inTimed = (e) => bounds.some(([a, b]) => e.ts >= a && e.ts < b);
  const byOp = new Map();
  let total = 0;
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time') || !inTimed(e)) continue;
    const op = e.args.op_name;
    const [us, n] = byOp.get(op) || [0, 0];
    byOp.set(op, [us + e.dur, n + 1]);
    total += e.dur;
  }
  console.error(`ORT kernel time per run by op type (${file}, ${runs} runs):`);
  for (const [op, [us, n]] of [...byOp].sort((a, b) => b[1][0] - a[1][0]))
    console.error(`${op}: ${(us / runs / 1e3).toFixed(4)}ms / ${n / runs} = ${(us / n / 1e3).toFixed(4)}ms, ${(100 * us / total).toFixed(2)}%`);
  console.error(`total: ${(total / runs / 1e3).toFixed(4)}ms`);
}

(async () => {
  const [model, threads, runs, warmup, ...specs] = process.argv.slice(2);
  const feeds = {};
  for (const spec of specs) {
    const [name, type, dims, file] = spec.split(':');
    const buf = fs.readFileSync(file);
    const data = new arrays[type](buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    feeds[name] = new ort.Tensor(type, data, dims === '' ? [] : dims.split('x').map(Number));
  }
  const profile = process.env.ORT_PROFILE;
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads), interOpNumThreads: 1, graphOptimizationLevel: 'all',
    ...(profile ? { enableProfiling: true, profileFilePrefix: profile } : {}),
  });
  const t = [];
  for (let r = -Number(warmup); r < Number(runs); ++r) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    if (r >= 0) t.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  t.sort((a, b) => a - b);
  const n = t.length;
  const median = n % 2 ? t[(n - 1) / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
  console.log(`${median.toFixed(3)} ${t[0].toFixed(3)}`);
  if (profile) {
    session.endProfiling(); // (the node binding returns no file name: the newest PREFIX_*.json)
    const dir = path.dirname(profile), base = path.basename(profile) + '_';
    const files = fs.readdirSync(dir).filter((f) => f.startsWith(base) && f.endsWith('.json'))
      .map((f) => path.join(dir, f)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
    summarise(files[0], Number(warmup), Number(runs));
  }
})().catch((e) => {
  console.error(`ort_time: ${e.message}`);
  process.exit(1);
});
