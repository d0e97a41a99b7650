/**
 * Open an IndexedDB store for one piece of work and close it after, whatever happens: a connection held open
 * would block a later schema upgrade (another tab's, or the next version's).
 */
export async function withStore<S extends { close(): void }, T>(open: () => Promise<S>, use: (store: S) => Promise<T>): Promise<T> {
  const store = await open();
  try {
    return await use(store);
  } finally {
    store.close();
  }
}
