/**
 * Model layers imported from a file (UMBRELA's output, another tool's qrels), kept per collection in IndexedDB so
 * a reload or a second visit brings them back as they were: the labels as read, the file's name, and the audit
 * against people's pairs. Layers the lab's own judge makes need no copy here: their verdicts are cached
 * (verdicts.ts) and replayed.
 */
import type { DBSchema, IDBPDatabase } from 'idb';
import type { JudgeAudit } from '../core/judging/audit.ts';
import type { ModelLabel } from '../core/judging/label.ts';
import { openStore } from './open-db.ts';

export const MODEL_LAYERS_DB_NAME = 'fliplab-model-layers';
const DB_VERSION = 1;

export interface StoredModelLayer {
  readonly collection: string;
  readonly name: string;
  readonly labels: readonly ModelLabel[];
  readonly audit: JudgeAudit | null;
  readonly unknownQueries: number;
  readonly unknownPassages: number;
  readonly importedAt: string;
}

interface LayersDB extends DBSchema {
  layers: { key: string; value: StoredModelLayer };
}

export class ModelLayerStore {
  private constructor(private readonly db: IDBPDatabase<LayersDB>) {}

  static async open(name: string = MODEL_LAYERS_DB_NAME): Promise<ModelLayerStore> {
    return new ModelLayerStore(
      await openStore<LayersDB>(name, DB_VERSION, (d) => d.createObjectStore('layers', { keyPath: 'collection' })),
    );
  }

  get(collection: string): Promise<StoredModelLayer | undefined> {
    return this.db.get('layers', collection);
  }

  async put(layer: StoredModelLayer): Promise<void> {
    await this.db.put('layers', layer);
  }

  async delete(collection: string): Promise<void> {
    await this.db.delete('layers', collection);
  }

  /** Layers kept, and their labels in all. */
  async summary(): Promise<{ layers: number; labels: number }> {
    const all = await this.db.getAll('layers');
    return { layers: all.length, labels: all.reduce((n, l) => n + l.labels.length, 0) };
  }

  async clear(): Promise<void> {
    await this.db.clear('layers');
  }

  close(): void {
    this.db.close();
  }
}
