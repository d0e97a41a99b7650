/**
 * The one way the lab opens an IndexedDB database. Two rules for several tabs:
 * - A tab holding a connection closes it when another tab needs a newer version (`blocking`), so an upgrade
 *   never waits on a tab that could let go.
 * - A tab whose upgrade is blocked all the same (another tab runs an older fliplab that holds the database
 *   open) is told so at once with a StorageBlockedError, instead of waiting without a word.
 */
import { openDB, type DBSchema, type IDBPDatabase, type OpenDBCallbacks } from 'idb';

export class StorageBlockedError extends Error {
  override readonly name = 'StorageBlockedError';
  constructor(readonly database: string) {
    super(
      `another tab holds this browser's "${database}" storage open with an older version of fliplab: reload or close ` +
        'that tab, then try again',
    );
  }
}

export async function openStore<S extends DBSchema | unknown>(
  name: string,
  version: number,
  upgrade: OpenDBCallbacks<S>['upgrade'],
  /** Called when this connection closed itself for another tab's upgrade (a cached handle must be dropped). */
  onClosed?: () => void,
): Promise<IDBPDatabase<S>> {
  let refuse: (e: Error) => void = () => undefined;
  let refused = false;
  const blocked = new Promise<never>((_, reject) => (refuse = reject));
  const opening = openDB<S>(name, version, {
    ...(upgrade === undefined ? {} : { upgrade }),
    blocked: () => {
      refused = true;
      refuse(new StorageBlockedError(name));
    },
    blocking: () => {
      void opening.then((db) => {
        db.close();
        onClosed?.();
      });
    },
  });
  // opened after all (the other tab let go) but no longer wanted: let it go again
  void opening.then(
    (db) => {
      if (refused) db.close();
    },
    () => undefined,
  );
  return Promise.race([opening, blocked]);
}
