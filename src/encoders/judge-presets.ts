/**
 * Judge presets: models that label (query, passage) pairs, published in the transformers.js layout.
 * Cross-encoders give a score, mapped to grades by thresholds (core/judging/grades.ts); LLM judges read the
 * UMBRELA prompt and give the grade as their next token. Any sequence-classification repo or causal LM works
 * the same way (`customJudge`): what it is comes from its config.json's architectures.
 */
import { UMBRELA_PROMPT, type JudgePrompt } from '../core/judging/grades.ts';
import { READER_PRESETS } from './reader-presets.ts';

export type JudgeKind = 'cross-encoder' | 'llm';
export type JudgeDtype = 'fp32' | 'fp16' | 'q8' | 'q4' | 'q4f16';

export interface JudgeConfig {
  /** Stable key, part of every label's cache key and recipe. */
  readonly id: string;
  readonly label: string;
  readonly kind: JudgeKind;
  /** Hub repo id or local folder name (transformers.js layout). */
  readonly model: string;
  readonly revision: string;
  readonly dtype: JudgeDtype;
  /** Tokens of query and passage together, at most (cross-encoders), or of the passage (LLM judges). */
  readonly maxLength: number;
  /**
   * Cross-encoders: the preset's score thresholds of grades 1, 2, 3 (ascending), used only where no person's
   * judgments can fit them; labels graded by them are unaudited.
   */
  readonly thresholds?: readonly number[];
  /** LLM judges: the prompt (UMBRELA unless edited). */
  readonly prompt?: JudgePrompt;
}

export const JUDGE_PRESETS = {
  'ms-marco-minilm': {
    id: 'ms-marco-minilm',
    label: 'MS MARCO MiniLM-L-6 cross-encoder',
    kind: 'cross-encoder',
    model: 'Xenova/ms-marco-MiniLM-L-6-v2',
    revision: 'main',
    dtype: 'fp32',
    maxLength: 512,
    // Logits: provisional cuts (a clearly unrelated passage scores below −5, an answer above +5 on MS MARCO).
    thresholds: [-2, 2, 6],
  },
  'bge-reranker-base': {
    id: 'bge-reranker-base',
    label: 'BGE reranker base',
    kind: 'cross-encoder',
    model: 'Xenova/bge-reranker-base',
    revision: 'main',
    dtype: 'q8',
    maxLength: 512,
    thresholds: [-3, 0, 3],
  },
  'qwen2.5-0.5b-umbrela': {
    id: 'qwen2.5-0.5b-umbrela',
    label: 'Qwen2.5 0.5B Instruct (UMBRELA)',
    kind: 'llm',
    model: READER_PRESETS['qwen2.5-0.5b'].model,
    revision: 'main',
    dtype: 'q8',
    maxLength: 512,
    prompt: UMBRELA_PROMPT,
  },
  'smollm2-360m-umbrela': {
    id: 'smollm2-360m-umbrela',
    label: 'SmolLM2 360M Instruct (UMBRELA)',
    kind: 'llm',
    model: READER_PRESETS['smollm2-360m'].model,
    revision: 'main',
    dtype: 'q4',
    maxLength: 512,
    prompt: UMBRELA_PROMPT,
  },
} as const satisfies Record<string, JudgeConfig>;

export type JudgePresetId = keyof typeof JUDGE_PRESETS;

export function isJudgePresetId(s: string): s is JudgePresetId {
  return Object.hasOwn(JUDGE_PRESETS, s);
}

/** A judge from any repo id or folder: its kind is read from its config when it loads (`loadJudge`). */
export function customJudge(model: string, kind: JudgeKind, options: Partial<Omit<JudgeConfig, 'model' | 'kind'>> = {}): JudgeConfig {
  return {
    id: options.id ?? `${kind}:${model}`,
    label: options.label ?? model,
    kind,
    model,
    revision: options.revision ?? 'main',
    dtype: options.dtype ?? 'fp32',
    maxLength: options.maxLength ?? 512,
    ...(options.thresholds === undefined ? {} : { thresholds: options.thresholds }),
    ...(kind === 'llm' ? { prompt: options.prompt ?? UMBRELA_PROMPT } : {}),
  };
}
