/**
 * Bring-your-own files: expand `.zip` archives (fflate) and give every file a role — corpus, queries,
 * qrels (with its split), run, one document of a custom .txt/.md corpus — by name first, then by
 * sniffing its first lines (or its parquet columns). A file that fits nothing, or could be either a
 * corpus or queries with nothing to tell them apart, gets a diagnostic naming it and what was expected;
 * nothing is dropped silently.
 *
 * Name rules (case-insensitive; `.gz` is ignored for naming, the content is gunzipped by magic bytes):
 *   corpus.jsonl / queries.jsonl                      BEIR corpus / queries
 *   *.parquet                                         by columns: query-id/corpus-id/score → qrels;
 *                                                     _id/text → corpus or queries (path says which,
 *                                                     else a title column means corpus)
 *   qrels/<split>.tsv|txt|trec, *qrels*, *judg*       judgments (TREC 4-column or BEIR 3-column + header)
 *   *.csv                                             corpus (or queries when the name says query/topic)
 *   *.jsonl|ndjson|json with aliased id/text          corpus or queries as for parquet
 *   *quer*|*topic*.tsv                                queries `qid<TAB>text`
 *   *.md, *.markdown                                  a document of a custom corpus
 *   *.run                                             a TREC run (its parser names a bad line, as Import runs does)
 *   first line <top>, <topics …>, <?xml …>            TREC topics (SGML or XML), by content
 * Content rules for everything else (first non-empty lines): 6 columns with integer rank and a score
 * (a number, or inf/nan, which the run parser then refuses at its line) → TREC run; 4 columns ending in an
 * integer → TREC qrels; `query-id corpus-id score` → BEIR qrels; `id<TAB>text` → queries; JSON objects → as
 * above; other `.txt` → a document.
 */
import { errorMessage } from '../../core/error-message.ts';
import { inflateSync } from 'fflate';
import type { Diagnostic } from '../../core/types.ts';
import { InputError, isInputError } from '../../core/io/errors.ts';
import { splitFields } from '../../core/io/lines.ts';
import { unzipChecked } from '../../core/io/zip.ts';
import { qrelsFields } from '../../core/io/trec.ts';
import { isKeptRunHeader, KEPT_RUN_SUFFIX } from '../../core/io/kept-run.ts';
import { baseName, extensionOf, headLines, logicalName, normalizePath, wholeFile, withoutExtension } from './bytes.ts';
import { aliasesFor, csvHeader, pickField } from './custom.ts';
import { isParquet, parquetColumns, QRELS_PARQUET_COLUMNS } from './parquet.ts';
import type { CollectionFile } from './types.ts';
import { SYNTHETIC_QUERIES_FILE } from '../../core/judging/synthetic.ts';

export type FileRole = 'corpus' | 'queries' | 'qrels' | 'run' | 'document' | 'passage-text' | 'synthetic' | 'ignored' | 'unknown';

/**
 * The text the lab kept for a collection of runs (no corpus) from a corpus file added later: the passages the
 * runs rank, as BEIR jsonl. Stored with the collection's files; not a corpus (the passages stay the runs' ids).
 */
export const PASSAGE_TEXT_FILE = 'fliplab-passage-text.jsonl';
/**
 * `jsonl`: BEIR fields (`_id`, `text`); `jsonl-aliased`: id/text under an alias; `trec`: whitespace columns;
 * `kept-run`: a run as the lab stores it (core/io/kept-run.ts).
 */
export type FileFormat = 'jsonl' | 'jsonl-aliased' | 'parquet' | 'csv' | 'tsv' | 'trec' | 'kept-run' | 'text' | 'topics' | 'json';

export interface ClassifiedFile {
  readonly file: CollectionFile;
  readonly role: FileRole;
  readonly format: FileFormat | null;
  /** Qrels only: the split name. */
  readonly split?: string;
  /** Whether the name decided the role, or the content did. */
  readonly by: 'name' | 'content';
  /** Ignored/unknown files: why. */
  readonly reason?: string;
}

export interface Classification {
  readonly files: readonly ClassifiedFile[];
  readonly diagnostics: readonly Diagnostic[];
}

const MAX_ZIP_DEPTH = 2;

/** Replace every `.zip` by its entries (path `archive.zip/entry`); folders inside are dropped. */
export function expandArchives(files: readonly CollectionFile[], depth = 0): CollectionFile[] {
  const out: CollectionFile[] = [];
  for (const f of files) {
    const path = normalizePath(f.path);
    if (!/\.zip$/i.test(path)) {
      out.push(path === f.path ? f : { path, bytes: f.bytes });
      continue;
    }
    if (depth >= MAX_ZIP_DEPTH) throw new InputError(path, undefined, 'expected at most two levels of nested .zip archives');
    let entries: Map<string, Uint8Array>;
    try {
      entries = unzipChecked(f.bytes, path, (data, out) => inflateSync(data, { out }));
    } catch (e) {
      if (isInputError(e)) throw e;
      throw new InputError(path, undefined, `could not read the .zip archive: ${errorMessage(e)}`);
    }
    const inner = [...entries].map(([name, bytes]) => ({ path: `${path}/${normalizePath(name)}`, bytes }));
    out.push(...expandArchives(inner, depth + 1));
  }
  return out;
}

const JUNK = /(^|\/)(__MACOSX\/|\._[^/]*$|\.DS_Store$|Thumbs\.db$|desktop\.ini$)/i;
const QUERY_HINT = /quer|topic|question/;
const CORPUS_HINT = /corpus|collection|docs?\b|documents?|passages?/;
const QRELS_HINT = /qrel|judg/;

function dirs(path: string): string[] {
  return path.toLowerCase().split('/').slice(0, -1);
}

function hint(path: string): 'queries' | 'corpus' | null {
  const n = logicalName(path);
  const d = dirs(path);
  if (QUERY_HINT.test(n) || d.includes('queries')) return 'queries';
  if (CORPUS_HINT.test(n) || d.includes('corpus')) return 'corpus';
  return null;
}

/** Split of a qrels file: `qrels/<split>.tsv` or `qrels/<split>/0000.parquet` → split; else the file stem. */
export function splitOf(path: string): string {
  const parts = normalizePath(path).split('/');
  const at = parts.map((p) => p.toLowerCase()).lastIndexOf('qrels');
  if (at >= 0 && at < parts.length - 1) return withoutExtension(parts[at + 1]!);
  return withoutExtension(baseName(path));
}

type Shape = 'run' | 'qrels' | 'qrels-header' | 'pair' | 'json' | 'other';

function lineShape(line: string): Shape {
  if (line.trimStart().startsWith('{')) return 'json';
  const f = splitFields(line);
  const isInt = (s: string | undefined): boolean => s !== undefined && /^[+-]?\d+(\.0+)?$/.test(s);
  // A score that is inf or nan still makes a run-shaped line: the run parser names it (file, line, what it got).
  if (f.length >= 6 && isInt(f[3]) && (Number.isFinite(Number(f[4])) || /^[+-]?(inf(inity)?|nan)$/i.test(f[4]!))) return 'run';
  const q = qrelsFields(line); // BEIR's TSV: ids may hold spaces
  if (q.length === 4 && isInt(q[3])) return 'qrels';
  if (q.length === 3 && isInt(q[2])) return 'qrels';
  if (q.length === 3 && /^query[-_]?id$/i.test(q[0]!)) return 'qrels-header';
  const tab = line.indexOf('\t');
  if (tab > 0 && line.slice(0, tab).trim() !== '') return 'pair';
  return 'other';
}

/**
 * The shape of the first sniffed line (a BEIR qrels header counts as qrels) when at least half of the
 * sniffed lines share it, else 'other'. A majority, not unanimity, so that a run with one malformed line
 * early on is still read as a run and the parser names the bad line.
 */
function sniffShape(lines: readonly string[]): Shape {
  const shapes = lines.map(lineShape).map((s, i) => (s === 'qrels-header' && i === 0 ? 'qrels' : s));
  const first = shapes[0];
  if (first === undefined) return 'other';
  return shapes.filter((s) => s === first).length * 2 >= shapes.length ? first : 'other';
}

function jsonKeys(line: string | undefined): string[] | null {
  if (line === undefined) return null;
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.keys(v) : null;
  } catch {
    return null;
  }
}

/** Role of a record file (JSONL/parquet/CSV) from its fields and name; 'records' when undecidable. */
function recordRole(path: string, keys: readonly string[]): { role: 'corpus' | 'queries' | 'records' | null; by: 'name' | 'content' } {
  const h = hint(path);
  const fits = (r: 'corpus' | 'queries'): boolean =>
    pickField(keys, aliasesFor(r).id) !== undefined && pickField(keys, aliasesFor(r).text) !== undefined;
  if (h !== null) return { role: fits(h) ? h : null, by: 'name' };
  if (fits('corpus') && pickField(keys, ['title']) !== undefined) return { role: 'corpus', by: 'content' };
  if (fits('corpus') || fits('queries')) return { role: 'records', by: 'content' };
  return { role: null, by: 'content' };
}

interface Pending extends Omit<ClassifiedFile, 'role'> {
  readonly role: FileRole | 'records';
}

function unknown(file: CollectionFile, reason: string): Pending {
  return { file, role: 'unknown', format: null, by: 'content', reason };
}

const EXPECTED =
  'expected a BEIR corpus.jsonl / queries.jsonl (optionally .gz), parquet with _id/text, qrels (qrels/<split>.tsv or TREC ' +
  '"qid iter docid rel"), ' +
  'a TREC run ("qid Q0 docid rank score tag"), queries as "qid<TAB>text", a CSV/JSONL with id and text columns, or .txt/.md documents';

async function classifyOne(file: CollectionFile): Promise<Pending> {
  const path = file.path;
  const name = logicalName(path);
  const ext = extensionOf(path);
  if (JUNK.test(path)) return { file, role: 'ignored', format: null, by: 'name', reason: 'system file' };
  if (baseName(path) === PASSAGE_TEXT_FILE) return { file, role: 'passage-text', format: 'jsonl', by: 'name' };
  if (baseName(path) === SYNTHETIC_QUERIES_FILE) return { file, role: 'synthetic', format: 'json', by: 'name' };
  // The model layer the lab's BEIR folder export adds: said, never read as people's judgments.
  if (name === 'model.qrels' || name === 'model.qrels.json')
    return {
      file,
      role: 'ignored',
      format: null,
      by: 'name',
      reason: "a model's labels: import model.qrels under Fill the holes with a model (Or import a model's labels)",
    };
  if (name === 'corpus.jsonl') return { file, role: 'corpus', format: 'jsonl', by: 'name' };
  if (name === 'queries.jsonl') return { file, role: 'queries', format: 'jsonl', by: 'name' };
  if (name.endsWith(KEPT_RUN_SUFFIX)) return { file, role: 'run', format: 'kept-run', by: 'name' };
  if (ext === 'run') return { file, role: 'run', format: 'trec', by: 'name' };

  if (ext === 'parquet' || isParquet(file.bytes)) {
    let cols: string[];
    try {
      cols = parquetColumns(file.bytes, path);
    } catch (e) {
      return unknown(file, (e as InputError).reason ?? String(e));
    }
    if (QRELS_PARQUET_COLUMNS.every((c) => cols.includes(c)))
      return { file, role: 'qrels', format: 'parquet', split: splitOf(path), by: 'content' };
    const r = recordRole(path, cols);
    if (r.role === null) return unknown(file, `parquet columns ${cols.join(', ')}: ${EXPECTED}`);
    return { file, role: r.role, format: 'parquet', by: r.by };
  }

  const inQrelsDir = dirs(path).includes('qrels');
  if ((inQrelsDir || QRELS_HINT.test(name)) && ['tsv', 'txt', 'trec', 'qrels', 'qrel', ''].includes(ext)) {
    return { file, role: 'qrels', format: 'trec', split: splitOf(path), by: 'name' };
  }

  if (ext === 'csv') {
    const head = (await headLines(file.bytes, 1))[0] ?? '';
    const r = recordRole(path, csvHeader(head));
    if (r.role === null)
      return unknown(
        file,
        `CSV header ${JSON.stringify(head.slice(0, 120))}: expected an id column (${aliasesFor('corpus').id.join(', ')}) and ` +
          `a text column (${aliasesFor('corpus').text.join(', ')})`,
      );
    return { file, role: r.role === 'records' ? 'corpus' : r.role, format: 'csv', by: r.by };
  }
  if (ext === 'md' || ext === 'markdown') return { file, role: 'document', format: 'text', by: 'name' };

  const lines = await headLines(file.bytes);
  // TREC topic files (older tracks' SGML <top>, TREC-COVID's XML <topics>): queries, whatever their name.
  if (lines.length > 0 && /^\s*<(?:top>|topics\b|topic\b|\?xml)/i.test(lines[0]!))
    return { file, role: 'queries', format: 'topics', by: 'content' };
  if (lines.length > 0 && isKeptRunHeader(lines[0]!)) return { file, role: 'run', format: 'kept-run', by: 'content' };
  const shape = sniffShape(lines);
  if (shape === 'json' || ext === 'jsonl' || ext === 'ndjson' || ext === 'json') {
    const keys = jsonKeys(lines[0]);
    if (keys === null) return unknown(file, `first line is not a JSON object: ${EXPECTED}`);
    const r = recordRole(path, keys);
    if (r.role === null)
      return unknown(
        file,
        `JSON fields ${keys.join(', ')}: expected an id field and a text field (${aliasesFor('corpus').id.join('/')}, ` +
          `${aliasesFor('corpus').text.join('/')})`,
      );
    const native = keys.includes('_id') && keys.includes('text');
    return { file, role: r.role, format: native ? 'jsonl' : 'jsonl-aliased', by: r.by };
  }
  if (ext === 'tsv' && hint(path) === 'queries') return { file, role: 'queries', format: 'tsv', by: 'name' };
  if (shape === 'run') return { file, role: 'run', format: 'trec', by: 'content' };
  if (shape === 'qrels') return { file, role: 'qrels', format: 'trec', split: splitOf(path), by: 'content' };
  if (shape === 'pair') return { file, role: 'queries', format: 'tsv', by: 'content' };
  if (ext === 'txt' || ext === 'text') return { file, role: 'document', format: 'text', by: 'name' };
  return unknown(file, EXPECTED);
}

/** Classify every file (archives expanded first), then settle what only the set as a whole can tell. */
export async function classifyFiles(input: readonly CollectionFile[]): Promise<Classification> {
  // Archives and parquet files are read whole (their directory is at their end); any other large file keeps
  // its Blob, classified by its first bytes.
  const ready = await Promise.all(input.map((f) => (f.blob !== undefined && /\.(zip|parquet)$/i.test(f.path) ? wholeFile(f) : f)));
  const pending = await Promise.all(expandArchives(ready).map(classifyOne));
  const has = (role: FileRole): boolean => pending.some((p) => p.role === role);
  const records = pending.filter((p) => p.role === 'records');
  const settled: ClassifiedFile[] = pending.map((p) => {
    if (p.role !== 'records') return p as ClassifiedFile;
    // id + text and nothing in the name or fields to say which: the set decides when it can.
    if (records.length === 1 && !has('corpus') && has('queries')) return { ...p, role: 'corpus' };
    if (records.length === 1 && has('corpus') && !has('queries')) return { ...p, role: 'queries' };
    return {
      ...p,
      role: 'unknown',
      reason:
        'could be a corpus or queries (id and text fields, no title): name it corpus.* or queries.* (or put it in a corpus/ ' +
        'or queries/ folder)',
    };
  });
  const structuredCorpus = settled.find((c) => c.role === 'corpus');
  const files = settled.map((c) =>
    c.role === 'document' && structuredCorpus
      ? {
          ...c,
          role: 'ignored' as const,
          reason:
            `not used as a document: the corpus comes from ${structuredCorpus.file.path} (.txt/.md files form a corpus ` +
            `only when no corpus file is given)`,
        }
      : c,
  );
  const diagnostics: Diagnostic[] = [];
  const junk = files.filter((c) => c.role === 'ignored' && c.reason === 'system file');
  if (junk.length > 0) {
    diagnostics.push({
      severity: 'warning',
      file: junk[0]!.file.path,
      message: `${junk.length} system file(s) ignored (e.g. __MACOSX, .DS_Store)`,
    });
  }
  for (const c of files) {
    if (c.role === 'ignored' && c.reason !== 'system file')
      diagnostics.push({ severity: 'warning', file: c.file.path, message: `ignored: ${c.reason ?? ''}` });
    if (c.role === 'unknown')
      diagnostics.push({ severity: 'error', file: c.file.path, message: `not recognised, not used: ${c.reason ?? EXPECTED}` });
  }
  return { files, diagnostics };
}
