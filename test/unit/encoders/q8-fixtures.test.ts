/**
 * The q8 model fixtures (scripts/models/q8.ts, `onnx/model_quantized.onnx`): int8 quantization against a
 * literal rule, the graph's shape (every weight MatMul replaced by DynamicQuantizeLinear → MatMulInteger →
 * rescale, activation MatMuls and everything else untouched), and `loadEncoder` with dtype q8 on
 * onnxruntime-node: vectors close to fp32 (quantization error only) but not identical.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures, TINY_BERT, TINY_SPLADE } from '../../../scripts/models/make-fixtures.ts';
import { decodeOnnxModel, OnnxDataType } from '../../../scripts/models/onnx-writer.ts';
import { quantizeInt8 } from '../../../scripts/models/q8.ts';
import { loadEncoder } from '../../../src/encoders/encoder.ts';
import { PRESETS } from '../../../src/encoders/presets.ts';

interface Tensor {
  name: string;
  dataType: number;
  dims?: number[];
  rawData?: number[];
}
interface Node {
  opType: string;
  name: string;
  input: string[];
  output: string[];
}
interface Model {
  graph: { node: Node[]; initializer: Tensor[]; input: unknown[]; output: unknown[] };
}

const model = async (id: string, file: string) => decodeOnnxModel(await readFile(join(DEFAULT_MODELS_DIR, id, file))) as unknown as Model;

beforeAll(async () => {
  await makeModelFixtures();
}, 30_000);

describe('int8 quantization', () => {
  it('is symmetric per tensor: scale = max|w| / 127, each value the nearest step, zero stays zero', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ min: -4, max: 4, noNaN: true }), { minLength: 1, maxLength: 64 }), (values) => {
        const w = Float32Array.from(values);
        const { values: q, scale } = quantizeInt8(w);
        const max = Math.max(...w.map(Math.abs));
        expect(scale).toBe(max === 0 ? 1 : Math.fround(max / 127));
        w.forEach((x, i) => {
          expect(Math.abs(q[i]!)).toBeLessThanOrEqual(127);
          expect(Math.abs(q[i]! * scale - x)).toBeLessThanOrEqual(scale / 2 + 1e-6);
          if (x === 0) expect(q[i]).toBe(0);
        });
      }),
      { numRuns: 200 },
    );
  });
});

describe('the q8 fixtures', () => {
  for (const spec of [TINY_BERT, TINY_SPLADE]) {
    it(`${spec.id}: every weight MatMul becomes MatMulInteger on int8 weights; inputs, outputs and the rest unchanged`, async () => {
      const fp32 = await model(spec.id, 'onnx/model.onnx');
      const q8 = await model(spec.id, 'onnx/model_quantized.onnx');
      expect(q8.graph.input).toEqual(fp32.graph.input);
      expect(q8.graph.output).toEqual(fp32.graph.output);
      const floatWeights = new Set(
        fp32.graph.initializer.filter((t) => t.dataType === OnnxDataType.FLOAT && t.dims?.length === 2).map((t) => t.name),
      );
      const weightMatMuls = fp32.graph.node.filter((n) => n.opType === 'MatMul' && floatWeights.has(n.input[1]!));
      const activationMatMuls = fp32.graph.node.filter((n) => n.opType === 'MatMul' && !floatWeights.has(n.input[1]!));
      expect(weightMatMuls.length).toBeGreaterThan(4);
      expect(activationMatMuls.length).toBeGreaterThan(0);
      expect(q8.graph.node.filter((n) => n.opType === 'MatMulInteger')).toHaveLength(weightMatMuls.length);
      expect(q8.graph.node.filter((n) => n.opType === 'DynamicQuantizeLinear')).toHaveLength(weightMatMuls.length);
      expect(q8.graph.node.filter((n) => n.opType === 'MatMul')).toEqual(activationMatMuls);
      const byName = new Map(q8.graph.initializer.map((t) => [t.name, t]));
      for (const m of weightMatMuls) {
        const w = byName.get(`${m.input[1]}_quantized`);
        expect(w?.dataType, m.input[1]).toBe(OnnxDataType.INT8);
        // The rescaled product lands on the original MatMul's output name: the rest of the graph is unchanged.
        expect(q8.graph.node.some((n) => n.opType === 'Mul' && n.output[0] === m.output[0])).toBe(true);
      }
    });
  }

  it('loads as dtype q8 in Node: vectors within quantization error of fp32, not identical', async () => {
    const source = { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false };
    const texts = ['tides and the moon', 'a lighthouse guides ships along the coast at night', 'x'];
    const config = { ...PRESETS['bge-large'], model: TINY_BERT.id };
    const fp32 = await loadEncoder(config, { device: 'cpu', dtype: 'fp32', source });
    const q8 = await loadEncoder(config, { device: 'cpu', dtype: 'q8', source });
    const a = await fp32.encode(texts, 'passage');
    const b = await q8.encode(texts, 'passage');
    await fp32.dispose();
    await q8.dispose();
    a.dense!.forEach((v, i) => {
      const cos = v.reduce((s, x, j) => s + x * b.dense![i]![j]!, 0);
      expect(cos).toBeGreaterThan(0.999);
      expect(cos).toBeLessThan(1 - 1e-9);
    });
  }, 60_000);
});
