/**
 * The generated BERT fixtures (scripts/models) against three independent readers: onnxruntime-node on the
 * ONNX file, a float64 plain-loop forward pass over the generator's in-memory weights (the oracle), and
 * transformers.js loading the folder the way the app loads real BGE / E5 / SPLADE models.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AutoModel,
  AutoModelForMaskedLM,
  AutoTokenizer,
  env,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type Tensor,
} from '@huggingface/transformers';
import { makeModelFixtures, TINY_BERT, TINY_SPLADE, type FixtureResult } from '../../../scripts/models/make-fixtures.ts';
import { decodeOnnxModel } from '../../../scripts/models/onnx-writer.ts';
import { referenceForward, type ReferenceInput } from '../../../scripts/models/reference-forward.ts';
import { buildTinyBert, tinyBertToOnnx, type TinyBertModel } from '../../../scripts/models/tiny-bert.ts';
import { buildWordPieceVocab, SPECIAL_IDS } from '../../../scripts/models/wordpiece-vocab.ts';

const GENERATE_TIMEOUT_MS = 15_000;
const ORT_TIMEOUT_MS = 10_000;
const TRANSFORMERS_TIMEOUT_MS = 15_000;

/** float32 ONNX Runtime against the float64 oracle. */
const ORACLE_TOLERANCE = 1e-4;
/** Two runs of the same ONNX graph on the same CPU runtime. */
const SAME_RUNTIME_TOLERANCE = 1e-5;

type Batch = { readonly [K in keyof ReferenceInput]-?: number[][] };

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs((a[i] as number) - (b[i] as number)));
  return max;
}

const int64 = (rows: readonly (readonly number[])[]): ort.Tensor =>
  new ort.Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), [rows.length, rows[0]?.length ?? 0]);

async function runOrt(session: ort.InferenceSession, batch: Batch): Promise<ort.Tensor> {
  const out = await session.run({
    input_ids: int64(batch.inputIds),
    attention_mask: int64(batch.attentionMask),
    token_type_ids: int64(batch.tokenTypeIds),
  });
  const name = session.outputNames[0] as string;
  return out[name] as ort.Tensor;
}

const floats = (t: ort.Tensor | Tensor): Float32Array => t.data as Float32Array;

/** Rows of [batch, seq, width] values for one sequence's first `length` positions. */
function slice(data: ArrayLike<number>, dims: readonly number[], row: number, length: number): number[] {
  const [, seq = 0, width = 0] = dims;
  return Array.from({ length: length * width }, (_, i) => data[row * seq * width + i] as number);
}

function meanPool(data: ArrayLike<number>, seq: number, width: number): number[] {
  const out = new Array<number>(width).fill(0);
  for (let s = 0; s < seq; s++) for (let i = 0; i < width; i++) out[i] = (out[i] as number) + (data[s * width + i] as number) / seq;
  return out;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  });
  return dot / Math.sqrt(na * nb);
}

function idsOf(model: TinyBertModel, pieces: readonly string[]): number[] {
  return pieces.map((p) => {
    const id = model.vocabulary.indexOf(p);
    expect(id, `vocabulary lacks ${p}`).toBeGreaterThanOrEqual(0);
    return id;
  });
}

/** [CLS] pieces [SEP], padded with [PAD] to `length`, with its mask and token types. */
function encodeRows(model: TinyBertModel, rows: readonly (readonly string[])[], length?: number): Batch {
  const ids = rows.map((pieces) => [SPECIAL_IDS['[CLS]'], ...idsOf(model, pieces), SPECIAL_IDS['[SEP]']]);
  const width = length ?? Math.max(...ids.map((r) => r.length));
  return {
    inputIds: ids.map((r) => [...r, ...new Array<number>(width - r.length).fill(SPECIAL_IDS['[PAD]'])]),
    attentionMask: ids.map((r) => Array.from({ length: width }, (_, i) => (i < r.length ? 1 : 0))),
    tokenTypeIds: ids.map(() => new Array<number>(width).fill(0)),
  };
}

const HELLO_PIECES = ['hello', 'world', ',', 'tide', '##s', '!'];
const SHORT_PIECES = ['the', 'sea'];
const OTHER_PIECES = ['protein', 'expression', 'in', 'cancer', 'cell', '##s', '.'];

describe('generated tiny BERT models', () => {
  let root: string;
  let fixtures: FixtureResult[];
  const bert = buildTinyBert(TINY_BERT.options);
  const splade = buildTinyBert(TINY_SPLADE.options);
  let bertSession: ort.InferenceSession;
  let spladeSession: ort.InferenceSession;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'fliplab-models-'));
    fixtures = await makeModelFixtures(root);
    bertSession = await ort.InferenceSession.create(join(root, TINY_BERT.id, 'onnx/model.onnx'));
    spladeSession = await ort.InferenceSession.create(join(root, TINY_SPLADE.id, 'onnx/model.onnx'));
  }, GENERATE_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all([bertSession?.release(), spladeSession?.release()]);
    if (root) await rm(root, { recursive: true, force: true });
  });

  describe('fixture folders', () => {
    it('hold the transformers.js local-model layout with a BERT config', async () => {
      expect(fixtures.map((f) => [f.id, f.status])).toEqual([
        ['fliplab/tiny-bert', 'written'],
        ['fliplab/tiny-splade', 'written'],
      ]);
      for (const [fixture, model, architecture] of [
        [fixtures[0], bert, 'BertModel'],
        [fixtures[1], splade, 'BertForMaskedLM'],
      ] as const) {
        expect(Object.keys(fixture?.files ?? {}).sort()).toEqual([
          'config.json',
          'onnx/model.onnx',
          'onnx/model_fp16.onnx',
          'onnx/model_quantized.onnx',
          'special_tokens_map.json',
          'tokenizer.json',
          'tokenizer_config.json',
          'vocab.txt',
        ]);
        const config = JSON.parse(await readFile(join(root, model.name, 'config.json'), 'utf8')) as Record<string, unknown>;
        expect(config).toMatchObject({
          model_type: 'bert',
          architectures: [architecture],
          hidden_size: 32,
          num_hidden_layers: 2,
          num_attention_heads: 2,
          intermediate_size: 64,
          max_position_embeddings: 512,
          vocab_size: model.vocabulary.length,
          type_vocab_size: 2,
          pad_token_id: 0,
        });
      }
    });

    it(
      'are left alone when the same version is already there',
      async () => {
        const again = await makeModelFixtures(root);
        expect(again.map((f) => f.status)).toEqual(['up-to-date', 'up-to-date']);
        expect(again.map((f) => f.files)).toEqual(fixtures.map((f) => f.files));
      },
      GENERATE_TIMEOUT_MS,
    );

    it('declare IR 8, opset 17, int64 [batch, sequence] inputs and the HF output names', async () => {
      const onnx = decodeOnnxModel(await readFile(join(root, TINY_BERT.id, 'onnx/model.onnx')));
      expect(onnx).toMatchObject({ irVersion: 8, opsetImport: [{ version: 17 }] });
      expect(bertSession.inputNames).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
      expect(bertSession.outputNames).toEqual(['last_hidden_state']);
      expect(spladeSession.outputNames).toEqual(['logits']);
    });
  });

  describe('onnxruntime-node', () => {
    it(
      'BertModel: last_hidden_state is float32 [batch, seq, 32] and matches the reference forward',
      async () => {
        const batch = encodeRows(bert, [HELLO_PIECES, OTHER_PIECES]);
        // Second row as sentence B: exercises the token type embedding.
        batch.tokenTypeIds[1] = batch.tokenTypeIds[1]?.map((_, i) => (i >= 3 ? 1 : 0)) ?? [];
        const out = await runOrt(bertSession, batch);
        expect(out.type).toBe('float32');
        expect(out.dims).toEqual([2, 9, 32]);
        const expected = referenceForward(bert, batch).lastHiddenState;
        expect(expected.dims).toEqual(out.dims);
        expect(maxAbsDiff(floats(out), expected.data)).toBeLessThan(ORACLE_TOLERANCE);
      },
      ORT_TIMEOUT_MS,
    );

    it(
      'BertModel: padding leaves the real positions of a short row unchanged',
      async () => {
        const padded = encodeRows(bert, [HELLO_PIECES, SHORT_PIECES]); // short row: 4 real, 4 [PAD]
        const alone = encodeRows(bert, [SHORT_PIECES]);
        const paddedOut = await runOrt(bertSession, padded);
        const aloneOut = await runOrt(bertSession, alone);
        const realPositions = alone.inputIds[0]?.length ?? 0;
        expect(realPositions).toBe(4);
        expect(maxAbsDiff(slice(floats(paddedOut), paddedOut.dims, 1, realPositions), floats(aloneOut))).toBeLessThan(
          SAME_RUNTIME_TOLERANCE,
        );
        // The oracle agrees on the whole padded batch, [PAD] positions included.
        expect(maxAbsDiff(floats(paddedOut), referenceForward(bert, padded).lastHiddenState.data)).toBeLessThan(ORACLE_TOLERANCE);
        // And the mask is what makes this hold: attending to the [PAD] positions would change them.
        const unmasked = { ...padded, attentionMask: padded.attentionMask.map((r) => r.map(() => 1)) };
        const unmaskedOut = await runOrt(bertSession, unmasked);
        expect(maxAbsDiff(slice(floats(unmaskedOut), unmaskedOut.dims, 1, realPositions), floats(aloneOut))).toBeGreaterThan(0.05);
      },
      ORT_TIMEOUT_MS,
    );

    it(
      'BertModel: different texts pool to clearly different vectors; the layers do real work',
      async () => {
        // Same length throughout, so position embeddings contribute alike to every pooled vector.
        const texts = [['the', 'sea', 'and', 'the', 'moon', '.'], ['the', 'cell', 'and', 'the', 'moon', '.'], OTHER_PIECES.slice(0, 6)];
        const out = await runOrt(bertSession, encodeRows(bert, texts));
        const [seaMoon, cellMoon, protein] = texts.map((_, row) => meanPool(slice(floats(out), out.dims, row, 8), 8, 32)) as [
          number[],
          number[],
          number[],
        ];
        expect(cosine(seaMoon, protein)).toBeLessThan(0.9);
        expect(cosine(cellMoon, protein)).toBeLessThan(0.9);
        // Five of six words shared: much closer than unrelated texts.
        expect(cosine(seaMoon, cellMoon)).toBeGreaterThan(cosine(seaMoon, protein) + 0.05);
        // Same embeddings (weights are seeded per tensor name), no encoder layers: the layers move outputs a lot.
        const one = encodeRows(bert, [HELLO_PIECES]);
        const embeddingsOnly = referenceForward(buildTinyBert({ ...TINY_BERT.options, layers: 0 }), one).lastHiddenState;
        expect(maxAbsDiff(floats(await runOrt(bertSession, one)), embeddingsOnly.data)).toBeGreaterThan(0.5);
      },
      ORT_TIMEOUT_MS,
    );

    it(
      'BertForMaskedLM: logits are float32 [batch, seq, vocab] and match the reference forward, padded',
      async () => {
        const batch = encodeRows(splade, [OTHER_PIECES, SHORT_PIECES]);
        const out = await runOrt(spladeSession, batch);
        expect(out.type).toBe('float32');
        expect(out.dims).toEqual([2, 9, splade.vocabulary.length]);
        const expected = referenceForward(splade, batch).logits;
        expect(expected?.dims).toEqual(out.dims);
        expect(maxAbsDiff(floats(out), expected?.data ?? [])).toBeLessThan(ORACLE_TOLERANCE);
        // Roughly half the logits positive: SPLADE's log(1 + ReLU(·)) gives non-trivial sparse weights.
        const positive = floats(out).filter((x) => x > 0).length / out.size;
        expect(positive).toBeGreaterThan(0.2);
        expect(positive).toBeLessThan(0.8);
        const alone = await runOrt(spladeSession, encodeRows(splade, [SHORT_PIECES]));
        expect(maxAbsDiff(slice(floats(out), out.dims, 1, 4), floats(alone))).toBeLessThan(SAME_RUNTIME_TOLERANCE);
      },
      ORT_TIMEOUT_MS,
    );
  });

  describe('transformers.js (Node)', () => {
    let tokenizer: PreTrainedTokenizer;

    beforeAll(async () => {
      env.allowRemoteModels = false;
      env.localModelPath = `${root}/`;
      tokenizer = await AutoTokenizer.from_pretrained(TINY_BERT.id);
    }, TRANSFORMERS_TIMEOUT_MS);

    it('tokenizes with the generated WordPiece vocabulary, [CLS] … [SEP]', () => {
      const encoded = tokenizer('Hello world, tides!');
      const expected = [SPECIAL_IDS['[CLS]'], ...idsOf(bert, HELLO_PIECES), SPECIAL_IDS['[SEP]']];
      expect((encoded.input_ids as Tensor).tolist()).toEqual([expected.map(BigInt)]);
      expect((encoded.attention_mask as Tensor).tolist()).toEqual([expected.map(() => 1n)]);
      expect((encoded.token_type_ids as Tensor).tolist()).toEqual([expected.map(() => 0n)]);
      expect(tokenizer.decode(expected, { skip_special_tokens: true })).toBe('hello world, tides!');
      // Any text tokenizes: unseen words fall back to letter pieces, not [UNK].
      expect(tokenizer.encode('Zyxwvut quokkas 42')).not.toContain(SPECIAL_IDS['[UNK]']);
    });

    it(
      'AutoModel loads tiny-bert; outputs equal onnxruntime-node on a padded batch',
      async () => {
        const model: PreTrainedModel = await AutoModel.from_pretrained(TINY_BERT.id, { dtype: 'fp32', device: 'cpu' });
        try {
          const inputs = tokenizer(['Hello world, tides!', 'the sea'], { padding: true });
          const { last_hidden_state: hidden } = (await model(inputs)) as { last_hidden_state: Tensor };
          expect(hidden.type).toBe('float32');
          expect(hidden.dims).toEqual([2, 8, 32]);
          const batch = encodeRows(bert, [HELLO_PIECES, SHORT_PIECES]);
          expect((inputs.input_ids as Tensor).tolist()).toEqual(batch.inputIds.map((r) => r.map(BigInt)));
          expect(maxAbsDiff(floats(hidden), floats(await runOrt(bertSession, batch)))).toBeLessThan(SAME_RUNTIME_TOLERANCE);
        } finally {
          await model.dispose();
        }
      },
      TRANSFORMERS_TIMEOUT_MS,
    );

    it(
      'AutoModelForMaskedLM loads tiny-splade; logits equal onnxruntime-node',
      async () => {
        const model: PreTrainedModel = await AutoModelForMaskedLM.from_pretrained(TINY_SPLADE.id, {
          dtype: 'fp32',
          device: 'cpu',
        });
        try {
          const spladeTokenizer = await AutoTokenizer.from_pretrained(TINY_SPLADE.id);
          const inputs = spladeTokenizer('Hello world, tides!');
          const { logits } = (await model(inputs)) as { logits: Tensor };
          expect(logits.dims).toEqual([1, 8, splade.vocabulary.length]);
          const batch = encodeRows(splade, [HELLO_PIECES]);
          expect(maxAbsDiff(floats(logits), floats(await runOrt(spladeSession, batch)))).toBeLessThan(SAME_RUNTIME_TOLERANCE);
        } finally {
          await model.dispose();
        }
      },
      TRANSFORMERS_TIMEOUT_MS,
    );
  });

  describe('determinism', () => {
    const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

    it('generating twice gives a byte-identical model.onnx, equal to the written file', async () => {
      const first = tinyBertToOnnx(buildTinyBert(TINY_SPLADE.options));
      const second = tinyBertToOnnx(buildTinyBert(TINY_SPLADE.options));
      expect(Buffer.compare(first, second)).toBe(0);
      const written = await readFile(join(root, TINY_SPLADE.id, 'onnx/model.onnx'));
      expect(sha256(written)).toBe(sha256(first));
      // The seed matters.
      const otherSeed = tinyBertToOnnx(buildTinyBert({ ...TINY_SPLADE.options, seed: 3 }));
      expect(sha256(otherSeed)).not.toBe(sha256(first));
    });

    it('the BERT-base vocabulary is 30,522 distinct pieces extending the small one', () => {
      const small = buildWordPieceVocab();
      const base = buildWordPieceVocab(30_522);
      expect(base).toHaveLength(30_522);
      expect(new Set(base).size).toBe(30_522);
      expect(base.slice(0, small.length)).toEqual(small);
    });
  });
});
