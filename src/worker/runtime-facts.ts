/**
 * What ran a model, as every run's recipe and every vector pack records it: the device and its adapter, the
 * dtype, the wasm thread count, and the versions of ONNX Runtime and transformers.js (a kernel fixed or broken
 * between two versions changes vectors without changing anything else of the recipe).
 */
import { env } from '@huggingface/transformers';
import { adapterName } from '../encoders/adapter.ts';
import type { EncoderDtype } from '../encoders/presets.ts';
import type { AdapterInfo, RuntimeFacts, WorkerDevice } from '../lab/encode-types.ts';
import { ortEnv } from './onnx-runtime.ts';

/** The ONNX Runtime module transformers.js runs on, with its version (onnxruntime-web's or -node's `env.versions`). */
function onnxRuntimeName(): string {
  const versions = (env.backends as unknown as { onnx?: { versions?: Record<string, string> } }).onnx?.versions ?? {};
  if (versions.web !== undefined) return `onnxruntime-web ${versions.web}`;
  if (versions.node !== undefined) return `onnxruntime-node ${versions.node}`;
  return versions.common === undefined ? 'onnxruntime (version unknown)' : `onnxruntime ${versions.common}`;
}

/**
 * The wasm threads ONNX Runtime Web runs with: its setting, or 1 where the page is not cross-origin isolated
 * (it cannot start more there). Null in Node, where onnxruntime-node picks its own.
 */
function threadsInUse(): number | null {
  const wasm = ortEnv().wasm;
  if (wasm === undefined || (env.backends as unknown as { onnx?: { versions?: { node?: string } } }).onnx?.versions?.node !== undefined)
    return null;
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  return isolated ? Math.max(1, wasm.numThreads ?? 1) : 1;
}

/** This worker's runtime now. */
export function runtimeFacts(): RuntimeFacts {
  return { onnxRuntime: onnxRuntimeName(), transformers: `transformers.js ${env.version}`, threads: threadsInUse() };
}

/**
 * One line for the cache's record of who made a run's vectors (and so a pack's `device`): "webgpu (google
 * swiftshader) · fp16 · 1 thread · onnxruntime-web 1.31.0 · transformers.js 4.3.2".
 */
export function describeRuntime(run: {
  readonly device: WorkerDevice;
  readonly adapterInfo: AdapterInfo | null;
  readonly dtype: EncoderDtype;
  readonly runtime?: RuntimeFacts;
}): string {
  const facts = run.runtime ?? runtimeFacts();
  const device = run.adapterInfo ? `${run.device} (${adapterName(run.adapterInfo)})` : run.device;
  const threads = facts.threads === null ? [] : [`${facts.threads} ${facts.threads === 1 ? 'thread' : 'threads'}`];
  return [device, run.dtype, ...threads, facts.onnxRuntime, facts.transformers].join(' · ');
}
