/**
 * `fliplab answers generate <beir-dir> --run R --reader <preset|repo|folder> [--k 10] [--device cpu|cuda]
 *  [--queries flips.json|all] --out P.jsonl`: a reader's answers from one run's top k (RAGFlip §3.5) with
 * onnxruntime-node, written as the predictions JSONL `answers flips` and the lab read.
 *
 * The output file is also the cache (src/node/answers-file.ts, driven by `answerWithCache`, the loop the lab
 * runs too): each line records what the answer depends on (reader, revision, dtype, template, k, passage ids,
 * question), so running the command again, or after Ctrl-C, only answers what is missing. Lines made with
 * other settings are kept out of the new file and counted in a warning.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { READER_TEMPLATE, readerTasks, templateName, type ReaderTemplate } from '../../core/answers/prompt.ts';
import { InputError } from '../../core/io/errors.ts';
import { parseRun } from '../../core/io/trec.ts';
import type { QueryId } from '../../core/types.ts';
import { answerWithCache } from '../../encoders/answer-job.ts';
import type { LoadedReader } from '../../encoders/reader.ts';
import { AnswersFile } from '../../node/answers-file.ts';
import { fileSource, loadBeirFolder } from '../../node/files.ts';
import { READER_DTYPES, READER_PRESETS } from '../../encoders/reader-presets.ts';
import { parseIntFlag } from '../args.ts';
import { reportDiagnostics, UsageError, type Io } from '../output.ts';
import { readerLoader, resolveReader } from '../reader-options.ts';

interface GenerateOpts {
  run: string;
  reader: string;
  k?: number;
  device: string;
  dtype?: string;
  queries: string;
  out: string;
  split: string;
  modelDir?: string;
  host?: string;
  offline?: boolean;
  template?: string;
}

/**
 * `--queries`: `all`, a JSON array of ids, or `answers flips --json` output (every candidate's flip and control
 * queries, and the depth `k` those sets are for).
 */
async function selectQueries(spec: string, all: readonly string[], io: Io): Promise<{ ids: string[]; k?: number }> {
  if (spec === 'all') return { ids: [...all] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(spec, 'utf8'));
  } catch (e) {
    throw new InputError(
      spec,
      undefined,
      `expected "all", a JSON array of query ids, or the output of answers flips --json: ${(e as Error).message}`,
    );
  }
  const ids = new Set<string>();
  let rejected = 0;
  const take = (v: unknown): void => {
    if (!Array.isArray(v)) return;
    for (const id of v) {
      if (typeof id === 'string' && id !== '') ids.add(id);
      else if (typeof id === 'number' && Number.isFinite(id)) ids.add(String(id));
      else rejected++;
    }
  };
  let k: number | undefined;
  if (Array.isArray(parsed)) take(parsed);
  else if (typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { candidates?: unknown }).candidates)) {
    const flips = parsed as { k?: unknown; candidates: { flip_queries?: unknown; control_queries?: unknown }[] };
    if (Number.isInteger(flips.k)) k = flips.k as number;
    for (const c of flips.candidates) {
      take(c.flip_queries);
      take(c.control_queries);
    }
  } else throw new InputError(spec, undefined, 'expected a JSON array of query ids or an object with "candidates" (answers flips --json)');
  if (rejected > 0) io.stderr(`${spec}: warning: ${rejected} entries are not query ids (strings or numbers) and were skipped\n`);
  if (ids.size === 0) throw new InputError(spec, undefined, 'names no queries');
  // In the order the collection has them, so the file reads like the run.
  const order = new Map(all.map((q, i) => [q, i]));
  const sorted = [...ids].sort((a, b) => (order.get(a) ?? Infinity) - (order.get(b) ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0));
  return k === undefined ? { ids: sorted } : { ids: sorted, k };
}

/** A custom template file (the JSON `answers template` prints); its id and version must be its own. */
async function readTemplate(path: string | undefined): Promise<ReaderTemplate> {
  if (path === undefined) return READER_TEMPLATE;
  const t = JSON.parse(await readFile(path, 'utf8')) as Partial<ReaderTemplate>;
  for (const key of ['id', 'system', 'user', 'passage', 'separator'] as const) {
    if (typeof t[key] !== 'string') throw new InputError(path, undefined, `expected "${key}" as a string in the template`);
  }
  for (const key of ['version', 'passageWords', 'maxNewTokens'] as const) {
    if (!Number.isInteger(t[key]) || (t[key] as number) < 1)
      throw new InputError(path, undefined, `expected "${key}" as a positive integer`);
  }
  const template = t as ReaderTemplate;
  // The name stands for the text in every cache key: a changed text under the built-in name would reuse answers.
  if (templateName(template) === templateName(READER_TEMPLATE) && JSON.stringify(template) !== JSON.stringify(READER_TEMPLATE))
    throw new InputError(
      path,
      undefined,
      `differs from the built-in template but keeps its name ${templateName(READER_TEMPLATE)}: give it its own "id" (or "version")`,
    );
  return template;
}

export function registerAnswersGenerate(answers: Command, io: Io): void {
  answers
    .command('template')
    .description('print the reader prompt template (JSON; a copy with its own id and version can be passed to generate --template)')
    .action(() => io.stdout(`${JSON.stringify(READER_TEMPLATE, null, 2)}\n`));

  answers
    .command('generate')
    .description("a reader's answers from a run's top k passages (greedy, 24 new tokens, passages cut to 300 words)")
    .argument('<beir-dir>', 'folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv')
    .requiredOption('--run <file>', 'the run whose passages the reader gets (TREC format)')
    .requiredOption('--reader <id>', `a preset (${Object.keys(READER_PRESETS).join(', ')}), a hub repo id, or a model folder`)
    .requiredOption('--out <file>', 'predictions JSONL to write (existing answers with the same settings are reused)')
    .option('--k <n>', 'passages per question (default: the k of an answers flips --json file, else 10)', parseIntFlag('--k', 1, 1000))
    .option('--queries <spec>', '"all", a JSON array of query ids, or answers flips --json output', 'all')
    .option('--device <d>', 'cpu or cuda', 'cpu')
    .option('--dtype <t>', `weights: ${READER_DTYPES.join(', ')} (default: the preset's, fp32 otherwise)`)
    .option('--split <name>', 'qrels split (its queries are "all")', 'test')
    .option('--model-dir <dir>', 'local models root (transformers.js layout); tried before the host')
    .option('--host <url>', 'hub-compatible model host or mirror (default https://huggingface.co/)')
    .option('--offline', 'never contact a host; only --model-dir or a folder')
    .option('--template <file>', 'a prompt template JSON (default: fliplab answers template)')
    .action(async (dir: string, opts: GenerateOpts) => {
      if (opts.device !== 'cpu' && opts.device !== 'cuda') throw new UsageError(`--device expects cpu or cuda, got "${opts.device}"`);
      const device = opts.device;
      const template = await readTemplate(opts.template);
      const { config, modelDir, folder } = resolveReader(opts);
      const col = await loadBeirFolder(dir, opts.split);
      const run = await parseRun(fileSource(opts.run), opts.run);
      reportDiagnostics(io, [...col.warnings, ...run.warnings]);
      const judged = [...col.qrels.byQuery.keys()];
      const selected = await selectQueries(opts.queries, judged, io);
      const queryIds = selected.ids;
      // The flip sets are for one depth: by default the passages are that depth's.
      const k = opts.k ?? selected.k ?? 10;
      if (opts.k !== undefined && selected.k !== undefined && opts.k !== selected.k)
        io.stderr(`warning: ${opts.queries} holds the flip sets at k = ${selected.k}, but --k is ${opts.k}\n`);
      const questions = new Map(col.queries.ids.map((id, i) => [id, col.queries.texts[i] ?? '']));
      const set = readerTasks(template, col.corpus, questions, (q) => run.value.byQuery.get(q as QueryId)?.docs, queryIds, k);
      if (set.missingQuestions.length > 0)
        io.stderr(
          `warning: ${set.missingQuestions.length} queries are not in queries.jsonl and get no answer ` +
            `(e.g. ${set.missingQuestions.slice(0, 3).join(', ')})\n`,
        );
      if (set.missingPassages > 0)
        io.stderr(`warning: ${set.missingPassages} ranked documents are not in the corpus and were left out of the passages\n`);

      // A folder is named by its absolute path: two folders called "model" are two readers.
      const identity = { model: folder ?? config.model, revision: config.revision, dtype: config.dtype };
      const file = await AnswersFile.open(opts.out, run.value.name);
      let reader: LoadedReader | null = null;
      const loadReader = readerLoader({ config, modelDir, folder, device, host: opts.host, offline: opts.offline === true }, io);
      const load = async (): Promise<LoadedReader> => (reader = await loadReader());
      let last = 0;
      try {
        const result = await answerWithCache({ load }, file, set.tasks, {
          identity,
          template,
          k,
          onLookup: async ({ total, hits, toAnswer }) => {
            // Nothing is thrown away: answers made with other settings or for other queries move aside.
            const { moved, aside } = await file.keep(hits.map((h) => ({ key: h.record.key, queryId: h.task.queryId })));
            if (moved > 0)
              io.stderr(`warning: ${moved} answers in ${opts.out} were made with other settings or for other queries: moved to ${aside}\n`);
            io.stderr(
              `answers: ${total} questions, ${hits.length} already answered, ${toAnswer} to generate ` +
                `with ${config.model} (${config.dtype}, ${opts.device})\n`,
            );
          },
          // One question the reader cannot take (a prompt past its context) does not stop the others.
          onRefused: (queryId, reason) => io.stderr(`warning: query ${queryId} not answered: ${reason}\n`),
          onProgress: (p) => {
            if (p.device === null) return;
            const now = performance.now();
            if (now - last <= 1000 && p.done < p.total) return;
            last = now;
            const eta = p.etaMs;
            io.stderr(
              `answers: ${p.done - p.cached}/${p.total - p.cached}, ${(p.tokensPerSecond ?? 0).toFixed(1)} new tokens/s` +
                `${eta === null ? '' : `, ETA ${(eta / 1000).toFixed(0)} s`}\n`,
            );
          },
        });
        if (result.refused.length > 0)
          io.stderr(`warning: ${result.refused.length} of ${set.tasks.length - result.cached} questions were not answered (see above)\n`);
      } finally {
        await (reader as LoadedReader | null)?.dispose();
      }
    });
}
