/**
 * BEIR `corpus.jsonl` and `queries.jsonl`: one JSON object per line with `_id` and `text` (corpus lines
 * also `title`). Parsed line by line from a stream so a large corpus is never held as one string.
 */
import type { Corpus, Diagnostic, DocId, DocIndex, Queries, QueryId } from '../types.ts';
import { InputError, quote } from './errors.ts';
import { asDocId, asDocIndex, asQueryId } from './ids.ts';
import { readLines, type TextSource } from './lines.ts';
import type { ParseResult } from './trec.ts';

/** How many empty-text ids a warning lists by name before it only counts. */
const WARN_LIST_MAX = 5;

function parseObject(file: string, raw: string, lineNo: number): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw new InputError(file, lineNo, `expected one JSON object per line (JSONL): ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new InputError(file, lineNo, `expected a JSON object with "_id" and "text", got ${quote(raw)}`);
  }
  return v as Record<string, unknown>;
}

/** `_id` must be a non-empty string; numbers are accepted and written as JSON writes them. */
function readId(file: string, obj: Record<string, unknown>, lineNo: number): string {
  const id = obj._id;
  if (typeof id === 'string' && id.length > 0) return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  if (id === undefined) throw new InputError(file, lineNo, 'expected an "_id" field, found none');
  throw new InputError(file, lineNo, `expected "_id" to be a non-empty string, got ${quote(JSON.stringify(id))}`);
}

function readString(file: string, obj: Record<string, unknown>, key: string, lineNo: number, required: boolean): string {
  const v = obj[key];
  if (v === undefined || v === null) {
    if (required) throw new InputError(file, lineNo, `expected a "${key}" field, found none`);
    return '';
  }
  if (typeof v !== 'string') throw new InputError(file, lineNo, `expected "${key}" to be a string, got ${typeof v}`);
  return v;
}

function emptyTextWarning(file: string, what: string, ids: string[], count: number): Diagnostic {
  const named = ids.map((s) => quote(s)).join(', ');
  return {
    severity: 'warning',
    file,
    message: `${count} ${what} with empty text (kept; they can never be retrieved by text): ${named}${count > ids.length ? ', …' : ''}`,
  };
}

export class CorpusBuilder {
  private readonly ids: DocId[] = [];
  private readonly titles: string[] = [];
  private readonly texts: string[] = [];
  private readonly indexOf = new Map<DocId, DocIndex>();
  private readonly lineOf = new Map<DocId, number>();
  private readonly emptyIds: string[] = [];
  private empty = 0;

  constructor(private readonly file: string) {}

  line(raw: string, lineNo: number): void {
    if (raw.trim().length === 0) return;
    const obj = parseObject(this.file, raw, lineNo);
    const id = asDocId(readId(this.file, obj, lineNo));
    const prev = this.lineOf.get(id);
    if (prev !== undefined) throw new InputError(this.file, lineNo, `duplicate document id ${quote(id)} (first on line ${prev})`);
    const title = readString(this.file, obj, 'title', lineNo, false);
    const text = readString(this.file, obj, 'text', lineNo, true);
    if (title.trim().length === 0 && text.trim().length === 0) {
      this.empty++;
      if (this.emptyIds.length < WARN_LIST_MAX) this.emptyIds.push(id);
    }
    this.lineOf.set(id, lineNo);
    this.indexOf.set(id, asDocIndex(this.ids.length));
    this.ids.push(id);
    this.titles.push(title);
    this.texts.push(text);
  }

  finish(): ParseResult<Corpus> {
    if (this.ids.length === 0) throw new InputError(this.file, undefined, 'expected at least one document, found none');
    const warnings = this.empty > 0 ? [emptyTextWarning(this.file, 'document(s)', this.emptyIds, this.empty)] : [];
    return { value: { ids: this.ids, titles: this.titles, texts: this.texts, indexOf: this.indexOf }, warnings };
  }
}

export class QueriesBuilder {
  private readonly ids: QueryId[] = [];
  private readonly texts: string[] = [];
  private readonly indexOf = new Map<QueryId, number>();
  private readonly lineOf = new Map<QueryId, number>();
  private readonly emptyIds: string[] = [];
  private empty = 0;

  constructor(private readonly file: string) {}

  line(raw: string, lineNo: number): void {
    if (raw.trim().length === 0) return;
    const obj = parseObject(this.file, raw, lineNo);
    const id = asQueryId(readId(this.file, obj, lineNo));
    const prev = this.lineOf.get(id);
    if (prev !== undefined) throw new InputError(this.file, lineNo, `duplicate query id ${quote(id)} (first on line ${prev})`);
    const text = readString(this.file, obj, 'text', lineNo, true);
    if (text.trim().length === 0) {
      this.empty++;
      if (this.emptyIds.length < WARN_LIST_MAX) this.emptyIds.push(id);
    }
    this.lineOf.set(id, lineNo);
    this.indexOf.set(id, this.ids.length);
    this.ids.push(id);
    this.texts.push(text);
  }

  finish(): ParseResult<Queries> {
    if (this.ids.length === 0) throw new InputError(this.file, undefined, 'expected at least one query, found none');
    const warnings = this.empty > 0 ? [emptyTextWarning(this.file, 'query(ies)', this.emptyIds, this.empty)] : [];
    return { value: { ids: this.ids, texts: this.texts, indexOf: this.indexOf }, warnings };
  }
}

export async function parseCorpus(source: TextSource, file: string): Promise<ParseResult<Corpus>> {
  const b = new CorpusBuilder(file);
  await readLines(source, (l, n) => b.line(l, n), file);
  return b.finish();
}

export async function parseQueries(source: TextSource, file: string): Promise<ParseResult<Queries>> {
  const b = new QueriesBuilder(file);
  await readLines(source, (l, n) => b.line(l, n), file);
  return b.finish();
}

/**
 * The passage a retriever sees, as the RAGFlip paper builds it: title and text joined by ". ", trimmed.
 * (An empty title therefore leaves a leading ". " before trimming only the whitespace; the issue spells
 * the expression exactly, so we keep it rather than guess a nicer join.)
 */
export function passageText(corpus: Corpus, i: DocIndex | number): string {
  return `${corpus.titles[i] ?? ''}. ${corpus.texts[i] ?? ''}`.trim();
}
