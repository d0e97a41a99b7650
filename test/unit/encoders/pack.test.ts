/**
 * Vector packs: what is written is read back bit for bit (dense float32, sparse CSR), float16 rounds to the
 * nearest half like IEEE 754 says (against an oracle that searches every half), and every kind of bad pack
 * the issue names is refused with the file and what differs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/core/sha256.ts';
import { textKeys } from '../../../src/encoders/identity.ts';
import {
  fromFloat16,
  matchPack,
  MANIFEST,
  readPack,
  recipeDifference,
  toFloat16,
  unzipPack,
  writePack,
  zipPack,
  type PackPart,
} from '../../../src/encoders/pack.ts';
import type { StoredVector } from '../../../src/encoders/pooling.ts';
import { PRESETS, type EncoderConfig } from '../../../src/encoders/presets.ts';

const DENSE: EncoderConfig = { ...PRESETS['bge-small'], model: 'org/dense', revision: 'abc123' };
const SPARSE: EncoderConfig = { ...PRESETS.splade, model: 'org/splade' };

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}

async function part(prefix: string, n: number, vector: (i: number) => StoredVector): Promise<PackPart> {
  const ids = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const texts = ids.map((id) => `text of ${id}`);
  return { ids, textKeys: await textKeys(texts), vectors: ids.map((_, i) => vector(i)) };
}

const dense = (dim: number, seed: number) => (i: number) => {
  const r = rng(seed + i);
  return { dense: Float32Array.from({ length: dim }, r), tokens: 3 + i };
};

const sparse = (seed: number) => (i: number) => {
  const r = rng(seed + i);
  const indices = Uint32Array.from(new Set(Array.from({ length: 6 }, () => Math.floor((r() + 1) * 500)))).sort();
  return { sparse: { indices, values: Float32Array.from(indices, () => Math.abs(r()) + 0.01) }, tokens: i };
};

async function densePack(valueType: 'float32' | 'float16' = 'float32') {
  const passages = await part('d', 5, dense(8, 1));
  const queries = await part('q', 3, dense(8, 100));
  const files = await writePack({ config: DENSE, device: 'cuda', tool: 'test', passages, queries, valueType });
  return { passages, queries, files };
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const bytes = (s: string) => new TextEncoder().encode(s);

function editManifest(files: Map<string, Uint8Array>, edit: (m: Record<string, unknown>) => void): Map<string, Uint8Array> {
  const m = JSON.parse(text(files.get(MANIFEST)!)) as Record<string, unknown>;
  edit(m);
  return new Map(files).set(MANIFEST, bytes(JSON.stringify(m)));
}

describe('vector packs: round trip', () => {
  it('dense float32: ids, text keys, tokens and every bit come back; the manifest names recipe, counts and keys', async () => {
    const { passages, queries, files } = await densePack();
    expect([...files.keys()].sort()).toEqual([MANIFEST, 'passages.f32', 'passages.tsv', 'queries.f32', 'queries.tsv']);
    expect(files.get('passages.f32')!.byteLength).toBe(5 * 8 * 4);
    const pack = await readPack(files, 'p');
    expect(pack.manifest).toMatchObject({ kind: 'dense', dim: 8, valueType: 'float32', device: 'cuda' });
    expect(pack.manifest.encoder).toEqual({
      model: 'org/dense',
      revision: 'abc123',
      dtype: 'fp32',
      pooling: 'cls',
      normalize: true,
      queryPrefix: DENSE.queryPrefix,
      passagePrefix: '',
      maxLength: 512,
      sparseTopK: null,
    });
    expect(pack.manifest.passages!.sha256).toBe(await sha256Hex(text(files.get('passages.tsv')!)));
    expect(pack.passages!.ids).toEqual(passages.ids);
    expect(pack.passages!.textKeys).toEqual(passages.textKeys);
    pack.passages!.vectors.forEach((v, i) => {
      expect(Array.from(v.dense!)).toEqual(Array.from(passages.vectors[i]!.dense!));
      expect(v.tokens).toBe(passages.vectors[i]!.tokens);
    });
    expect(Array.from(pack.queries!.vectors[2]!.dense!)).toEqual(Array.from(queries.vectors[2]!.dense!));
    // Each vector owns its buffer: IndexedDB and postMessage clone a view's whole buffer, not the view.
    expect(pack.passages!.vectors.map((v) => v.dense!.buffer.byteLength)).toEqual([32, 32, 32, 32, 32]);
  });

  it('sparse CSR: term ids and weights come back per row; dim is the vocabulary bound', async () => {
    const passages = await part('d', 7, sparse(5));
    const files = await writePack({ config: SPARSE, device: 'cpu', tool: 'test', passages, queries: null, vocabularySize: 30522 });
    expect([...files.keys()].sort()).toEqual([MANIFEST, 'passages.indices', 'passages.indptr', 'passages.tsv', 'passages.values.f32']);
    const pack = await readPack(files, 'p');
    expect(pack.manifest).toMatchObject({ kind: 'sparse', dim: 30522, queries: null });
    pack.passages!.vectors.forEach((v, i) => {
      expect(v.sparse!.values.buffer.byteLength).toBe(v.sparse!.values.byteLength);
      expect(Array.from(v.sparse!.indices)).toEqual(Array.from(passages.vectors[i]!.sparse!.indices));
      expect(Array.from(v.sparse!.values)).toEqual(Array.from(passages.vectors[i]!.sparse!.values));
    });
  });

  it('float16 halves the bytes and rounds each value to the nearest half', async () => {
    const { passages, files } = await densePack('float16');
    expect(files.get('passages.f16')!.byteLength).toBe(5 * 8 * 2);
    const pack = await readPack(files, 'p');
    pack.passages!.vectors.forEach((v, i) =>
      v.dense!.forEach((x, j) => expect(x).toBe(fromFloat16(toFloat16(passages.vectors[i]!.dense![j]!)))),
    );
  });

  it('zipped with or without a top folder, the same files come back', async () => {
    const { files } = await densePack();
    for (const zipped of [zipPack(files, 'my-pack'), zipPack(files, 'a/b')]) {
      const back = unzipPack(zipped, 'x.zip');
      expect([...back.keys()].sort()).toEqual([...files.keys()].sort());
      expect(Array.from(back.get('passages.f32')!)).toEqual(Array.from(files.get('passages.f32')!));
    }
  });
});

describe('float16 conversion', () => {
  const HALVES = Array.from({ length: 0x7c00 }, (_, h) => fromFloat16(h)); // every finite non-negative half

  /** The oracle: the nearest finite half by exhaustive search, ties to the even bit pattern. */
  function nearestHalf(x: number): number {
    const a = Math.abs(Math.fround(x));
    if (a >= 65520) return (x < 0 ? 0x8000 : 0) | 0x7c00; // from the largest half + half an ulp on: Infinity
    let best = 0;
    for (let h = 1; h < HALVES.length; h++) {
      const d = Math.abs(HALVES[h]! - a);
      const bd = Math.abs(HALVES[best]! - a);
      if (d < bd || (d === bd && h % 2 === 0)) best = h;
    }
    return (x < 0 || Object.is(x, -0) ? 0x8000 : 0) | best;
  }

  it('decodes the special patterns', () => {
    expect(fromFloat16(0x3c00)).toBe(1);
    expect(fromFloat16(0xc000)).toBe(-2);
    expect(fromFloat16(0x7bff)).toBe(65504);
    expect(fromFloat16(0x0001)).toBe(2 ** -24);
    expect(fromFloat16(0x7c00)).toBe(Infinity);
    expect(fromFloat16(0x7e00)).toBeNaN();
  });

  it('rounds every float32 to the nearest half (fast-check against an exhaustive search)', () => {
    fc.assert(
      fc.property(fc.float({ min: -70000, max: 70000, noNaN: true }), (x) => {
        expect(toFloat16(x)).toBe(nearestHalf(x));
      }),
      { numRuns: 300 },
    );
    for (const x of [0.1, -0.333, 1e-8, 6e-5, 65504, 65519, 1 + 2 ** -11, 1 + 3 * 2 ** -11]) expect(toFloat16(x)).toBe(nearestHalf(x));
    expect(toFloat16(NaN) & 0x7fff).toBeGreaterThan(0x7c00);
  });
});

describe('vector packs: bad input is refused with the file and what differs', () => {
  it('a truncated vector file', async () => {
    const { files } = await densePack();
    const cut = new Map(files).set('passages.f32', files.get('passages.f32')!.slice(0, 100));
    await expect(readPack(cut, 'p')).rejects.toThrow(
      /p\/passages\.f32: expected 40 float32 values \(160 bytes\).*found 100 bytes \(truncated\?\)/,
    );
  });

  it('a wrong dimension in the manifest', async () => {
    const { files } = await densePack();
    await expect(
      readPack(
        editManifest(files, (m) => (m.dim = 16)),
        'p',
      ),
    ).rejects.toThrow(/passages\.f32: expected 80 float32 values .* 5 rows × 16/);
  });

  it('a manifest missing fields names them', async () => {
    const { files } = await densePack();
    const bad = editManifest(files, (m) => {
      delete m.valueType;
      delete m.device;
    });
    await expect(readPack(bad, 'p')).rejects.toThrow(/p\/manifest\.json: missing fields: valueType, device/);
    const noEncoder = editManifest(files, (m) => delete (m.encoder as Record<string, unknown>).pooling);
    await expect(readPack(noEncoder, 'p')).rejects.toThrow(/manifest\.json \(encoder\): missing field: pooling/);
    await expect(readPack(new Map(files).set(MANIFEST, bytes('{"format": "x"}')), 'p')).rejects.toThrow(
      /expected format "fliplab-vectors" version 2/,
    );
    await expect(readPack(new Map(files).set(MANIFEST, bytes('{nope')), 'p')).rejects.toThrow(
      /manifest\.json: expected a fliplab vector pack/,
    );
    const gone = new Map(files);
    gone.delete('queries.tsv');
    await expect(readPack(gone, 'p')).rejects.toThrow(/p\/queries\.tsv: missing from the pack/);
  });

  it('an edited recipe, an edited rows file, a bad row', async () => {
    const { files } = await densePack();
    const recipe = editManifest(files, (m) => ((m.encoder as Record<string, unknown>).maxLength = 256));
    await expect(readPack(recipe, 'p')).rejects.toThrow(/passages\.encoding is .* but the encoder recipe gives/);
    const rows = text(files.get('passages.tsv')!).replace('d3\t', 'd9\t');
    await expect(readPack(new Map(files).set('passages.tsv', bytes(rows)), 'p')).rejects.toThrow(
      /passages\.tsv: its SHA-256 is .* the manifest says/,
    );
    const dup = text(files.get('passages.tsv')!).replace('d3\t', 'd2\t');
    await expect(readPack(new Map(files).set('passages.tsv', bytes(dup)), 'p')).rejects.toThrow(/passages\.tsv:4: id "d2" appears twice/);
    const broken = text(files.get('passages.tsv')!).replace(/\t[0-9a-f]{64}/, '\tnot-a-hash');
    await expect(readPack(new Map(files).set('passages.tsv', bytes(broken)), 'p')).rejects.toThrow(
      /passages\.tsv:1: expected "id<TAB>SHA-256/,
    );
  });

  it('NaN or infinite values name the vector (the writer refuses them; a file edited afterwards is refused on read)', async () => {
    const passages = await part('d', 4, dense(8, 1));
    const files = await writePack({ config: DENSE, device: 'cpu', tool: 'test', passages, queries: null });
    const values = new Float32Array(files.get('passages.f32')!.slice().buffer);
    values[2 * 8 + 5] = NaN;
    const edited = new Map(files).set('passages.f32', new Uint8Array(values.buffer));
    await expect(readPack(edited, 'p')).rejects.toThrow(/p\/passages\.f32: value NaN in the vector of "d2" \(row 3\)/);
    (passages.vectors[2]!.dense as Float32Array)[5] = NaN;
    await expect(writePack({ config: DENSE, device: 'cpu', tool: 'test', passages, queries: null })).rejects.toThrow(
      /passage "d2": value NaN is not finite/,
    );

    const sp = await part('d', 4, sparse(2));
    const sfiles = await writePack({ config: SPARSE, device: 'cpu', tool: 'test', passages: sp, queries: null });
    const weights = new Float32Array(sfiles.get('passages.values.f32')!.slice().buffer);
    weights[weights.length - 1] = Infinity;
    const sEdited = new Map(sfiles).set('passages.values.f32', new Uint8Array(weights.buffer));
    await expect(readPack(sEdited, 'p')).rejects.toThrow(/passages\.values\.f32: value Infinity in the vector of "d3" \(row 4\)/);
  });

  it('the writer refuses ids a reader could not read back, and an empty pack', async () => {
    const passages = await part('d', 2, dense(8, 1));
    const tabbed = { ...passages, ids: ['d\t0', 'd1'] };
    await expect(writePack({ config: DENSE, device: 'cpu', tool: 't', passages: tabbed, queries: null })).rejects.toThrow(
      /without tabs or line breaks/,
    );
    const empty = { ids: [], textKeys: [], vectors: [] };
    await expect(writePack({ config: DENSE, device: 'cpu', tool: 't', passages: empty, queries: null })).rejects.toThrow(
      /at least one vector/,
    );
  });

  it('sparse term ids outside the vocabulary or out of order', async () => {
    const sp = await part('d', 3, sparse(2));
    const files = await writePack({ config: SPARSE, device: 'cpu', tool: 'test', passages: sp, queries: null });
    const small = editManifest(files, (m) => (m.dim = 10));
    await expect(readPack(small, 'p')).rejects.toThrow(/passages\.indices: term id \d+ of "d0" is not below the vocabulary size 10/);
    const idx = new Uint32Array(files.get('passages.indices')!.slice().buffer);
    [idx[0], idx[1]] = [idx[1]!, idx[0]!];
    await expect(readPack(new Map(files).set('passages.indices', new Uint8Array(idx.buffer)), 'p')).rejects.toThrow(/strictly ascending/);
  });

  it('a pack from a different corpus: an unknown id, or the same id with another text', async () => {
    const { files } = await densePack();
    const pack = await readPack(files, 'p');
    const ids = ['d0', 'd1', 'd2', 'd3', 'd4', 'd5'];
    const target = {
      passages: { ids, textKeys: await textKeys(ids.map((id) => `text of ${id}`)) },
      queries: { ids: ['q0', 'q1', 'q2'], textKeys: await textKeys(['text of q0', 'text of q1', 'text of q2']) },
    };
    expect(matchPack(pack, target, 'p')).toEqual({ passages: 5, queries: 3 });
    // More queries than a run needs (e.g. `--queries all`): fine, coverage counts the needed ones.
    expect(matchPack(pack, { ...target, evaluated: ['q2', 'q7'] }, 'p')).toEqual({ passages: 5, queries: 1 });
    const changed = { ...target, passages: { ids, textKeys: await textKeys(ids.map((id) => (id === 'd3' ? 'edited' : `text of ${id}`))) } };
    expect(() => matchPack(pack, changed, 'p')).toThrow(/p\/passages\.tsv:4: the text of passage "d3" differs from this collection's/);
    const other = { ...target, queries: { ids: ['q0'], textKeys: target.queries.textKeys.slice(0, 1) } };
    expect(() => matchPack(pack, other, 'p')).toThrow(/p\/queries\.tsv: 2 query ids are not in this collection \(e\.g\. "q1", "q2"\)/);
  });

  it('a zip without a manifest, and bytes that are no zip', () => {
    expect(() => unzipPack(zipPack(new Map([['x.bin', new Uint8Array(3)]])), 'a.zip')).toThrow(/a\.zip: no manifest\.json in this zip/);
    expect(() => unzipPack(new Uint8Array([1, 2, 3, 4]), 'a.zip')).toThrow(/a\.zip: expected a zip file/);
  });

  it('recipeDifference names each differing field', () => {
    const pack = { ...DENSE, dtype: 'fp32' as const };
    expect(recipeDifference(pack, DENSE)).toBe('');
    expect(recipeDifference(pack, { ...DENSE, passagePrefix: 'passage: ', dtype: 'q8' })).toBe(
      'dtype: "fp32" in the pack, "q8" here; passagePrefix: "" in the pack, "passage: " here',
    );
  });
});
