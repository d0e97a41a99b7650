/**
 * Flips a hole in the judgments could explain, checked against a literal computation written here from the
 * definitions (not from the core): on a generated pair of runs with many unjudged passages, at depths 1, 5,
 * 10 and 20, `fliplab flips --json` reports for the reference and each candidate
 *   unjudged_at_k        = mean over the cohort of |{ i ≤ min(k, list length) : doc_i not judged or grade < 0 }| / k
 *   broken_with_unjudged = broken queries whose candidate top k holds an unjudged passage
 *   fixed_with_unjudged  = fixed queries whose reference top k holds an unjudged passage
 * (the cohort: queries with a judgment of grade ≥ 1; broken: the reference has one in its top k, the candidate not).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { mulberry32 } from '../../src/core/random.ts';
import { tempDir } from '../support/temp.ts';

const tmp = tempDir('unjudged');

async function cli(...argv: string[]) {
  let stdout = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: () => undefined });
  return { code, stdout };
}

describe('unjudged passages in flips --json', () => {
  it('unjudged_at_k, broken_with_unjudged and fixed_with_unjudged equal the literal counts', async () => {
    const rand = mulberry32(22);
    const Q = 40;
    const judged = new Map<string, Map<string, number>>();
    const ref = new Map<string, string[]>();
    const cand = new Map<string, string[]>();
    const qrelsLines: string[] = [];
    for (let q = 0; q < Q; q++) {
      const qid = `q${q}`;
      const pool = Array.from({ length: 30 }, (_, i) => `d${q}-${i}`);
      // About a third of the pool judged (grades -1..2), the rest unjudged; runs of 8–25 passages.
      const j = new Map<string, number>();
      for (const d of pool) if (rand() < 0.35) j.set(d, Math.floor(rand() * 4) - 1);
      if (![...j.values()].some((g) => g >= 1)) j.set(pool[Math.floor(rand() * 30)]!, 1);
      judged.set(qid, j);
      for (const [d, g] of j) qrelsLines.push(`${qid} 0 ${d} ${g}`);
      const shuffled = (n: number) => [...pool].sort(() => rand() - 0.5).slice(0, n);
      ref.set(qid, shuffled(8 + Math.floor(rand() * 18)));
      if (q % 7 !== 3) cand.set(qid, shuffled(8 + Math.floor(rand() * 18))); // some queries missing from the candidate
    }
    const runText = (run: Map<string, string[]>, tag: string) =>
      [...run].flatMap(([q, docs]) => docs.map((d, i) => `${q} Q0 ${d} ${i + 1} ${100 - i} ${tag}`)).join('\n') + '\n';
    const paths = { qrels: join(tmp, 'qrels'), ref: join(tmp, 'ref.run'), cand: join(tmp, 'cand.run') };
    writeFileSync(paths.qrels, `${qrelsLines.join('\n')}\n`);
    writeFileSync(paths.ref, runText(ref, 'ref'));
    writeFileSync(paths.cand, runText(cand, 'cand'));

    const csvPath = join(tmp, 'per-query.csv');
    const out = await cli(
      'flips',
      paths.qrels,
      '--reference',
      paths.ref,
      '--candidate',
      paths.cand,
      '--depths',
      '1,5,10,20',
      '--json',
      '--csv',
      csvPath,
    );
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout) as {
      depths: {
        k: number;
        reference: { unjudged_at_k: number };
        candidates: { broken: number; fixed: number; unjudged_at_k: number; broken_with_unjudged: number; fixed_with_unjudged: number }[];
      }[];
    };

    // The literal computation.
    const cohort = [...judged].filter(([, j]) => [...j.values()].some((g) => g >= 1)).map(([q]) => q);
    const unjudgedIn = (q: string, docs: string[] | undefined, k: number) =>
      (docs ?? []).slice(0, k).filter((d) => !judged.get(q)!.has(d) || judged.get(q)!.get(d)! < 0).length;
    const supports = (q: string, docs: string[] | undefined, k: number) =>
      (docs ?? []).slice(0, k).some((d) => (judged.get(q)!.get(d) ?? 0) >= 1);
    for (const block of report.depths) {
      const k = block.k;
      const mean = (run: Map<string, string[]>) => cohort.reduce((s, q) => s + unjudgedIn(q, run.get(q), k) / k, 0) / cohort.length;
      const broken = cohort.filter((q) => supports(q, ref.get(q), k) && !supports(q, cand.get(q), k));
      const fixed = cohort.filter((q) => !supports(q, ref.get(q), k) && supports(q, cand.get(q), k));
      const c = block.candidates[0]!;
      expect(block.reference.unjudged_at_k).toBeCloseTo(mean(ref), 12);
      expect(c.unjudged_at_k).toBeCloseTo(mean(cand), 12);
      expect([c.broken, c.fixed]).toEqual([broken.length, fixed.length]);
      expect(c.broken_with_unjudged).toBe(broken.filter((q) => unjudgedIn(q, cand.get(q), k) > 0).length);
      expect(c.fixed_with_unjudged).toBe(fixed.filter((q) => unjudgedIn(q, ref.get(q), k) > 0).length);
    }
    // The per-query CSV: each run's unjudged count in its top k, for every query and depth.
    const [header, ...lines] = readFileSync(csvPath, 'utf8')
      .trim()
      .split(/\r\n/)
      .map((l) => l.split(','));
    const col = (name: string) => header!.indexOf(name);
    expect(lines.map((l) => l[0])).toEqual(cohort);
    for (const l of lines) {
      const q = l[0]!;
      for (const k of [1, 5, 10, 20]) {
        expect(Number(l[col(`reference_unjudged@${k}`)])).toBe(unjudgedIn(q, ref.get(q), k));
        expect(Number(l[col(`candidate_unjudged@${k}`)])).toBe(unjudgedIn(q, cand.get(q), k));
      }
    }
    // The generated pair exercises both: some broken and some fixed queries, with and without unjudged passages.
    const at10 = report.depths.find((d) => d.k === 10)!.candidates[0]!;
    expect(at10.broken).toBeGreaterThan(0);
    expect(at10.fixed).toBeGreaterThan(0);
    expect(at10.broken_with_unjudged).toBeGreaterThan(0);
  });
});
