/**
 * 8-bit variants of generated models, shaped like onnxruntime's dynamic quantization (`quantize_dynamic`,
 * what the hub's `onnx/model_quantized.onnx` files are): every MatMul whose right operand is a float32
 * weight matrix becomes
 *
 *   x_q, x_scale, x_zero = DynamicQuantizeLinear(x)              activations → uint8, per tensor, at run time
 *   y = Cast(MatMulInteger(x_q, W_q, x_zero, W_zero), float) · (x_scale · W_scale)
 *
 * with W stored as int8, symmetric per tensor (W_scale = max|W| / 127, W_zero = 0). MatMuls of two
 * activations (attention scores, context) stay float32, as they do in the hub's files. transformers.js
 * loads such a file as `onnx/model_quantized.onnx` for `dtype: 'q8'`.
 */
import { OnnxDataType, type OnnxGraph, type OnnxInitializer, type OnnxNode } from './onnx-writer.ts';

/** int8 values of `w` and its scale: symmetric, per tensor, round half away from zero (as ORT's quantizer). */
export function quantizeInt8(w: Float32Array): { values: Int8Array; scale: number } {
  let max = 0;
  for (let i = 0; i < w.length; i++) max = Math.max(max, Math.abs(w[i]!));
  const scale = max === 0 ? 1 : Math.fround(max / 127);
  const values = new Int8Array(w.length);
  for (let i = 0; i < w.length; i++) {
    const q = Math.sign(w[i]!) * Math.round(Math.abs(w[i]!) / scale);
    values[i] = Math.max(-127, Math.min(127, q));
  }
  return { values, scale };
}

/** The dynamically quantized variant of `graph` (see the module comment); inputs and outputs unchanged. */
export function toQ8Graph(graph: OnnxGraph): OnnxGraph {
  const weights = new Map(
    graph.initializers.filter((t) => t.dataType === OnnxDataType.FLOAT && t.dims.length === 2).map((t) => [t.name, t]),
  );
  const quantized = new Map<string, OnnxInitializer[]>();
  const nodes: OnnxNode[] = [];
  for (const node of graph.nodes) {
    const w = node.opType === 'MatMul' ? weights.get(node.inputs[1]!) : undefined;
    if (!w) {
      nodes.push(node);
      continue;
    }
    const [x] = node.inputs as [string];
    const base = `${node.name}_q8`;
    if (!quantized.has(w.name)) {
      const { values, scale } = quantizeInt8(w.data as Float32Array);
      quantized.set(w.name, [
        { name: `${w.name}_quantized`, dataType: OnnxDataType.INT8, dims: w.dims, data: values },
        { name: `${w.name}_scale`, dataType: OnnxDataType.FLOAT, dims: [], data: Float32Array.of(scale) },
        { name: `${w.name}_zero_point`, dataType: OnnxDataType.INT8, dims: [], data: Int8Array.of(0) },
      ]);
    }
    const out = (suffix: string) => `${base}_${suffix}`;
    nodes.push(
      {
        opType: 'DynamicQuantizeLinear',
        name: out('quantize'),
        inputs: [x],
        outputs: [out('x'), out('x_scale'), out('x_zero_point')],
        attributes: {},
      },
      {
        opType: 'MatMulInteger',
        name: out('matmul'),
        inputs: [out('x'), `${w.name}_quantized`, out('x_zero_point'), `${w.name}_zero_point`],
        outputs: [out('int32')],
        attributes: {},
      },
      {
        opType: 'Cast',
        name: out('cast'),
        inputs: [out('int32')],
        outputs: [out('float')],
        attributes: { to: { kind: 'int', value: OnnxDataType.FLOAT } },
      },
      { opType: 'Mul', name: out('scale'), inputs: [out('x_scale'), `${w.name}_scale`], outputs: [out('scales')], attributes: {} },
      { opType: 'Mul', name: out('rescale'), inputs: [out('float'), out('scales')], outputs: node.outputs, attributes: {} },
    );
  }
  const used = new Set(nodes.flatMap((n) => n.inputs));
  const initializers = [...graph.initializers.filter((t) => !quantized.has(t.name) || used.has(t.name)), ...[...quantized.values()].flat()];
  return { ...graph, initializers, nodes };
}
