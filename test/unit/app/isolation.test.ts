import { describe, expect, it } from 'vitest';
import { RELOADED_KEY, watchIsolation, type IsolationEnv } from '../../../src/app/isolation.ts';
import type { Isolation } from '../../../src/lab/wasm-threads.ts';

/** A page's environment: a service worker container whose control the test hands over, storage, input, reloads. */
function fakePage(
  options: { isolated?: boolean; controlled?: boolean; serviceWorker?: boolean; cores?: number; storage?: 'ok' | 'throws' } = {},
) {
  const session = new Map<string, string>();
  const listeners: (() => void)[] = [];
  const inputs: (() => void)[] = [];
  const page = {
    reloads: 0,
    states: [] as Isolation[],
    session,
    takeControl: () => listeners.forEach((f) => f()),
    userClicks: () => inputs.forEach((f) => f()),
  };
  const env: IsolationEnv = {
    isolated: options.isolated ?? false,
    cores: options.cores ?? 2,
    serviceWorker:
      options.serviceWorker === false
        ? undefined
        : {
            controller: options.controlled ? ({} as ServiceWorker) : null,
            addEventListener: ((type: string, f: () => void) => {
              if (type === 'controllerchange') listeners.push(f);
            }) as ServiceWorkerContainer['addEventListener'],
          },
    session:
      options.storage === 'throws'
        ? {
            getItem: () => {
              throw new DOMException('blocked', 'SecurityError');
            },
            setItem: () => undefined,
          }
        : { getItem: (k) => session.get(k) ?? null, setItem: (k, v) => void session.set(k, v) },
    onFirstInput: (f) => void inputs.push(f),
    reload: () => void page.reloads++,
  };
  return { page, env };
}

describe('watchIsolation (the page reloads once when the service worker first takes control)', () => {
  it('a first visit on a header-less host: pending, then one reload when the worker takes control', () => {
    const { page, env } = fakePage();
    const watch = watchIsolation(env, (s) => page.states.push(s));
    expect(page.states).toEqual(['pending']);
    page.takeControl();
    expect(page.reloads).toBe(1);
    expect(page.session.get(RELOADED_KEY)).toBe('1');
    // Another control change before the page goes (an update), or a late registration error: nothing more.
    page.takeControl();
    watch.refused();
    expect(page.reloads).toBe(1);
    expect(page.states).toEqual(['pending', 'pending']);
  });

  it('never reloads a tab twice (a browser that ignores the headers would loop)', () => {
    const { page, env } = fakePage();
    page.session.set(RELOADED_KEY, '1');
    watchIsolation(env, (s) => page.states.push(s));
    page.takeControl();
    expect(page.reloads).toBe(0);
    expect(page.states).toEqual(['pending', 'reload']);
  });

  it('does not reload over the user’s work: once they have acted, a reload is offered instead', () => {
    const { page, env } = fakePage();
    watchIsolation(env, (s) => page.states.push(s));
    page.userClicks();
    page.takeControl();
    expect(page.reloads).toBe(0);
    expect(page.states).toEqual(['pending', 'reload']);
  });

  it('does not reload without a flag to keep (storage off), nor on one core (nothing to gain)', () => {
    for (const options of [{ storage: 'throws' as const }, { cores: 1 }]) {
      const { page, env } = fakePage(options);
      watchIsolation(env, (s) => page.states.push(s));
      page.takeControl();
      expect(page.reloads).toBe(0);
      expect(page.states).toEqual(['pending', 'reload']);
    }
  });

  it('reports an isolated page, a browser without service workers, a refused registration and ignored headers', () => {
    const cases: [Parameters<typeof fakePage>[0], Isolation][] = [
      [{ isolated: true, controlled: true }, 'isolated'],
      [{ serviceWorker: false }, 'no-service-worker'],
      // Served by the worker (which adds the headers) and still not isolated: this browser ignores them.
      [{ controlled: true }, 'unsupported'],
    ];
    for (const [options, state] of cases) {
      const { page, env } = fakePage(options);
      watchIsolation(env, (s) => page.states.push(s));
      page.takeControl();
      expect(page.states).toEqual([state]);
      expect(page.reloads).toBe(0);
    }
    const { page, env } = fakePage();
    watchIsolation(env, (s) => page.states.push(s)).refused();
    expect(page.states).toEqual(['pending', 'no-service-worker']);
  });
});
