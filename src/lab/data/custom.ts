/**
 * Bring-your-own formats beyond BEIR JSONL, all fed to the core's CorpusBuilder / QueriesBuilder (as the
 * JSONL lines they read), so ids, duplicates and empty texts are validated exactly as for BEIR:
 * - JSONL whose id/text fields go by another name (aliases below),
 * - CSV with a header (papaparse; "line" in errors is the data row + 1, i.e. the line for files without
 *   quoted line breaks),
 * - queries as TSV `qid<TAB>text` (an optional header line `qid/id/_id/query-id <TAB> text/query` is skipped),
 * - a folder of .txt/.md files: one document each; id = path without extension (relative to the folder
 *   all documents share), title = the first Markdown heading of a .md file (that line is then left out of
 *   the text) or else the file name without extension, text = the content.
 */
import Papa from 'papaparse';
import type { Corpus } from '../../core/types.ts';
import { CorpusBuilder, QueriesBuilder } from '../../core/io/beir.ts';
import { InputError, quote } from '../../core/io/errors.ts';
import { readLines } from '../../core/io/lines.ts';
import type { ParseResult } from '../../core/io/trec.ts';
import { fileText } from './bytes.ts';
import { textDocuments } from '../../core/io/documents.ts';
import type { CollectionFile } from './types.ts';

export const DOC_ID_ALIASES = ['_id', 'id', 'docid', 'doc_id', 'pid'] as const;
export const DOC_TEXT_ALIASES = ['text', 'contents', 'content', 'body', 'passage'] as const;
export const QUERY_ID_ALIASES = ['_id', 'id', 'qid', 'query_id', 'query-id', 'topic_id'] as const;
export const QUERY_TEXT_ALIASES = ['text', 'query', 'question', 'contents', 'content'] as const;

export type TextRole = 'corpus' | 'queries';

export function aliasesFor(role: TextRole): { id: readonly string[]; text: readonly string[] } {
  return role === 'corpus' ? { id: DOC_ID_ALIASES, text: DOC_TEXT_ALIASES } : { id: QUERY_ID_ALIASES, text: QUERY_TEXT_ALIASES };
}

/** First alias present among `keys` (exact match first, then case-insensitive). */
export function pickField(keys: readonly string[], aliases: readonly string[]): string | undefined {
  for (const a of aliases) if (keys.includes(a)) return a;
  const lower = new Map(keys.map((k) => [k.toLowerCase(), k]));
  for (const a of aliases) {
    const k = lower.get(a);
    if (k !== undefined) return k;
  }
  return undefined;
}

type Builder = CorpusBuilder | QueriesBuilder;

/** Map one record with aliased fields to the JSONL line the core builders read. */
function aliasedLine(file: string, obj: Record<string, unknown>, role: TextRole, lineNo: number): string {
  const keys = Object.keys(obj);
  const { id, text } = aliasesFor(role);
  const idKey = pickField(keys, id);
  const textKey = pickField(keys, text);
  if (idKey === undefined) throw new InputError(file, lineNo, `expected an id field (one of ${id.join(', ')}), found none`);
  if (textKey === undefined) throw new InputError(file, lineNo, `expected a text field (one of ${text.join(', ')}), found none`);
  const titleKey = role === 'corpus' ? pickField(keys, ['title']) : undefined;
  const out: Record<string, unknown> = { _id: obj[idKey], text: obj[textKey] };
  if (titleKey !== undefined) out.title = obj[titleKey];
  return JSON.stringify(out);
}

/** JSONL with id/text under any alias; a line that is not a JSON object goes to the core as is (its error). */
export async function feedAliasedJsonl(builder: Builder, bytes: Uint8Array, file: string, role: TextRole): Promise<void> {
  await readLines(
    bytes,
    (raw, n) => {
      if (raw.trim().length === 0) return;
      let v: unknown;
      try {
        v = JSON.parse(raw);
      } catch {
        builder.line(raw, n);
        return;
      }
      if (typeof v !== 'object' || v === null || Array.isArray(v)) {
        builder.line(raw, n);
        return;
      }
      builder.line(aliasedLine(file, v as Record<string, unknown>, role, n), n);
    },
    file,
  );
}

/** The header fields of a CSV file (for sniffing). */
export function csvHeader(text: string): string[] {
  const first = Papa.parse<string[]>(text.split('\n', 1)[0] ?? '', { header: false });
  return (first.data[0] ?? []).map((s) => s.trim());
}

/** CSV with a header naming an id and a text column (aliases), optional `title` for a corpus. */
export async function feedCsv(builder: Builder, bytes: Uint8Array, file: string, role: TextRole): Promise<void> {
  const text = await fileText(bytes, file);
  const parsed = Papa.parse<Record<string, unknown>>(text, { header: true, skipEmptyLines: 'greedy', transformHeader: (h) => h.trim() });
  const fields = parsed.meta.fields ?? [];
  const { id, text: textAliases } = aliasesFor(role);
  if (pickField(fields, id) === undefined || pickField(fields, textAliases) === undefined) {
    throw new InputError(
      file,
      1,
      `expected a CSV header with an id column (one of ${id.join(', ')}) and a text column (one of ` +
        `${textAliases.join(', ')}), got ${quote(fields.join(','))}`,
    );
  }
  const firstError = parsed.errors[0];
  if (firstError) {
    // the error's character offset gives its line (a quoted field may span lines, so a row is not a line)
    const at = firstError.index ?? (firstError.row === undefined ? undefined : rowStarts(text)[firstError.row + 1]);
    const line = at === undefined ? undefined : lineAt(text, Math.min(at, text.length));
    throw new InputError(file, line, `expected well-formed CSV: ${firstError.message}`);
  }
  const starts = rowStarts(text);
  parsed.data.forEach((row, i) => {
    const line = lineAt(text, starts[i + 1] ?? text.length);
    builder.line(aliasedLine(file, row, role, line), line);
  });
}

/** 1-based line of the character at `offset`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let p = text.indexOf('\n'); p >= 0 && p < offset; p = text.indexOf('\n', p + 1)) line++;
  return line;
}

/**
 * Where each CSV record starts (header first), as character offsets: a line break outside quotes ends a
 * record; a quoted field may hold line breaks. Empty lines are skipped as papaparse's `skipEmptyLines` does.
 */
function rowStarts(text: string): number[] {
  const starts: number[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) quoted = !quoted;
    else if ((c === 10 || i === text.length) && !quoted) {
      if (text.slice(start, i).trim() !== '') starts.push(start);
      start = i + 1;
    }
  }
  return starts;
}

const TSV_HEADER_IDS = new Set(['qid', 'id', '_id', 'query-id', 'query_id', 'topic_id']);
const TSV_HEADER_TEXTS = new Set(['text', 'query', 'question']);

/** Queries as `qid<TAB>text` lines. */
export async function feedQueriesTsv(builder: QueriesBuilder, bytes: Uint8Array, file: string): Promise<void> {
  let first = true;
  await readLines(
    bytes,
    (raw, n) => {
      if (raw.trim().length === 0) return;
      const tab = raw.indexOf('\t');
      if (tab <= 0) throw new InputError(file, n, `expected "qid<TAB>query text", got ${quote(raw)}`);
      const qid = raw.slice(0, tab).trim();
      const text = raw.slice(tab + 1);
      const isHeader = first && TSV_HEADER_IDS.has(qid.toLowerCase()) && TSV_HEADER_TEXTS.has(text.trim().toLowerCase());
      first = false;
      if (isHeader) return;
      builder.line(JSON.stringify({ _id: qid, text }), n);
    },
    file,
  );
}

/** One document per .txt/.md file (core/io/documents.ts says how ids, titles and texts are made). */
export async function parseTextDocuments(files: readonly CollectionFile[], label: string): Promise<ParseResult<Corpus>> {
  return textDocuments(await Promise.all(files.map(async (f) => ({ path: f.path, text: await fileText(f.bytes, f.path) }))), label);
}
