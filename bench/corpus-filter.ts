/**
 * `filterPassages` (src/core/io/passages.ts) on an MS MARCO-shaped `collection.tsv`: 1,000,000 passages of
 * ~60 words (MS MARCO's mean is ~56), generated deterministically into a temporary folder (not timed), then
 * streamed through the filter with a keep set the size MS MARCO dev runs name at depth 100: 6,980 queries ×
 * 100 distinct documents, drawn with a popularity skew (pid ∝ u^2.6, then permuted over the file) so ~400k
 * distinct passages remain. Printed: passages read and kept, time, MB/s, the process's peak RSS.
 *
 * Peers in the same run, on the same file, from the same kind of stream (fs.createReadStream, 1 MiB chunks):
 * - `count`: read + split lines only (count LF bytes) — the floor for any line-oriented reader;
 * - `core lines`: the core's `readLineRanges` (UTF-8 decode + split into line ranges, what every other parser
 *   pays before parsing);
 * - `filter 4.5%`: the same filter with MS MARCO's real density (400k of 8.8M ≈ 4.5% kept).
 * Each leg runs in its own child process (so each peak RSS is its own; the keep set is built before the
 * timer starts and counts in RSS), legs interleaved, `--reps` rounds (median time; max RSS).
 *
 *   node --import tsx bench/corpus-filter.ts [--passages N] [--reps N] [--gzip] [--keep-files]
 *
 * `--gzip` adds the filter on `collection.tsv.gz` (compressed at level 1 by the generator, also untimed).
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { filterPassages } from '../src/core/io/passages.ts';
import { readLineRanges } from '../src/core/io/lines.ts';
import { median, mulberry32 } from './lib/rng.ts';
import { zipfSampler, zipfWords } from './lib/zipf-corpus.ts';

const SEED = 20_260_917;
const QUERIES = 6_980;
const DEPTH = 100;
const POPULARITY = 2.6;
const MEAN_WORDS = 60;
const CHUNK = 1 << 20;

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const v = Number(process.argv[at + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} expects a positive integer, got ${JSON.stringify(process.argv[at + 1])}`);
  return v;
}

/** A bijection of 0..n−1 (n = 2^a·5^b here; 7,919 is coprime to it) so popular passages spread over the file. */
const permute = (x: number, n: number): number => (x * 7919 + 13) % n;

/** The dev-run keep set: per query 100 distinct pids, popularity-skewed, as strings (what a parsed run holds). */
function denseKeep(passages: number): Set<string> {
  const random = mulberry32(SEED + 1);
  const keep = new Set<string>();
  const seen = new Set<number>();
  for (let q = 0; q < QUERIES; q++) {
    seen.clear();
    while (seen.size < DEPTH) seen.add(permute(Math.floor(passages * random() ** POPULARITY), passages));
    for (const p of seen) keep.add(String(p));
  }
  return keep;
}

/** MS MARCO's real density: ~4.5% of the passages, spread evenly. */
function sparseKeep(passages: number): Set<string> {
  const random = mulberry32(SEED + 2);
  const keep = new Set<string>();
  for (let p = 0; p < passages; p++) if (random() < 0.045) keep.add(String(p));
  return keep;
}

// ---------------------------------------------------------------------------------------------------------
// Child legs: one measurement each, printed as one JSON line.

interface LegResult {
  ms: number;
  bytes: number;
  read: number;
  kept: number;
  maxRssMiB: number;
  baselineRssMiB: number;
}

async function child(leg: string, path: string, passages: number): Promise<void> {
  const keep = leg === 'filter' || leg === 'filter-gz' ? denseKeep(passages) : leg === 'filter-sparse' ? sparseKeep(passages) : undefined;
  const baselineRssMiB = process.resourceUsage().maxRSS / 1024;
  const bytes = statSync(path).size;
  const stream = createReadStream(path, { highWaterMark: CHUNK }) as AsyncIterable<Uint8Array>;
  const t0 = performance.now();
  let read = 0;
  let kept = 0;
  if (leg === 'count') {
    for await (const chunk of stream) {
      let at = chunk.indexOf(10);
      while (at >= 0) {
        read++;
        at = chunk.indexOf(10, at + 1);
      }
    }
  } else if (leg === 'lines') {
    read = await readLineRanges(stream, () => undefined, path);
  } else {
    const r = await filterPassages(stream, path, keep!, { totalBytes: bytes });
    read = r.value.passagesRead;
    kept = r.value.corpus.ids.length;
  }
  const ms = performance.now() - t0;
  const out: LegResult = { ms, bytes, read, kept, maxRssMiB: process.resourceUsage().maxRSS / 1024, baselineRssMiB };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

// ---------------------------------------------------------------------------------------------------------
// Generation (untimed) and the driver.

async function generate(path: string, passages: number): Promise<void> {
  const random = mulberry32(SEED);
  const words = zipfWords(50_000);
  const sample = zipfSampler(words.length, 1.07, random);
  const out = createWriteStream(path);
  const write = (s: string) => new Promise<void>((resolve, reject) => out.write(s, (e) => (e ? reject(e) : resolve())));
  let batch: string[] = [];
  for (let p = 0; p < passages; p++) {
    const n = MEAN_WORDS - 24 + Math.floor(random() * 49);
    const parts = new Array<string>(n);
    for (let i = 0; i < n; i++) parts[i] = words[sample()]!;
    parts[0] = parts[0]![0]!.toUpperCase() + parts[0]!.slice(1);
    for (let i = 9; i < n - 1; i += 9 + Math.floor(random() * 8)) parts[i] += random() < 0.8 ? '.' : ',';
    if (random() < 0.02) parts[n >> 1] = 'naïve café';
    batch.push(`${p}\t${parts.join(' ')}.\n`);
    if (batch.length === 20_000) {
      await write(batch.join(''));
      batch = [];
    }
  }
  await write(batch.join(''));
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
}

function runLeg(leg: string, path: string, passages: number): LegResult {
  const r = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--child', leg, path, String(passages)], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`leg ${leg} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as LegResult;
}

async function main(): Promise<void> {
  const passages = arg('--passages', 1_000_000);
  const reps = arg('--reps', 3);
  const gzip = process.argv.includes('--gzip');
  const dir = mkdtempSync(join(tmpdir(), 'fliplab-corpus-filter-'));
  const tsv = join(dir, 'collection.tsv');
  try {
    let t = performance.now();
    await generate(tsv, passages);
    const size = statSync(tsv).size;
    console.log(
      `generated ${passages.toLocaleString('en')} passages, ${(size / 1e6).toFixed(0)} MB in ${((performance.now() - t) / 1000).toFixed(1)} s (untimed)`,
    );
    if (gzip) {
      t = performance.now();
      await pipeline(createReadStream(tsv), createGzip({ level: 1 }), createWriteStream(`${tsv}.gz`));
      const gzSize = statSync(`${tsv}.gz`).size;
      console.log(`gzip -1: ${(gzSize / 1e6).toFixed(0)} MB in ${((performance.now() - t) / 1000).toFixed(1)} s (untimed)`);
    }
    const legs: [string, string, string][] = [
      ['count', tsv, 'count LF (read + split only)'],
      ['lines', tsv, 'core readLineRanges (decode + split)'],
      ['filter', tsv, 'filterPassages, dev-run keep set'],
      ['filter-sparse', tsv, 'filterPassages, 4.5% kept'],
    ];
    if (gzip) legs.push(['filter-gz', `${tsv}.gz`, 'filterPassages .gz, dev-run keep set']);
    const results = new Map<string, LegResult[]>(legs.map(([leg]) => [leg, []]));
    for (let r = 0; r < reps; r++) for (const [leg, path] of legs) results.get(leg)!.push(runLeg(leg, path, passages));

    const countMs = median(results.get('count')!.map((x) => x.ms));
    const linesMs = median(results.get('lines')!.map((x) => x.ms));
    console.log(`\n${reps} rounds, median time, max peak RSS; MB/s of the file's bytes (compressed for .gz)`);
    console.log('leg                                     read       kept   time s    MB/s  ×count  ×lines  peak RSS MiB (before read)');
    for (const [leg, , label] of legs) {
      const xs = results.get(leg)!;
      const ms = median(xs.map((x) => x.ms));
      const x = xs[0]!;
      const rss = Math.max(...xs.map((y) => y.maxRssMiB));
      const base = Math.max(...xs.map((y) => y.baselineRssMiB));
      console.log(
        `${label.padEnd(38)} ${x.read.toLocaleString('en').padStart(9)} ${(leg.startsWith('filter')
          ? x.kept.toLocaleString('en')
          : '–'
        ).padStart(10)} ${(ms / 1000).toFixed(2).padStart(8)} ${(x.bytes / 1e6 / (ms / 1000)).toFixed(0).padStart(7)} ${(ms / countMs)
          .toFixed(2)
          .padStart(7)} ${(ms / linesMs).toFixed(2).padStart(7)} ${rss.toFixed(0).padStart(9)} (${base.toFixed(0)})`,
      );
    }
  } finally {
    if (!process.argv.includes('--keep-files')) rmSync(dir, { recursive: true, force: true });
    else console.log(`files kept in ${dir}`);
  }
}

const at = process.argv.indexOf('--child');
if (at >= 0) await child(process.argv[at + 1]!, process.argv[at + 2]!, Number(process.argv[at + 3]));
else await main();
