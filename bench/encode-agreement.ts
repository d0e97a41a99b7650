/**
 * The agreement check's cost beside the job it guards (src/encoders/agreement.ts, src/worker/agreement-check.ts).
 * In headless Chromium, through the real bridge and worker (the test page), a BERT-base-shaped model (random
 * weights, generated into a temp dir) encodes the same passages on a path the check guards — q8 on WASM, at the
 * lab page's thread count — twice, each in a fresh worker: as the lab runs it (a sample of 8 queries and 32
 * passages encoded on WASM fp32 and on the path, compared, before the job), and without the check (the peer),
 * `trials` times each, alternating, so a change in the machine's load falls on both alike. Printed (medians, each
 * trial in brackets): the check (from its start to encoding, less the path's own load, which the job needs
 * anyway), the job's encoding, and the check's share of this job and of SciFact- and FiQA-sized jobs at the
 * measured rate.
 *
 *   npm run bench:encode                             this, then bench/encode.ts with the arguments given
 *   node --import tsx bench/encode-agreement.ts [--smoke] [--passages N] [--trials N]
 *                                                    --smoke: the tiny fixture, 40 passages, 1 trial (not a measurement)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../scripts/models/make-fixtures.ts';
import { bertBaseOptions, writeTinyBert } from '../scripts/models/tiny-bert.ts';
import { agreementSample, AGREEMENT_SAMPLE } from '../src/encoders/agreement.ts';
import { wasmThreads } from '../src/lab/wasm-threads.ts';
import { launchChromium } from '../test/e2e/browser.ts';
import { buildTestPages } from '../test/e2e/build-pages.ts';
import { startHubServer } from '../test/support/hub-server.ts';
import { median } from './lib/rng.ts';

const BASE_MODEL = 'fliplab/bert-base-random';
/** Corpus sizes the check is weighed against: SciFact's and FiQA's passages (BEIR). */
const CORPORA = [
  ['SciFact', 5_183],
  ['FiQA', 57_638],
] as const;

interface Timed {
  readonly phases: readonly { readonly phase: string; readonly ms: number }[];
  readonly ms: number;
  readonly encoded?: number;
  readonly agreement?: { readonly minCosine: number | null; readonly meanOverlap: number | null; readonly passed: boolean } | null;
  readonly error?: { readonly message: string };
}

const WORDS = ['tides', 'moon', 'ocean', 'lighthouse', 'ships', 'harbour', 'ferry', 'canal', 'locks', 'boats', 'dam', 'water', 'sun'];
/** `count` texts of ~`words` words (≈ 1.3 tokens each with the generated vocabulary). */
const texts = (count: number, words: number, salt: number) =>
  Array.from({ length: count }, (_, i) => Array.from({ length: words }, (_, j) => WORDS[(i * 7 + j * 3 + salt) % WORDS.length]).join(' '));

export interface AgreementBenchResult {
  readonly checkMs: number;
  readonly loadMs: number;
  readonly encodeMs: number;
  readonly passages: number;
}

export async function runAgreementBench(
  work: string,
  log: (line: string) => void,
  opts: { readonly smoke?: boolean; readonly passages?: number; readonly trials?: number } = {},
): Promise<AgreementBenchResult> {
  let modelsRoot = DEFAULT_MODELS_DIR;
  let model = 'fliplab/tiny-bert';
  if (opts.smoke) await makeModelFixtures();
  else {
    modelsRoot = join(work, 'models');
    const t = performance.now();
    await writeTinyBert(join(modelsRoot, BASE_MODEL), { ...bertBaseOptions('none', 7), name: BASE_MODEL }, { q8: true });
    model = BASE_MODEL;
    log(`generated ${model} (BERT-base shape, random weights) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  const n = opts.passages ?? (opts.smoke ? 40 : 128);
  const passages = texts(n, opts.smoke ? 12 : 100, 0);
  const sample = agreementSample(texts(12, 8, 5), passages);
  const threads = wasmThreads(cpus().length, 'isolated').threads;
  log(
    `agreement check: ${n} passages of ~${opts.smoke ? 16 : 130} tokens, q8 on WASM (${threads} ${threads === 1 ? 'thread' : 'threads'}), ` +
      `sample ${AGREEMENT_SAMPLE.queries} queries × ${AGREEMENT_SAMPLE.passages} passages; node ${process.version}, ` +
      `${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}`,
  );

  const dist = join(work, 'pages');
  await buildTestPages(dist);
  const server = await startHubServer({ modelsRoot, staticRoot: dist, crossOriginIsolated: true });
  const browser = await launchChromium({ webgpu: false });
  /** One job on a fresh page (a fresh worker, no model in memory), into its own database. */
  const job = async (db: string, checked: boolean): Promise<Timed> => {
    const page: Page = await browser.newPage();
    try {
      await page.goto(`${server.url}encode.html?cache=1&threads=${threads}`);
      await page.waitForFunction(() => 'fliplabTest' in window);
      const r = (await page.evaluate(([m, t, d, s]) => window.fliplabTest.timedCorpus('wasm', m, 'mean', t, d, 'q8', s ?? undefined), [
        model,
        passages,
        db,
        checked ? sample : null,
      ] as const)) as Timed;
      if (r.error) throw new Error(`${checked ? 'checked' : 'unchecked'} job: ${r.error.message}`);
      return r;
    } finally {
      await page.close();
    }
  };
  const at = (r: Timed, phase: string) => {
    const p = r.phases.find((x) => x.phase === phase);
    if (p === undefined) throw new Error(`no ${phase} phase in ${JSON.stringify(r.phases)}`);
    return p.ms;
  };
  const trials = opts.trials ?? (opts.smoke ? 1 : 2);
  const plain: Timed[] = [];
  const checked: Timed[] = [];
  try {
    // A first job fills the browser's model cache (both files) and compiles ORT's wasm: no run pays a download.
    await job('warm-up', true);
    for (let i = 0; i < trials; i++) {
      plain.push(await job(`unchecked-${i}`, false));
      checked.push(await job(`checked-${i}`, true));
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const loads = plain.map((r) => at(r, 'encoding') - at(r, 'loading-model'));
  const loadMs = median([...loads]);
  // Each checked job's check: from its start to encoding, less the path's load (the unchecked jobs' median).
  const checks = checked.map((r) => at(r, 'encoding') - at(r, 'agreement') - loadMs);
  const checkMs = median([...checks]);
  const encodes = [...plain, ...checked].map((r) => r.ms - at(r, 'encoding'));
  const encodeMs = median([...encodes]);
  const perPassageMs = encodeMs / n;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const each = (xs: readonly number[]) => `(${xs.map((x) => (x / 1000).toFixed(1)).join(', ')})`;
  const share = (total: number) => `${((100 * checkMs) / total).toFixed(total > checkMs * 50 ? 2 : 1)}%`;
  const a = checked[0]!.agreement;
  const verdict = a
    ? `   min cosine ${a.minCosine?.toFixed(5)}, top-10 overlap ${a.meanOverlap?.toFixed(2)}, ${a.passed ? 'passed' : 'refused'}`
    : '';
  log(`  check (WASM fp32 reference load + sample on both paths)  ${s(checkMs).padStart(8)} ${each(checks)}${verdict}`);
  log(`  the path's own model load (the job needs it anyway)       ${s(loadMs).padStart(8)} ${each(loads)}`);
  const rate = `${(1000 / perPassageMs).toFixed(1)} passages/s`;
  log(`  the job's encoding, ${n} passages (peer)                  ${s(encodeMs).padStart(8)} ${each(encodes)}   ${rate}`);
  const sizes = CORPORA.map(([name, count]) => `${name} (${count.toLocaleString('en-US')}) ${share(loadMs + count * perPassageMs)}`);
  log(`  the check's share of a job at this rate: these ${n} passages ${share(loadMs + encodeMs)}; ${sizes.join('; ')}`);
  if (opts.smoke) log('  (smoke run: tiny model, not a measurement)');
  return { checkMs, loadMs, encodeMs, passages: n };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const number = (flag: string, least: number): number | undefined => {
    const i = process.argv.indexOf(flag);
    const x = i < 0 ? undefined : Number(process.argv[i + 1]);
    if (x !== undefined && !(Number.isInteger(x) && x >= least)) throw new Error(`${flag} takes a whole number of at least ${least}`);
    return x;
  };
  const passages = number('--passages', AGREEMENT_SAMPLE.passages);
  const trials = number('--trials', 1);
  const work = await mkdtemp(join(tmpdir(), 'fliplab-bench-agreement-'));
  try {
    await runAgreementBench(work, (l) => console.log(l), {
      smoke: process.argv.includes('--smoke'),
      ...(passages === undefined ? {} : { passages }),
      ...(trials === undefined ? {} : { trials }),
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
