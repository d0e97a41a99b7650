/**
 * Property tests: evaluate() against a naive, obviously-correct oracle written here from the textbook
 * definitions plus trec_eval's conventions (order by score desc then docid desc, -l threshold, -M after
 * ordering, -J after -M, averaging over run ∩ qrels or all qrels with -c), on random qrels and runs with
 * many tied scores, negative grades, unjudged documents and queries on one side only.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, parseMeasures } from '../../../src/core/metrics/index.ts';
import { qrels as makeQrels, run as makeRun } from './helpers.ts';

type Judgments = Record<string, Record<string, number>>;
type Lists = Record<string, [string, number][]>;

const CUTOFFS = [1, 2, 3, 5, 10];
const MEASURES = parseMeasures([
  'num_ret',
  'num_rel',
  'num_rel_ret',
  'map',
  'Rprec',
  'bpref',
  'recip_rank',
  'ndcg',
  'set_P',
  'set_recall',
  ...['P', 'recall', 'ndcg_cut', 'map_cut', 'success', 'ncg_cut', 'recip_rank_cut'].map((m) => `${m}.${CUTOFFS.join(',')}`),
]);

interface Options {
  level: number;
  complete: boolean;
  version: '10.0' | '9.0.8';
  maxRetrieved: number | undefined;
  judgedOnly: boolean;
  presorted: boolean;
}

/** The oracle: one query, straight from the definitions. */
function oracleQuery(judged: Record<string, number>, list: [string, number][], o: Options): Record<string, number> {
  const ranked = [...list]
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? 1 : x[0] > y[0] ? -1 : 0))
    .slice(0, o.maxRetrieved ?? Infinity)
    .filter(([doc]) => !o.judgedOnly || (judged[doc] ?? -1) >= 0) // -J: unjudged documents leave after the -M cut
    .map(([doc]) => doc);
  const grade = (d: string): number | undefined => judged[d];
  const isRel = (d: string): boolean => grade(d) !== undefined && grade(d)! >= 0 && grade(d)! >= o.level;
  const R = Object.values(judged).filter((g) => g >= 0 && g >= o.level).length;
  const N = Object.values(judged).filter((g) => g >= 0 && g < o.level).length;
  const relIn = (k: number): number => ranked.slice(0, k).filter(isRel).length;
  const gain = (d: string): number => Math.max(grade(d) ?? 0, 0);
  const ideal = Object.values(judged)
    .filter((g) => g > 0)
    .sort((a, b) => b - a);
  const dcg = (gains: number[]): number => gains.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  const sum = (xs: number[]): number => xs.reduce((s, x) => s + x, 0);

  let hits = 0;
  let ap = 0;
  ranked.forEach((d, i) => {
    if (isRel(d)) ap += ++hits / (i + 1);
  });
  const first = ranked.findIndex(isRel);
  let bpref = 0;
  let nonrelAbove = 0;
  for (const d of ranked) {
    const gd = grade(d);
    if (gd === undefined || gd < 0) continue;
    if (gd < o.level) nonrelAbove++;
    else bpref += nonrelAbove === 0 ? 1 : 1 - Math.min(nonrelAbove, R) / Math.min(N, R);
  }

  const v: Record<string, number> = {
    num_ret: ranked.length,
    num_rel: R,
    num_rel_ret: relIn(ranked.length),
    map: hits > 0 ? ap / R : 0,
    Rprec: R > 0 && ranked.length > 0 ? relIn(R) / R : 0,
    bpref: R > 0 ? bpref / R : bpref,
    recip_rank: first < 0 ? 0 : 1 / (first + 1),
    ndcg: dcg(ideal) > 0 ? dcg(ranked.map(gain)) / dcg(ideal) : 0,
    set_P: ranked.length > 0 ? relIn(ranked.length) / ranked.length : 0,
    set_recall: R > 0 ? relIn(ranked.length) / R : 0,
  };
  for (const k of CUTOFFS) {
    const top = ranked.slice(0, k);
    v[`P_${k}`] = relIn(k) / k;
    v[`recall_${k}`] = R > 0 ? relIn(k) / R : 0;
    const idcg = dcg(ideal.slice(0, k));
    v[`ndcg_cut_${k}`] = idcg > 0 ? dcg(top.map(gain)) / idcg : 0;
    let h = 0;
    let apk = 0;
    top.forEach((d, i) => {
      if (isRel(d)) apk += ++h / (i + 1);
    });
    v[`map_cut_${k}`] = R > 0 ? apk / R : 0;
    v[`success_${k}`] = relIn(k) > 0 ? 1 : 0;
    const icg = sum(ideal.slice(0, k));
    v[`ncg_cut_${k}`] = icg > 0 ? sum(top.map(gain)) / icg : 0;
    v[`recip_rank_cut_${k}`] = first >= 0 && first < k ? 1 / (first + 1) : 0;
  }
  return v;
}

const MEAN_EXCEPT = new Set(['num_ret', 'num_rel', 'num_rel_ret']);

/**
 * trec_eval 10.0 under -c evaluates a judged query the run lacks on a ranking of one unjudged document and
 * then reports num_ret 0; 9.0.8 leaves such a query out of the per-query output.
 */
function placeholderQuery(judged: Record<string, number>, o: Options): Record<string, number> {
  return { ...oracleQuery(judged, [['not-a-judged-doc', 1]], o), num_ret: 0 };
}

function oracle(judgments: Judgments, lists: Lists, o: Options) {
  const placeholders = o.complete && o.version === '10.0';
  const queries = Object.keys(placeholders ? judgments : lists)
    .filter((q) => judgments[q] !== undefined)
    .sort();
  const perQuery = new Map(
    queries.map((q) => [q, lists[q] ? oracleQuery(judgments[q]!, lists[q]!, o) : placeholderQuery(judgments[q]!, o)]),
  );
  const denominator = o.complete ? Object.keys(judgments).length : queries.length;
  const all: Record<string, number> = {};
  for (const name of Object.keys(perQuery.get(queries[0]!) ?? {})) {
    const total = queries.reduce((s, q) => s + perQuery.get(q)![name]!, 0);
    all[name] = MEAN_EXCEPT.has(name) ? total : total / denominator;
  }
  if (o.complete) all.num_rel = Object.values(judgments).reduce((s, j) => s + Object.values(j).filter((g) => g > 0).length, 0);
  return { queries, perQuery, all };
}

// Small id and score alphabets so ties and overlaps are common.
const docId = fc.constantFrom('d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9', 'D1', 'e10');
const queryId = fc.constantFrom('q1', 'q2', 'q3', 'q10', 'q4');
const score = fc.constantFrom(0, 0.5, 1, 1.5, 2, -1);
const grade = fc.constantFrom(-1, 0, 0, 1, 1, 2, 3);
const judgmentsArb = fc.dictionary(queryId, fc.dictionary(docId, grade, { minKeys: 1, maxKeys: 8 }), { minKeys: 1, maxKeys: 4 });
const listsArb = fc.dictionary(queryId, fc.uniqueArray(fc.tuple(docId, score), { minLength: 1, maxLength: 12, selector: ([d]) => d }), {
  minKeys: 1,
  maxKeys: 4,
});
const optionsArb = fc.record({
  level: fc.constantFrom(0, 1, 2, 3),
  complete: fc.boolean(),
  version: fc.constantFrom('10.0' as const, '9.0.8' as const),
  maxRetrieved: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
  judgedOnly: fc.boolean(),
  // run files are usually written by score: exercises the tie-group path of the ordering
  presorted: fc.boolean(),
});

describe('evaluate() agrees with a naive oracle', () => {
  it('on random qrels and runs with ties, every query and the summary', () => {
    fc.assert(
      fc.property(judgmentsArb, listsArb, optionsArb, (judgments, lists, o) => {
        const expected = oracle(judgments, lists, o);
        const q = makeQrels(judgments);
        const r = makeRun(
          o.presorted ? Object.fromEntries(Object.entries(lists).map(([k, l]) => [k, [...l].sort((x, y) => y[1] - x[1])])) : lists,
        );
        const opts = {
          relevanceLevel: o.level,
          complete: o.complete,
          version: o.version,
          judgedOnly: o.judgedOnly,
          ...(o.maxRetrieved === undefined ? {} : { maxRetrieved: o.maxRetrieved }),
        };
        if (expected.queries.every((qid) => lists[qid] === undefined)) {
          expect(() => evaluate(q, r, MEASURES, opts)).toThrow();
          return;
        }
        const got = evaluate(q, r, MEASURES, opts);
        expect(got.queries).toEqual(expected.queries);
        for (const qid of expected.queries) {
          const g = got.perQuery.get(qid as never)!;
          for (const [name, v] of Object.entries(expected.perQuery.get(qid)!)) expect(g[name], `${qid} ${name}`).toBeCloseTo(v, 12);
        }
        for (const [name, v] of Object.entries(expected.all)) expect(got.aggregate[name], `all ${name}`).toBeCloseTo(v, 12);
      }),
      { numRuns: 300 },
    );
  });

  it('NCG@k equals capped recall |relevant in top k| / min(k, R) on binary qrels', () => {
    const binary = fc.dictionary(queryId, fc.dictionary(docId, fc.constantFrom(0, 1), { minKeys: 1, maxKeys: 8 }), {
      minKeys: 1,
      maxKeys: 4,
    });
    fc.assert(
      fc.property(binary, listsArb, (judgments, lists) => {
        const q = makeQrels(judgments);
        const r = makeRun(lists);
        const evaluated = Object.keys(lists).filter((x) => judgments[x] !== undefined);
        if (evaluated.length === 0) return;
        const got = evaluate(q, r, parseMeasures([`ncg_cut.${CUTOFFS.join(',')}`, `P.${CUTOFFS.join(',')}`, 'num_rel']));
        for (const qid of got.queries) {
          const v = got.perQuery.get(qid)!;
          const R = v.num_rel!;
          for (const k of CUTOFFS) {
            const capped = R === 0 ? 0 : (v[`P_${k}`]! * k) / Math.min(k, R);
            expect(v[`ncg_cut_${k}`], `${qid} k=${k}`).toBeCloseTo(capped, 12);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
