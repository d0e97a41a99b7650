import type { SyntheticProvenance } from '../../core/judging/synthetic.ts';
/**
 * Plain-data types of the lab's data layer (src/lab/data): the files a collection is made of, what
 * loading them yields, download progress and the stored-collection metadata. Everything here survives
 * structured clone, so it can cross the worker boundary and live in IndexedDB.
 */
import type { Corpus, Diagnostic, Qrels, Queries, Run } from '../../core/types.ts';

/**
 * One input file: its path relative to the dropped folder (or just its name) and its raw bytes — or, for a
 * large file, the `blob` holding it whole and `bytes` holding only its first bytes (enough to tell what it
 * is). Runs and corpus text stream from the blob; anything else is read whole where it is parsed
 * (`wholeFile` in bytes.ts). A Blob crosses to the worker and into IndexedDB without entering the JS heap.
 */
export interface CollectionFile {
  readonly path: string;
  readonly bytes: Uint8Array;
  readonly blob?: Blob;
}

/** A collection ready for the lab: parsed and validated by the core. */
export interface LoadedCollection {
  readonly name: string;
  readonly corpus: Corpus;
  readonly queries: Queries;
  /** Judgments of the chosen split; null when none were given (the lab then compares by overlap only). */
  readonly qrels: Qrels | null;
  /** The chosen qrels split (null without judgments). */
  readonly split: string | null;
  /** Every split found among the files, in preference order (test, dev, train, then by name). */
  readonly splits: readonly string[];
  readonly runs: readonly Run[];
  /** Where each run came from, in the order of `runs`. */
  readonly runSources?: readonly RunSource[];
  /** Warnings from the core parsers and the file classifier (ignored, ambiguous or unknown files). */
  readonly diagnostics: readonly Diagnostic[];
  /** Gold answers from the queries' BEIR metadata (`metadata.answer` / `answers`), by query id; empty when none. */
  readonly gold?: ReadonlyMap<string, readonly string[]>;
  /** No corpus was given: the passages are the ids the runs rank, without text (BM25 and encoders need text). */
  readonly passagesFromRuns?: boolean;
  /** The queries were made from the documents (core/judging/synthetic.ts): what made them. */
  readonly synthetic?: SyntheticProvenance | null;
}

/** The file a collection's run was read from. */
export interface RunSource {
  /** The run's name in the collection. */
  readonly run: string;
  /** The file read (a kept run's own file when the lab stored it compactly). */
  readonly file: string;
  /** The file the user gave: `file`, or for a kept run the run file it was kept from. */
  readonly source: string;
  readonly bytes: number;
  /** The file is a kept run (core/io/kept-run.ts), as the lab stores a large run. */
  readonly kept: boolean;
  /** What reading it warned. */
  readonly warnings: readonly Diagnostic[];
}

/** Download progress of one URL. */
export interface FetchProgress {
  readonly url: string;
  readonly loaded: number;
  /** From Content-Length; null when the server does not say. */
  readonly total: number | null;
  /** Milliseconds left at the byte rate so far; null until there is a total and a rate. */
  readonly etaMs: number | null;
}

export type CollectionSource = 'catalog' | 'files';

/** What the collection store lists without reading any file. */
export interface CollectionMeta {
  /** `beir:<name>` for catalog sets, `files:<name>-<short hash>` for uploads. */
  readonly id: string;
  readonly name: string;
  readonly source: CollectionSource;
  /** Path and size in bytes of every stored file. */
  readonly files: readonly { readonly path: string; readonly bytes: number }[];
  readonly totalBytes: number;
  /** Epoch milliseconds. */
  readonly addedAt: number;
  /** When it was last opened (epoch milliseconds); absent for a collection stored before this was kept. */
  readonly lastUsed?: number;
}
