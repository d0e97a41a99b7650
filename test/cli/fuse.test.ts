/**
 * `fliplab fuse` against a literal implementation of the definitions (written here, not taken from the core),
 * on TREC DL 2019's BM25 run and a second run derived from it, every query and every rank:
 *   RRF(c):        score(d) = Σ over both runs of 1 / (c + rank(d)), ranks 1-based in each run's own order
 *   CombSUM(α):    α·norm_cand(d) + (1 − α)·norm_ref(d), norm = (s − min)/(max − min) over the query's full
 *                  list (1 when max = min), 0 for a run that lacks d
 *   alternation a:b: a from the candidate, then b from the reference, duplicates skipped
 *   ties:          the passage alternation 1:1 would take first (min of 2·rank_cand − 1 and 2·rank_ref)
 * And `fliplab frontier`: each point equals `fliplab flips` run on that fused run at k.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.ts';
import { SHARED_DATA } from '../shared-data.ts';
import { tempDir } from '../support/temp.ts';
import { frontierAt, fusionFrontier, prepareFrontier, SWEEP_RRF_C } from '../../src/core/flips/fusion.ts';
import { parseQrels, parseRun } from '../../src/core/io/trec.ts';

const tmp = tempDir('fuse');
const DL19 = join(SHARED_DATA, 'trec-dl19-passage');
const QRELS = join(DL19, 'qrels.dl19-passage.txt');
const REF = join(DL19, 'run.msmarco-v1-passage.bm25-default.dl19.txt');

type Lists = Map<string, { docs: string[]; scores: number[] }>;

function readRun(text: string): Lists {
  const out: Lists = new Map();
  for (const line of text.trim().split('\n')) {
    const [q, , d, , s] = line.split(/\s+/);
    if (!out.has(q!)) out.set(q!, { docs: [], scores: [] });
    out.get(q!)!.docs.push(d!);
    out.get(q!)!.scores.push(Number(s));
  }
  return out;
}

/** A second retriever: each query's top 40 shuffled by a fixed rule, scores rescaled and shifted per query. */
function derived(ref: Lists): string {
  const lines: string[] = [];
  let qi = 0;
  for (const [q, { docs, scores }] of ref) {
    qi++;
    const order = docs.map((d, i) => ({ d, key: i < 40 ? ((i * 7 + qi) % 40) + (i % 3) * 0.1 : i }));
    order.sort((a, b) => a.key - b.key);
    order.forEach(({ d }, i) => lines.push(`${q} Q0 ${d} ${i + 1} ${(3 * (scores[0]! - i * 0.05) + qi).toFixed(4)} derived`));
  }
  return `${lines.join('\n')}\n`;
}

const altOrder = (d: string, cand: string[], ref: string[]): number =>
  Math.min(cand.includes(d) ? 2 * (cand.indexOf(d) + 1) - 1 : Infinity, ref.includes(d) ? 2 * (ref.indexOf(d) + 1) : Infinity);

function literalScored(cand: { docs: string[] }, ref: { docs: string[] }, score: (d: string) => number, depth: number): string[] {
  const all = [...new Set([...cand.docs, ...ref.docs])];
  return all
    .map((d) => ({ d, s: score(d), o: altOrder(d, cand.docs, ref.docs) }))
    .sort((a, b) => b.s - a.s || a.o - b.o)
    .slice(0, depth)
    .map((x) => x.d);
}

const literalRrf = (cand: { docs: string[] }, ref: { docs: string[] }, c: number, depth: number) =>
  literalScored(cand, ref, (d) => [cand, ref].reduce((s, l) => s + (l.docs.includes(d) ? 1 / (c + l.docs.indexOf(d) + 1) : 0), 0), depth);

function literalCombSum(
  cand: { docs: string[]; scores: number[] },
  ref: { docs: string[]; scores: number[] },
  alpha: number,
  depth: number,
) {
  const norm = (l: { docs: string[]; scores: number[] }, d: string) => {
    const i = l.docs.indexOf(d);
    if (i < 0) return 0;
    const min = Math.min(...l.scores);
    const max = Math.max(...l.scores);
    return max === min ? 1 : (l.scores[i]! - min) / (max - min);
  };
  return literalScored(cand, ref, (d) => alpha * norm(cand, d) + (1 - alpha) * norm(ref, d), depth);
}

function literalAlternation(cand: string[], ref: string[], a: number, b: number, depth: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let i = 0;
  let j = 0;
  const take = (list: string[], at: () => number, step: () => void) => {
    while (at() < list.length) {
      const d = list[at()]!;
      step();
      if (!seen.has(d)) {
        seen.add(d);
        out.push(d);
        return;
      }
    }
  };
  while (out.length < depth && (i < cand.length || j < ref.length)) {
    for (let n = 0; n < a && out.length < depth; n++)
      take(
        cand,
        () => i,
        () => i++,
      );
    for (let n = 0; n < b && out.length < depth; n++)
      take(
        ref,
        () => j,
        () => j++,
      );
  }
  return out;
}

describe('fliplab fuse and frontier', () => {
  const refText = readFileSync(REF, 'utf8');
  const ref = readRun(refText);
  const candPath = join(tmp, 'derived.run');
  writeFileSync(candPath, derived(ref));
  const cand = readRun(readFileSync(candPath, 'utf8'));

  it('RRF (c = 60, c = 1), CombSUM (α = 0.3) and alternation 2:1 equal the literal definitions, every query and rank', async () => {
    const DEPTH = 100;
    const cases: [string[], (c: { docs: string[]; scores: number[] }, r: { docs: string[]; scores: number[] }) => string[]][] = [
      [['--method', 'rrf', '--rrf-k', '60'], (c, r) => literalRrf(c, r, 60, DEPTH)],
      [['--method', 'rrf', '--rrf-k', '1'], (c, r) => literalRrf(c, r, 1, DEPTH)],
      [['--method', 'combsum', '--alpha', '0.3'], (c, r) => literalCombSum(c, r, 0.3, DEPTH)],
      [['--method', 'alternation', '--ratio', '2:1'], (c, r) => literalAlternation(c.docs, r.docs, 2, 1, DEPTH)],
    ];
    for (const [flags, literal] of cases) {
      const out = await cli('fuse', '--reference', REF, '--candidate', candPath, ...flags, '--depth', String(DEPTH));
      expect(out.code).toBe(0);
      const fused = readRun(out.stdout);
      expect([...fused.keys()]).toEqual([...cand.keys()]);
      for (const [q, list] of fused) expect(list.docs, `${flags.join(' ')} query ${q}`).toEqual(literal(cand.get(q)!, ref.get(q)!));
    }
  }, 60_000);

  it('each frontier point equals fliplab flips on that fused run at k', async () => {
    const k = 10;
    const out = await cli('frontier', QRELS, '--reference', REF, '--candidate', candPath, '--at', String(k), '--json');
    expect(out.code).toBe(0);
    const frontier = JSON.parse(out.stdout) as {
      k: number;
      points: {
        label: string;
        params: { method: string; c?: number; alpha?: number; ratio?: number[] } | null;
        broken: number;
        fixed: number;
        frontier: boolean;
        budget: number;
      }[];
    };
    expect(frontier.points.length).toBe(2 + SWEEP_RRF_C.length + 21 + 7 + 1);
    const check = async (point: (typeof frontier.points)[number]) => {
      const p = point.params!;
      const flags =
        p.method === 'rrf'
          ? ['--rrf-k', String(p.c)]
          : p.method === 'combsum'
            ? ['--alpha', String(p.alpha)]
            : ['--ratio', `${p.ratio![0]}:${p.ratio![1]}`];
      const fusedPath = join(tmp, 'fused.run');
      expect(
        (await cli('fuse', '--reference', REF, '--candidate', candPath, '--method', p.method, ...flags, '--out', fusedPath)).code,
      ).toBe(0);
      const flips = await cli('flips', QRELS, '--reference', REF, '--candidate', fusedPath, '--depths', String(k), '--json');
      const row = JSON.parse(flips.stdout).depths[0].candidates[0];
      expect([point.broken, point.fixed], point.label).toEqual([row.broken, row.fixed]);
    };
    // Every point on the frontier, the paper's, and a spread of the rest.
    const chosen = frontier.points.filter(
      (p, i) => p.params !== null && (p.frontier || i % 17 === 0 || p.label === 'rrf c=60' || p.label === 'alternation 1:1'),
    );
    expect(chosen.length).toBeGreaterThan(10);
    for (const p of chosen) await check(p);
    // The ends: the candidate is flips on the candidate; the reference breaks and fixes nothing.
    const flips = await cli('flips', QRELS, '--reference', REF, '--candidate', candPath, '--depths', String(k), '--json');
    const row = JSON.parse(flips.stdout).depths[0].candidates[0];
    const candidatePoint = frontier.points.find((p) => p.label === 'candidate')!;
    expect([candidatePoint.broken, candidatePoint.fixed]).toEqual([row.broken, row.fixed]);
    expect(frontier.points.find((p) => p.label === 'reference')).toMatchObject({ broken: 0, fixed: 0, frontier: true });
    // No frontier point is beaten by another point of the same budget on both counts.
    const same = frontier.points.filter((p) => p.budget === k);
    for (const p of same.filter((x) => x.frontier)) {
      const net = p.fixed - p.broken;
      expect(same.some((o) => o.broken <= p.broken && o.fixed - o.broken >= net && (o.broken < p.broken || o.fixed - o.broken > net))).toBe(
        false,
      );
    }
  }, 120_000);

  it('a frontier prepared once re-slices at any budget to the frontier computed for that budget alone', async () => {
    const qrels = (await parseQrels(readFileSync(QRELS), QRELS)).value;
    const refRun = (await parseRun(readFileSync(REF), REF)).value;
    const candRun = (await parseRun(readFileSync(candPath), candPath)).value;
    const prepared = prepareFrontier(qrels, refRun, candRun, { maxDepth: 20 });
    for (const k of [1, 3, 10, 20]) expect(frontierAt(prepared, k)).toEqual(fusionFrontier(qrels, refRun, candRun, k));
    expect(() => frontierAt(prepared, 21)).toThrow(/budget k in \[1, 20\]/);
  });

  it('refuses a flag of another method and a bad ratio, by name', async () => {
    const bad = await cli('fuse', '--reference', REF, '--candidate', candPath, '--method', 'rrf', '--alpha', '0.3');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--alpha applies to --method combsum, not rrf/);
    const ratio = await cli('fuse', '--reference', REF, '--candidate', candPath, '--method', 'alternation', '--ratio', '0:0');
    expect(ratio.code).toBe(2);
    expect(ratio.stderr).toMatch(/--ratio expects a:b/);
  });
});
