/**
 * Turn what a user picks or drops (files, a folder, several folders) into `CollectionFile`s: relative path
 * + bytes (a large file: its Blob and first bytes, see lab/data/bytes.ts). Folders are walked with the File
 * System entries API that drag-and-drop offers; `<input webkitdirectory>` gives `webkitRelativePath`. Reading is
 * async (`Blob.arrayBuffer`): the page stays live.
 */
import type { CollectionFile } from '../../lab/data/types.ts';
import { collectionFile } from '../../lab/data/bytes.ts';

export async function readFileList(files: Iterable<File>): Promise<CollectionFile[]> {
  const out: CollectionFile[] = [];
  for (const file of files) {
    const path = (file as File & { webkitRelativePath?: string }).webkitRelativePath || file.name;
    out.push(await collectionFile(path, file));
  }
  return out;
}

/** A change handler for a one-file input: the file's bytes to `use`, and the input cleared for the next pick. */
export const onPickedFile =
  (use: (file: CollectionFile) => Promise<void>) =>
  async (e: Event & { currentTarget: HTMLInputElement }): Promise<void> => {
    const input = e.currentTarget;
    const [file] = await readFileList(Array.from(input.files ?? []).slice(0, 1));
    input.value = '';
    if (file) await use(file);
  };

interface EntryLike {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly fullPath: string;
  file?(ok: (f: File) => void, fail: (e: unknown) => void): void;
  createReader?(): { readEntries(ok: (entries: EntryLike[]) => void, fail: (e: unknown) => void): void };
}

async function walk(entry: EntryLike, out: CollectionFile[]): Promise<void> {
  if (entry.isFile && entry.file) {
    const file = await new Promise<File>((ok, fail) => entry.file!(ok, fail));
    out.push(await collectionFile(entry.fullPath.replace(/^\//, ''), file));
  } else if (entry.isDirectory && entry.createReader) {
    const reader = entry.createReader();
    // readEntries returns the children in chunks until it returns an empty list.
    for (;;) {
      const chunk = await new Promise<EntryLike[]>((ok, fail) => reader.readEntries(ok, fail));
      if (chunk.length === 0) break;
      for (const child of chunk) await walk(child, out);
    }
  }
}

/** Files and folders from a drop event. */
export async function readDataTransfer(data: DataTransfer): Promise<CollectionFile[]> {
  const entries: EntryLike[] = [];
  for (const item of data.items) {
    const entry = (item.webkitGetAsEntry?.() ?? null) as EntryLike | null;
    if (entry !== null) entries.push(entry);
  }
  if (entries.length === 0) return readFileList([...data.files]);
  const out: CollectionFile[] = [];
  for (const entry of entries) await walk(entry, out);
  return out;
}

/** The collection's name: the common top folder, else the first file's name without extension. */
export function collectionName(files: readonly CollectionFile[]): string {
  const tops = new Set(files.map((f) => (f.path.includes('/') ? f.path.split('/')[0]! : '')));
  const [top] = tops;
  if (tops.size === 1 && top) return top;
  const first = files[0]?.path.replace(/^.*\//, '') ?? 'collection';
  return first.replace(/\.(zip|gz|jsonl|json|tsv|txt|csv|trec|run)$/gi, '') || 'collection';
}
