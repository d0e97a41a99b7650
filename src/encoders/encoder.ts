/**
 * A loaded encoder: transformers.js tokenizer + ONNX model + our pooling. Runs unchanged in a module
 * worker (onnxruntime-web: WebGPU or WASM) and in Node (onnxruntime-node: CPU or CUDA), which is what lets
 * the CLI and the browser produce the same vectors.
 */
import {
  AutoModel,
  AutoModelForMaskedLM,
  AutoTokenizer,
  env,
  type PreTrainedModel,
  type PreTrainedTokenizer,
} from '@huggingface/transformers';
import { encoderInput, type EncoderConfig, type EncoderDtype } from './presets.ts';
import { clsPool, l2Normalize, meanPool, spladePool, type Dims3, type SparseVector } from './pooling.ts';

export type EncoderDevice = 'wasm' | 'webgpu' | 'cpu' | 'cuda';

/** Where model files come from. Nothing else is ever contacted. */
export interface ModelSource {
  /** Hub-compatible host, e.g. https://huggingface.co/ or a mirror with the same URL layout. */
  readonly remoteHost?: string;
  /** Local models root (a URL path in browsers, a directory in Node); tried before the host. */
  readonly localModelPath?: string;
  readonly allowRemote?: boolean;
  /** Node only: where downloaded model files are kept between runs. */
  readonly cacheDir?: string;
  /**
   * Consulted before any fetch (transformers.js `env.customCache`), e.g. the files of a local model folder
   * picked in the browser. Replaces the browser/file cache for this load only.
   */
  readonly customCache?: ModelFileCacheLike;
}

/** What transformers.js needs of a custom cache (a subset of the Web Cache API). */
export interface ModelFileCacheLike {
  match(request: string): Promise<Response | undefined>;
  put(request: string, response: Response): Promise<void>;
}

/** Where models come from when the caller names no host. */
export const DEFAULT_REMOTE_HOST = 'https://huggingface.co/';

export interface LoadOptions {
  readonly device: EncoderDevice;
  readonly dtype?: EncoderDtype;
  readonly source?: ModelSource;
  readonly onDownload?: (p: { file: string; loaded: number; total: number }) => void;
}

export interface EncodedBatch {
  readonly dense?: Float32Array[];
  readonly sparse?: SparseVector[];
  /** Real (unpadded) tokens per input after truncation. */
  readonly tokens: number[];
}

export interface LoadedEncoder {
  readonly config: EncoderConfig;
  readonly device: EncoderDevice;
  readonly dtype: EncoderDtype;
  /** Token counts after prefix and truncation, for batch planning and progress. */
  countTokens(texts: readonly string[], role: 'query' | 'passage'): number[];
  encode(texts: readonly string[], role: 'query' | 'passage'): Promise<EncodedBatch>;
  dispose(): Promise<void>;
}

/**
 * transformers.js's env is process-global: every load sets *all* of the source, so one load's local folder
 * or mirror never leaks into the next (a model found in an earlier load's local folder would otherwise
 * shadow the host this load names).
 */
function applySource(source: ModelSource | undefined): void {
  const host = source?.remoteHost ?? DEFAULT_REMOTE_HOST;
  env.remoteHost = host.endsWith('/') ? host : `${host}/`;
  env.allowLocalModels = source?.localModelPath !== undefined;
  if (source?.localModelPath !== undefined) env.localModelPath = source.localModelPath;
  env.allowRemoteModels = source?.allowRemote ?? true;
  if (source?.cacheDir !== undefined) env.cacheDir = source.cacheDir;
  env.useCustomCache = source?.customCache !== undefined;
  env.customCache = source?.customCache ?? null;
}

interface TensorLike {
  data: Float32Array | BigInt64Array;
  dims: number[];
  dispose?: () => void;
}

export async function loadEncoder(config: EncoderConfig, options: LoadOptions): Promise<LoadedEncoder> {
  applySource(options.source);
  const dtype = options.dtype ?? config.dtype;
  const progress = (p: { status: string; file?: string; loaded?: number; total?: number }) => {
    if (p.status === 'progress' && p.file) options.onDownload?.({ file: p.file, loaded: p.loaded ?? 0, total: p.total ?? 0 });
  };
  const common = { revision: config.revision, progress_callback: progress };
  const tokenizer: PreTrainedTokenizer = await AutoTokenizer.from_pretrained(config.model, common);
  const Model = config.pooling === 'splade-max' ? AutoModelForMaskedLM : AutoModel;
  const model: PreTrainedModel = await Model.from_pretrained(config.model, { ...common, dtype, device: options.device });

  const tokenize = (texts: readonly string[], role: 'query' | 'passage', padding: boolean) =>
    tokenizer(
      texts.map((t) => encoderInput(config, role, t)),
      { padding, truncation: true, max_length: config.maxLength },
    ) as unknown as Record<string, TensorLike>;

  return {
    config,
    device: options.device,
    dtype,
    countTokens(texts, role) {
      return texts.map((t) => {
        const ids = tokenizer.encode(encoderInput(config, role, t));
        return Math.min(ids.length, config.maxLength);
      });
    },
    async encode(texts, role) {
      const inputs = tokenize(texts, role, true);
      const mask = inputs.attention_mask!;
      const [batch, seq] = mask.dims as [number, number];
      const maskData = mask.data as BigInt64Array;
      const tokens: number[] = [];
      for (let b = 0; b < batch; b++) {
        let n = 0;
        for (let t = 0; t < seq; t++) if (maskData[b * seq + t] !== 0n) n++;
        tokens.push(n);
      }
      const output = (await model(inputs)) as Record<string, TensorLike>;
      try {
        if (config.pooling === 'splade-max') {
          const logits = output.logits!;
          const d: Dims3 = { batch, seq, width: logits.dims[2]! };
          return { sparse: spladePool(logits.data as Float32Array, maskData, d, config.sparseTopK), tokens };
        }
        const hidden = output.last_hidden_state!;
        const d: Dims3 = { batch, seq, width: hidden.dims[2]! };
        const data = hidden.data as Float32Array;
        const pooled = config.pooling === 'cls' ? clsPool(data, d) : meanPool(data, maskData, d);
        if (config.normalize) pooled.forEach(l2Normalize);
        return { dense: pooled, tokens };
      } finally {
        for (const t of Object.values(output)) t.dispose?.();
      }
    },
    async dispose() {
      await model.dispose();
    },
  };
}
