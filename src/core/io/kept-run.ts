/**
 * A kept run as a file: what the lab holds of a large run (run-top.ts) — each query's kept documents and
 * scores, how many documents the run ranks, and where it ranks the judged documents below the cut — written
 * so a stored collection keeps that instead of the run file. An MS MARCO dev run (7M lines, 250 MB) kept at
 * depth 100 is 700k documents: a few MB gzipped, and reading it back gives the same Run the file gave, so
 * every measure, flip and support rank is the same after a reload.
 *
 * Format (JSON Lines; the lab stores it gzipped): a header, then one line per query in the run's order.
 *   {"format":"fliplab-kept-run","version":1,"name":"bm25","depth":100,"cut":true,"lines":6980000,
 *    "source":{"file":"run.dev.txt","bytes":251000000},"judged":"dev","warnings":[…]}
 *   {"query":"1048585","length":1000,"docs":["7187158",…],"scores":[18.2,…],"tail":[["7187160",457],…]}
 * `judged` names the judgments the tails were recorded against (the qrels split; null: none were given),
 * since a tail holds only the documents those judgments judge. Scores are JSON numbers, which read back to
 * the same doubles.
 */
import type { Diagnostic, DocId, QueryId } from '../types.ts';
import { InputError, quote } from './errors.ts';
import { asDocId, asQueryId } from './ids.ts';
import { readLines, type TextSource } from './lines.ts';
import type { ParseResult } from './trec.ts';
import type { KeptList, KeptRun } from './run-top.ts';

export const KEPT_RUN_FORMAT = 'fliplab-kept-run';
const VERSION = 1;
/** How a kept run's file is named: the run file's name with this added (then `.gz`). */
export const KEPT_RUN_SUFFIX = '.fliplab-run.jsonl';

export interface KeptRunInfo {
  /** The run file it was read from, and its size. */
  readonly source: { readonly file: string; readonly bytes: number };
  /** The judgments the tails were recorded against (a split name), or null when there were none. */
  readonly judged: string | null;
  /** The warnings reading the run file gave (they are not given again when the kept run is read). */
  readonly warnings: readonly Diagnostic[];
}

/** The kept run's lines (header first), each ending in "\n", one query a line. */
export function* keptRunLines(run: KeptRun, info: KeptRunInfo): Generator<string> {
  yield `${JSON.stringify({
    format: KEPT_RUN_FORMAT,
    version: VERSION,
    name: run.name,
    depth: run.depth,
    cut: run.cut,
    lines: run.lines,
    source: info.source,
    judged: info.judged,
    warnings: info.warnings,
  })}\n`;
  for (const [query, list] of run.byQuery) {
    const line: Record<string, unknown> = { query, length: list.length, docs: list.docs, scores: Array.from(list.scores) };
    if (list.tail) line['tail'] = list.tail.docs.map((d, i) => [d, list.tail!.positions[i]]);
    yield `${JSON.stringify(line)}\n`;
  }
}

/** Whether a first line is a kept run's header (classification by content). */
export function isKeptRunHeader(line: string): boolean {
  return line.startsWith('{') && line.includes(`"${KEPT_RUN_FORMAT}"`);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** Read a kept run (gzip or not); every malformed line is an InputError naming the file and line. */
export async function readKeptRun(source: TextSource, file: string): Promise<ParseResult<KeptRun> & { info: KeptRunInfo }> {
  let header: { name: string; depth: number; cut: boolean; lines: number; info: KeptRunInfo } | undefined;
  const byQuery = new Map<QueryId, KeptList>();
  const fail = (lineNo: number, reason: string): never => {
    throw new InputError(file, lineNo, reason);
  };
  await readLines(
    source,
    (text, lineNo) => {
      if (text.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        fail(lineNo, `expected a JSON object, got ${quote(text)}`);
      }
      if (!isRecord(value)) return fail(lineNo, `expected a JSON object, got ${quote(text)}`);
      if (header === undefined) {
        header = parseHeader(value, (reason) => fail(lineNo, reason));
        return;
      }
      const [query, list] = parseQuery(value, header.depth, (reason) => fail(lineNo, reason));
      if (byQuery.has(query)) fail(lineNo, `query ${quote(query)} appears twice`);
      byQuery.set(query, list);
    },
    file,
  );
  if (header === undefined) throw new InputError(file, undefined, `empty: expected a ${KEPT_RUN_FORMAT} header line`);
  const { name, depth, cut, lines, info } = header;
  return { value: { name, byQuery, depth, cut, lines }, warnings: info.warnings, info };
}

function parseHeader(
  v: Record<string, unknown>,
  fail: (reason: string) => never,
): { name: string; depth: number; cut: boolean; lines: number; info: KeptRunInfo } {
  if (v['format'] !== KEPT_RUN_FORMAT) fail(`expected a header with "format": "${KEPT_RUN_FORMAT}"`);
  if (v['version'] !== VERSION) fail(`version ${JSON.stringify(v['version'])} is not one this fliplab reads (expected ${VERSION})`);
  const { name, depth, cut, lines, source, judged, warnings } = v;
  if (typeof name !== 'string') fail('expected "name": the run\'s name');
  if (!isCount(depth) || depth < 1) fail('expected "depth": a positive integer');
  if (typeof cut !== 'boolean') fail('expected "cut": true or false');
  if (!isCount(lines)) fail('expected "lines": a count');
  if (!isRecord(source) || typeof source['file'] !== 'string' || !isCount(source['bytes']))
    fail('expected "source": {"file": …, "bytes": …}');
  if (judged !== null && typeof judged !== 'string') fail('expected "judged": a split name or null');
  if (!Array.isArray(warnings) || !warnings.every(isDiagnostic)) fail('expected "warnings": a list of {severity, file, message}');
  const src = source as { file: string; bytes: number };
  return {
    name: name as string,
    depth: depth as number,
    cut: cut as boolean,
    lines: lines as number,
    info: { source: { file: src.file, bytes: src.bytes }, judged: judged as string | null, warnings: warnings as Diagnostic[] },
  };
}

function isDiagnostic(v: unknown): v is Diagnostic {
  return (
    isRecord(v) &&
    (v['severity'] === 'warning' || v['severity'] === 'error') &&
    typeof v['file'] === 'string' &&
    typeof v['message'] === 'string' &&
    (v['line'] === undefined || isCount(v['line']))
  );
}

function parseQuery(v: Record<string, unknown>, depth: number, fail: (reason: string) => never): [QueryId, KeptList] {
  const { query, length, docs, scores, tail } = v;
  if (typeof query !== 'string' || query === '') fail('expected "query": a query id');
  if (!Array.isArray(docs) || !docs.every((d) => typeof d === 'string' && d !== '')) fail('expected "docs": a list of document ids');
  const ids = docs as string[];
  if (ids.length > depth) fail(`expected at most ${depth} documents (the header's depth), got ${ids.length}`);
  if (!Array.isArray(scores) || scores.length !== ids.length || !scores.every((s) => typeof s === 'number' && Number.isFinite(s)))
    fail(`expected "scores": ${ids.length} finite numbers, one per document`);
  if (!isCount(length) || length < ids.length) fail(`expected "length": a count of at least ${ids.length} (the documents kept)`);
  const seen = new Set<string>(ids);
  if (seen.size !== ids.length) fail('a document appears twice in "docs"');
  const n = length as number;
  const list: { docs: DocId[]; scores: Float64Array; length: number; tail?: NonNullable<KeptList['tail']> } = {
    docs: ids.map(asDocId),
    scores: Float64Array.from(scores as number[]),
    length: n,
  };
  if (tail !== undefined) {
    if (!Array.isArray(tail)) return fail('expected "tail": a list of [document id, position]');
    const tailDocs: DocId[] = [];
    const positions = new Int32Array(tail.length);
    let last = ids.length;
    tail.forEach((entry: unknown, i) => {
      if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string' || entry[0] === '' || !isCount(entry[1]))
        fail('expected "tail": a list of [document id, position]');
      const [doc, position] = entry as [string, number];
      if (position <= last || position > n)
        fail(`expected tail positions rising from ${ids.length + 1} to "length" (${n}), got ${position} for ${quote(doc)}`);
      if (seen.has(doc)) fail(`document ${quote(doc)} appears twice in the query's list`);
      seen.add(doc);
      last = position;
      tailDocs.push(asDocId(doc));
      positions[i] = position;
    });
    if (tailDocs.length > 0) list.tail = { docs: tailDocs, positions };
  }
  return [asQueryId(query as string), list];
}
