/**
 * Generated encoders that half precision really gets wrong, for the agreement check (src/encoders/agreement.ts)
 * and the NaN guard of the corpus job. Nothing is faked: each fp16 file is what a faithful converter makes of
 * its fp32 model, and the damage is half precision's own — too few mantissa bits, too small a range.
 *
 * - `offsetBert` (disagreement): the tiny BERT with every word embedding riding on a shared offset in every
 *   dimension (like the "massive activation" dimensions of trained transformers). The embeddings' LayerNorm
 *   subtracts a vector's mean, so in float32 the offset cancels and the model is the tiny BERT (cosine 1.00000);
 *   stored as half (keep-io-types, fp16.ts), whose spacing at 512 is 0.5, the words' own signal (σ ≈ 0.2)
 *   keeps about one bit, and the fp16 vectors drift far from the fp32 ones (cosine ≈ 0.74 with CLS pooling).
 * - `overflowBert` (NaN): the tiny BERT with a "glitch" token (`÷`) whose embedding points far along one
 *   direction, read by one channel of the first layer's attention values at a scale that puts the glitch token
 *   at ~85,000, past half's largest value (65,504), and every other token below ~45,000. With half arithmetic
 *   (`toFp16ComputeGraph`, as a real fp16 export computes) that value is ∞, the attention output mixes +∞ and
 *   −∞ into NaN, and attention spreads it to every position of the text; in float32 it is an ordinary number.
 *   Texts without the token agree with float32 (cosine 1.00000).
 */
import { toFloat16Array } from './fp16.ts';
import { encodeOnnxModelChunks, OnnxDataType, type OnnxGraph, type OnnxInitializer, type OnnxNode } from './onnx-writer.ts';
import { bertTokenizerFiles, SPECIAL_IDS } from './wordpiece-vocab.ts';
import {
  buildTinyBert,
  tinyBertConfigJson,
  tinyBertOnnxChunks,
  tinyBertOnnxGraph,
  type FileContents,
  type TinyBertModel,
  type TinyBertOptions,
} from './tiny-bert.ts';

/** The shared offset of `offsetBert`'s word embeddings: half's spacing there is 0.5. */
export const WORD_OFFSET = 512;

/** The token that overflows `overflowBert`'s first attention values under half precision. */
export const GLITCH_TOKEN = '÷';

/**
 * `overflowBert`'s glitch: the token's embedding gets this many times the ±1 pattern e, and the first layer's
 * value projection of head 0's first channel reads c · (h · ê) (ê = e / ‖e‖): ≈ 5.7·c for the glitch token
 * (its normalised embedding points along e), |h · ê| ≲ 3 for every other token. With c = 15,000 that is
 * ~85,000 against at most ~45,000: only the glitch token passes 65,504. The output projection reads that
 * channel at 1/c, so in float32 it adds an ordinary amount to every position.
 */
const GLITCH = { embedding: 10, valueScale: 15_000 } as const;

/** The ±1 pattern of width `n` (zero mean for even n): the glitch direction. */
function pattern(n: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 1 : -1));
}

/** The tiny BERT of `options` with {@link WORD_OFFSET} added to every word embedding but [PAD]'s (the padding row stays 0). */
export function offsetBert(options: TinyBertOptions): TinyBertModel {
  const model = buildTinyBert(options);
  const h = model.config.hiddenSize;
  const words = model.weights.wordEmbeddings;
  for (let i = 0; i < words.length; i++) if (Math.floor(i / h) !== SPECIAL_IDS['[PAD]']) words[i]! += WORD_OFFSET;
  return model;
}

/** The tiny BERT of `options` with the glitch token and the value channel that overflows on it (the module comment). */
export function overflowBert(options: TinyBertOptions): TinyBertModel {
  const model = buildTinyBert(options);
  const h = model.config.hiddenSize;
  const glitch = model.vocabulary.indexOf(GLITCH_TOKEN);
  if (glitch < 0) throw new Error(`overflowBert: the vocabulary has no ${GLITCH_TOKEN}`);
  const e = pattern(h);
  const words = model.weights.wordEmbeddings;
  for (let j = 0; j < h; j++) words[glitch * h + j]! += GLITCH.embedding * e[j]!;
  const { value, attentionOutput } = model.weights.layers[0]!;
  const c = GLITCH.valueScale;
  // W_v[:, 0] = c · ê, b_v[0] = 0; W_o[0, :] = e / c (weights are [in, out]).
  for (let d = 0; d < h; d++) value.weight[d * h] = (c * e[d]!) / Math.sqrt(h);
  value.bias[0] = 0;
  for (let d = 0; d < h; d++) attentionOutput.weight[d] = e[d]! / c;
  return model;
}

/**
 * The half-precision variant of `graph` that computes in half, as onnxconverter_common's
 * `convert_float_to_float16(..., keep_io_types=True)` makes it: every float32 initializer is stored as float16
 * (clamped to ±65,504, as the converter clamps), every Cast to float32 casts to float16 instead, and each float32
 * graph output is the Cast back to float32 of its half value. Inputs (int64 ids) and outputs keep their types, so
 * transformers.js loads it like any `model_fp16.onnx`. ONNX Runtime's CPU provider (and so WASM) runs the nodes it
 * has no half kernel for (MatMul, Add, Softmax, ...) in float32 with Casts around each run of them, so a value is
 * rounded to half wherever a node with a half kernel takes it (Reshape, Transpose, Gather, Cast): the attention
 * projections are, before their heads are split — where `overflowBert` overflows on WASM as on a GPU.
 */
export function toFp16ComputeGraph(graph: OnnxGraph): OnnxGraph {
  const initializers: OnnxInitializer[] = graph.initializers.map((t) =>
    t.dataType === OnnxDataType.FLOAT ? { ...t, dataType: OnnxDataType.FLOAT16, data: toFloat16Array(t.data as Float32Array) } : t,
  );
  const floatOutputs = new Set(graph.outputs.filter((o) => o.elemType === OnnxDataType.FLOAT).map((o) => o.name));
  const half = (name: string) => `${name}_fp16`;
  const nodes: OnnxNode[] = graph.nodes.map((n) => {
    const to = n.opType === 'Cast' ? n.attributes.to : undefined;
    const attributes =
      to?.kind === 'int' && to.value === OnnxDataType.FLOAT
        ? { ...n.attributes, to: { kind: 'int' as const, value: OnnxDataType.FLOAT16 } }
        : n.attributes;
    return { ...n, attributes, outputs: n.outputs.map((o) => (floatOutputs.has(o) ? half(o) : o)) };
  });
  for (const name of floatOutputs) {
    nodes.push({
      opType: 'Cast',
      name: `Cast_fp32_${name}`,
      inputs: [half(name)],
      outputs: [name],
      attributes: { to: { kind: 'int', value: OnnxDataType.FLOAT } },
    });
  }
  return { ...graph, initializers, nodes };
}

/** A model folder's files: config, tokenizer, fp32 weights and an fp16 file (half weights, or half arithmetic too). */
export function trapFiles(model: TinyBertModel, fp16: 'weights' | 'arithmetic'): Record<string, FileContents> {
  const c = model.config;
  return {
    'config.json': `${JSON.stringify(tinyBertConfigJson(model), null, 2)}\n`,
    ...bertTokenizerFiles(model.vocabulary, { modelMaxLength: Math.min(512, c.maxPositions) }),
    'onnx/model.onnx': tinyBertOnnxChunks(model),
    'onnx/model_fp16.onnx':
      fp16 === 'weights'
        ? tinyBertOnnxChunks(model, 'fp16')
        : encodeOnnxModelChunks(toFp16ComputeGraph(tinyBertOnnxGraph(model)), {
            producerName: 'fliplab-tiny-bert',
            docString: `${model.name}: generated BERT with half-precision arithmetic (keep-io-types); not a trained model`,
          }),
  };
}
