/**
 * Paired comparison of two candidates on the reference-supported cohort at one depth (RAGFlip §4.4,
 * Table 8): only_a = queries A breaks and B preserves, only_b the reverse; the exact McNemar test asks
 * whether the discordant counts differ. Holm's correction is applied across the depths of one pair.
 */
import { exactMcNemar } from '../stats/index.ts';

export interface PairedCounts {
  readonly onlyA: number;
  readonly onlyB: number;
  readonly p: number;
}

export function pairedFlips(reference: Int32Array, a: Int32Array, b: Int32Array, k: number): PairedCounts {
  let onlyA = 0;
  let onlyB = 0;
  for (let i = 0; i < reference.length; i++) {
    if (reference[i]! > k) continue;
    const brokenA = a[i]! > k;
    const brokenB = b[i]! > k;
    if (brokenA && !brokenB) onlyA++;
    else if (brokenB && !brokenA) onlyB++;
  }
  return { onlyA, onlyB, p: exactMcNemar(onlyA, onlyB) };
}
