/**
 * The CLI's answer cache is its output: the predictions JSONL that `answers flips` and the lab read, one line
 * per answer with what its key is made of (reader, revision, dtype, template, k, passage ids, question) and the
 * run it came from. `answerWithCache` (src/encoders/answer-job.ts) reads it through `getMany` and appends each
 * new answer with `put`, so an interrupted run keeps everything answered so far.
 *
 * Nothing is ever lost: a file holding lines `answers generate` did not write (the user's own predictions) is
 * refused, not overwritten; `keep` moves the lines a run does not reuse (other settings, other queries) to
 * `<file>.replaced.jsonl` and rewrites the file through a temporary file and a rename.
 */
import { existsSync } from 'node:fs';
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
import { answerKey, type AnswerKeyParts } from '../core/answers/prompt.ts';
import { InputError } from '../core/io/errors.ts';
import type { AnswerCache, AnswerRecord } from '../encoders/answer-job.ts';

/** One line of an answers file. */
export interface AnswerLine {
  readonly query_id: string;
  readonly prediction: string;
  readonly question: string;
  /** The reader: a repo id or preset model, or a folder's absolute path. */
  readonly reader: string;
  readonly revision: string;
  readonly dtype: string;
  readonly template: string;
  readonly k: number;
  readonly run: string;
  readonly passage_ids: readonly string[];
}

/** What an answer line's cache key is made of. */
const keyParts = (l: AnswerLine): AnswerKeyParts => ({
  model: l.reader,
  revision: l.revision,
  dtype: l.dtype,
  template: l.template,
  k: l.k,
  passageIds: l.passage_ids,
  question: l.question,
});

const lineKey = (l: AnswerLine): string => answerKey(keyParts(l));

const toRecord = (l: AnswerLine, key: string): AnswerRecord => ({ key, queryId: l.query_id, prediction: l.prediction, ...keyParts(l) });

const jsonl = (lines: readonly AnswerLine[]): string => lines.map((l) => `${JSON.stringify(l)}\n`).join('');

/**
 * The answers an earlier run wrote to `path`. A line that is not one (no `passage_ids`, `reader`, `prediction`)
 * means `path` is some other file: refused, so it is never overwritten.
 */
async function readLines(path: string): Promise<AnswerLine[]> {
  if (!existsSync(path)) return [];
  const lines: AnswerLine[] = [];
  (await readFile(path, 'utf8')).split('\n').forEach((text, i) => {
    if (text.trim() === '') return;
    let l: Partial<AnswerLine> | null = null;
    try {
      l = JSON.parse(text) as Partial<AnswerLine>;
    } catch {
      // reported below
    }
    const ok =
      l !== null &&
      typeof l.query_id === 'string' &&
      typeof l.prediction === 'string' &&
      typeof l.reader === 'string' &&
      Array.isArray(l.passage_ids);
    if (!ok)
      throw new InputError(
        path,
        i + 1,
        'is not a line `answers generate` wrote (expected query_id, prediction, reader and passage_ids): ' +
          'this --out would be overwritten; choose another file',
      );
    lines.push(l as AnswerLine);
  });
  return lines;
}

export class AnswersFile implements AnswerCache {
  readonly #path: string;
  readonly #run: string;
  readonly #lines: readonly AnswerLine[];
  /** The file's lines by key (the last line of a key wins). */
  readonly #byKey: ReadonlyMap<string, AnswerLine>;

  private constructor(path: string, run: string, lines: readonly AnswerLine[]) {
    this.#path = path;
    this.#run = run;
    this.#lines = lines;
    this.#byKey = new Map(lines.map((l) => [lineKey(l), l]));
  }

  /** Read `path` (absent: empty); new lines will name `run` as their run. */
  static async open(path: string, run: string): Promise<AnswersFile> {
    return new AnswersFile(path, run, await readLines(path));
  }

  async getMany(keys: readonly string[]): Promise<ReadonlyMap<string, AnswerRecord>> {
    const out = new Map<string, AnswerRecord>();
    for (const key of keys) {
      const line = this.#byKey.get(key);
      if (line !== undefined) out.set(key, toRecord(line, key));
    }
    return out;
  }

  /**
   * Make the file hold exactly the reused answers, each as the line it was under the query it now answers
   * (two queries may share a question and passages), in `hits` order; every other line moves to
   * `<path>.replaced.jsonl`. Returns how many moved, and where.
   */
  async keep(hits: readonly { readonly key: string; readonly queryId: string }[]): Promise<{ moved: number; aside: string }> {
    const kept = new Set(hits.map((h) => h.key));
    const other = this.#lines.filter((l) => !kept.has(lineKey(l)));
    const aside = `${this.#path}.replaced.jsonl`;
    if (other.length > 0) await appendFile(aside, jsonl(other));
    const reused = hits.map((h) => ({ ...this.#byKey.get(h.key)!, query_id: h.queryId }));
    // Written whole, then renamed into place: an interruption leaves the old file or the new one.
    const staging = `${this.#path}.tmp-${process.pid}`;
    await writeFile(staging, jsonl(reused));
    await rename(staging, this.#path);
    return { moved: other.length, aside };
  }

  /** Append one answer at once: an interrupted run keeps everything answered so far. */
  async put(r: AnswerRecord): Promise<void> {
    const line: AnswerLine = {
      query_id: r.queryId,
      prediction: r.prediction,
      question: r.question,
      reader: r.model,
      revision: r.revision,
      dtype: r.dtype,
      template: r.template,
      k: r.k,
      run: this.#run,
      passage_ids: r.passageIds,
    };
    await appendFile(this.#path, `${JSON.stringify(line)}\n`);
  }
}
