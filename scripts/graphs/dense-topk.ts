/**
 * The ONNX graph behind fliplab's fast exact dense search: scores = MatMul(queries, docsᵀ), then
 * TopK(scores, k) along the documents (ONNX TopK breaks ties by the lower index, our rule). Inputs are
 * symbolic in every dimension and k is an input, so one small model serves any corpus, batch and depth.
 *
 *   node --import tsx scripts/graphs/dense-topk.ts   prints the base64 embedded in src/encoders/dense-onnx.ts
 */
import { pathToFileURL } from 'node:url';
import { attr, encodeOnnxModel, OnnxDataType, type OnnxGraph } from '../models/onnx-writer.ts';

export function denseTopKGraph(): OnnxGraph {
  return {
    name: 'fliplab_dense_topk',
    inputs: [
      { name: 'queries', elemType: OnnxDataType.FLOAT, shape: ['q', 'dim'] },
      // Documents transposed, [dim, n]: MatMul on this layout takes onnxruntime-web's fast GEMM path (a
      // Gemm with transB = 1 on [n, dim] measured ~2× slower on WASM).
      { name: 'docs_t', elemType: OnnxDataType.FLOAT, shape: ['dim', 'n'] },
      { name: 'k', elemType: OnnxDataType.INT64, shape: [1] },
    ],
    outputs: [
      { name: 'values', elemType: OnnxDataType.FLOAT, shape: ['q', 'k_out'] },
      { name: 'indices', elemType: OnnxDataType.INT64, shape: ['q', 'k_out'] },
    ],
    initializers: [],
    nodes: [
      { opType: 'MatMul', name: 'scores', inputs: ['queries', 'docs_t'], outputs: ['scores'], attributes: {} },
      {
        opType: 'TopK',
        name: 'topk',
        inputs: ['scores', 'k'],
        outputs: ['values', 'indices'],
        attributes: { axis: attr.int(-1), largest: attr.int(1), sorted: attr.int(1) },
      },
    ],
  };
}

export function denseTopKModelBase64(): string {
  return Buffer.from(encodeOnnxModel(denseTopKGraph(), { producerName: 'fliplab', docString: 'exact dense top-k' })).toString('base64');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(denseTopKModelBase64());
