/**
 * Multiple-comparison corrections over a declared family of p values: Holm's step-down (family-wise error),
 * Bonferroni, Benjamini–Hochberg's step-up (false discovery rate), or none. An undefined p (null: the test
 * could not be computed) counts as 1 in the family size and stays null.
 */
import { holm } from './holm.ts';

export const CORRECTIONS = ['holm', 'bonferroni', 'bh', 'none'] as const;
export type Correction = (typeof CORRECTIONS)[number];

/** Benjamini & Hochberg (1995): adjusted p_(i) = min_{j ≥ i} min(1, m·p_(j)/j), in input order. */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((_, i) => i).sort((a, b) => pValues[a]! - pValues[b]!);
  const adjusted = new Array<number>(m);
  let running = 1;
  for (let rank = m - 1; rank >= 0; rank--) {
    const idx = order[rank]!;
    running = Math.min(running, Math.min(1, (m * pValues[idx]!) / (rank + 1)));
    adjusted[idx] = running;
  }
  return adjusted;
}

/** Each p of the family adjusted by `method`. */
export function adjustPValues(pValues: readonly (number | null)[], method: Correction): (number | null)[] {
  const filled = pValues.map((p) => p ?? 1);
  const adjusted =
    method === 'holm'
      ? holm(filled)
      : method === 'bh'
        ? benjaminiHochberg(filled)
        : method === 'bonferroni'
          ? filled.map((p) => Math.min(1, p * filled.length))
          : filled;
  return adjusted.map((p, i) => (pValues[i] === null ? null : p));
}
