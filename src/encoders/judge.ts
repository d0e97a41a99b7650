/**
 * A loaded judge: a model that labels (query, passage) pairs, in a module worker (onnxruntime-web: WebGPU or
 * WASM) or in Node (onnxruntime-node), through transformers.js, as the encoders and readers are.
 *
 * - A cross-encoder (…ForSequenceClassification) reads query and passage as one pair of segments and gives a
 *   score: its one logit (or, with two labels, the second minus the first).
 * - An LLM judge (…ForCausalLM) reads its prompt (UMBRELA unless edited) in its chat template, its reply started
 *   with the prompt's answer prefix, and gives the probabilities of "0" … "3" as the next token, in one forward
 *   pass: deterministic, no sampling.
 *
 * What a model is comes from its config.json; anything else is refused, naming what the config says.
 */
import {
  AutoConfig,
  AutoModelForCausalLM,
  AutoModelForSequenceClassification,
  AutoTokenizer,
  Tensor,
  type PreTrainedTokenizer,
} from '@huggingface/transformers';
import { fillJudgePrompt, softmax, type JudgePrompt } from '../core/judging/grades.ts';
import {
  applySource,
  downloadProgress,
  withPreparedSessions,
  type DownloadCallback,
  type EncoderDevice,
  type ModelSource,
  type SessionFactory,
  type SessionPreparation,
  type WeightsToMount,
} from './encoder.ts';
import type { JudgeConfig, JudgeDtype, JudgeKind } from './judge-presets.ts';
import type { WeightsFolder } from './presets.ts';

/** A judge that cannot be used as asked: not a classifier nor a causal LM, no chat template, a prompt too long. */
export class JudgeError extends Error {
  override readonly name = 'JudgeError';
}

export interface JudgeLoadOptions {
  readonly device: EncoderDevice;
  readonly dtype?: JudgeDtype;
  readonly source?: ModelSource;
  readonly onDownload?: DownloadCallback;
  readonly onnxFolder?: WeightsFolder;
  readonly ort?: SessionFactory;
  readonly lazyWeights?: WeightsToMount;
}

export interface JudgePair {
  readonly query: string;
  readonly passage: string;
}

/** What a judge says of one pair: a score (a cross-encoder's; an LLM judge's expected grade) and, from an LLM, P(0…3). */
export interface PairVerdict {
  readonly score: number;
  readonly probabilities?: readonly number[];
}

export interface LoadedJudge {
  readonly config: JudgeConfig;
  readonly kind: JudgeKind;
  readonly device: EncoderDevice;
  readonly dtype: JudgeDtype;
  readonly prepared?: SessionPreparation | null;
  judge(pairs: readonly JudgePair[]): Promise<PairVerdict[]>;
  dispose(): Promise<void>;
}

interface TensorLike {
  readonly data: BigInt64Array | Float32Array;
  readonly dims: readonly number[];
  dispose?: () => void;
}

/** What a config.json's architectures make of a model, or an error that names them. */
export function judgeKindOfConfig(model: string, config: { architectures?: unknown; model_type?: unknown }): JudgeKind {
  const architectures = Array.isArray(config.architectures) ? config.architectures.map(String) : [];
  if (architectures.some((a) => a.endsWith('ForSequenceClassification'))) return 'cross-encoder';
  if (architectures.some((a) => a.endsWith('ForCausalLM') || a.endsWith('LMHeadModel'))) return 'llm';
  const said = architectures.length > 0 ? `architectures ${JSON.stringify(architectures)}` : 'no architectures';
  const type = typeof config.model_type === 'string' ? ` (model_type "${config.model_type}")` : '';
  throw new JudgeError(
    `${model} cannot judge: its config.json says ${said}${type}. A judge is a sequence classifier ` +
      '(…ForSequenceClassification: a cross-encoder such as a reranker) or a causal language model (…ForCausalLM).',
  );
}

/** What a model is, from its config.json alone (no weights): for a judge given by repo id or folder. */
export async function detectJudgeKind(model: string, options: { revision?: string; source?: ModelSource } = {}): Promise<JudgeKind> {
  applySource(options.source);
  const config = (await AutoConfig.from_pretrained(model, { revision: options.revision ?? 'main' })) as unknown as Record<string, unknown>;
  return judgeKindOfConfig(model, config);
}

export async function loadJudge(config: JudgeConfig, options: JudgeLoadOptions): Promise<LoadedJudge> {
  applySource(options.source);
  const dtype = options.dtype ?? config.dtype;
  const common = { revision: config.revision, progress_callback: downloadProgress(options.onDownload) };
  // Before any weights: what the model is.
  const modelConfig = (await AutoConfig.from_pretrained(config.model, common)) as unknown as Record<string, unknown>;
  const kind = judgeKindOfConfig(config.model, modelConfig);
  if (kind !== config.kind) {
    throw new JudgeError(
      `${config.model} was chosen as ${config.kind === 'llm' ? 'an LLM judge' : 'a cross-encoder'}, but its config.json says ` +
        `it is ${kind === 'llm' ? 'a causal language model' : 'a sequence classifier'}`,
    );
  }
  const tokenizer: PreTrainedTokenizer = await AutoTokenizer.from_pretrained(config.model, common);
  const load = <T>(auto: { from_pretrained(model: string, options: object): Promise<T> }) =>
    withPreparedSessions(options, null, (session_options) =>
      auto.from_pretrained(config.model, {
        ...common,
        dtype,
        device: options.device,
        subfolder: options.onnxFolder ?? 'onnx',
        ...(session_options ? { session_options } : {}),
      }),
    );
  const base = { config, kind, device: options.device, dtype };
  if (kind === 'cross-encoder') {
    const { value: model, prepared } = await load(AutoModelForSequenceClassification);
    return {
      ...base,
      prepared,
      judge: (pairs) => crossEncode(tokenizer, model as unknown as Model, config, pairs),
      dispose: () => dispose(model),
    };
  }
  const prompt = config.prompt;
  if (prompt === undefined) throw new JudgeError(`${config.id} is an LLM judge without a prompt`);
  const chatTemplate = (tokenizer as unknown as { chat_template?: unknown }).chat_template;
  if (typeof chatTemplate !== 'string' || chatTemplate.trim() === '') {
    throw new JudgeError(
      `${config.model} has no chat template (tokenizer_config.json has no "chat_template"): a base model cannot be given ` +
        'the judging prompt. Choose an instruct model.',
    );
  }
  const { value: model, prepared } = await load(AutoModelForCausalLM);
  const contextLength = typeof modelConfig.max_position_embeddings === 'number' ? modelConfig.max_position_embeddings : null;
  return {
    ...base,
    prepared,
    judge: async (pairs) => {
      const out: PairVerdict[] = [];
      for (const pair of pairs) out.push(await llmJudge(tokenizer, model as unknown as Model, config, prompt, contextLength, pair));
      return out;
    },
    dispose: () => dispose(model),
  };
}

type Model = ((inputs: Record<string, unknown>) => Promise<{ logits: TensorLike }>) & { dispose(): Promise<unknown> };

async function dispose(model: unknown): Promise<void> {
  await (model as { dispose(): Promise<unknown> }).dispose();
}

async function crossEncode(
  tokenizer: PreTrainedTokenizer,
  model: Model,
  config: JudgeConfig,
  pairs: readonly JudgePair[],
): Promise<PairVerdict[]> {
  if (pairs.length === 0) return [];
  const inputs = tokenizer(
    pairs.map((p) => p.query),
    { text_pair: pairs.map((p) => p.passage), padding: true, truncation: true, max_length: config.maxLength },
  ) as unknown as Record<string, TensorLike>;
  const { logits } = await model(inputs);
  try {
    const labels = logits.dims[1] ?? 1;
    if (labels > 2) {
      throw new JudgeError(`${config.model} gives ${labels} labels per pair; a cross-encoder judge needs one score (one label, or two)`);
    }
    const data = logits.data as Float32Array;
    return pairs.map((_, i) => ({ score: labels === 1 ? data[i]! : data[i * 2 + 1]! - data[i * 2]! }));
  } finally {
    logits.dispose?.();
    for (const t of Object.values(inputs)) t.dispose?.();
  }
}

/** The token ids of `text` (no special tokens added: the chat template wrote its own). */
const ids = (tokenizer: PreTrainedTokenizer, text: string): number[] => tokenizer.encode(text, { add_special_tokens: false });

/** The passage cut to `max` tokens (a judge reads the start of a long passage, as a cross-encoder truncates). */
function truncated(tokenizer: PreTrainedTokenizer, passage: string, max: number): string {
  const tokens = ids(tokenizer, passage);
  return tokens.length <= max ? passage : tokenizer.decode(tokens.slice(0, max), { skip_special_tokens: true });
}

async function llmJudge(
  tokenizer: PreTrainedTokenizer,
  model: Model,
  config: JudgeConfig,
  prompt: JudgePrompt,
  contextLength: number | null,
  pair: JudgePair,
): Promise<PairVerdict> {
  const user = fillJudgePrompt(prompt, pair.query, truncated(tokenizer, pair.passage, config.maxLength));
  const chat = tokenizer.apply_chat_template([{ role: 'user', content: user }], { add_generation_prompt: true, tokenize: false }) as string;
  const text = chat + prompt.answerPrefix;
  // Each grade as the one token after the prompt: the four tokenizations share everything but their last token.
  const withGrade = [0, 1, 2, 3].map((g) => ids(tokenizer, `${text}${g}`));
  const shared = withGrade[0]!.slice(0, -1);
  for (const [g, seq] of withGrade.entries()) {
    if (seq.length !== shared.length + 1 || shared.some((t, i) => seq[i] !== t)) {
      throw new JudgeError(`${config.model}'s tokenizer does not write the grade "${g}" as one token after the prompt's answer prefix`);
    }
  }
  if (contextLength !== null && shared.length > contextLength) {
    throw new JudgeError(`the judging prompt is ${shared.length} tokens, more than ${config.model}'s context of ${contextLength}`);
  }
  const gradeTokens = withGrade.map((seq) => seq[seq.length - 1]!);
  const input = new Tensor('int64', BigInt64Array.from(shared, BigInt), [1, shared.length]);
  const mask = new Tensor('int64', new BigInt64Array(shared.length).fill(1n), [1, shared.length]);
  const { logits } = await model({ input_ids: input, attention_mask: mask });
  try {
    const vocab = logits.dims[2]!;
    const last = (logits.dims[1]! - 1) * vocab;
    const data = logits.data as Float32Array;
    const probabilities = softmax(gradeTokens.map((t) => data[last + t]!));
    return { score: probabilities.reduce((s, p, g) => s + g * p, 0), probabilities };
  } finally {
    logits.dispose?.();
    input.dispose();
    mask.dispose();
  }
}
