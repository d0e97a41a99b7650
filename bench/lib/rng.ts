/** Seeded PRNG (mulberry32) so generated benchmark data is identical on every run. */
export { mulberry32 } from '../../src/core/random.ts';

/** Median of timings in ms. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
