/**
 * filterPassages against a naive oracle (split the whole text into lines, parse each, keep the wanted ones),
 * on generated corpora in both formats, any chunking, plain or gzip; SciFact against parseCorpus; progress,
 * abort, corrupt input.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCorpus } from '../../../src/core/io/beir.ts';
import { isInputError } from '../../../src/core/io/errors.ts';
import { docIdsInRuns, filterPassages, type PassageFilterProgress } from '../../../src/core/io/passages.ts';
import { normalizeId } from '../../../src/core/io/ids.ts';
import { parseRun } from '../../../src/core/io/trec.ts';
import { SCIFACT_DIR } from '../../shared-data.ts';
import { inputError } from './helpers.ts';

const enc = new TextEncoder();

function chunked(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

interface Row {
  id: string;
  title: string;
  text: string;
}

/** The oracle: whole text, split, every line parsed, filter. */
function naive(text: string, format: 'tsv' | 'jsonl', keep: ReadonlySet<string>): Row[] {
  const rows = text
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l): Row => {
      if (format === 'tsv') return { id: normalizeId(l.slice(0, l.indexOf('\t'))), title: '', text: l.slice(l.indexOf('\t') + 1) };
      const o = JSON.parse(l) as { _id: string | number; title?: string; text: string };
      return { id: normalizeId(String(o._id)), title: o.title ?? '', text: o.text };
    });
  return rows.filter((r) => keep.has(r.id));
}

const idArb = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.:-]{1,10}$/), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }));
/** MS MARCO-like ids: canonical integers (the keep set's bitmap path) mixed with look-alikes that are not. */
const numericIdArb = fc.oneof(
  { weight: 8, arbitrary: fc.nat(40).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('007', '07', '00', '0', '7', '134217727', '134217728', '1234567890', '+5', '-1', '1e3', '12a') },
  { weight: 1, arbitrary: fc.stringMatching(/^[0-9]{1,3}$/) },
);
const textArb = fc.string({ unit: 'grapheme', maxLength: 40 });

function render(rows: readonly Row[], format: 'tsv' | 'jsonl', numericIds: boolean): string {
  return rows
    .map((r) => {
      if (format === 'tsv') return `${r.id}\t${r.text}\n`;
      const id = numericIds && /^[1-9]\d{0,8}$/.test(r.id) ? Number(r.id) : r.id;
      // Key order varies: "_id" first, last, or between the others.
      return r.text.length % 3 === 0
        ? `${JSON.stringify({ _id: id, title: r.title, text: r.text })}\n`
        : r.text.length % 3 === 1
          ? `${JSON.stringify({ title: r.title, text: r.text, meta: { _id: 'nested', tags: ['"_id"', { x: 1 }] }, _id: id })}\n`
          : `{ "text" : ${JSON.stringify(r.text)} , "_id" : ${JSON.stringify(id)} }\n`;
    })
    .join('');
}

describe('filterPassages keeps exactly what a naive filter keeps', () => {
  it.each([
    ['any ids', idArb],
    ['numeric ids', numericIdArb],
  ])('on generated TSV and JSONL corpora, any chunking, plain or gzip (%s)', async (_, ids) => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.record({ id: ids.filter((id) => normalizeId(id) !== ''), title: textArb, text: textArb }), {
          minLength: 1,
          maxLength: 40,
          selector: (r) => normalizeId(r.id), // ids are white-space normalized (core/io/ids.ts)
        }),
        fc.constantFrom('tsv' as const, 'jsonl' as const),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        fc.array(ids, { maxLength: 3 }),
        fc.integer({ min: 1, max: 64 }),
        fc.boolean(),
        fc.boolean(),
        async (generated, format, picks, strangers, cut, gzip, numericIds) => {
          const rows =
            format === 'tsv'
              ? generated
                  .filter((r) => !/[\t\n\r]/.test(r.id + r.text) && !/^\s/.test(r.id) && !/^(id|pid|_id|docid)$/i.test(r.id))
                  .map((r) => ({ ...r, title: '' }))
              : generated;
          fc.pre(rows.length > 0);
          // a keep set comes from runs, whose ids hold no white space
          const keep = new Set([...rows.filter((_, i) => picks[i]).map((r) => r.id), ...strangers].map(normalizeId));
          const text = render(rows, format, numericIds);
          let bytes = enc.encode(text);
          if (gzip) bytes = new Uint8Array(gzipSync(bytes));
          const r = await filterPassages(chunked(bytes, cut), 'corpus', keep);
          const want = naive(text, format, keep);
          const c = r.value.corpus;
          expect(c.ids.map((id, i) => ({ id, title: c.titles[i], text: c.texts[i] }))).toEqual(want);
          expect(want.every((w, i) => c.indexOf.get(c.ids[i]!) === i && w.id === c.ids[i])).toBe(true);
          expect(r.value.passagesRead).toBe(rows.length);
          expect(r.value.format).toBe(format === 'tsv' ? 'tsv' : 'beir-jsonl');
          expect(r.value.gzip).toBe(gzip);
          expect(r.value.bytesRead).toBe(bytes.length);
          expect(new Set(r.value.missing)).toEqual(new Set([...keep].filter((k) => !rows.some((row) => normalizeId(row.id) === k))));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('on SciFact: the kept documents equal parseCorpus filtered, gzip equals plain', async () => {
    const bytes = new Uint8Array(readFileSync(join(SCIFACT_DIR, 'corpus.jsonl')));
    const full = (await parseCorpus(bytes, 'corpus.jsonl')).value;
    const keep = new Set(full.ids.filter((_, i) => i % 7 === 3));
    keep.add('not-a-scifact-id' as never);
    const plain = await filterPassages(bytes, 'corpus.jsonl', keep);
    const gz = await filterPassages(chunked(new Uint8Array(gzipSync(bytes)), 65536), 'corpus.jsonl.gz', keep);
    const idx = full.ids.map((_, i) => i).filter((i) => i % 7 === 3);
    expect(plain.value.corpus.ids).toEqual(idx.map((i) => full.ids[i]));
    expect(plain.value.corpus.titles).toEqual(idx.map((i) => full.titles[i]));
    expect(plain.value.corpus.texts).toEqual(idx.map((i) => full.texts[i]));
    expect(plain.value.passagesRead).toBe(5183);
    expect(plain.value.missing).toEqual(['not-a-scifact-id']);
    expect(plain.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^1 of 741 wanted passages are not in this file/)]);
    expect(gz.value.gzip).toBe(true);
    expect(gz.value.corpus).toEqual(plain.value.corpus);
  });
});

describe('format details', () => {
  it('TSV: BOM, CRLF, a header, blank lines, tabs inside the text, a last line without newline', async () => {
    const r = await filterPassages(
      '\ufeffpid\ttext\r\n0\tThe presence of\tcommunication\r\n\r\n1\tskip me\r\n7\tlast',
      'collection.tsv',
      new Set(['0', '7']),
    );
    expect(r.value.corpus.ids).toEqual(['0', '7']);
    expect(r.value.corpus.texts).toEqual(['The presence of\tcommunication', 'last']);
    expect(r.value.corpus.titles).toEqual(['', '']);
    expect(r.value.passagesRead).toBe(3);
  });

  it('JSONL: ids with escapes, numbers and non-ASCII, "_id" only at the top level', async () => {
    const lines = [
      '{"_id": "a\\"b", "text": "escaped id"}',
      '{"_id": 42, "title": "T", "text": "numeric id"}',
      '{"_id": "東京", "text": "non-ASCII id"}',
      '{"text": "the text says \\"_id\\": \\"x\\"", "meta": {"_id": "x"}, "_id": "y"}',
    ];
    const r = await filterPassages(lines.join('\n'), 'corpus.jsonl', new Set(['a"b', '42', '東京', 'x', 'y']));
    expect(r.value.corpus.ids).toEqual(['a"b', '42', '東京', 'y']);
    expect(r.value.corpus.titles).toEqual(['', 'T', '', '']);
    expect(r.value.missing).toEqual(['x']);
  });

  it('the kept texts are decoded exactly across chunk borders inside multi-byte characters', async () => {
    const text = '1\tnaïve 東京 😀 café\n2\t😀😀😀\n';
    const one = await filterPassages(chunked(enc.encode(text), 1), 'c.tsv', new Set(['1', '2']));
    expect(one.value.corpus.texts).toEqual(['naïve 東京 😀 café', '😀😀😀']);
  });
});

describe('errors name the file and line', () => {
  it('a TSV line without a tab or without an id', async () => {
    const e = await inputError(filterPassages('0\ta\n1 b\n', 'collection.tsv', new Set()));
    expect(e.message).toBe('collection.tsv:2: expected "pid<TAB>text" (TSV passages), found no tab: "1 b"');
    expect((await inputError(filterPassages('0\ta\n\tb\n', 'c.tsv', new Set()))).line).toBe(2);
  });

  it('malformed JSON, a missing _id, a bad _id — kept or not; a kept line without text', async () => {
    const bad = await inputError(filterPassages('{"_id": "1", "text": "a"}\n{"_id": "2", "text": \n', 'corpus.jsonl', new Set()));
    expect(bad.message).toMatch(/^corpus\.jsonl:2: expected one JSON object per line \(JSONL\): /);
    const noId = await inputError(filterPassages('{"text": "a", "meta": {"_id": "1"}}\n', 'corpus.jsonl', new Set(['1'])));
    expect(noId.message).toBe('corpus.jsonl:1: expected an "_id" field, found none');
    const nullId = await inputError(filterPassages('{"_id": null, "text": "a"}\n', 'corpus.jsonl', new Set()));
    expect(nullId.reason).toBe('expected "_id" to be a non-empty string, got "null"');
    const noText = await inputError(filterPassages('{"_id": "1", "title": "a"}\n', 'corpus.jsonl', new Set(['1'])));
    expect(noText.reason).toBe('expected a "text" field, found none');
    // Not kept: only the id is read, so a missing text is not looked for.
    expect((await filterPassages('{"_id": "1", "title": "a"}\n', 'corpus.jsonl', new Set(['2']))).value.passagesRead).toBe(1);
  });

  it('a kept id twice', async () => {
    const e = await inputError(filterPassages('1\ta\n2\tb\n1\tc\n', 'c.tsv', new Set(['1'])));
    expect([e.line, e.reason]).toEqual([3, 'duplicate passage id "1" (first on line 1)']);
  });

  it('an empty file', async () => {
    expect((await inputError(filterPassages('\n\n', 'c.tsv', new Set()))).reason).toBe('expected at least one passage, found none');
    expect((await inputError(filterPassages([], 'c.tsv', new Set()))).reason).toBe('expected at least one passage, found none');
  });

  it('a truncated .gz is an error naming the file, not a shorter corpus', async () => {
    const text = Array.from({ length: 2000 }, (_, i) => `${i}\tpassage number ${i} with some words`).join('\n');
    const gz = new Uint8Array(gzipSync(text));
    const e = await inputError(
      filterPassages(chunked(gz.subarray(0, Math.floor(gz.length * 0.6)), 4096), 'collection.tsv.gz', new Set(['1'])),
    );
    expect(e.file).toBe('collection.tsv.gz');
    expect(e.line).toBeUndefined();
    expect(e.reason).toMatch(/^could not decompress \(corrupt or truncated gzip\)/);
    // The gzip trailer alone cut off (all data decoded) is still truncated.
    const e2 = await inputError(filterPassages(gz.subarray(0, gz.length - 4), 'collection.tsv.gz', new Set(['1'])));
    expect(e2.reason).toMatch(/^could not decompress/);
  });
});

/** An endless TSV corpus as an async iterable that records how far it was read and whether it was closed. */
function endless(chunkLines = 1000): { source: AsyncIterable<Uint8Array>; state: { chunks: number; closed: boolean } } {
  const state = { chunks: 0, closed: false };
  async function* gen(): AsyncGenerator<Uint8Array> {
    try {
      for (let c = 0; ; c++) {
        state.chunks++;
        let s = '';
        for (let i = 0; i < chunkLines; i++) s += `${c * chunkLines + i}\tsome passage text here\n`;
        yield enc.encode(s);
        await new Promise((r) => setTimeout(r, 0));
      }
    } finally {
      state.closed = true;
    }
  }
  return { source: gen(), state };
}

describe('progress and abort', () => {
  it('reports bytes read of the total, monotonic, ending at the total', async () => {
    const text = Array.from({ length: 5000 }, (_, i) => `${i}\tpassage ${i}`).join('\n');
    const bytes = enc.encode(text);
    const seen: PassageFilterProgress[] = [];
    const r = await filterPassages(chunked(bytes, 1000), 'c.tsv', new Set(['10', '4999']), {
      totalBytes: bytes.length,
      progressEveryBytes: 10_000,
      onProgress: (p) => seen.push(p),
    });
    expect(seen.length).toBeGreaterThanOrEqual(Math.floor(bytes.length / 10_000));
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.bytesRead).toBeGreaterThanOrEqual(seen[i - 1]!.bytesRead);
      expect(seen[i]!.passagesRead).toBeGreaterThanOrEqual(seen[i - 1]!.passagesRead);
    }
    expect(seen.at(-1)).toEqual({ bytesRead: bytes.length, totalBytes: bytes.length, passagesRead: 5000, passagesKept: 2 });
    expect(r.value.bytesRead).toBe(bytes.length);
  });

  it('abort stops the read, closes the source and rejects with the reason', async () => {
    for (const gzip of [false, true]) {
      const { source, state } = endless();
      const ac = new AbortController();
      const input = gzip ? gzipped(source) : source;
      let atAbort = -1;
      const p = filterPassages(input, 'endless.tsv', new Set(['3']), {
        progressEveryBytes: 50_000,
        onProgress: (pr) => {
          if (pr.passagesRead > 5000 && atAbort < 0) {
            atAbort = state.chunks;
            ac.abort(new Error('stop'));
          }
        },
        signal: ac.signal,
      });
      await expect(p).rejects.toThrow('stop');
      await new Promise((r) => setTimeout(r, 20));
      const settled = state.chunks;
      // Plain: at most the chunk already requested. Gzip: the compression pipes on both sides (this test's
      // CompressionStream and the reader's DecompressionStream) each read a chunk or two ahead. Then nothing.
      expect(settled - atAbort).toBeLessThanOrEqual(gzip ? 4 : 1);
      await new Promise((r) => setTimeout(r, 20));
      expect(state.chunks).toBe(settled);
      expect(state.closed).toBe(true);
    }
  });

  it('an already aborted signal reads nothing; an abort is not reported as an input error', async () => {
    const { source, state } = endless();
    const ac = new AbortController();
    ac.abort();
    const e = await filterPassages(source, 'c.tsv', new Set(), { signal: ac.signal }).catch((x: unknown) => x);
    expect(isInputError(e)).toBe(false);
    expect((e as Error).name).toBe('AbortError');
    expect(state.chunks).toBe(0);
  });

  it('a whole-file buffer is still read in pieces that abort can stop', async () => {
    const bytes = enc.encode(Array.from({ length: 300_000 }, (_, i) => `${i}\tp`).join('\n')); // ~2.6 MB
    const ac = new AbortController();
    let calls = 0;
    const p = filterPassages(bytes, 'c.tsv', new Set(), {
      progressEveryBytes: 1,
      onProgress: () => {
        if (++calls === 1) ac.abort(new Error('stop'));
      },
      signal: ac.signal,
    });
    await expect(p).rejects.toThrow('stop');
    expect(calls).toBe(1);
  });
});

/** gzip an endless stream lazily, chunk by chunk (each chunk its own gzip member would not do: one stream). */
function gzipped(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  const plain = new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        const r = await it.next();
        if (r.done) c.close();
        else c.enqueue(r.value);
      },
      async cancel() {
        await it.return?.();
      },
    },
    { highWaterMark: 0 },
  );
  return (plain as ReadableStream<Uint8Array<ArrayBuffer>>).pipeThrough(new CompressionStream('gzip')) as ReadableStream<Uint8Array>;
}

describe('docIdsInRuns', () => {
  it('collects every document in the top depth of every query of every run', async () => {
    const a = (await parseRun('q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d3 3 1 a\nq2 Q0 d4 1 1 a\n', 'a')).value;
    const b = (await parseRun('q1 Q0 d9 2 1 b\nq1 Q0 d1 1 3 b\n', 'b')).value;
    expect([...docIdsInRuns([a, b], 1)].sort()).toEqual(['d1', 'd4']);
    expect([...docIdsInRuns([a, b], 2)].sort()).toEqual(['d1', 'd2', 'd4', 'd9']);
    expect(docIdsInRuns([a, b]).size).toBe(5);
  });
});
