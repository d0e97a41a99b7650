/**
 * Exact dense top-k: 648 queries over 57,638 × 1024 random unit vectors (FiQA-sized, BGE/E5-large width),
 * top 50. The WASM path (onnxruntime-web MatMul + TopK, what the browser falls back to without WebGPU) and the
 * portable JS path, against onnxruntime-node's native MatMul + TopK as the practical limit, same run.
 * Goal: WASM ≥ 0.5× native.
 *
 *   npm run bench:dense
 */
import { cpus, loadavg } from 'node:os';
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { denseTopK, type DenseMatrix } from '../src/core/retrieve/dense.ts';
import { denseTopKOnnx, type OrtLike } from '../src/encoders/dense-onnx.ts';
import { mulberry32 } from './lib/rng.ts';

const DOCS = 57_638;
const QUERIES = 648;
const DIM = 1024;
const K = 50;
const JS_SAMPLE_QUERIES = 8;

function unitVectors(rows: number, seed: number): DenseMatrix {
  const rand = mulberry32(seed);
  const data = new Float32Array(rows * DIM);
  for (let r = 0; r < rows; r++) {
    let norm = 0;
    for (let j = 0; j < DIM; j++) {
      const x = rand() - 0.5;
      data[r * DIM + j] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    for (let j = 0; j < DIM; j++) data[r * DIM + j]! /= norm;
  }
  return { data, rows, dim: DIM };
}

const docs = unitVectors(DOCS, 1);
const queries = unitVectors(QUERIES, 2);
console.log(
  `dense exact top-${K}: ${QUERIES} queries × ${DOCS.toLocaleString('en-US')} documents × ${DIM} dims; node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}`,
);

async function timeOnnx(name: string, ort: OrtLike, sessionOptions: object) {
  await denseTopKOnnx(ort, docs, { data: queries.data.subarray(0, 4 * DIM), rows: 4, dim: DIM }, K, { sessionOptions }); // warm-up
  const t = performance.now();
  const result = await denseTopKOnnx(ort, docs, queries, K, { sessionOptions });
  const ms = performance.now() - t;
  console.log(`  ${name.padEnd(40)} ${ms.toFixed(0).padStart(7)} ms  ${(QUERIES / (ms / 1000)).toFixed(0).padStart(6)} queries/s`);
  return { ms, result };
}

const native = await timeOnnx('onnxruntime-node (native, MatMul+TopK)', ortNode as unknown as OrtLike, {});
ortWeb.env.wasm.numThreads = cpus().length;
const wasm = await timeOnnx(`onnxruntime-web WASM (${ortWeb.env.wasm.numThreads} threads)`, ortWeb as unknown as OrtLike, {
  executionProviders: ['wasm'],
});

const t = performance.now();
const js = denseTopK(docs, { data: queries.data.subarray(0, JS_SAMPLE_QUERIES * DIM), rows: JS_SAMPLE_QUERIES, dim: DIM }, K);
const jsMs = ((performance.now() - t) / JS_SAMPLE_QUERIES) * QUERIES;
console.log(
  `  ${'portable JS (blocked, f64 sums)'.padEnd(40)} ${jsMs.toFixed(0).padStart(7)} ms  ${(QUERIES / (jsMs / 1000)).toFixed(0).padStart(6)} queries/s  (extrapolated from ${JS_SAMPLE_QUERIES} queries)`,
);

let same = 0;
for (let i = 0; i < QUERIES; i++) if (native.result[i]!.indices.join() === wasm.result[i]!.indices.join()) same++;
let sameJs = 0;
for (let i = 0; i < JS_SAMPLE_QUERIES; i++) if (js[i]!.indices.join() === native.result[i]!.indices.join()) sameJs++;
console.log(`  identical top-${K} lists: WASM vs native ${same}/${QUERIES}; JS vs native ${sameJs}/${JS_SAMPLE_QUERIES}`);
const ratio = native.ms / wasm.ms;
console.log(
  `goal: WASM ≥ 0.5× native → ${ratio.toFixed(2)}× ${ratio >= 0.5 ? 'PASS' : 'FAIL'}   (JS path ${(native.ms / jsMs).toFixed(3)}× native)`,
);
