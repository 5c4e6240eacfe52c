#!/usr/bin/env node
// Times ONNX Runtime (CPU) on a model: median (and min) of RUNS runs after WARMUP untimed
// ones, in milliseconds, with THREADS intra-op threads (inter-op 1, all graph optimisations).
//   node bench/cpu/ort_time.js MODEL.onnx THREADS RUNS WARMUP NAME:TYPE:D0xD1:FILE...
// Prints "median_ms min_ms". Used by bench/cpu/run.sh.
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, '..', '..', 'tools', 'ort', 'node_modules', 'onnxruntime-node'));

const arrays = { float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array };

(async () => {
  const [model, threads, runs, warmup, ...specs] = process.argv.slice(2);
  const feeds = {};
  for (const spec of specs) {
    const [name, type, dims, file] = spec.split(':');
    const buf = fs.readFileSync(file);
    const data = new arrays[type](buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    feeds[name] = new ort.Tensor(type, data, dims === '' ? [] : dims.split('x').map(Number));
  }
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads), interOpNumThreads: 1, graphOptimizationLevel: 'all',
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
})().catch((e) => {
  console.error(`ort_time: ${e.message}`);
  process.exit(1);
});
