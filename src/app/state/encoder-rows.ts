/**
 * How an encoder job's state shows in its retriever row: the device and adapter, the status from the job's
 * phase, the progress. Pure functions of what the encode worker reports.
 */
import type { EncodeProgress } from '../../encoders/job.ts';
import { adapterName, type AdapterFacts } from '../../encoders/adapter.ts';
import { describeAgreement } from '../../encoders/agreement.ts';
import type { EncoderDtype } from '../../encoders/presets.ts';
import type { Failure, Problem } from '../../lab/problems.ts';
import type { EncoderRun } from '../../report/recipe.ts';
import type { CorpusProgress, WorkerLoadResult } from '../bridge/encode-bridge.ts';
import type { JobProgress, RetrieverInfo } from '../types.ts';

/** The WebGPU adapter a load used, named for the row ({} when none, e.g. on WASM). */
export function adapterOf(load: { readonly adapterInfo: AdapterFacts | null } | null): Pick<RetrieverInfo, 'adapter'> {
  return load?.adapterInfo ? { adapter: adapterName(load.adapterInfo) } : {};
}

/** The device column's reason when no model was loaded: said only when every vector came from the cache. */
export const FROM_CACHE = "no model loaded: every vector came from this browser's cache";

/** The path's check against the reference (WASM fp32), in words: its numbers, or why it was not checked; {} when none ran. */
export function agreementOf(load: WorkerLoadResult): Pick<RetrieverInfo, 'agreement'> {
  if (load.agreement) return { agreement: `passed: ${describeAgreement(load.agreement)}` };
  if (load.agreementUnchecked) return { agreement: `not checked: ${load.agreementUnchecked}` };
  return {};
}

/**
 * The device column for a loaded model: where it runs, why that differs from the one asked for, the adapter; and
 * what the recipe records of the run (the runtime, the agreement check).
 */
export function deviceOf(
  load: WorkerLoadResult,
  fallback?: string,
): Pick<RetrieverInfo, 'device' | 'deviceReason' | 'adapter' | 'runtime' | 'agreement'> {
  return {
    device: load.device,
    deviceReason: fallback ?? load.reason,
    ...adapterOf(load),
    ...(load.runtime ? { runtime: load.runtime } : {}),
    ...agreementOf(load),
  };
}

/**
 * The path a row offers after its job failed: the reference (WASM, fp32) after a disagreement or a NaN on any
 * other path; WASM after WebGPU failed mid-job or did not load the model (a network problem aside). Null: none.
 */
export function pathAfter(
  failure: Failure | null,
  problem: Problem | null,
  device: 'wasm' | 'webgpu',
  dtype: EncoderDtype,
): 'wasm' | 'reference' | null {
  if (failure === 'disagreement' || failure === 'non-finite') return device === 'wasm' && dtype === 'fp32' ? null : 'reference';
  if (device === 'webgpu' && (failure === 'device-lost' || (failure === 'model-load' && problem === null))) return 'wasm';
  return null;
}

/** What an encoder row's recipe records of its run (report/recipe.ts `encoderRecipe`). */
export function encoderRunOf(row: RetrieverInfo): EncoderRun {
  return {
    ...(row.device ? { device: row.device } : {}),
    ...(row.adapter ? { adapter: row.adapter } : {}),
    ...(row.runtime ? { runtime: row.runtime } : {}),
    ...(row.agreement ? { agreement: row.agreement } : {}),
    ...(row.partial ? { encodedDocs: row.partial.encodedDocs, totalDocs: row.partial.totalDocs } : {}),
  };
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
  if (p.phase === 'agreement') return { status: 'agreement' };
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
