/**
 * filterQueries against a naive oracle over random per-query rows (fast-check), and against the core's
 * own aggregate counts on a report built by analyzeFlips.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { ExplorerFilter, FlipReport, PerQueryRow, TransitionState } from '../../../src/app/types.ts';
import { agreementRows, filterQueries, nearestDepthIndex } from '../../../src/app/views/explorer/explorer-filter.ts';
import type { AgreementReport } from '../../../src/core/agreement/index.ts';
import { synthetic } from './fixtures.ts';

const STATES: TransitionState[] = ['preserved', 'broken', 'fixed', 'unchanged'];
const FILTERS: ExplorerFilter[] = ['all', ...STATES];

/** A report shell around arbitrary per-query rows (only the fields the explorer reads). */
function reportOf(names: string[], depthList: number[], perQuery: PerQueryRow[]): FlipReport {
  return {
    queries: perQuery.length,
    label: 'any',
    relevance_level: 1,
    judged_only: false,
    cohort_at: null,
    depth_list: depthList,
    runs: [
      { name: 'ref', role: 'reference', missing_queries: 0 },
      ...names.map((name) => ({ name, role: 'candidate' as const, missing_queries: 0 })),
    ],
    depths: [],
    paired: [],
    hybrids: [],
    strata: [],
    per_query: perQuery,
  };
}

const arbCase = fc
  .record({
    names: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 3 }),
    depths: fc.integer({ min: 1, max: 4 }),
    n: fc.integer({ min: 0, max: 60 }),
  })
  .chain(({ names, depths, n }) =>
    fc.record({
      names: fc.constant(names),
      depthList: fc.constant(Array.from({ length: depths }, (_, i) => (i + 1) * 5)),
      rows: fc.uniqueArray(
        fc.record({
          qid: fc.string({ minLength: 1, maxLength: 4, unit: fc.constantFrom('q', 'Q', '1', '2', 'x', 'É', 'é') }),
          text: fc.string({ maxLength: 8, unit: fc.constantFrom('a', 'B', 'c', ' ', 'Q', '1', 'é', 'É') }),
          reference_rank: fc.option(fc.integer({ min: 1, max: 50 }), { nil: null }),
          candidates: fc.tuple(
            ...names.map((name) =>
              fc.record({
                name: fc.constant(name),
                rank: fc.option(fc.integer({ min: 1, max: 50 }), { nil: null }),
                states: fc.array(fc.constantFrom(...STATES), { minLength: depths, maxLength: depths }),
              }),
            ),
          ),
        }),
        { maxLength: n, selector: (r) => r.qid },
      ),
      candidate: fc.constantFrom(...names),
      depthIndex: fc.integer({ min: 0, max: depths - 1 }),
      state: fc.constantFrom(...FILTERS),
      text: fc.oneof(fc.constant(''), fc.string({ maxLength: 3, unit: fc.constantFrom('a', 'b', 'q', 'Q', '1', 'É', ' ') })),
    }),
  );

describe('filterQueries', () => {
  test('matches a naive oracle on random per-query rows', () => {
    fc.assert(
      fc.property(arbCase, (c) => {
        const texts = new Map(c.rows.map((r) => [r.qid, r.text]));
        const perQuery: PerQueryRow[] = c.rows.map((r) => ({
          qid: r.qid,
          reference_rank: r.reference_rank,
          reference_unjudged: c.depthList.map(() => 0),
          candidates: r.candidates.map((x) => ({ ...x, unjudged: c.depthList.map(() => 0) })),
        }));
        const report = reportOf(c.names, c.depthList, perQuery);
        const got = filterQueries(
          report,
          { candidate: c.candidate, depthIndex: c.depthIndex, state: c.state, text: c.text },
          (q) => texts.get(q) ?? '',
        );

        // Oracle: literal reading of the spec.
        const needle = c.text.trim().toLocaleLowerCase('en');
        const textMatch = perQuery.filter(
          (r) =>
            needle === '' ||
            r.qid.toLocaleLowerCase('en').includes(needle) ||
            (texts.get(r.qid) ?? '').toLocaleLowerCase('en').includes(needle),
        );
        const stateOf = (r: PerQueryRow): TransitionState => r.candidates.find((x) => x.name === c.candidate)!.states[c.depthIndex]!;
        const expected = textMatch.filter((r) => c.state === 'all' || stateOf(r) === c.state);
        expect(got.rows.map((r) => r.qid)).toEqual(expected.map((r) => r.qid));
        for (const row of got.rows) {
          const src = perQuery[row.index]!;
          expect(row.qid).toBe(src.qid);
          expect(row.referenceRank).toBe(src.reference_rank);
          expect(row.candidateRank).toBe(src.candidates.find((x) => x.name === c.candidate)!.rank);
          expect(row.state).toBe(stateOf(src));
        }
        for (const f of FILTERS) {
          expect(got.counts[f]).toBe(f === 'all' ? textMatch.length : textMatch.filter((r) => stateOf(r) === f).length);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('with no text, the chip counts equal the core aggregate counts at every depth', () => {
    const s = synthetic(400, { seed: 7, candidates: 2 });
    for (const block of s.report.depths) {
      const d = s.report.depth_list.indexOf(block.k);
      for (const cand of block.candidates) {
        const { counts, rows } = filterQueries(s.report, { candidate: cand.name, depthIndex: d, state: 'all', text: '' }, (q) =>
          s.texts.get(q)!,
        );
        expect(rows).toHaveLength(s.report.queries);
        expect(counts).toEqual({
          all: s.report.queries,
          broken: cand.broken,
          fixed: cand.fixed,
          preserved: cand.preserved,
          unchanged: cand.unchanged,
        });
      }
    }
  });

  test('states agree with the ranks: supported at k ⇔ rank ≤ k', () => {
    const s = synthetic(300, { seed: 3, candidates: 1 });
    s.report.depth_list.forEach((k, d) => {
      for (const r of filterQueries(s.report, { candidate: 'cand-1', depthIndex: d, state: 'all', text: '' }, () => '').rows) {
        const b = r.referenceRank !== null && r.referenceRank <= k;
        const c = r.candidateRank !== null && r.candidateRank <= k;
        expect(r.state).toBe(b ? (c ? 'preserved' : 'broken') : c ? 'fixed' : 'unchanged');
      }
    });
  });

  test('bad arguments are clear errors', () => {
    const s = synthetic(5, { seed: 1, candidates: 1 });
    const q = { candidate: 'cand-1', depthIndex: 0, state: 'all' as const, text: '' };
    expect(() => filterQueries(s.report, { ...q, candidate: 'nope' }, () => '')).toThrow(
      /unknown candidate "nope": expected one of cand-1/,
    );
    expect(() => filterQueries(s.report, { ...q, depthIndex: 9 }, () => '')).toThrow(/depth index 9/);
    const { per_query: _, ...bare } = s.report;
    expect(() => filterQueries(bare, q, () => '')).toThrow(/no per-query rows/);
  });

  test('nearestDepthIndex', () => {
    expect(nearestDepthIndex([1, 5, 10, 20, 50], 10)).toBe(2);
    expect(nearestDepthIndex([1, 5, 10, 20, 50], 15)).toBe(2);
    expect(nearestDepthIndex([1, 5, 10, 20, 50], 16)).toBe(3);
    expect(nearestDepthIndex([1, 5, 10, 20, 50], 1000)).toBe(4);
    expect(nearestDepthIndex([], 3)).toBe(-1);
  });
});

describe('agreementRows (collections without judgments)', () => {
  const reportOfAgreement = (per: { qid: string; overlap: number[]; rbo: number[] }[]): AgreementReport => ({
    queries: per.length,
    depth_list: [1, 10],
    rbo_p: 0.9,
    interval: 'student-t 95%',
    runs: [
      { name: 'ref', role: 'reference', missing_queries: 0 },
      { name: 'cand', role: 'candidate', missing_queries: 0 },
    ],
    depths: [],
    per_query: per.map((q) => ({ qid: q.qid, candidates: [{ name: 'cand', overlap: q.overlap, rbo: q.rbo }] })),
  });

  test('least overlap first, then least RBO, then report order; the text filter matches ids and texts', () => {
    const share = fc.integer({ min: 0, max: 10 }).map((n) => n / 10);
    fc.assert(
      fc.property(
        fc.array(fc.record({ overlap: fc.tuple(share, share), rbo: fc.tuple(share, share) }), { maxLength: 30 }),
        fc.constantFrom('', 'q1', 'even'),
        fc.constantFrom(0, 1),
        (rows, text, depthIndex) => {
          const per = rows.map((r, i) => ({ qid: `q${i}`, overlap: [...r.overlap], rbo: [...r.rbo] }));
          const queryText = (qid: string) => (Number(qid.slice(1)) % 2 === 0 ? 'an even query' : 'an odd query');
          const got = agreementRows(reportOfAgreement(per), 'cand', depthIndex, text, queryText);
          // Naive oracle: filter, then a stable sort by (overlap, rbo).
          const want = per
            .filter((q) => text === '' || q.qid.includes(text) || queryText(q.qid).includes(text))
            .map((q, order) => ({ qid: q.qid, overlap: q.overlap[depthIndex]!, rbo: q.rbo[depthIndex]!, order }))
            .sort((a, b) => (a.overlap !== b.overlap ? a.overlap - b.overlap : a.rbo !== b.rbo ? a.rbo - b.rbo : a.order - b.order))
            .map(({ qid, overlap, rbo }) => ({ qid, overlap, rbo }));
          expect(got).toEqual(want);
        },
      ),
    );
  });

  test('a candidate the report does not hold lists nothing', () => {
    expect(agreementRows(reportOfAgreement([{ qid: 'q1', overlap: [1, 1], rbo: [1, 1] }]), 'other', 0, '', () => '')).toEqual([]);
  });
});
