/**
 * What a stored collection keeps of its runs. A run file is kept as the lab read it — each query's kept
 * documents, its length and its judged tail (core/io/kept-run.ts, gzipped) — instead of the file, once the
 * file is larger than COMPACT_RUN_BYTES: an MS MARCO dev pair (2 × 250 MB) then takes a few MB of quota,
 * and a reload reads those instead of needing the files. Smaller runs are kept as they are (they cost little,
 * and stay the user's own file).
 */
import { KEPT_RUN_SUFFIX, keptRunLines } from '../../core/io/kept-run.ts';
import type { KeptRun } from '../../core/io/run-top.ts';
import type { Run } from '../../core/types.ts';
import { normalizePath } from './bytes.ts';
import type { CollectionFile, LoadedCollection } from './types.ts';

/** A run file larger than this is stored as its kept run. */
export const COMPACT_RUN_BYTES = 1024 * 1024;

/** A stored file and the kept run that replaces it. */
export interface KeptRunFile {
  /** The path of the run file it replaces (as the collection's files name it). */
  readonly replaces: string;
  readonly file: CollectionFile;
}

const isKeptRun = (run: Run): run is KeptRun =>
  typeof (run as Partial<KeptRun>).depth === 'number' && typeof (run as Partial<KeptRun>).lines === 'number';

/** The kept-run files that can replace a loaded collection's run files larger than `minBytes`. */
export async function keptRunFiles(collection: LoadedCollection, minBytes = COMPACT_RUN_BYTES): Promise<KeptRunFile[]> {
  const out: KeptRunFile[] = [];
  for (const source of collection.runSources ?? []) {
    if (source.kept || source.bytes <= minBytes) continue;
    const run = collection.runs.find((r) => r.name === source.run);
    if (run === undefined || !isKeptRun(run)) continue;
    const lines = keptRunLines(run, {
      source: { file: source.file, bytes: source.bytes },
      judged: collection.split,
      warnings: source.warnings,
    });
    out.push({ replaces: source.file, file: { path: `${source.file}${KEPT_RUN_SUFFIX}.gz`, bytes: await gzipText(lines) } });
  }
  return out;
}

/**
 * A collection's files with each run file that `kept` replaces swapped for its kept run, or the same array
 * when none is (a run inside a .zip stays: the archive is one stored file).
 */
export function withKeptRuns(files: readonly CollectionFile[], kept: readonly KeptRunFile[]): readonly CollectionFile[] {
  const by = new Map(kept.map((k) => [normalizePath(k.replaces), k.file]));
  let changed = false;
  const out = files.map((f) => {
    const k = by.get(normalizePath(f.path));
    if (k === undefined) return f;
    changed = true;
    return k;
  });
  return changed ? out : files;
}

/**
 * Gzip text given in pieces (the platform's CompressionStream: no copy of the whole text), yielding to the
 * event loop after each MiB.
 */
async function gzipText(pieces: Iterable<string>): Promise<Uint8Array> {
  const cs = new CompressionStream('gzip');
  const writer = cs.writable.getWriter();
  const encoder = new TextEncoder();
  const written = (async () => {
    let batch: string[] = [];
    let size = 0;
    for (const p of pieces) {
      batch.push(p);
      size += p.length;
      if (size >= 1 << 20) {
        await writer.write(encoder.encode(batch.join('')));
        batch = [];
        size = 0;
        // A turn of the event loop per MiB: the worker answers the page (a change of k) in between.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    }
    if (size > 0) await writer.write(encoder.encode(batch.join('')));
    await writer.close();
  })();
  const out = new Uint8Array(await new Response(cs.readable).arrayBuffer());
  await written;
  return out;
}
