/**
 * Large files stay Blobs: `collectionFile` keeps a file over LARGE_FILE_BYTES as its Blob plus its first
 * HEAD_BYTES (enough to classify it), `wholeFile` reads it where it is parsed, and a collection of runs loads
 * the same from a Blob-backed run as from the bytes.
 */
import { describe, expect, it } from 'vitest';
import { collectionFile, fileSize, HEAD_BYTES, LARGE_FILE_BYTES, wholeFile } from '../../../src/lab/data/bytes.ts';
import { loadCollection } from '../../../src/worker/load.ts';
import { classifyFiles } from '../../../src/lab/data/files.ts';

const enc = new TextEncoder();

/** A run larger than LARGE_FILE_BYTES: 25 queries × 12,000 documents. */
function bigRun(): string {
  const out: string[] = [];
  for (let q = 1; q <= 25; q++)
    for (let i = 0; i < 12_000; i++) out.push(`q${q} Q0 doc-${q}-${i} ${i + 1} ${(50_000 - i).toString()} big\n`);
  return out.join('');
}

describe('large files', () => {
  it('a small file is its bytes; a large one its Blob and first bytes, read whole only on demand', async () => {
    const small = await collectionFile('a.run', new Blob(['q1 Q0 d1 1 1 t\n']));
    expect(small.blob).toBeUndefined();
    const text = bigRun();
    expect(text.length).toBeGreaterThan(LARGE_FILE_BYTES);
    const big = await collectionFile('big.run', new Blob([text]));
    expect(big.blob).toBeDefined();
    expect(big.bytes.byteLength).toBe(HEAD_BYTES);
    expect(fileSize(big)).toBe(text.length);
    expect(new TextDecoder().decode((await wholeFile(big)).bytes)).toBe(text);
  });

  it('a Blob-backed run is classified by its first bytes and loads as the bytes do (kept at 1,000 a query)', async () => {
    const text = bigRun();
    const qrels = { path: 'qrels.txt', bytes: enc.encode('q1 0 doc-1-5000 1\nq2 0 doc-2-3 1\n') };
    const blobbed = await collectionFile('big.run', new Blob([text]));
    expect(blobbed.blob).toBeDefined();
    expect((await classifyFiles([blobbed])).files.map((f) => f.role)).toEqual(['run']);
    const a = await loadCollection([qrels, blobbed], { name: 'x' });
    const b = await loadCollection([qrels, { path: 'big.run', bytes: enc.encode(text) }], { name: 'x' });
    const lists = (c: typeof a) => [...c.runs[0]!.byQuery].map(([q, l]) => [q, l.docs.length, l.length, l.tail?.positions[0] ?? null]);
    expect(lists(a)).toEqual(lists(b));
    expect(lists(a)[0]).toEqual(['q1', 1000, 12_000, 5001]);
  });
});
