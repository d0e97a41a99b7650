import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseCorpus, parseQueries, passageText } from '../../../src/core/io/beir.ts';
import { inputError } from './helpers.ts';
import { readLines } from '../../../src/core/io/lines.ts';
import { checkQrels, selectEvaluationQueries } from '../../../src/core/io/validate.ts';
import { parseQrels } from '../../../src/core/io/trec.ts';

const line = (o: object) => JSON.stringify(o);

describe('corpus.jsonl', () => {
  it('keeps file order as the dense index and builds passages as the paper does', async () => {
    const text = [line({ _id: 'b', title: 'Title', text: 'Body.' }), line({ _id: 'a', text: 'No title' })].join('\n');
    const { value } = await parseCorpus(text, 'corpus.jsonl');
    expect(value.ids).toEqual(['b', 'a']);
    expect(value.indexOf.get(value.ids[1]!)).toBe(1);
    expect(passageText(value, 0)).toBe('Title. Body.');
    // The paper's `${title}. ${text}`.trim() with an empty title keeps the ". ".
    expect(passageText(value, 1)).toBe('. No title');
  });

  it('accepts numeric ids, BOM and CRLF', async () => {
    const { value } = await parseCorpus(`\ufeff${line({ _id: 42, text: 'x' })}\r\n${line({ _id: '7', text: 'y' })}\r\n`, 'c.jsonl');
    expect(value.ids).toEqual(['42', '7']);
    expect(value.texts).toEqual(['x', 'y']);
  });

  it('names the line of malformed JSON', async () => {
    const e = await inputError(parseCorpus(`${line({ _id: '1', text: 'a' })}\n{"_id": "2", "text": \n`, 'corpus.jsonl'));
    expect(e.message).toMatch(/^corpus\.jsonl:2: expected one JSON object per line/);
  });

  it('rejects a missing _id, a non-string text and duplicate ids', async () => {
    expect((await inputError(parseCorpus(line({ text: 'a' }), 'c'))).reason).toMatch(/"_id" field/);
    expect((await inputError(parseCorpus(line({ _id: '1', text: 3 }), 'c'))).reason).toMatch(/"text" to be a string/);
    const dup = await inputError(parseCorpus(`${line({ _id: '1', text: 'a' })}\n${line({ _id: '1', text: 'b' })}`, 'c'));
    expect(dup.line).toBe(2);
    expect(dup.reason).toMatch(/duplicate document id "1" \(first on line 1\)/);
  });

  it('keeps documents with empty text and warns with their ids', async () => {
    const r = await parseCorpus(`${line({ _id: '1', text: '' })}\n${line({ _id: '2', text: 'b' })}`, 'c');
    expect(r.value.ids).toHaveLength(2);
    expect(r.warnings[0]?.message).toMatch(/1 document\(s\) with empty text.*"1"/);
  });

  it('streams: byte chunks that split lines and multi-byte characters give the same corpus', async () => {
    const text = [line({ _id: 'é1', title: 'Café', text: 'naïve 東京 😀' }), line({ _id: 'x', text: 'plain' })].join('\n');
    const bytes = new TextEncoder().encode(text);
    const oneByteChunks = (function* () {
      for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
    })();
    const whole = await parseCorpus(text, 'c');
    const streamed = await parseCorpus(oneByteChunks, 'c');
    expect(streamed.value.ids).toEqual(whole.value.ids);
    expect(streamed.value.texts).toEqual(['naïve 東京 😀', 'plain']);
  });

  it('reads gzip streams', async () => {
    const gz = new Uint8Array(gzipSync(Buffer.from(line({ _id: '1', text: 'zipped' }))));
    const chunks = [gz.subarray(0, 5), gz.subarray(5)];
    const { value } = await parseCorpus(chunks, 'corpus.jsonl.gz');
    expect(value.texts).toEqual(['zipped']);
  });

  it('reports corrupt gzip as an error rather than garbage documents', async () => {
    const gz = new Uint8Array(gzipSync(Buffer.from(line({ _id: '1', text: 'zipped' }).repeat(50))));
    const corrupt = gz.slice(0, gz.length - 20);
    corrupt[20] = corrupt[20]! ^ 0xff;
    const e = await inputError(parseCorpus(corrupt, 'corpus.jsonl.gz'));
    expect(e.message).toMatch(/^corpus\.jsonl\.gz: could not decompress/);
  });
});

describe('queries.jsonl and cross-checks', () => {
  it('selects queries the paper ranks: judged with a positive grade and non-empty text', async () => {
    const queries = (
      await parseQueries(
        [
          line({ _id: 'q1', text: 'a' }),
          line({ _id: 'q2', text: '  ' }),
          line({ _id: 'q3', text: 'c' }),
          line({ _id: 'q4', text: 'd' }),
        ].join('\n'),
        'queries.jsonl',
      )
    ).value;
    const qrels = (await parseQrels('q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 0\nq9 0 d1 1\n', 'qrels')).value;
    expect(selectEvaluationQueries(qrels, queries).map((i) => queries.ids[i])).toEqual(['q1']);
    expect(selectEvaluationQueries(qrels, queries, 0).map((i) => queries.ids[i])).toEqual(['q1', 'q3']);
  });

  it('reports judgments naming unknown queries and documents with counts, and keeps going', async () => {
    const corpus = (await parseCorpus([line({ _id: 'd1', text: 'a' })].join('\n'), 'c')).value;
    const queries = (await parseQueries(line({ _id: 'q1', text: 'a' }), 'q')).value;
    const qrels = (await parseQrels('q1 0 d1 1\nq1 0 d2 1\nq2 0 d3 1\n', 'qrels.txt')).value;
    const diags = checkQrels(qrels, 'qrels.txt', { corpus, queries });
    expect(diags.map((x) => x.message)).toEqual([
      expect.stringMatching(/^1 of 2 judged queries are not in the queries file \(e\.g\. "q2"\)/),
      expect.stringMatching(/^2 of 3 judgments name documents not in the corpus \(e\.g\. "d2", "d3"\)/),
    ]);
  });
});

describe('readLines', () => {
  it('numbers lines from 1, strips CR, keeps a last line without newline', async () => {
    const seen: [string, number][] = [];
    await readLines('a\r\nb\n\nc', (l, n) => seen.push([l, n]));
    expect(seen).toEqual([
      ['a', 1],
      ['b', 2],
      ['', 3],
      ['c', 4],
    ]);
  });
});
