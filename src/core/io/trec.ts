/**
 * TREC qrels (`qid iter docid rel`), BEIR qrels TSV (`query-id corpus-id score`, header line) and TREC
 * runs (`qid Q0 docid rank score tag`): parse with validation, and write runs and qrels. A line whose first
 * character is `#` is a comment in qrels and runs, as trec_eval 10.0 reads them.
 */
import type { Diagnostic, DocId, Qrels, QueryId, RankedList, Run } from '../types.ts';
import { InputError, quote } from './errors.ts';
import { asDocId, asQueryId, IdRewrites } from './ids.ts';
import { readLineRanges, readLines, splitFields, type TextSource } from './lines.ts';

/** `#`: a line starting with it is a comment (trec_eval 10.0). */
const HASH = 0x23;

export interface ParseResult<T> {
  readonly value: T;
  readonly warnings: readonly Diagnostic[];
}

/** Integer-valued numbers only ("1", "-1", "2.0"); trec_eval reads grades with atol. */
function parseGrade(s: string): number | undefined {
  const v = Number(s);
  return s.length > 0 && Number.isInteger(v) ? v : undefined;
}

/**
 * A qrels line's fields. BEIR's qrels TSV separates them by tabs, so a line with a tab that splits into 3 or
 * 4 fields on tabs (each trimmed) is read that way, and its ids may hold spaces (normalized by the reader);
 * any other line splits on white space, as trec_eval reads it.
 */
export function qrelsFields(raw: string): string[] {
  if (raw.includes('\t')) {
    const byTab = raw.split('\t').map((x) => x.trim());
    while (byTab.length > 0 && byTab[byTab.length - 1] === '') byTab.pop();
    if ((byTab.length === 3 || byTab.length === 4) && byTab.every((x) => x !== '')) return byTab;
  }
  return splitFields(raw);
}

export interface QrelsOptions {
  /** The grades allowed, inclusive; `of` names where the scale comes from, for the message. */
  readonly grades?: { readonly min: number; readonly max: number; readonly of?: string };
}

/** Incremental qrels parser: feed lines, then `finish()`. Accepts TREC 4-column and BEIR 3-column lines. */
export class QrelsBuilder {
  private readonly byQuery = new Map<QueryId, Map<DocId, number>>();
  private readonly firstLine = new Map<string, number>();
  private readonly warnings: Diagnostic[] = [];
  private columns: 3 | 4 | undefined;
  private sawContent = false;
  private duplicates = 0;
  private readonly rewrites = new IdRewrites();

  /** `grades`: the scale a grade must fall in (a model layer's grades against the collection's), else refused. */
  constructor(
    private readonly file: string,
    private readonly options: QrelsOptions = {},
  ) {}

  line(raw: string, lineNo: number): void {
    if (raw.charCodeAt(0) === HASH) return;
    const f = qrelsFields(raw);
    if (f.length === 0) return;
    const isFirst = !this.sawContent;
    this.sawContent = true;
    if (f.length !== 3 && f.length !== 4) {
      throw new InputError(
        this.file,
        lineNo,
        `expected 4 columns "qid iter docid rel" (TREC qrels) or 3 columns "query-id corpus-id score" (BEIR TSV), got ` +
          `${f.length}: ${quote(raw)}`,
      );
    }
    const gradeField = f[f.length - 1]!;
    const grade = parseGrade(gradeField);
    if (grade === undefined && isFirst && f.length === 3) return; // BEIR header: query-id corpus-id score
    if (this.columns === undefined) this.columns = f.length as 3 | 4;
    else if (this.columns !== f.length) {
      throw new InputError(this.file, lineNo, `expected ${this.columns} columns like the lines before, got ${f.length}: ${quote(raw)}`);
    }
    if (grade === undefined) {
      throw new InputError(this.file, lineNo, `expected an integer relevance grade in the last column, got ${quote(gradeField)}`);
    }
    const scale = this.options.grades;
    if (scale !== undefined && (grade < scale.min || grade > scale.max)) {
      throw new InputError(
        this.file,
        lineNo,
        `grade ${grade} is outside the collection's scale ${scale.min}–${scale.max}${scale.of === undefined ? '' : ` (${scale.of})`}`,
      );
    }
    const qid = asQueryId(this.rewrites.take(f[0]!));
    const docid = asDocId(this.rewrites.take(f[f.length - 2]!));
    let judged = this.byQuery.get(qid);
    if (!judged) this.byQuery.set(qid, (judged = new Map()));
    const prev = judged.get(docid);
    const key = `${qid}\u0000${docid}`;
    if (prev !== undefined) {
      if (prev !== grade) {
        throw new InputError(
          this.file,
          lineNo,
          `query ${quote(qid)} judges document ${quote(docid)} twice with different grades (${prev} on line ` +
            `${this.firstLine.get(key)}, ${grade} here)`,
        );
      }
      this.duplicates++;
      return;
    }
    this.firstLine.set(key, lineNo);
    judged.set(docid, grade);
  }

  finish(): ParseResult<Qrels> {
    this.warnings.push(...this.rewrites.warning(this.file, 'query or document'));
    if (this.duplicates > 0) this.warnings.push(repeatedJudgmentsWarning(this.file, this.duplicates));
    if (this.byQuery.size === 0) throw new InputError(this.file, undefined, 'expected at least one judgment line, found none');
    return { value: { byQuery: this.byQuery }, warnings: this.warnings };
  }
}

/** Parse qrels (TREC or BEIR TSV, optionally gzip) from any source. */
export async function parseQrels(source: TextSource, file: string, options: QrelsOptions = {}): Promise<ParseResult<Qrels>> {
  const b = new QrelsBuilder(file, options);
  await readLines(source, (l, n) => b.line(l, n), file);
  return b.finish();
}

interface PendingList {
  docs: DocId[];
  scores: number[];
  ranks: number[];
  lines: number[];
  seen: Set<DocId>;
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 11 || c === 12 || c === 13;

/** Parse a non-negative or negative decimal integer in text[start, end); NaN if it is not one. */
function parseIntRange(text: string, start: number, end: number): number {
  let i = start;
  let sign = 1;
  if (text.charCodeAt(i) === 45) {
    sign = -1;
    i++;
  } else if (text.charCodeAt(i) === 43) i++;
  if (i >= end || end - i > 15) return Number(text.slice(start, end));
  let v = 0;
  for (; i < end; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return Number(text.slice(start, end));
    v = v * 10 + c;
  }
  return sign * v;
}

/**
 * Incremental TREC run parser. Each query's list is ordered by the rank column (file order breaks equal
 * ranks) — the order the retriever returned, which flip analysis uses. trec_eval's own order (score
 * descending, docid descending) is applied by the metrics, not here.
 *
 * This is the hot loop of `fliplab eval` on million-line runs: it scans fields in place in the chunk
 * string (see LineRangeHandler), allocates only the docid (and the qid when it changes), and keeps the
 * current query's list between consecutive lines.
 */
export class RunBuilder {
  private readonly pending = new Map<QueryId, PendingList>();
  private readonly warnings: Diagnostic[] = [];
  /** Field boundaries of the current line: starts[i], ends[i] for the first six fields. */
  private readonly starts = new Int32Array(6);
  private readonly ends = new Int32Array(6);
  private tag: string | undefined;
  private otherTags = 0;
  private extraColumns = 0;
  private firstExtraLine = 0;
  private lastQid: string | undefined;
  private lastList: PendingList | undefined;

  constructor(private readonly file: string) {}

  /** Record the boundaries of the first six fields; returns the field count (7 means "more than six"). */
  private scan(text: string, start: number, end: number): number {
    let count = 0;
    let i = start;
    while (i < end) {
      while (i < end && isSpace(text.charCodeAt(i))) i++;
      if (i >= end) break;
      const s = i;
      while (i < end && !isSpace(text.charCodeAt(i))) i++;
      if (count === 6) return 7;
      this.starts[count] = s;
      this.ends[count++] = i;
    }
    return count;
  }

  private field(text: string, f: number): string {
    return text.slice(this.starts[f]!, this.ends[f]!);
  }

  /** Feed one line as a string (tests and simple callers). */
  line(raw: string, lineNo: number): void {
    this.range(raw, 0, raw.length, lineNo);
  }

  /** Feed one line as text[start, end). */
  range(text: string, start: number, end: number, lineNo: number): void {
    if (text.charCodeAt(start) === HASH) return;
    const count = this.scan(text, start, end);
    if (count === 0) return;
    if (count < 6) {
      throw new InputError(
        this.file,
        lineNo,
        `expected 6 columns "qid Q0 docid rank score tag" (TREC run), got ${count}: ${quote(text.slice(start, end))}`,
      );
    }
    if (count > 6 && this.extraColumns++ === 0) this.firstExtraLine = lineNo;
    const st = this.starts;
    const en = this.ends;
    const rank = parseIntRange(text, st[3]!, en[3]!);
    if (!Number.isInteger(rank))
      throw new InputError(this.file, lineNo, `expected an integer rank in column 4, got ${quote(this.field(text, 3))}`);
    const score = Number(this.field(text, 4));
    if (!Number.isFinite(score))
      throw new InputError(this.file, lineNo, `expected a finite number as score in column 5, got ${quote(this.field(text, 4))}`);
    const tagLength = en[5]! - st[5]!;
    if (this.tag === undefined) this.tag = this.field(text, 5);
    else if (tagLength !== this.tag.length || !text.startsWith(this.tag, st[5]!)) this.otherTags++;

    let list = this.lastList;
    const qLength = en[0]! - st[0]!;
    if (list === undefined || qLength !== this.lastQid!.length || !text.startsWith(this.lastQid!, st[0]!)) {
      const q = this.field(text, 0);
      const qid = asQueryId(q);
      list = this.pending.get(qid);
      if (!list) this.pending.set(qid, (list = { docs: [], scores: [], ranks: [], lines: [], seen: new Set() }));
      this.lastQid = q;
      this.lastList = list;
    }
    const docid = asDocId(this.field(text, 2));
    if (list.seen.has(docid)) {
      const first = list.lines[list.docs.indexOf(docid)];
      throw new InputError(
        this.file,
        lineNo,
        `document ${quote(docid)} appears twice for query ${quote(this.lastQid!)} (first on line ${first})`,
      );
    }
    list.seen.add(docid);
    list.docs.push(docid);
    list.scores.push(score);
    list.ranks.push(rank);
    list.lines.push(lineNo);
  }

  finish(name?: string): ParseResult<Run> {
    if (this.pending.size === 0) throw new InputError(this.file, undefined, 'expected at least one run line, found none');
    if (this.otherTags > 0) this.warnings.push(otherTagsWarning(this.file, this.otherTags, this.tag ?? ''));
    if (this.extraColumns > 0) this.warnings.push(extraColumnsWarning(this.file, this.extraColumns, this.firstExtraLine));
    const byQuery = new Map<QueryId, RankedList>();
    for (const [qid, p] of this.pending) byQuery.set(qid, orderByRank(p));
    return { value: { name: name ?? this.tag ?? this.file, byQuery }, warnings: this.warnings };
  }
}

/** The warning for qrels lines that repeat a judgment with the same grade (shared with the byte-level evaluator). */
export function repeatedJudgmentsWarning(file: string, count: number): Diagnostic {
  return { severity: 'warning', file, message: `${count} repeated judgment line(s) with the same grade were counted once` };
}

/** The warning for run lines with more than six columns (the first such line named); shared with run-top.ts. */
export function extraColumnsWarning(file: string, count: number, firstLine: number): Diagnostic {
  return {
    severity: 'warning',
    file,
    line: firstLine,
    message: `${count} line(s) have more than 6 columns; the extra columns are ignored, as trec_eval does`,
  };
}

/** The warning for lines whose run tag differs from the first line's (shared with the byte-level evaluator). */
export function otherTagsWarning(file: string, count: number, tag: string): Diagnostic {
  return { severity: 'warning', file, message: `${count} line(s) carry a run tag other than ${quote(tag)}; treated as one run` };
}

function orderByRank(p: PendingList): RankedList {
  const n = p.docs.length;
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) sorted = p.ranks[i - 1]! <= p.ranks[i]!;
  if (sorted) return { docs: p.docs, scores: Float64Array.from(p.scores) };
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => p.ranks[a]! - p.ranks[b]! || a - b);
  return { docs: order.map((i) => p.docs[i]!), scores: Float64Array.from(order, (i) => p.scores[i]!) };
}

/** Parse a TREC run (optionally gzip) from any source. `name` overrides the run tag as the run's name. */
export async function parseRun(source: TextSource, file: string, name?: string): Promise<ParseResult<Run>> {
  const b = new RunBuilder(file);
  await readLineRanges(source, (t, s, e, n) => b.range(t, s, e, n), file);
  return b.finish(name);
}

/**
 * Format a run as TREC lines, ranks 1..n in list order. Scores are written in JavaScript's shortest
 * round-trip form so re-reading the file reproduces the exact doubles (and therefore trec_eval's tie order).
 */
export function* formatRunLines(run: Run, tag: string = run.name): Generator<string> {
  const safeTag = tag.replace(/\s+/g, '_') || 'fliplab';
  for (const [qid, list] of run.byQuery) {
    for (let i = 0; i < list.docs.length; i++) {
      yield `${qid} Q0 ${list.docs[i]} ${i + 1} ${String(list.scores[i])} ${safeTag}\n`;
    }
  }
}

export function formatRun(run: Run, tag?: string): string {
  return Array.from(formatRunLines(run, tag)).join('');
}

/** Format qrels as TREC lines (`qid 0 docid grade`), queries and documents in map order: what parseQrels reads back. */
export function formatQrels(qrels: Qrels): string {
  const lines: string[] = [];
  for (const [qid, docs] of qrels.byQuery) for (const [docid, grade] of docs) lines.push(`${qid} 0 ${docid} ${grade}\n`);
  return lines.join('');
}
