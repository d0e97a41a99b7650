/**
 * Pooling on the device: nodes appended to the model's graph so the session outputs one row per input and the
 * batch × tokens × width outputs never leave the device. For SPLADE that is [batch × vocabulary] weights instead
 * of 30,522 floats per token (on WebGPU, one vector per passage instead of hundreds of MB a batch); for a dense
 * encoder, its CLS or mean vector instead of every token's state (`densePoolingGraph`, 1/tokens of the readback).
 *
 * SPLADE's nodes compute what `spladePool` computes on the CPU, w_v = max over non-padding t of log(1 + ReLU(x_tv)),
 * in the order that keeps one full-size tensor: log1p and ReLU are non-decreasing, so the maximum can come first,
 * and padding is kept out of it by an offset rather than a product:
 *
 *   offset = (Cast(attention_mask → float) − 1) · 1e30   0 for real tokens, −1e30 for padding ([batch, tokens])
 *   m = ReduceMax(logits + offset, over tokens)         the one batch × tokens × vocabulary intermediate
 *   r = Relu(Cast(m → float)); u = 1 + r; d = u − 1
 *   pooled = Where(d = 0, r, Log(u) · r / d)            log1p(r) to float precision (Kahan's identity; Log(1 + r)
 *                                                       alone loses the small weights' digits)
 *
 * The offset takes the logits' type by CastLike (opset 15 on), so fp16 models stay in fp16 until the maximum;
 * before opset 15 the logits are cast to float first.
 *
 * Appended without decoding the model: a protobuf message read twice is merged, repeated fields concatenated,
 * so `model bytes + (field 7: a GraphProto holding only the new nodes, two initializers and the new output)`
 * is the model with those nodes added. Only the model's opset is read (top-level field 8), to write Unsqueeze
 * and ReduceMax in the form that opset defines (axes as an input from opsets 13 and 18).
 */

import { onnxOpset, Writer } from './onnx-proto.ts';

/** The pooled output's name (never a name a transformers.js export uses). */
export const SPLADE_POOLED_OUTPUT = 'fliplab_splade_pooled';
const P = 'fliplab_splade_';

// ---------------------------------------------------------------------------------------------------------
// The appended graph.

const FLOAT = 1;
const INT64 = 7;

type Attribute = { readonly name: string; readonly int?: number; readonly ints?: readonly number[] };

function node(w: Writer, op: string, inputs: readonly string[], outputs: readonly string[], attributes: readonly Attribute[] = []): void {
  // NodeProto: input 1, output 2, name 3, op_type 4, attribute 5
  w.message(1, (n) => {
    for (const i of inputs) n.string(1, i);
    for (const o of outputs) n.string(2, o);
    n.string(3, `fliplab_node_${outputs[0]}`);
    n.string(4, op);
    for (const a of attributes) {
      // AttributeProto: name 1, i 3, ints 8, type 20 (INT = 2, INTS = 7)
      n.message(5, (x) => {
        x.string(1, a.name);
        if (a.int !== undefined) x.int(3, a.int).int(20, 2);
        else {
          for (const v of a.ints ?? []) x.int(8, v);
          x.int(20, 7);
        }
      });
    }
  });
}

function initializer(w: Writer, name: string, dataType: number, dims: readonly number[], raw: Uint8Array): void {
  // TensorProto: dims 1, data_type 2, name 8, raw_data 9
  w.message(5, (t) => {
    for (const d of dims) t.int(1, d);
    t.int(2, dataType);
    t.string(8, name);
    t.bytes(9, raw);
  });
}

/**
 * Unsqueeze, ReduceSum or ReduceMax over one axis in the form `opset` defines: the axes as an INT64 input (an
 * initializer `<prefix>axis<n>`, written once per graph) from opset 13 (ReduceMax: 18), an attribute before.
 */
function axisOps(g: Writer, opset: number, prefix: string) {
  const made = new Set<number>();
  const axesInput = (axis: number): string => {
    const name = `${prefix}axis${axis}`;
    if (!made.has(axis)) initializer(g, name, INT64, [1], new Uint8Array(new BigInt64Array([BigInt(axis)]).buffer));
    made.add(axis);
    return name;
  };
  return (op: 'Unsqueeze' | 'ReduceSum' | 'ReduceMax', input: string, output: string, axis: number, keepdims?: 0 | 1): void => {
    const keep: Attribute[] = keepdims === undefined ? [] : [{ name: 'keepdims', int: keepdims }];
    if (opset >= (op === 'ReduceMax' ? 18 : 13)) node(g, op, [input, axesInput(axis)], [output], keep);
    else node(g, op, [input], [output], [{ name: 'axes', ints: [axis] }, ...keep]);
  };
}

/**
 * The bytes to append to a masked-LM model (output `logits`, input `attention_mask`) so that it also outputs
 * SPLADE's pooled weights as `SPLADE_POOLED_OUTPUT` (float32, [batch, vocabulary]). `opset` is the model's.
 */
export function spladePoolingGraph(opset: number, logits = 'logits', attentionMask = 'attention_mask'): Uint8Array {
  const n = (s: string) => `${P}${s}`;
  const w = new Writer();
  w.message(7, (g) => {
    const float = (x: number) => new Uint8Array(new Float32Array([x]).buffer);
    initializer(g, n('one'), FLOAT, [], float(1));
    initializer(g, n('zero'), FLOAT, [], float(0));
    initializer(g, n('big'), FLOAT, [], float(1e30));
    // padding offset, [batch, tokens, 1]
    node(g, 'Cast', [attentionMask], [n('mask')], [{ name: 'to', int: FLOAT }]);
    node(g, 'Sub', [n('mask'), n('one')], [n('mask_minus_one')]);
    node(g, 'Mul', [n('mask_minus_one'), n('big')], [n('offset2')]);
    const overAxis = axisOps(g, opset, P);
    overAxis('Unsqueeze', n('offset2'), n('offset'), 2);
    // the maximum over real tokens, in the logits' own type where the opset allows
    let scores = logits;
    let offset = n('offset');
    if (opset >= 15) {
      node(g, 'CastLike', [n('offset'), logits], [n('offset_like')]);
      offset = n('offset_like');
    } else {
      node(g, 'Cast', [logits], [n('logits_float')], [{ name: 'to', int: FLOAT }]);
      scores = n('logits_float');
    }
    node(g, 'Add', [scores, offset], [n('masked')]);
    overAxis('ReduceMax', n('masked'), n('max'), 1, 0);
    // log1p(ReLU(max)) on [batch, vocabulary]
    node(g, 'Cast', [n('max')], [n('x')], [{ name: 'to', int: FLOAT }]);
    node(g, 'Relu', [n('x')], [n('r')]);
    node(g, 'Add', [n('r'), n('one')], [n('u')]);
    node(g, 'Sub', [n('u'), n('one')], [n('d')]);
    node(g, 'Log', [n('u')], [n('log_u')]);
    node(g, 'Mul', [n('log_u'), n('r')], [n('log_u_r')]);
    node(g, 'Div', [n('log_u_r'), n('d')], [n('kahan')]);
    node(g, 'Equal', [n('d'), n('zero')], [n('tiny')]);
    node(g, 'Where', [n('tiny'), n('r'), n('kahan')], [SPLADE_POOLED_OUTPUT]);
    // ValueInfoProto: name 1, type 2 → TypeProto.tensor_type 1 → elem_type 1
    g.message(12, (v) => {
      v.string(1, SPLADE_POOLED_OUTPUT);
      v.message(2, (t) => t.message(1, (tt) => tt.int(1, FLOAT)));
    });
  });
  return w.finish();
}

/** The dense pooled output's name: float32 [batch, hidden]. */
export const DENSE_POOLED_OUTPUT = 'fliplab_dense_pooled';

/**
 * The bytes to append to an encoder (output `last_hidden_state` [batch, tokens, hidden], input
 * `attention_mask`) so that it also outputs its pooled vectors as `DENSE_POOLED_OUTPUT` (float32, [batch,
 * hidden]), as `clsPool` / `meanPool` compute them:
 *
 *   cls    Gather(token 0)
 *   mean   ReduceSum(h · mask over tokens) / max(ReduceSum(mask), 1)   (a text with no token is 0, as meanPool's)
 *
 * in float (an fp16 model's CLS row is cast after the Gather, its states before the mean's sums). Axes are
 * inputs from opset 13 (Unsqueeze, ReduceSum).
 */
export function densePoolingGraph(
  opset: number,
  mode: 'cls' | 'mean',
  hidden = 'last_hidden_state',
  attentionMask = 'attention_mask',
): Uint8Array {
  const n = (s: string) => `fliplab_dense_${s}`;
  const w = new Writer();
  w.message(7, (g) => {
    if (mode === 'cls') {
      // the first token's states, then float: an fp16 model's [batch, tokens, hidden] is never cast whole
      initializer(g, n('first'), INT64, [], new Uint8Array(new BigInt64Array([0n]).buffer));
      node(g, 'Gather', [hidden, n('first')], [n('cls')], [{ name: 'axis', int: 1 }]);
      node(g, 'Cast', [n('cls')], [DENSE_POOLED_OUTPUT], [{ name: 'to', int: FLOAT }]);
    } else {
      node(g, 'Cast', [hidden], [n('h')], [{ name: 'to', int: FLOAT }]);
      initializer(g, n('one'), FLOAT, [], new Uint8Array(new Float32Array([1]).buffer));
      node(g, 'Cast', [attentionMask], [n('mask')], [{ name: 'to', int: FLOAT }]);
      const overAxis = axisOps(g, opset, 'fliplab_dense_');
      overAxis('Unsqueeze', n('mask'), n('mask3'), 2);
      node(g, 'Mul', [n('h'), n('mask3')], [n('masked')]);
      overAxis('ReduceSum', n('masked'), n('sum'), 1, 0);
      overAxis('ReduceSum', n('mask'), n('count'), 1, 1);
      node(g, 'Max', [n('count'), n('one')], [n('divisor')]);
      node(g, 'Div', [n('sum'), n('divisor')], [DENSE_POOLED_OUTPUT]);
    }
    g.message(12, (v) => {
      v.string(1, DENSE_POOLED_OUTPUT);
      v.message(2, (t) => t.message(1, (tt) => tt.int(1, FLOAT)));
    });
  });
  return w.finish();
}

/** What a session can pool in its own graph: SPLADE's max, or a dense encoder's CLS or mean. */
export type SessionPooling = 'splade' | 'cls' | 'mean';

/** The output a session pooled as `pooling` is read from. */
export const pooledOutput = (pooling: SessionPooling): string => (pooling === 'splade' ? SPLADE_POOLED_OUTPUT : DENSE_POOLED_OUTPUT);

/**
 * The model with its pooling appended (a new buffer: the model's bytes, then the graph fragment), or null when
 * the model declares no default-domain opset (not an ONNX model this can extend).
 */
export function appendPooling(model: Uint8Array, pooling: SessionPooling): Uint8Array | null {
  const opset = onnxOpset(model);
  if (opset === null) return null;
  const tail = pooling === 'splade' ? spladePoolingGraph(opset) : densePoolingGraph(opset, pooling);
  const out = new Uint8Array(model.length + tail.length);
  out.set(model, 0);
  out.set(tail, model.length);
  return out;
}
