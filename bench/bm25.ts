/**
 * BM25 indexing and query throughput: fliplab against minisearch, wink-bm25-text-search and okapibm25,
 * same machine, same process, same run.
 *
 *   npm run bench:bm25            (node --import tsx bench/bm25.ts)
 *   BENCH_SCIFACT=/path/to/beir/scifact npm run bench:bm25
 *
 * Datasets: (a) BEIR SciFact (corpus.jsonl, the test queries with a positive judgment, top 50); (b) a
 * seeded FiQA-sized Zipf collection (57,638 passages of ~130 words, 648 queries of 3–10 words).
 *
 * Fairness: every engine indexes the same passage strings (title + ". " + text) and receives the same
 * tokenizer where it accepts one (minisearch `tokenize` + identity `processTerm`; wink `definePrepTasks`),
 * so all of them see the RAGFlip tokens (lowercase, stop words removed, no stemming). BM25 parameters are
 * set as close as each allows: k1 = 1.5, b = 0.75 everywhere; minisearch's BM25+ δ is set to 0 (plain BM25).
 * okapibm25 takes no tokenizer and matches terms by regular expression over raw text, so it gets passages
 * pre-tokenized and joined by spaces (untimed). okapibm25 has no index: it re-reads every document on
 * every query, so its index time is reported as "—" and it is left out of the indexing comparison.
 * Each engine builds once untimed (warm-up) and runs query passes untimed for at least 1 s (warm-up; one
 * pass is too short for V8 to settle on a fast engine). Then timed builds and timed query passes are
 * repeated up to 3 times while they total under 4 s, and the median is reported; the same rule holds for
 * every engine, and a full garbage collection precedes each build. A query pass that would take too long
 * is cut after the first queries and extrapolated linearly; the table says so. "overlap@10" is the mean
 * share of fliplab's top 10 that the engine also returns in its top 10, a check that the engines compute
 * comparable rankings (not part of the timing). It is below 1 by design for two peers: minisearch
 * multiplies each score by the number of query terms matched, and okapibm25 counts substring matches;
 * wink rounds its weights to 4 decimals, which reorders near-ties.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import MiniSearch from 'minisearch';
import type { Corpus, Queries } from '../src/core/types.ts';
import { passageText } from '../src/core/io/beir.ts';
import { selectEvaluationQueries } from '../src/core/io/validate.ts';
import { loadBeirFolder } from '../src/node/files.ts';
import { buildBm25Index, searchBm25, type Bm25Index } from '../src/core/retrieve/bm25.ts';
import { ANSERINI_PRESETS, buildAnseriniIndex, searchAnserini, type AnseriniIndex } from '../src/core/retrieve/bm25-anserini.ts';
import { tokenize } from '../src/core/text/tokenize.ts';
import { FIQA_SIZED, zipfCollection } from './lib/zipf-corpus.ts';

const require = createRequire(import.meta.url);
const DEPTH = 50;
const K1 = 1.5;
const B = 0.75;
/** Time budget for one engine's timed query pass before extrapolating from the queries done so far. */
const QUERY_BUDGET_MS = 6000;
/** Minimum queries timed before extrapolating. */
const MIN_TIMED_QUERIES = 3;
const WARMUP_QUERIES_SLOW = 1;
/** Minimum warm-up time per engine, in query passes. */
const WARMUP_MS = 1000;
const OVERLAP_AT = 10;
/** Timed builds and query passes per engine: up to this many, while their total stays under the budget. */
const REPEATS = 3;
const REPEAT_BUDGET_MS = 4000;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const GOAL_TOTAL_MS = 50;
const GOAL_QUERY_RATIO = 10;
const GOAL_INDEX_RATIO = 3;

interface WinkEngine {
  defineConfig(cfg: { fldWeights: Record<string, number>; bm25Params: { k1: number; b: number; k: number } }): boolean;
  definePrepTasks(tasks: Array<(s: string) => string[]>): number;
  addDoc(doc: Record<string, string>, id: number): number;
  consolidate(fp?: number): boolean;
  search(text: string, limit?: number): Array<[string, number]>;
}
type OkapiBm25 = (
  documents: string[],
  keywords: string[],
  constants?: { k1?: number; b?: number },
  sorter?: (a: { score: number }, b: { score: number }) => number,
) => Array<{ document: string; score: number }>;

const winkFactory = require('wink-bm25-text-search') as () => WinkEngine;
const okapi = (require('okapibm25') as { default: OkapiBm25 }).default;

function version(pkg: string): string {
  const json = JSON.parse(readFileSync(join(process.cwd(), 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string };
  return json.version;
}

interface Dataset {
  readonly name: string;
  readonly corpus: Corpus;
  readonly passages: readonly string[];
  readonly queries: readonly string[];
}

interface Engine {
  readonly name: string;
  /** null: the engine has no index step. */
  build(ds: Dataset): unknown;
  search(handle: unknown, query: string): ArrayLike<number>;
  readonly hasIndex: boolean;
}

const fliplab = (strategy: 'auto' | 'exhaustive'): Engine => ({
  name: strategy === 'auto' ? 'fliplab bm25' : `fliplab bm25 (${strategy})`,
  hasIndex: true,
  build: (ds) => buildBm25Index(ds.corpus),
  search: (h, q) => searchBm25(h as Bm25Index, q, DEPTH, { strategy }).docs,
});

/**
 * The second recipe: Lucene's BM25 as Anserini runs it (`--preset anserini`: its own analyzer, k1 = 0.9,
 * b = 0.4, title + text in one field). It ranks with other tokens and parameters, so its overlap with the
 * paper's lists says how different the two baselines are, not whether either is right; its goal is speed:
 * indexing and queries within 1.5× of the paper's BM25 on the same collection.
 */
const anserini: Engine = {
  name: 'fliplab bm25 --preset anserini',
  hasIndex: true,
  build: (ds) => buildAnseriniIndex(ds.corpus, ANSERINI_PRESETS.anserini),
  search: (h, q) => searchAnserini(h as AnseriniIndex, q, DEPTH).docs,
};
const GOAL_ANSERINI_RATIO = 1.5;

const minisearch: Engine = {
  name: `minisearch ${version('minisearch')}`,
  hasIndex: true,
  build: (ds) => {
    const ms = new MiniSearch<{ id: number; text: string }>({
      fields: ['text'],
      tokenize: (s) => tokenize(s),
      processTerm: (t) => t,
      searchOptions: { combineWith: 'OR', prefix: false, fuzzy: false, bm25: { k: K1, b: B, d: 0 } },
    });
    ms.addAll(ds.passages.map((text, id) => ({ id, text })));
    return ms;
  },
  search: (h, q) => {
    const res = (h as MiniSearch<{ id: number; text: string }>).search(q);
    const n = Math.min(DEPTH, res.length);
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = res[i]!.id as number;
    return out;
  },
};

const wink: Engine = {
  name: `wink-bm25-text-search ${version('wink-bm25-text-search')}`,
  hasIndex: true,
  build: (ds) => {
    const e = winkFactory();
    e.defineConfig({ fldWeights: { text: 1 }, bm25Params: { k1: K1, b: B, k: 1 } });
    e.definePrepTasks([(s) => tokenize(s)]);
    ds.passages.forEach((text, i) => e.addDoc({ text }, i));
    e.consolidate();
    return e;
  },
  search: (h, q) => (h as WinkEngine).search(q, DEPTH).map(([id]) => Number(id)),
};

/** okapibm25 gets pre-tokenized passages (joined by spaces) so its regex matching sees RAGFlip tokens. */
const okapiDocs = new WeakMap<Dataset, { docs: string[]; indexOf: Map<string, number[]> }>();
const okapiEngine: Engine = {
  name: `okapibm25 ${version('okapibm25')}`,
  hasIndex: false,
  build: (ds) => {
    let prepared = okapiDocs.get(ds);
    if (!prepared) {
      const docs = ds.passages.map((p) => tokenize(p).join(' '));
      const indexOf = new Map<string, number[]>();
      docs.forEach((d, i) => {
        const list = indexOf.get(d);
        if (list) list.push(i);
        else indexOf.set(d, [i]);
      });
      prepared = { docs, indexOf };
      okapiDocs.set(ds, prepared);
    }
    return prepared;
  },
  search: (h, q) => {
    const { docs, indexOf } = h as { docs: string[]; indexOf: Map<string, number[]> };
    const keywords = tokenize(q);
    // okapibm25 builds `new RegExp(term)`; RAGFlip tokens are alphanumeric, so nothing needs escaping.
    const ranked = okapi(docs, keywords, { k1: K1, b: B }, (a, b) => b.score - a.score);
    const out: number[] = [];
    const used = new Map<string, number>();
    for (let i = 0; i < ranked.length && out.length < DEPTH; i++) {
      const r = ranked[i]!;
      if (!(r.score > 0)) break;
      const ids = indexOf.get(r.document)!;
      const u = used.get(r.document) ?? 0;
      used.set(r.document, u + 1);
      out.push(ids[Math.min(u, ids.length - 1)]!);
    }
    return out;
  },
};

interface Result {
  readonly engine: string;
  readonly indexMs: number | null;
  readonly queryMs: number;
  readonly timedQueries: number;
  readonly totalQueries: number;
  readonly overlap: number;
  readonly isPeer: boolean;
}

function now(): number {
  return performance.now();
}

// A full collection between engines, so no engine pays for the previous one's garbage.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

function measure(
  engine: Engine,
  ds: Dataset,
  reference: ArrayLike<number>[] | null,
  isPeer: boolean,
): { result: Result; lists: ArrayLike<number>[] } {
  engine.build(ds); // warm-up
  // Timed builds: repeated (up to REPEATS) while they stay within the budget; the median is reported.
  const buildTimes: number[] = [];
  let handle: unknown;
  do {
    // eslint-disable-next-line no-useless-assignment -- drops the previous index so collect() can free it
    handle = undefined;
    collect();
    const t0 = now();
    handle = engine.build(ds);
    buildTimes.push(now() - t0);
  } while (buildTimes.length < REPEATS && buildTimes.reduce((a, b) => a + b, 0) * (1 + 1 / buildTimes.length) < REPEAT_BUDGET_MS);
  const indexMs = median(buildTimes);
  collect();

  // Warm-up: passes over the queries for at least WARMUP_MS, so the JIT has settled (one pass of a fast
  // engine is not enough); a slow engine stops after its first query past QUERY_BUDGET_MS / 4.
  const w0 = now();
  let warmed = 0;
  warm: for (;;) {
    for (const q of ds.queries) {
      engine.search(handle, q);
      warmed++;
      if (now() - w0 > QUERY_BUDGET_MS / 4 && warmed >= WARMUP_QUERIES_SLOW) break warm;
    }
    if (now() - w0 >= WARMUP_MS) break;
  }
  // Timed passes over all queries, repeated like the builds; a pass that would blow the budget stops early
  // and is extrapolated.
  let lists: ArrayLike<number>[];
  let timed: number;
  const passTimes: number[] = [];
  do {
    lists = [];
    timed = 0;
    const q0 = now();
    for (const q of ds.queries) {
      lists.push(engine.search(handle, q));
      timed++;
      if (timed >= MIN_TIMED_QUERIES && now() - q0 > QUERY_BUDGET_MS) break;
    }
    passTimes.push(((now() - q0) / timed) * ds.queries.length);
  } while (
    timed === ds.queries.length &&
    passTimes.length < REPEATS &&
    passTimes.reduce((a, b) => a + b, 0) * (1 + 1 / passTimes.length) < REPEAT_BUDGET_MS
  );
  const queryMs = median(passTimes);

  let overlap = 1;
  if (reference) {
    let sum = 0;
    for (let i = 0; i < lists.length; i++) {
      const mine = new Set(Array.from(lists[i]!).slice(0, OVERLAP_AT));
      const ref = Array.from(reference[i]!).slice(0, OVERLAP_AT);
      if (ref.length === 0) {
        sum += 1;
        continue;
      }
      let hit = 0;
      for (const d of ref) if (mine.has(d)) hit++;
      sum += hit / ref.length;
    }
    overlap = sum / lists.length;
  }
  return {
    result: {
      engine: engine.name,
      indexMs: engine.hasIndex ? indexMs : null,
      queryMs,
      timedQueries: timed,
      totalQueries: ds.queries.length,
      overlap,
      isPeer,
    },
    lists,
  };
}

function fmt(x: number, digits = 1): string {
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function pad(s: string, n: number, right = false): string {
  return right ? s.padStart(n) : s.padEnd(n);
}

/** Depth of the lab's and the CLI's runs: the two fliplab recipes only, median of 3 passes after a warm-up pass. */
const DEEP = 1000;

function deepPasses(ds: Dataset): void {
  const paper = buildBm25Index(ds.corpus);
  const lucene = buildAnseriniIndex(ds.corpus, ANSERINI_PRESETS.anserini);
  const time = (search: (q: string) => unknown): number => {
    for (const q of ds.queries) search(q);
    const passes: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      const t0 = now();
      for (const q of ds.queries) search(q);
      passes.push(now() - t0);
    }
    return median(passes);
  };
  const p = time((q) => searchBm25(paper, q, DEEP));
  const l = time((q) => searchAnserini(lucene, q, DEEP));
  console.log(
    `top ${DEEP} (the lab's and the CLI's depth), all ${ds.queries.length} queries: fliplab bm25 ${fmt(p)} ms, ` +
      `--preset anserini ${fmt(l)} ms (${fmt(l / p, 2)}×)`,
  );
}

function runDataset(ds: Dataset): Result[] {
  console.log(`\n== ${ds.name}: ${ds.passages.length.toLocaleString('en-US')} passages, ${ds.queries.length} queries, top ${DEPTH} ==`);
  const results: Result[] = [];
  const mine = measure(fliplab('auto'), ds, null, false);
  results.push(mine.result);
  const plain = measure(fliplab('exhaustive'), ds, mine.lists, false);
  results.push(plain.result);
  const same = mine.lists.every((l, i) => Array.from(l).join() === Array.from(plain.lists[i]!).join());
  console.log(`fliplab pruned and exhaustive top-${DEPTH} lists identical on all ${ds.queries.length} queries: ${same ? 'yes' : 'NO'}`);
  results.push(measure(anserini, ds, mine.lists, false).result);
  for (const peer of [minisearch, wink, okapiEngine]) results.push(measure(peer, ds, mine.lists, true).result);

  const peers = results.filter((r) => r.isPeer);
  const bestPeerQuery = Math.min(...peers.map((r) => r.queryMs));
  const indexed = peers.filter((r) => r.indexMs !== null);
  const bestPeerIndex = Math.min(...indexed.map((r) => r.indexMs!));
  console.log(
    `${pad('engine', 34)}${pad('index ms', 11, true)}${pad('index ×', 9, true)}${pad('query ms', 12, true)}${pad('queries/s', 12, true)}${pad('query ×', 10, true)}${pad('overlap@10', 12, true)}  note`,
  );
  for (const r of results) {
    const note = r.timedQueries < r.totalQueries ? `query time extrapolated from ${r.timedQueries} of ${r.totalQueries} queries` : '';
    const noIndex = r.indexMs === null ? 'no index step (scores every document per query)' : '';
    console.log(
      pad(r.engine, 34) +
        pad(r.indexMs === null ? '—' : fmt(r.indexMs), 11, true) +
        pad(r.indexMs === null ? '—' : `${fmt(bestPeerIndex / r.indexMs, 2)}`, 9, true) +
        pad(fmt(r.queryMs), 12, true) +
        pad(fmt((r.totalQueries / r.queryMs) * 1000, 0), 12, true) +
        pad(fmt(bestPeerQuery / r.queryMs, 2), 10, true) +
        pad(fmt(r.overlap, 3), 12, true) +
        `  ${[noIndex, note].filter(Boolean).join('; ')}`,
    );
  }
  console.log('(index × and query × = time of the fastest peer ÷ time of this engine; > 1 is faster than every peer)');
  collect();
  deepPasses(ds);
  return results;
}

function goal(label: string, ok: boolean, detail: string): boolean {
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${label}: ${detail}`);
  return ok;
}

function checkGoals(name: string, results: Result[], total: boolean): boolean {
  const mine = results[0]!;
  const peers = results.filter((r) => r.isPeer);
  const bestQ = peers.reduce((a, b) => (b.queryMs < a.queryMs ? b : a));
  const indexed = peers.filter((r) => r.indexMs !== null);
  const bestI = indexed.reduce((a, b) => (b.indexMs! < a.indexMs! ? b : a));
  let ok = true;
  const lucene = results.find((r) => r.engine === anserini.name)!;
  const li = lucene.indexMs! / mine.indexMs!;
  const lq = lucene.queryMs / mine.queryMs;
  ok =
    goal(
      `[${name}] --preset anserini indexing and queries within ${GOAL_ANSERINI_RATIO}× the paper's BM25`,
      li <= GOAL_ANSERINI_RATIO && lq <= GOAL_ANSERINI_RATIO,
      `index ${fmt(li, 2)}×, queries ${fmt(lq, 2)}× (${fmt(lucene.indexMs!)} and ${fmt(lucene.queryMs)} ms)`,
    ) && ok;
  if (total)
    ok =
      goal(
        `[${name}] all ${mine.totalQueries} queries top-${DEPTH} < ${GOAL_TOTAL_MS} ms total`,
        mine.queryMs < GOAL_TOTAL_MS,
        `${fmt(mine.queryMs)} ms`,
      ) && ok;
  const qr = bestQ.queryMs / mine.queryMs;
  ok =
    goal(`[${name}] query throughput ≥ ${GOAL_QUERY_RATIO}× the fastest peer`, qr >= GOAL_QUERY_RATIO, `${fmt(qr, 2)}× ${bestQ.engine}`) &&
    ok;
  const ir = bestI.indexMs! / mine.indexMs!;
  ok = goal(`[${name}] indexing ≥ ${GOAL_INDEX_RATIO}× the fastest peer`, ir >= GOAL_INDEX_RATIO, `${fmt(ir, 2)}× ${bestI.engine}`) && ok;
  return ok;
}

async function loadScifact(dir: string): Promise<Dataset> {
  const beir = await loadBeirFolder(dir, 'test');
  const qi = selectEvaluationQueries(beir.qrels, beir.queries);
  return {
    name: 'SciFact (BEIR test)',
    corpus: beir.corpus,
    passages: beir.corpus.ids.map((_, i) => passageText(beir.corpus, i)),
    queries: qi.map((i) => beir.queries.texts[i]!),
  };
}

async function main(): Promise<void> {
  const cpu = cpus()[0];
  console.log(
    `BM25 bench — node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length}× ${cpu?.model ?? '?'}; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `k1=${K1}, b=${B}, depth ${DEPTH}. Per engine: one warm-up build, then timed builds and query passes ` +
      `(median of up to ${REPEATS} while they total < ${REPEAT_BUDGET_MS / 1000} s; one otherwise), a full GC before each build; ` +
      `query warm-up ≥ ${WARMUP_MS / 1000} s`,
  );
  const scifactDir = process.env.BENCH_SCIFACT ?? join(import.meta.dirname, '../../shared/data/scifact');
  // One collection in memory at a time, so neither run pays the other's heap.
  const r1 = runDataset(await loadScifact(scifactDir));
  collect();
  const gen0 = now();
  const z = zipfCollection(FIQA_SIZED);
  const zipf: Dataset = {
    name: `FiQA-sized Zipf (V=${FIQA_SIZED.vocabulary.toLocaleString('en-US')}, s=${FIQA_SIZED.exponent}, seed ${FIQA_SIZED.seed}; generated in ${fmt(now() - gen0, 0)} ms)`,
    corpus: z.corpus,
    passages: z.corpus.ids.map((_, i) => passageText(z.corpus, i)),
    queries: (z.queries as Queries).texts,
  };
  const r2 = runDataset(zipf);
  console.log('\nGoals');
  const ok2 = checkGoals('FiQA-sized 57k', r2, true);
  const ok1 = checkGoals('SciFact', r1, false);
  console.log(ok1 && ok2 ? '\nall goals PASS' : '\nsome goals FAIL');
}

await main();
