/**
 * Seeded random numbers, two generators for two jobs:
 * - mulberry32 (Tommy Ettinger): a 32-bit state giving uniform doubles in [0, 1). Small, fast and easy to port,
 *   so a sample drawn here (answer checks' control samples) can be drawn again in any language; the benchmarks
 *   and tests generate their data with it too.
 * - sfc32 (Doty-Humphrey's Small Fast Counting generator, 128-bit state, passes PractRand), its state filled by
 *   splitmix32 from a seed and the name of a stream: the resampling tests (stats/paired.ts, stats/tukey.ts)
 *   draw tens of millions of numbers a call, more than a 32-bit state should give. Each test of a call draws
 *   from its own stream (e.g. "randomization|dense.run|ndcg_cut_10"), so a row's numbers depend on the seed and
 *   the row, never on which other rows the call computes.
 */
import { FNV_OFFSET, fnvStep } from './fnv.ts';

/** mulberry32: uniform doubles in [0, 1) from a 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** splitmix32's next state and output. */
function splitmix32(state: number): [next: number, out: number] {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [next, (z ^ (z >>> 16)) >>> 0];
}

/** sfc32's state for `seed` and `stream`, before the 12 outputs discarded at the start. */
function seededState(seed: number, stream: string): [number, number, number, number] {
  let h = FNV_OFFSET;
  const text = `${seed}|${stream}`;
  for (let i = 0; i < text.length; i++) h = fnvStep(h, text.charCodeAt(i));
  const state: number[] = [];
  for (let i = 0, s = h; i < 4; i++) {
    const [next, out] = splitmix32(s);
    state.push(out);
    s = next;
  }
  return state as [number, number, number, number];
}

/**
 * A generator of uniform 32-bit unsigned integers for `seed` (any integer) and `stream`. `fillBelow(out, n)`
 * fills `out` with uniform integers in [0, n), the same draws as `below(next(), n)` one by one, with sfc32
 * stepped in a local loop: the bootstrap draws tens of millions of them, and a call per draw would triple it.
 */
export function randomStream(seed: number, stream: string): RandomStream {
  let [a, b, c, d] = seededState(seed, stream);
  // sfc32: the first outputs mix the seed through; 12 are discarded, as its author recommends.
  const next = ((): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  }) as RandomStream;
  next.fillBelow = (out, n) => {
    const scale = n / 4294967296;
    let [x, y, z, w] = [a, b, c, d];
    for (let i = 0; i < out.length; i++) {
      const t = (((x + y) | 0) + w) | 0;
      w = (w + 1) | 0;
      x = y ^ (y >>> 9);
      y = (z + (z << 3)) | 0;
      z = (z << 21) | (z >>> 11);
      z = (z + t) | 0;
      out[i] = ((t >>> 0) * scale) | 0;
    }
    [a, b, c, d] = [x, y, z, w];
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

export interface RandomStream {
  (): number;
  /** Fill `out` with the next out.length draws as integers in [0, n) (n < 2^31). */
  fillBelow(out: Uint16Array | Uint32Array, n: number): void;
}

/** A uniform integer in [0, n) from a 32-bit draw (n ≤ 2^32; the bias is below n / 2^32). */
export const below = (draw: number, n: number): number => Math.floor((draw / 4294967296) * n);
