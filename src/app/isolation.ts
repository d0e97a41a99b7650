/**
 * The page's side of cross-origin isolation on a host that sends no COOP/COEP headers: the app's service worker
 * adds them (workers/sw.ts), but only to what it serves, so the first visit's page (served by the host) is not
 * isolated. When the worker first takes control of it, the page reloads once, automatically, and the reload is
 * isolated. Never twice in a tab (a sessionStorage flag: a browser that ignores the headers would loop), and
 * never over the user's work: once they have clicked, typed or dropped something, the page says a reload would
 * give more threads instead (src/lab/wasm-threads.ts words each state).
 */
import type { Isolation } from '../lab/wasm-threads.ts';

/** sessionStorage key: this tab has had its one chance to reload for isolation (taken or passed up). */
export const RELOADED_KEY = 'fliplab.isolation-reloaded';

/** What the watch reads and does: the browser's, or a test's stand-in. */
export interface IsolationEnv {
  /** `crossOriginIsolated`. */
  readonly isolated: boolean;
  /** navigator.hardwareConcurrency. */
  readonly cores: number;
  /** navigator.serviceWorker (undefined without one: an old browser, a private window that hides it). */
  readonly serviceWorker: Pick<ServiceWorkerContainer, 'controller' | 'addEventListener'> | undefined;
  /** sessionStorage (undefined, or throwing, where storage is off). */
  readonly session: Pick<Storage, 'getItem' | 'setItem'> | undefined;
  /** Calls `f` once, at the user's first click, key, input or drop on the page. */
  onFirstInput(f: () => void): void;
  reload(): void;
}

/** The page's state at load: a page the worker already serves and is still not isolated has a browser that ignores it. */
export function isolationAtLoad(env: Pick<IsolationEnv, 'isolated' | 'serviceWorker'>): Isolation {
  if (env.isolated) return 'isolated';
  if (env.serviceWorker === undefined) return 'no-service-worker';
  return env.serviceWorker.controller !== null ? 'unsupported' : 'pending';
}

/**
 * When the worker takes control of a page loaded without it: reload (the state stays `pending` until the page
 * goes), unless the tab reloaded for this before, the user is at work, the flag cannot be kept, or one core
 * gains nothing.
 */
export function onControl(s: {
  readonly reloadedBefore: boolean;
  readonly userActed: boolean;
  readonly canRemember: boolean;
  readonly cores: number;
}): {
  readonly isolation: Isolation;
  readonly reload: boolean;
} {
  const reload = !s.reloadedBefore && !s.userActed && s.canRemember && s.cores > 1;
  return { isolation: reload ? 'pending' : 'reload', reload };
}

/**
 * Watch the page's isolation from load: `report` gets its state now and at each change. Returns `refused`, for the
 * service worker's registration failing (then there is nothing to wait for).
 */
export function watchIsolation(env: IsolationEnv, report: (isolation: Isolation) => void): { refused(): void } {
  let state = isolationAtLoad(env);
  const set = (next: Isolation) => {
    state = next;
    report(next);
  };
  set(state);
  if (state !== 'pending') return { refused: () => undefined };
  let userActed = false;
  let controlled = false;
  env.onFirstInput(() => (userActed = true));
  env.serviceWorker?.addEventListener('controllerchange', () => {
    // Only the first: a later one is an update taking over, or comes while the page reloads.
    if (controlled || state !== 'pending') return;
    controlled = true;
    let reloadedBefore = true;
    let canRemember = false;
    try {
      reloadedBefore = env.session?.getItem(RELOADED_KEY) === '1';
      env.session?.setItem(RELOADED_KEY, '1');
      canRemember = env.session?.getItem(RELOADED_KEY) === '1';
    } catch {
      // Storage off: no flag, hence no reload (nothing would stop a second one).
    }
    const next = onControl({ reloadedBefore, userActed, canRemember, cores: env.cores });
    set(next.isolation);
    if (next.reload) env.reload();
  });
  return { refused: () => void (!controlled && set('no-service-worker')) };
}

/** The browser's environment for `watchIsolation`. */
export function browserIsolationEnv(): IsolationEnv {
  let session: Storage | undefined;
  try {
    session = globalThis.sessionStorage;
  } catch {
    session = undefined; // reading sessionStorage throws where storage is blocked
  }
  return {
    isolated: globalThis.crossOriginIsolated === true,
    cores: navigator.hardwareConcurrency || 1,
    serviceWorker: 'serviceWorker' in navigator ? navigator.serviceWorker : undefined,
    session,
    onFirstInput(f) {
      const events = ['pointerdown', 'keydown', 'input', 'drop'] as const;
      const once = () => {
        for (const e of events) removeEventListener(e, once, true);
        f();
      };
      for (const e of events) addEventListener(e, once, { capture: true, passive: true });
    },
    reload: () => location.reload(),
  };
}
