/**
 * Which WebGPU adapters are worth using. A browser may offer a *software* adapter (SwiftShader, llvmpipe,
 * lavapipe, WARP / Microsoft Basic Render Driver) when it has no usable GPU: it runs WebGPU on the CPU, far
 * slower than ONNX Runtime's WASM kernels (the tiny model's SciFact ETA read 41–44 min on SwiftShader against
 * 3.8 min on WASM). "Auto" skips such adapters; choosing "WebGPU" in Settings still uses them.
 */
export interface AdapterFacts {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  readonly isFallbackAdapter: boolean;
}

const SOFTWARE = /swiftshader|llvmpipe|lavapipe|softpipe|software|microsoft basic render|\bwarp\b/i;

/** True for a fallback adapter (`GPUAdapter.info.isFallbackAdapter`) or a known software renderer. */
export function isSoftwareAdapter(a: AdapterFacts): boolean {
  return a.isFallbackAdapter || SOFTWARE.test(`${a.vendor} ${a.architecture} ${a.device} ${a.description}`);
}

/** "google swiftshader", "nvidia ampere", or "unnamed adapter" (what the retriever row shows). */
export function adapterName(a: AdapterFacts): string {
  const parts = [a.vendor, a.architecture, a.device].map((s) => s.trim()).filter((s) => s !== '');
  const name = parts.length > 0 ? parts.join(' ') : a.description.trim() || 'unnamed adapter';
  return a.isFallbackAdapter && !/fallback/i.test(name) ? `${name}, fallback adapter` : name;
}
