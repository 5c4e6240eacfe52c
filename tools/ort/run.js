#!/usr/bin/env node
// Runs an ONNX model with ONNX Runtime (CPU): the independent reference for mxc's tests.
// usage: node tools/ort/run.js MODEL.onnx OUT_DIR NAME:TYPE:D0xD1x...:FILE.bin ...
// Writes OUT_DIR/<output name>.bin (raw little-endian data) for every model output, in order,
// and prints one line per output: name, type, dims.
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

const arrays = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array,
};

(async () => {
  const [model, outDir, ...specs] = process.argv.slice(2);
  if (!model || !outDir) {
    console.error('usage: run.js MODEL.onnx OUT_DIR NAME:TYPE:DIMS:FILE ...');
    process.exit(2);
  }
  const feeds = {};
  for (const spec of specs) {
    const [name, type, dims, file] = spec.split(':');
    const buf = fs.readFileSync(file);
    const A = arrays[type];
    if (!A) throw new Error(`unknown type ${type}`);
    const data = new A(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    const shape = dims === '' ? [] : dims.split('x').map(Number);
    feeds[name] = new ort.Tensor(type, data, shape);
  }
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1 });
  const results = await session.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of session.outputNames) {
    const t = results[name];
    const d = t.data;
    fs.writeFileSync(path.join(outDir, `${name}.bin`), Buffer.from(d.buffer, d.byteOffset, d.byteLength));
    console.log(`${name} ${t.type} ${t.dims.join('x')}`);
  }
})().catch((e) => {
  console.error(`ort: ${e.message}`);
  process.exit(1);
});
