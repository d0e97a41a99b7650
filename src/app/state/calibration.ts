/**
 * The calibration that offers WASM when it is much faster than the WebGPU adapter (SwiftShader, a weak GPU):
 * a long job times one batch on WASM in a worker of its own and compares.
 */
import type { EncodeProgress } from '../../encoders/job.ts';
import type { EncoderConfig } from '../../encoders/presets.ts';
import type { DeviceOffer } from '../../lab/types.ts';
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

/**
 * Watch a job's progress for calibration: once a job on WebGPU has two encoded batches (its rate, without
 * the model load) and more than CALIBRATE_ABOVE_MS to go, one batch of its passages is timed on WASM
 * (`timeOnWasm`); when WASM is projected at least twice as fast (a software adapter, a weak GPU), `offer`
 * gets the row's offer. At most one calibration a job; a failed one offers nothing.
 */
export function calibrationWatch(job: {
  readonly config: EncoderConfig;
  readonly load: WorkerLoadOptions;
  readonly passages: readonly string[];
  readonly init: WorkerInitOptions;
  readonly signal: AbortSignal;
  /** False once the row belongs to a newer job. */
  readonly live: () => boolean;
  readonly offer: (offer: DeviceOffer) => void;
}): (p: EncodeProgress) => void {
  let last: { tokens: number; elapsedMs: number } | null = null;
  let started = false;
  return (p) => {
    if (started || p.device !== 'webgpu' || p.tokens === 0) return;
    const previous = last;
    last = { tokens: p.tokens, elapsedMs: p.elapsedMs };
    if (previous === null || p.etaMs === null || p.etaMs < CALIBRATE_ABOVE_MS || p.elapsedMs <= previous.elapsedMs) return;
    started = true;
    const rate = (p.tokens - previous.tokens) / ((p.elapsedMs - previous.elapsedMs) / 1000);
    const etaNow = p.etaMs;
    void timeOnWasm(job.config, job.load, job.passages, job.init, job.signal).then(
      (wasmRate) => {
        if (!job.live() || wasmRate < 2 * rate) return;
        job.offer({ device: 'wasm', speedup: wasmRate / rate, etaMs: (etaNow * rate) / wasmRate, currentEtaMs: etaNow });
      },
      () => undefined, // no number, no offer: the job goes on as it is
    );
  };
}
