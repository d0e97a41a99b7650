import { describe, expect, it } from 'vitest';
import { MAX_WASM_THREADS, wasmThreads, type Isolation } from '../../../src/lab/wasm-threads.ts';

describe('wasmThreads', () => {
  it('an isolated page gets one thread per core, up to the cap, and says so', () => {
    expect(wasmThreads(2, 'isolated')).toEqual({ threads: 2, reason: '2 threads: isolated' });
    expect(wasmThreads(4, 'isolated')).toEqual({ threads: 4, reason: '4 threads: isolated' });
    expect(wasmThreads(16, 'isolated')).toEqual({ threads: MAX_WASM_THREADS, reason: '4 threads: isolated (at most 4, of 16 cores)' });
    expect(wasmThreads(1, 'isolated')).toEqual({ threads: 1, reason: '1 thread: isolated, on a machine with one core' });
  });

  it('a page that is not isolated gets one thread, with what stands in the way', () => {
    const reasons = (['pending', 'reload', 'unsupported', 'no-service-worker'] as const).map((i) => wasmThreads(8, i));
    for (const r of reasons) expect(r.threads).toBe(1);
    expect(reasons.map((r) => r.reason)).toEqual([
      "1 thread: this host does not allow more until the app's service worker takes over (the page then reloads once, for 4)",
      "1 thread: this host does not allow more until the page is reloaded (then 4: the app's service worker serves it now)",
      "1 thread: this host does not allow more, and this browser ignores the headers the app's service worker adds (COEP credentialless)",
      "1 thread: this host does not allow more, and the app's service worker, which would, cannot run here (no service workers, or a private window)",
    ]);
  });

  it('one core is one thread whatever the isolation; an unknown core count counts as one', () => {
    for (const i of ['pending', 'reload', 'unsupported', 'no-service-worker'] satisfies Isolation[])
      expect(wasmThreads(1, i)).toEqual({ threads: 1, reason: '1 thread: this machine has one core' });
    expect(wasmThreads(0, 'isolated').threads).toBe(1);
    expect(wasmThreads(Number.NaN, 'pending').threads).toBe(1);
  });
});
