/**
 * Where collections come from: the BEIR catalog (downloaded once from the data host, with progress and
 * ETA, then kept in IndexedDB) and the user's own files (kept too, so a reload or a deep link reopens
 * them). Opening hands the files to the lab (parsed in its worker).
 */
import { errorMessage, isAbort } from '../../core/error-message.ts';
import { BEIR_CATALOG, catalogEntry, catalogId } from '../../lab/data/catalog.ts';
import { CollectionStore, uploadId } from '../../lab/data/collection-store.ts';
import { fetchCatalogCollection } from '../../lab/data/fetch.ts';
import { COMPACT_RUN_BYTES, withKeptRuns } from '../../lab/data/compact.ts';
import type { CollectionFile, CollectionMeta, FetchProgress } from '../../lab/data/types.ts';
import { collectionName } from './read-files.ts';
import { problemAdvice, problemOf, problemSummary, type Problem } from '../../lab/problems.ts';

const hostName = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};
import type { Lab } from './lab.svelte.ts';
import { proxy } from 'comlink';
import { tabChannel, type TabChannel } from './tabs.ts';
import { etaMs } from '../../core/progress.ts';
import type { PassageFilterProgress } from '../../core/io/passages.ts';
import { PASSAGE_TEXT_FILE } from '../../lab/data/files.ts';
import { baseName, fileSize, logicalName } from '../../lab/data/bytes.ts';
import { KEPT_RUN_SUFFIX } from '../../core/io/kept-run.ts';
import { errorInfo, errorText } from './errors.ts';

export interface DownloadState {
  readonly name: string;
  readonly progress: FetchProgress | null;
  /** Bytes of the files finished so far in this download. */
  readonly finishedBytes: number;
}

/** A download that failed for a network reason: what happened, what to do, and what Retry repeats. */
export interface DownloadFailure {
  readonly summary: string;
  readonly advice: string;
  /** The technical message (URL, status), shown folded. */
  readonly detail: string;
  readonly problem: Problem;
  /** Catalog name that Retry downloads again. */
  readonly retry: string;
}

export class Collections {
  stored: CollectionMeta[] = $state([]);
  download: DownloadState | null = $state(null);
  error: string | null = $state(null);
  failure: DownloadFailure | null = $state.raw(null);
  readonly catalog = BEIR_CATALOG;
  /** The user's files held documents and nothing else (no queries, no runs): the lab offers to make queries. */
  corpusOnly: { readonly files: readonly CollectionFile[]; readonly name: string } | null = $state.raw(null);
  #store: CollectionStore | null = null;
  #download: AbortController | null = null;
  /**
   * Text for a collection opened from runs, from a corpus file read as a stream (only the passages the runs
   * rank are kept): in progress (bytes, ETA), done (counts) or failed (file, line, reason).
   */
  passageText:
    | {
        readonly state: 'reading';
        readonly collection: string;
        readonly file: string;
        readonly bytesRead: number;
        readonly totalBytes: number;
        readonly etaMs: number | null;
      }
    | {
        readonly state: 'done';
        readonly collection: string;
        readonly file: string;
        readonly kept: number;
        readonly read: number;
        readonly missing: number;
      }
    | { readonly state: 'error'; readonly collection: string; readonly file: string; readonly message: string }
    | null = $state.raw(null);

  constructor(
    private readonly lab: Lab,
    private readonly dbName?: string,
  ) {}

  /** Other tabs: a collection stored or deleted there is listed here too. */
  readonly #tabs: TabChannel = tabChannel((m) => {
    if (m.kind === 'collections') void this.refresh();
  });

  /** The stored list changed in this tab: list it again, and tell the other tabs. */
  async #changed(): Promise<void> {
    await this.refresh();
    this.#tabs.post({ kind: 'collections' });
  }

  #db(): CollectionStore {
    this.#store ??= new CollectionStore(this.dbName);
    return this.#store;
  }

  async refresh(): Promise<void> {
    try {
      this.stored = await this.#db().list();
    } catch (e) {
      this.error = `Could not read stored collections: ${errorMessage(e)}`;
    }
  }

  isStored(id: string): boolean {
    return this.stored.some((m) => m.id === id);
  }

  /** Open a catalog set: from IndexedDB when stored, else downloaded from the data host first. */
  async openCatalog(name: string): Promise<void> {
    const id = catalogId(name);
    const display = catalogEntry(name)?.displayName ?? name;
    this.error = null;
    this.failure = null;
    const db = this.#db();
    let files = await db.get(id);
    if (!files) {
      const controller = new AbortController();
      this.#download?.abort();
      this.#download = controller;
      this.download = { name: display, progress: null, finishedBytes: 0 };
      let finished = 0;
      let lastUrl = '';
      try {
        files = await fetchCatalogCollection(name, {
          baseUrl: this.lab.settings.dataHost,
          signal: controller.signal,
          onProgress: (p) => {
            if (lastUrl && p.url !== lastUrl) finished += this.download?.progress?.loaded ?? 0;
            lastUrl = p.url;
            this.download = { name: display, progress: p, finishedBytes: finished };
          },
        });
      } catch (e) {
        const detail = errorMessage(e);
        const problem = controller.signal.aborted ? null : problemOf(e);
        if (problem !== null) {
          const host = hostName(this.lab.settings.dataHost);
          this.failure = {
            summary: problemSummary(problem, display, host),
            advice: problemAdvice(problem, 'open your own files below'),
            detail,
            problem,
            retry: name,
          };
        } else {
          this.error = controller.signal.aborted ? `Download of ${display} cancelled.` : `Could not download ${display}: ${detail}`;
        }
        return;
      } finally {
        this.download = null;
        this.#download = null;
      }
      try {
        await db.put({ id, name: display, source: 'catalog' }, files);
      } catch (e) {
        // Not fatal: the collection opens, it just is not kept for the next visit.
        this.error = `${display} opened but could not be stored for offline use: ${errorMessage(e)}`;
      }
      await this.#changed();
    }
    if (await this.lab.openFiles(id, display, files)) await this.#used(id);
  }

  /** Note that a stored collection was opened (the stored list shows its last use); failing to is no failure. */
  async #used(id: string): Promise<void> {
    try {
      await this.#db().touch(id);
      await this.#changed();
    } catch {
      // the collection is open; only its "last used" is not updated
    }
  }

  cancelDownload(): void {
    this.#download?.abort();
  }

  /** Keep the user's files and open them. */
  async openUpload(files: readonly CollectionFile[]): Promise<void> {
    this.error = null;
    if (files.length === 0) {
      this.error = 'No files were given.';
      return;
    }
    const name = collectionName(files);
    const id = await uploadId(name, files);
    const opened = await this.lab.openFiles(id, name, files);
    // The lab shows the error in place; nothing is stored. Documents alone: queries can be made for them.
    this.corpusOnly = !opened && this.lab.collectionError?.corpusOnly === true ? { files, name } : null;
    if (!opened) return;
    // The files at once (a tab closed from now on keeps the upload), then their large runs as the lab keeps them.
    const meta = { id, name, source: 'files' as const, addedAt: Date.now(), lastUsed: Date.now() };
    let stored: unknown = null;
    try {
      await this.#db().put(meta, files);
      await this.#changed();
    } catch (e) {
      stored = e;
    }
    if (!(await this.#storeKeptRuns(meta, files)) && stored !== null)
      this.error = `${name} opened but could not be stored for the next visit: ${errorMessage(stored)}`;
  }

  /**
   * Add passage text to the open collection of runs from a corpus file (MS MARCO collection.tsv or BEIR
   * corpus.jsonl, .gz too): streamed in the lab worker, only the passages the runs rank kept, then stored with
   * the collection so a reload has the text. Cancel with cancelPassageText.
   */
  async addPassageText(file: File): Promise<void> {
    const id = this.lab.collectionId;
    if (id === null || !this.lab.collection?.passagesFromRuns) return;
    const started = performance.now();
    this.passageText = { state: 'reading', collection: id, file: file.name, bytesRead: 0, totalBytes: file.size, etaMs: null };
    try {
      const result = await this.lab.lab.keepPassageText(
        file,
        file.name,
        proxy((p: PassageFilterProgress) => {
          if (this.passageText?.state !== 'reading' || this.lab.collectionId !== id) return;
          const total = p.totalBytes ?? file.size;
          this.passageText = {
            state: 'reading',
            collection: id,
            file: file.name,
            bytesRead: p.bytesRead,
            totalBytes: total,
            etaMs: etaMs(p.bytesRead, total, performance.now() - started),
          };
        }),
      );
      if (this.lab.collectionId !== id) return;
      // Kept with the collection (before saying done: a reload right after must find it): the stored files lose
      // any earlier passage text and gain this one.
      const db = this.#db();
      const files = (await db.get(id)) ?? [];
      const meta = await db.meta(id);
      if (meta)
        await db.put({ id, name: meta.name, source: meta.source, addedAt: meta.addedAt }, [
          ...files.filter((f) => baseName(f.path) !== PASSAGE_TEXT_FILE),
          result.file,
        ]);
      this.passageText = { state: 'done', collection: id, file: file.name, kept: result.kept, read: result.read, missing: result.missing };
      await this.#changed();
    } catch (e) {
      if (isAbort(e)) this.passageText = null;
      else this.passageText = { state: 'error', collection: id, file: file.name, message: errorText(errorInfo(e)) };
    }
  }

  cancelPassageText(): void {
    void this.lab.lab.cancelPassageText();
  }

  /**
   * Store the collection `meta.id` again with each large run file swapped for the run as the lab keeps it
   * (lab/data/compact.ts), read from the collection the lab has open. True when it was stored so; false when
   * there was nothing to swap or it failed (the error says why).
   */
  async #storeKeptRuns(
    meta: Pick<CollectionMeta, 'id' | 'name' | 'source' | 'addedAt'>,
    files: readonly CollectionFile[],
  ): Promise<boolean> {
    // Only a large file not kept already can be swapped (no worker call on every open of a stored collection).
    if (!files.some((f) => fileSize(f) > COMPACT_RUN_BYTES && !logicalName(f.path).endsWith(KEPT_RUN_SUFFIX))) return false;
    const kept = withKeptRuns(files, await this.lab.lab.keptRunFiles());
    if (kept === files || this.lab.collectionId !== meta.id) return false;
    try {
      await this.#db().put(meta, kept);
      await this.#changed();
      return true;
    } catch (e) {
      this.error = `Could not store ${meta.name}'s runs compactly: ${errorMessage(e)}`;
      return false;
    }
  }

  /**
   * Open a stored collection by id (deep links). False when it is not on this machine. A collection stored
   * with its large run files (before they were kept compactly) is stored again with its kept runs.
   */
  async openStored(id: string): Promise<boolean> {
    const db = this.#db();
    const files = await db.get(id);
    if (!files) return false;
    const meta = this.stored.find((m) => m.id === id);
    if (!(await this.lab.openFiles(id, meta?.name ?? id.replace(/^[a-z]+:/, ''), files))) return true;
    await this.#used(id);
    const current = await db.meta(id);
    if (current) await this.#storeKeptRuns(current, files);
    return true;
  }

  async remove(id: string): Promise<void> {
    await this.#db().delete(id);
    await this.#changed();
  }
}
