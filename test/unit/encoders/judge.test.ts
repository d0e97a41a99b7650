/**
 * The judges (src/encoders/judge.ts) in Node on onnxruntime-node, against the runtime driven directly:
 * the generated cross-encoder's scores equal its session's logits on the same token ids, and the LLM judge's
 * P(0…3) equal the softmax of the generated decoder's oracle logits (a float64 plain-loop GPT-2) over the four
 * grade tokens after the UMBRELA prompt. A model that is neither is refused, naming its architectures.
 */
import { join } from 'node:path';
import { AutoTokenizer } from '@huggingface/transformers';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_MODELS_DIR,
  makeJudgeFixtures,
  makeModelFixtures,
  makeReaderFixtures,
  TINY_CROSS_ENCODER,
  TINY_READER,
} from '../../../scripts/models/make-fixtures.ts';
import { referenceGpt2Logits } from '../../../scripts/models/reference-forward.ts';
import { buildTinyGpt2 } from '../../../scripts/models/tiny-gpt2.ts';
import { fillJudgePrompt, UMBRELA_PROMPT } from '../../../src/core/judging/grades.ts';
import { customJudge } from '../../../src/encoders/judge-presets.ts';
import { JudgeError, loadJudge } from '../../../src/encoders/judge.ts';

const LOAD_TIMEOUT_MS = 60_000;
const source = { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false };
const PAIRS = [
  { query: 'what pulls the tides', passage: 'The moon pulls the sea: the tides rise and fall twice a day.' },
  { query: 'lighthouse', passage: 'A lighthouse guides ships along the coast at night with its lamp.' },
  { query: 'x', passage: 'short' },
];

beforeAll(async () => {
  await Promise.all([makeJudgeFixtures(), makeReaderFixtures(), makeModelFixtures()]);
}, LOAD_TIMEOUT_MS);

describe('cross-encoder judge', () => {
  it(
    'scores each pair as the ONNX session does on the same tokens',
    async () => {
      const judge = await loadJudge(customJudge(TINY_CROSS_ENCODER.id, 'cross-encoder', { maxLength: 64 }), { device: 'cpu', source });
      expect(judge.kind).toBe('cross-encoder');
      const verdicts = await judge.judge(PAIRS);
      await judge.dispose();

      const tokenizer = await AutoTokenizer.from_pretrained(TINY_CROSS_ENCODER.id);
      const inputs = tokenizer(
        PAIRS.map((p) => p.query),
        { text_pair: PAIRS.map((p) => p.passage), padding: true, truncation: true, max_length: 64 },
      ) as unknown as Record<string, { data: BigInt64Array; dims: number[] }>;
      // Two segments: the passage's tokens are type 1.
      expect(Array.from(inputs.token_type_ids!.data).some((t) => t === 1n)).toBe(true);
      const session = await ort.InferenceSession.create(join(DEFAULT_MODELS_DIR, TINY_CROSS_ENCODER.id, 'onnx', 'model.onnx'));
      const feeds = Object.fromEntries(
        ['input_ids', 'attention_mask', 'token_type_ids'].map((k) => [k, new ort.Tensor('int64', inputs[k]!.data, inputs[k]!.dims)]),
      );
      const logits = (await session.run(feeds)).logits!.data as Float32Array;
      expect(verdicts.map((v) => v.score)).toEqual(Array.from(logits));
      expect(new Set(verdicts.map((v) => v.score)).size).toBe(3);
    },
    LOAD_TIMEOUT_MS,
  );

  it('refuses a model that is neither a classifier nor a causal LM, naming what its config says', async () => {
    await expect(loadJudge(customJudge('fliplab/tiny-bert', 'cross-encoder'), { device: 'cpu', source })).rejects.toThrow(
      new JudgeError(
        'fliplab/tiny-bert cannot judge: its config.json says architectures ["BertModel"] (model_type "bert"). A judge is a ' +
          'sequence classifier (…ForSequenceClassification: a cross-encoder such as a reranker) or a causal language model (…ForCausalLM).',
      ),
    );
    await expect(loadJudge(customJudge(TINY_CROSS_ENCODER.id, 'llm'), { device: 'cpu', source })).rejects.toThrow(
      /was chosen as an LLM judge, but its config\.json says it is a sequence classifier/,
    );
  });
});

describe('LLM judge (UMBRELA)', () => {
  it(
    'gives P(0…3) as the softmax of the oracle logits of the four grade tokens after the prompt',
    async () => {
      const judge = await loadJudge(customJudge(TINY_READER.id, 'llm', { maxLength: 64 }), { device: 'cpu', source });
      const verdicts = await judge.judge(PAIRS.slice(0, 2));
      await judge.dispose();

      const tokenizer = await AutoTokenizer.from_pretrained(TINY_READER.id);
      const model = buildTinyGpt2(TINY_READER.options);
      PAIRS.slice(0, 2).forEach((pair, i) => {
        const chat = tokenizer.apply_chat_template([{ role: 'user', content: fillJudgePrompt(UMBRELA_PROMPT, pair.query, pair.passage) }], {
          add_generation_prompt: true,
          tokenize: false,
        }) as string;
        const full = [0, 1, 2, 3].map((g) => tokenizer.encode(`${chat}${UMBRELA_PROMPT.answerPrefix}${g}`, { add_special_tokens: false }));
        const prompt = full[0]!.slice(0, -1);
        const oracle = referenceGpt2Logits(model, prompt);
        const vocab = model.config.vocabSize;
        const last = full.map((ids) => oracle[(prompt.length - 1) * vocab + ids[ids.length - 1]!]!);
        const top = Math.max(...last);
        const e = last.map((x) => Math.exp(x - top));
        const p = e.map((x) => x / e.reduce((s, y) => s + y, 0));
        const got = verdicts[i]!.probabilities!;
        expect(got).toHaveLength(4);
        got.forEach((x, g) => expect(x).toBeCloseTo(p[g]!, 5));
        expect(verdicts[i]!.score).toBeCloseTo(
          p.reduce((s, x, g) => s + g * x, 0),
          5,
        );
      });
    },
    LOAD_TIMEOUT_MS,
  );
});
