/**
 * The calibration that offers WASM when it is much faster than the WebGPU adapter (SwiftShader, a weak GPU):
 * a long job times one batch on WASM in a worker of its own and compares.
 */
import type { EncoderConfig } from '../../encoders/presets.ts';
import { EncodeBridge, type WorkerInitOptions, type WorkerLoadOptions } from '../bridge/encode-bridge.ts';

/** Jobs projected to take longer than this get a calibration batch on the other device. */
export const CALIBRATE_ABOVE_MS = 15_000;

/** Passages in the calibration: one warm-up batch (loads the model, compiles), then the timed one. */
export const CALIBRATION_PASSAGES = 8;

/** Tokens per second of one batch of `passages` on WASM, in a worker of its own (ended afterwards). */
export async function timeOnWasm(
  config: EncoderConfig,
  load: WorkerLoadOptions,
  passages: readonly string[],
  init: WorkerInitOptions,
  signal: AbortSignal,
): Promise<number> {
  // The same runtime settings and network guard as the main worker; ended with the job (abort kills it).
  const bridge = new EncodeBridge({ init });
  try {
    const wasm: WorkerLoadOptions = { ...load, device: 'wasm' };
    const middle = Math.floor(passages.length / 2);
    await bridge.encode({ config, load: wasm, texts: passages.slice(middle, middle + 2), role: 'passage' }, signal);
    const texts = passages.slice(middle + 2, middle + 2 + CALIBRATION_PASSAGES);
    const started = performance.now();
    const { batch } = await bridge.encode({ config, load: wasm, texts, role: 'passage' }, signal);
    return batch.tokens.reduce((a, b) => a + b, 0) / ((performance.now() - started) / 1000);
  } finally {
    bridge.terminate();
  }
}
