/**
 * Network policy inside a worker. A page's Content-Security-Policy `<meta>` does not reach its workers, so
 * each worker wraps its own `fetch`: requests to an origin the user did not choose are refused before they
 * leave (the lab's privacy promise: nothing a user loads goes anywhere but the model/data hosts they set).
 */
export class BlockedRequestError extends Error {
  override readonly name = 'BlockedRequestError';
}

/** The unguarded fetch of each scope, so calling guardNetwork again replaces the policy instead of stacking. */
const originals = new WeakMap<object, typeof fetch>();

/** Allow only `origins` (plus this worker's own) for every later fetch in this global scope. */
export function guardNetwork(
  origins: readonly string[],
  scope: { fetch: typeof fetch; location?: { href: string } } = globalThis as never,
): void {
  const own = scope.location ? new URL(scope.location.href).origin : null;
  const allowed = new Set(origins.map((o) => new URL(o).origin));
  if (own) allowed.add(own);
  const original = originals.get(scope) ?? scope.fetch.bind(scope);
  originals.set(scope, original);
  scope.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const url = new URL(href, scope.location?.href);
    if (url.protocol !== 'blob:' && url.protocol !== 'data:' && !allowed.has(url.origin)) {
      return Promise.reject(
        new BlockedRequestError(`blocked a request to ${url.origin}: not one of the hosts chosen in Settings (${[...allowed].join(', ')})`),
      );
    }
    return original(input, init);
  }) as typeof fetch;
}
