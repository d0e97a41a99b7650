/**
 * Remembered model folders, with stand-in handles (the e2e uses a real one): the files come out as a
 * folder pick gives them, and permission is asked only when allowed to (a click), never when denied.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import {
  filesOfDirectory,
  FolderHandles,
  folderReadable,
  type DirectoryHandleLike,
  type FileHandleLike,
} from '../../../src/lab/folder-handles.ts';

const file = (name: string, text: string): FileHandleLike => ({ kind: 'file', name, getFile: async () => new File([text], name) });
const dir = (
  name: string,
  entries: (DirectoryHandleLike | FileHandleLike)[],
  permission?: { state: PermissionState; after?: PermissionState },
) => {
  let state = permission?.state;
  const handle: DirectoryHandleLike & { asked: number } = {
    kind: 'directory',
    name,
    asked: 0,
    async *values() {
      yield* entries;
    },
    ...(permission
      ? {
          queryPermission: async () => state!,
          requestPermission: async () => {
            handle.asked++;
            state = permission.after ?? state;
            return state!;
          },
        }
      : {}),
  };
  return handle;
};

describe('remembered folders', () => {
  it('lists the files with folder-relative paths, onnx/ included, deeper folders not', async () => {
    const deep = dir('a', [dir('b', [dir('c', [file('x.bin', 'x')])])]);
    const model = dir('tiny-bert', [file('config.json', '{}'), dir('onnx', [file('model.onnx', 'weights')]), deep]);
    const files = await filesOfDirectory(model);
    expect(files.map((f) => f.webkitRelativePath).sort()).toEqual(['tiny-bert/config.json', 'tiny-bert/onnx/model.onnx']);
    expect(await files.find((f) => f.name === 'model.onnx')!.text()).toBe('weights');
  });

  it('asks for permission only when allowed to, and never again once denied', async () => {
    const prompt = dir('m', [], { state: 'prompt', after: 'granted' });
    expect(await folderReadable(prompt, false)).toBe(false);
    expect(prompt.asked).toBe(0);
    expect(await folderReadable(prompt, true)).toBe(true);
    expect(prompt.asked).toBe(1);
    const denied = dir('m', [], { state: 'denied' });
    expect(await folderReadable(denied, true)).toBe(false);
    expect(denied.asked).toBe(0);
    const refused = dir('m', [], { state: 'prompt', after: 'denied' });
    expect(await folderReadable(refused, true)).toBe(false);
    expect(await folderReadable(dir('m', []), false)).toBe(true); // no permission API: readable
  });

  it('keeps handles by model name in IndexedDB', async () => {
    const store = await FolderHandles.open('folders-test');
    // A stored handle is structured-cloned (a real one clones in browsers; this stand-in is plain data).
    await store.put('local/tiny-bert', { kind: 'directory', name: 'tiny-bert' } as unknown as DirectoryHandleLike);
    expect((await store.get('local/tiny-bert'))?.name).toBe('tiny-bert');
    await store.delete('local/tiny-bert');
    expect(await store.get('local/tiny-bert')).toBeUndefined();
    store.close();
  });
});
