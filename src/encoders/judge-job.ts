/**
 * Judging pairs cache first — the judge's side of `encodeWithCache` and `answerWithCache`: verdicts already
 * cached are delivered at once, the judge is loaded only when one is missing, and each batch is committed to the
 * cache before the next starts, so Cancel, a crash or a reload loses at most the batch in flight and the next
 * run judges only what is missing. One loop for the lab (IndexedDB) and the CLI (its judgments file).
 *
 * A verdict is keyed by the judge (model, revision, dtype, kind, prompt and its text, tokens read) and the
 * texts of the query and the passage — never by which retriever found the passage, which the judge never sees.
 */
import { sha256Hex } from '../core/sha256.ts';
import { etaMs } from '../core/progress.ts';
import type { JudgeConfig } from './judge-presets.ts';
import type { JudgePair, LoadedJudge, PairVerdict } from './judge.ts';

/** One cached verdict: its key and the pair it is for (ids as the collection names them). */
export interface JudgmentRecord extends PairVerdict {
  readonly key: string;
  readonly qid: string;
  readonly docid: string;
  /** The judge's identity (`judgeIdentity`), so a cache lists which judges made what. */
  readonly judge: string;
}

export interface JudgmentCache {
  getMany(keys: readonly string[]): Promise<ReadonlyMap<string, JudgmentRecord>>;
  putMany(records: readonly JudgmentRecord[]): Promise<void>;
}

export interface PairTask extends JudgePair {
  readonly qid: string;
  readonly docid: string;
}

/** Everything a verdict depends on besides the pair: one string, the judge's name in keys and recipes. */
export async function judgeIdentity(config: JudgeConfig, model = config.model): Promise<string> {
  const p = config.kind === 'llm' ? config.prompt : undefined;
  // The prompt by name and by text: an edited prompt under the same name is another judge.
  const prompt = p === undefined ? '' : `|${p.id}:${(await sha256Hex(`${p.template}\u0000${p.answerPrefix}`)).slice(0, 16)}`;
  return `${config.kind}|${model}|${config.revision}|${config.dtype}|${config.maxLength}${prompt}`;
}

export async function judgmentKey(identity: string, pair: JudgePair): Promise<string> {
  return sha256Hex(`${identity}\u0000${pair.query}\u0000${pair.passage}`);
}

export interface JudgeJobProgress {
  readonly total: number;
  readonly cached: number;
  readonly done: number;
  readonly perSecond: number | null;
  readonly etaMs: number | null;
  /** null until the judge is loaded (cached verdicts need none). */
  readonly device: string | null;
}

export interface JudgeJobOptions {
  /** The judge's identity (`judgeIdentity`); a folder may be named by its path. */
  readonly identity: string;
  /** Pairs per judge call (default 16 for a cross-encoder, 1 for an LLM judge). */
  readonly batch?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: JudgeJobProgress) => void;
  /** Each verdict as it is known: cached ones first, then each committed batch. */
  readonly onVerdicts?: (records: readonly JudgmentRecord[], from: 'cache' | 'judge') => void;
  /** Deliver what the cache holds and stop: no judge is loaded for the rest. */
  readonly cacheOnly?: boolean;
  readonly now?: () => number;
}

export interface JudgeJobResult {
  readonly cached: number;
  readonly judged: number;
  readonly records: JudgmentRecord[];
  readonly device: string | null;
}

export async function judgeWithCache(
  lazy: { load(): Promise<LoadedJudge> },
  cache: JudgmentCache,
  tasks: readonly PairTask[],
  options: JudgeJobOptions,
): Promise<JudgeJobResult> {
  const now = options.now ?? (() => performance.now());
  const keys = await Promise.all(tasks.map((t) => judgmentKey(options.identity, t)));
  const found = await cache.getMany(keys);
  const records: (JudgmentRecord | undefined)[] = tasks.map((t, i) => {
    const hit = found.get(keys[i]!);
    return hit === undefined ? undefined : { ...hit, qid: t.qid, docid: t.docid };
  });
  const hits = records.filter((r): r is JudgmentRecord => r !== undefined);
  if (hits.length > 0) options.onVerdicts?.(hits, 'cache');
  const missing = tasks.map((_, i) => i).filter((i) => records[i] === undefined);
  let done = hits.length;
  let device: string | null = null;
  const report = (started: number | null) => {
    const judgedSoFar = done - hits.length;
    const ms = started === null ? 0 : now() - started;
    options.onProgress?.({
      total: tasks.length,
      cached: hits.length,
      done,
      perSecond: judgedSoFar > 0 && ms > 0 ? (judgedSoFar * 1000) / ms : null,
      etaMs: missing.length === 0 ? 0 : started === null ? null : etaMs(judgedSoFar, missing.length, ms),
      device,
    });
  };
  report(null);
  if (missing.length > 0 && options.cacheOnly !== true) {
    options.signal?.throwIfAborted();
    const judge = await lazy.load();
    device = judge.device;
    const batch = options.batch ?? (judge.kind === 'llm' ? 1 : 16);
    const started = now();
    for (let start = 0; start < missing.length; start += batch) {
      options.signal?.throwIfAborted();
      const at = missing.slice(start, start + batch);
      const verdicts = await judge.judge(at.map((i) => tasks[i]!));
      const made = at.map((i, j): JudgmentRecord => {
        const v = verdicts[j]!;
        if (!Number.isFinite(v.score))
          throw new Error(`the judge gave a score of ${v.score} for query ${tasks[i]!.qid}, passage ${tasks[i]!.docid}`);
        return { key: keys[i]!, qid: tasks[i]!.qid, docid: tasks[i]!.docid, judge: options.identity, ...v };
      });
      // Committed before the next batch: a stop loses this batch at most.
      await cache.putMany(made);
      at.forEach((i, j) => (records[i] = made[j]));
      done += made.length;
      options.onVerdicts?.(made, 'judge');
      report(started);
    }
  }
  const made = records.filter((r): r is JudgmentRecord => r !== undefined);
  return { cached: hits.length, judged: made.length - hits.length, records: made, device };
}
