/** Opening the lab's databases with other tabs around (fake-indexeddb here; the versionchange rules are IndexedDB's). */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { openStore, StorageBlockedError } from '../../../src/store/open-db.ts';

/** A connection as an older fliplab holds it: no versionchange handler, so it never lets go. */
function olderTab(name: string, version: number): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const r = indexedDB.open(name, version);
    r.onupgradeneeded = () => r.result.createObjectStore('s');
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

describe('openStore with other tabs', () => {
  it('an upgrade blocked by a tab that holds on says so at once, naming the storage', async () => {
    const name = `blocked-${Math.random()}`;
    const old = await olderTab(name, 1);
    try {
      const opening = openStore(name, 2, (db) => void db.createObjectStore('t'));
      await expect(opening).rejects.toBeInstanceOf(StorageBlockedError);
      await expect(opening).rejects.toThrow(new RegExp(`"${name.replace('.', '\\.')}" storage open with an older version`));
    } finally {
      old.close();
    }
  });

  it('a connection this lab opened lets go when another tab needs a newer version', async () => {
    const name = `yields-${Math.random()}`;
    let closed = 0;
    const first = await openStore(
      name,
      1,
      (db) => void db.createObjectStore('s'),
      () => closed++,
    );
    const second = await openStore(name, 2, (db) => void db.createObjectStore('t'));
    expect(closed).toBe(1);
    expect([...second.objectStoreNames].sort()).toEqual(['s', 't']);
    second.close();
    expect(first.name).toBe(name);
  });
});
