import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inputError } from './helpers.ts';
import { formatRun, parseQrels, parseRun } from '../../../src/core/io/trec.ts';
import type { DocId, QueryId } from '../../../src/core/types.ts';

const q = (s: string) => s as QueryId;
const d = (s: string) => s as DocId;

describe('qrels', () => {
  it('reads TREC 4-column qrels with grades, keeping zero and negative grades', async () => {
    const { value } = await parseQrels('1 0 a 2\n1 0 b 0\n2 0 c -1\n', 'q.txt');
    expect(value.byQuery.get(q('1'))).toEqual(
      new Map([
        [d('a'), 2],
        [d('b'), 0],
      ]),
    );
    expect(value.byQuery.get(q('2'))?.get(d('c'))).toBe(-1);
  });

  it('reads BEIR TSV with its header, CRLF line ends and a BOM', async () => {
    const text = '\ufeffquery-id\tcorpus-id\tscore\r\nq1\tdoc1\t1\r\nq1\tdoc2\t0\r\n';
    const { value } = await parseQrels(text, 'test.tsv');
    expect([...value.byQuery.get(q('q1'))!.entries()]).toEqual([
      ['doc1', 1],
      ['doc2', 0],
    ]);
  });

  it('reads gzip by its magic bytes, whatever the name', async () => {
    const bytes = gzipSync(Buffer.from('q1 0 d1 1\nq2 0 d2 3\n'));
    const { value } = await parseQrels(new Uint8Array(bytes), 'qrels.txt');
    expect(value.byQuery.size).toBe(2);
  });

  it('names file and line for a wrong column count', async () => {
    const e = await inputError(parseQrels('1 0 a 1\n1 0 b\n1 a 1 1 1\n', 'q.txt'));
    expect(e.file).toBe('q.txt');
    expect(e.line).toBe(2);
    expect(e.message).toMatch(/^q\.txt:2: expected 4 columns/);
  });

  it('rejects a non-numeric grade with its line', async () => {
    const e = await inputError(parseQrels('1 0 a 1\n1 0 b high\n', 'q.txt'));
    expect(e.line).toBe(2);
    expect(e.reason).toMatch(/integer relevance grade.*"high"/);
  });

  it('rejects the same judgment twice with different grades, naming both lines', async () => {
    const e = await inputError(parseQrels('1 0 a 1\n1 0 b 1\n1 0 a 2\n', 'q.txt'));
    expect(e.line).toBe(3);
    expect(e.reason).toMatch(/line 1/);
  });

  it('counts identical repeated judgments once and warns', async () => {
    const r = await parseQrels('1 0 a 1\n1 0 a 1\n', 'q.txt');
    expect(r.value.byQuery.get(q('1'))!.size).toBe(1);
    expect(r.warnings[0]?.message).toMatch(/1 repeated judgment/);
  });

  it('rejects an empty file', async () => {
    const e = await inputError(parseQrels('\n\n', 'empty.txt'));
    expect(e.reason).toMatch(/at least one judgment/);
  });
});

describe('runs', () => {
  it('orders each query by the rank column, not the score and not file order', async () => {
    const { value } = await parseRun('1 Q0 b 2 9.0 t\n1 Q0 a 1 1.0 t\n1 Q0 c 3 5.0 t\n', 'r.txt');
    const list = value.byQuery.get(q('1'))!;
    expect(list.docs).toEqual(['a', 'b', 'c']);
    expect(Array.from(list.scores)).toEqual([1, 9, 5]);
    expect(value.name).toBe('t');
  });

  it('is an error for a document to appear twice in one query', async () => {
    const e = await inputError(parseRun('1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n', 'r.txt'));
    expect(e.line).toBe(3);
    expect(e.reason).toMatch(/appears twice.*first on line 1/);
  });

  it('allows the same document under different queries', async () => {
    const { value } = await parseRun('1 Q0 a 1 3 t\n2 Q0 a 1 3 t\n', 'r.txt');
    expect(value.byQuery.size).toBe(2);
  });

  it.each([
    ['1 Q0 a 1 NaN t', /finite number as score/],
    ['1 Q0 a 1 abc t', /finite number as score/],
    ['1 Q0 a one 1.0 t', /integer rank/],
    ['1 Q0 a 1 1.0', /expected 6 columns/],
  ])('rejects %j', async (line, reason) => {
    const e = await inputError(parseRun(`1 Q0 z 1 2.0 t\n${line}\n`, 'r.txt'));
    expect(e.line).toBe(2);
    expect(e.reason).toMatch(reason);
  });

  it('warns when lines carry several run tags', async () => {
    const r = await parseRun('1 Q0 a 1 3 t\n1 Q0 b 2 2 u\n', 'r.txt');
    expect(r.warnings[0]?.message).toMatch(/1 line\(s\) carry a run tag other than "t"/);
  });

  it('writes runs that read back to the same documents and exact scores', async () => {
    const scores = [0.1 + 0.2, 1e-9, -3.5, 12.000000000000002];
    const text = scores.map((s, i) => `7 Q0 d${i} ${i + 1} ${s} x`).join('\n');
    const { value } = await parseRun(text, 'r.txt');
    const again = (await parseRun(formatRun(value), 'again.txt')).value;
    expect(again.byQuery.get(q('7'))!.docs).toEqual(['d0', 'd1', 'd2', 'd3']);
    expect(Array.from(again.byQuery.get(q('7'))!.scores)).toEqual(scores);
  });
});
