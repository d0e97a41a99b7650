/**
 * Judge throughput (pairs per second) on WASM in headless Chromium (the real encode worker, bridge and IndexedDB
 * verdict cache, as the lab runs a judging job) beside onnxruntime-node on the same model files, same machine,
 * same run; and what filling SciFact's holes at k = 10 for two candidates takes.
 *
 *   npm run bench:judge              MiniLM-shaped cross-encoder (fp32) and a 0.5B-shaped LLM judge (q8), WASM vs node
 *   npm run bench:judge -- --fill    also judge every SciFact hole at k = 10 (BM25 against BM25 + RM3 and QL) in the
 *                                    browser with the MiniLM-shaped cross-encoder, timed end to end (long on 2 vCPUs)
 *   npm run bench:judge -- --smoke   the tiny test judges, a few pairs: proves the script runs (CI)
 *
 * Shapes (random weights generated into a temp dir, never committed): the cross-encoder is BERT at MiniLM-L-6's
 * shape (6 layers × 384, 12 heads, FFN 1,536, 30,522 tokens: Xenova/ms-marco-MiniLM-L-6-v2's); the LLM judge has
 * Qwen2.5-0.5B-Instruct's width, depth and vocabulary (896 × 24 layers, 14 heads, 151,936 tokens) in GPT-2 blocks
 * (FFN 4 × 896: 0.37B parameters against Qwen's 0.49B), q8 as the preset runs. Pairs are SciFact's real queries and
 * abstracts; the cross-encoder reads query + passage up to 512 tokens in batches of 16, the LLM judge the UMBRELA
 * prompt with the passage cut at 512 tokens, one pair per forward pass. The goal: WASM ≥ 0.5× node for the
 * cross-encoder.
 */
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_MODELS_DIR,
  makeJudgeFixtures,
  makeReaderFixtures,
  TINY_CROSS_ENCODER,
  TINY_READER,
} from '../scripts/models/make-fixtures.ts';
import { buildTinyBert, tinyBertFiles, writeFileContents } from '../scripts/models/tiny-bert.ts';
import { buildTinyGpt2, tinyGpt2Files } from '../scripts/models/tiny-gpt2.ts';
import { buildWordPieceVocab } from '../scripts/models/wordpiece-vocab.ts';
import { judgingPlan } from '../src/core/judging/select.ts';
import type { PairTask } from '../src/encoders/judge-job.ts';
import { customJudge, JUDGE_PRESETS, type JudgeConfig } from '../src/encoders/judge-presets.ts';
import { loadJudge } from '../src/encoders/judge.ts';
import { loadBeirFolder } from '../src/node/files.ts';
import { cli } from '../test/support/cli.ts';
import { launchChromium } from '../test/e2e/browser.ts';
import { buildTestPages } from '../test/e2e/build-pages.ts';
import { SHARED_DATA } from '../test/shared-data.ts';
import { startHubServer } from '../test/support/hub-server.ts';

const CE = 'fliplab/minilm-shaped-cross-encoder';
const LLM = 'fliplab/qwen-0.5b-shaped-judge';
const SCIFACT = join(SHARED_DATA, 'scifact');

export interface JudgeBenchOptions {
  readonly smoke?: boolean;
  readonly fill?: boolean;
  readonly log?: (line: string) => void;
}

export interface JudgeBenchRow {
  readonly judge: string;
  readonly engine: string;
  readonly pairs: number;
  readonly pairsPerSecond: number;
}

/** SciFact pairs with real texts: query i with the abstract at a fixed stride (not a relevance claim). */
async function scifactPairs(count: number, offset: number): Promise<PairTask[]> {
  const queries = (await readFile(join(SCIFACT, 'queries.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { _id: string; text: string });
  const corpus = (await readFile(join(SCIFACT, 'corpus.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { _id: string; title: string; text: string });
  return Array.from({ length: count }, (_, j) => {
    const i = j + offset;
    const q = queries[i % queries.length]!;
    const d = corpus[(i * 37) % corpus.length]!;
    return { qid: q._id, docid: d._id, query: q.text, passage: `${d.title}. ${d.text}` };
  });
}

export async function runJudgeBench(opts: JudgeBenchOptions = {}): Promise<JudgeBenchRow[]> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const rows: JudgeBenchRow[] = [];
  const work = await mkdtemp(join(tmpdir(), 'fliplab-bench-judge-'));
  try {
    const modelsRoot = join(work, 'models');
    await mkdir(join(modelsRoot, 'fliplab'), { recursive: true });
    let judges: { config: JudgeConfig; measured: number }[];
    if (opts.smoke) {
      await Promise.all([makeJudgeFixtures(), makeReaderFixtures()]);
      for (const id of [TINY_CROSS_ENCODER.id, TINY_READER.id]) await symlink(join(DEFAULT_MODELS_DIR, id), join(modelsRoot, id), 'dir');
      judges = [
        { config: customJudge(TINY_CROSS_ENCODER.id, 'cross-encoder'), measured: 32 },
        { config: { ...customJudge(TINY_READER.id, 'llm'), dtype: 'q8' }, measured: 2 },
      ];
    } else {
      let t = performance.now();
      const vocabulary = buildWordPieceVocab(30_522);
      const ce = buildTinyBert({
        head: 'classifier',
        hiddenSize: 384,
        layers: 6,
        heads: 12,
        intermediate: 1536,
        maxPositions: 512,
        vocabulary,
        seed: 11,
        name: CE,
      });
      await mkdir(join(modelsRoot, CE, 'onnx'), { recursive: true });
      for (const [path, contents] of Object.entries(tinyBertFiles(ce))) await writeFileContents(join(modelsRoot, CE, path), contents);
      log(`generated ${CE} (MiniLM-L-6 shape, random weights, fp32) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      t = performance.now();
      const llm = buildTinyGpt2({ hiddenSize: 896, layers: 24, heads: 14, vocabSize: 151_936, maxPositions: 2048, seed: 12, name: LLM });
      await mkdir(join(modelsRoot, LLM, 'onnx'), { recursive: true });
      for (const [path, contents] of Object.entries(tinyGpt2Files(llm, { q8: true })))
        await writeFileContents(join(modelsRoot, LLM, path), contents);
      log(
        `generated ${LLM} (Qwen2.5-0.5B's width, depth, vocabulary; GPT-2 blocks; q8) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
      judges = [
        { config: { ...JUDGE_PRESETS['ms-marco-minilm'], id: CE, label: CE, model: CE }, measured: 48 },
        { config: { ...JUDGE_PRESETS['qwen2.5-0.5b-umbrela'], id: LLM, label: LLM, model: LLM }, measured: 2 },
      ];
    }
    log(`node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}; SciFact queries and abstracts`);

    // onnxruntime-node: warm-up (one batch), then the measured pairs as the job would batch them.
    const nodeVerdicts = new Map<string, number[]>();
    for (const { config, measured } of judges) {
      const judge = await loadJudge(config, { device: 'cpu', source: { localModelPath: `${modelsRoot}/`, allowRemote: false } });
      try {
        const batch = config.kind === 'llm' ? 1 : 16;
        await judge.judge(await scifactPairs(batch, 10_000));
        const pairs = await scifactPairs(measured, 0);
        const scores: number[] = [];
        const t = performance.now();
        for (let i = 0; i < pairs.length; i += batch) scores.push(...(await judge.judge(pairs.slice(i, i + batch))).map((v) => v.score));
        rows.push({
          judge: config.model,
          engine: 'onnxruntime-node cpu',
          pairs: measured,
          pairsPerSecond: (measured * 1000) / (performance.now() - t),
        });
        nodeVerdicts.set(config.model, scores);
      } finally {
        await judge.dispose();
      }
    }

    const dist = join(work, 'dist');
    await buildTestPages(dist);
    const server = await startHubServer({ modelsRoot, staticRoot: dist, crossOriginIsolated: true });
    const browser = await launchChromium({ webgpu: false });
    try {
      const page = await browser.newPage();
      await page.goto(`${server.url}encode.html?cache=0&threads=${cpus().length}`);
      await page.waitForFunction(() => 'fliplabTest' in window);
      for (const { config, measured } of judges) {
        const warm = await scifactPairs(config.kind === 'llm' ? 1 : 16, 10_000);
        const pairs = await scifactPairs(measured, 0);
        const r = await page.evaluate(([j, w, p]) => window.fliplabTest.judgeWith('wasm', j, w, p, `bench-judge-${j.model}`), [
          config,
          warm,
          pairs,
        ] as const);
        if ('error' in r) throw new Error(`${config.model} on wasm: ${r.error.name}: ${r.error.message}`);
        const node = nodeVerdicts.get(config.model)!;
        const worst = Math.max(...r.verdicts.map((v, i) => Math.abs((v?.score ?? NaN) - node[i]!)));
        rows.push({
          judge: config.model,
          engine: `browser ${r.device ?? 'cache'}, ${cpus().length} threads`,
          pairs: r.judged,
          pairsPerSecond: r.pairsPerSecond,
        });
        log(`${config.model}: largest |browser − node| score ${worst.toExponential(2)}`);
      }

      if (opts.fill && !opts.smoke) {
        // SciFact's holes at k = 10 for two candidates, the plan the lab makes, judged by the worker as the lab does.
        const col = await loadBeirFolder(SCIFACT);
        const runDir = join(work, 'runs');
        await mkdir(runDir, { recursive: true });
        const runs = [];
        for (const [name, command, extra] of [
          ['bm25', 'bm25', []],
          ['bm25-rm3', 'bm25', ['--rm3']],
          ['ql', 'ql', []],
        ] as const) {
          const out = join(runDir, `${name}.run`);
          const r = await cli(command, SCIFACT, '--depth', '10', '--out', out, ...extra);
          if (r.code !== 0) throw new Error(r.stderr);
          const { parseRun } = await import('../src/core/io/trec.ts');
          const { fileSource } = await import('../src/node/files.ts');
          runs.push((await parseRun(fileSource(out), out)).value);
        }
        const t0 = performance.now();
        const plan = judgingPlan(col.qrels, runs, col.corpus, col.queries, { k: 10, audit: 200 });
        const planMs = performance.now() - t0;
        const config = judges[0]!.config;
        const tasks = plan.tasks.map((t) => ({ qid: t.qid, docid: t.docid, query: t.query, passage: t.passage }));
        const t1 = performance.now();
        const r = await page.evaluate(([j, p]) => window.fliplabTest.judgeWith('wasm', j, [], p, 'bench-judge-fill'), [
          config,
          tasks,
        ] as const);
        if ('error' in r) throw new Error(`fill: ${r.error.name}: ${r.error.message}`);
        const ms = performance.now() - t1;
        log(
          `fill: SciFact at k = 10, BM25 vs BM25 + RM3 and QL: ${plan.holes} holes (${plan.holesBehindFlips} behind flips) + ` +
            `${plan.fit + plan.audit} audit pairs, planned in ${planMs.toFixed(0)} ms, judged in ${(ms / 1000).toFixed(0)} s ` +
            `(${r.pairsPerSecond.toFixed(1)} pairs/s on wasm)`,
        );
      }
    } finally {
      await browser.close();
      await server.close();
    }

    log('judge                                  engine                          pairs   pairs/s');
    for (const r of rows)
      log(`${r.judge.padEnd(38)} ${r.engine.padEnd(31)} ${String(r.pairs).padStart(5)} ${r.pairsPerSecond.toFixed(2).padStart(9)}`);
    const note = opts.smoke ? ' (smoke run: tiny judges, not a measurement)' : '';
    for (const { config } of judges) {
      const of = (prefix: string) => rows.find((r) => r.judge === config.model && r.engine.startsWith(prefix))?.pairsPerSecond ?? 0;
      const ratio = of('browser') / of('onnxruntime-node');
      const goal = config.kind === 'cross-encoder' ? ` (goal ≥ 0.5×: ${ratio >= 0.5 ? 'met' : 'not met'})` : '';
      log(`${config.model}: browser WASM / node ${ratio.toFixed(2)}×${goal}${note}`);
    }
    return rows;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  await runJudgeBench({ smoke: process.argv.includes('--smoke'), fill: process.argv.includes('--fill') });
}
