/**
 * Generates BERT-architecture encoders (BertModel, BertForMaskedLM) with deterministic pseudo-random
 * weights, as ONNX models in the transformers.js local-model layout:
 *
 *   <dir>/config.json  tokenizer.json  tokenizer_config.json  special_tokens_map.json  vocab.txt
 *   <dir>/onnx/model.onnx   (fp32)
 *   <dir>/onnx/model_fp16.onnx   (on request: fp16 weights each Cast to fp32, fp32 inputs/outputs; fp16.ts)
 *
 * The graph is the Hugging Face BERT forward pass (modeling_bert.py, eager attention, absolute positions):
 * embeddings (word + position + token type) → LayerNorm → N × [self-attention with the additive mask
 * (1 − mask)·finfo(float32).min broadcast over heads → output projection → residual + LayerNorm →
 * FFN with erf-GELU → residual + LayerNorm]; the MLM head is dense → GELU → LayerNorm → decoder tied to
 * the word embeddings, plus a bias.
 *
 * MatMul weights are stored [in, out] (ONNX MatMul orientation, the transpose of PyTorch's Linear.weight).
 */
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { toFp16Graph } from './fp16.ts';
import { toQ8Graph } from './q8.ts';
import { attr, encodeOnnxModelChunks, OnnxDataType, OnnxGraphBuilder, type OnnxGraph } from './onnx-writer.ts';
import { bertTokenizerFiles, buildWordPieceVocab, SPECIAL_IDS } from './wordpiece-vocab.ts';

export type TinyBertHead = 'none' | 'mlm' | 'classifier';

export interface TinyBertOptions {
  /**
   * `'none'`: BertModel, output `last_hidden_state`. `'mlm'`: BertForMaskedLM, output `logits` [B, S, V].
   * `'classifier'`: BertForSequenceClassification with one label (a cross-encoder), output `logits` [B, 1].
   * Default `'none'`.
   */
  readonly head?: TinyBertHead;
  /** Default 32. Must be divisible by `heads`. */
  readonly hiddenSize?: number;
  /** Default 2. */
  readonly layers?: number;
  /** Default 2. */
  readonly heads?: number;
  /** FFN width. Default 64. */
  readonly intermediate?: number;
  /** Default 512. */
  readonly maxPositions?: number;
  /** Token pieces, index = id; [PAD] [UNK] [CLS] [SEP] [MASK] at ids 0–4. Default {@link buildWordPieceVocab}(). */
  readonly vocabulary?: readonly string[];
  /** Weight seed (any integer). Default 1. */
  readonly seed?: number;
  /**
   * Standard deviation of the weights. Default 0.02·√(768 / hiddenSize): BERT's initializer_range at
   * hidden size 768, scaled so a narrow model's layers still move the signal (at 0.02 and hidden 32,
   * attention would be uniform and the layers nearly the identity).
   */
  readonly initStd?: number;
  /** `_name_or_path` in config.json. */
  readonly name?: string;
}

/** The BERT-base shape (bert-base-uncased): for benchmarks, written to a temp dir, never committed. */
export const BERT_BASE_SHAPE = {
  hiddenSize: 768,
  layers: 12,
  heads: 12,
  intermediate: 3072,
  maxPositions: 512,
  vocabSize: 30522,
} as const;

/** {@link TinyBertOptions} for a BERT-base-sized model with a generated 30,522-piece vocabulary. */
export function bertBaseOptions(head: TinyBertHead = 'none', seed = 1): TinyBertOptions {
  const { vocabSize, ...shape } = BERT_BASE_SHAPE;
  return { ...shape, head, seed, vocabulary: buildWordPieceVocab(vocabSize) };
}

export interface TinyBertConfig {
  readonly head: TinyBertHead;
  readonly hiddenSize: number;
  readonly layers: number;
  readonly heads: number;
  readonly intermediate: number;
  readonly maxPositions: number;
  readonly vocabSize: number;
  readonly typeVocabSize: number;
  readonly layerNormEps: number;
  readonly seed: number;
  readonly initStd: number;
}

/** A dense layer `y = x·weight + bias` with `weight` row-major [inFeatures, outFeatures]. */
export interface DenseWeights {
  readonly inFeatures: number;
  readonly outFeatures: number;
  readonly weight: Float32Array;
  readonly bias: Float32Array;
}

export interface LayerNormWeights {
  readonly gamma: Float32Array;
  readonly beta: Float32Array;
}

export interface BertLayerWeights {
  readonly query: DenseWeights;
  readonly key: DenseWeights;
  readonly value: DenseWeights;
  readonly attentionOutput: DenseWeights;
  readonly attentionNorm: LayerNormWeights;
  readonly intermediate: DenseWeights;
  readonly output: DenseWeights;
  readonly outputNorm: LayerNormWeights;
}

export interface MlmHeadWeights {
  readonly transform: DenseWeights;
  readonly transformNorm: LayerNormWeights;
  /** The decoder weight is the word embedding matrix (tied, as in BERT); only its bias is separate. */
  readonly decoderBias: Float32Array;
}

/** BertForSequenceClassification's head: tanh(pooler(h[CLS])) → classifier, one logit. */
export interface ClassifierHeadWeights {
  readonly pooler: DenseWeights;
  readonly classifier: DenseWeights;
}

export interface TinyBertWeights {
  /** [vocabSize, hiddenSize]; the [PAD] row is zero (padding_idx 0). */
  readonly wordEmbeddings: Float32Array;
  /** [maxPositions, hiddenSize] */
  readonly positionEmbeddings: Float32Array;
  /** [typeVocabSize, hiddenSize] */
  readonly tokenTypeEmbeddings: Float32Array;
  readonly embeddingNorm: LayerNormWeights;
  readonly layers: readonly BertLayerWeights[];
  readonly mlm?: MlmHeadWeights;
  readonly classifier?: ClassifierHeadWeights;
}

/** A generated model in memory: what the ONNX file and config describe, and what the reference forward reads. */
export interface TinyBertModel {
  readonly name: string;
  readonly config: TinyBertConfig;
  readonly vocabulary: readonly string[];
  readonly weights: TinyBertWeights;
}

// ---------------------------------------------------------------------------------------------------
// Deterministic weights

/** FNV-1a, 32-bit: seeds one stream per tensor name, so a tensor's values do not depend on creation order. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** splitmix32 step, used only to expand a 32-bit seed into sfc32's 128-bit state. */
function splitmix32(state: number): [next: number, output: number] {
  const next = (state + 0x9e3779b9) >>> 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [next, (z ^ (z >>> 16)) >>> 0];
}

// Irwin–Hall: the sum of four U(0,1) has mean 2 and variance 1/3.
const IRWIN_HALL_SCALE = Math.sqrt(3);
const U16 = 1 / 65536;

/**
 * `count` values with mean `mean` and standard deviation `std`, approximately normal (a sum of four
 * 16-bit uniforms, two per sfc32 draw). Integer arithmetic plus exact IEEE add/multiply only (no log/cos),
 * so the bytes are the same on every JS engine. The generator is inlined: BERT-base draws 110M values.
 */
export function randomTensor(seed: number, name: string, count: number, std: number, mean = 0): Float32Array {
  let s = hash32(`${seed}/${name}`);
  let a: number, b: number, c: number, d: number;
  [s, a] = splitmix32(s);
  [s, b] = splitmix32(s);
  [s, c] = splitmix32(s);
  [, d] = splitmix32(s);
  const out = new Float32Array(count);
  const scale = std * IRWIN_HALL_SCALE;
  let t: number;
  let sum: number;
  for (let i = 0; i < count; i++) {
    sum = 0;
    for (let k = 0; k < 2; k++) {
      // sfc32
      t = (((a + b) >>> 0) + d) >>> 0;
      d = (d + 1) >>> 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) >>> 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) >>> 0;
      sum += ((t & 0xffff) + (t >>> 16)) * U16;
    }
    out[i] = mean + (sum - 2) * scale;
  }
  return out;
}

function resolveConfig(opts: TinyBertOptions, vocabSize: number): TinyBertConfig {
  const hiddenSize = opts.hiddenSize ?? 32;
  const heads = opts.heads ?? 2;
  const config: TinyBertConfig = {
    head: opts.head ?? 'none',
    hiddenSize,
    layers: opts.layers ?? 2,
    heads,
    intermediate: opts.intermediate ?? 64,
    maxPositions: opts.maxPositions ?? 512,
    vocabSize,
    typeVocabSize: 2,
    layerNormEps: 1e-12,
    seed: opts.seed ?? 1,
    initStd: opts.initStd ?? 0.02 * Math.sqrt(768 / hiddenSize),
  };
  for (const [k, v] of Object.entries(config)) {
    if (typeof v === 'number' && !(Number.isFinite(v) && v >= 0)) throw new Error(`tiny-bert: bad ${k}: ${v}`);
  }
  if (hiddenSize % heads !== 0) throw new Error(`tiny-bert: hiddenSize ${hiddenSize} is not divisible by heads ${heads}`);
  return config;
}

/**
 * Embedding std relative to initStd. With equal scales the position, token-type, [CLS] and [SEP] parts
 * every sequence shares dominate a mean-pooled vector (unrelated texts pool to cosine ≈ 0.95); a larger
 * word share puts unrelated texts near 0.7 and keeps texts sharing words close, like a trained encoder.
 */
const EMBEDDING_SCALE = { word: 2, position: 0.5, tokenType: 0.5 } as const;

/** Named dense and LayerNorm parameter makers for one model's seed, weight std and width (shared by the decoder). */
export function weightMakers(
  seed: number,
  std: number,
  width: number,
): { dense: (name: string, inFeatures: number, outFeatures: number) => DenseWeights; norm: (name: string) => LayerNormWeights } {
  return {
    dense: (name, inFeatures, outFeatures) => ({
      inFeatures,
      outFeatures,
      weight: randomTensor(seed, `${name}.weight`, inFeatures * outFeatures, std),
      bias: randomTensor(seed, `${name}.bias`, outFeatures, std),
    }),
    // γ near 1 and β near 0 but not exactly, so a swapped or missing LayerNorm parameter shows in the outputs.
    norm: (name) => ({
      gamma: randomTensor(seed, `${name}.weight`, width, 0.05, 1),
      beta: randomTensor(seed, `${name}.bias`, width, 0.05),
    }),
  };
}

/** Build the model in memory: resolved config, vocabulary and weights. Same options → same weights. */
export function buildTinyBert(opts: TinyBertOptions = {}): TinyBertModel {
  const vocabulary = opts.vocabulary ?? buildWordPieceVocab();
  const c = resolveConfig(opts, vocabulary.length);
  const { seed, initStd: std, hiddenSize: h } = c;
  const { dense, norm } = weightMakers(seed, std, h);
  const wordEmbeddings = randomTensor(seed, 'embeddings.word_embeddings.weight', c.vocabSize * h, std * EMBEDDING_SCALE.word);
  wordEmbeddings.fill(0, SPECIAL_IDS['[PAD]'] * h, (SPECIAL_IDS['[PAD]'] + 1) * h);
  const layers: BertLayerWeights[] = [];
  for (let l = 0; l < c.layers; l++) {
    const p = `encoder.layer.${l}`;
    layers.push({
      query: dense(`${p}.attention.self.query`, h, h),
      key: dense(`${p}.attention.self.key`, h, h),
      value: dense(`${p}.attention.self.value`, h, h),
      attentionOutput: dense(`${p}.attention.output.dense`, h, h),
      attentionNorm: norm(`${p}.attention.output.LayerNorm`),
      intermediate: dense(`${p}.intermediate.dense`, h, c.intermediate),
      output: dense(`${p}.output.dense`, c.intermediate, h),
      outputNorm: norm(`${p}.output.LayerNorm`),
    });
  }
  const weights: TinyBertWeights = {
    wordEmbeddings,
    positionEmbeddings: randomTensor(seed, 'embeddings.position_embeddings.weight', c.maxPositions * h, std * EMBEDDING_SCALE.position),
    tokenTypeEmbeddings: randomTensor(
      seed,
      'embeddings.token_type_embeddings.weight',
      c.typeVocabSize * h,
      std * EMBEDDING_SCALE.tokenType,
    ),
    embeddingNorm: norm('embeddings.LayerNorm'),
    layers,
    ...(c.head === 'mlm'
      ? {
          mlm: {
            transform: dense('cls.predictions.transform.dense', h, h),
            transformNorm: norm('cls.predictions.transform.LayerNorm'),
            decoderBias: randomTensor(seed, 'cls.predictions.bias', c.vocabSize, std),
          },
        }
      : {}),
    ...(c.head === 'classifier' ? { classifier: { pooler: dense('bert.pooler.dense', h, h), classifier: dense('classifier', h, 1) } } : {}),
  };
  const name =
    opts.name ?? (c.head === 'mlm' ? 'fliplab/tiny-splade' : c.head === 'classifier' ? 'fliplab/tiny-cross-encoder' : 'fliplab/tiny-bert');
  return { name, config: c, vocabulary, weights };
}

// ---------------------------------------------------------------------------------------------------
// ONNX graph

/** The float32 additive mask value for padded keys: torch.finfo(torch.float32).min, as Hugging Face uses. */
export const MASK_FILL = -3.4028234663852886e38;

const BATCH = 'batch_size';
const SEQUENCE = 'sequence_length';

/**
 * Which weights file: `'fp32'` (onnx/model.onnx), `'fp16'` (onnx/model_fp16.onnx, see fp16.ts) or `'q8'`
 * (onnx/model_quantized.onnx, dynamic int8 quantization, see q8.ts).
 */
export type TinyBertOnnxDtype = 'fp32' | 'fp16' | 'q8';

/**
 * Serialise the model's forward pass as an ONNX model (opset 17, IR 8), as byte chunks whose
 * concatenation is the file; for fp32 the weight chunks are views of `model.weights`. `'fp16'` writes the
 * keep-io-types half-precision variant of the same graph ({@link toFp16Graph}). Deterministic.
 */
export function tinyBertOnnxChunks(model: TinyBertModel, dtype: TinyBertOnnxDtype = 'fp32'): Uint8Array[] {
  const graph = tinyBertOnnxGraph(model);
  const c = model.config;
  const variant = dtype === 'fp16' ? toFp16Graph(graph) : dtype === 'q8' ? toQ8Graph(graph) : graph;
  const weights = dtype === 'fp16' ? ', fp16 weights' : dtype === 'q8' ? ', int8 weights (dynamic quantization)' : '';
  return encodeOnnxModelChunks(variant, {
    producerName: 'fliplab-tiny-bert',
    docString: `${model.name}: generated BERT (${c.layers}×${c.hiddenSize}, ${c.heads} heads, seed ${c.seed}${weights}); not a trained model`,
  });
}

/** The model's forward pass as an fp32 ONNX graph whose initializers are views of `model.weights`. */
export function tinyBertOnnxGraph(model: TinyBertModel): OnnxGraph {
  const { config: c, weights: w } = model;
  const h = c.hiddenSize;
  const headSize = h / c.heads;
  const g = new OnnxGraphBuilder(model.name);

  const inputIds = g.input('input_ids', OnnxDataType.INT64, [BATCH, SEQUENCE]);
  const attentionMask = g.input('attention_mask', OnnxDataType.INT64, [BATCH, SEQUENCE]);
  const tokenTypeIds = g.input('token_type_ids', OnnxDataType.INT64, [BATCH, SEQUENCE]);

  const one = g.scalar('const.one', 1);
  const half = g.scalar('const.half', 0.5);
  const sqrt2 = g.scalar('const.sqrt2', Math.SQRT2);
  const zero1d = g.int64s('const.zero_1d', [0]);

  const dense = (x: string, name: string, d: DenseWeights): string => {
    const weight = g.float(`${name}.weight`, [d.inFeatures, d.outFeatures], d.weight);
    const bias = g.float(`${name}.bias`, [d.outFeatures], d.bias);
    return g.node('Add', [g.node('MatMul', [x, weight]), bias]);
  };
  const layerNorm = (x: string, name: string, n: LayerNormWeights, output?: string): string =>
    g.node(
      'LayerNormalization',
      [x, g.float(`${name}.weight`, [h], n.gamma), g.float(`${name}.bias`, [h], n.beta)],
      { axis: attr.int(-1), epsilon: attr.float(c.layerNormEps) },
      output,
    );
  // BERT's "gelu": x · ½ · (1 + erf(x / √2)), in the node order PyTorch's exporter emits (ORT fuses it).
  const gelu = (x: string): string =>
    g.node('Mul', [g.node('Mul', [x, g.node('Add', [g.node('Erf', [g.node('Div', [x, sqrt2])]), one])]), half]);

  // Embeddings.
  const wordTable = g.float('embeddings.word_embeddings.weight', [c.vocabSize, h], w.wordEmbeddings);
  const positionTable = g.float('embeddings.position_embeddings.weight', [c.maxPositions, h], w.positionEmbeddings);
  const typeTable = g.float('embeddings.token_type_embeddings.weight', [c.typeVocabSize, h], w.tokenTypeEmbeddings);
  const words = g.node('Gather', [wordTable, inputIds], { axis: attr.int(0) });
  // Position ids are 0..S-1: the first S rows of the table, broadcast over the batch.
  const seqLen = g.node('Shape', [inputIds], { start: attr.int(1), end: attr.int(2) });
  const positions = g.node('Slice', [positionTable, zero1d, seqLen, zero1d]);
  const types = g.node('Gather', [typeTable, tokenTypeIds], { axis: attr.int(0) });
  const embedded = g.node('Add', [g.node('Add', [words, positions]), types]);
  let hidden = layerNorm(embedded, 'embeddings.LayerNorm', w.embeddingNorm);

  // Additive mask [B, 1, 1, S]: 0 where attended, finfo.min where padded.
  const maskFloat = g.node('Cast', [attentionMask], { to: attr.int(OnnxDataType.FLOAT) });
  const maskBias = g.node('Unsqueeze', [
    g.node('Mul', [g.node('Sub', [one, maskFloat]), g.scalar('const.mask_fill', MASK_FILL)]),
    g.int64s('const.mask_axes', [1, 2]),
  ]);

  const splitHeads = g.int64s('const.split_heads_shape', [0, 0, c.heads, headSize]);
  const mergeHeads = g.int64s('const.merge_heads_shape', [0, 0, h]);
  const scale = g.scalar('const.attention_scale', Math.sqrt(headSize));
  const heads = (x: string, perm: readonly number[]): string =>
    g.node('Transpose', [g.node('Reshape', [x, splitHeads])], { perm: attr.ints(perm) });

  w.layers.forEach((layer, l) => {
    const p = `encoder.layer.${l}`;
    const last = l === w.layers.length - 1 && c.head === 'none';
    const q = heads(dense(hidden, `${p}.attention.self.query`, layer.query), [0, 2, 1, 3]); // [B, nh, S, d]
    const k = heads(dense(hidden, `${p}.attention.self.key`, layer.key), [0, 2, 3, 1]); // [B, nh, d, S]
    const v = heads(dense(hidden, `${p}.attention.self.value`, layer.value), [0, 2, 1, 3]);
    const scores = g.node('Add', [g.node('Div', [g.node('MatMul', [q, k]), scale]), maskBias]);
    const probs = g.node('Softmax', [scores], { axis: attr.int(-1) });
    const context = g.node('Reshape', [g.node('Transpose', [g.node('MatMul', [probs, v])], { perm: attr.ints([0, 2, 1, 3]) }), mergeHeads]);
    const attended = dense(context, `${p}.attention.output.dense`, layer.attentionOutput);
    const afterAttention = layerNorm(g.node('Add', [attended, hidden]), `${p}.attention.output.LayerNorm`, layer.attentionNorm);
    const ffn = dense(gelu(dense(afterAttention, `${p}.intermediate.dense`, layer.intermediate)), `${p}.output.dense`, layer.output);
    hidden = layerNorm(
      g.node('Add', [ffn, afterAttention]),
      `${p}.output.LayerNorm`,
      layer.outputNorm,
      last ? 'last_hidden_state' : undefined,
    );
  });

  if (c.head === 'none') {
    if (w.layers.length === 0) hidden = g.node('Identity', [hidden], {}, 'last_hidden_state');
    g.output('last_hidden_state', OnnxDataType.FLOAT, [BATCH, SEQUENCE, h]);
  } else if (c.head === 'classifier') {
    const head = w.classifier;
    if (!head) throw new Error('tiny-bert: classifier head weights missing');
    // [CLS] (position 0) → pooler dense + tanh → one logit, as BertForSequenceClassification (dropout off).
    const cls = g.node('Reshape', [g.node('Gather', [hidden, zero1d], { axis: attr.int(1) }), g.int64s('const.cls_shape', [-1, h])]);
    const pooled = g.node('Tanh', [dense(cls, 'bert.pooler.dense', head.pooler)]);
    g.node('Identity', [dense(pooled, 'classifier', head.classifier)], {}, 'logits');
    g.output('logits', OnnxDataType.FLOAT, [BATCH, 1]);
  } else {
    const mlm = w.mlm;
    if (!mlm) throw new Error('tiny-bert: mlm head weights missing');
    const transformed = layerNorm(
      gelu(dense(hidden, 'cls.predictions.transform.dense', mlm.transform)),
      'cls.predictions.transform.LayerNorm',
      mlm.transformNorm,
    );
    // Tied decoder: logits = h · Eᵀ + b. ORT folds the Transpose of the initializer at session creation.
    const decoderWeight = g.node('Transpose', [wordTable], { perm: attr.ints([1, 0]) });
    const decoderBias = g.float('cls.predictions.bias', [c.vocabSize], mlm.decoderBias);
    g.node('Add', [g.node('MatMul', [transformed, decoderWeight]), decoderBias], {}, 'logits');
    g.output('logits', OnnxDataType.FLOAT, [BATCH, SEQUENCE, c.vocabSize]);
  }

  return g.graph();
}

// ---------------------------------------------------------------------------------------------------
// Files

/** config.json as transformers (Python) writes it for BertModel / BertForMaskedLM. */
export function tinyBertConfigJson(model: TinyBertModel): Record<string, unknown> {
  const c = model.config;
  return {
    _name_or_path: model.name,
    architectures: [c.head === 'mlm' ? 'BertForMaskedLM' : c.head === 'classifier' ? 'BertForSequenceClassification' : 'BertModel'],
    ...(c.head === 'classifier' ? { id2label: { '0': 'LABEL_0' }, label2id: { LABEL_0: 0 } } : {}),
    attention_probs_dropout_prob: 0.1,
    classifier_dropout: null,
    hidden_act: 'gelu',
    hidden_dropout_prob: 0.1,
    hidden_size: c.hiddenSize,
    initializer_range: c.initStd,
    intermediate_size: c.intermediate,
    layer_norm_eps: c.layerNormEps,
    max_position_embeddings: c.maxPositions,
    model_type: 'bert',
    num_attention_heads: c.heads,
    num_hidden_layers: c.layers,
    pad_token_id: SPECIAL_IDS['[PAD]'],
    position_embedding_type: 'absolute',
    torch_dtype: 'float32',
    transformers_version: '4.44.0',
    type_vocab_size: c.typeVocabSize,
    use_cache: true,
    vocab_size: c.vocabSize,
  };
}

/** The ONNX model as one buffer (see {@link tinyBertOnnxChunks}). */
export function tinyBertToOnnx(model: TinyBertModel): Uint8Array {
  return concatChunks(tinyBertOnnxChunks(model));
}

/** A file's contents: text, or binary chunks to write back to back. */
export type FileContents = string | readonly Uint8Array[];

export function concatChunks(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

export function contentsByteLength(contents: FileContents): number {
  return typeof contents === 'string' ? Buffer.byteLength(contents) : contents.reduce((n, c) => n + c.byteLength, 0);
}

/** Write `contents` to `path` (replacing it); returns the number of bytes written. */
export async function writeFileContents(path: string, contents: FileContents): Promise<number> {
  const file = await open(path, 'w');
  try {
    if (typeof contents === 'string') await file.writeFile(contents, 'utf8');
    else for (const chunk of contents) await file.write(chunk);
  } finally {
    await file.close();
  }
  return contentsByteLength(contents);
}

/** Which weights files a model folder gets besides the fp32 `onnx/model.onnx`. */
export interface TinyBertFileOptions {
  /** Also write `onnx/model_fp16.onnx` (fp16 weights, fp32 inputs and outputs). Default false. */
  readonly fp16?: boolean;
  /** Also write `onnx/model_quantized.onnx` (int8 weights, dynamic quantization). Default false. */
  readonly q8?: boolean;
}

/** The files of a model folder, relative path → contents. */
export function tinyBertFiles(model: TinyBertModel, files: TinyBertFileOptions = {}): Record<string, FileContents> {
  return {
    'config.json': `${JSON.stringify(tinyBertConfigJson(model), null, 2)}\n`,
    ...bertTokenizerFiles(model.vocabulary, { modelMaxLength: Math.min(512, model.config.maxPositions) }),
    'onnx/model.onnx': tinyBertOnnxChunks(model),
    ...(files.fp16 ? { 'onnx/model_fp16.onnx': tinyBertOnnxChunks(model, 'fp16') } : {}),
    ...(files.q8 ? { 'onnx/model_quantized.onnx': tinyBertOnnxChunks(model, 'q8') } : {}),
  };
}

export interface WrittenTinyBert {
  readonly model: TinyBertModel;
  readonly dir: string;
  /** Relative path (e.g. `onnx/model.onnx`) → size in bytes. */
  readonly files: Readonly<Record<string, number>>;
}

/**
 * Generate a model and write its folder (created if needed; existing files are overwritten). Memory:
 * the weights once (about 4 bytes per parameter: 440 MB at BERT-base), the file is streamed from them;
 * the fp16 variant adds a half-precision copy (2 bytes per parameter).
 */
export async function writeTinyBert(
  dir: string,
  opts: TinyBertOptions = {},
  fileOptions: TinyBertFileOptions = {},
): Promise<WrittenTinyBert> {
  const model = buildTinyBert(opts);
  const files: Record<string, number> = {};
  await mkdir(join(dir, 'onnx'), { recursive: true });
  for (const [path, contents] of Object.entries(tinyBertFiles(model, fileOptions))) {
    files[path] = await writeFileContents(join(dir, path), contents);
  }
  return { model, dir, files };
}
