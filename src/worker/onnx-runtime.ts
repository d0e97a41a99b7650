/**
 * The encode worker's runtime: transformers.js's settings and ONNX Runtime's env (wasm files served from the
 * app's own origin, threads, the network guard), and the device a load gets — WebGPU only when an adapter is
 * actually granted and fits the weights, else WASM with the reason. Settings are process-global (one
 * transformers.js env per worker or Node process).
 */
import { env } from '@huggingface/transformers';
import { adapterName, isSoftwareAdapter } from '../encoders/adapter.ts';
import { WEBGPU_DEFAULT_LIMITS, type DeviceLimits } from '../encoders/device-plan.ts';
import type { AdapterInfo, WorkerDevice, WorkerInitOptions, WorkerLoadOptions } from '../lab/encode-types.ts';
import { LOCAL_MODEL_ROOT } from '../lab/local-model.ts';
import { guardNetwork } from './network-guard.ts';

/** ONNX Runtime's wasm binary and its JS glue, as URLs (Vite emits them from onnxruntime-web; see the worker). */
export interface OrtWasmPaths {
  readonly wasm: string;
  readonly mjs: string;
}

/** The worker script's address (relative URLs resolve against it); a file URL where there is none (Node). */
export function hereUrl(): string {
  return typeof location === 'undefined' ? 'file:///' : location.href;
}

interface OrtWebEnv {
  wasm?: { wasmPaths?: unknown; numThreads?: number; proxy?: boolean };
  webgpu?: { adapter?: unknown; device?: unknown };
}
/** transformers.js exposes ONNX Runtime's own env objects here (a shallow copy: nested objects are shared). */
export const ortEnv = (): OrtWebEnv => (env.backends as unknown as { onnx: OrtWebEnv }).onnx;

/**
 * Apply the worker's settings. transformers.js would otherwise point onnxruntime-web at a public CDN for its
 * wasm: `wasmPaths` serves it from the app's origin instead.
 */
export function configureRuntime(opts: WorkerInitOptions, wasmPaths?: OrtWasmPaths): void {
  const ort = ortEnv();
  if (ort.wasm !== undefined) {
    if (wasmPaths !== undefined)
      ort.wasm.wasmPaths = { wasm: new URL(wasmPaths.wasm, hereUrl()).href, mjs: new URL(wasmPaths.mjs, hereUrl()).href };
    ort.wasm.numThreads = opts.numThreads ?? 1;
    ort.wasm.proxy = false;
  }
  env.useBrowserCache = opts.useBrowserCache ?? true;
  if (opts.allowOrigins !== undefined) guardNetwork(opts.allowOrigins);
  // transformers.js bound the original fetch at import time, which would bypass guardNetwork: route its
  // requests through the current global fetch. Paths under the local-model root never leave the worker:
  // a file a picked folder lacks is a 404 here, not a request to the app's server.
  env.fetch = (input: string | URL, init?: RequestInit) => {
    const href = typeof input === 'string' ? input : input.href;
    const url = new URL(href, hereUrl());
    if (url.origin === new URL(hereUrl()).origin && url.pathname.startsWith(LOCAL_MODEL_ROOT)) {
      return Promise.resolve(new Response(null, { status: 404, statusText: 'Not in the picked model folder' }));
    }
    return fetch(input, init);
  };
}

// Minimal WebGPU typings: TypeScript's DOM lib does not ship them.
interface GpuAdapterLike {
  readonly features?: { has(feature: string): boolean };
  readonly limits?: { readonly maxBufferSize?: number; readonly maxStorageBufferBindingSize?: number };
  readonly info?: Partial<Record<'vendor' | 'architecture' | 'device' | 'description', string>> & { isFallbackAdapter?: boolean };
  readonly isFallbackAdapter?: boolean;
}
interface GpuLike {
  requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<GpuAdapterLike | null>;
}

type Detection = { device: 'webgpu'; adapter: GpuAdapterLike } | { device: 'wasm'; reason: string };

async function detectWebGpu(): Promise<Detection> {
  const gpu = (globalThis as { navigator?: { gpu?: GpuLike } }).navigator?.gpu;
  if (gpu === undefined) return { device: 'wasm', reason: 'navigator.gpu missing (WebGPU not supported in this browser or context)' };
  try {
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (adapter === null) return { device: 'wasm', reason: 'no WebGPU adapter granted (requestAdapter() returned null)' };
    return { device: 'webgpu', adapter };
  } catch (error) {
    return { device: 'wasm', reason: `WebGPU adapter request failed: ${String(error)}` };
  }
}

function describeAdapter(adapter: GpuAdapterLike): AdapterInfo {
  const info = adapter.info ?? {};
  return {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallbackAdapter: info.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false,
  };
}

/**
 * The buffer limits a model on this adapter runs under. ONNX Runtime Web asks its device for the adapter's
 * maxima of both (its WebGPU backend's `requiredLimits`), so the adapter's values are the device's; an
 * adapter that reports none gets WebGPU's defaults.
 */
export function adapterLimits(adapter: GpuAdapterLike): DeviceLimits {
  const l = adapter.limits ?? {};
  return {
    maxBufferSize: l.maxBufferSize ?? WEBGPU_DEFAULT_LIMITS.maxBufferSize,
    maxStorageBufferBindingSize: l.maxStorageBufferBindingSize ?? WEBGPU_DEFAULT_LIMITS.maxStorageBufferBindingSize,
  };
}

/** Hand ONNX Runtime the adapter we checked, so it cannot pick a different one (it fixes one at first use). */
function useAdapter(adapter: GpuAdapterLike): void {
  const webgpu = ortEnv().webgpu;
  if (webgpu && webgpu.adapter === undefined) webgpu.adapter = adapter;
}

/** The device a load gets: WebGPU only when an adapter is granted and fits the weights (else WASM, with the reason). */
export async function pickDevice(
  options: Pick<WorkerLoadOptions, 'device' | 'avoidSoftwareAdapter'>,
  dtype: string,
): Promise<{ device: WorkerDevice; reason: string | null; adapterInfo: AdapterInfo | null; limits: DeviceLimits | null }> {
  if (options.device !== 'webgpu') return { device: 'wasm', reason: null, adapterInfo: null, limits: null };
  let found = await detectWebGpu();
  // fp16 weights (fp16, and q4f16's half-precision scales) need the adapter's shader-f16 feature (SwiftShader,
  // for one, lacks it).
  if (found.device === 'webgpu' && (dtype === 'fp16' || dtype === 'q4f16') && found.adapter.features?.has('shader-f16') === false) {
    found = { device: 'wasm', reason: `the WebGPU adapter lacks shader-f16, which ${dtype} weights need` };
  }
  if (found.device === 'webgpu' && options.avoidSoftwareAdapter === true && isSoftwareAdapter(describeAdapter(found.adapter))) {
    found = {
      device: 'wasm',
      reason:
        `the only WebGPU adapter is a software renderer (${adapterName(describeAdapter(found.adapter))}), slower than ` +
        'WASM; choose WebGPU in Settings to use it anyway',
    };
  }
  if (found.device !== 'webgpu') return { device: 'wasm', reason: found.reason, adapterInfo: null, limits: null };
  useAdapter(found.adapter);
  return { device: 'webgpu', reason: null, adapterInfo: describeAdapter(found.adapter), limits: adapterLimits(found.adapter) };
}

/** The device for a dense search: WebGPU when an adapter is granted (no weights to fit), else WASM with the reason. */
export async function pickSearchDevice(device: WorkerDevice): Promise<{ device: WorkerDevice; reason: string | null }> {
  if (device !== 'webgpu') return { device: 'wasm', reason: null };
  const found = await detectWebGpu();
  if (found.device !== 'webgpu') return { device: 'wasm', reason: found.reason };
  useAdapter(found.adapter);
  return { device: 'webgpu', reason: null };
}

/** Test hook: destroy ONNX Runtime's WebGPU device, as a driver reset or GPU process crash would. */
export async function loseWebGpuDevice(): Promise<boolean> {
  const webgpu = ortEnv().webgpu as { device?: Promise<{ destroy(): void }> } | undefined;
  const device = await webgpu?.device;
  if (!device) return false;
  device.destroy();
  return true;
}
