/**
 * What ran a model in this worker, as every run's recipe and every vector pack records it: the device and its
 * adapter, the dtype, the wasm thread count, and the versions of ONNX Runtime and transformers.js
 * (encoders/runtime.ts).
 */
import { adapterName } from '../encoders/adapter.ts';
import type { EncoderDtype } from '../encoders/presets.ts';
import { describeRun, onNodeRuntime, runtimeVersions } from '../encoders/runtime.ts';
import type { AdapterInfo, RuntimeFacts, WorkerDevice } from '../lab/encode-types.ts';
import { ortEnv } from './onnx-runtime.ts';

/**
 * The wasm threads ONNX Runtime Web runs with: its setting, or 1 where the page is not cross-origin isolated
 * (it cannot start more there). Null in Node, where onnxruntime-node picks its own.
 */
function threadsInUse(): number | null {
  const wasm = ortEnv().wasm;
  if (wasm === undefined || onNodeRuntime()) return null;
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  return isolated ? Math.max(1, wasm.numThreads ?? 1) : 1;
}

/** This worker's runtime now. */
export function runtimeFacts(): RuntimeFacts {
  return { ...runtimeVersions(), threads: threadsInUse() };
}

/**
 * One line for the cache's record of who made a run's vectors (and so a pack's `device`): "webgpu (nvidia
 * ampere) · fp16 · 1 thread · onnxruntime-web 1.31.0 · transformers.js 4.3.2".
 */
export function describeRuntime(run: {
  readonly device: WorkerDevice;
  readonly adapterInfo: AdapterInfo | null;
  readonly dtype: EncoderDtype;
  readonly runtime?: RuntimeFacts;
}): string {
  const facts = run.runtime ?? runtimeFacts();
  const device = run.adapterInfo ? `${run.device} (${adapterName(run.adapterInfo)})` : run.device;
  return describeRun({ device, dtype: run.dtype, threads: facts.threads, runtime: facts });
}
