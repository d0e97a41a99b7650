/**
 * Queries made from documents (core/judging/synthetic.ts) and the BEIR folder they export as (core/io/beir-folder.ts):
 * - the sample against a naive oracle of its definition (eligibility, tercile classes, proportional shares by largest
 *   remainder), without duplicates, the same for the same seed, and a uniform draw within a stratum;
 * - the writer's prompt takes the passage once, as text; an edited prompt is another writer;
 * - a reply becomes a query (labels, list marks, quotes, blank lines);
 * - the files: queries with origin and source, the source passages at grade 2, the provenance read back;
 * - the folder: BEIR files the core's own readers read back to the same corpus, queries and judgments.
 */
import fc from 'fast-check';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { beirFolderReadme, runFileName, runFileNames } from '../../../src/core/io/beir-folder.ts';
import { beirFolderZip } from '../../../src/lab/data/beir-zip.ts';
import { parseCorpus, parseQueries } from '../../../src/core/io/beir.ts';
import { parseQrels } from '../../../src/core/io/trec.ts';
import {
  checkWriterPrompt,
  cleanQuery,
  editedWriter,
  MIN_WORDS,
  parseProvenance,
  provenanceSentence,
  QUERY_WRITER,
  samplePassages,
  sourceOf,
  SOURCE_GRADE,
  syntheticFiles,
  writerMessages,
  writerTasks,
} from '../../../src/core/judging/synthetic.ts';
import type { Corpus, DocId, DocIndex, QueryId } from '../../../src/core/types.ts';

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

/**
 * The definition, written plainly: classes by terciles, and each stratum's exact proportional share (the draw
 * takes its floor, or one more for the largest remainders).
 */
function oracleShares(ids: string[], texts: string[], n: number): Map<string, { size: number; exact: number }> {
  const count = (t: string) => t.split(/\s+/).filter(Boolean).length;
  const eligible = ids.map((_, i) => i).filter((i) => count(texts[i]!) >= MIN_WORDS);
  const sorted = eligible.map((i) => count(texts[i]!)).sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;
  const [b1, b2] = [q(1 / 3), q(2 / 3)];
  const cls = (w: number) => (w <= b1 ? 'short' : w <= b2 ? 'medium' : 'long');
  const sizes = new Map<string, number>();
  for (const i of eligible) {
    const key = `${sourceOf(ids[i]!)}\u0000${cls(count(texts[i]!))}`;
    sizes.set(key, (sizes.get(key) ?? 0) + 1);
  }
  const keys = [...sizes.keys()].sort();
  const want = Math.min(n, eligible.length);
  return new Map(keys.map((k) => [k, { size: sizes.get(k)!, exact: (want * sizes.get(k)!) / eligible.length }]));
}

describe('the sample of passages', () => {
  it('follows its definition, has no duplicates, and repeats for the same seed', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ folder: fc.constantFrom('', 'a', 'a/b', 'c'), words: fc.integer({ min: 0, max: 60 }) }), { maxLength: 80 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (docs, n, seed) => {
          const ids = docs.map((d, i) => (d.folder === '' ? `d${i}` : `${d.folder}/d${i}`));
          const texts = docs.map((d) => words(d.words));
          const s = samplePassages(ids, texts, n, seed);
          const oracle = oracleShares(ids, texts, n);
          expect(s.strata.map((x) => [`${x.source}\u0000${x.length}`, x.size])).toEqual([...oracle].map(([k, o]) => [k, o.size]));
          // Each stratum gets its floor or one more; those with one more have remainders no smaller than the others'.
          const rows = s.strata.map((x, i) => ({ taken: x.taken, exact: [...oracle.values()][i]!.exact }));
          for (const r of rows) expect(r.taken - Math.floor(r.exact)).toBeOneOf([0, 1]);
          expect(rows.reduce((a, r) => a + r.taken, 0)).toBe(
            Math.min(
              n,
              [...oracle.values()].reduce((a, o) => a + o.size, 0),
            ),
          );
          const rem = (r: (typeof rows)[number]) => r.exact - Math.floor(r.exact);
          const up = rows.filter((r) => r.taken > Math.floor(r.exact));
          const down = rows.filter((r) => r.taken === Math.floor(r.exact) && r.taken < r.exact);
          for (const u of up) for (const d of down) expect(rem(u)).toBeGreaterThanOrEqual(rem(d) - 1e-12);
          expect(new Set(s.indices).size).toBe(s.indices.length);
          expect([...s.indices].sort((a, b) => a - b)).toEqual(s.indices);
          for (const i of s.indices) expect(texts[i]!.split(' ').filter(Boolean).length).toBeGreaterThanOrEqual(MIN_WORDS);
          expect(s.tooShort).toBe(docs.filter((d) => d.words < MIN_WORDS).length);
          expect(samplePassages(ids, texts, n, seed)).toEqual(s);
        },
      ),
    );
  });

  it('draws every passage of a stratum about equally often', () => {
    const ids = Array.from({ length: 10 }, (_, i) => `x/d${i}`);
    const texts = ids.map(() => words(10));
    const hits = new Array<number>(10).fill(0);
    const trials = 4000;
    for (let seed = 0; seed < trials; seed++) for (const i of samplePassages(ids, texts, 3, seed).indices) hits[i]!++;
    // Each passage is drawn with probability 3/10: 1,200 of 4,000, binomial sd ≈ 29; 6 sd either way.
    for (const h of hits) expect(Math.abs(h - 1200)).toBeLessThan(6 * 29);
  });

  it('shares many small strata out by seed, not by name', () => {
    // 200 folders of 3 equal passages, 50 to draw: every stratum's share is 0.25; which get one is the seed's.
    const ids = Array.from({ length: 600 }, (_, i) => `f${String(Math.floor(i / 3)).padStart(3, '0')}/p${i}`);
    const texts = ids.map(() => words(10));
    const folders = (seed: number) => new Set(samplePassages(ids, texts, 50, seed).indices.map((i) => sourceOf(ids[i]!)));
    const [a, b] = [folders(1), folders(2)];
    expect(a.size).toBe(50);
    expect([...a].filter((f) => b.has(f)).length).toBeLessThan(30);
    // A corpus file is one source: its ids' slashes are not folders.
    const one = samplePassages(ids, texts, 50, 1, () => '');
    expect(one.strata.map((s) => s.source)).toEqual(['']);
  });

  it('names a passage’s source by the folder of its id', () => {
    expect(sourceOf('notes/2024/a')).toBe('notes/2024');
    expect(sourceOf('a')).toBe('');
  });
});

describe('the writer', () => {
  const passage = { id: 'doc/1', title: 'On {passage} tokens', text: `Text with {passage} in it. ${words(300)}` };

  it('puts the passage in once, as text, cut to its word limit', () => {
    const [system, user] = writerMessages(QUERY_WRITER, passage);
    expect(system!.content).toBe(QUERY_WRITER.system);
    const [before, after] = QUERY_WRITER.user.split('{passage}');
    expect(user!.content.startsWith(before!)).toBe(true);
    expect(user!.content.endsWith(after!)).toBe(true);
    const body = user!.content.slice(before!.length, user!.content.length - after!.length);
    expect(body.split('\n')[0]).toBe('On {passage} tokens');
    expect(body.split('\n')[1]!.split(' ').length).toBe(QUERY_WRITER.passageWords);
    const [task] = writerTasks(QUERY_WRITER, [passage]);
    expect(task).toMatchObject({ queryId: 'doc/1', passageIds: ['doc/1'], question: body });
  });

  it('keeps "$&" in a text and "{text}" in a title as written', () => {
    const [, user] = writerMessages(QUERY_WRITER, { id: 'x', title: 'Slots like {text}', text: "In JS, $& is the match and $' the rest" });
    expect(user!.content).toContain("Slots like {text}\nIn JS, $& is the match and $' the rest");
  });

  it('makes an edited prompt another writer, and refuses one without the passage', () => {
    expect(editedWriter(QUERY_WRITER, QUERY_WRITER.user)).toBe(QUERY_WRITER);
    const edited = editedWriter(QUERY_WRITER, 'Passage: {passage}\nQuery:');
    expect(edited.id).toMatch(/^fliplab-write-query\+edited-[0-9a-f]{8}$/);
    expect(editedWriter(QUERY_WRITER, 'Passage: {passage}\nQuery:').id).toBe(edited.id);
    expect(editedWriter(QUERY_WRITER, 'Text: {passage}\nQuery:').id).not.toBe(edited.id);
    expect(checkWriterPrompt('no placeholder')).toMatch(/exactly once; it holds it 0 times/);
    expect(checkWriterPrompt('{passage} {passage}')).toMatch(/2 times/);
    expect(checkWriterPrompt(QUERY_WRITER.user)).toBeNull();
  });

  it('reads the query out of a reply', () => {
    expect(cleanQuery('Query: "what causes tides?"\nExplanation: …')).toBe('what causes tides?');
    expect(cleanQuery('\n\n1. how   do vaccines work')).toBe('how do vaccines work');
    expect(cleanQuery('“search query: moon phases”')).toBe('search query: moon phases');
    expect(cleanQuery('Search query - moon')).toBe('moon');
    expect(cleanQuery(' \n...\n')).toBe('');
    expect(cleanQuery('tides\u0001 and\ufffd moon\u000f')).toBe('tides and moon');
    expect(cleanQuery(`a ${'b'.repeat(400)}`).length).toBe(300);
  });
});

describe('the files of a made collection', () => {
  const made = [
    { text: 'what causes tides', source: 'sea/tides', origin: 'reader' as const },
    { text: 'moon phases explained', source: 'sky/moon', origin: 'edited' as const },
    { text: 'my own question', source: null, origin: 'typed' as const },
  ];
  const files = syntheticFiles(made, {
    reader: { model: 'org/reader', revision: 'main', dtype: 'q8' },
    prompt: { name: 'fliplab-write-query@v1', text: QUERY_WRITER.user },
    sample: { asked: 2, seed: 1, strata: [], tooShort: 0 },
    deleted: 1,
  });

  it('writes the queries with their origin and source, and the sources at grade 2', () => {
    const lines = files.queries
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      { _id: 'q1', text: 'what causes tides', metadata: { origin: 'reader', source: 'sea/tides' } },
      { _id: 'q2', text: 'moon phases explained', metadata: { origin: 'edited', source: 'sky/moon' } },
      { _id: 'q3', text: 'my own question', metadata: { origin: 'typed' } },
    ]);
    expect(files.qrels).toBe(`query-id\tcorpus-id\tscore\nq1\tsea/tides\t${SOURCE_GRADE}\nq2\tsky/moon\t${SOURCE_GRADE}\n`);
    const p = parseProvenance(files.provenance, 'synthetic-queries.json');
    expect(p.queries).toEqual({ reader: 1, edited: 1, typed: 1, imported: 0, deleted: 1 });
    expect(p.reader?.model).toBe('org/reader');
    expect(provenanceSentence(p)).toBe(
      '3 queries made for the documents: 2 written by org/reader from sampled passages (1 edited by hand), 1 typed; each ' +
        'written query\'s source passage is judged 2 ("source").',
    );
  });

  it('has no qrels when no query has a source, and refuses a provenance that is not one', () => {
    expect(syntheticFiles([made[2]!], { reader: null, prompt: null, sample: null, deleted: 0 }).qrels).toBeNull();
    expect(() => parseProvenance('{"kind": "other"}', 'x.json')).toThrow(/x\.json: expected \{"kind": "fliplab synthetic queries"/);
    expect(() => parseProvenance('not json', 'x.json')).toThrow(/it is not JSON/);
  });
});

describe('a BEIR folder', () => {
  it('reads back, with the core’s own readers, to the same corpus, queries and judgments', async () => {
    const ids = ['a/1', 'b/2', 'c"3"'] as DocId[];
    const corpus: Corpus = {
      ids,
      titles: ['T1', '', 'quote " and \\ tab\t'],
      texts: ['one', 'two\nlines', 'three'],
      indexOf: new Map(ids.map((id, i) => [id, i as DocIndex])),
    };
    const qids = ['q1', 'q2'] as QueryId[];
    const queries = { ids: qids, texts: ['first?', 'second'], indexOf: new Map(qids.map((id, i) => [id, i])) };
    const qrels = {
      byQuery: new Map([
        [qids[0]!, new Map([[ids[0]!, 2]])],
        [
          qids[1]!,
          new Map([
            [ids[1]!, 0],
            [ids[2]!, 1],
          ]),
        ],
      ]),
    };
    const zip = beirFolderZip({ folder: 'mine', corpus, queries, qrels, split: 'test', extra: { 'runs/x.run': 'q1 Q0 a/1 1 1 x\n' } });
    const files = unzipSync(zip);
    expect(Object.keys(files).sort()).toEqual(['mine/corpus.jsonl', 'mine/qrels/test.tsv', 'mine/queries.jsonl', 'mine/runs/x.run']);
    const text = (p: string) => new TextDecoder().decode(files[p]);
    const c = (await parseCorpus(text('mine/corpus.jsonl'), 'corpus.jsonl')).value;
    expect([c.ids, c.titles, c.texts]).toEqual([corpus.ids, corpus.titles, corpus.texts]);
    const q = (await parseQueries(text('mine/queries.jsonl'), 'queries.jsonl')).value;
    expect([q.ids, q.texts]).toEqual([queries.ids, queries.texts]);
    expect((await parseQrels(text('mine/qrels/test.tsv'), 'test.tsv')).value.byQuery).toEqual(qrels.byQuery);
  });

  it('names run files safely, and its README gives the command that reproduces the analysis', () => {
    expect(runFileName('dense:bge/large v1.5')).toBe('dense_bge_large_v1.5');
    expect([...runFileNames(['a b', 'a_b', 'A_B', '..', 'x']).values()]).toEqual(['a_b', 'a_b-2', 'A_B-3', '_..', 'x']);
    const readme = beirFolderReadme({
      collection: 'mine',
      split: 'test',
      reference: 'bm25',
      candidates: ['bm25-rm3', 'ql mu=1000'],
      depths: [1, 5, 10],
      level: 1,
      label: 'any',
      judgedOnly: true,
      cohortAt: 5,
      judged: true,
      modelLayer: true,
      queriesNote: 'Synthetic queries: 3.',
    });
    expect(readme).toContain(
      'npx fliplab flips qrels/test.tsv --model-qrels model.qrels --reference runs/bm25.run --candidate runs/bm25-rm3.run ' +
        '--candidate runs/ql_mu=1000.run --depths 1,5,10 --label any -l 1 --judged-only --cohort-at 5',
    );
    expect(readme).toContain('Synthetic queries: 3.');
  });
});
