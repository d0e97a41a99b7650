/**
 * The lab engine on SciFact: its BM25 run is the CLI's, its prepared ranks give the same report as
 * `analyzeFlips`, and the explorer's detail agrees with the runs and the qrels.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeFlips, reportFromPrepared } from '../../../src/core/flips/analyze.ts';
import { buildBm25Index, runBm25 } from '../../../src/core/retrieve/bm25.ts';
import { selectEvaluationQueries } from '../../../src/core/io/validate.ts';
import type { QueryId } from '../../../src/core/types.ts';
import { LabEngine, RUN_DEPTH } from '../../../src/lab/engine.ts';
import { loadBeirFolder, type BeirCollection } from '../../../src/node/files.ts';
import { SCIFACT_DIR } from '../../shared-data.ts';

const SCIFACT = SCIFACT_DIR;
let col: BeirCollection;
const engine = new LabEngine();

beforeAll(async () => {
  col = await loadBeirFolder(SCIFACT, 'test');
  engine.open({ name: 'scifact', corpus: col.corpus, queries: col.queries, qrels: col.qrels, runs: [], diagnostics: [] });
});

describe('LabEngine', () => {
  it('ranks the judged queries with the paper BM25, like the CLI', () => {
    const summary = engine.summary();
    expect(summary).toMatchObject({ docs: col.corpus.ids.length, queries: col.queries.ids.length, evaluated: 300, judged: true });
    engine.runBm25('bm25', {});
    engine.runBm25('bm25-k1=1.2-b=0.65', { k1: 1.2, b: 0.65 });
    const selected = selectEvaluationQueries(col.qrels, col.queries);
    const expected = runBm25(buildBm25Index(col.corpus, {}), col.corpus, col.queries, selected, RUN_DEPTH, 'bm25');
    expect([...engine.run('bm25').byQuery.keys()]).toEqual([...expected.byQuery.keys()]);
    for (const [qid, list] of expected.byQuery) expect(engine.run('bm25').byQuery.get(qid)!.docs).toEqual(list.docs);
  });

  it('prepares flips that re-slice into the same report as analyzeFlips', () => {
    const prepared = engine.prepare('bm25', ['bm25-k1=1.2-b=0.65'], { maxDepth: 50 });
    for (const label of ['any', 'strict'] as const) {
      const live = reportFromPrepared(prepared, { depths: [1, 5, 10, 20, 50], label, perQuery: true });
      const direct = analyzeFlips(col.qrels, engine.run('bm25'), [engine.run('bm25-k1=1.2-b=0.65')], { depths: [1, 5, 10, 20, 50], label, perQuery: true });
      expect(live).toEqual(direct);
    }
  });

  it('honours the relevance level (trec_eval -l) in flips and measures', () => {
    // SciFact grades are all 1: at level 2 no query has a relevant passage.
    expect(() => engine.prepare('bm25', ['bm25-k1=1.2-b=0.65'], { maxDepth: 10, relevanceLevel: 2 })).toThrow(/grade ≥ 2/);
    const strict = engine.metrics(['bm25'], [], 2)[0]!;
    const usual = engine.metrics(['bm25'], [], 1)[0]!;
    // Binary measures follow -l; nDCG uses the grades themselves (trec_eval semantics).
    expect(usual.values['map']).toBeGreaterThan(0);
    expect(strict.values['map']).toBe(0);
    expect(strict.values['recip_rank_cut.10']).toBe(0);
    expect(strict.values['ndcg_cut.10']).toBe(usual.values['ndcg_cut.10']);
    expect(engine.trecEval("bm25", 2)).toMatch(/^num_rel\s+all\s+0$/m);
    expect(engine.trecEval("bm25")).toMatch(/^num_rel\s+all\s+339$/m);
  });

  it('measures every run and marks partial ones', () => {
    const rows = engine.metrics(['bm25', 'bm25-k1=1.2-b=0.65'], ['bm25-k1=1.2-b=0.65']);
    expect(rows.map((r) => [r.run, r.partial])).toEqual([['bm25', false], ['bm25-k1=1.2-b=0.65', true]]);
    // SciFact BM25 nDCG@10 with the paper's settings (BEIR reports 0.665).
    expect(rows[0]!.values['ndcg_cut.10']).toBeCloseTo(0.6657, 3);
    expect(Object.keys(rows[0]!.values)).toHaveLength(6);
  });

  it('shows one query side by side with grades and first-relevant ranks', () => {
    const qid = [...col.qrels.byQuery.keys()][0]!;
    const detail = engine.detail(qid, ['bm25', 'bm25-k1=1.2-b=0.65'], 10);
    const judged = col.qrels.byQuery.get(qid)!;
    expect(detail.text).toBe(col.queries.texts[col.queries.indexOf.get(qid)!]);
    expect(detail.judged.map((j) => j.docId).sort()).toEqual([...judged.keys()].sort());
    const list = engine.run('bm25').byQuery.get(qid as QueryId)!;
    expect(detail.lists[0]!.docs.map((d) => d.docId)).toEqual(list.docs.slice(0, 10));
    const first = list.docs.findIndex((d) => (judged.get(d) ?? 0) > 0);
    expect(detail.lists[0]!.firstRelevant).toBe(first < 0 ? null : first + 1);
    for (const d of detail.lists[0]!.docs) expect(d.grade).toBe(judged.get(d.docId as never) ?? null);
    expect(engine.passage(list.docs[0]!).text).toBe(col.corpus.texts[col.corpus.indexOf.get(list.docs[0]!)!]);
    expect(() => engine.passage('no-such-doc')).toThrow(/not in the corpus/);
  });

  it('grows an encoder run batch by batch', () => {
    const { ids } = engine.evaluatedQueries();
    const dim = 4;
    const vec = (seed: number) => Float32Array.from({ length: dim }, (_, j) => Math.sin(seed * 7.1 + j));
    engine.beginVectorRun('toy', ids.map((_, i) => ({ dense: vec(i), tokens: 1 })));
    const n = col.corpus.ids.length;
    const half = Array.from({ length: Math.floor(n / 2) }, (_, i) => i);
    const s1 = engine.addVectors('toy', half, half.map((i) => ({ dense: vec(1000 + i), tokens: 1 })));
    expect(s1).toMatchObject({ encodedDocs: half.length, docs: n });
    const rest = Array.from({ length: n - half.length }, (_, i) => half.length + i);
    const s2 = engine.addVectors('toy', rest, rest.map((i) => ({ dense: vec(1000 + i), tokens: 1 })));
    expect(s2.encodedDocs).toBe(n);
    expect(engine.run('toy').byQuery.get(ids[0]!)!.docs).toHaveLength(RUN_DEPTH);
    expect(engine.runText('toy').split('\n')[0]).toMatch(/^\S+ Q0 \S+ 1 \S+ toy$/);
  });
});
