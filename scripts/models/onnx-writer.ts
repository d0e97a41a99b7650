/**
 * A minimal ONNX ModelProto writer: the subset of onnx.proto3 needed to serialise an inference graph of
 * standard-domain operators with dense initializers, defined inline for protobufjs (no .proto download).
 *
 * Field numbers follow https://github.com/onnx/onnx/blob/main/onnx/onnx.proto3 (ONNX 1.14, IR version 8).
 * Initializers are written as `raw_data` (little-endian bytes, as the spec requires) and referenced, not
 * copied, by {@link encodeOnnxModelChunks}: a BERT-base-sized model is written from the one copy of its
 * weights already in memory.
 */
import protobuf from 'protobufjs';

/** ONNX `TensorProto.DataType` codes used here. */
export const OnnxDataType = { FLOAT: 1, INT8: 3, INT32: 6, INT64: 7, FLOAT16: 10 } as const;
export type OnnxDataType = (typeof OnnxDataType)[keyof typeof OnnxDataType];

export const ONNX_IR_VERSION = 8;
export const ONNX_OPSET = 17;

/** A dimension is fixed (number) or symbolic (a `dim_param` name such as `'batch_size'`). */
export type OnnxDim = number | string;

export interface OnnxValueInfo {
  readonly name: string;
  readonly elemType: OnnxDataType;
  readonly shape: readonly OnnxDim[];
}

/** Tensor values; FLOAT16 tensors are their IEEE half-precision bit patterns (see fp16.ts). */
export type OnnxTensorData = Float32Array | Int8Array | Int32Array | BigInt64Array | Uint16Array;

export interface OnnxInitializer {
  readonly name: string;
  readonly dataType: OnnxDataType;
  readonly dims: readonly number[];
  readonly data: OnnxTensorData;
}

export type OnnxAttribute =
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'int'; readonly value: number }
  | { readonly kind: 'ints'; readonly value: readonly number[] }
  | { readonly kind: 'floats'; readonly value: readonly number[] }
  | { readonly kind: 'string'; readonly value: string };

export interface OnnxNode {
  readonly opType: string;
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attributes: Readonly<Record<string, OnnxAttribute>>;
}

export interface OnnxGraph {
  readonly name: string;
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
  readonly initializers: readonly OnnxInitializer[];
  readonly nodes: readonly OnnxNode[];
}

export interface OnnxModelMeta {
  readonly producerName?: string;
  readonly producerVersion?: string;
  readonly docString?: string;
}

/** Attribute constructors, so a call site reads `attr.int(-1)` rather than a bare number of unclear kind. */
export const attr = {
  float: (value: number): OnnxAttribute => ({ kind: 'float', value }),
  int: (value: number): OnnxAttribute => ({ kind: 'int', value }),
  ints: (value: readonly number[]): OnnxAttribute => ({ kind: 'ints', value }),
  floats: (value: readonly number[]): OnnxAttribute => ({ kind: 'floats', value }),
  string: (value: string): OnnxAttribute => ({ kind: 'string', value }),
};

// AttributeProto.AttributeType codes.
const ATTRIBUTE_TYPE = { float: 1, int: 2, string: 3, floats: 6, ints: 7 } as const;

const PACKED = { packed: true };

/** The onnx.proto3 subset, as a protobufjs JSON descriptor. */
const ONNX_DESCRIPTOR = {
  nested: {
    onnx: {
      nested: {
        ModelProto: {
          fields: {
            irVersion: { type: 'int64', id: 1 },
            opsetImport: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 },
            producerName: { type: 'string', id: 2 },
            producerVersion: { type: 'string', id: 3 },
            domain: { type: 'string', id: 4 },
            modelVersion: { type: 'int64', id: 5 },
            docString: { type: 'string', id: 6 },
            graph: { type: 'GraphProto', id: 7 },
          },
        },
        OperatorSetIdProto: {
          fields: { domain: { type: 'string', id: 1 }, version: { type: 'int64', id: 2 } },
        },
        GraphProto: {
          fields: {
            node: { rule: 'repeated', type: 'NodeProto', id: 1 },
            name: { type: 'string', id: 2 },
            initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
            docString: { type: 'string', id: 10 },
            input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
            output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
            valueInfo: { rule: 'repeated', type: 'ValueInfoProto', id: 13 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: 'repeated', type: 'string', id: 1 },
            output: { rule: 'repeated', type: 'string', id: 2 },
            name: { type: 'string', id: 3 },
            opType: { type: 'string', id: 4 },
            attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
            docString: { type: 'string', id: 6 },
            domain: { type: 'string', id: 7 },
          },
        },
        AttributeProto: {
          fields: {
            name: { type: 'string', id: 1 },
            f: { type: 'float', id: 2 },
            i: { type: 'int64', id: 3 },
            s: { type: 'bytes', id: 4 },
            t: { type: 'TensorProto', id: 5 },
            g: { type: 'GraphProto', id: 6 },
            floats: { rule: 'repeated', type: 'float', id: 7, options: PACKED },
            ints: { rule: 'repeated', type: 'int64', id: 8, options: PACKED },
            strings: { rule: 'repeated', type: 'bytes', id: 9 },
            docString: { type: 'string', id: 13 },
            type: { type: 'int32', id: 20 },
            refAttrName: { type: 'string', id: 21 },
          },
        },
        ValueInfoProto: {
          fields: {
            name: { type: 'string', id: 1 },
            type: { type: 'TypeProto', id: 2 },
            docString: { type: 'string', id: 3 },
          },
        },
        TypeProto: {
          fields: {
            tensorType: { type: 'Tensor', id: 1 },
            denotation: { type: 'string', id: 6 },
          },
          nested: {
            Tensor: {
              fields: {
                elemType: { type: 'int32', id: 1 },
                shape: { type: 'TensorShapeProto', id: 2 },
              },
            },
          },
        },
        TensorShapeProto: {
          fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } },
          nested: {
            Dimension: {
              oneofs: { value: { oneof: ['dimValue', 'dimParam'] } },
              fields: {
                dimValue: { type: 'int64', id: 1 },
                dimParam: { type: 'string', id: 2 },
                denotation: { type: 'string', id: 3 },
              },
            },
          },
        },
        TensorProto: {
          fields: {
            dims: { rule: 'repeated', type: 'int64', id: 1, options: PACKED },
            dataType: { type: 'int32', id: 2 },
            floatData: { rule: 'repeated', type: 'float', id: 4, options: PACKED },
            int32Data: { rule: 'repeated', type: 'int32', id: 5, options: PACKED },
            int64Data: { rule: 'repeated', type: 'int64', id: 7, options: PACKED },
            name: { type: 'string', id: 8 },
            rawData: { type: 'bytes', id: 9 },
            docString: { type: 'string', id: 12 },
          },
        },
      },
    },
  },
};

let modelType: protobuf.Type | undefined;

function modelProtoType(): protobuf.Type {
  modelType ??= protobuf.Root.fromJSON(ONNX_DESCRIPTOR).lookupType('onnx.ModelProto');
  return modelType;
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The tensor's bytes, little-endian as `raw_data` requires; a view, not a copy, on little-endian hosts. */
function rawBytes(data: OnnxTensorData): Uint8Array {
  if (!LITTLE_ENDIAN_HOST) throw new Error('onnx-writer: big-endian hosts are not supported');
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function valueInfoMessage(v: OnnxValueInfo): object {
  return {
    name: v.name,
    type: {
      tensorType: {
        elemType: v.elemType,
        shape: { dim: v.shape.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

function attributeMessage(name: string, a: OnnxAttribute): object {
  const type = ATTRIBUTE_TYPE[a.kind];
  switch (a.kind) {
    case 'float':
      return { name, type, f: a.value };
    case 'int':
      return { name, type, i: a.value };
    case 'ints':
      return { name, type, ints: [...a.value] };
    case 'floats':
      return { name, type, floats: [...a.value] };
    case 'string':
      return { name, type, s: new TextEncoder().encode(a.value) };
  }
}

const ARRAY_BY_TYPE = {
  [OnnxDataType.FLOAT]: Float32Array,
  [OnnxDataType.INT8]: Int8Array,
  [OnnxDataType.INT32]: Int32Array,
  [OnnxDataType.INT64]: BigInt64Array,
  [OnnxDataType.FLOAT16]: Uint16Array,
} as const;

function checkInitializer(t: OnnxInitializer): void {
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (count !== t.data.length) {
    throw new Error(`onnx-writer: initializer ${t.name} has dims [${t.dims.join(', ')}] but ${t.data.length} values`);
  }
  const expected = ARRAY_BY_TYPE[t.dataType];
  if (!(t.data instanceof expected)) throw new Error(`onnx-writer: initializer ${t.name} data does not match its type`);
}

// Wire-format tags (field number << 3 | wire type 2, length-delimited) written by hand below.
const TAG_MODEL_GRAPH = (7 << 3) | 2;
const TAG_GRAPH_INITIALIZER = (5 << 3) | 2;
const TAG_TENSOR_RAW_DATA = (9 << 3) | 2;

function varint(value: number): Uint8Array {
  const bytes: number[] = [];
  let v = value;
  while (v >= 0x80) {
    bytes.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  bytes.push(v);
  return Uint8Array.from(bytes);
}

const byteLength = (chunks: readonly Uint8Array[]): number => chunks.reduce((n, c) => n + c.byteLength, 0);

/** A length-delimited field: tag, length, then the chunks (not copied). */
function delimited(tag: number, chunks: readonly Uint8Array[]): Uint8Array[] {
  return [Uint8Array.of(tag), varint(byteLength(chunks)), ...chunks];
}

function messageType(name: string): protobuf.Type {
  return modelProtoType().root.lookupType(`onnx.${name}`);
}

/**
 * Serialise a graph as an ONNX model (IR version 8, default-domain opset 17), as a list of byte chunks
 * whose concatenation is the file. Tensor bytes are referenced, not copied, so a 440 MB model is written
 * without a second 440 MB buffer (protobufjs would copy every `bytes` field into a growing buffer).
 *
 * The small messages are encoded by protobufjs; only the three length-delimited fields that carry the
 * weights (ModelProto.graph, GraphProto.initializer, TensorProto.raw_data) are framed here. Fields come in
 * field-number order, as protobuf's own serialisers write them. Deterministic: the same graph gives the
 * same bytes (attributes are sorted by name).
 */
export function encodeOnnxModelChunks(graph: OnnxGraph, meta: OnnxModelMeta = {}): Uint8Array[] {
  for (const t of graph.initializers) checkInitializer(t);
  const Model = messageType('ModelProto');
  const Graph = messageType('GraphProto');
  const Tensor = messageType('TensorProto');

  // ModelProto fields 1–6, then graph (7), then opset_import (8).
  const modelHead = Model.encode({
    irVersion: ONNX_IR_VERSION,
    producerName: meta.producerName ?? 'fliplab-onnx-writer',
    producerVersion: meta.producerVersion ?? '1',
    docString: meta.docString ?? '',
  }).finish();
  const modelTail = Model.encode({ opsetImport: [{ domain: '', version: ONNX_OPSET }] }).finish();

  // GraphProto fields node (1) and name (2), then initializer (5), then input (11) and output (12).
  const graphHead = Graph.encode({
    name: graph.name,
    node: graph.nodes.map((n) => ({
      name: n.name,
      opType: n.opType,
      domain: '',
      input: [...n.inputs],
      output: [...n.outputs],
      attribute: Object.keys(n.attributes)
        .sort()
        .map((k) => attributeMessage(k, n.attributes[k] as OnnxAttribute)),
    })),
  }).finish();
  const initializers = graph.initializers.flatMap((t) => {
    const header = Tensor.encode({ dims: [...t.dims], dataType: t.dataType, name: t.name }).finish();
    return delimited(TAG_GRAPH_INITIALIZER, [header, ...delimited(TAG_TENSOR_RAW_DATA, [rawBytes(t.data)])]);
  });
  const graphTail = Graph.encode({
    input: graph.inputs.map(valueInfoMessage),
    output: graph.outputs.map(valueInfoMessage),
  }).finish();

  return [modelHead, ...delimited(TAG_MODEL_GRAPH, [graphHead, ...initializers, graphTail]), modelTail];
}

/** {@link encodeOnnxModelChunks}, concatenated into one buffer. */
export function encodeOnnxModel(graph: OnnxGraph, meta: OnnxModelMeta = {}): Uint8Array {
  const chunks = encodeOnnxModelChunks(graph, meta);
  const out = new Uint8Array(byteLength(chunks));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/** Decode a model written by {@link encodeOnnxModel} (or any ONNX model) into plain objects, for inspection in tests. */
export function decodeOnnxModel(bytes: Uint8Array): Record<string, unknown> {
  const type = modelProtoType();
  return type.toObject(type.decode(bytes), { longs: Number, bytes: Array, defaults: false });
}

/**
 * Accumulates nodes and initializers with unique, deterministic names. Node outputs are named
 * `<prefix>/<op>_<n>` unless given.
 */
export class OnnxGraphBuilder {
  readonly inputs: OnnxValueInfo[] = [];
  readonly outputs: OnnxValueInfo[] = [];
  readonly initializers: OnnxInitializer[] = [];
  readonly nodes: OnnxNode[] = [];
  private readonly names = new Set<string>();
  private counter = 0;

  constructor(readonly name: string) {}

  private claim(name: string): string {
    if (this.names.has(name)) throw new Error(`onnx-writer: duplicate value name ${name}`);
    this.names.add(name);
    return name;
  }

  input(name: string, elemType: OnnxDataType, shape: readonly OnnxDim[]): string {
    this.inputs.push({ name: this.claim(name), elemType, shape });
    return name;
  }

  /** Declare an existing value (a node output named with {@link node}'s `output`) as a graph output. */
  output(name: string, elemType: OnnxDataType, shape: readonly OnnxDim[]): void {
    if (!this.names.has(name)) throw new Error(`onnx-writer: output ${name} is not a value of the graph`);
    this.outputs.push({ name, elemType, shape });
  }

  initializer(name: string, dataType: OnnxDataType, dims: readonly number[], data: OnnxTensorData): string {
    this.initializers.push({ name: this.claim(name), dataType, dims, data });
    return name;
  }

  float(name: string, dims: readonly number[], data: Float32Array): string {
    return this.initializer(name, OnnxDataType.FLOAT, dims, data);
  }

  /** A float32 scalar constant (rank 0). */
  scalar(name: string, value: number): string {
    return this.initializer(name, OnnxDataType.FLOAT, [], new Float32Array([value]));
  }

  /** A 1-D int64 constant, e.g. a shape or an axes list. */
  int64s(name: string, values: readonly number[]): string {
    return this.initializer(name, OnnxDataType.INT64, [values.length], BigInt64Array.from(values.map(BigInt)));
  }

  /** Add a node with one output; returns the output's name. */
  node(opType: string, inputs: readonly string[], attributes: Record<string, OnnxAttribute> = {}, output?: string): string {
    const n = this.counter++;
    const out = this.claim(output ?? `${opType.toLowerCase()}_${n}`);
    this.nodes.push({ opType, name: `${opType}_${n}`, inputs, outputs: [out], attributes });
    return out;
  }

  graph(): OnnxGraph {
    return {
      name: this.name,
      inputs: this.inputs,
      outputs: this.outputs,
      initializers: this.initializers,
      nodes: this.nodes,
    };
  }
}
