/**
 * The pruned search's dense-code steps (`bm25-maxscore.ts`): bounds from the dense columns' 8-bit codes
 * (`Bm25Postings.denseCodes`), so candidates are cut before any exact impact is read. Kernels over the
 * scratch's typed arrays; the search passes its state in and takes the counts back. Every bound is a sum of
 * real impacts (a code's extremes), so the search's margin ε covers it as it covers the partial sums.
 */
import { DENSE_CODES as POSTINGS_DENSE_CODES, type Bm25Postings } from './bm25-postings.ts';
import { MASK_SLOTS as SCORING_MASK_SLOTS, type Scratch } from './bm25-scoring.ts';

// Module-local copies for the hot loops (see bm25-maxscore.ts).
const DENSE_CODES = POSTINGS_DENSE_CODES;
const MASK_SLOTS = SCORING_MASK_SLOTS;

/**
 * `lowerBounds[q]` = touched document q's partial sum + the code lower bounds of the dense slots it has not
 * matched (`Scratch.denseSlot`..., `denseCount` of them): k documents score at least the k-th of these.
 */
export function codeLowerBounds(postings: Bm25Postings, scratch: Scratch, touchedCount: number, denseCount: number): void {
  const { partialSums, matchedSlots, touched, lowerBounds, denseSlot, denseSlotColumn, denseSlotMult } = scratch;
  const { denseCodes, denseCodeLow, docCount: n } = postings;
  for (let q = 0; q < touchedCount; q++) {
    const doc = touched[q]!;
    const matched = matchedSlots[doc]!;
    let low = partialSums[doc]!;
    for (let j = 0; j < denseCount; j++) {
      if ((matched & (1 << denseSlot[j]!)) !== 0) continue;
      const column = denseSlotColumn[j]!;
      low += denseSlotMult[j]! * denseCodeLow[column * DENSE_CODES + denseCodes[column * n + doc]!]!;
    }
    lowerBounds[q] = low;
  }
}

/**
 * Fills `Scratch.settle*` with the dense slots (< 32) that have unread layers, by decreasing bound (the
 * most selective codes are read first), and settleRest[j] = what slots j.. and all others can still add
 * (a sum of non-negative terms, no subtraction; settleRest[count] is the other slots' R). Returns the count.
 */
export function orderSlotsToSettle(
  scratch: Scratch,
  slotColumn: Int32Array,
  slotMult: readonly number[],
  slotUnreadBound: Float64Array,
  slotCount: number,
): number {
  const { settleSlot, settleColumn, settleMult, settleBound, settleRest } = scratch;
  let count = 0;
  let otherBound = 0;
  for (let v = 0; v < slotCount; v++) {
    const column = v < MASK_SLOTS ? slotColumn[v]! : -1;
    const bound = slotUnreadBound[v]!;
    if (column < 0 || !(bound > 0)) {
      otherBound += bound;
      continue;
    }
    // insertion by decreasing bound (equal bounds keep slot order)
    let j = count++;
    for (; j > 0 && settleBound[j - 1]! < bound; j--) {
      settleSlot[j] = settleSlot[j - 1]!;
      settleColumn[j] = settleColumn[j - 1]!;
      settleMult[j] = settleMult[j - 1]!;
      settleBound[j] = settleBound[j - 1]!;
    }
    settleSlot[j] = v;
    settleColumn[j] = column;
    settleMult[j] = slotMult[v]!;
    settleBound[j] = bound;
  }
  settleRest[count] = otherBound;
  for (let j = count - 1; j >= 0; j--) settleRest[j] = settleRest[j + 1]! + settleBound[j]!;
  return count;
}

/**
 * First pass of a settle over the `count` candidates: drops (−∞) those whose code upper bound (widened)
 * falls below `cut` (θ narrowed) and records, for the rest in candidate order, lower bounds (partial sum +
 * code lows) and upper bounds (+ code highs + the other slots' R). Returns how many are kept. Guarantees:
 * no dropped candidate can reach θ; kept ones are unchanged.
 */
export function boundCandidatesByCodes(
  postings: Bm25Postings,
  scratch: Scratch,
  count: number,
  settling: number,
  cut: number,
  widen: number,
): number {
  const { partialSums, matchedSlots, candidates, lowerBounds, upperBounds } = scratch;
  const { settleSlot, settleColumn, settleMult, settleRest } = scratch;
  const { denseCodes, denseCodeLow, denseCodeHigh, docCount: n } = postings;
  const everything = settleRest[0]!;
  const otherBound = settleRest[settling]!;
  let kept = 0;
  for (let q = 0; q < count; q++) {
    const doc = candidates[q]!;
    const sum = partialSums[doc]!;
    if ((sum + everything) * widen < cut) {
      partialSums[doc] = -Infinity;
      continue;
    }
    const matched = matchedSlots[doc]!;
    let low = sum;
    let high = sum;
    let j = 0;
    for (; j < settling; j++) {
      if ((matched & (1 << settleSlot[j]!)) !== 0) continue;
      const code = settleColumn[j]! * DENSE_CODES + denseCodes[settleColumn[j]! * n + doc]!;
      low += settleMult[j]! * denseCodeLow[code]!;
      high += settleMult[j]! * denseCodeHigh[code]!;
      if ((high + settleRest[j + 1]!) * widen < cut) break;
    }
    if (j < settling) {
      partialSums[doc] = -Infinity;
      continue;
    }
    lowerBounds[kept] = low;
    upperBounds[kept] = high + otherBound;
    candidates[kept++] = doc;
  }
  return kept;
}

/**
 * Second pass of a settle (θ raised in between): candidates whose upper bound still reaches `cut` add their
 * exact dense impacts; the others are dropped (−∞). Returns how many are kept. Guarantees: every kept
 * candidate has each settled slot's weight and bit, once.
 */
export function addDenseImpactsToSurvivors(
  postings: Bm25Postings,
  scratch: Scratch,
  count: number,
  settling: number,
  cut: number,
  widen: number,
): number {
  const { partialSums, matchedSlots, candidates, upperBounds, settleSlot, settleColumn, settleMult } = scratch;
  const { denseImpacts, docCount: n } = postings;
  let kept = 0;
  for (let q = 0; q < count; q++) {
    const doc = candidates[q]!;
    if (upperBounds[q]! * widen < cut) {
      partialSums[doc] = -Infinity;
      continue;
    }
    let sum = partialSums[doc]!;
    let matched = matchedSlots[doc]!;
    for (let j = 0; j < settling; j++) {
      const bit = 1 << settleSlot[j]!;
      if ((matched & bit) !== 0) continue;
      const impact = denseImpacts[settleColumn[j]! * n + doc]!;
      if (impact !== 0) {
        sum += settleMult[j]! * impact;
        matched |= bit;
      }
    }
    partialSums[doc] = sum;
    matchedSlots[doc] = matched;
    candidates[kept++] = doc;
  }
  return kept;
}
