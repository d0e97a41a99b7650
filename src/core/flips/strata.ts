/**
 * Strata by the reference's rank (RAGFlip §4.3, Table 7): reference-supported queries are grouped by the
 * rank at which the reference first supported them, and each group's negative-flip rate is reported with
 * a Wilson interval. The bins are the gaps between consecutive depths — with the default depths
 * 1, 5, 10, 20, 50 exactly the paper's bins 1, 2–5, 6–10, 11–20, 21–50. At depth k only bins starting at
 * or below k exist (bins above k hold no supported query), and a bin straddling k holds ranks up to k.
 */
import { wilson, type Estimate } from '../stats/index.ts';

export interface RankBin {
  readonly from: number;
  readonly to: number;
  readonly label: string;
}

export function rankBins(depths: readonly number[]): RankBin[] {
  const sorted = [...new Set(depths)].sort((a, b) => a - b);
  const bins: RankBin[] = [];
  let from = 1;
  for (const to of sorted) {
    if (to < from) continue;
    bins.push({ from, to, label: from === to ? `${from}` : `${from}-${to}` });
    from = to + 1;
  }
  return bins;
}

export interface StratumCounts {
  readonly bin: RankBin;
  readonly referenceSupported: number;
  readonly broken: number;
  readonly negativeFlipRate: Estimate;
}

/** `reference` and `candidate` are per-query support ranks under the chosen label. */
export function strata(reference: Int32Array, candidate: Int32Array, k: number, bins: readonly RankBin[]): StratumCounts[] {
  const out: StratumCounts[] = [];
  for (const bin of bins) {
    if (bin.from > k) break;
    const hi = Math.min(bin.to, k);
    let supported = 0;
    let broken = 0;
    for (let i = 0; i < reference.length; i++) {
      const r = reference[i]!;
      if (r < bin.from || r > hi) continue;
      supported++;
      if (candidate[i]! > k) broken++;
    }
    out.push({ bin, referenceSupported: supported, broken, negativeFlipRate: wilson(broken, supported) });
  }
  return out;
}
