/**
 * The runtime under an encoder, named with its versions: the ONNX Runtime module transformers.js runs on
 * (onnxruntime-web in a browser, onnxruntime-node in Node: `env.versions`) and transformers.js itself. A kernel
 * fixed or broken between two versions changes vectors and nothing else of the recipe, so runs and packs say it.
 */
import { env } from '@huggingface/transformers';

export interface RuntimeVersions {
  readonly onnxRuntime: string;
  readonly transformers: string;
}

/** "onnxruntime-web 1.31.0" / "onnxruntime-node 1.30.0", and "transformers.js 4.3.2". */
export function runtimeVersions(): RuntimeVersions {
  const versions = (env.backends as unknown as { onnx?: { versions?: Record<string, string> } }).onnx?.versions ?? {};
  const onnxRuntime =
    versions.web !== undefined
      ? `onnxruntime-web ${versions.web}`
      : versions.node !== undefined
        ? `onnxruntime-node ${versions.node}`
        : versions.common === undefined
          ? 'onnxruntime (version unknown)'
          : `onnxruntime ${versions.common}`;
  return { onnxRuntime, transformers: `transformers.js ${env.version}` };
}

/** True on onnxruntime-node, which picks its own threads (no wasm thread count applies). */
export function onNodeRuntime(): boolean {
  return (env.backends as unknown as { onnx?: { versions?: { node?: string } } }).onnx?.versions?.node !== undefined;
}

/**
 * One line of what made vectors, as the cache records it and a pack's `device` says: "cpu · fp32 ·
 * onnxruntime-node 1.30.0 · transformers.js 4.3.2".
 */
export function describeRun(run: {
  readonly device: string;
  readonly dtype: string;
  readonly threads?: number | null;
  readonly runtime?: RuntimeVersions;
}): string {
  const { onnxRuntime, transformers } = run.runtime ?? runtimeVersions();
  const threads = run.threads == null ? [] : [`${run.threads} ${run.threads === 1 ? 'thread' : 'threads'}`];
  return [run.device, run.dtype, ...threads, onnxRuntime, transformers].join(' · ');
}
