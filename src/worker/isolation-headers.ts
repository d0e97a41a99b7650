/**
 * Cross-origin isolation on any static host: the app's service worker (workers/sw.ts) passes what it serves
 * through `withIsolationHeaders`, so the page and its workers are isolated (SharedArrayBuffer, hence WASM
 * threads) without the host sending a header, as coi-serviceworker does. COEP `credentialless`, not
 * `require-corp`: cross-origin files (the hub's models and datasets, fetched with CORS) need no
 * Cross-Origin-Resource-Policy header, and none is sent credentials.
 */

export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'credentialless',
};

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([204, 205, 304]);

/**
 * `response` with COOP and COEP added, when it answers a request for a same-origin URL (`origin`: the worker's own);
 * any other response comes back untouched: opaque and cross-origin ones (their headers are the other host's, and
 * an opaque body cannot be re-wrapped), errors and redirects. The body is passed on as a stream, not read.
 */
export function withIsolationHeaders(request: Request, response: Response, origin: string): Response {
  if (response.type !== 'basic' && response.type !== 'default') return response;
  if (response.status < 200 || response.status > 599) return response;
  // A navigation in the worker's scope is same-origin too.
  if (new URL(request.url).origin !== origin) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION_HEADERS)) headers.set(name, value);
  return new Response(NULL_BODY.has(response.status) ? null : response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
