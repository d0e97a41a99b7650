/**
 * The page's cross-origin isolation and the WASM threads it allows encoders and readers, as state: main.ts keeps
 * `isolation` current (src/app/isolation.ts), the Lab and the reader take `wasm.threads` when they start their
 * workers (fixed for the page's life: a document is isolated or not from its response), Settings shows `wasm.reason`.
 */
import { wasmThreads, type Isolation } from '../../lab/wasm-threads.ts';

class PageIsolation {
  isolation: Isolation = $state(globalThis.crossOriginIsolated === true ? 'isolated' : 'pending');
  readonly cores = globalThis.navigator?.hardwareConcurrency || 1;
  wasm = $derived(wasmThreads(this.cores, this.isolation));
}

export const pageIsolation = new PageIsolation();
