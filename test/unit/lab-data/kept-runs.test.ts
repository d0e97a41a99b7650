/**
 * Large runs are stored as the lab keeps them: the kept run read back is the run the file gave (kept lists,
 * scores, lengths, judged tails, name, warnings), so every measure and flip is the same after a reload; the
 * stored form is a small share of the file; small runs and runs inside archives stay as they are; a kept run
 * opened with other judgments than it was kept with says so.
 */
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { isInputError } from '../../../src/core/io/errors.ts';
import { keptRunLines, readKeptRun } from '../../../src/core/io/kept-run.ts';
import { forEvaluation, readRunTop } from '../../../src/core/io/run-top.ts';
import { evaluate, parseMeasures } from '../../../src/core/metrics/index.ts';
import type { Run } from '../../../src/core/types.ts';
import { COMPACT_RUN_BYTES, keptRunFiles, withKeptRuns } from '../../../src/lab/data/compact.ts';
import { loadCollection } from '../../../src/worker/load.ts';
import type { CollectionFile } from '../../../src/lab/data/types.ts';
import { mulberry32 } from '../../../bench/lib/rng.ts';

const enc = new TextEncoder();

/** 30 queries × 3,000 documents with random scores (ties too) and ranks; `tag` names it. */
function bigRun(tag: string, seed: number): string {
  const rand = mulberry32(seed);
  const out: string[] = [];
  for (let q = 1; q <= 30; q++) {
    const scores = Array.from({ length: 3000 }, () => Math.round(rand() * 1e4) / 7);
    scores.sort((a, b) => b - a);
    scores.forEach((s, i) => out.push(`q${q} Q0 d${Math.floor(rand() * 1e9)}-${i} ${i + 1} ${s} ${tag}\n`));
  }
  return out.join('');
}

/** Qrels judging, per query, a document of `run` at ranks 3, 1,500 and 2,999 and one it never ranks. */
function qrelsFor(run: string, split: string): CollectionFile {
  const lines: string[] = [];
  const byQuery = new Map<string, string[]>();
  for (const l of run.trim().split('\n')) {
    const [q, , d] = l.split(' ');
    if (!byQuery.has(q!)) byQuery.set(q!, []);
    byQuery.get(q!)!.push(d!);
  }
  for (const [q, docs] of byQuery) {
    lines.push(`${q} 0 ${docs[2]} 1`, `${q} 0 ${docs[1499]} 2`, `${q} 0 ${docs[2998]} 1`, `${q} 0 unranked-${q} 1`);
  }
  return { path: `qrels/${split}.txt`, bytes: enc.encode(`${lines.join('\n')}\n`) };
}

const lists = (run: Run) =>
  [...run.byQuery].map(([q, l]) => ({
    q,
    docs: l.docs,
    scores: Array.from(l.scores),
    length: l.length,
    tail: l.tail ? { docs: l.tail.docs, positions: Array.from(l.tail.positions) } : null,
  }));

describe('kept runs', () => {
  it('a kept run read back is the run as kept, name, depth, lines and warnings included', async () => {
    const text = bigRun('a', 1);
    const qrels = qrelsFor(text, 'test');
    const judged = (await loadCollection([qrels, { path: 'a.run', bytes: enc.encode('q1 Q0 x 1 1 t\n') }])).qrels!;
    for (const depth of [1, 100, 1000, 5000]) {
      const kept = await readRunTop(() => enc.encode(text), 'a.run', { depth, judged: (q) => judged.byQuery.get(q) });
      const warnings = [{ severity: 'warning' as const, file: 'a.run', line: 3, message: 'something' }];
      const file = [...keptRunLines(kept.value, { source: { file: 'a.run', bytes: text.length }, judged: 'test', warnings })].join('');
      const back = await readKeptRun(enc.encode(file), 'a.run.fliplab-run.jsonl');
      expect(lists(back.value)).toEqual(lists(kept.value));
      expect([back.value.name, back.value.depth, back.value.cut, back.value.lines]).toEqual([
        kept.value.name,
        kept.value.depth,
        kept.value.cut,
        kept.value.lines,
      ]);
      expect(back.warnings).toEqual(warnings);
      expect(back.info).toEqual({ source: { file: 'a.run', bytes: text.length }, judged: 'test', warnings });
      // Some lists have tails at depth 100 and 1,000 (documents judged at ranks 1,500 and 2,999).
      if (depth === 100) expect(lists(back.value)[0]!.tail!.positions).toEqual([1500, 2999]);
    }
  });

  it('a collection of large runs is stored as kept runs: a tenth of the bytes, the same runs and measures', async () => {
    const a = bigRun('a', 2);
    const b = bigRun('b', 3);
    const files: CollectionFile[] = [
      qrelsFor(a, 'test'),
      { path: 'runs/a.run', bytes: enc.encode(a) },
      { path: 'runs/b.run', bytes: enc.encode(b) },
      { path: 'runs/small.run', bytes: enc.encode('q1 Q0 dx 1 3 small\n') },
    ];
    expect(a.length).toBeGreaterThan(COMPACT_RUN_BYTES);
    const first = await loadCollection(files, { name: 'x' });
    const kept = await keptRunFiles(first);
    expect(kept.map((k) => [k.replaces, k.file.path])).toEqual([
      ['runs/a.run', 'runs/a.run.fliplab-run.jsonl.gz'],
      ['runs/b.run', 'runs/b.run.fliplab-run.jsonl.gz'],
    ]);
    const stored = withKeptRuns(files, kept);
    expect(stored.map((f) => f.path)).toEqual([
      'qrels/test.txt',
      'runs/a.run.fliplab-run.jsonl.gz',
      'runs/b.run.fliplab-run.jsonl.gz',
      'runs/small.run',
    ]);
    const bytes = (fs: readonly CollectionFile[]) => fs.reduce((s, f) => s + f.bytes.length, 0);
    expect(bytes(stored)).toBeLessThan(bytes(files) / 10);

    const second = await loadCollection(stored, { name: 'x' });
    expect(second.runs.map((r) => r.name)).toEqual(first.runs.map((r) => r.name));
    second.runs.forEach((r, i) => expect(lists(r)).toEqual(lists(first.runs[i]!)));
    expect(second.diagnostics).toEqual(first.diagnostics);
    const measures = parseMeasures(['official'], '10.0');
    for (const [i, r] of second.runs.entries()) {
      const before = evaluate(first.qrels!, forEvaluation(first.runs[i]!), measures);
      const after = evaluate(second.qrels!, forEvaluation(r), measures);
      expect(after).toEqual(before);
    }
    // Stored again from the kept runs: nothing more to swap.
    expect(await keptRunFiles(second)).toEqual([]);
  });

  it('a run inside a .zip stays in the archive', async () => {
    const a = bigRun('a', 4);
    const zip = { path: 'c.zip', bytes: zipSync({ 'a.run': enc.encode(a), 'qrels.txt': qrelsFor(a, 'test').bytes }) };
    const loaded = await loadCollection([zip], { name: 'c' });
    const kept = await keptRunFiles(loaded);
    expect(kept.map((k) => k.replaces)).toEqual(['c.zip/a.run']);
    expect(withKeptRuns([zip], kept)).toEqual([zip]);
  });

  it('a kept run opened with other judgments says which it was kept with', async () => {
    const a = bigRun('a', 5);
    const files = [qrelsFor(a, 'dev'), { path: 'a.run', bytes: enc.encode(a) }];
    const stored = withKeptRuns(files, await keptRunFiles(await loadCollection(files)));
    const withTest = await loadCollection([...stored, qrelsFor(a, 'test')], { split: 'test' });
    expect(withTest.diagnostics.map((d) => d.message).join('\n')).toMatch(
      /kept from a\.run with the judged documents of split "dev", not of split "test"/,
    );
    const withDev = await loadCollection([...stored, qrelsFor(a, 'test')], { split: 'dev' });
    expect(withDev.diagnostics.map((d) => d.message).join('\n')).not.toMatch(/kept from/);
  });

  it('a malformed kept run is refused at its line', async () => {
    const text = [
      ...keptRunLines((await readRunTop(() => enc.encode(bigRun('a', 6)), 'a.run', { depth: 10 })).value, {
        source: { file: 'a.run', bytes: 1 },
        judged: null,
        warnings: [],
      }),
    ];
    const cases: [number, string, RegExp][] = [
      [1, text[1]!.replace('"length":3000', '"length":5'), /:2: expected "length": a count of at least 10/],
      [2, text[2]!.replace(/"scores":\[[^\]]*\]/, '"scores":[1]'), /:3: expected "scores": 10 finite numbers/],
      [2, text[1]!, /:3: query "q1" appears twice/],
    ];
    for (const [at, bad, error] of cases) {
      const lines = [...text];
      lines[at] = bad;
      const e = await readKeptRun(enc.encode(lines.join('')), 'k.jsonl').catch((x: unknown) => x);
      expect(isInputError(e), String(e)).toBe(true);
      expect(String((e as Error).message)).toMatch(error);
    }
    const header = await readKeptRun(enc.encode(text[0]!.replace('"version":1', '"version":7')), 'k.jsonl').catch((x: unknown) => x);
    expect(String(header)).toMatch(/k\.jsonl:1: version 7 is not one this fliplab reads/);
  });
});
