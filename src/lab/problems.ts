/**
 * Network failures in plain language. A download or a model load can fail for four different reasons, and
 * each needs a different move from the user; "GET https://… failed: Failed to fetch" says none of them:
 *
 * - offline       the browser has no network:                  connect, or use your own files
 * - unreachable   online, but the host did not answer:          check the host in Settings, retry
 * - not-found     the host answered 404 for a required file:    check the name / id / revision, or the host
 * - blocked       the page's policy forbids that host:          add it in Settings (the page reloads)
 * - http          any other HTTP failure (401, 403, 5xx):       retry later, or use a mirror
 *
 * Errors carry their kind in a `problem` field, which survives the worker boundary (src/lab/errors.ts).
 */
export type Problem = 'offline' | 'unreachable' | 'not-found' | 'blocked' | 'http';

const PROBLEMS: readonly Problem[] = ['offline', 'unreachable', 'not-found', 'blocked', 'http'];

/** Messages browsers and runtimes give a fetch that never got an answer. */
const NO_ANSWER =
  /failed to fetch|networkerror|network error|load failed|fetch failed|err_internet_disconnected|err_name_not_resolved|econnrefused/i;

/** The kind of a failed request: from the error's own `problem` field, else from its name and message. */
export function problemOf(e: unknown, online = globalThis.navigator?.onLine ?? true): Problem | null {
  if (typeof e !== 'object' || e === null) return null;
  const field = (e as { problem?: unknown }).problem;
  if (typeof field === 'string' && (PROBLEMS as readonly string[]).includes(field)) return field as Problem;
  const name = (e as { name?: unknown }).name;
  const message = String((e as { message?: unknown }).message ?? '');
  const status = (e as { status?: unknown }).status;
  if (name === 'BlockedRequestError' || /content security policy/i.test(message)) return 'blocked';
  if (status === 404 || /\bHTTP 404\b/.test(message)) return 'not-found';
  if (typeof status === 'number' || /\bHTTP [45]\d\d\b/.test(message)) return 'http';
  if (name === 'TypeError' || NO_ANSWER.test(message)) return online ? 'unreachable' : 'offline';
  const cause = (e as { cause?: unknown }).cause;
  return cause === undefined || cause === e ? null : problemOf(cause, online);
}

/**
 * What failed, as a code the page acts on (kept across workers like `problem`), so the page never re-reads a
 * message composed in a worker:
 * - folder-not-registered  a picked model folder the encode worker does not hold (a reload forgot it)
 * - model-load             the model did not load (any cause: its message says which)
 * - disagreement           the path disagrees with the reference, WASM fp32, on a sample (encoders/agreement.ts)
 * - non-finite             a batch gave a vector with NaN or ∞ (the job stopped before storing it)
 * - device-lost            WebGPU failed mid-job (lost, out of memory, reset): nothing was moved to another device
 */
export type Failure = 'folder-not-registered' | 'model-load' | 'disagreement' | 'non-finite' | 'device-lost';

const FAILURES: readonly Failure[] = ['folder-not-registered', 'model-load', 'disagreement', 'non-finite', 'device-lost'];

/** Mark an error with what failed (kept across workers). */
export function withFailure<E extends Error>(error: E, failure: Failure): E {
  return Object.assign(error, { failure });
}

/** What failed, from an error's `failure` field; null for any other error. */
export function failureOf(e: unknown): Failure | null {
  const field = typeof e === 'object' && e !== null ? (e as { failure?: unknown }).failure : undefined;
  return typeof field === 'string' && (FAILURES as readonly string[]).includes(field) ? (field as Failure) : null;
}

/** Mark an error with its kind (kept across workers). */
export function withProblem<E extends Error>(error: E, problem: Problem | null): E {
  if (problem !== null) Object.assign(error, { problem });
  return error;
}

/** One sentence on what happened, for a host and the thing being fetched. */
export function problemSummary(problem: Problem, what: string, host: string): string {
  switch (problem) {
    case 'offline':
      return `This browser is offline, so ${what} could not be downloaded from ${host}.`;
    case 'unreachable':
      return `${host} did not answer, so ${what} could not be downloaded.`;
    case 'not-found':
      return `${what} is not on ${host} (the host answered "not found").`;
    case 'blocked':
      return `${host} is not one of the hosts this page may contact, so ${what} was not requested.`;
    case 'http':
      return `${host} refused or failed the request for ${what}.`;
  }
}

/** What to do about it. */
export function problemAdvice(problem: Problem, ownFiles: string): string {
  switch (problem) {
    case 'offline':
      return `Connect and retry, or ${ownFiles}.`;
    case 'unreachable':
      return `Check the host in Settings (a mirror may be down or mistyped) and retry, or ${ownFiles}.`;
    case 'not-found':
      return `Check the name (and revision), or the host in Settings; or ${ownFiles}.`;
    case 'blocked':
      return `Add the host in Settings (the page reloads with the new policy), or ${ownFiles}.`;
    case 'http':
      return `Retry later, or use a mirror (Settings); or ${ownFiles}.`;
  }
}
