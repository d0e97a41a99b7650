/**
 * Where collections come from: the BEIR catalog (downloaded once from the data host, with progress and
 * ETA, then kept in IndexedDB) and the user's own files (kept too, so a reload or a deep link reopens
 * them). Opening hands the files to the lab (parsed in its worker).
 */
import { BEIR_CATALOG, catalogEntry, catalogId } from '../../lab/data/catalog.ts';
import { CollectionStore, uploadId } from '../../lab/data/collection-store.ts';
import { fetchCatalogCollection } from '../../lab/data/fetch.ts';
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
  #store: CollectionStore | null = null;
  #download: AbortController | null = null;

  constructor(
    private readonly lab: Lab,
    private readonly dbName?: string,
  ) {}

  #db(): CollectionStore {
    this.#store ??= new CollectionStore(this.dbName);
    return this.#store;
  }

  async refresh(): Promise<void> {
    try {
      this.stored = await this.#db().list();
    } catch (e) {
      this.error = `Could not read stored collections: ${e instanceof Error ? e.message : String(e)}`;
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
        const detail = e instanceof Error ? e.message : String(e);
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
        this.error = `${display} opened but could not be stored for offline use: ${e instanceof Error ? e.message : String(e)}`;
      }
      await this.refresh();
    }
    await this.lab.openFiles(id, display, files);
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
    if (!opened) return; // the lab shows the error in place; nothing is stored
    try {
      await this.#db().put({ id, name, source: 'files' }, files);
      await this.refresh();
    } catch (e) {
      this.error = `${name} opened but could not be stored for the next visit: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  /** Open a stored collection by id (deep links). False when it is not on this machine. */
  async openStored(id: string): Promise<boolean> {
    const db = this.#db();
    const files = await db.get(id);
    if (!files) return false;
    const meta = this.stored.find((m) => m.id === id);
    await this.lab.openFiles(id, meta?.name ?? id.replace(/^[a-z]+:/, ''), files);
    return true;
  }

  async remove(id: string): Promise<void> {
    await this.#db().delete(id);
    await this.refresh();
  }
}
