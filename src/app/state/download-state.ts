/**
 * A model download as the retriever row shows it: the encode worker's plan (files, sizes, cache state), then
 * the bytes arriving. Sizes the host did not give come from the preset table (the hub's file pages), and say so.
 */
import { etaMs } from '../../core/progress.ts';
import type { DownloadPlan } from '../../encoders/encoder.ts';
import { KNOWN_WEIGHTS_BYTES } from '../../encoders/presets.ts';
import type { DownloadState } from '../../lab/types.ts';
import type { ModelEvent } from '../bridge/encode-bridge.ts';
import type { RetrieverInfo } from '../types.ts';

export function downloadState(plan: DownloadPlan): DownloadState {
  let fromTable = false;
  const files = plan.files
    .filter((f) => f.exists)
    .map((f) => {
      let bytes = f.bytes;
      if (bytes === null && f.path.endsWith('.onnx')) {
        bytes = KNOWN_WEIGHTS_BYTES[plan.model]?.[plan.dtype] ?? null;
        fromTable ||= bytes !== null;
      }
      return { path: f.path, bytes, cached: f.cached, loaded: f.cached ? (bytes ?? 0) : 0 };
    });
  const sum = (list: typeof files) => list.reduce((s, f) => s + (f.bytes ?? 0), 0);
  return {
    files,
    downloadBytes: sum(files.filter((f) => !f.cached)),
    cachedBytes: sum(files.filter((f) => f.cached)),
    loaded: 0,
    etaMs: null,
    sizesFrom: fromTable ? 'preset table' : 'host',
  };
}

/**
 * A row's view of a model load, as a handler of the worker's model events: the files and sizes before any
 * weights move (held for `confirm()` above `confirmAboveBytes`, or when a size is unknown), then bytes per
 * file with an ETA. `live()` false: the row belongs to a newer job, and nothing is patched.
 */
export function followModelLoad(options: {
  readonly confirmAboveBytes: () => number;
  readonly patch: (p: Partial<RetrieverInfo>) => void;
  readonly live: () => boolean;
  /** Resolves when the user agrees (a Cancel ends the worker, and the load with it). */
  readonly confirm: () => Promise<void>;
}): (e: ModelEvent) => Promise<void> {
  const { patch, live } = options;
  let download: DownloadState | null = null;
  let started = 0;
  return async (e) => {
    if (!live()) return;
    if (e.kind === 'plan') {
      download = { ...downloadState(e.plan), ...(e.purpose ? { purpose: e.purpose } : {}) };
      patch({ download });
      // An unknown size is asked about too: it may be anything.
      const unknownSize = download.files.some((f) => !f.cached && f.bytes === null);
      if (download.downloadBytes > options.confirmAboveBytes() || unknownSize) {
        patch({ status: 'confirm' });
        await options.confirm();
        if (live()) patch({ status: 'loading' });
      }
      started = performance.now();
      return;
    }
    if (download === null) return;
    const files = download.files.map((f) => (f.path === e.file || e.file.endsWith(`/${f.path}`) ? { ...f, loaded: e.loaded } : f));
    const loaded = files.filter((f) => !f.cached).reduce((sum, f) => sum + f.loaded, 0);
    download = { ...download, files, loaded, etaMs: etaMs(loaded, download.downloadBytes, performance.now() - started) };
    patch({ download });
  };
}
