/**
 * One cohort across depths (`flips --cohort-at k0`), against a literal computation written here: the cohort is
 * the judged queries whose reference top k0 holds a positive passage, and at every depth the four transitions,
 * the negative-flip rate's base and the query count are those of that one group.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.ts';
import { mulberry32 } from '../../src/core/random.ts';
import { tempDir } from '../support/temp.ts';

const tmp = tempDir('cohort');

describe('flips --cohort-at', () => {
  const rand = mulberry32(24);
  const positives = new Map<string, Set<string>>();
  const ref = new Map<string, string[]>();
  const cand = new Map<string, string[]>();
  const qrels: string[] = [];
  for (let q = 0; q < 60; q++) {
    const pool = Array.from({ length: 40 }, (_, i) => `d${q}-${i}`);
    const pos = new Set(pool.filter(() => rand() < 0.08));
    if (pos.size === 0) pos.add(pool[Math.floor(rand() * 40)]!);
    positives.set(`q${q}`, pos);
    for (const d of pool) qrels.push(`q${q} 0 ${d} ${pos.has(d) ? 1 : 0}`);
    const shuffled = () => [...pool].sort(() => rand() - 0.5).slice(0, 25);
    ref.set(`q${q}`, shuffled());
    cand.set(`q${q}`, shuffled());
  }
  const run = (lists: Map<string, string[]>, tag: string) =>
    [...lists].flatMap(([q, docs]) => docs.map((d, i) => `${q} Q0 ${d} ${i + 1} ${50 - i} ${tag}`)).join('\n') + '\n';
  const paths = { qrels: join(tmp, 'qrels'), ref: join(tmp, 'ref.run'), cand: join(tmp, 'cand.run') };
  writeFileSync(paths.qrels, `${qrels.join('\n')}\n`);
  writeFileSync(paths.ref, run(ref, 'ref'));
  writeFileSync(paths.cand, run(cand, 'cand'));
  const supports = (lists: Map<string, string[]>, q: string, k: number) =>
    lists
      .get(q)!
      .slice(0, k)
      .some((d) => positives.get(q)!.has(d));

  it('follows the queries the reference supports at k0 at every depth', async () => {
    const k0 = 5;
    const out = await cli(
      'flips',
      paths.qrels,
      '--reference',
      paths.ref,
      '--candidate',
      paths.cand,
      '--depths',
      '1,5,10,20',
      '--cohort-at',
      String(k0),
      '--json',
    );
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout) as {
      queries: number;
      cohort_at: number | null;
      depths: {
        k: number;
        reference: { supported: number };
        candidates: { preserved: number; broken: number; fixed: number; unchanged: number; negative_flip_rate: { value: number | null } }[];
      }[];
    };
    const cohort = [...positives.keys()].filter((q) => supports(ref, q, k0));
    expect(cohort.length).toBeGreaterThan(5);
    expect(cohort.length).toBeLessThan(positives.size);
    expect(report.cohort_at).toBe(k0);
    expect(report.queries).toBe(cohort.length);
    for (const block of report.depths) {
      const k = block.k;
      const B = (q: string) => supports(ref, q, k);
      const D = (q: string) => supports(cand, q, k);
      const c = block.candidates[0]!;
      expect([c.preserved, c.broken, c.fixed, c.unchanged]).toEqual([
        cohort.filter((q) => B(q) && D(q)).length,
        cohort.filter((q) => B(q) && !D(q)).length,
        cohort.filter((q) => !B(q) && D(q)).length,
        cohort.filter((q) => !B(q) && !D(q)).length,
      ]);
      const nB = cohort.filter(B).length;
      expect(block.reference.supported).toBe(nB);
      // From k0 on, the base is the whole cohort: the reference supports every one of its queries.
      if (k >= k0) expect(nB).toBe(cohort.length);
      expect(c.negative_flip_rate.value).toBeCloseTo(cohort.filter((q) => B(q) && !D(q)).length / nB, 12);
    }
    const plain = JSON.parse(
      (await cli('flips', paths.qrels, '--reference', paths.ref, '--candidate', paths.cand, '--depths', '1,5,10,20', '--json')).stdout,
    );
    expect(plain.cohort_at).toBeNull();
    expect(plain.queries).toBe(positives.size);
  });

  it('refuses a cohort the reference cannot fill', async () => {
    const empty = join(tmp, 'empty.run');
    writeFileSync(empty, [...ref.keys()].map((q) => `${q} Q0 nothing-${q} 1 1 ref`).join('\n') + '\n');
    const out = await cli('flips', paths.qrels, '--reference', empty, '--candidate', paths.cand, '--cohort-at', '3');
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/the reference supports no query at k = 3/);
  });
});
