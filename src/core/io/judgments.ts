/**
 * Judgments added on top of a collection's qrels: merging layers (the later source wins per query and
 * passage, disagreements listed), and reading and writing added judgments as TREC qrels (`qid 0 docid
 * grade`) or as JSON Lines with provenance (who judged, when).
 *
 * The collection's qrels never change: a layer is applied over them to give the qrels every measure reads.
 * The same merge serves the CLI (`--qrels` given more than once) and the lab's judgments layer, so both
 * compute with the same qrels from the same files.
 */
import type { DocId, Qrels, QueryId } from '../types.ts';
import { InputError, quote } from './errors.ts';
import { asDocId, asQueryId, normalizeId } from './ids.ts';
import { readLines, type TextSource } from './lines.ts';
import { QrelsBuilder, type ParseResult } from './trec.ts';

/** One judgment a person added, with where it came from. */
export interface Judgment {
  readonly qid: QueryId;
  readonly docid: DocId;
  readonly grade: number;
  /** Who judged (a name the user gave; empty when unknown). */
  readonly assessor?: string;
  /** When, as an ISO 8601 time. */
  readonly time?: string;
}

/** A named source of judgments, in the order they are layered (the first is the collection's qrels). */
export interface QrelsSource {
  readonly name: string;
  readonly qrels: Qrels;
}

/** A (query, passage) pair that two sources grade differently; the last grade is the one used. */
export interface JudgmentConflict {
  readonly qid: QueryId;
  readonly docid: DocId;
  readonly grades: readonly { readonly source: string; readonly grade: number }[];
}

export interface MergedQrels {
  readonly qrels: Qrels;
  /** Pairs no earlier source judged. */
  readonly added: number;
  /** Pairs an earlier source judged with another grade. */
  readonly changed: number;
  readonly conflicts: readonly JudgmentConflict[];
}

/**
 * Layer `sources` in order: a later source's grade replaces an earlier one's for the same query and passage.
 * Queries and passages keep first-appearance order; no input is modified. Copy on write: a query's judgments
 * are copied only when a later source touches them, so layering a few judgments over MS MARCO-sized qrels
 * costs what the few judgments cost.
 */
export function mergeQrels(sources: readonly QrelsSource[]): MergedQrels {
  if (sources.length === 0) throw new RangeError('expected at least one qrels source');
  const [first, ...later] = sources as [QrelsSource, ...QrelsSource[]];
  if (later.length === 0) return { qrels: first.qrels, added: 0, changed: 0, conflicts: [] };
  const byQuery = new Map<QueryId, ReadonlyMap<DocId, number>>(first.qrels.byQuery);
  const owned = new Set<QueryId>();
  // Every grade given to a pair that a later source touched, in order, with its source.
  const history = new Map<string, { qid: QueryId; docid: DocId; grades: { source: string; grade: number }[] }>();
  let added = 0;
  let changed = 0;
  for (const s of later) {
    for (const [qid, docs] of s.qrels.byQuery) {
      let judged = byQuery.get(qid) as Map<DocId, number> | undefined;
      if (judged === undefined || !owned.has(qid)) {
        judged = new Map(judged ?? []);
        byQuery.set(qid, judged);
        owned.add(qid);
      }
      for (const [docid, grade] of docs) {
        const prev = judged.get(docid);
        judged.set(docid, grade);
        const key = `${qid}\u0000${docid}`;
        let h = history.get(key);
        if (h === undefined) {
          h = { qid, docid, grades: prev === undefined ? [] : [{ source: first.name, grade: prev }] };
          history.set(key, h);
        }
        h.grades.push({ source: s.name, grade });
        if (prev === undefined) added++;
        else if (prev !== grade) changed++;
      }
    }
  }
  const conflicts: JudgmentConflict[] = [];
  for (const h of history.values()) if (h.grades.some((g) => g.grade !== h.grades[0]!.grade)) conflicts.push(h);
  return { qrels: { byQuery }, added, changed, conflicts };
}

/** Judgments as qrels (the last judgment of a pair wins, as in a merge). */
export function judgmentsToQrels(judgments: readonly Judgment[]): Qrels {
  const byQuery = new Map<QueryId, Map<DocId, number>>();
  for (const j of judgments) {
    let m = byQuery.get(j.qid);
    if (!m) byQuery.set(j.qid, (m = new Map()));
    m.set(j.docid, j.grade);
  }
  return { byQuery };
}

/** The last judgment of each pair, in the order pairs were first judged. */
export function latestJudgments(judgments: readonly Judgment[]): Judgment[] {
  const last = new Map<string, Judgment>();
  for (const j of judgments) {
    const key = `${j.qid}\u0000${j.docid}`;
    if (last.has(key)) last.delete(key);
    last.set(key, j);
  }
  return [...last.values()];
}

/** TREC qrels lines, `qid 0 docid grade`, one per pair (the last judgment of each). */
export function formatJudgmentsQrels(judgments: readonly Judgment[]): string {
  return latestJudgments(judgments)
    .map((j) => `${j.qid} 0 ${j.docid} ${j.grade}\n`)
    .join('');
}

/** JSON Lines, one judgment per line with its provenance; `collection` names what was judged. */
export function formatJudgmentsJsonl(judgments: readonly Judgment[], collection?: string): string {
  return judgments
    .map(
      (j) =>
        `${JSON.stringify({
          qid: j.qid,
          docid: j.docid,
          grade: j.grade,
          assessor: j.assessor ?? '',
          time: j.time ?? '',
          ...(collection === undefined ? {} : { collection }),
        })}\n`,
    )
    .join('');
}

/**
 * Read added judgments from a TREC qrels file or from fliplab's JSON Lines (told apart by the first
 * non-blank character: `{` is JSON). Errors name the file, the line and what was expected.
 */
export async function parseJudgments(source: TextSource, file: string): Promise<ParseResult<Judgment[]>> {
  const out: Judgment[] = [];
  let kind: 'json' | 'qrels' | undefined;
  const qrels = new QrelsBuilder(file);
  await readLines(
    source,
    (line, n) => {
      const trimmed = line.trim();
      if (trimmed.length === 0) return;
      kind ??= trimmed.startsWith('{') ? 'json' : 'qrels';
      if (kind === 'qrels') {
        qrels.line(line, n);
        return;
      }
      out.push(judgmentFromJson(trimmed, file, n));
    },
    file,
  );
  if (kind === undefined) throw new InputError(file, undefined, 'expected judgments (TREC qrels or JSON Lines), found none');
  if (kind === 'json') return { value: out, warnings: [] };
  const parsed = qrels.finish();
  const judgments: Judgment[] = [];
  for (const [qid, docs] of parsed.value.byQuery) for (const [docid, grade] of docs) judgments.push({ qid, docid, grade });
  return { value: judgments, warnings: parsed.warnings };
}

function judgmentFromJson(line: string, file: string, n: number): Judgment {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new InputError(file, n, `expected one JSON object per line, got ${quote(line)}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InputError(file, n, `expected a JSON object, got ${quote(line)}`);
  const o = v as Record<string, unknown>;
  const id = (key: string): string => {
    const x = o[key];
    if (typeof x === 'string' && normalizeId(x) !== '') return normalizeId(x);
    if (typeof x === 'number' && Number.isFinite(x)) return String(x);
    throw new InputError(file, n, `expected "${key}" to be a non-empty id, got ${quote(JSON.stringify(x) ?? 'nothing')}`);
  };
  const grade = o.grade;
  if (typeof grade !== 'number' || !Number.isInteger(grade))
    throw new InputError(file, n, `expected "grade" to be an integer, got ${quote(JSON.stringify(grade) ?? 'nothing')}`);
  const text = (key: string): string | undefined => (typeof o[key] === 'string' && o[key] !== '' ? (o[key] as string) : undefined);
  const assessor = text('assessor');
  const time = text('time');
  return {
    qid: asQueryId(id('qid')),
    docid: asDocId(id('docid')),
    grade,
    ...(assessor === undefined ? {} : { assessor }),
    ...(time === undefined ? {} : { time }),
  };
}
