/** Comparing vectors in tests: Node vs browser, fp16 vs fp32. */
import { expect } from 'vitest';

/** Largest |a[i] − b[i]|; the lengths must match. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
}
