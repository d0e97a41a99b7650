/**
 * Parquet inputs beyond the mirror round trip: the hub converter's qrels (int64 ids, read back as
 * decimal strings) and a corpus parquet whose rows break the core's rules (InputError with path and row).
 */
import { parquetWriteBuffer } from 'hyparquet-writer';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { InputError } from '../../../src/core/io/errors.ts';
import { parseQrels } from '../../../src/core/io/trec.ts';
import { loadCollection } from '../../../src/worker/load.ts';
import { parquetPageBomb } from '../../support/bombs.ts';

/** Bytes snappy was asked to write (the output buffers the reader allocated for it), since the last reset. */
const snappy = vi.hoisted(() => ({ outputBytes: 0 }));
vi.mock('hyparquet', async (original) => {
  const real = await original<typeof import('hyparquet')>();
  return {
    ...real,
    snappyUncompress: (input: Uint8Array, output: Uint8Array) => {
      snappy.outputBytes += output.length;
      real.snappyUncompress(input, output);
    },
  };
});
beforeEach(() => {
  snappy.outputBytes = 0;
});

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

describe('parquet pages under the bomb rule', () => {
  it('a page header declaring 128 MiB for 50 KB of snappy is refused before it is inflated', async () => {
    const { bomb: bytes } = parquetPageBomb();
    const err = await loadCollection([
      { path: 'corpus.parquet', bytes },
      { path: 'queries.jsonl', bytes: enc.encode('{"_id":"1","text":"x"}\n') },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({ file: 'corpus.parquet' });
    // Refused on the page's declared size (128 MiB from its compressed bytes), before its buffer exists:
    // snappy inflated only the `_id` column's page, never a byte of the text page (1.1 MB, declared 128 MiB).
    expect((err as InputError).reason).toMatch(/inflates past 128 MiB from 0\.\d+ MiB/);
    expect(snappy.outputBytes).toBeLessThan(1_000);
    // (How long the refusal takes, beside reading the honest file: bench/hostile-input.ts.)
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
    // through snappy, so the count the bomb test reads is the real one
    expect(snappy.outputBytes).toBeGreaterThanOrEqual(texts.join('').length);
  });
});
