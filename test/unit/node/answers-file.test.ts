/**
 * The CLI's answer cache, its output file (src/node/answers-file.ts), under `answerWithCache` with a fake
 * reader: each answer is appended as a line the predictions readers take, a reopened file answers from its
 * lines, `keep` rewrites it to the reused answers and moves every other line aside, and a file of other lines
 * is refused rather than overwritten.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { READER_TEMPLATE, type ReaderTask } from '../../../src/core/answers/prompt.ts';
import { InputError } from '../../../src/core/io/errors.ts';
import { answerWithCache } from '../../../src/encoders/answer-job.ts';
import type { LoadedReader } from '../../../src/encoders/reader.ts';
import { AnswersFile } from '../../../src/node/answers-file.ts';
import { tempDir } from '../../support/temp.ts';

const tmp = tempDir('answers-file');
const identity = { model: '/models/reader', revision: 'main', dtype: 'fp32' };
const task = (queryId: string, question: string): ReaderTask => ({
  queryId,
  question,
  passageIds: ['d1'],
  messages: [{ role: 'user', content: question }],
});

const reader = {
  config: { id: 'r', label: 'r', model: 'reader', revision: 'main', dtype: 'fp32' },
  device: 'cpu',
  dtype: 'fp32',
  contextLength: null,
  chatTemplate: '',
  promptTokens: () => 1,
  answer: async (messages) => ({ text: `re: ${messages[0]!.content}`, promptTokens: 1, newTokens: 2, tokenIds: [] }),
  dispose: async () => {},
} satisfies LoadedReader;

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const run = (file: AnswersFile, tasks: readonly ReaderTask[]) =>
  answerWithCache(reader, file, tasks, {
    identity,
    template: READER_TEMPLATE,
    k: 1,
    onLookup: ({ hits }) => file.keep(hits.map((h) => ({ key: h.record.key, queryId: h.task.queryId }))).then(() => undefined),
  });

describe('AnswersFile', () => {
  it('appends one line per answer, answers again from its lines, and moves what a run does not reuse aside', async () => {
    const out = join(tmp, 'answers.jsonl');
    expect((await run(await AnswersFile.open(out, 'bm25'), [task('q1', 'one?'), task('q2', 'two?')])).generated).toBe(2);
    expect(lines(out)).toEqual([
      {
        query_id: 'q1',
        prediction: 're: one?',
        question: 'one?',
        reader: '/models/reader',
        revision: 'main',
        dtype: 'fp32',
        template: 'fliplab-short-answer@v1',
        k: 1,
        run: 'bm25',
        passage_ids: ['d1'],
      },
      expect.objectContaining({ query_id: 'q2', prediction: 're: two?' }),
    ]);
    // q3 asks q1's question over the same passages: the same answer, under its own id. two? is not asked.
    const again = await run(await AnswersFile.open(out, 'bm25'), [task('q1', 'one?'), task('q3', 'one?'), task('q4', 'four?')]);
    expect(again).toMatchObject({ cached: 2, generated: 1 });
    expect(lines(out).map((l) => [l.query_id, l.prediction])).toEqual([
      ['q1', 're: one?'],
      ['q3', 're: one?'],
      ['q4', 're: four?'],
    ]);
    expect(lines(`${out}.replaced.jsonl`).map((l) => l.query_id)).toEqual(['q2']);
  });

  it('refuses a file of lines it did not write, naming file and line, and leaves it as it was', async () => {
    const mine = join(tmp, 'mine.jsonl');
    writeFileSync(mine, '{"query_id": "q1", "prediction": "red"}\n');
    const error = await AnswersFile.open(mine, 'bm25').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).line).toBe(1);
    expect(readFileSync(mine, 'utf8')).toBe('{"query_id": "q1", "prediction": "red"}\n');
    expect(existsSync(`${mine}.replaced.jsonl`)).toBe(false);
  });
});
