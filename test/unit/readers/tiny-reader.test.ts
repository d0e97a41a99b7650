/**
 * The generated decoder (scripts/models/tiny-gpt2.ts) against a float64 plain-loop GPT-2 forward pass over
 * the generator's weights (the oracle), through onnxruntime-node directly (with and without the KV cache)
 * and through the reader (transformers.js generate, greedy), which must give the oracle's tokens.
 */
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeReaderFixtures, TINY_READER, TINY_READER_BASE } from '../../../scripts/models/make-fixtures.ts';
import { referenceGpt2Logits, referenceGreedy } from '../../../scripts/models/reference-forward.ts';
import { buildTinyGpt2, type TinyGpt2Model } from '../../../scripts/models/tiny-gpt2.ts';
import { READER_TEMPLATE, readerMessages } from '../../../src/core/answers/prompt.ts';
import { loadReader, ReaderError } from '../../../src/encoders/reader.ts';

const LOAD_TIMEOUT_MS = 60_000;
const ORACLE_TOLERANCE = 1e-4;

const source = { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false };
const config = (model: string) => ({ id: model, label: model, model, revision: 'main', dtype: 'fp32' as const });

let model: TinyGpt2Model;
beforeAll(async () => {
  await makeReaderFixtures();
  model = buildTinyGpt2(TINY_READER.options);
}, LOAD_TIMEOUT_MS);

const int64 = (ids: readonly number[]) => new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]);

describe('tiny-gpt2 ONNX graph', () => {
  it('gives the oracle logits for a prompt, and the same last-position logits one token at a time with the KV cache', async () => {
    const session = await ort.InferenceSession.create(join(DEFAULT_MODELS_DIR, TINY_READER.id, 'onnx', 'model.onnx'));
    const c = model.config;
    const ids = [5, 700, 32, 1200, 88, 401, 2000];
    const empty = () => new ort.Tensor('float32', new Float32Array(0), [1, c.heads, 0, c.hiddenSize / c.heads]);
    const feeds = (input: readonly number[], past: (l: number, kind: 'key' | 'value') => ort.Tensor, start: number) => {
      const f: Record<string, ort.Tensor> = {
        input_ids: int64(input),
        attention_mask: int64(new Array<number>(start + input.length).fill(1)),
        position_ids: int64(input.map((_, i) => start + i)),
      };
      for (let l = 0; l < c.layers; l++) for (const kind of ['key', 'value'] as const) f[`past_key_values.${l}.${kind}`] = past(l, kind);
      return f;
    };
    const full = await session.run(feeds(ids, empty, 0));
    const oracle = referenceGpt2Logits(model, ids);
    const logits = full.logits!.data as Float32Array;
    expect(full.logits!.dims).toEqual([1, ids.length, c.vocabSize]);
    let max = 0;
    for (let i = 0; i < oracle.length; i++) max = Math.max(max, Math.abs((logits[i] as number) - (oracle[i] as number)));
    expect(max).toBeLessThan(ORACLE_TOLERANCE);

    // Prefix of six, then the seventh token with the cache the prefix returned.
    const prefix = await session.run(feeds(ids.slice(0, 6), empty, 0));
    expect(prefix['present.0.key']!.dims).toEqual([1, c.heads, 6, c.hiddenSize / c.heads]);
    const step = await session.run(feeds(ids.slice(6), (l, kind) => prefix[`present.${l}.${kind}`]!, 6));
    const last = step.logits!.data as Float32Array;
    const expected = oracle.subarray(6 * c.vocabSize);
    let stepMax = 0;
    for (let v = 0; v < c.vocabSize; v++) stepMax = Math.max(stepMax, Math.abs((last[v] as number) - (expected[v] as number)));
    expect(stepMax).toBeLessThan(ORACLE_TOLERANCE);
    await session.release();
  });
});

describe('reader (transformers.js generate, onnxruntime-node)', () => {
  const messages = readerMessages(READER_TEMPLATE, 'Which river flows through the old city?', [
    { id: 'd1', title: 'River', text: 'The river water runs to the sea through the old city. It is long.' },
    { id: 'd2', title: '', text: 'Rain and sun change the level of the river every year.' },
  ]);

  it(
    'decodes greedily: the oracle tokens, the 24-token limit, and a decoded answer',
    async () => {
      const reader = await loadReader(config(TINY_READER.id), { device: 'cpu', source });
      try {
        const answer = await reader.answer(messages, READER_TEMPLATE);
        const eos = model.tokenizer.specialIds['<|im_end|>'];
        // The oracle needs the prompt ids: the reader's own chat template rendering, tokenized.
        const { AutoTokenizer } = await import('@huggingface/transformers');
        const tokenizer = await AutoTokenizer.from_pretrained(TINY_READER.id);
        const text = tokenizer.apply_chat_template(messages, { add_generation_prompt: true, tokenize: false }) as string;
        expect(text).toMatch(/^<\|im_start\|>system\nYou answer questions.*<\|im_start\|>assistant\n$/s);
        const prompt = tokenizer.encode(text, { add_special_tokens: false });
        expect(answer.promptTokens).toBe(prompt.length);
        const oracle = referenceGreedy(model, prompt, READER_TEMPLATE.maxNewTokens, eos);
        // A comparison near a tie would prove little; these are clear choices.
        expect(Math.min(...oracle.map((s) => s.margin))).toBeGreaterThan(1e-3);
        expect(answer.tokenIds).toEqual(oracle.map((s) => s.token));
        expect(answer.newTokens).toBeLessThanOrEqual(24);
        expect(answer.text).toBe(tokenizer.decode([...answer.tokenIds], { skip_special_tokens: true }).trim());
        expect(answer.text.length).toBeGreaterThan(0);
        expect(reader.contextLength).toBe(model.config.maxPositions);
      } finally {
        await reader.dispose();
      }
    },
    LOAD_TIMEOUT_MS,
  );

  it(
    'refuses a model without a chat template before loading its weights, saying why',
    async () => {
      const error = await loadReader(config(TINY_READER_BASE.id), { device: 'cpu', source }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ReaderError);
      expect((error as Error).message).toMatch(/fliplab\/tiny-gpt2-base has no chat template.*base model, not an instruct model/);
    },
    LOAD_TIMEOUT_MS,
  );

  it(
    'refuses a prompt longer than the context, naming sizes and what to change',
    async () => {
      const reader = await loadReader(config(TINY_READER.id), { device: 'cpu', source });
      try {
        // Unknown words fall back to bytes: a few thousand tokens.
        const long = Array.from({ length: 400 }, (_, i) => `zq${i}xv`).join(' ');
        const big = readerMessages(
          READER_TEMPLATE,
          'q?',
          Array.from({ length: 10 }, (_, i) => ({ id: `d${i}`, text: long })),
        );
        const error = await reader.answer(big, READER_TEMPLATE).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ReaderError);
        expect((error as Error).message).toMatch(
          /the prompt is \d+ tokens; with 24 new tokens it exceeds .* context of 2048 positions.*smaller k/,
        );
      } finally {
        await reader.dispose();
      }
    },
    LOAD_TIMEOUT_MS,
  );
});
