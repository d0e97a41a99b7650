/**
 * Generates a GPT-2-architecture decoder (GPT2LMHeadModel) with deterministic pseudo-random weights, as an
 * ONNX model with the KV-cache inputs and outputs transformers.js's `generate()` feeds and reads, in the
 * transformers.js local-model layout:
 *
 *   <dir>/config.json  generation_config.json  tokenizer.json  tokenizer_config.json  special_tokens_map.json
 *   <dir>/onnx/model.onnx   (fp32; the "merged" decoder: one graph for the prompt and for each new token)
 *
 * Inputs: `input_ids` [B, S], `attention_mask` [B, P+S], `position_ids` [B, S], and per layer l
 * `past_key_values.l.key` / `.value` [B, heads, P, head_dim] (P = 0 on the first step). Outputs: `logits`
 * [B, S, vocab] and `present.l.key` / `.value` [B, heads, P+S, head_dim].
 *
 * The graph is Hugging Face's GPT-2 forward (modeling_gpt2.py, eager attention): token + learned position
 * embeddings → N × [LayerNorm → fused QKV projection → causal self-attention over past+new keys with the
 * padding mask (finfo.min where masked) → projection → residual; LayerNorm → MLP with gelu_new (tanh
 * approximation) → residual] → final LayerNorm → logits tied to the token embeddings, no bias.
 *
 * MatMul weights are stored [in, out] (Conv1D orientation, which is GPT-2's own).
 */
import { toQ8Graph } from './q8.ts';
import { attr, encodeOnnxModelChunks, OnnxDataType, OnnxGraphBuilder, type OnnxGraph } from './onnx-writer.ts';
import { buildByteLevelBpe, chatTokenizerFiles, type ByteLevelBpe } from './bytelevel-bpe.ts';
import { MASK_FILL, randomTensor, weightMakers, type DenseWeights, type FileContents, type LayerNormWeights } from './tiny-bert.ts';

export interface TinyGpt2Options {
  /** Default 32; divisible by `heads`. */
  readonly hiddenSize?: number;
  /** Default 2. */
  readonly layers?: number;
  /** Default 2. */
  readonly heads?: number;
  /** Learned positions: the longest prompt plus answer. Default 2048. */
  readonly maxPositions?: number;
  /** Vocabulary size; default the base byte-level vocabulary (about 2,600 tokens). */
  readonly vocabSize?: number;
  /** Default 1. */
  readonly seed?: number;
  /**
   * Default 0.6·√(32 / hiddenSize). Far above GPT-2's 0.02 on purpose: a narrow random decoder at a small
   * init answers every prompt with the same attractor token (its last position is all "\n" embedding); at
   * this scale attention carries the passages into the answer, so different prompts get different answers
   * and a test comparing runtimes compares something.
   */
  readonly initStd?: number;
  readonly name?: string;
}

/** GPT-2 small (124M parameters): for benchmarks, written to a temp dir, never committed. */
export const GPT2_BASE_SHAPE = { hiddenSize: 768, layers: 12, heads: 12, maxPositions: 1024, vocabSize: 50257 } as const;

export interface TinyGpt2Config {
  readonly hiddenSize: number;
  readonly layers: number;
  readonly heads: number;
  readonly maxPositions: number;
  readonly vocabSize: number;
  readonly layerNormEps: number;
  readonly seed: number;
  readonly initStd: number;
}

export interface Gpt2LayerWeights {
  readonly ln1: LayerNormWeights;
  /** [hidden, 3·hidden]: query, key, value side by side. */
  readonly attention: DenseWeights;
  readonly attentionProjection: DenseWeights;
  readonly ln2: LayerNormWeights;
  readonly fc: DenseWeights;
  readonly projection: DenseWeights;
}

export interface TinyGpt2Model {
  readonly name: string;
  readonly config: TinyGpt2Config;
  readonly tokenizer: ByteLevelBpe;
  readonly weights: {
    /** [vocab, hidden]; also the output projection (tied). */
    readonly tokenEmbeddings: Float32Array;
    /** [maxPositions, hidden] */
    readonly positionEmbeddings: Float32Array;
    readonly layers: readonly Gpt2LayerWeights[];
    readonly finalNorm: LayerNormWeights;
  };
}

/** Embedding std relative to initStd: larger token embeddings keep the tied logits' top two apart. */
const TOKEN_EMBEDDING_SCALE = 3;

export function buildTinyGpt2(opts: TinyGpt2Options = {}): TinyGpt2Model {
  const hiddenSize = opts.hiddenSize ?? 32;
  const heads = opts.heads ?? 2;
  if (hiddenSize % heads !== 0) throw new Error(`tiny-gpt2: hiddenSize ${hiddenSize} is not divisible by heads ${heads}`);
  const tokenizer = buildByteLevelBpe(opts.vocabSize);
  const c: TinyGpt2Config = {
    hiddenSize,
    layers: opts.layers ?? 2,
    heads,
    maxPositions: opts.maxPositions ?? 2048,
    vocabSize: tokenizer.vocabulary.length,
    layerNormEps: 1e-5,
    seed: opts.seed ?? 1,
    initStd: opts.initStd ?? 0.6 * Math.sqrt(32 / hiddenSize),
  };
  const { seed, initStd: std } = c;
  const h = hiddenSize;
  const { dense, norm } = weightMakers(seed, std, h);
  const layers: Gpt2LayerWeights[] = [];
  for (let l = 0; l < c.layers; l++) {
    const p = `transformer.h.${l}`;
    layers.push({
      ln1: norm(`${p}.ln_1`),
      attention: dense(`${p}.attn.c_attn`, h, 3 * h),
      attentionProjection: dense(`${p}.attn.c_proj`, h, h),
      ln2: norm(`${p}.ln_2`),
      fc: dense(`${p}.mlp.c_fc`, h, 4 * h),
      projection: dense(`${p}.mlp.c_proj`, 4 * h, h),
    });
  }
  return {
    name: opts.name ?? 'fliplab/tiny-gpt2',
    config: c,
    tokenizer,
    weights: {
      tokenEmbeddings: randomTensor(seed, 'transformer.wte.weight', c.vocabSize * h, std * TOKEN_EMBEDDING_SCALE),
      positionEmbeddings: randomTensor(seed, 'transformer.wpe.weight', c.maxPositions * h, std * 0.5),
      layers,
      finalNorm: norm('transformer.ln_f'),
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// ONNX graph

const BATCH = 'batch_size';
const SEQUENCE = 'sequence_length';
const PAST = 'past_sequence_length';
const TOTAL = 'total_sequence_length';

export function tinyGpt2OnnxGraph(model: TinyGpt2Model): OnnxGraph {
  const { config: c, weights: w } = model;
  const h = c.hiddenSize;
  const headSize = h / c.heads;
  const g = new OnnxGraphBuilder(model.name);

  const inputIds = g.input('input_ids', OnnxDataType.INT64, [BATCH, SEQUENCE]);
  const attentionMask = g.input('attention_mask', OnnxDataType.INT64, [BATCH, TOTAL]);
  const positionIds = g.input('position_ids', OnnxDataType.INT64, [BATCH, SEQUENCE]);
  const past = w.layers.map((_, l) => ({
    key: g.input(`past_key_values.${l}.key`, OnnxDataType.FLOAT, [BATCH, c.heads, PAST, headSize]),
    value: g.input(`past_key_values.${l}.value`, OnnxDataType.FLOAT, [BATCH, c.heads, PAST, headSize]),
  }));

  const int64Scalar = (name: string, value: number): string => g.initializer(name, OnnxDataType.INT64, [], BigInt64Array.of(BigInt(value)));
  const one = g.scalar('const.one', 1);
  const half = g.scalar('const.half', 0.5);

  const dense = (x: string, name: string, d: DenseWeights): string => {
    const weight = g.float(`${name}.weight`, [d.inFeatures, d.outFeatures], d.weight);
    const bias = g.float(`${name}.bias`, [d.outFeatures], d.bias);
    return g.node('Add', [g.node('MatMul', [x, weight]), bias]);
  };
  const layerNorm = (x: string, name: string, n: LayerNormWeights): string =>
    g.node('LayerNormalization', [x, g.float(`${name}.weight`, [h], n.gamma), g.float(`${name}.bias`, [h], n.beta)], {
      axis: attr.int(-1),
      epsilon: attr.float(c.layerNormEps),
    });
  // gelu_new: ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
  const geluNew = (x: string): string => {
    const cube = g.node('Mul', [g.node('Mul', [x, x]), x]);
    const inner = g.node('Mul', [
      g.node('Add', [x, g.node('Mul', [cube, g.scalar(`const.gelu_cubic_${g.nodes.length}`, 0.044715)])]),
      g.scalar(`const.gelu_scale_${g.nodes.length}`, Math.sqrt(2 / Math.PI)),
    ]);
    return g.node('Mul', [g.node('Mul', [x, g.node('Add', [g.node('Tanh', [inner]), one])]), half]);
  };

  const tokenTable = g.float('transformer.wte.weight', [c.vocabSize, h], w.tokenEmbeddings);
  const positionTable = g.float('transformer.wpe.weight', [c.maxPositions, h], w.positionEmbeddings);
  let hidden = g.node('Add', [
    g.node('Gather', [tokenTable, inputIds], { axis: attr.int(0) }),
    g.node('Gather', [positionTable, positionIds], { axis: attr.int(0) }),
  ]);

  // Mask [B, 1, S, T]: query i (absolute position T − S + i) sees key j when j ≤ T − S + i and the mask is 1.
  const scalarOf = (shape: string): string => g.node('Squeeze', [shape, g.int64s('const.axis0_' + shape, [0])]);
  const total = scalarOf(g.node('Shape', [attentionMask], { start: attr.int(1), end: attr.int(2) }));
  const fresh = scalarOf(g.node('Shape', [inputIds], { start: attr.int(1), end: attr.int(2) }));
  const zero = int64Scalar('const.zero_i64', 0);
  const step = int64Scalar('const.one_i64', 1);
  const keyIndex = g.node('Unsqueeze', [g.node('Range', [zero, total, step]), g.int64s('const.axes_0', [0])]);
  const queryIndex = g.node('Unsqueeze', [g.node('Range', [g.node('Sub', [total, fresh]), total, step]), g.int64s('const.axes_1', [1])]);
  const causal = g.node('LessOrEqual', [keyIndex, queryIndex]); // [S, T]
  const padding = g.node('Unsqueeze', [g.node('Cast', [attentionMask], { to: attr.int(9) }), g.int64s('const.axes_12', [1, 2])]);
  const maskBias = g.node('Where', [g.node('And', [causal, padding]), g.scalar('const.zero', 0), g.scalar('const.mask_fill', MASK_FILL)]);

  const splitHeads = g.int64s('const.split_heads_shape', [0, 0, c.heads, headSize]);
  const mergeHeads = g.int64s('const.merge_heads_shape', [0, 0, h]);
  const lastAxis = g.int64s('const.last_axis', [-1]);
  const scale = g.scalar('const.attention_scale', Math.sqrt(headSize));
  const toHeads = (x: string): string => g.node('Transpose', [g.node('Reshape', [x, splitHeads])], { perm: attr.ints([0, 2, 1, 3]) });
  const part = (x: string, index: number): string =>
    g.node('Slice', [
      x,
      g.int64s(`const.qkv_start_${g.nodes.length}`, [index * h]),
      g.int64s(`const.qkv_end_${g.nodes.length}`, [(index + 1) * h]),
      lastAxis,
    ]);

  w.layers.forEach((layer, l) => {
    const p = `transformer.h.${l}`;
    const qkv = dense(layerNorm(hidden, `${p}.ln_1`, layer.ln1), `${p}.attn.c_attn`, layer.attention);
    const q = toHeads(part(qkv, 0));
    const pastLayer = past[l] as { key: string; value: string };
    const k = g.node('Concat', [pastLayer.key, toHeads(part(qkv, 1))], { axis: attr.int(2) }, `present.${l}.key`);
    const v = g.node('Concat', [pastLayer.value, toHeads(part(qkv, 2))], { axis: attr.int(2) }, `present.${l}.value`);
    const scores = g.node('Div', [g.node('MatMul', [q, g.node('Transpose', [k], { perm: attr.ints([0, 1, 3, 2]) })]), scale]);
    const probs = g.node('Softmax', [g.node('Add', [scores, maskBias])], { axis: attr.int(-1) });
    const context = g.node('Reshape', [g.node('Transpose', [g.node('MatMul', [probs, v])], { perm: attr.ints([0, 2, 1, 3]) }), mergeHeads]);
    hidden = g.node('Add', [hidden, dense(context, `${p}.attn.c_proj`, layer.attentionProjection)]);
    const mlp = dense(
      geluNew(dense(layerNorm(hidden, `${p}.ln_2`, layer.ln2), `${p}.mlp.c_fc`, layer.fc)),
      `${p}.mlp.c_proj`,
      layer.projection,
    );
    hidden = g.node('Add', [hidden, mlp]);
  });

  const final = layerNorm(hidden, 'transformer.ln_f', w.finalNorm);
  g.node('MatMul', [final, g.node('Transpose', [tokenTable], { perm: attr.ints([1, 0]) })], {}, 'logits');
  g.output('logits', OnnxDataType.FLOAT, [BATCH, SEQUENCE, c.vocabSize]);
  w.layers.forEach((_, l) => {
    g.output(`present.${l}.key`, OnnxDataType.FLOAT, [BATCH, c.heads, TOTAL, headSize]);
    g.output(`present.${l}.value`, OnnxDataType.FLOAT, [BATCH, c.heads, TOTAL, headSize]);
  });
  return g.graph();
}

export type TinyGpt2OnnxDtype = 'fp32' | 'q8';

export function tinyGpt2OnnxChunks(model: TinyGpt2Model, dtype: TinyGpt2OnnxDtype = 'fp32'): Uint8Array[] {
  const graph = tinyGpt2OnnxGraph(model);
  const c = model.config;
  return encodeOnnxModelChunks(dtype === 'q8' ? toQ8Graph(graph) : graph, {
    producerName: 'fliplab-tiny-gpt2',
    docString: `${model.name}: generated GPT-2 (${c.layers}×${c.hiddenSize}, ${c.heads} heads, seed ${c.seed}${
      dtype === 'q8' ? ', int8 weights' : ''
    }); not a trained model`,
  });
}

// ---------------------------------------------------------------------------------------------------
// Files

export function tinyGpt2ConfigJson(model: TinyGpt2Model): Record<string, unknown> {
  const c = model.config;
  const ids = model.tokenizer.specialIds;
  return {
    _name_or_path: model.name,
    activation_function: 'gelu_new',
    architectures: ['GPT2LMHeadModel'],
    bos_token_id: ids['<|endoftext|>'],
    eos_token_id: ids['<|im_end|>'],
    pad_token_id: ids['<|endoftext|>'],
    initializer_range: c.initStd,
    layer_norm_epsilon: c.layerNormEps,
    model_type: 'gpt2',
    n_ctx: c.maxPositions,
    n_embd: c.hiddenSize,
    n_head: c.heads,
    n_inner: null,
    n_layer: c.layers,
    n_positions: c.maxPositions,
    tie_word_embeddings: true,
    torch_dtype: 'float32',
    transformers_version: '4.44.0',
    use_cache: true,
    vocab_size: c.vocabSize,
  };
}

export interface TinyGpt2FileOptions {
  readonly q8?: boolean;
  /** Write tokenizer_config.json without `chat_template` (a base model, not an instruct model). */
  readonly withoutChatTemplate?: boolean;
}

/** The files of the model folder, relative path → contents. */
export function tinyGpt2Files(model: TinyGpt2Model, files: TinyGpt2FileOptions = {}): Record<string, FileContents> {
  const ids = model.tokenizer.specialIds;
  const generation = {
    bos_token_id: ids['<|endoftext|>'],
    eos_token_id: ids['<|im_end|>'],
    pad_token_id: ids['<|endoftext|>'],
    transformers_version: '4.44.0',
  };
  return {
    'config.json': `${JSON.stringify(tinyGpt2ConfigJson(model), null, 2)}\n`,
    'generation_config.json': `${JSON.stringify(generation, null, 2)}\n`,
    ...chatTokenizerFiles(model.tokenizer, {
      modelMaxLength: model.config.maxPositions,
      withoutChatTemplate: files.withoutChatTemplate ?? false,
    }),
    'onnx/model.onnx': tinyGpt2OnnxChunks(model),
    ...(files.q8 ? { 'onnx/model_quantized.onnx': tinyGpt2OnnxChunks(model, 'q8') } : {}),
  };
}
