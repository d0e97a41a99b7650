/**
 * Answering questions with a reader, cache first — the answer side of `encodeWithCache` (job.ts): answers
 * already cached are delivered at once, the reader is loaded only when one is missing, and each new answer is
 * committed to the cache before the next question starts, so an interruption loses at most the question in
 * flight and the next run answers only what is missing. One loop for the lab (IndexedDB: src/store/answers.ts)
 * and the CLI (its output file: src/node/answers-file.ts).
 */
import { answerKey, templateName, type AnswerKeyParts, type ReaderTask, type ReaderTemplate } from '../core/answers/prompt.ts';
import { etaMs } from '../core/progress.ts';
import { ReaderError } from './reader-error.ts';
import type { LoadedReader } from './reader.ts';

/**
 * One answer and everything its cache key (`answerKey`) is made of (`model`: a repo id, `local/<folder>` in
 * the lab, or a folder's absolute path in the CLI). The lab's IndexedDB records have exactly
 * this shape; the CLI's answers file writes it as a snake_case line (src/node/answers-file.ts).
 */
export interface AnswerRecord extends AnswerKeyParts {
  readonly key: string;
  readonly queryId: string;
  readonly prediction: string;
  /**
   * How the answer was made: recorded, not keyed (greedy decoding gives the same tokens on every device).
   * Every answer the job makes has them; the CLI's answers file does not keep them.
   */
  readonly device?: string;
  readonly newTokens?: number;
  readonly createdAt?: number;
}

/** What the job needs from a cache (AnswerStore in browsers, the CLI's answers file, a Map in tests). */
export interface AnswerCache {
  /** The stored answers among `keys` (keys not stored are absent). */
  getMany(keys: readonly string[]): Promise<ReadonlyMap<string, AnswerRecord>>;
  /** Commit one answer; the job waits for it before the next question. */
  put(record: AnswerRecord): Promise<void>;
}

/** The reader's part of every key: its name, revision and dtype. */
export interface ReaderIdentity {
  readonly model: string;
  readonly revision: string;
  readonly dtype: string;
}

/** A reader not loaded yet: the job loads it only when some answer is missing from the cache. */
export interface LazyReader {
  load(): Promise<LoadedReader>;
}

/** What the lookup found, before any reader is loaded. */
export interface AnswerLookup {
  readonly total: number;
  /** Tasks whose answer is cached, each with the stored record (its `queryId` may be another task's). */
  readonly hits: readonly { readonly task: ReaderTask; readonly record: AnswerRecord }[];
  /** Tasks left for the reader. */
  readonly toAnswer: number;
}

export interface AnswerJobProgress {
  /** Answers known so far: cached + generated (a refused question is not counted). */
  readonly done: number;
  readonly total: number;
  readonly cached: number;
  /** Time left at this job's rate (the model load excluded); 0 when nothing is left, null before a first answer. */
  readonly etaMs: number | null;
  readonly tokensPerSecond: number | null;
  /** The reader's device; null while no reader is loaded. */
  readonly device: string | null;
}

export interface AnswerJobOptions {
  readonly identity: ReaderIdentity;
  readonly template: ReaderTemplate;
  /** Passages per question: part of the key (the tasks carry the passages themselves). */
  readonly k: number;
  /** Checked before each question: an abort stops the job between questions, never mid-commit. */
  readonly signal?: AbortSignal;
  /** Called once after the lookup, before the reader loads (also when nothing is missing). */
  readonly onLookup?: (lookup: AnswerLookup) => Promise<void> | void;
  readonly onProgress?: (p: AnswerJobProgress) => void;
  /**
   * Each answer as soon as it is known (cache hits first, then each committed answer). Not awaited one by one
   * (a worker's callback is a round trip), but the job returns only once every call has settled.
   */
  readonly onAnswer?: (queryId: string, prediction: string, from: 'cache' | 'reader') => unknown;
  /** A question the reader refused (a prompt past its context): reported, and the job goes on. */
  readonly onRefused?: (queryId: string, reason: string) => void;
  readonly now?: () => number;
}

export interface AnswerJobResult {
  readonly cached: number;
  readonly generated: number;
  readonly refused: readonly { readonly queryId: string; readonly reason: string }[];
  /** The device that answered; null when every answer came from the cache (no reader was loaded). */
  readonly device: string | null;
}

const isLoaded = (r: LoadedReader | LazyReader): r is LoadedReader => 'answer' in r;

/** The key of `task`'s answer under these settings. */
export function taskAnswerKey(identity: ReaderIdentity, template: ReaderTemplate, k: number, task: ReaderTask): string {
  return answerKey({ ...identity, template: templateName(template), k, passageIds: task.passageIds, question: task.question });
}

/**
 * Answer `tasks` cache first: cached answers are delivered, the rest are generated one question at a time, in
 * order, each committed before the next starts. With a `LazyReader` the model is loaded only if some answer is
 * missing. A loaded reader whose dtype is not the one the cache was read for is refused.
 */
export async function answerWithCache(
  reader: LoadedReader | LazyReader,
  cache: AnswerCache,
  tasks: readonly ReaderTask[],
  options: AnswerJobOptions,
): Promise<AnswerJobResult> {
  const now = options.now ?? (() => performance.now());
  const { identity, template, k } = options;
  const keys = tasks.map((task) => taskAnswerKey(identity, template, k, task));
  const stored = await cache.getMany(keys);
  const delivered: Promise<unknown>[] = [];
  const deliver = (queryId: string, prediction: string, from: 'cache' | 'reader') => {
    if (options.onAnswer) delivered.push(Promise.resolve(options.onAnswer(queryId, prediction, from)));
  };
  const hits: { task: ReaderTask; record: AnswerRecord }[] = [];
  const todo: { task: ReaderTask; key: string }[] = [];
  tasks.forEach((task, i) => {
    const key = keys[i]!;
    const record = stored.get(key);
    if (record) {
      hits.push({ task, record });
      deliver(task.queryId, record.prediction, 'cache');
    } else todo.push({ task, key });
  });
  const total = tasks.length;
  const cached = hits.length;
  await options.onLookup?.({ total, hits, toAnswer: todo.length });
  options.onProgress?.({ done: cached, total, cached, etaMs: todo.length === 0 ? 0 : null, tokensPerSecond: null, device: null });
  if (todo.length === 0) {
    await Promise.all(delivered);
    return { cached, generated: 0, refused: [], device: null };
  }

  options.signal?.throwIfAborted();
  const active = isLoaded(reader) ? reader : await reader.load();
  if (active.dtype !== identity.dtype) {
    throw new Error(
      `the loaded reader (${active.config.model}, ${active.dtype}) is not the one the cache was read for (${identity.dtype})`,
    );
  }
  const templateId = templateName(template);
  const started = now();
  let tokens = 0;
  const refused: { queryId: string; reason: string }[] = [];
  for (let i = 0; i < todo.length; i++) {
    options.signal?.throwIfAborted();
    const { task, key } = todo[i]!;
    let answer;
    try {
      answer = await active.answer(task.messages, template);
    } catch (error) {
      if (!(error instanceof ReaderError)) throw error;
      refused.push({ queryId: task.queryId, reason: error.message });
      options.onRefused?.(task.queryId, error.message);
      continue;
    }
    tokens += answer.newTokens;
    await cache.put({
      key,
      queryId: task.queryId,
      prediction: answer.text,
      model: identity.model,
      revision: identity.revision,
      dtype: identity.dtype,
      template: templateId,
      k,
      passageIds: task.passageIds,
      question: task.question,
      device: active.device,
      newTokens: answer.newTokens,
      createdAt: Date.now(),
    });
    deliver(task.queryId, answer.text, 'reader');
    const elapsed = now() - started;
    options.onProgress?.({
      done: cached + i + 1,
      total,
      cached,
      etaMs: etaMs(i + 1, todo.length, elapsed),
      tokensPerSecond: elapsed > 0 ? tokens / (elapsed / 1000) : null,
      device: active.device,
    });
  }
  await Promise.all(delivered);
  return { cached, generated: todo.length - refused.length, refused, device: active.device };
}

/** An in-memory AnswerCache (tests). */
export class MemoryAnswerCache implements AnswerCache {
  readonly records = new Map<string, AnswerRecord>();
  /** Every committed record, in order. */
  readonly puts: AnswerRecord[] = [];

  async getMany(keys: readonly string[]): Promise<ReadonlyMap<string, AnswerRecord>> {
    const out = new Map<string, AnswerRecord>();
    for (const key of keys) {
      const r = this.records.get(key);
      if (r !== undefined) out.set(key, r);
    }
    return out;
  }

  async put(record: AnswerRecord): Promise<void> {
    this.puts.push(record);
    this.records.set(record.key, record);
  }
}
