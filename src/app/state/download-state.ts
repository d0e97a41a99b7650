/**
 * A download plan (the encode worker's: files, sizes, cache state) as the retriever row shows it. Sizes the
 * host did not give come from the preset table (the hub's file pages), and say so.
 */
import type { DownloadPlan } from '../../encoders/encoder.ts';
import { KNOWN_WEIGHTS_BYTES } from '../../encoders/presets.ts';
import type { DownloadState } from '../../lab/types.ts';

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
