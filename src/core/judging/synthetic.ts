/**
 * A test collection from the user's own documents, when there are no queries: a sample of passages, one query a
 * reader model writes for each (InPars, Bonifacio et al., SIGIR 2022; Promptagator, Dai et al., ICLR 2023), and
 * the passage it was written from as that query's one relevant judgment. A model judge then fills the holes of
 * each retriever's top k (layer.ts), and the analysis runs as on any collection, labelled as what it is.
 *
 * Definitions:
 * - The sample is stratified by source and length. A passage's source is the folder of its id for a folder of text
 *   files (the subfolder it sits in), and one source for a corpus file. Its length class is short, medium or long by
 *   the terciles of the word counts of every eligible passage (ties go to the shorter class). Passages of fewer than
 *   MIN_WORDS words are not eligible: there is nothing to ask about. The sample of n is shared out over the strata
 *   in proportion to their sizes (floors, then the largest remainders, equal remainders in a seeded order), and each stratum's
 *   passages are drawn without replacement by a seeded shuffle of its own (mulberry32, seeded by the seed and the
 *   stratum's name), so the sample depends on the seed and the corpus only. It is listed in corpus order.
 * - The source passage is judged SOURCE_GRADE (2, "relevant"), marked "source": a label made by construction, not
 *   by a person and not by the judge.
 * - The writer's prompt is data (shown and editable in the lab); an edited prompt is another writer, named
 *   `<id>+edited-<hash>` like an edited judge prompt, so its queries are cached apart.
 */
import { fnv1a } from '../fnv.ts';
import { mulberry32 } from '../random.ts';
import type { ChatMessage, ReaderTask, ReaderTemplate } from '../answers/prompt.ts';
import { templateName, truncateWords } from '../answers/prompt.ts';
import { InputError } from '../io/errors.ts';
import { editedPromptId } from './grades.ts';

/** The grade the source passage of a written query gets. */
export const SOURCE_GRADE = 2;
/** Passages shorter than this (in words) are not sampled. */
export const MIN_WORDS = 5;
/** Queries asked for by default. */
export const DEFAULT_QUERY_COUNT = 50;
/** The file a made collection carries its provenance in (role `synthetic`). */
export const SYNTHETIC_QUERIES_FILE = 'synthetic-queries.json';

/**
 * The writer's prompt. `{passage}` is replaced by the passage (its title on the first line when it has one, its
 * text cut to `passageWords` words). Zero-shot and instruction-style: the reader presets are instruct models.
 */
export const QUERY_WRITER: ReaderTemplate = {
  id: 'fliplab-write-query',
  version: 1,
  system: 'You write search queries for passages.',
  user:
    'Here is a passage from a document collection.\n\n{passage}\n\n' +
    'Write one search query that a person would type to find this passage: a short question or a few keywords, ' +
    'answered by the passage. Reply with the query only.',
  passage: '{title}\n{text}',
  separator: '\n\n',
  passageWords: 200,
  maxNewTokens: 32,
};

/** The writer with its user turn replaced by `user` (the same writer when the text is its own). */
export function editedWriter(writer: ReaderTemplate, user: string): ReaderTemplate {
  return user === writer.user ? writer : { ...writer, id: editedPromptId(writer.id, user), user };
}

/** What is wrong with a writer's prompt (null: nothing): it must hold `{passage}` exactly once. */
export function checkWriterPrompt(user: string): string | null {
  const n = user.split('{passage}').length - 1;
  return n === 1 ? null : `the prompt must hold {passage} exactly once; it holds it ${n} times`;
}

export interface WriterPassage {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

/** The passage as the writer sees it: title line (if any) and the text cut to the writer's word limit. */
export function writerPassage(writer: ReaderTemplate, p: WriterPassage): string {
  const title = p.title.trim();
  const text = truncateWords(p.text, writer.passageWords);
  if (title === '') return text;
  // One pass, by function: "$&" in a text, or "{text}" in a title, stays as written.
  return writer.passage.replace(/\{(title|text)\}/g, (_, name: string) => (name === 'title' ? title : text));
}

/** The chat messages that ask for one query. The passage goes in once, after the placeholder is found. */
export function writerMessages(writer: ReaderTemplate, p: WriterPassage): ChatMessage[] {
  const parts = writer.user.split('{passage}');
  return [
    { role: 'system', content: writer.system },
    { role: 'user', content: parts.join(writerPassage(writer, p)) },
  ];
}

/**
 * One reader task a passage: `queryId` is the passage id, `question` the passage as the writer sees it (so the
 * cached query is keyed by the text it was written from: a changed document is asked again).
 */
export function writerTasks(writer: ReaderTemplate, passages: readonly WriterPassage[]): ReaderTask[] {
  return passages.map((p) => ({
    queryId: p.id,
    question: writerPassage(writer, p),
    passageIds: [p.id],
    messages: writerMessages(writer, p),
  }));
}

const QUOTES: ReadonlyArray<readonly [string, string]> = [
  ['"', '"'],
  ["'", "'"],
  ['“', '”'],
  ['«', '»'],
  ['`', '`'],
];

/**
 * The query in a reader's reply: its first line with words in it, without a list mark, a "Query:" label or
 * surrounding quotes, spaces collapsed, at most 300 characters. Empty when the reply holds none.
 */
export function cleanQuery(raw: string): string {
  for (const line of raw.split(/\r?\n/)) {
    let s = line
      .trim()
      .replace(/^(?:[-*•]|\d+[.)])\s+/, '')
      .replace(/^(?:search\s+)?(?:query|question)\s*[:：-]\s*/i, '')
      .trim();
    for (const [open, close] of QUOTES) if (s.length >= 2 && s.startsWith(open) && s.endsWith(close)) s = s.slice(1, -1).trim();
    // Control characters and undecodable bytes (a small model's stray tokens) are not part of a query.
    // eslint-disable-next-line no-control-regex
    s = s.replace(/[\u0000-\u0008\u000e-\u001f\u007f\ufffd]/g, '').replace(/\s+/g, ' ');
    if (/[\p{L}\p{N}]/u.test(s)) return s.length > 300 ? s.slice(0, 300).trimEnd() : s;
  }
  return '';
}

// ------------------------------------------------------------------------------------------------ the sample

export type LengthClass = 'short' | 'medium' | 'long';

export interface Stratum {
  /** The folder of the passages' ids ('' for the top level). */
  readonly source: string;
  readonly length: LengthClass;
  /** Eligible passages in it. */
  readonly size: number;
  /** Passages drawn from it. */
  readonly taken: number;
}

export interface PassageSample {
  /** Indices of the drawn passages, in corpus order. */
  readonly indices: readonly number[];
  readonly strata: readonly Stratum[];
  /** Passages of fewer than MIN_WORDS words, never drawn. */
  readonly tooShort: number;
  /** Word-count bounds of the short and medium classes (inclusive). */
  readonly bounds: readonly [number, number];
}

/** The folder part of an id ("notes/2024/a" → "notes/2024"; "a" → ""). */
export const sourceOf = (id: string): string => id.slice(0, Math.max(0, id.lastIndexOf('/')));

const wordCount = (s: string): number => s.split(/\s+/).filter((w) => w.length > 0).length;

/** The value at quantile `q` of sorted numbers (the lower of two neighbours: ties go to the shorter class). */
const lowerQuantile = (sorted: readonly number[], q: number): number => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;

/**
 * Draw `n` passages (see the file comment). `ids` and `texts` are the corpus's, in corpus order (the title does
 * not count towards a passage's length).
 */
export function samplePassages(
  ids: readonly string[],
  texts: readonly string[],
  n: number,
  seed: number,
  source: (id: string) => string = sourceOf,
): PassageSample {
  const words = texts.map(wordCount);
  const eligible: number[] = [];
  for (let i = 0; i < ids.length; i++) if (words[i]! >= MIN_WORDS) eligible.push(i);
  const sorted = eligible.map((i) => words[i]!).sort((a, b) => a - b);
  const bounds: [number, number] = [lowerQuantile(sorted, 1 / 3), lowerQuantile(sorted, 2 / 3)];
  const lengthOf = (w: number): LengthClass => (w <= bounds[0] ? 'short' : w <= bounds[1] ? 'medium' : 'long');

  const members = new Map<string, number[]>();
  const keyOf = (i: number): string => `${source(ids[i]!)}\u0000${lengthOf(words[i]!)}`;
  for (const i of eligible) {
    const key = keyOf(i);
    let list = members.get(key);
    if (list === undefined) members.set(key, (list = []));
    list.push(i);
  }
  const keys = [...members.keys()].sort();
  const want = Math.max(0, Math.min(Math.floor(n), eligible.length));
  // Proportional shares: floors, then one more for the largest remainders; equal remainders (many small strata)
  // in a seeded order, so no stratum is favoured for its name.
  const shares = keys.map((k) => (want * members.get(k)!.length) / eligible.length);
  const taken = shares.map(Math.floor);
  let left = want - taken.reduce((a, b) => a + b, 0);
  const tie = keys.map((k) => fnv1a(new TextEncoder().encode(`${seed}|tie|${k}`)) >>> 0);
  const byRemainder = keys.map((_, s) => s).sort((a, b) => shares[b]! - taken[b]! - (shares[a]! - taken[a]!) || tie[a]! - tie[b]! || a - b);
  for (const s of byRemainder) {
    if (left === 0) break;
    taken[s]!++;
    left--;
  }

  const drawn: number[] = [];
  const strata: Stratum[] = keys.map((key, s) => {
    const list = [...members.get(key)!];
    const random = mulberry32(fnv1a(new TextEncoder().encode(`${seed}|${key}`)));
    // Partial Fisher–Yates: the first `taken` places are a uniform draw without replacement.
    for (let j = 0; j < taken[s]!; j++) {
      const r = j + Math.floor(random() * (list.length - j));
      [list[j], list[r]] = [list[r]!, list[j]!];
      drawn.push(list[j]!);
    }
    const [source, length] = key.split('\u0000') as [string, LengthClass];
    return { source, length, size: list.length, taken: taken[s]! };
  });
  return { indices: drawn.sort((a, b) => a - b), strata, tooShort: ids.length - eligible.length, bounds };
}

// ------------------------------------------------------------------------------------------------ the files

/** How a query came to be: written by the reader, written then edited, typed, or imported from a file. */
export type QueryOrigin = 'reader' | 'edited' | 'typed' | 'imported';

export interface MadeQuery {
  readonly text: string;
  /** The passage it was written from (judged SOURCE_GRADE); null for a typed or imported query. */
  readonly source: string | null;
  readonly origin: QueryOrigin;
  /** Who wrote it, when a reader did: "model (dtype), prompt name" (kept per query: a list may mix writers). */
  readonly writer?: string;
}

/** What a made collection says about its queries (the `synthetic-queries.json` file). */
export interface SyntheticProvenance {
  /** The reader that wrote the queries (null: none was written, all typed or imported). */
  readonly reader: { readonly model: string; readonly revision: string; readonly dtype: string } | null;
  /** The writer's prompt by name and text (null with no reader). */
  readonly prompt: { readonly name: string; readonly text: string } | null;
  /** The sample the reader wrote from (null with no reader). */
  readonly sample: {
    readonly asked: number;
    readonly seed: number;
    readonly strata: readonly Stratum[];
    readonly tooShort: number;
  } | null;
  /** Queries by origin, and how many written ones the user deleted. */
  readonly queries: Readonly<Record<QueryOrigin, number>> & { readonly deleted: number };
  readonly sourceGrade: number;
}

export const PROVENANCE_KIND = 'fliplab synthetic queries';

/** How a query's writer is named in its metadata: "org/model (q8), fliplab-write-query@v1". */
export const writerName = (reader: { readonly model: string; readonly dtype: string }, template: ReaderTemplate): string =>
  `${reader.model} (${reader.dtype}), ${templateName(template)}`;

/** Query ids of a made collection: q1, q2, … in the list's order. */
export const madeQueryId = (i: number): string => `q${i + 1}`;

/**
 * The files that make the documents a collection: BEIR queries (each with its origin and source in `metadata`),
 * BEIR qrels (the source passages, SOURCE_GRADE; null when no query has one) and the provenance.
 */
export function syntheticFiles(
  queries: readonly MadeQuery[],
  provenance: Omit<SyntheticProvenance, 'queries' | 'sourceGrade'> & { readonly deleted: number },
): { readonly queries: string; readonly qrels: string | null; readonly provenance: string } {
  const counts: Record<QueryOrigin, number> = { reader: 0, edited: 0, typed: 0, imported: 0 };
  const lines: string[] = [];
  const qrels: string[] = [];
  queries.forEach((q, i) => {
    const id = madeQueryId(i);
    counts[q.origin]++;
    const metadata = {
      origin: q.origin,
      ...(q.source === null ? {} : { source: q.source }),
      ...(q.writer === undefined ? {} : { writer: q.writer }),
    };
    lines.push(JSON.stringify({ _id: id, text: q.text, metadata }));
    if (q.source !== null) qrels.push(`${id}\t${q.source}\t${SOURCE_GRADE}`);
  });
  const { deleted, ...rest } = provenance;
  const record = {
    kind: PROVENANCE_KIND,
    version: 1,
    ...rest,
    queries: { ...counts, deleted },
    source_grade: SOURCE_GRADE,
  };
  return {
    queries: lines.join('\n') + '\n',
    qrels: qrels.length === 0 ? null : `query-id\tcorpus-id\tscore\n${qrels.join('\n')}\n`,
    provenance: JSON.stringify(record, null, 2) + '\n',
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Read a `synthetic-queries.json` back; anything else is refused with the file's name. */
export function parseProvenance(text: string, file: string): SyntheticProvenance {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new InputError(file, undefined, 'expected the JSON fliplab writes about synthetic queries; it is not JSON');
  }
  if (!isRecord(v) || v.kind !== PROVENANCE_KIND || v.version !== 1)
    throw new InputError(file, undefined, `expected {"kind": "${PROVENANCE_KIND}", "version": 1, …}`);
  const q = v.queries;
  if (!isRecord(q)) throw new InputError(file, undefined, 'expected "queries" with counts by origin');
  const count = (k: string): number => (typeof q[k] === 'number' && Number.isInteger(q[k]) && (q[k] as number) >= 0 ? (q[k] as number) : 0);
  return {
    reader: isRecord(v.reader) ? (v.reader as SyntheticProvenance['reader']) : null,
    prompt: isRecord(v.prompt) ? (v.prompt as SyntheticProvenance['prompt']) : null,
    sample: isRecord(v.sample) ? (v.sample as SyntheticProvenance['sample']) : null,
    queries: {
      reader: count('reader'),
      edited: count('edited'),
      typed: count('typed'),
      imported: count('imported'),
      deleted: count('deleted'),
    },
    sourceGrade: typeof v.source_grade === 'number' ? v.source_grade : SOURCE_GRADE,
  };
}

/**
 * What the collection's queries are: "12 queries made for the documents: 11 written by X from sampled passages (1
 * edited by hand), 1 typed; each written query's source passage is judged 2 ("source")."
 */
export function provenanceSentence(p: SyntheticProvenance): string {
  const written = p.queries.reader + p.queries.edited;
  const parts: string[] = [];
  if (written > 0)
    parts.push(
      `${written} written by ${p.reader?.model ?? 'a reader'} from sampled passages` +
        (p.queries.edited > 0 ? ` (${p.queries.edited} edited by hand)` : ''),
    );
  if (p.queries.typed > 0) parts.push(`${p.queries.typed} typed`);
  if (p.queries.imported > 0) parts.push(`${p.queries.imported} imported`);
  const total = written + p.queries.typed + p.queries.imported;
  const sources = written > 0 ? `; each written query's source passage is judged ${p.sourceGrade} ("source")` : '';
  return `${total} ${total === 1 ? 'query' : 'queries'} made for the documents: ${parts.join(', ') || 'none'}${sources}.`;
}
