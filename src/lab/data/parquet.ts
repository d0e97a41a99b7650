/**
 * Parquet corpus, queries and qrels (the hub's layouts, see catalog.ts) read with hyparquet and fed,
 * record by record, to the core's builders, so validation and diagnostics are exactly those of the
 * JSONL/TSV path. "Line" in an InputError from a parquet file is the 1-based row number.
 * Plain ArrayBuffer input only: runs in a worker and in Node.
 */
import { errorMessage } from '../../core/error-message.ts';
import { parquetMetadata, parquetReadObjects, snappyUncompress, type Compressors, type FileMetaData } from 'hyparquet';
import type { CorpusBuilder, QueriesBuilder } from '../../core/io/beir.ts';
import { InputError, isInputError } from '../../core/io/errors.ts';
import { inflationRefused } from '../../core/io/lines.ts';
import type { QrelsBuilder } from '../../core/io/trec.ts';

const PARQUET_MAGIC = [0x50, 0x41, 0x52, 0x31]; // "PAR1"

export function isParquet(bytes: Uint8Array): boolean {
  if (bytes.length < 12) return false;
  for (let i = 0; i < 4; i++) if (bytes[i] !== PARQUET_MAGIC[i] || bytes[bytes.length - 4 + i] !== PARQUET_MAGIC[i]) return false;
  return true;
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  return bytes.slice().buffer;
}

function readMetadata(buffer: ArrayBuffer, file: string): FileMetaData {
  try {
    return parquetMetadata(buffer);
  } catch (e) {
    throw new InputError(file, undefined, `expected a Parquet file: ${errorMessage(e)}`);
  }
}

/** Top-level column names of a parquet file. */
export function parquetColumns(bytes: Uint8Array, file: string): string[] {
  const meta = readMetadata(toArrayBuffer(bytes), file);
  // schema[0] is the root; its direct children are the top-level columns.
  const root = meta.schema[0];
  const out: string[] = [];
  let i = 1;
  for (let c = 0; c < (root?.num_children ?? 0) && i < meta.schema.length; c++) {
    const el = meta.schema[i]!;
    out.push(el.name);
    i += 1 + countDescendants(meta, i);
  }
  return out;
}

function countDescendants(meta: FileMetaData, at: number): number {
  const n = meta.schema[at]?.num_children ?? 0;
  let total = 0;
  let i = at + 1;
  for (let c = 0; c < n; c++) {
    const d = countDescendants(meta, i);
    total += 1 + d;
    i += 1 + d;
  }
  return total;
}

/**
 * Decompressors for hyparquet that hold a file's pages to the bomb rule (core/io/lines.ts: 100× past 16 MiB),
 * counted over the whole file, before a page's declared size is allocated: a crafted page header cannot make
 * the reader allocate gigabytes. Snappy is the only codec the hyparquet build here inflates (the hub's files
 * use it); the others stay refused by hyparquet as unsupported.
 */
export function guardedDecompressors(file: string): Compressors {
  let compressed = 0;
  let inflated = 0;
  return {
    SNAPPY: (input, outputLength) => {
      compressed += input.length;
      inflated += outputLength;
      const bomb = inflationRefused(file, compressed, inflated);
      if (bomb) throw bomb;
      const out = new Uint8Array(outputLength);
      snappyUncompress(input, out);
      return out;
    },
  };
}

/** Plain JSON-able value: BigInt (int64 ids) as its decimal string. */
function plain(v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}

/**
 * Call `onRow(record, rowNo)` for every row (1-based), one row group at a time so a large shard is never
 * materialised whole. Only `columns` that exist in the file are read.
 */
export async function forEachParquetRow(
  bytes: Uint8Array,
  file: string,
  columns: readonly string[],
  onRow: (row: Record<string, unknown>, rowNo: number) => void,
): Promise<number> {
  const buffer = toArrayBuffer(bytes);
  const metadata = readMetadata(buffer, file);
  const present = parquetColumns(bytes, file);
  const wanted = columns.filter((c) => present.includes(c));
  const compressors = guardedDecompressors(file);
  let rowNo = 0;
  let start = 0;
  for (const group of metadata.row_groups) {
    const end = start + Number(group.num_rows);
    let rows: Record<string, unknown>[];
    try {
      rows = await parquetReadObjects({ file: buffer, metadata, columns: wanted, rowStart: start, rowEnd: end, compressors });
    } catch (e) {
      if (isInputError(e)) throw e;
      throw new InputError(file, undefined, `could not read Parquet rows ${start + 1}–${end}: ${errorMessage(e)}`);
    }
    for (const row of rows) {
      rowNo++;
      try {
        onRow(row, rowNo);
      } catch (e) {
        if (isInputError(e)) throw e;
        throw new InputError(file, rowNo, errorMessage(e));
      }
    }
    start = end;
  }
  return rowNo;
}

/** Serialise a parquet record as the JSONL line the core's builders read. */
export function recordLine(row: Record<string, unknown>, keys: readonly string[]): string {
  const obj: Record<string, unknown> = {};
  for (const k of keys) if (k in row) obj[k] = plain(row[k]);
  return JSON.stringify(obj);
}

/** Feed corpus rows (`_id`, `title`, `text`) of one parquet file to a CorpusBuilder. */
export async function feedCorpusParquet(builder: CorpusBuilder, bytes: Uint8Array, file: string): Promise<void> {
  const keys = ['_id', 'title', 'text'];
  await forEachParquetRow(bytes, file, keys, (row, n) => builder.line(recordLine(row, keys), n));
}

/** Feed query rows (`_id`, `text`) of one parquet file to a QueriesBuilder. */
export async function feedQueriesParquet(builder: QueriesBuilder, bytes: Uint8Array, file: string): Promise<void> {
  const keys = ['_id', 'text'];
  await forEachParquetRow(bytes, file, keys, (row, n) => builder.line(recordLine(row, keys), n));
}

export const QRELS_PARQUET_COLUMNS = ['query-id', 'corpus-id', 'score'] as const;

/** Feed qrels rows (`query-id`, `corpus-id`, `score`) as BEIR TSV lines to a QrelsBuilder. */
export async function feedQrelsParquet(builder: QrelsBuilder, bytes: Uint8Array, file: string): Promise<void> {
  await forEachParquetRow(bytes, file, QRELS_PARQUET_COLUMNS, (row, n) => {
    const f = QRELS_PARQUET_COLUMNS.map((k) => String(plain(row[k]) ?? ''));
    if (f.some((v) => v.length === 0 || /\s/.test(v))) {
      throw new InputError(file, n, `expected non-empty "query-id", "corpus-id" and "score" without whitespace, got ${JSON.stringify(f)}`);
    }
    builder.line(f.join('\t'), n);
  });
}
