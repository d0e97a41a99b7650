/**
 * mulberry32 (Tommy Ettinger): a seeded PRNG with a 32-bit state giving uniform doubles in [0, 1). Small, fast
 * and easy to port, so a sample drawn here (answer checks' control samples) can be drawn again in any
 * language; the benchmarks and tests generate their data with it too.
 */
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
