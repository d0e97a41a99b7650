/**
 * How an encoder job's state shows in its retriever row: the device and adapter, the status from the job's
 * phase, the progress. Pure functions of what the encode worker reports.
 */
import type { EncodeProgress } from '../../encoders/job.ts';
import { adapterName, type AdapterFacts } from '../../encoders/adapter.ts';
import type { CorpusProgress, WorkerLoadResult } from '../bridge/encode-bridge.ts';
import type { JobProgress, RetrieverInfo } from '../types.ts';

/** The WebGPU adapter a load used, named for the row ({} when none, e.g. on WASM). */
export function adapterOf(load: { readonly adapterInfo: AdapterFacts | null } | null): Pick<RetrieverInfo, 'adapter'> {
  return load?.adapterInfo ? { adapter: adapterName(load.adapterInfo) } : {};
}

/** The device column's reason when no model was loaded: said only when every vector came from the cache. */
export const FROM_CACHE = "no model loaded: every vector came from this browser's cache";

/** The device column for a loaded model: where it runs, why that differs from the one asked for, the adapter. */
export function deviceOf(load: WorkerLoadResult, fallback?: string): Pick<RetrieverInfo, 'device' | 'deviceReason' | 'adapter'> {
  return { device: load.device, deviceReason: fallback ?? load.reason, ...adapterOf(load) };
}

/**
 * A row's status from its job's phase, as the job states it: looking in the cache (`checking` until a vector is
 * found there, then `restoring`), loading the model, encoding — and while encoding, the device that encodes.
 * A row held for a download confirmation stays there until the user answers (the plan and the progress
 * cross from the worker on different ports, so a progress report may arrive after the plan).
 */
export function progressState(p: CorpusProgress, now: RetrieverInfo['status'] | undefined): Partial<RetrieverInfo> {
  if (p.phase === 'encoding') {
    const device = p.load ? deviceOf(p.load, p.fallback) : { device: p.device === 'webgpu' ? ('webgpu' as const) : ('wasm' as const) };
    return { status: 'encoding', ...device };
  }
  if (now === 'confirm') return {};
  if (p.phase === 'loading-model') return { status: 'loading' };
  if (p.phase === 'elsewhere') return { status: 'elsewhere' };
  return { status: p.cached > 0 ? 'restoring' : 'checking' };
}

/** A job's progress as a row shows it. */
export function jobProgress(p: EncodeProgress, unit: 'documents' | 'queries'): JobProgress {
  return {
    done: p.done,
    total: p.total,
    cached: p.cached,
    etaMs: p.etaMs,
    unit,
    checked: p.checked,
    perSecond: p.perSecond,
    ...(p.oomRetries ? { oomRetries: p.oomRetries } : {}),
    ...(p.planBoundBy === undefined ? {} : { planBoundBy: p.planBoundBy }),
  };
}
