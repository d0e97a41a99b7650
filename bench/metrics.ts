/**
 * Metrics bench: parse + evaluate time on TREC DL19 (real) and on a generated 1,000,000-line run
 * (10,000 queries × 100 documents, random scores with ties, ~10 graded judgments per query), with peak
 * memory, against the goal of parsing and evaluating the large run with every measure in < 1.5 s.
 * A naive evaluator (Map + per-measure sort, the obvious implementation) runs on the same data as a
 * same-machine peer. Generated files live in os.tmpdir() and are removed afterwards.
 *
 *   npm run bench:metrics        (node --expose-gc --import tsx bench/metrics.ts)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseQrels, parseRun } from '../src/core/io/trec.ts';
import { evaluate, parseMeasures, type MeasureSpec } from '../src/core/metrics/index.ts';
import type { Qrels, Run } from '../src/core/types.ts';
import { fileSource } from '../src/node/files.ts';
import { mulberry32 } from './lib/rng.ts';

const GOAL_MS = 1500;
const BIG_QUERIES = 10_000;
const BIG_DOCS_PER_QUERY = 100;
const BIG_JUDGED_PER_QUERY = 10;
const RSS_SAMPLE_MS = 5;
const DL19 = join(import.meta.dirname, '../../shared/data/trec-dl19-passage');
const DL19_FILES = { qrels: join(DL19, 'qrels.dl19-passage.txt'), run: join(DL19, 'run.msmarco-v1-passage.bm25-default.dl19.txt') };

/** Every implemented measure with default parameters (all_trec plus our recip_rank_cut and ncg_cut). */
const ALL: MeasureSpec[] = parseMeasures(['all_trec', 'recip_rank_cut', 'ncg_cut']);

const gc = (globalThis as { gc?: () => void }).gc;

let peakRss = 0;
let peakHeap = 0;
function sampleMemory(): void {
  const m = process.memoryUsage();
  if (m.rss > peakRss) peakRss = m.rss;
  if (m.heapUsed > peakHeap) peakHeap = m.heapUsed;
}

function generate(dir: string): { run: string; qrels: string; lines: number; bytes: number } {
  const rand = mulberry32(20240601);
  const runPath = join(dir, 'run.big.txt');
  const qrelsPath = join(dir, 'qrels.big.txt');
  const run: string[] = [];
  const qrels: string[] = [];
  for (let q = 0; q < BIG_QUERIES; q++) {
    const qid = `q${q}`;
    const docs: { id: string; score: number }[] = [];
    const used = new Set<number>();
    while (docs.length < BIG_DOCS_PER_QUERY) {
      const d = Math.floor(rand() * 8_800_000);
      if (used.has(d)) continue;
      used.add(d);
      // two decimals: about one list in two has a tied score somewhere
      docs.push({ id: `D${d}`, score: Math.round(rand() * 2000) / 100 });
    }
    docs.sort((a, b) => b.score - a.score);
    docs.forEach((d, i) => run.push(`${qid} Q0 ${d.id} ${i + 1} ${d.score.toFixed(2)} bench\n`));
    for (let j = 0; j < BIG_JUDGED_PER_QUERY; j++) {
      // half the judgments on retrieved documents, half on others
      const id = j % 2 === 0 ? docs[Math.floor(rand() * docs.length)]!.id : `D${8_800_000 + q * BIG_JUDGED_PER_QUERY + j}`;
      qrels.push(`${qid} 0 ${id} ${Math.floor(rand() * 4)}\n`);
    }
  }
  writeFileSync(runPath, run.join(''));
  // a document drawn twice for one query would repeat a judgment line; keep the first
  const seen = new Set<string>();
  writeFileSync(
    qrelsPath,
    qrels
      .filter((l) => {
        const k = l
          .split(' ')
          .filter((_, i) => i !== 3)
          .join(' ');
        return seen.has(k) ? false : (seen.add(k), true);
      })
      .join(''),
  );
  return { run: runPath, qrels: qrelsPath, lines: run.length, bytes: statSync(runPath).size };
}

async function timed<T>(fn: () => Promise<T> | T): Promise<{ value: T; ms: number }> {
  gc?.();
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0 };
}

/**
 * The straightforward evaluator a reader would write first: per query a Map lookup per document and,
 * per measure, a fresh sort of the list; trec_eval ordering and the same measure definitions for the
 * measures most people ask for (map, recip_rank, P, recall, ndcg_cut, success, Rprec).
 */
function naiveEvaluate(qrels: Qrels, run: Run): Map<string, number> {
  const cutoffs = [5, 10, 15, 20, 30, 100, 200, 500, 1000];
  const sums = new Map<string, number>();
  const add = (k: string, v: number): void => void sums.set(k, (sums.get(k) ?? 0) + v);
  let n = 0;
  for (const [qid, list] of run.byQuery) {
    const judged = qrels.byQuery.get(qid);
    if (!judged) continue;
    n++;
    const ranked = (): { doc: string; grade: number }[] =>
      list.docs
        .map((doc, i) => ({ doc, score: list.scores[i]! }))
        .sort((a, b) => b.score - a.score || (a.doc < b.doc ? 1 : a.doc > b.doc ? -1 : 0))
        .map((d) => ({ doc: d.doc, grade: judged.get(d.doc as never) ?? -1 }));
    const numRel = [...judged.values()].filter((g) => g >= 1).length;
    const ideal = [...judged.values()].filter((g) => g > 0).sort((a, b) => b - a);
    // map
    let hits = 0;
    let ap = 0;
    ranked().forEach((d, i) => {
      if (d.grade >= 1) ap += ++hits / (i + 1);
    });
    add('map', numRel ? ap / numRel : 0);
    // recip_rank
    const first = ranked().findIndex((d) => d.grade >= 1);
    add('recip_rank', first < 0 ? 0 : 1 / (first + 1));
    // Rprec
    add(
      'Rprec',
      numRel
        ? ranked()
            .slice(0, numRel)
            .filter((d) => d.grade >= 1).length / numRel
        : 0,
    );
    for (const k of cutoffs) {
      const top = ranked().slice(0, k);
      const rel = top.filter((d) => d.grade >= 1).length;
      add(`P_${k}`, rel / k);
      add(`recall_${k}`, numRel ? rel / numRel : 0);
      const dcg = top.reduce((s, d, i) => s + (d.grade > 0 ? d.grade / Math.log2(i + 2) : 0), 0);
      const idcg = ideal.slice(0, k).reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
      add(`ndcg_cut_${k}`, idcg > 0 ? dcg / idcg : 0);
    }
    for (const k of [1, 5, 10])
      add(
        `success_${k}`,
        ranked()
          .slice(0, k)
          .some((d) => d.grade >= 1)
          ? 1
          : 0,
      );
  }
  for (const [k, v] of sums) sums.set(k, v / n);
  return sums;
}

const fmtMs = (ms: number): string => `${ms.toFixed(0).padStart(6)} ms`;
const fmtRate = (lines: number, ms: number): string => `${(((lines / ms) * 1000) / 1e6).toFixed(2)} M lines/s`;
const mib = (b: number): string => `${(b / 2 ** 20).toFixed(0)} MiB`;

async function main(): Promise<void> {
  const sampler = setInterval(sampleMemory, RSS_SAMPLE_MS);
  const rows: string[][] = [];
  const measuresCount = ALL.length;

  if (existsSync(DL19_FILES.run)) {
    const parse = await timed(async () => ({
      qrels: (await parseQrels(fileSource(DL19_FILES.qrels), DL19_FILES.qrels)).value,
      run: (await parseRun(fileSource(DL19_FILES.run), DL19_FILES.run)).value,
    }));
    const ev = await timed(() => evaluate(parse.value.qrels, parse.value.run, ALL));
    const lines = [...parse.value.run.byQuery.values()].reduce((s, l) => s + l.docs.length, 0);
    rows.push([
      'DL19 (43 q × 1000)',
      fmtMs(parse.ms),
      fmtMs(ev.ms),
      fmtMs(parse.ms + ev.ms),
      fmtRate(lines, parse.ms + ev.ms),
      `${ev.value.columns.length} columns`,
    ]);
  } else {
    rows.push(['DL19', 'skipped: data not found', '', '', '', '']);
  }

  const dir = mkdtempSync(join(tmpdir(), 'fliplab-bench-metrics-'));
  try {
    const gen = generate(dir);
    gc?.();
    peakRss = 0;
    peakHeap = 0;
    sampleMemory();
    // memory peaks are for the generated run: parse and evaluate, before the comparison runs below
    const parseQ = await timed(async () => (await parseQrels(fileSource(gen.qrels), gen.qrels)).value);
    const parseR = await timed(async () => (await parseRun(fileSource(gen.run), gen.run)).value);
    const ev = await timed(() => evaluate(parseQ.value, parseR.value, ALL));
    sampleMemory();
    const peak = { rss: peakRss, heap: peakHeap };
    const parseMs = parseQ.ms + parseR.ms;
    const total = parseMs + ev.ms;
    rows.push([
      `generated (${BIG_QUERIES} q × ${BIG_DOCS_PER_QUERY})`,
      fmtMs(parseMs),
      fmtMs(ev.ms),
      fmtMs(total),
      fmtRate(gen.lines, total),
      `${ev.value.columns.length} columns`,
    ]);
    // the same file read whole, then parsed from memory: how much of parse is the stream
    const parseFromString = await timed(async () => (await parseRun(readFileSync(gen.run, 'utf8'), gen.run)).value.byQuery.size); // drop the copy
    const sameSet = parseMeasures(['map', 'recip_rank', 'Rprec', 'P', 'recall', 'ndcg_cut', 'success']);
    const fastSame = await timed(() => evaluate(parseQ.value, parseR.value, sameSet));
    const naive = await timed(() => naiveEvaluate(parseQ.value, parseR.value));
    for (const [k, v] of naive.value) {
      const ours = fastSame.value.aggregate[k];
      if (ours === undefined || Math.abs(ours - v) > 1e-9) throw new Error(`naive and evaluate() disagree on ${k}: ${v} vs ${ours}`);
    }
    clearInterval(sampler);

    console.log(
      `metrics bench — ${measuresCount} measures (all_trec + recip_rank_cut + ncg_cut), node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(2)} (other work on the machine slows every number)`,
    );
    console.log(
      `generated run: ${gen.lines.toLocaleString('en-US')} lines, ${mib(gen.bytes)}; qrels ~${BIG_JUDGED_PER_QUERY}/query graded 0–3`,
    );
    console.log('');
    const head = ['data', 'parse', 'evaluate', 'total', 'throughput', 'output'];
    const all = [head, ...rows];
    const widths = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
    for (const r of all) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
    console.log('');
    console.log(
      `generated run detail: parse qrels ${fmtMs(parseQ.ms).trim()}, parse run ${fmtMs(parseR.ms).trim()} (${fmtRate(gen.lines, parseR.ms)}), evaluate ${fmtMs(ev.ms).trim()} (${fmtRate(gen.lines, ev.ms)})`,
    );
    console.log(
      `parse run from an in-memory string instead of the file stream: ${fmtMs(parseFromString.ms).trim()} (${fmtRate(gen.lines, parseFromString.ms)})`,
    );
    console.log(
      `peak memory (sampled every ${RSS_SAMPLE_MS} ms while parsing and after each phase): rss ${mib(peak.rss)}, heapUsed ${mib(peak.heap)}`,
    );
    console.log(
      `naive peer (Map + sort per measure, ${naive.value.size} values): ${fmtMs(naive.ms).trim()} vs evaluate() on the same ${sameSet.length} measures ${fmtMs(fastSame.ms).trim()} → ${(naive.ms / fastSame.ms).toFixed(1)}× faster; aggregates agree`,
    );
    const verdict = total < GOAL_MS ? 'PASS' : 'FAIL';
    console.log(
      `goal: parse + evaluate 1,000,000 lines with all measures < ${GOAL_MS} ms → ${verdict} (${total.toFixed(0)} ms; evaluate alone ${ev.ms.toFixed(0)} ms)`,
    );
  } finally {
    clearInterval(sampler);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
