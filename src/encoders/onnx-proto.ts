/**
 * Just enough protobuf to edit an ONNX model's bytes without decoding its graph: walk a message's fields
 * (`fields`), copy the ones left alone verbatim, and write new ones (`Writer`). A model of 1.3 GB is mostly
 * its weights' `raw_data`; whatever is copied here is the rest (nodes, names, shapes): kilobytes to a few MB.
 */

/** One field of a message: its number, wire type, and where it sits (`from`: its tag; `start`–`end`: its value). */
export interface Field {
  readonly field: number;
  readonly wire: number;
  readonly from: number;
  readonly start: number;
  readonly end: number;
  /** The value of a varint field (wire type 0). */
  readonly varint?: bigint;
}

/**
 * Bytes read a range at a time: a model that is not in memory (a cached file's Blob, read synchronously in a
 * worker). `read` may return a view or a copy; callers keep what they need.
 */
export interface ByteSource {
  readonly length: number;
  read(start: number, end: number): Uint8Array;
}

/**
 * The fields of the message in `bytes[start, end)`, in order. Throws on bytes that are not a message. Only
 * tags, lengths and varints are read: a length-delimited value (a weight's `raw_data`, say) is skipped.
 */
export function* fields(bytes: Uint8Array | ByteSource, start = 0, end = bytes.length): Generator<Field> {
  const at: (p: number) => number = bytes instanceof Uint8Array ? (p) => bytes[p]! : byteReader(bytes);
  let pos = start;
  const varint = (): bigint => {
    let shift = 0n;
    let out = 0n;
    for (;;) {
      if (pos >= end) throw new Error('not an ONNX model: the file ends inside a field');
      const b = at(pos++);
      out |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return out;
      shift += 7n;
    }
  };
  while (pos < end) {
    const from = pos;
    const key = Number(varint());
    const field = key >>> 3;
    const wire = key & 7;
    if (wire === 0) {
      const value = varint();
      yield { field, wire, from, start: from, end: pos, varint: value };
      continue;
    }
    let length: number;
    if (wire === 1) length = 8;
    else if (wire === 5) length = 4;
    else if (wire === 2) length = Number(varint());
    else throw new Error(`not an ONNX model: wire type ${wire}`);
    const valueStart = pos;
    pos += length;
    if (pos > end) throw new Error('not an ONNX model: a field runs past the end of the file');
    yield { field, wire, from, start: valueStart, end: pos };
  }
}

/** One byte at a time from a source, through a small window (tags and lengths sit close together). */
function byteReader(source: ByteSource, window = 4096): (p: number) => number {
  let base = 0;
  let buf: Uint8Array = new Uint8Array(0);
  return (p) => {
    if (p < base || p >= base + buf.length) {
      base = p;
      buf = source.read(p, Math.min(source.length, p + window));
    }
    return buf[p - base]!;
  };
}

/** A UTF-8 string field's value. */
export const text = (bytes: Uint8Array, f: Field): string => new TextDecoder().decode(bytes.subarray(f.start, f.end));

/**
 * A protobuf writer. Large byte runs (`raw`, `bytes`) are kept as views, not copied, until `finish`.
 */
export class Writer {
  readonly #chunks: Uint8Array[] = [];
  #small: number[] = [];
  #length = 0;

  get length(): number {
    return this.#length;
  }

  #flush(): void {
    if (this.#small.length === 0) return;
    this.#chunks.push(Uint8Array.from(this.#small));
    this.#small = [];
  }

  varint(v: number | bigint): this {
    let x = BigInt.asUintN(64, BigInt(v));
    while (x >= 0x80n) {
      this.#small.push(Number(x & 0x7fn) | 0x80);
      this.#length++;
      x >>= 7n;
    }
    this.#small.push(Number(x));
    this.#length++;
    return this;
  }

  tag(field: number, wire: 0 | 2 | 5): this {
    return this.varint((field << 3) | wire);
  }

  int(field: number, v: number | bigint): this {
    return this.tag(field, 0).varint(v);
  }

  /** Bytes written as they are (a field copied verbatim, say). */
  raw(b: Uint8Array): this {
    if (b.length < 256) for (const x of b) this.#small.push(x);
    else {
      this.#flush();
      this.#chunks.push(b);
    }
    this.#length += b.length;
    return this;
  }

  bytes(field: number, b: Uint8Array): this {
    return this.tag(field, 2).varint(b.length).raw(b);
  }

  string(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s));
  }

  message(field: number, build: (w: Writer) => void): this {
    const inner = new Writer();
    build(inner);
    return this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    this.#flush();
    if (this.#chunks.length === 1) return this.#chunks[0]!;
    const out = new Uint8Array(this.#length);
    let at = 0;
    for (const c of this.#chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

/** The default-domain opset of an ONNX model (its top-level `opset_import`), or null when it declares none. */
export function onnxOpset(model: Uint8Array): number | null {
  let opset: number | null = null;
  for (const f of fields(model)) {
    if (f.field !== 8 || f.wire !== 2) continue;
    // OperatorSetIdProto: domain (1, string), version (2, int64)
    let domain = '';
    let version: number | null = null;
    for (const g of fields(model, f.start, f.end)) {
      if (g.field === 1 && g.wire === 2) domain = text(model, g);
      else if (g.field === 2 && g.wire === 0) version = Number(g.varint);
      else throw new Error('not an ONNX model: an unexpected field in opset_import');
    }
    if ((domain === '' || domain === 'ai.onnx') && version !== null) opset = version;
  }
  return opset;
}
