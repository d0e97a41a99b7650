/**
 * A loaded reader: a transformers.js causal language model (merged decoder with KV cache) and its
 * tokenizer's chat template. Runs unchanged in a module worker (onnxruntime-web: WebGPU or WASM) and in
 * Node (onnxruntime-node: CPU or CUDA), so the CLI and the lab produce the same answers from the same model.
 * Decoding is greedy (the paper's §3.5): the same prompt gives the same tokens on every run.
 */
import { AutoModelForCausalLM, AutoTokenizer, type PreTrainedTokenizer } from '@huggingface/transformers';
import { cleanAnswer, type ChatMessage, type ReaderTemplate } from '../core/answers/prompt.ts';
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
import type { WeightsFolder } from './presets.ts';
import { ReaderError } from './reader-error.ts';
import type { ReaderConfig, ReaderDtype } from './reader-presets.ts';

export { ReaderError };

export interface ReaderLoadOptions {
  readonly device: EncoderDevice;
  readonly dtype?: ReaderDtype;
  readonly source?: ModelSource;
  readonly onDownload?: DownloadCallback;
  /** Where the ONNX weights sit: `onnx/` (transformers.js's layout, the default) or the folder's root (`locateWeights`). */
  readonly onnxFolder?: WeightsFolder;
  /**
   * The ONNX Runtime module transformers.js runs on. Given, sessions made from bytes are prepared as an
   * encoder's are (`prepareSessions`, no pooling): the weights reach the runtime without a second whole copy.
   */
  readonly ort?: SessionFactory;
  /** With `ort`: the registry of the `lazyWeightsCache` in `source.customCache` (lazy-weights.ts). */
  readonly lazyWeights?: WeightsToMount;
}

export interface ReaderAnswer {
  /** The prediction: the new tokens decoded without special tokens, trimmed. */
  readonly text: string;
  readonly promptTokens: number;
  readonly newTokens: number;
  /** The generated token ids (for tests comparing runtimes). */
  readonly tokenIds: readonly number[];
}

export interface LoadedReader {
  readonly config: ReaderConfig;
  readonly device: EncoderDevice;
  readonly dtype: ReaderDtype;
  /** Positions the model can attend to (config.json), or null when the config does not say. */
  readonly contextLength: number | null;
  /** The chat template, as the tokenizer carries it. */
  readonly chatTemplate: string;
  /** What the session hook did to the model (null: no hook, as in Node). */
  readonly prepared?: SessionPreparation | null;
  promptTokens(messages: readonly ChatMessage[]): number;
  answer(messages: readonly ChatMessage[], template: ReaderTemplate): Promise<ReaderAnswer>;
  dispose(): Promise<void>;
}

interface TensorLike {
  readonly data: BigInt64Array | Float32Array;
  readonly dims: readonly number[];
  dispose?: () => void;
}

function contextOf(config: Record<string, unknown>): number | null {
  for (const key of ['max_position_embeddings', 'n_positions', 'max_sequence_length']) {
    const v = config[key];
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v;
  }
  return null;
}

export async function loadReader(config: ReaderConfig, options: ReaderLoadOptions): Promise<LoadedReader> {
  applySource(options.source);
  const dtype = options.dtype ?? config.dtype;
  const common = { revision: config.revision, progress_callback: downloadProgress(options.onDownload) };
  const tokenizer: PreTrainedTokenizer = await AutoTokenizer.from_pretrained(config.model, common);
  // Before the weights: a base model cannot follow the instruction, and its weights may be large.
  const chatTemplate = (tokenizer as unknown as { chat_template?: unknown }).chat_template;
  if (typeof chatTemplate !== 'string' || chatTemplate.trim() === '') {
    throw new ReaderError(
      `${config.model} has no chat template (tokenizer_config.json has no "chat_template"): it is a base model, ` +
        'not an instruct model, and cannot be given the reader prompt. Choose an instruct model ' +
        '(a preset, or a repo whose tokenizer_config.json has a chat_template).',
    );
  }
  const { value: model, prepared } = await withPreparedSessions(options, null, (session_options) =>
    AutoModelForCausalLM.from_pretrained(config.model, {
      ...common,
      dtype,
      device: options.device,
      subfolder: options.onnxFolder ?? 'onnx',
      ...(session_options ? { session_options } : {}),
    }),
  );
  const contextLength = contextOf(model.config as unknown as Record<string, unknown>);

  const encode = (messages: readonly ChatMessage[]): Record<string, TensorLike> =>
    tokenizer.apply_chat_template(messages as ChatMessage[], {
      add_generation_prompt: true,
      tokenize: true,
      return_dict: true,
    }) as unknown as Record<string, TensorLike>;

  return {
    config,
    device: options.device,
    dtype,
    contextLength,
    chatTemplate,
    prepared,
    promptTokens(messages) {
      return encode(messages).input_ids?.dims[1] ?? 0;
    },
    async answer(messages, template) {
      const inputs = encode(messages);
      const promptTokens = inputs.input_ids?.dims[1] ?? 0;
      if (contextLength !== null && promptTokens + template.maxNewTokens > contextLength) {
        throw new ReaderError(
          `the prompt is ${promptTokens} tokens; with ${template.maxNewTokens} new tokens it exceeds ${config.model}'s ` +
            `context of ${contextLength} positions. Use fewer passages (a smaller k) or a reader with a longer context.`,
        );
      }
      const output = (await model.generate({
        ...inputs,
        max_new_tokens: template.maxNewTokens,
        do_sample: false,
        num_beams: 1,
      })) as unknown as TensorLike;
      try {
        const all = Array.from(output.data as BigInt64Array, Number);
        const tokenIds = all.slice(promptTokens);
        const text = cleanAnswer(tokenizer.decode(tokenIds, { skip_special_tokens: true }));
        return { text, promptTokens, newTokens: tokenIds.length, tokenIds };
      } finally {
        output.dispose?.();
        for (const t of Object.values(inputs)) t.dispose?.();
      }
    },
    async dispose() {
      await model.dispose();
    },
  };
}
