/**
 * Flips a hole in the judgments could explain, checked against a literal computation written here from the
 * definitions (not from the core): on a generated pair of runs with many unjudged passages, at depths 1, 5,
 * 10 and 20, `fliplab flips --json` reports for the reference and each candidate
 *   unjudged_at_k        = mean over the cohort of |{ i ≤ min(k, list length) : doc_i not judged or grade < 0 }| / k
 *   broken_with_unjudged = broken queries whose candidate top k holds an unjudged passage
 *   fixed_with_unjudged  = fixed queries whose reference top k holds an unjudged passage
 *   negative_flip_rate_low = (broken − broken_with_unjudged) / queries the reference supports
 *   nfr_all = broken / cohort; btc = compatibility; bec = unchanged / (unchanged + broken)
 * (the cohort: queries with a judgment of grade ≥ 1; broken: the reference has one in its top k, the candidate not).
 * With `--judged-only` the same definitions hold on each list with its unjudged passages removed first (trec_eval
 * -J), also when the runs are kept to a depth (`--keep`: the judged passages below it come up from the tails).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { cli } from '../support/cli.ts';
import { mulberry32 } from '../../src/core/random.ts';
import { tempDir } from '../support/temp.ts';

const tmp = tempDir('unjudged');

interface Est {
  value: number | null;
  lo: number | null;
  hi: number | null;
}

interface Block {
  k: number;
  reference: { supported: number; unjudged_at_k: number };
  candidates: {
    broken: number;
    fixed: number;
    unjudged_at_k: number;
    broken_with_unjudged: number;
    fixed_with_unjudged: number;
    negative_flip_rate_low: number | null;
    compatibility: Est;
    nfr_all: Est;
    btc: Est;
    bec: Est;
  }[];
}

/** Queries with 30-passage pools, about a third judged (grades −1..2); runs of 8–25 passages; some queries missing. */
function generate() {
  const rand = mulberry32(22);
  const Q = 40;
  const judged = new Map<string, Map<string, number>>();
  const ref = new Map<string, string[]>();
  const cand = new Map<string, string[]>();
  const qrelsLines: string[] = [];
  for (let q = 0; q < Q; q++) {
    const qid = `q${q}`;
    const pool = Array.from({ length: 30 }, (_, i) => `d${q}-${i}`);
    const j = new Map<string, number>();
    for (const d of pool) if (rand() < 0.35) j.set(d, Math.floor(rand() * 4) - 1);
    if (![...j.values()].some((g) => g >= 1)) j.set(pool[Math.floor(rand() * 30)]!, 1);
    judged.set(qid, j);
    for (const [d, g] of j) qrelsLines.push(`${qid} 0 ${d} ${g}`);
    const shuffled = (n: number) => [...pool].sort(() => rand() - 0.5).slice(0, n);
    ref.set(qid, shuffled(8 + Math.floor(rand() * 18)));
    if (q % 7 !== 3) cand.set(qid, shuffled(8 + Math.floor(rand() * 18)));
  }
  const runText = (run: Map<string, string[]>, tag: string) =>
    [...run].flatMap(([q, docs]) => docs.map((d, i) => `${q} Q0 ${d} ${i + 1} ${100 - i} ${tag}`)).join('\n') + '\n';
  const paths = { qrels: join(tmp, 'qrels'), ref: join(tmp, 'ref.run'), cand: join(tmp, 'cand.run') };
  writeFileSync(paths.qrels, `${qrelsLines.join('\n')}\n`);
  writeFileSync(paths.ref, runText(ref, 'ref'));
  writeFileSync(paths.cand, runText(cand, 'cand'));
  return { judged, ref, cand, paths };
}

type Data = ReturnType<typeof generate>;

/** The literal computation of the definitions above, for `judgedOnly` rankings or not. */
function literal(data: Data, judgedOnly: boolean) {
  const { judged } = data;
  const isJudged = (q: string, d: string) => (judged.get(q)!.get(d) ?? -1) >= 0;
  const view = (run: Map<string, string[]>) =>
    new Map([...run].map(([q, docs]) => [q, judgedOnly ? docs.filter((d) => judged.has(q) && isJudged(q, d)) : docs]));
  const ref = view(data.ref);
  const cand = view(data.cand);
  const cohort = [...judged].filter(([, j]) => [...j.values()].some((g) => g >= 1)).map(([q]) => q);
  const unjudgedIn = (q: string, docs: string[] | undefined, k: number) => (docs ?? []).slice(0, k).filter((d) => !isJudged(q, d)).length;
  const supports = (q: string, docs: string[] | undefined, k: number) =>
    (docs ?? []).slice(0, k).some((d) => (judged.get(q)!.get(d) ?? 0) >= 1);
  return {
    cohort,
    unjudgedIn: (q: string, run: 'ref' | 'cand', k: number) => unjudgedIn(q, (run === 'ref' ? ref : cand).get(q), k),
    check(block: Block): void {
      const k = block.k;
      const mean = (run: Map<string, string[]>) => cohort.reduce((s, q) => s + unjudgedIn(q, run.get(q), k) / k, 0) / cohort.length;
      const refSupported = cohort.filter((q) => supports(q, ref.get(q), k));
      const broken = refSupported.filter((q) => !supports(q, cand.get(q), k));
      const fixed = cohort.filter((q) => !supports(q, ref.get(q), k) && supports(q, cand.get(q), k));
      const brokenWithUnjudged = broken.filter((q) => unjudgedIn(q, cand.get(q), k) > 0).length;
      const c = block.candidates[0]!;
      expect(block.reference.supported).toBe(refSupported.length);
      expect(block.reference.unjudged_at_k).toBeCloseTo(mean(ref), 12);
      expect(c.unjudged_at_k).toBeCloseTo(mean(cand), 12);
      expect([c.broken, c.fixed]).toEqual([broken.length, fixed.length]);
      expect(c.broken_with_unjudged).toBe(brokenWithUnjudged);
      expect(c.fixed_with_unjudged).toBe(fixed.filter((q) => unjudgedIn(q, ref.get(q), k) > 0).length);
      expect(c.negative_flip_rate_low).toBeCloseTo((broken.length - brokenWithUnjudged) / refSupported.length, 12);
      // The field's other names: NFR over all queries, backward trust and backward error compatibility.
      const unchanged = cohort.filter((q) => !supports(q, ref.get(q), k) && !supports(q, cand.get(q), k)).length;
      expect(c.nfr_all.value).toBeCloseTo(broken.length / cohort.length, 12);
      expect(c.btc).toEqual(c.compatibility);
      expect(c.btc.value).toBeCloseTo((refSupported.length - broken.length) / refSupported.length, 12);
      expect(c.bec.value).toBeCloseTo(unchanged / (unchanged + broken.length), 12);
      for (const e of [c.nfr_all, c.bec]) expect(e.lo! <= e.value! && e.value! <= e.hi!).toBe(true);
    },
  };
}

const DEPTHS = [1, 5, 10, 20];

async function flipsJson(data: Data, ...extra: string[]) {
  const { paths } = data;
  const out = await cli(
    'flips',
    paths.qrels,
    '--reference',
    paths.ref,
    '--candidate',
    paths.cand,
    '--depths',
    DEPTHS.join(','),
    '--json',
    ...extra,
  );
  expect(out.code).toBe(0);
  return JSON.parse(out.stdout) as { judged_only: boolean; depths: Block[] };
}

describe('unjudged passages in flips --json', () => {
  const data = generate();

  it('unjudged_at_k, broken_with_unjudged, fixed_with_unjudged and the NFR lower end equal the literal counts', async () => {
    const csvPath = join(tmp, 'per-query.csv');
    const report = await flipsJson(data, '--csv', csvPath);
    expect(report.judged_only).toBe(false);
    const lit = literal(data, false);
    for (const block of report.depths) lit.check(block);
    // The per-query CSV: each run's unjudged count in its top k, for every query and depth.
    const [header, ...lines] = readFileSync(csvPath, 'utf8')
      .trim()
      .split(/\r\n/)
      .map((l) => l.split(','));
    const col = (name: string) => header!.indexOf(name);
    expect(lines.map((l) => l[0])).toEqual(lit.cohort);
    for (const l of lines) {
      const q = l[0]!;
      for (const k of DEPTHS) {
        expect(Number(l[col(`reference_unjudged@${k}`)])).toBe(lit.unjudgedIn(q, 'ref', k));
        expect(Number(l[col(`candidate_unjudged@${k}`)])).toBe(lit.unjudgedIn(q, 'cand', k));
      }
    }
    // The generated pair exercises both: some broken and some fixed queries, with and without unjudged passages.
    const at10 = report.depths.find((d) => d.k === 10)!.candidates[0]!;
    expect(at10.broken).toBeGreaterThan(0);
    expect(at10.fixed).toBeGreaterThan(0);
    expect(at10.broken_with_unjudged).toBeGreaterThan(0);
    expect(at10.broken_with_unjudged).toBeLessThan(at10.broken);
  });

  it('--judged-only analyses the lists with their unjudged passages removed, whole or kept to a depth', async () => {
    const lit = literal(data, true);
    const plain = await flipsJson(data);
    for (const extra of [[], ['--keep', '1']]) {
      const report = await flipsJson(data, '--judged-only', ...extra);
      expect(report.judged_only).toBe(true);
      for (const block of report.depths) {
        lit.check(block);
        expect(block.candidates[0]!.broken_with_unjudged).toBe(0);
      }
      // Removing the holes changes the outcome somewhere: the mode is not a no-op on this pair.
      expect(report.depths.map((b) => b.candidates[0]!.broken)).not.toEqual(plain.depths.map((b) => b.candidates[0]!.broken));
    }
  });
});

describe('--qrels given twice', () => {
  const data = generate();

  it('layers added judgments over the qrels in flips and compare, the later file winning, conflicts warned', async () => {
    // Judge every unjudged passage of the candidate's top 5 relevant, and regrade one judged passage.
    const added: string[] = [];
    const merged = new Map([...data.judged].map(([q, j]) => [q, new Map(j)]));
    for (const [q, docs] of data.cand) {
      for (const d of docs.slice(0, 5)) {
        if (data.judged.get(q)!.has(d)) continue;
        added.push(`${q} 0 ${d} 1`);
        merged.get(q)!.set(d, 1);
      }
    }
    const [q0, j0] = [...data.judged][0]!;
    const [d0, g0] = [...j0][0]!;
    added.push(`${q0} 0 ${d0} ${g0 === 2 ? 0 : 2}`);
    merged.get(q0)!.set(d0, g0 === 2 ? 0 : 2);
    const addedPath = join(tmp, 'added.qrels');
    const mergedPath = join(tmp, 'merged.qrels');
    writeFileSync(addedPath, `${added.join('\n')}\n`);
    writeFileSync(mergedPath, [...merged].flatMap(([q, j]) => [...j].map(([d, g]) => `${q} 0 ${d} ${g}\n`)).join(''));

    const runs = ['--reference', data.paths.ref, '--candidate', data.paths.cand, '--depths', DEPTHS.join(','), '--json'];
    let stderr = '';
    const layered = await main(['flips', '--qrels', data.paths.qrels, '--qrels', addedPath, ...runs], {
      stdout: () => undefined,
      stderr: (t) => (stderr += t),
    });
    expect(layered).toBe(0);
    expect(stderr).toMatch(/1 judgment graded differently by the qrels files; the later file wins/);
    expect(stderr).toContain(`query ${q0}, passage ${d0}: ${g0} (${data.paths.qrels}), then ${g0 === 2 ? 0 : 2} (${addedPath})`);
    const a = await cli('flips', '--qrels', data.paths.qrels, '--qrels', addedPath, ...runs);
    const b = await cli('flips', mergedPath, ...runs);
    expect(a.stdout).toBe(b.stdout);
    const before = await cli('flips', data.paths.qrels, ...runs);
    expect(a.stdout).not.toBe(before.stdout);

    const cmp = ['compare', '--reference', data.paths.ref, '--candidate', data.paths.cand, '--judged-only', '--json'];
    const c1 = await cli(...cmp, '--qrels', data.paths.qrels, '--qrels', addedPath);
    const c2 = await cli(...cmp, '--qrels', mergedPath);
    expect(c1.code).toBe(0);
    expect(c1.stdout).toBe(c2.stdout);
    expect(JSON.parse(c1.stdout).judged_only).toBe(true);
  });

  it('refuses a bad added file with its line, and flags that need judgments without them', async () => {
    const bad = join(tmp, 'bad.jsonl');
    writeFileSync(bad, '{"qid":"q1","docid":"d1-0","grade":1}\n{"qid":"q1","docid":"d1-1","grade":"high"}\n');
    let stderr = '';
    const code = await main(
      ['flips', '--qrels', data.paths.qrels, '--qrels', bad, '--reference', data.paths.ref, '--candidate', data.paths.cand],
      {
        stdout: () => undefined,
        stderr: (t) => (stderr += t),
      },
    );
    expect(code).toBe(2);
    expect(stderr).toContain(`${bad}:2: expected "grade" to be an integer, got "\\"high\\""`);
    const noQrels = await main(['flips', '--reference', data.paths.ref, '--candidate', data.paths.cand], {
      stdout: () => undefined,
      stderr: () => undefined,
    });
    expect(noQrels).toBe(2);
    const compareNoQrels = await main(['compare', '--reference', data.paths.ref, '--candidate', data.paths.cand, '--judged-only'], {
      stdout: () => undefined,
      stderr: (t) => (stderr += t),
    });
    expect(compareNoQrels).toBe(2);
    expect(stderr).toContain('--judged-only needs the judgments');
  });
});
