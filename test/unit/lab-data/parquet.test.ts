/**
 * Parquet inputs beyond the mirror round trip: the hub converter's qrels (int64 ids, read back as
 * decimal strings) and a corpus parquet whose rows break the core's rules (InputError with path and row).
 */
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/core/io/errors.ts';
import { parseQrels } from '../../../src/core/io/trec.ts';
import { loadCollection } from '../../../src/worker/load.ts';

const enc = new TextEncoder();
const pq = (columnData: { name: string; data: unknown[]; type: 'STRING' | 'INT64' }[]): Uint8Array =>
  new Uint8Array(parquetWriteBuffer({ columnData: columnData as never }));

describe('parquet inputs', () => {
  it('reads qrels parquet shards (int64 ids) like the same judgments as TSV', async () => {
    const qrelsA = pq([
      { name: 'query-id', data: [1n, 1n], type: 'INT64' },
      { name: 'corpus-id', data: [10n, 11n], type: 'INT64' },
      { name: 'score', data: [1n, 0n], type: 'INT64' },
    ]);
    const qrelsB = pq([
      { name: 'query-id', data: [2n], type: 'INT64' },
      { name: 'corpus-id', data: [12n], type: 'INT64' },
      { name: 'score', data: [2n], type: 'INT64' },
    ]);
    const got = await loadCollection([
      { path: 'corpus.jsonl', bytes: enc.encode('{"_id":"10","text":"a"}\n{"_id":"11","text":"b"}\n{"_id":"12","text":"c"}\n') },
      { path: 'queries.jsonl', bytes: enc.encode('{"_id":"1","text":"x"}\n{"_id":"2","text":"y"}\n') },
      { path: 'qrels/test/0000.parquet', bytes: qrelsA },
      { path: 'qrels/test/0001.parquet', bytes: qrelsB },
    ]);
    const expected = (await parseQrels('query-id\tcorpus-id\tscore\n1\t10\t1\n1\t11\t0\n2\t12\t2\n', 'x')).value;
    expect(got.split).toBe('test');
    expect([...got.qrels!.byQuery].map(([k, v]) => [k, [...v]])).toEqual([...expected.byQuery].map(([k, v]) => [k, [...v]]));
  });

  it('a duplicate id in a second corpus parquet shard is an InputError naming that shard and its row', async () => {
    const good = pq([
      { name: '_id', data: ['a', 'b'], type: 'STRING' },
      { name: 'title', data: ['', ''], type: 'STRING' },
      { name: 'text', data: ['x', 'y'], type: 'STRING' },
    ]);
    const dup = pq([
      { name: '_id', data: ['c', 'a'], type: 'STRING' },
      { name: 'title', data: ['', ''], type: 'STRING' },
      { name: 'text', data: ['z', 'w'], type: 'STRING' },
    ]);
    const err = await loadCollection([
      { path: 'corpus/corpus-00000-of-00002.parquet', bytes: good },
      { path: 'corpus/corpus-00001-of-00002.parquet', bytes: dup },
      { path: 'queries.jsonl', bytes: enc.encode('{"_id":"1","text":"x"}\n') },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ file: 'corpus/corpus-00001-of-00002.parquet', line: 2 });
    expect((err as InputError).reason).toMatch(/duplicate document id "a"/);
  });
});

/** Zigzag varint of a thrift compact i32. */
function varint(n: number): number[] {
  let z = (n << 1) ^ (n >> 31);
  const out: number[] = [];
  do {
    let b = z & 0x7f;
    z >>>= 7;
    if (z !== 0) b |= 0x80;
    out.push(b);
  } while (z !== 0);
  return out;
}

describe('parquet pages under the bomb rule', () => {
  it('a page header declaring 128 MiB for 50 KB of snappy is refused before it is inflated', async () => {
    // One page of 1.1 MB of text (its size a 4-byte varint), then its declared size raised to 128 MiB in place.
    const text = 'a'.repeat(1_100_000);
    const file = pq([
      { name: '_id', data: ['d1'], type: 'STRING' },
      { name: 'text', data: [text], type: 'STRING' },
    ]);
    const bytes = Uint8Array.from(file);
    let patched = 0;
    for (let i = 0; i + 10 < bytes.length; i++) {
      if (bytes[i] !== 0x15) continue;
      // uncompressed_page_size (field 2, i32) then compressed_page_size (field 3, i32), each a 4-byte varint
      let u = 0;
      let j = i + 1;
      for (let s = 0; s < 28; s += 7, j++) u |= (bytes[j]! & 0x7f) << s;
      if ((bytes[i + 4]! & 0x80) !== 0 || bytes[j] !== 0x15) continue;
      const size = (u >>> 1) ^ -(u & 1);
      if (size < 1_100_000 || size > 1_200_000) continue;
      bytes.set(varint(134_000_000), i + 1);
      patched++;
    }
    expect(patched).toBe(1);
    const t0 = performance.now();
    const err = await loadCollection([
      { path: 'corpus.parquet', bytes },
      { path: 'queries.jsonl', bytes: enc.encode('{"_id":"1","text":"x"}\n') },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ file: 'corpus.parquet' });
    expect((err as InputError).reason).toMatch(/inflate/);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it('the pages of an ordinary file read through the guard', async () => {
    const texts = Array.from({ length: 5_000 }, (_, i) => `passage ${i} ${'word '.repeat(i % 50)}`);
    const got = await loadCollection([
      {
        path: 'corpus.parquet',
        bytes: pq([
          { name: '_id', data: texts.map((_, i) => `d${i}`), type: 'STRING' },
          { name: 'text', data: texts, type: 'STRING' },
        ]),
      },
      { path: 'queries.jsonl', bytes: enc.encode('{"_id":"1","text":"x"}\n') },
    ]);
    expect(got.corpus.texts).toEqual(texts);
  });
});
