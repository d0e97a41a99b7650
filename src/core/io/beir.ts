/**
 * BEIR `corpus.jsonl` and `queries.jsonl`: one JSON object per line with `_id` and `text` (corpus lines
 * also `title`). Parsed line by line from a stream so a large corpus is never held as one string.
 */
import { errorMessage } from '../error-message.ts';
import type { Corpus, Diagnostic, DocId, DocIndex, Queries, QueryId } from '../types.ts';
import { InputError, quote } from './errors.ts';
import { asDocId, asQueryId, IdRewrites, normalizeId } from './ids.ts';
import { readLines, type TextSource } from './lines.ts';
import type { ParseResult } from './trec.ts';

/** How many empty-text ids a warning lists by name before it only counts. */
const WARN_LIST_MAX = 5;

function parseObject(file: string, raw: string, lineNo: number): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw new InputError(file, lineNo, `expected one JSON object per line (JSONL): ${errorMessage(e)}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new InputError(file, lineNo, `expected a JSON object with "_id" and "text", got ${quote(raw)}`);
  }
  return v as Record<string, unknown>;
}

/** `_id` must be a non-empty string; numbers are accepted and written as JSON writes them. */
function readId(file: string, obj: Record<string, unknown>, lineNo: number): string {
  const id = obj._id;
  if (typeof id === 'string' && normalizeId(id) !== '') return id;
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

/**
 * What corpus and queries files share: blank lines skipped, one JSON object per line, `_id` unique (the
 * error names the earlier line), empty texts counted for one warning. Subclasses read their own fields.
 */
abstract class JsonlBuilder<Id extends string> {
  protected readonly ids: Id[] = [];
  protected readonly indexOf = new Map<Id, number>();
  private readonly lines: number[] = [];
  private readonly emptyIds: string[] = [];
  private readonly rewrites = new IdRewrites();
  private empty = 0;

  constructor(
    protected readonly file: string,
    private readonly noun: { one: string; many: string },
    private readonly mint: (s: string) => Id,
  ) {}

  /** Read this record's fields; return true when it has no text at all. */
  protected abstract take(obj: Record<string, unknown>, lineNo: number): boolean;

  line(raw: string, lineNo: number): void {
    if (raw.trim().length === 0) return;
    const obj = parseObject(this.file, raw, lineNo);
    const id = this.mint(this.rewrites.take(readId(this.file, obj, lineNo)));
    const prev = this.indexOf.get(id);
    if (prev !== undefined)
      throw new InputError(this.file, lineNo, `duplicate ${this.noun.one} id ${quote(id)} (first on line ${this.lines[prev]})`);
    if (this.take(obj, lineNo)) {
      this.empty++;
      if (this.emptyIds.length < WARN_LIST_MAX) this.emptyIds.push(id);
    }
    this.indexOf.set(id, this.ids.length);
    this.ids.push(id);
    this.lines.push(lineNo);
  }

  protected checked(): Diagnostic[] {
    if (this.ids.length === 0) throw new InputError(this.file, undefined, `expected at least one ${this.noun.one}, found none`);
    return [
      ...this.rewrites.warning(this.file, this.noun.one),
      ...(this.empty > 0 ? [emptyTextWarning(this.file, this.noun.many, this.emptyIds, this.empty)] : []),
    ];
  }
}

export class CorpusBuilder extends JsonlBuilder<DocId> {
  private readonly titles: string[] = [];
  private readonly texts: string[] = [];

  constructor(file: string) {
    super(file, { one: 'document', many: 'document(s)' }, asDocId);
  }

  protected take(obj: Record<string, unknown>, lineNo: number): boolean {
    const title = readString(this.file, obj, 'title', lineNo, false);
    const text = readString(this.file, obj, 'text', lineNo, true);
    this.titles.push(title);
    this.texts.push(text);
    return title.trim().length === 0 && text.trim().length === 0;
  }

  finish(): ParseResult<Corpus> {
    const warnings = this.checked();
    const indexOf = this.indexOf as Map<DocId, number> as Map<DocId, DocIndex>;
    return { value: { ids: this.ids, titles: this.titles, texts: this.texts, indexOf }, warnings };
  }
}

export class QueriesBuilder extends JsonlBuilder<QueryId> {
  private readonly texts: string[] = [];

  constructor(file: string) {
    super(file, { one: 'query', many: 'query(ies)' }, asQueryId);
  }

  protected take(obj: Record<string, unknown>, lineNo: number): boolean {
    const text = readString(this.file, obj, 'text', lineNo, true);
    this.texts.push(text);
    return text.trim().length === 0;
  }

  finish(): ParseResult<Queries> {
    const warnings = this.checked();
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
