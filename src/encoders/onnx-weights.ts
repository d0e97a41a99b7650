/**
 * A model's weights handed to ONNX Runtime without a second copy in JavaScript.
 *
 * onnxruntime-web copies a model given as bytes into its wasm heap, whole, and parses it there: the fetched
 * file (in JavaScript) and its copy (in the heap) coexist while the session is made, and the heap, which
 * never shrinks, keeps room for the parse too. A 1.3 GB model then needs several times its size.
 *
 * Given the weights as *external data*, the runtime does better: it copies each initializer from the
 * JavaScript buffer straight into the tensor that holds it (in the heap on WASM; uploaded to its GPU buffer
 * on WebGPU), and parses only the graph. So the graph is rewritten here to point at the bytes it already has:
 * every initializer whose `raw_data` is at least `MIN_EXTERNAL_BYTES` becomes a reference `location =
 * WEIGHTS_FILE, offset, length` into the *original* file, and the original file is mounted under that name.
 * Nothing is copied but the graph without its weights (kilobytes to a few MB).
 *
 * Tensors already external (a hub model's `model.onnx_data`) and inline small ones (shapes, scalars) stay as
 * they are; so do initializers of subgraphs and training info, which these encoders do not have.
 */
import { fields, Writer, type ByteSource, type Field } from './onnx-proto.ts';

/** The name the original model file is mounted under as external data (never a hub file's name). */
export const WEIGHTS_FILE = 'fliplab-model-weights.bin';

/** Initializers smaller than this stay in the graph (onnx's own `convert_model_to_external_data` threshold). */
export const MIN_EXTERNAL_BYTES = 1024;

export interface ExternalizedModel {
  /** The model without the moved weights' bytes. */
  readonly graph: Uint8Array;
  /** The external data to mount as `WEIGHTS_FILE`: the original model's bytes, not a copy. */
  readonly weights: Uint8Array;
  /** Initializers moved, and their bytes. */
  readonly tensors: number;
  readonly bytes: number;
}

// ModelProto.graph, GraphProto.initializer, TensorProto.{raw_data, external_data, data_location}
const MODEL_GRAPH = 7;
const GRAPH_INITIALIZER = 5;
const TENSOR_RAW_DATA = 9;
const TENSOR_EXTERNAL_DATA = 13;
const TENSOR_DATA_LOCATION = 14;
const EXTERNAL = 1;

/**
 * The model with its large initializers pointing into its own bytes (see above), or null when none is large
 * enough to move. Throws on bytes that are not a protobuf message (the caller lets the runtime say why).
 */
export function externalizeWeights(model: Uint8Array, minBytes = MIN_EXTERNAL_BYTES): ExternalizedModel | null {
  const graph = externalizeGraph(model, { minBytes, location: WEIGHTS_FILE });
  return graph === null ? null : { ...graph, weights: model };
}

/** A model's graph with its weights as references into the model file (`externalizeGraph`). */
export interface ExternalizedGraph {
  readonly graph: Uint8Array;
  readonly tensors: number;
  readonly bytes: number;
}

/**
 * The model read from `model` with every initializer of at least `minBytes` of `raw_data` turned into a
 * reference to the same bytes in the file mounted as `location`. Only the graph's structure is read: the
 * weights themselves never are, so `model` can be a file that is not in memory (`ByteSource`). Null when no
 * initializer moves.
 */
export function externalizeGraph(
  model: Uint8Array | ByteSource,
  options: { readonly minBytes?: number; readonly location: string },
): ExternalizedGraph | null {
  const minBytes = options.minBytes ?? MIN_EXTERNAL_BYTES;
  const read = (from: number, end: number) => (model instanceof Uint8Array ? model.subarray(from, end) : model.read(from, end));
  let tensors = 0;
  let bytes = 0;
  const out = new Writer();
  for (const f of fields(model)) {
    if (f.field !== MODEL_GRAPH || f.wire !== 2) {
      out.raw(read(f.from, f.end));
      continue;
    }
    const graph = new Writer();
    for (const g of fields(model, f.start, f.end)) {
      const raw = g.field === GRAPH_INITIALIZER && g.wire === 2 ? movableRawData(model, g, minBytes) : null;
      if (raw === null) {
        graph.raw(read(g.from, g.end));
        continue;
      }
      graph.message(GRAPH_INITIALIZER, (t) => {
        for (const x of fields(model, g.start, g.end)) if (x.from !== raw.from) t.raw(read(x.from, x.end));
        const entry = (key: string, value: string) =>
          t.message(TENSOR_EXTERNAL_DATA, (e) => {
            e.string(1, key).string(2, value);
          });
        entry('location', options.location);
        entry('offset', String(raw.start));
        entry('length', String(raw.end - raw.start));
        t.int(TENSOR_DATA_LOCATION, EXTERNAL);
      });
      tensors++;
      bytes += raw.end - raw.start;
    }
    out.bytes(MODEL_GRAPH, graph.finish());
  }
  return tensors === 0 ? null : { graph: out.finish(), tensors, bytes };
}

/** The initializer's `raw_data` field when it holds its values inline and is large enough to move. */
function movableRawData(model: Uint8Array | ByteSource, tensor: Field, minBytes: number): Field | null {
  let raw: Field | null = null;
  for (const x of fields(model, tensor.start, tensor.end)) {
    if (x.field === TENSOR_EXTERNAL_DATA || (x.field === TENSOR_DATA_LOCATION && x.varint === BigInt(EXTERNAL))) return null;
    if (x.field === TENSOR_RAW_DATA && x.wire === 2) raw = x;
  }
  return raw !== null && raw.end - raw.start >= minBytes ? raw : null;
}
