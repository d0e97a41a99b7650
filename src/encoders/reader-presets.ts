/**
 * Reader presets: small instruct models published in the transformers.js layout (config.json,
 * tokenizer.json, tokenizer_config.json with a chat template, onnx/model*.onnx merged decoders with KV-cache
 * inputs). File names and sizes were read from each repo's "Files" page on the hub (onnx/ folder, main);
 * they are shown before any download. The paper's reader (Qwen2.5-7B-Instruct) is far too large for a
 * browser: for it, import the predictions your own system made (README, "Answer-level flips").
 */

export type ReaderDtype = 'fp32' | 'fp16' | 'q8' | 'q4' | 'q4f16';
export const READER_DTYPES: readonly ReaderDtype[] = ['fp32', 'fp16', 'q8', 'q4', 'q4f16'];

export interface ReaderConfig {
  /** Stable key, used in answer files and in the lab. */
  readonly id: string;
  readonly label: string;
  /** Hub repo id or local folder name (transformers.js layout). */
  readonly model: string;
  readonly revision: string;
  /** The default weights file; the others the repo has are in {@link READER_WEIGHTS_BYTES}. */
  readonly dtype: ReaderDtype;
}

export const READER_PRESETS = {
  'qwen2.5-0.5b': {
    id: 'qwen2.5-0.5b',
    label: 'Qwen2.5 0.5B Instruct',
    model: 'onnx-community/Qwen2.5-0.5B-Instruct',
    revision: 'main',
    dtype: 'q8',
  },
  'smollm2-360m': {
    id: 'smollm2-360m',
    label: 'SmolLM2 360M Instruct',
    model: 'HuggingFaceTB/SmolLM2-360M-Instruct',
    revision: 'main',
    dtype: 'q4',
  },
  'smollm-135m': {
    id: 'smollm-135m',
    label: 'SmolLM 135M Instruct',
    model: 'HuggingFaceTB/SmolLM-135M-Instruct',
    revision: 'main',
    dtype: 'q8',
  },
} as const satisfies Record<string, ReaderConfig>;

export type ReaderPresetId = keyof typeof READER_PRESETS;

export function isReaderPresetId(s: string): s is ReaderPresetId {
  return Object.hasOwn(READER_PRESETS, s);
}

const MB = 1e6;
/** Weights file sizes in bytes as the hub lists them (decimal MB/GB, rounded as shown there). */
export const READER_WEIGHTS_BYTES: Readonly<Record<string, Partial<Record<ReaderDtype, number>>>> = {
  'onnx-community/Qwen2.5-0.5B-Instruct': { fp32: 1990 * MB, fp16: 997 * MB, q8: 512 * MB, q4: 786 * MB, q4f16: 483 * MB },
  'HuggingFaceTB/SmolLM2-360M-Instruct': { fp32: 1640 * MB, fp16: 819 * MB, q4: 417 * MB, q4f16: 299 * MB },
  'HuggingFaceTB/SmolLM-135M-Instruct': { fp32: 539 * MB, fp16: 270 * MB, q8: 136 * MB, q4: 181 * MB, q4f16: 117 * MB },
};

/** transformers.js's weights file name per dtype (onnx/<name>). */
export const READER_ONNX_FILE: Readonly<Record<ReaderDtype, string>> = {
  fp32: 'model.onnx',
  fp16: 'model_fp16.onnx',
  q8: 'model_quantized.onnx',
  q4: 'model_q4.onnx',
  q4f16: 'model_q4f16.onnx',
};

export function isReaderDtype(s: string): s is ReaderDtype {
  return (READER_DTYPES as readonly string[]).includes(s);
}
