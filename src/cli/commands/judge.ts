/**
 * `fliplab judge <beir-dir> --run R [--run R …] --judge <preset|repo|folder> --out model.qrels [--k 10]
 * [--budget N] [--audit N]`: a model judgment layer made from the CLI (for a GPU machine, or for CI), as the
 * lab makes it. The judge labels the holes in the runs' top k (the holes behind flips first: core/judging/
 * select.ts), within the budget, and a blind sample of the pairs people judged: half of it fits a cross-encoder's
 * score thresholds to the collection's grades, half audits the labels (κ, weighted κ, confusion). Writes the layer
 * as TREC qrels and its provenance as `<out>.json`; `<out>.judgments.jsonl` is the cache (a rerun, or one after
 * Ctrl-C, judges only what is missing).
 */
import { existsSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { countOf } from '../../core/count.ts';
import { errorMessage } from '../../core/error-message.ts';
import { parseRun } from '../../core/io/trec.ts';
import { auditSentence } from '../../core/judging/audit.ts';
import { gradeScale } from '../../core/judging/layer.ts';
import { judgingPlan, pairKeyOf } from '../../core/judging/select.ts';
import { labelVerdicts, ThresholdsError } from '../../core/judging/label.ts';
import type { Run } from '../../core/types.ts';
import { DEFAULT_REMOTE_HOST } from '../../encoders/remote-host.ts';
import { judgeIdentity, judgeWithCache } from '../../encoders/judge-job.ts';
import {
  customJudge,
  isJudgePresetId,
  JUDGE_PRESETS,
  type JudgeConfig,
  type JudgeDtype,
  type JudgeKind,
} from '../../encoders/judge-presets.ts';
import type { LoadedJudge } from '../../encoders/judge.ts';
import { fileSource, loadBeirFolder } from '../../node/files.ts';
import { JudgmentsFile } from '../../node/judgments-file.ts';
import { collect, parseIntFlag } from '../args.ts';
import { modelCacheDir } from '../model-options.ts';
import { reportDiagnostics, UsageError, type Io } from '../output.ts';

interface JudgeOpts {
  run: string[];
  judge: string;
  kind?: string;
  out: string;
  k: number;
  budget?: number;
  audit: number;
  thresholds?: string;
  l: number;
  device: string;
  dtype?: string;
  split: string;
  modelDir?: string;
  host?: string;
  offline?: boolean;
}

const DTYPES: readonly JudgeDtype[] = ['fp32', 'fp16', 'q8', 'q4', 'q4f16'];

/** "-2,2,6" → [-2, 2, 6]: ascending score thresholds of grades 1, 2, … */
function parseThresholds(value: string): number[] {
  const t = value.split(',').map((x) => Number(x.trim()));
  if (t.some((x, i) => !Number.isFinite(x) || (i > 0 && x < t[i - 1]!)))
    throw new UsageError(`--thresholds expects ascending numbers separated by commas, got "${value}"`);
  return t;
}

/** The judge's config and where its files are: a preset, a folder on disk, or a repo id (under --model-dir or on the host). */
async function resolveJudge(opts: JudgeOpts): Promise<{ config: JudgeConfig; modelDir?: string; folder?: string }> {
  if (opts.dtype !== undefined && !(DTYPES as readonly string[]).includes(opts.dtype))
    throw new UsageError(`--dtype expects one of ${DTYPES.join(', ')}, got "${opts.dtype}"`);
  if (opts.kind !== undefined && opts.kind !== 'cross-encoder' && opts.kind !== 'llm')
    throw new UsageError(`--kind expects cross-encoder or llm, got "${opts.kind}"`);
  const dtype = opts.dtype as JudgeDtype | undefined;
  if (isJudgePresetId(opts.judge)) {
    const preset: JudgeConfig = JUDGE_PRESETS[opts.judge];
    return { config: { ...preset, ...(dtype ? { dtype } : {}) }, ...(opts.modelDir ? { modelDir: opts.modelDir } : {}) };
  }
  const path = resolve(opts.judge);
  const isFolder = !opts.modelDir && existsSync(path) && statSync(path).isDirectory();
  const model = isFolder ? basename(path) : opts.judge;
  const modelDir = isFolder ? dirname(path) : opts.modelDir;
  let kind = opts.kind as JudgeKind | undefined;
  if (kind === undefined) {
    const { detectJudgeKind, JudgeError } = await import('../../encoders/judge.ts');
    kind = await detectJudgeKind(model, { source: sourceOf(opts, modelDir, isFolder) }).catch((e: unknown) => {
      if (e instanceof JudgeError) throw new UsageError(e.message, { cause: e });
      throw new UsageError(`could not read the config of judge "${model}": ${errorMessage(e)}`, { cause: e });
    });
  }
  const config = customJudge(model, kind, { ...(dtype ? { dtype } : {}) });
  return { config, ...(modelDir ? { modelDir } : {}), ...(isFolder ? { folder: path } : {}) };
}

function sourceOf(opts: JudgeOpts, modelDir: string | undefined, isFolder: boolean) {
  return {
    ...(modelDir ? { localModelPath: modelDir.endsWith('/') ? modelDir : `${modelDir}/` } : {}),
    ...(opts.host ? { remoteHost: opts.host } : {}),
    allowRemote: opts.offline !== true && !isFolder,
    cacheDir: modelCacheDir(opts.host ?? DEFAULT_REMOTE_HOST),
  };
}

export function registerJudge(program: Command, io: Io, _setExit: (code: number) => void): void {
  program
    .command('judge')
    .description(
      "make a model judgment layer: a judge labels the holes in the runs' top k (those behind flips first) and a blind " +
        "sample of people's pairs (thresholds fitted on half, audited on the other); writes TREC qrels and <out>.json",
    )
    .argument('<beir-dir>', 'folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv')
    .requiredOption('--run <file>', 'a run whose top k is judged; repeat it (the first is the reference)', collect, [])
    .requiredOption('--judge <id>', `a preset (${Object.keys(JUDGE_PRESETS).join(', ')}), a hub repo id, or a model folder`)
    .requiredOption('--out <file>', 'the model qrels to write (TREC); its provenance goes to <out>.json')
    .option('--kind <kind>', 'cross-encoder or llm (default: what the model config says)')
    .option('--k <n>', 'depth of the top k whose holes are judged', parseIntFlag('--k', 1, 1000), 10)
    .option('--budget <n>', 'holes to judge at most (the holes behind flips come first)', parseIntFlag('--budget', 0))
    .option(
      '--audit <n>',
      'pairs people judged to re-judge blind (half fit the thresholds, half audit); 0: none',
      parseIntFlag('--audit', 0),
      200,
    )
    .option(
      '--thresholds <list>',
      "a cross-encoder's score thresholds of grades 1, 2, … (default: fitted on people's pairs, else the preset's)",
    )
    .option('-l <n>', 'minimum grade that counts as relevant (the audit κ)', parseIntFlag('-l', -1000000), 1)
    .option('--device <d>', 'cpu or cuda', 'cpu')
    .option('--dtype <t>', `weights: ${DTYPES.join(', ')} (default: the preset's, fp32 otherwise)`)
    .option('--split <name>', 'qrels split', 'test')
    .option('--model-dir <dir>', 'local models root (transformers.js layout); tried before the host')
    .option('--host <url>', 'hub-compatible model host or mirror (default https://huggingface.co/)')
    .option('--offline', 'never contact a host; only --model-dir or a folder')
    .action(async (dir: string, opts: JudgeOpts) => {
      if (opts.device !== 'cpu' && opts.device !== 'cuda') throw new UsageError(`--device expects cpu or cuda, got "${opts.device}"`);
      if (opts.run.length === 0) throw new UsageError('judge needs at least one --run');
      const given = opts.thresholds === undefined ? undefined : parseThresholds(opts.thresholds);
      const col = await loadBeirFolder(dir, opts.split);
      const runs: Run[] = [];
      for (const path of opts.run) {
        const run = await parseRun(fileSource(path), path);
        reportDiagnostics(io, run.warnings);
        runs.push(run.value);
      }
      reportDiagnostics(io, col.warnings);
      const { config, modelDir, folder } = await resolveJudge(opts);
      const scale = gradeScale(col.qrels);

      // What the judge gets: the sample of people's pairs, then the holes (flips' first), within the budget.
      const plan = judgingPlan(col.qrels, runs, col.corpus, col.queries, {
        k: opts.k,
        audit: opts.audit,
        ...(opts.budget === undefined ? {} : { budget: opts.budget }),
      });
      if (plan.unknown > 0)
        reportDiagnostics(io, [
          {
            severity: 'warning',
            file: dir,
            message: `${countOf(plan.unknown, 'pair')} name a query or passage the collection does not have: not judged`,
          },
        ]);
      io.stderr(
        `judge: ${countOf(plan.holes, 'hole')} in the top ${opts.k} (${plan.holesBehindFlips} behind flips) and ` +
          `${countOf(plan.fit + plan.audit, 'pair')} people judged, ` +
          `with ${config.model} (${config.kind}, ${config.dtype})\n`,
      );

      const identity = await judgeIdentity(config, folder ?? config.model);
      const cache = await JudgmentsFile.open(`${opts.out}.judgments.jsonl`);
      let judge: LoadedJudge | null = null;
      let last = 0;
      let result;
      try {
        result = await judgeWithCache(
          {
            load: async () => {
              const { loadJudge, JudgeError } = await import('../../encoders/judge.ts');
              judge = await loadJudge(config, {
                device: opts.device as 'cpu' | 'cuda',
                source: sourceOf(opts, modelDir, folder !== undefined),
              }).catch((e: unknown) => {
                if (e instanceof JudgeError) throw new UsageError(e.message, { cause: e });
                throw new UsageError(`could not load judge "${config.model}" on ${opts.device}: ${errorMessage(e)}`, { cause: e });
              });
              return judge;
            },
          },
          cache,
          plan.tasks,
          {
            identity,
            onProgress: (p) => {
              const now = performance.now();
              if (p.device === null || (now - last <= 1000 && p.done < p.total)) return;
              last = now;
              io.stderr(
                `judge: ${p.done - p.cached}/${p.total - p.cached}, ${(p.perSecond ?? 0).toFixed(1)} pairs/s` +
                  `${p.etaMs === null ? '' : `, ETA ${(p.etaMs / 1000).toFixed(0)} s`}\n`,
              );
            },
          },
        );
      } finally {
        await (judge as LoadedJudge | null)?.dispose();
      }
      const verdicts = new Map(result.records.map((r) => [pairKeyOf(r), r]));
      let layer;
      try {
        layer = labelVerdicts(plan, verdicts, {
          kind: config.kind,
          scaleMax: scale.max,
          level: opts.l,
          name: config.model,
          ...(config.thresholds === undefined ? {} : { presetThresholds: config.thresholds }),
          ...(given === undefined ? {} : { thresholds: given }),
        });
      } catch (e) {
        if (e instanceof ThresholdsError) throw new UsageError(e.message.replace('give thresholds', 'give --thresholds'));
        throw e;
      }
      const { labels, thresholds, thresholdsFrom, audit } = layer;
      await writeFile(opts.out, labels.map((p) => `${p.qid} 0 ${p.docId} ${p.grade}\n`).join(''));
      const provenance = {
        judge: {
          id: config.id,
          kind: config.kind,
          model: folder ?? config.model,
          revision: config.revision,
          dtype: config.dtype,
          identity,
        },
        ...(config.kind === 'llm' && config.prompt ? { prompt: config.prompt } : {}),
        collection: dir,
        runs: opts.run,
        k: opts.k,
        budget: opts.budget ?? null,
        scale,
        thresholds,
        thresholds_from: thresholdsFrom === 'given' ? '--thresholds' : thresholdsFrom,
        pairs: { holes: plan.holes, holes_behind_flips: plan.holesBehindFlips, sample_fit: plan.fit, sample_audit: plan.audit },
        cached: result.cached,
        judged: result.judged,
        device: result.device,
        audit: audit === null ? null : { ...audit, summary: auditSentence(audit) },
      };
      await writeFile(`${opts.out}.json`, `${JSON.stringify(provenance, null, 2)}\n`);
      io.stderr(
        `judge: wrote ${countOf(labels.length, 'label')} to ${opts.out} (${result.cached} from the cache, ${result.judged} judged now)\n`,
      );
      io.stderr(`${audit === null ? 'No pair people judged was re-judged: the labels are unaudited.' : auditSentence(audit)}\n`);
    });
}
