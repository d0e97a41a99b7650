/**
 * The lab engine on SciFact: its BM25 run is the CLI's, its prepared ranks re-slice into the counts and
 * per-query states of the paper's literal top-k definition, and the explorer's detail agrees with the runs and the qrels.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { reportFromPrepared } from '../../../src/core/flips/analyze.ts';
import { BM25_VARIANTS, buildBm25Index, runBm25, searchBm25 } from '../../../src/core/retrieve/bm25.ts';
import { buildLexicalIndex } from '../../../src/core/retrieve/lexical.ts';
import { ANSERINI_PRESETS, buildAnseriniIndex, runAnserini } from '../../../src/core/retrieve/bm25-anserini.ts';
import { formatRun } from '../../../src/core/io/trec.ts';
import { runQl } from '../../../src/core/retrieve/ql.ts';
import { runRm3 } from '../../../src/core/retrieve/rm3.ts';
import { tokenize } from '../../../src/core/text/tokenize.ts';
import { selectEvaluationQueries } from '../../../src/core/io/validate.ts';
import type { DocId, QueryId } from '../../../src/core/types.ts';
import { LabEngine, RUN_DEPTH } from '../../../src/worker/engine.ts';
import { loadBeirFolder, type BeirCollection } from '../../../src/node/files.ts';
import { SCIFACT_DIR } from '../../shared-data.ts';
import { listOf, positivesOf, supported } from '../flips/oracle.ts';
import { meanNdcgAt10, oracleCorpus, oracleSearch } from '../retrieve/bm25-oracle.ts';

const SCIFACT = SCIFACT_DIR;
let col: BeirCollection;
const engine = new LabEngine();

beforeAll(async () => {
  col = await loadBeirFolder(SCIFACT, 'test');
  engine.open({ name: 'scifact', corpus: col.corpus, queries: col.queries, qrels: col.qrels, runs: [], diagnostics: [] });
});

describe('LabEngine instant candidates and explanations', () => {
  it('ranks with RM3 and QL as the core does, explains BM25 scores, and shows what RM3 searched for', () => {
    const selected = selectEvaluationQueries(col.qrels, col.queries);
    engine.retrievers.runBm25('bm25', {});
    engine.retrievers.runLexical('bm25-rm3', { kind: 'rm3', params: {} });
    engine.retrievers.runLexical('ql', { kind: 'ql', mu: 1000 });
    const lex = buildLexicalIndex(col.corpus);
    const bm25 = buildBm25Index(col.corpus, {});
    const rm3 = runRm3(lex, col.corpus, col.queries, selected, RUN_DEPTH, (t, n) => searchBm25(bm25, t, n));
    const ql = runQl(lex, col.corpus, col.queries, selected, RUN_DEPTH);
    for (const [qid, list] of rm3.byQuery) expect(engine.retrievers.run('bm25-rm3').byQuery.get(qid)!.docs).toEqual(list.docs);
    for (const [qid, list] of ql.byQuery) expect(engine.retrievers.run('ql').byQuery.get(qid)!.docs).toEqual(list.docs);

    // BM25's per-term weights add up to the run's score (float32 accumulation aside).
    for (const qid of [...engine.retrievers.run('bm25').byQuery.keys()].slice(0, 20)) {
      const list = engine.retrievers.run('bm25').byQuery.get(qid)!;
      const why = engine.explorer.explainBm25(qid, list.docs[0]!, 'bm25')!;
      expect(Math.abs(why.total - list.scores[0]!)).toBeLessThan(1e-5 * list.scores[0]!);
      for (const t of why.terms) if (t.tf === 0) expect(t.weight).toBe(0);
      expect(why.terms.some((t) => t.tf > 0)).toBe(true);
    }
    expect(engine.explorer.explainBm25(col.queries.ids[0]!, col.corpus.ids[0]!, 'ql')).toBeNull();
    expect(engine.explorer.explainBm25('no such query', col.corpus.ids[0]!, 'bm25')).toBeNull();

    // QL's per-term shares and length term are the ranker's own additions: they sum to the run's score exactly.
    for (const qid of [...engine.retrievers.run('ql').byQuery.keys()].slice(0, 20)) {
      const list = engine.retrievers.run('ql').byQuery.get(qid)!;
      for (const r of [0, list.docs.length - 1]) {
        const why = engine.explorer.explain(qid, list.docs[r]!, 'ql')!;
        expect(why.kind).toBe('ql');
        if (why.kind !== 'ql') continue;
        expect(why.total).toBe(list.scores[r]);
        expect(why.terms.reduce((s, t) => s + t.weight, 0) + why.lengthWeight).toBe(list.scores[r]);
        expect(why.terms.some((t) => t.tf > 0)).toBe(true);
      }
    }
    expect(engine.explorer.explain(col.queries.ids[0]!, col.corpus.ids[0]!, 'bm25')?.kind).toBe('bm25');
    expect(engine.explorer.explain(col.queries.ids[0]!, col.corpus.ids[0]!, 'bm25-rm3')).toBeNull();
    expect(engine.explorer.explainQl(col.queries.ids[0]!, col.corpus.ids[0]!, 'bm25')).toBeNull();

    // The expansion: the query's own terms keep weight, new terms join, weights sum to 1.
    const qid = [...rm3.byQuery.keys()][0]!;
    const expanded = engine.explorer.rm3Expansion(qid, 'bm25-rm3')!;
    const query = new Set(tokenize(col.queries.texts[col.queries.indexOf.get(qid)!]!));
    expect(expanded.terms.some((t) => !query.has(t))).toBe(true);
    for (const t of query) expect(expanded.terms).toContain(t);
    expect(expanded.weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
    expect(engine.explorer.rm3Expansion(qid, 'bm25')).toBeNull();
  });
});

describe('LabEngine BM25 (Anserini)', () => {
  it("ranks the judged queries as the core's runAnserini does, keeps one index per parameters, and explains Lucene's scores", () => {
    const own = new LabEngine();
    own.open({ name: 'scifact', corpus: col.corpus, queries: col.queries, qrels: col.qrels, runs: [], diagnostics: [] });
    const selected = selectEvaluationQueries(col.qrels, col.queries);
    const progress: [number, number][] = [];
    own.retrievers.runLexical('bm25-anserini', { kind: 'anserini', params: ANSERINI_PRESETS.anserini }, (done, total) =>
      progress.push([done, total]),
    );
    expect(progress.at(-1)).toEqual([col.corpus.ids.length, col.corpus.ids.length]);
    const expected = runAnserini(buildAnseriniIndex(col.corpus, ANSERINI_PRESETS.anserini), col.corpus, col.queries, selected, RUN_DEPTH);
    expect(own.retrievers.runText('bm25-anserini')).toBe(formatRun(expected, 'bm25-anserini'));
    expect(own.collection.summary().evaluated).toBe(300);

    // The index is kept: a second run with the same parameters builds nothing (no progress reported).
    progress.length = 0;
    own.retrievers.runLexical('bm25-anserini', { kind: 'anserini', params: { ...ANSERINI_PRESETS.anserini } }, (done, total) =>
      progress.push([done, total]),
    );
    expect(progress).toEqual([]);

    // Explanations: the clauses' float sum is Lucene's score; rounded to 4 decimals it is the run's (top rank: no tie).
    for (const qid of [...expected.byQuery.keys()].slice(0, 20)) {
      const list = own.retrievers.run('bm25-anserini').byQuery.get(qid)!;
      const why = own.explorer.explain(qid, list.docs[0]!, 'bm25-anserini')!;
      expect(why.kind).toBe('anserini');
      if (why.kind !== 'anserini') continue;
      expect(why.fields).toBe('flat');
      expect(Math.fround(why.terms.reduce((s, t) => s + t.weight, 0))).toBe(why.total);
      expect(Math.round(why.total * 1e4) / 1e4).toBeCloseTo(list.scores[0]!, 5); // the run file prints the float in 6 decimals
      for (const t of why.terms) if (t.tf === 0) expect(t.weight).toBe(0);
    }
    const [qid, list] = [...own.retrievers.run('bm25-anserini').byQuery][0]!;
    // Not an Anserini run, a malformed name, a run this lab has not made, an unknown query: no explanation.
    expect(own.explorer.explainAnserini(qid, list.docs[0]!, 'bm25')).toBeNull();
    expect(own.explorer.explainAnserini(qid, list.docs[0]!, 'bm25-anserini-k1=x-b=0.4')).toBeNull();
    expect(own.explorer.explainAnserini(qid, list.docs[0]!, 'bm25-anserini-multifield')).toBeNull();
    expect(own.explorer.explainAnserini('no such query', list.docs[0]!, 'bm25-anserini')).toBeNull();
    expect(own.explorer.explain(qid, list.docs[0]!, 'bm25')?.kind).toBe('bm25');

    // k1 or b out of range is refused with the core's words; nothing is stored.
    expect(() =>
      own.retrievers.runLexical('bm25-anserini-k1=-1-b=0.4', { kind: 'anserini', params: { k1: -1, b: 0.4, fields: 'flat' } }),
    ).toThrow('BM25 k1 must be a finite number ≥ 0, got -1');
    expect(own.retrievers.runNames()).toEqual(['bm25-anserini']);
    own.retrievers.removeRun('bm25-anserini');
    expect(own.explorer.explainAnserini(qid, list.docs[0]!, 'bm25-anserini')).toBeNull();
  });
});

describe('LabEngine', () => {
  it('ranks the judged queries with the paper BM25, like the CLI', () => {
    const summary = engine.collection.summary();
    expect(summary).toMatchObject({ docs: col.corpus.ids.length, queries: col.queries.ids.length, evaluated: 300, judged: true });
    engine.retrievers.runBm25('bm25', {});
    engine.retrievers.runBm25('bm25-k1=1.2-b=0.65', { k1: 1.2, b: 0.65 });
    const selected = selectEvaluationQueries(col.qrels, col.queries);
    const expected = runBm25(buildBm25Index(col.corpus, {}), col.corpus, col.queries, selected, RUN_DEPTH, 'bm25');
    expect([...engine.retrievers.run('bm25').byQuery.keys()]).toEqual([...expected.byQuery.keys()]);
    for (const [qid, list] of expected.byQuery) expect(engine.retrievers.run('bm25').byQuery.get(qid)!.docs).toEqual(list.docs);
  });

  it('prepares flips whose re-sliced report equals the literal top-k definition at every depth', () => {
    const depths = [1, 5, 10, 20, 50];
    const prepared = engine.analysis.prepare('bm25', ['bm25-k1=1.2-b=0.65'], { maxDepth: 50 });
    const reference = engine.retrievers.run('bm25');
    const candidate = engine.retrievers.run('bm25-k1=1.2-b=0.65');
    const positives = positivesOf(col.qrels, 1);
    for (const label of ['any', 'strict'] as const) {
      const live = reportFromPrepared(prepared, { depths, label, perQuery: true });
      expect(live.queries).toBe(positives.size);
      const states = new Map(live.per_query!.map((row) => [row.qid, row.candidates[0]!.states]));
      depths.forEach((k, d) => {
        // The paper's definition, literally: slice both top k and test the positives.
        const counts = { preserved: 0, broken: 0, fixed: 0, unchanged: 0 };
        let referenceSupported = 0;
        for (const [qid, pos] of positives) {
          const B = supported(listOf(reference, qid).slice(0, k), pos, label);
          const D = supported(listOf(candidate, qid).slice(0, k), pos, label);
          const state = B && D ? 'preserved' : B ? 'broken' : D ? 'fixed' : 'unchanged';
          counts[state]++;
          if (B) referenceSupported++;
          expect(states.get(qid)![d], `${qid} at k=${k} (${label})`).toBe(state);
        }
        const block = live.depths[d]!;
        expect(block.k).toBe(k);
        expect(block.reference.supported).toBe(referenceSupported);
        expect(block.candidates[0]).toMatchObject(counts);
      });
      // The premise that makes this a test: the variant really flips some queries at some depth.
      expect(live.depths.some((b) => b.candidates[0]!.broken > 0 && b.candidates[0]!.fixed > 0)).toBe(true);
    }
  });

  it('honours the relevance level (trec_eval -l) in flips and measures', () => {
    // SciFact grades are all 1: at level 2 no query has a relevant passage.
    expect(() => engine.analysis.prepare('bm25', ['bm25-k1=1.2-b=0.65'], { maxDepth: 10, relevanceLevel: 2 })).toThrow(/grade ≥ 2/);
    const strict = engine.analysis.metrics(['bm25'], [], 2)[0]!;
    const usual = engine.analysis.metrics(['bm25'], [], 1)[0]!;
    // Binary measures follow -l; nDCG uses the grades themselves (trec_eval semantics).
    expect(usual.values['map']).toBeGreaterThan(0);
    expect(strict.values['map']).toBe(0);
    expect(strict.values['recip_rank_cut.10']).toBe(0);
    expect(strict.values['ndcg_cut.10']).toBe(usual.values['ndcg_cut.10']);
    expect(engine.analysis.trecEval('bm25', 2)).toMatch(/^num_rel\s+all\s+0$/m);
    expect(engine.analysis.trecEval('bm25')).toMatch(/^num_rel\s+all\s+339$/m);
  });

  it('measures again only when the judgments, the run or the setting change', () => {
    const before = engine.analysis.metrics(['bm25'])[0]!.values;
    expect(engine.analysis.metrics(['bm25'])[0]!.values).toEqual(before);
    // A judged relevant passage at rank 1 of every query: MRR becomes 1, then goes back with the layer.
    const tops = [...engine.retrievers.run('bm25').byQuery].map(([q, l]) => ({ qid: q, docid: l.docs[0]!, grade: 1 }));
    engine.judgments.setJudgments(tops);
    const judged = engine.analysis.metrics(['bm25'])[0]!.values;
    expect(judged['recip_rank_cut.10']).toBe(1);
    expect(before['recip_rank_cut.10']).toBeLessThan(1);
    engine.judgments.setJudgments([]);
    expect(engine.analysis.metrics(['bm25'])[0]!.values).toEqual(before);
  });

  it('measures every run and marks partial ones', () => {
    const rows = engine.analysis.metrics(['bm25', 'bm25-k1=1.2-b=0.65'], ['bm25-k1=1.2-b=0.65']);
    expect(rows.map((r) => [r.run, r.partial, r.trecEval])).toEqual([
      ['bm25', false, '10.0'],
      ['bm25-k1=1.2-b=0.65', true, '10.0'],
    ]);
    expect(Object.keys(rows[0]!.values)).toHaveLength(6);
  });

  it("its nDCG@10 equals the naive BM25 loop's top 10 scored by a literal nDCG@10", () => {
    // The independent chain: the reference script's BM25 loop with no index (bm25-oracle.ts), each query's top
    // 50 put in trec_eval's order (score desc, docid desc), and nDCG@10 written out. Not BEIR's 0.665: that
    // figure is Anserini's stemmed BM25, a different system; 0.6657 is this project's paper BM25 (no stemming).
    const oc = oracleCorpus(col.corpus);
    const oracleRun = new Map<QueryId, { docs: DocId[] }>();
    for (const qi of selectEvaluationQueries(col.qrels, col.queries)) {
      const hit = oracleSearch(oc, col.queries.texts[qi]!, 50, BM25_VARIANTS.ragflip);
      const ranked = hit.docs.map((d, i) => ({ id: col.corpus.ids[d]!, score: hit.scores[i]! }));
      ranked.sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      oracleRun.set(col.queries.ids[qi]!, { docs: ranked.map((r) => r.id) });
    }
    const want = meanNdcgAt10(oracleRun, col.qrels);
    const got = engine.analysis.metrics(['bm25'])[0]!.values['ndcg_cut.10']!;
    expect(Math.abs(got - want)).toBeLessThan(1e-12);
    expect(got.toFixed(4)).toBe('0.6657');
  }, 60_000);

  it('shows one query side by side with grades and first-relevant ranks', () => {
    const qid = [...col.qrels.byQuery.keys()][0]!;
    const detail = engine.explorer.detail(qid, ['bm25', 'bm25-k1=1.2-b=0.65'], 10);
    const judged = col.qrels.byQuery.get(qid)!;
    expect(detail.text).toBe(col.queries.texts[col.queries.indexOf.get(qid)!]);
    expect(detail.judged.map((j) => j.docId).sort()).toEqual([...judged.keys()].sort());
    const list = engine.retrievers.run('bm25').byQuery.get(qid as QueryId)!;
    expect(detail.lists[0]!.docs.map((d) => d.docId)).toEqual(list.docs.slice(0, 10));
    const first = list.docs.findIndex((d) => (judged.get(d) ?? 0) > 0);
    expect(detail.lists[0]!.firstRelevant).toBe(first < 0 ? null : first + 1);
    for (const d of detail.lists[0]!.docs) expect(d.grade).toBe(judged.get(d.docId as never) ?? null);
    expect(engine.collection.passage(list.docs[0]!).text).toBe(col.corpus.texts[col.corpus.indexOf.get(list.docs[0]!)!]);
    expect(() => engine.collection.passage('no-such-doc')).toThrow(/not in the corpus/);
  });

  it('grows an encoder run batch by batch', () => {
    const { ids } = engine.collection.evaluatedQueries();
    const dim = 4;
    const vec = (seed: number) => Float32Array.from({ length: dim }, (_, j) => Math.sin(seed * 7.1 + j));
    engine.retrievers.beginVectorRun(
      'toy',
      ids.map((_, i) => ({ dense: vec(i), tokens: 1 })),
    );
    const n = col.corpus.ids.length;
    const half = Array.from({ length: Math.floor(n / 2) }, (_, i) => i);
    const s1 = engine.retrievers.addVectors(
      'toy',
      half,
      half.map((i) => ({ dense: vec(1000 + i), tokens: 1 })),
    );
    expect(s1).toMatchObject({ encodedDocs: half.length, docs: n });
    const rest = Array.from({ length: n - half.length }, (_, i) => half.length + i);
    const s2 = engine.retrievers.addVectors(
      'toy',
      rest,
      rest.map((i) => ({ dense: vec(1000 + i), tokens: 1 })),
    );
    expect(s2.encodedDocs).toBe(n);
    expect(engine.retrievers.run('toy').byQuery.get(ids[0]!)!.docs).toHaveLength(RUN_DEPTH);
    expect(engine.retrievers.runText('toy').split('\n')[0]).toMatch(/^\S+ Q0 \S+ 1 \S+ toy$/);
  });
});

describe('LabEngine depth warnings', () => {
  it('a lab run that ranks every matching passage is not warned about; the same lists read from a file are', () => {
    const demo = new LabEngine();
    const corpus = {
      ids: ['a', 'b', 'c', 'd'] as DocId[],
      titles: ['', '', '', ''],
      texts: ['apples and pears', 'pears only', 'rivers and lakes', 'mountains'],
      indexOf: new Map([
        ['a', 0],
        ['b', 1],
        ['c', 2],
        ['d', 3],
      ]) as never,
    };
    const queries = {
      ids: ['q1', 'q2'] as QueryId[],
      texts: ['pears', 'rivers'],
      indexOf: new Map([
        ['q1', 0],
        ['q2', 1],
      ]) as never,
    };
    const qrels = {
      byQuery: new Map([
        ['q1' as QueryId, new Map([['a' as DocId, 1]])],
        ['q2' as QueryId, new Map([['c' as DocId, 1]])],
      ]),
    };
    demo.open({ name: 'tiny', corpus, queries, qrels, runs: [], diagnostics: [] });
    demo.retrievers.runBm25('bm25', {});
    // q1 matches 2 passages, q2 one: short lists, but complete
    expect(demo.retrievers.run('bm25').byQuery.get('q2' as QueryId)!.docs).toEqual(['c']);
    expect(demo.analysis.depthWarnings(['bm25'], [1, 3]).cut).toEqual([]);
    // the exports keep the CLI's warnings (it cannot know a file's lists are complete)
    expect(demo.analysis.depthWarnings(['bm25'], [1, 3]).warnings.map((x) => x.requested)).toEqual([3]);
    // a depth beyond the corpus (4 passages) is still said: no run can rank 5
    expect(demo.analysis.depthWarnings(['bm25'], [1, 3, 5]).cut.map((x) => [x.requested, x.runDepth])).toEqual([[5, 4]]);
    demo.retrievers.addRun({ ...demo.retrievers.run('bm25'), name: 'from-a-file' });
    const w = demo.analysis.depthWarnings(['from-a-file'], [1, 3]).cut;
    expect(w.map((x) => [x.run, x.requested, x.shortQueries])).toEqual([['from-a-file', 3, 2]]);
  });
});
