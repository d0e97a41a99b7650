import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseQrelsBytes } from '../../src/core/metrics/byte-input.ts';
import { parseCorpus } from '../../src/core/io/beir.ts';
import { normalizeId } from '../../src/core/io/ids.ts';
import { parseQrels } from '../../src/core/io/trec.ts';
import { cli } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';

const enc = (s: string) => new TextEncoder().encode(s);

describe('the one rule for ids with white space', () => {
  it('trims, and turns each run of white space inside into "_"', () => {
    expect(normalizeId('week 2 notes')).toBe('week_2_notes');
    expect(normalizeId(' doc \t one\u00a0x ')).toBe('doc_one_x');
    expect(normalizeId('plain-id')).toBe('plain-id');
  });

  it('corpus: the id is rewritten, one warning with an example counts them', async () => {
    const r = await parseCorpus(
      enc('{"_id":"doc one","text":"a"}\n{"_id":"doc  two ","text":"b"}\n{"_id":"d3","text":"c"}\n'),
      'corpus.jsonl',
    );
    expect(r.value.ids).toEqual(['doc_one', 'doc_two', 'd3']);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]!.message).toMatch(/^2 document id\(s\) held white space.*"doc one" → "doc_one"/);
  });

  it('two ids that differ only in white space collide, with the line of the first', async () => {
    await expect(parseCorpus(enc('{"_id":"a b","text":"x"}\n{"_id":"a_b","text":"y"}\n'), 'c.jsonl')).rejects.toThrow(
      /c\.jsonl:2: duplicate document id "a_b" \(first on line 1\)/,
    );
  });

  it('BEIR qrels TSV splits on tabs; TREC qrels on white space, as trec_eval', async () => {
    const beir = 'query-id\tcorpus-id\tscore\nq a\tdoc one\t1\nq1\tdoc 5\t2\nq1\td2\t0\n';
    const r = await parseQrels(enc(beir), 'test.tsv');
    expect([...r.value.byQuery.get('q_a' as never)!]).toEqual([['doc_one', 1]]);
    expect([...r.value.byQuery.get('q1' as never)!]).toEqual([
      ['doc_5', 2],
      ['d2', 0],
    ]);
    // The byte reader leaves such a file to the text parser instead of misreading "doc 5" as iter + docid.
    expect(parseQrelsBytes(enc(beir))).toBeUndefined();
    const trec = await parseQrels(enc('q1 0 d1 1\nq1\t0\td2\t2\n'), 'qrels.txt');
    expect([...trec.value.byQuery.get('q1' as never)!]).toEqual([
      ['d1', 1],
      ['d2', 2],
    ]);
    expect(parseQrelsBytes(enc('q1 0 d1 1\nq1\t0\td2\t2\n'))).toBeDefined();
  });
});

describe('a BEIR folder whose ids hold spaces', () => {
  const dir = join(tempDir('ids-spaces'), 'beir');
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const docs = [
    ['week 2 notes', 'retrieval evaluation with judgments'],
    ['doc one', 'neural rankers and dense vectors'],
    ['doc two', 'sparse lexical matching with bm25'],
    ['plain', 'cooking pasta at home'],
  ];
  writeFileSync(join(dir, 'corpus.jsonl'), docs.map(([id, text]) => JSON.stringify({ _id: id, title: '', text })).join('\n'));
  writeFileSync(
    join(dir, 'queries.jsonl'),
    [
      { _id: 'q a', text: 'evaluation judgments' },
      { _id: 'q b', text: 'lexical bm25 matching' },
    ]
      .map((q) => JSON.stringify(q))
      .join('\n'),
  );
  writeFileSync(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq a\tweek 2 notes\t1\nq b\tdoc two\t1\nq b\tplain\t0\n');

  it('fliplab bm25 writes a run that fliplab eval reads, and the ids match the qrels', async () => {
    const out = join(dir, '..', 'bm25.txt');
    const r = await cli('bm25', dir, '--depth', '4', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/white space/);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    for (const line of lines) expect(line.split(/\s+/)).toHaveLength(6);
    expect(lines[0]).toMatch(/^q_a Q0 week_2_notes 1 /);
    const e = await cli('eval', '-m', 'recip_rank', '-m', 'num_rel_ret', '-q', join(dir, 'qrels', 'test.tsv'), out);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toMatch(/^recip_rank\s+q_a\s+1\.0000$/m);
    expect(e.stdout).toMatch(/^recip_rank\s+q_b\s+1\.0000$/m);
    expect(e.stdout).toMatch(/^num_rel_ret\s+all\s+2$/m);
  });
});
