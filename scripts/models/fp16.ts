/**
 * Half-precision variants of generated models, shaped like real "keep_io_types" fp16 exports
 * (onnxconverter_common's `convert_float_to_float16(..., keep_io_types=True)`) seen from the outside:
 * every float32 initializer is stored as float16 (TensorProto data_type 10) and followed by a `Cast` back
 * to float32 under the original name, so the rest of the graph, its inputs and its outputs are unchanged.
 * transformers.js loads such a file as `onnx/model_fp16.onnx` for `dtype: 'fp16'`.
 *
 * The arithmetic stays float32 (the Casts restore it); only the weights lose precision, rounded to the
 * nearest half (ties to even). Values beyond half's range are clamped to ±65504 first, as the converter
 * clamps to its own limit: the attention mask's float32-min fill would otherwise become −∞ and
 * (1 − mask)·(−∞) NaN for every attended position.
 */
import { float16ToNumber, toFloat16Bits } from '../../src/core/float16.ts';
import { OnnxDataType, type OnnxGraph, type OnnxInitializer, type OnnxNode } from './onnx-writer.ts';

/** The largest finite half-precision value. */
export const FLOAT16_MAX = 65504;

/** The IEEE 754 binary16 bit pattern nearest to `x` (rounded as float32 first; ties to even; ±∞, NaN kept). */
export const float32ToFloat16Bits = toFloat16Bits;

/** The value of a binary16 bit pattern. */
export const float16BitsToNumber = float16ToNumber;

/** `values` clamped to ±{@link FLOAT16_MAX} and rounded to half precision, as bit patterns. */
export function toFloat16Array(values: Float32Array): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    out[i] = float32ToFloat16Bits(v > FLOAT16_MAX ? FLOAT16_MAX : v < -FLOAT16_MAX ? -FLOAT16_MAX : v);
  }
  return out;
}

/** `values` as the weights of the fp16 variant hold them: clamped, rounded to half, back in float32. */
export function roundToFloat16(values: Float32Array): Float32Array {
  const halves = toFloat16Array(values);
  return Float32Array.from(halves, float16BitsToNumber);
}

/** Suffix of the float16 initializer whose Cast produces the original (float32) name. */
export const FP16_INITIALIZER_SUFFIX = '_fp16';

/**
 * The keep-io-types fp16 variant of `graph`: float32 initializers become float16 ones named
 * `<name>_fp16`, each Cast (to float32) back to `<name>` by a node placed before all others. Other
 * initializers, the nodes, inputs and outputs are unchanged.
 */
export function toFp16Graph(graph: OnnxGraph): OnnxGraph {
  const taken = new Set<string>([
    ...graph.inputs.map((v) => v.name),
    ...graph.initializers.map((t) => t.name),
    ...graph.nodes.flatMap((n) => [n.name, ...n.outputs]),
  ]);
  const initializers: OnnxInitializer[] = [];
  const casts: OnnxNode[] = [];
  for (const t of graph.initializers) {
    if (t.dataType !== OnnxDataType.FLOAT) {
      initializers.push(t);
      continue;
    }
    const halfName = `${t.name}${FP16_INITIALIZER_SUFFIX}`;
    const castName = `Cast_fp16_${t.name}`;
    for (const name of [halfName, castName]) {
      if (taken.has(name)) throw new Error(`fp16: the graph already has a value or node named ${name}`);
      taken.add(name);
    }
    initializers.push({ name: halfName, dataType: OnnxDataType.FLOAT16, dims: t.dims, data: toFloat16Array(t.data as Float32Array) });
    casts.push({
      opType: 'Cast',
      name: castName,
      inputs: [halfName],
      outputs: [t.name],
      attributes: { to: { kind: 'int', value: OnnxDataType.FLOAT } },
    });
  }
  return { ...graph, initializers, nodes: [...casts, ...graph.nodes] };
}
