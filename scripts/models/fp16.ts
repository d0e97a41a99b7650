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
import { OnnxDataType, type OnnxGraph, type OnnxInitializer, type OnnxNode } from './onnx-writer.ts';

/** The largest finite half-precision value. */
export const FLOAT16_MAX = 65504;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The IEEE 754 binary16 bit pattern nearest to `x` (rounded as float32 first; ties to even; ±∞, NaN kept). */
export function float32ToFloat16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal half (or zero): units of 2^-24. Below 2^-25 everything rounds to zero.
    if (e < -10) return sign;
    const full = mantissa | 0x800000;
    const shift = 14 - e;
    let half = full >>> shift;
    const rest = full & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && (half & 1) === 1)) half++;
    return sign | half; // a carry out of the mantissa lands on exponent 1: still the right value
  }
  let half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1)) half++; // a carry may round up to ∞: correct
  return sign | half;
}

/** The value of a binary16 bit pattern. */
export function float16BitsToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

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
