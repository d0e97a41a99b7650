/**
 * The fp16 model fixtures (scripts/models/fp16.ts): half-precision rounding against a brute-force oracle,
 * the shape of onnx/model_fp16.onnx (fp16 initializers each Cast to fp32, every other node, input and
 * output as in onnx/model.onnx), onnxruntime-node on it against the float64 reference forward over the
 * rounded weights, and `loadEncoder` on both dtypes: fp16 vectors within 1e-2 of fp32, but not identical.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  float16BitsToNumber,
  float32ToFloat16Bits,
  FLOAT16_MAX,
  FP16_INITIALIZER_SUFFIX,
  roundToFloat16,
} from '../../../scripts/models/fp16.ts';
import { makeModelFixtures, TINY_BERT, TINY_SPLADE, type FixtureResult } from '../../../scripts/models/make-fixtures.ts';
import { decodeOnnxModel, OnnxDataType } from '../../../scripts/models/onnx-writer.ts';
import { referenceForward } from '../../../scripts/models/reference-forward.ts';
import { buildTinyBert, MASK_FILL, type TinyBertModel } from '../../../scripts/models/tiny-bert.ts';
import { SPECIAL_IDS } from '../../../scripts/models/wordpiece-vocab.ts';
import { loadEncoder, type EncodedBatch } from '../../../src/encoders/encoder.ts';
import { testConfig, type TestKind } from '../../e2e/pages/configs.ts';
import { maxAbsDiff } from '../../vectors.ts';

const GENERATE_TIMEOUT_MS = 20_000;
const ORT_TIMEOUT_MS = 20_000;
/** fp16 weights against fp32 weights, on L2-normalised dense vectors and SPLADE weights. */
const FP16_TOLERANCE = 1e-2;
/**
 * onnxruntime on model_fp16.onnx against the float64 oracle over the rounded weights. Looser than the fp32
 * file's 1e-4 against its oracle (measured ~1e-6) because the graph's scalar constants are halves too: the
 * GELU's √2 is stored as 1.4140625 while the oracle divides by the exact √2 (measured 4.5e-5 on
 * last_hidden_state, 1.4e-4 on logits). A wiring mistake would be off by orders of magnitude more.
 */
const ORACLE_TOLERANCE = 5e-4;

// ---------------------------------------------------------------------------------------------------
// Half precision, brute force: every finite binary16 value, sorted.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const float32FromBits = (bits: number): number => {
  u32[0] = bits >>> 0;
  return f32[0]!;
};

/** Every finite half bit pattern with its value (decoded by the plain formula, written out again here). */
const HALVES = Array.from({ length: 0x10000 }, (_, bits) => {
  const e = (bits >> 10) & 0x1f;
  const m = bits & 0x3ff;
  const s = bits & 0x8000 ? -1 : 1;
  return { bits, value: e === 0x1f ? NaN : e === 0 ? s * m * Math.pow(2, -24) : s * (1 + m / 1024) * Math.pow(2, e - 15) };
})
  .filter((h) => Number.isFinite(h.value) && !(h.bits === 0x8000))
  .sort((a, b) => a.value - b.value);

/** Nearest half to x (ties: even mantissa; beyond the range: the IEEE overflow rule, ±∞). */
function oracleHalf(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  // IEEE: ∞ from 65504 + half an ulp (the top ulp is 32) on; the tie at 65520 goes to the even "65536", i.e. ∞.
  if (Math.abs(x) >= FLOAT16_MAX + 16) return x > 0 ? 0x7c00 : 0xfc00;
  let lo = 0;
  let hi = HALVES.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (HALVES[mid]!.value <= x) lo = mid;
    else hi = mid;
  }
  const a = HALVES[lo]!;
  const b = HALVES[hi]!;
  let pick: typeof a;
  if (x <= a.value) pick = a;
  else if (x >= b.value) pick = b;
  else {
    const da = x - a.value;
    const db = b.value - x;
    pick = da < db ? a : db < da ? b : (a.bits & 1) === 0 ? a : b;
  }
  // Zero keeps the sign of x (−0 stays −0, tiny negatives round to −0).
  if (pick.value === 0) return x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  return pick.bits;
}

describe('float32 → float16 rounding', () => {
  it('every half value round-trips exactly', () => {
    const wrong: string[] = [];
    for (let bits = 0; bits < 0x10000; bits++) {
      const v = float16BitsToNumber(bits);
      const back = float32ToFloat16Bits(v);
      if (Number.isNaN(v) ? !Number.isNaN(float16BitsToNumber(back)) : back !== bits)
        wrong.push(`${bits.toString(16)} -> ${back.toString(16)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('midpoints between neighbours go to the even one, and one float32 step either side to the nearer', () => {
    const wrong: string[] = [];
    const check = (x: number) => {
      const got = float32ToFloat16Bits(x);
      const want = oracleHalf(x);
      if (got !== want) wrong.push(`${x}: got ${got.toString(16)}, want ${want.toString(16)}`);
    };
    for (let i = 0; i + 1 < HALVES.length; i++) {
      const a = HALVES[i]!;
      const b = HALVES[i + 1]!;
      const mid = (a.value + b.value) / 2; // exact in float32: halves have 11 significant bits
      expect(Math.fround(mid)).toBe(mid);
      const got = float32ToFloat16Bits(mid);
      // The even neighbour (zero keeps the sign of the value).
      const even = (a.bits & 1) === 0 ? a : b;
      if (got !== (even.value === 0 ? (mid < 0 ? 0x8000 : 0) : even.bits)) wrong.push(`midpoint ${mid}: got ${got.toString(16)}`);
      check(mid);
      f32[0] = mid;
      const midBits = u32[0]!;
      check(float32FromBits(midBits - 1));
      check(float32FromBits(midBits + 1));
    }
    expect(wrong).toEqual([]);
  });

  it('any float32 rounds to the nearest half (ties to even), ±∞ beyond the range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (bits) => {
        const x = float32FromBits(bits);
        const got = float32ToFloat16Bits(x);
        if (Number.isNaN(x)) return Number.isNaN(float16BitsToNumber(got));
        return got === oracleHalf(x);
      }),
      { numRuns: 20_000 },
    );
    // Weight-sized values, where the fixtures live (subnormal halves included).
    fc.assert(
      fc.property(fc.float({ min: -1, max: 1, noNaN: true }), (x) => float32ToFloat16Bits(x) === oracleHalf(Math.fround(x))),
      { numRuns: 20_000 },
    );
  });

  it('roundToFloat16 clamps to ±65504 instead of overflowing (the attention mask fill stays finite)', () => {
    const rounded = roundToFloat16(Float32Array.of(MASK_FILL, -MASK_FILL, 70_000, 1 / 3, 2 ** -30));
    expect(Array.from(rounded)).toEqual([-FLOAT16_MAX, FLOAT16_MAX, FLOAT16_MAX, oracleValue(1 / 3), 0]);
  });
});

function oracleValue(x: number): number {
  return float16BitsToNumber(oracleHalf(Math.fround(x)));
}

// ---------------------------------------------------------------------------------------------------
// The files and the models

type Tensor = { name: string; dataType: number; dims?: number[]; rawData?: number[] };
type Node = { name: string; opType: string; input?: string[]; output?: string[]; attribute?: { name: string; i?: number }[] };
type Model = { graph: { node: Node[]; initializer: Tensor[]; input: unknown[]; output: unknown[] } };

const float32s = (raw: readonly number[]): Float32Array => new Float32Array(Uint8Array.from(raw).buffer);
const uint16s = (raw: readonly number[]): Uint16Array => new Uint16Array(Uint8Array.from(raw).buffer);

/** The model with every weight as the fp16 file stores it (the oracle's input for that file). */
function roundedModel(model: TinyBertModel): TinyBertModel {
  const round = (v: unknown): unknown => {
    if (v instanceof Float32Array) return roundToFloat16(v);
    if (Array.isArray(v)) return v.map(round);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, round(x)]));
    return v;
  };
  return { ...model, weights: round(model.weights) as TinyBertModel['weights'] };
}

const TEXTS = ['tides and the moon', 'x', 'a lighthouse guides ships along the coast at night, twice a day'];

describe('fixture folders with onnx/model_fp16.onnx', () => {
  let root: string;
  let fixtures: FixtureResult[];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'fliplab-fp16-'));
    fixtures = await makeModelFixtures(root);
  }, GENERATE_TIMEOUT_MS);
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('both models get an fp16 file, about half the size of the fp32 one', () => {
    for (const f of fixtures) {
      const fp32 = f.files['onnx/model.onnx'] ?? 0;
      const fp16 = f.files['onnx/model_fp16.onnx'] ?? 0;
      expect(fp16, f.id).toBeGreaterThan(0.45 * fp32);
      expect(fp16, f.id).toBeLessThan(0.65 * fp32);
    }
  });

  for (const spec of [TINY_BERT, TINY_SPLADE]) {
    it(`${spec.id}: fp16 initializers each Cast to float32 under the original name; the rest of the graph unchanged`, async () => {
      const fp32 = decodeOnnxModel(await readFile(join(root, spec.id, 'onnx/model.onnx'))) as unknown as Model;
      const fp16 = decodeOnnxModel(await readFile(join(root, spec.id, 'onnx/model_fp16.onnx'))) as unknown as Model;
      expect(fp16.graph.input).toEqual(fp32.graph.input);
      expect(fp16.graph.output).toEqual(fp32.graph.output);

      const casts = fp16.graph.node.filter((n) => n.opType === 'Cast' && n.name.startsWith('Cast_fp16_'));
      expect(fp16.graph.node.filter((n) => !casts.includes(n))).toEqual(fp32.graph.node);
      // Casts come first (the node list stays topologically sorted).
      expect(fp16.graph.node.slice(0, casts.length)).toEqual(casts);

      const halfByName = new Map(fp16.graph.initializer.map((t) => [t.name, t]));
      const floats = fp32.graph.initializer.filter((t) => t.dataType === OnnxDataType.FLOAT);
      expect(floats.length).toBeGreaterThan(10);
      expect(casts).toHaveLength(floats.length);
      for (const t of fp32.graph.initializer) {
        if (t.dataType !== OnnxDataType.FLOAT) {
          expect(halfByName.get(t.name)).toEqual(t); // int64 shapes and axes: as they were
          continue;
        }
        expect(halfByName.has(t.name)).toBe(false);
        const half = halfByName.get(`${t.name}${FP16_INITIALIZER_SUFFIX}`);
        expect(half?.dataType, t.name).toBe(OnnxDataType.FLOAT16);
        expect(half?.dims ?? []).toEqual(t.dims ?? []);
        const cast = casts.find((n) => n.output?.[0] === t.name);
        expect(cast?.input).toEqual([`${t.name}${FP16_INITIALIZER_SUFFIX}`]);
        expect(cast?.attribute).toEqual([expect.objectContaining({ name: 'to', i: OnnxDataType.FLOAT })]);
        // The stored halves are the fp32 values rounded by the oracle (clamped to ±65504).
        const values = float32s(t.rawData ?? []);
        const halves = uint16s(half?.rawData ?? []);
        expect(halves.length).toBe(values.length);
        values.forEach((v, i) => expect(halves[i], `${t.name}[${i}]`).toBe(oracleHalf(Math.max(-FLOAT16_MAX, Math.min(FLOAT16_MAX, v)))));
      }
    });
  }

  it(
    'onnxruntime-node on model_fp16.onnx: float32 outputs, equal to the float64 oracle over the rounded weights',
    async () => {
      const cases = [
        { spec: TINY_BERT, output: 'last_hidden_state' },
        { spec: TINY_SPLADE, output: 'logits' },
      ] as const;
      for (const { spec, output } of cases) {
        const model = buildTinyBert(spec.options);
        const pieces = ['the', 'sea', 'and', 'the', 'moon'].map((p) => model.vocabulary.indexOf(p));
        expect(pieces.every((id) => id >= 0)).toBe(true);
        const ids = [SPECIAL_IDS['[CLS]'], ...pieces, SPECIAL_IDS['[SEP]']];
        const shortIds = [SPECIAL_IDS['[CLS]'], pieces[0]!, SPECIAL_IDS['[SEP]']];
        const padded = [...shortIds, ...new Array<number>(ids.length - shortIds.length).fill(SPECIAL_IDS['[PAD]'])];
        const batch = {
          inputIds: [ids, padded],
          attentionMask: [ids.map(() => 1), padded.map((_, i) => (i < shortIds.length ? 1 : 0))],
          tokenTypeIds: [ids.map(() => 0), padded.map(() => 0)],
        };
        const tensor = (rows: number[][]) =>
          new ort.Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), [rows.length, rows[0]!.length]);
        const run = async (file: string) => {
          const session = await ort.InferenceSession.create(join(root, spec.id, file));
          try {
            const out = await session.run({
              input_ids: tensor(batch.inputIds),
              attention_mask: tensor(batch.attentionMask),
              token_type_ids: tensor(batch.tokenTypeIds),
            });
            return out[output] as ort.Tensor;
          } finally {
            await session.release();
          }
        };
        const [full, half] = await Promise.all([run('onnx/model.onnx'), run('onnx/model_fp16.onnx')]);
        expect(half.type).toBe('float32');
        expect(half.dims).toEqual(full.dims);
        const reference = referenceForward(roundedModel(model), batch);
        const expected = output === 'logits' ? reference.logits! : reference.lastHiddenState;
        const halfDiff = maxAbsDiff(half.data as Float32Array, expected.data);
        expect(halfDiff, spec.id).toBeLessThan(ORACLE_TOLERANCE);
        // And the rounding is visible: the fp32 file is several times further from that oracle.
        expect(maxAbsDiff(full.data as Float32Array, expected.data), spec.id).toBeGreaterThan(5 * halfDiff);
      }
    },
    ORT_TIMEOUT_MS,
  );

  describe('loadEncoder (transformers.js on onnxruntime-node) reads both dtypes', () => {
    const encode = async (kind: TestKind, model: string, dtype: 'fp32' | 'fp16'): Promise<EncodedBatch> => {
      const encoder = await loadEncoder(testConfig(kind, model), {
        device: 'cpu',
        dtype,
        source: { localModelPath: `${root}/`, allowRemote: false },
      });
      try {
        expect(encoder.dtype).toBe(dtype);
        return await encoder.encode(TEXTS, 'passage');
      } finally {
        await encoder.dispose();
      }
    };

    for (const [kind, model] of [
      ['cls', TINY_BERT.id],
      ['mean', TINY_BERT.id],
      ['splade', TINY_SPLADE.id],
    ] as const) {
      it(
        `${kind}: fp16 within ${FP16_TOLERANCE} of fp32, not identical`,
        async () => {
          const full = await encode(kind, model, 'fp32');
          const half = await encode(kind, model, 'fp16');
          expect(half.tokens).toEqual(full.tokens);
          let worst = 0;
          if (full.dense) {
            expect(half.dense).toHaveLength(full.dense.length);
            full.dense.forEach((v, i) => (worst = Math.max(worst, maxAbsDiff(half.dense![i]!, v))));
          } else {
            expect(half.sparse).toHaveLength(full.sparse!.length);
            full.sparse!.forEach((s, i) => {
              const h = half.sparse![i]!;
              // Same top terms (the fixtures' weights are far apart compared with the rounding).
              expect(Array.from(h.indices)).toEqual(Array.from(s.indices));
              worst = Math.max(worst, maxAbsDiff(h.values, s.values));
            });
          }
          expect(worst).toBeLessThanOrEqual(FP16_TOLERANCE);
          expect(worst).toBeGreaterThan(0);
        },
        ORT_TIMEOUT_MS,
      );
    }
  });
});
