/**
 * How many threads ONNX Runtime's WASM gets in the page's workers (encoders and readers), and why, in the words
 * the Settings panel shows. More than one needs a cross-origin-isolated page (SharedArrayBuffer): the app's
 * service worker makes it so on any static host after one reload (workers/sw.ts, src/app/isolation.ts), and
 * the reason says what stands in the way where it cannot. bench:encode times WASM at 1 thread and at this count.
 */

/**
 * At most 4 threads, ONNX Runtime Web's own cap on its default count: every thread is one more worker with its
 * own stack, competing with the lab worker and the page for the cores.
 */
export const MAX_WASM_THREADS = 4;

/**
 * Where the page stands: `isolated`; `pending` (the service worker is not in control yet: the page reloads once
 * when it is); `reload` (it took control of a page the user was already using: a reload isolates it);
 * `unsupported` (it serves the page, and the browser ignores its headers: COEP credentialless is unknown there);
 * `no-service-worker` (none here, or registration refused: an old browser, a private window).
 */
export type Isolation = 'isolated' | 'pending' | 'reload' | 'unsupported' | 'no-service-worker';

export interface WasmThreads {
  readonly threads: number;
  /** "2 threads: isolated", "1 thread: this host does not allow more, …". */
  readonly reason: string;
}

/** The threads for `cores` logical cores (navigator.hardwareConcurrency) on a page in state `isolation`. */
export function wasmThreads(cores: number, isolation: Isolation): WasmThreads {
  const possible = Math.max(1, Math.min(MAX_WASM_THREADS, Math.floor(cores) || 1));
  if (isolation === 'isolated') {
    if (possible === 1) return { threads: 1, reason: '1 thread: isolated, on a machine with one core' };
    const capped = cores > MAX_WASM_THREADS ? ` (at most ${MAX_WASM_THREADS}, of ${cores} cores)` : '';
    return { threads: possible, reason: `${possible} threads: isolated${capped}` };
  }
  if (possible === 1) return { threads: 1, reason: '1 thread: this machine has one core' };
  const host = '1 thread: this host does not allow more';
  const reasons: Record<Exclude<Isolation, 'isolated'>, string> = {
    pending: `${host} until the app's service worker takes over (the page then reloads once, for ${possible})`,
    reload: `${host} until the page is reloaded (then ${possible}: the app's service worker serves it now)`,
    unsupported: `${host}, and this browser ignores the headers the app's service worker adds (COEP credentialless)`,
    'no-service-worker': `${host}, and the app's service worker, which would, cannot run here (no service workers, or a private window)`,
  };
  return { threads: 1, reason: reasons[isolation] };
}
