/**
 * Gold answers and predictions (formats other tools rely on; see docs/cli.md):
 *   gold         JSONL {"query_id": "...", "answers": ["...", ...]}
 *   predictions  JSONL {"query_id": "...", "prediction": "..."} (extra keys kept by the writer, ignored here)
 * and gold answers carried by a BEIR queries.jsonl in `metadata` (HotpotQA's BEIR queries have
 * `metadata.answer`; `metadata.answers` as a list is taken too). Every problem names file and line.
 */
import { countOf } from '../count.ts';
import { errorMessage } from '../error-message.ts';
import type { Diagnostic } from '../types.ts';
import { InputError, quote } from './errors.ts';
import { normalizeId } from './ids.ts';
import { readLines, type TextSource } from './lines.ts';
import type { ParseResult } from './trec.ts';

function objectOn(file: string, raw: string, line: number, expected: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw new InputError(file, line, `expected one JSON object per line (JSONL): ${errorMessage(e)}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InputError(file, line, `expected ${expected}, got ${quote(raw)}`);
  return v as Record<string, unknown>;
}

function queryIdOf(file: string, obj: Record<string, unknown>, line: number): string {
  const id = obj.query_id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  if (typeof id !== 'string' || normalizeId(id) === '')
    throw new InputError(file, line, `expected "query_id" as a non-empty string, got ${JSON.stringify(id)}`);
  return normalizeId(id);
}

/** Read JSONL where each line is one object; blank lines are skipped. */
async function eachObject(
  source: TextSource,
  file: string,
  expected: string,
  onObject: (obj: Record<string, unknown>, line: number) => void,
): Promise<void> {
  await readLines(
    source,
    (raw, line) => {
      if (raw.trim() === '') return;
      onObject(objectOn(file, raw, line, expected), line);
    },
    file,
  );
}

/** Gold answers by query id. A query twice is an error (which line wins would be a guess). */
export async function parseGold(source: TextSource, file: string): Promise<ParseResult<Map<string, string[]>>> {
  const gold = new Map<string, string[]>();
  const firstLine = new Map<string, number>();
  const warnings: Diagnostic[] = [];
  await eachObject(source, file, 'a JSON object with "query_id" and "answers"', (obj, line) => {
    const id = queryIdOf(file, obj, line);
    const answers = obj.answers;
    if (!Array.isArray(answers) || !answers.every((a) => typeof a === 'string'))
      throw new InputError(file, line, `expected "answers" as a list of strings, got ${JSON.stringify(answers)}`);
    if (gold.has(id)) throw new InputError(file, line, `query "${id}" has gold answers twice (first on line ${firstLine.get(id)})`);
    if (answers.length === 0)
      warnings.push({ severity: 'warning', file, line, message: `query "${id}" has no gold answer: it can never be correct` });
    gold.set(id, answers as string[]);
    firstLine.set(id, line);
  });
  return { value: gold, warnings };
}

/** Predictions by query id. */
export async function parsePredictions(source: TextSource, file: string): Promise<ParseResult<Map<string, string>>> {
  const predictions = new Map<string, string>();
  const firstLine = new Map<string, number>();
  await eachObject(source, file, 'a JSON object with "query_id" and "prediction"', (obj, line) => {
    const id = queryIdOf(file, obj, line);
    if (typeof obj.prediction !== 'string')
      throw new InputError(file, line, `expected "prediction" as a string, got ${JSON.stringify(obj.prediction)}`);
    if (predictions.has(id)) throw new InputError(file, line, `query "${id}" is predicted twice (first on line ${firstLine.get(id)})`);
    predictions.set(id, obj.prediction);
    firstLine.set(id, line);
  });
  return { value: predictions, warnings: [] };
}

/** Gold answers from a BEIR queries.jsonl: `metadata.answer` (a string or a list) or `metadata.answers`. */
export async function parseGoldFromQueries(source: TextSource, file: string): Promise<ParseResult<Map<string, string[]>>> {
  const gold = new Map<string, string[]>();
  let without = 0;
  await eachObject(source, file, 'a JSON object with "_id", "text" and "metadata"', (obj, line) => {
    const id = obj._id;
    if ((typeof id !== 'string' || id === '') && typeof id !== 'number')
      throw new InputError(file, line, `expected "_id", got ${JSON.stringify(id)}`);
    const meta = obj.metadata as Record<string, unknown> | undefined;
    const raw = meta?.answer ?? meta?.answers;
    const answers = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw.filter((a): a is string => typeof a === 'string') : [];
    if (answers.length === 0) without++;
    else gold.set(String(id), answers);
  });
  const carry = `${countOf(without, 'query')} ${without === 1 ? 'carries' : 'carry'}`;
  const warnings: Diagnostic[] =
    gold.size === 0
      ? [{ severity: 'warning', file, message: 'no query carries an answer in metadata.answer or metadata.answers' }]
      : without > 0
        ? [{ severity: 'warning', file, message: `${carry} no answer in metadata (left out of answer checks)` }]
        : [];
  return { value: gold, warnings };
}

/**
 * Gold answers from either format, told apart by the first record: a BEIR queries.jsonl (it has `_id`) or the
 * gold JSONL. Not JSON at all: the gold parser says where.
 */
export async function parseGoldAny(text: string, file: string): Promise<ParseResult<Map<string, string[]>>> {
  const first = text.split('\n').find((l) => l.trim() !== '') ?? '';
  let beir = false;
  try {
    beir = '_id' in (JSON.parse(first) as object);
  } catch {
    // not JSON: parseGold says where
  }
  return beir ? parseGoldFromQueries(text, file) : parseGold(text, file);
}
