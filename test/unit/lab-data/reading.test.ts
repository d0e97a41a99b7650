/** Reading a collection with progress and Cancel (src/worker/reading.ts through loadCollection). */
import { describe, expect, it } from 'vitest';
import { loadCollection } from '../../../src/worker/load.ts';
import type { ReadingProgress } from '../../../src/worker/reading.ts';

const enc = (s: string) => new TextEncoder().encode(s);

function corpus(docs: number): Uint8Array {
  const lines: string[] = [];
  for (let i = 0; i < docs; i++) lines.push(JSON.stringify({ _id: `d${i}`, title: '', text: `passage number ${i} about things` }));
  return enc(`${lines.join('\n')}\n`);
}

const files = (n: number) => [
  { path: 'c/corpus.jsonl', bytes: corpus(n) },
  { path: 'c/queries.jsonl', bytes: enc('{"_id":"q1","text":"things"}\n') },
  { path: 'c/qrels/test.tsv', bytes: enc('query-id\tcorpus-id\tscore\nq1\td1\t1\n') },
];

describe('reading a collection', () => {
  it('reports progress in bytes of all the files, up to the total', async () => {
    const seen: ReadingProgress[] = [];
    const input = files(400_000); // about 24 MB: several slices
    const total = input.reduce((n, f) => n + f.bytes.length, 0);
    const c = await loadCollection(input, { signal: new AbortController().signal, onProgress: (p) => seen.push(p) });
    expect(c.corpus.ids.length).toBe(400_000);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((p) => p.totalBytes === total && p.bytesRead <= total)).toBe(true);
    expect(seen.some((p) => p.file === 'c/corpus.jsonl')).toBe(true);
    expect(seen.map((p) => p.bytesRead)).toEqual([...seen.map((p) => p.bytesRead)].sort((a, b) => a - b));
  });

  it('Cancel stops the read at the next slice with an AbortError', async () => {
    const job = new AbortController();
    let reports = 0;
    const reading = loadCollection(files(400_000), {
      signal: job.signal,
      onProgress: () => {
        if (++reports === 1) job.abort(new DOMException('cancelled', 'AbortError'));
      },
    });
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    expect(reports).toBe(1);
  });
});
