/**
 * Text for a collection of runs (no corpus), from a corpus file added later: the lab API streams the file,
 * keeps only the passages the runs rank, fills their text in, and returns them as the file the collection
 * store keeps — which, opened again with the runs, gives the same text back. Cancelling stops the read.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createLabApi } from '../../../src/worker/api.ts';
import { PASSAGE_TEXT_FILE } from '../../../src/lab/data/files.ts';
import type { CollectionFile } from '../../../src/lab/data/types.ts';

const enc = new TextEncoder();
const file = (path: string, text: string): CollectionFile => ({ path, bytes: enc.encode(text) });
const QRELS = 'q1 0 p2 1\nq2 0 p9 1\n';
const RUN_A = 'q1 Q0 p1 1 3 a\nq1 Q0 p2 2 2 a\nq2 Q0 p9 1 1 a\n';
const RUN_B = 'q1 Q0 p2 1 3 b\nq2 Q0 p7 1 2 b\n';
/** An MS MARCO-style collection.tsv: 2,000 passages, of which the runs rank p1, p2, p7, p9. */
const COLLECTION = Array.from({ length: 2000 }, (_, i) => `p${i}\tpassage number ${i} about things\n`).join('');

describe('keepPassageText', () => {
  it('keeps only the runs’ passages, fills their text, and the kept file restores it on the next open', async () => {
    const api = createLabApi();
    await api.openFiles([file('qrels.txt', QRELS), file('a.run', RUN_A), file('b.run', RUN_B)], { name: 'runs' });
    expect(api.passage('p7')).toEqual({ title: '', text: '' });

    const progress: number[] = [];
    const blob = new Blob([gzipSync(enc.encode(COLLECTION))]);
    const r = await api.keepPassageText(blob, 'collection.tsv.gz', (p) => progress.push(p.bytesRead));
    expect({ kept: r.kept, read: r.read, missing: r.missing }).toEqual({ kept: 4, read: 2000, missing: 0 });
    expect(api.passage('p7')).toEqual({ title: '', text: 'passage number 7 about things' });
    expect(api.passage('p1').text).toBe('passage number 1 about things');
    expect(progress.at(-1)).toBe(blob.size);
    expect(r.file.path).toBe(PASSAGE_TEXT_FILE);
    expect(
      new TextDecoder()
        .decode(r.file.bytes)
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { _id: string })._id)
        .sort(),
    ).toEqual(['p1', 'p2', 'p7', 'p9']);

    // Reopened with the stored files (runs, qrels and the kept text): the text is back, still a collection of runs.
    const again = createLabApi();
    const summary = await again.openFiles([file('qrels.txt', QRELS), file('a.run', RUN_A), file('b.run', RUN_B), r.file], { name: 'runs' });
    expect(summary.passagesFromRuns).toBe(true);
    expect(summary.docs).toBe(4);
    expect(again.passage('p9').text).toBe('passage number 9 about things');
  });

  it('a malformed corpus line is named by file and line; cancel stops the read', async () => {
    const api = createLabApi();
    await api.openFiles([file('qrels.txt', QRELS), file('a.run', RUN_A)], { name: 'runs' });
    await expect(api.keepPassageText(new Blob(['p1\tfine\n{"_id": broken\n']), 'bad.tsv')).rejects.toMatchObject({
      file: 'bad.tsv',
      line: 2,
    });

    const big = new Blob([Array.from({ length: 200 }, () => COLLECTION).join('')]);
    const job = api.keepPassageText(big, 'big.tsv');
    api.cancelPassageText();
    await expect(job).rejects.toMatchObject({ name: 'AbortError' });
    expect(api.passage('p1').text).toBe('');
  });
});
