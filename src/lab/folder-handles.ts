/**
 * Model folders remembered across visits, where the browser allows it: a File System Access directory handle
 * (from `showDirectoryPicker`) is kept in IndexedDB under the local model's name. After a reload the handle is
 * still there but reading it may need the user's permission again, which `requestPermission` asks for in one
 * click. Browsers without the API (and `<input webkitdirectory>` picks) keep nothing: the row asks for the
 * folder only when something really needs encoding.
 */
import type { DBSchema, IDBPDatabase } from 'idb';
import { openStore } from '../store/open-db.ts';
import type { PickedFile } from './local-model.ts';

/** The part of FileSystemDirectoryHandle used here (TypeScript's DOM lib lacks the permission methods). */
export interface DirectoryHandleLike {
  readonly kind: 'directory';
  readonly name: string;
  values(): AsyncIterable<DirectoryHandleLike | FileHandleLike>;
  queryPermission?(descriptor: { mode: 'read' }): Promise<PermissionState>;
  requestPermission?(descriptor: { mode: 'read' }): Promise<PermissionState>;
}

export interface FileHandleLike {
  readonly kind: 'file';
  readonly name: string;
  getFile(): Promise<File>;
}

/** Folders deeper than this are not model folders (transformers.js reads `<root>/` and `<root>/onnx/`). */
const MAX_FOLDER_NESTING = 3;

/**
 * The files under `handle` as a folder pick gives them (`webkitRelativePath` = "<folder>/<path>"); the
 * bytes are read only when used.
 */
export async function filesOfDirectory(handle: DirectoryHandleLike): Promise<PickedFile[]> {
  const out: PickedFile[] = [];
  const walk = async (dir: DirectoryHandleLike, path: string, depth: number): Promise<void> => {
    for await (const entry of dir.values()) {
      const relative = `${path}/${entry.name}`;
      if (entry.kind === 'file') {
        const file = await entry.getFile();
        out.push(Object.assign(file.slice(0, file.size, file.type), { name: file.name, webkitRelativePath: relative }));
      } else if (depth < MAX_FOLDER_NESTING) await walk(entry, relative, depth + 1);
    }
  };
  await walk(handle, handle.name, 1);
  return out;
}

/** Can the folder be read now? With `ask` (only from a click), the browser asks the user if it must. */
export async function folderReadable(handle: DirectoryHandleLike, ask: boolean): Promise<boolean> {
  const descriptor = { mode: 'read' } as const;
  const state = (await handle.queryPermission?.(descriptor)) ?? 'granted';
  if (state === 'granted') return true;
  if (!ask || state === 'denied' || handle.requestPermission === undefined) return false;
  return (await handle.requestPermission(descriptor)) === 'granted';
}

interface FoldersDB extends DBSchema {
  folders: { key: string; value: { name: string; handle: DirectoryHandleLike; savedAt: number } };
}

export const FOLDERS_DB = 'fliplab-folders';

/** The remembered handles, by local model name ("local/<folder>"). */
export class FolderHandles {
  private constructor(private readonly db: IDBPDatabase<FoldersDB>) {}

  static async open(name = FOLDERS_DB): Promise<FolderHandles> {
    return new FolderHandles(await openStore<FoldersDB>(name, 1, (db) => void db.createObjectStore('folders', { keyPath: 'name' })));
  }

  async put(name: string, handle: DirectoryHandleLike): Promise<void> {
    await this.db.put('folders', { name, handle, savedAt: Date.now() });
  }

  async get(name: string): Promise<DirectoryHandleLike | undefined> {
    return (await this.db.get('folders', name))?.handle;
  }

  async delete(name: string): Promise<void> {
    await this.db.delete('folders', name);
  }

  close(): void {
    this.db.close();
  }
}
