/**
 * `answerWithCache`, the cache-first answer loop the lab (IndexedDB) and the CLI (its answers file) share, with
 * a fake reader that logs what it is asked and an in-memory cache that logs what is committed: hits never reach
 * the reader (which is not even loaded when nothing is missing), misses are committed one by one before the
 * next question starts, a refused question is reported and skipped, and an abort stops between questions.
 */
import { describe, expect, it } from 'vitest';
import { answerKey, READER_TEMPLATE, readerMessages, type ReaderTask } from '../../../src/core/answers/prompt.ts';
import {
  answerWithCache,
  MemoryAnswerCache,
  taskAnswerKey,
  type AnswerJobProgress,
  type AnswerRecord,
  type LazyReader,
} from '../../../src/encoders/answer-job.ts';
import type { LoadedReader } from '../../../src/encoders/reader.ts';
import { ReaderError } from '../../../src/encoders/reader-error.ts';

const identity = { model: 'org/reader', revision: 'main', dtype: 'q8' };
const K = 2;

const task = (queryId: string, question: string, passageIds: readonly string[] = ['d1', 'd2']): ReaderTask => ({
  queryId,
  question,
  passageIds,
  messages: readerMessages(
    READER_TEMPLATE,
    question,
    passageIds.map((id) => ({ id, text: `passage ${id}` })),
  ),
});

const TASKS = [task('q1', 'one?'), task('q2', 'two?'), task('q3', 'three?'), task('q4', 'four?')];

/** A reader that answers "answer to <question>" with one new token per word, logging each question it starts. */
function fakeReader(
  options: { refuse?: string; onAnswer?: (question: string) => void; log?: string[]; dtype?: string } = {},
): LoadedReader & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    config: { id: 'r', label: 'r', model: identity.model, revision: identity.revision, dtype: 'q8' },
    device: 'cpu',
    dtype: (options.dtype ?? identity.dtype) as LoadedReader['dtype'],
    contextLength: 2048,
    chatTemplate: '{{ messages }}',
    promptTokens: () => 10,
    async answer(messages) {
      // The job passes each task's own messages: they name the question.
      const q = TASKS.find((t) => t.messages === messages)!.question;
      asked.push(q);
      options.log?.push(`answer ${q}`);
      options.onAnswer?.(q);
      if (q === options.refuse) throw new ReaderError(`the prompt of ${q} is too long`);
      const text = `answer to ${q}`;
      return { text, promptTokens: 10, newTokens: text.split(' ').length, tokenIds: [] };
    },
    async dispose() {},
  };
}

/** A cache with `questions` already answered (as a previous run committed them). */
function cacheWith(...questions: string[]): MemoryAnswerCache {
  const cache = new MemoryAnswerCache();
  for (const t of TASKS.filter((t) => questions.includes(t.question))) {
    const key = taskAnswerKey(identity, READER_TEMPLATE, K, t);
    cache.records.set(key, {
      key,
      queryId: t.queryId,
      prediction: `cached ${t.question}`,
      ...identity,
      template: 'fliplab-short-answer@v1',
      k: K,
      passageIds: t.passageIds,
      question: t.question,
    });
  }
  return cache;
}

/** A cache that logs each commit into `log`. */
function loggingCache(log: string[], base = new MemoryAnswerCache()): MemoryAnswerCache {
  const put = base.put.bind(base);
  base.put = async (r: AnswerRecord) => {
    log.push(`put ${r.question}`);
    await put(r);
  };
  return base;
}

describe('answerWithCache', () => {
  it('keys an answer by the reader, revision, dtype, template name, k, passage ids and question', () => {
    const t = TASKS[0]!;
    expect(taskAnswerKey(identity, READER_TEMPLATE, K, t)).toBe(
      answerKey({ ...identity, template: 'fliplab-short-answer@v1', k: K, passageIds: ['d1', 'd2'], question: 'one?' }),
    );
  });

  it('delivers cache hits without asking the reader and answers only the misses, committing each before the next question', async () => {
    const log: string[] = [];
    const reader = fakeReader({ log });
    const cache = loggingCache(log, cacheWith('two?', 'four?'));
    const answers: string[] = [];
    const progress: AnswerJobProgress[] = [];
    const result = await answerWithCache(reader, cache, TASKS, {
      identity,
      template: READER_TEMPLATE,
      k: K,
      onAnswer: (queryId, prediction, from) => void answers.push(`${queryId} ${from}: ${prediction}`),
      onProgress: (p) => void progress.push(p),
    });
    expect(reader.asked).toEqual(['one?', 'three?']);
    // Each answer is committed before the reader starts on the next question.
    expect(log).toEqual(['answer one?', 'put one?', 'answer three?', 'put three?']);
    expect(answers).toEqual([
      'q2 cache: cached two?',
      'q4 cache: cached four?',
      'q1 reader: answer to one?',
      'q3 reader: answer to three?',
    ]);
    expect(result).toEqual({ cached: 2, generated: 2, refused: [], device: 'cpu' });
    expect(cache.puts.map((r) => r.queryId)).toEqual(['q1', 'q3']);
    expect(cache.puts[0]).toMatchObject({
      key: taskAnswerKey(identity, READER_TEMPLATE, K, TASKS[0]!),
      prediction: 'answer to one?',
      ...identity,
      template: 'fliplab-short-answer@v1',
      k: K,
      passageIds: ['d1', 'd2'],
      question: 'one?',
      device: 'cpu',
      newTokens: 3,
    });
    expect(progress.map((p) => [p.done, p.total, p.cached, p.device])).toEqual([
      [2, 4, 2, null],
      [3, 4, 2, 'cpu'],
      [4, 4, 2, 'cpu'],
    ]);
    expect(progress.at(-1)!.etaMs).toBe(0);
  });

  it('loads a lazy reader only when an answer is missing; a second run is answered from the cache alone', async () => {
    const cache = new MemoryAnswerCache();
    let loads = 0;
    const lazy: LazyReader = {
      load: async () => {
        loads++;
        return fakeReader();
      },
    };
    const options = { identity, template: READER_TEMPLATE, k: K };
    expect((await answerWithCache(lazy, cache, TASKS, options)).generated).toBe(4);
    expect(loads).toBe(1);
    const again = await answerWithCache(lazy, cache, TASKS, options);
    expect(again).toEqual({ cached: 4, generated: 0, refused: [], device: null });
    expect(loads).toBe(1);
    // Another k is another question: nothing is reused.
    expect((await answerWithCache(lazy, cache, TASKS, { ...options, k: 3 })).cached).toBe(0);
    expect(loads).toBe(2);
  });

  it('tells onLookup what was found before the reader loads', async () => {
    const log: string[] = [];
    const lazy: LazyReader = { load: async () => (log.push('load'), fakeReader()) };
    await answerWithCache(lazy, cacheWith('three?'), TASKS, {
      identity,
      template: READER_TEMPLATE,
      k: K,
      onLookup: ({ total, hits, toAnswer }) => void log.push(`lookup ${total} ${hits.map((h) => h.task.queryId).join(',')} ${toAnswer}`),
    });
    expect(log).toEqual(['lookup 4 q3 3', 'load']);
  });

  it('reports a refused question and goes on with the others; nothing is committed for it', async () => {
    const cache = new MemoryAnswerCache();
    const refusedLog: string[] = [];
    const result = await answerWithCache(fakeReader({ refuse: 'two?' }), cache, TASKS, {
      identity,
      template: READER_TEMPLATE,
      k: K,
      onRefused: (queryId, reason) => void refusedLog.push(`${queryId}: ${reason}`),
    });
    expect(result.refused).toEqual([{ queryId: 'q2', reason: 'the prompt of two? is too long' }]);
    expect(refusedLog).toEqual(['q2: the prompt of two? is too long']);
    expect(result.generated).toBe(3);
    expect(cache.puts.map((r) => r.queryId)).toEqual(['q1', 'q3', 'q4']);
  });

  it('stops between questions on abort: the answer in flight is committed, the next question never starts', async () => {
    const controller = new AbortController();
    const reader = fakeReader({ onAnswer: (q) => q === 'two?' && controller.abort() });
    const cache = new MemoryAnswerCache();
    const error = await answerWithCache(reader, cache, TASKS, {
      identity,
      template: READER_TEMPLATE,
      k: K,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(reader.asked).toEqual(['one?', 'two?']);
    expect(cache.puts.map((r) => r.question)).toEqual(['one?', 'two?']);
    // Resuming answers only what is missing.
    const resumed = fakeReader();
    await answerWithCache(resumed, cache, TASKS, { identity, template: READER_TEMPLATE, k: K });
    expect(resumed.asked).toEqual(['three?', 'four?']);
  });

  it('returns only after every answer was delivered (a worker callback is a round trip)', async () => {
    const delivered: string[] = [];
    const slow = (queryId: string) => new Promise<void>((r) => setTimeout(() => (delivered.push(queryId), r()), 5));
    await answerWithCache(fakeReader(), cacheWith('one?'), TASKS, { identity, template: READER_TEMPLATE, k: K, onAnswer: slow });
    expect(delivered.sort()).toEqual(['q1', 'q2', 'q3', 'q4']);
  });

  it('refuses a reader whose dtype is not the one the cache was read for, before answering anything', async () => {
    const reader = fakeReader({ dtype: 'fp32' });
    const error = await answerWithCache(reader, new MemoryAnswerCache(), TASKS, { identity, template: READER_TEMPLATE, k: K }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(/loaded reader \(org\/reader, fp32\) is not the one the cache was read for \(q8\)/);
    expect(reader.asked).toEqual([]);
  });
});
