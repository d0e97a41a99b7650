/**
 * Model folders picked from the disk: read, fingerprinted and registered with the encode worker (which serves
 * their files to transformers.js itself), and — where the browser has the File System Access API — their
 * handles kept in IndexedDB, so a later visit reads the folder again instead of asking for it.
 */
import type { EncoderDtype } from '../../encoders/presets.ts';
import { filesOfDirectory, FolderHandles, type DirectoryHandleLike } from '../../lab/folder-handles.ts';
import { prepareLocalModel, type LocalModel, type PickedFile } from '../../lab/local-model.ts';
import type { EncodeBridge } from '../bridge/encode-bridge.ts';
import { rememberLocalRevision } from './local-revisions.ts';

export class ModelFolders {
  readonly #bridge: Pick<EncodeBridge, 'registerLocalModel'>;

  constructor(bridge: Pick<EncodeBridge, 'registerLocalModel'>) {
    this.#bridge = bridge;
  }

  /** Register picked files as a model (its name and fingerprint), remembering the fingerprint for reloads. */
  async register(files: ArrayLike<PickedFile>, dtype: EncoderDtype): Promise<LocalModel> {
    const local = await prepareLocalModel(files, dtype);
    rememberLocalRevision(local.name, local.revision);
    await this.#bridge.registerLocalModel(local.name, local.files);
    return local;
  }

  /** Register a folder from its handle: its files may have changed since (then so did its fingerprint). */
  async registerHandle(handle: DirectoryHandleLike, dtype: EncoderDtype): Promise<LocalModel> {
    return this.register(await filesOfDirectory(handle), dtype);
  }

  /** The handle kept for `model`, if this browser kept one. */
  async handleOf(model: string): Promise<DirectoryHandleLike | undefined> {
    try {
      const folders = await FolderHandles.open();
      try {
        return await folders.get(model);
      } finally {
        folders.close();
      }
    } catch {
      return undefined; // no IndexedDB (private mode): nothing was remembered
    }
  }

  async remember(model: string, handle: DirectoryHandleLike): Promise<void> {
    try {
      const folders = await FolderHandles.open();
      try {
        await folders.put(model, handle);
      } finally {
        folders.close();
      }
    } catch {
      // Not kept (storage refused): the folder is asked for again when something must be encoded.
    }
  }
}
