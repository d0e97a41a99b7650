/**
 * The pruned BM25 search: exact top-k by MaxScore (see `searchMaxScore`), returning exactly what the
 * reference algorithm (`searchExhaustive` in `bm25-search.ts`) returns, lists and scores.
 */
import { grow } from '../grow.ts';
import { DENSE_CODES as INDEX_DENSE_CODES, type Bm25Index } from './bm25-index.ts';
import {
  drainHits,
  gallop,
  HIST_BUCKETS as SEARCH_HIST_BUCKETS,
  MASK_SLOTS as SEARCH_MASK_SLOTS,
  scratchFor,
  type Bm25Hits,
  type Scratch,
} from './bm25-search.ts';
import { kthLargestBounded, kthLargestGathered } from './topk.ts';

// Module-local copies of the shared constants the hot loops read: V8 folds a module's own constants into
// optimized code but loads an imported binding each time (5% of the FiQA-sized query pass, measured).
const DENSE_CODES = INDEX_DENSE_CODES;
const HIST_BUCKETS = SEARCH_HIST_BUCKETS;
const MASK_SLOTS = SEARCH_MASK_SLOTS;

/**
 * Probing a list for one candidate (galloping search) costs about this many sequential posting reads,
 * times log2 of the gap between candidates; measured on a FiQA-sized collection.
 */
const PROBE_COST_POSTINGS = 3;
/** When more than 1/RESET_FILL_FRACTION of the corpus was touched, clearing by fill beats clearing by list. */
const RESET_FILL_FRACTION = 2;
/**
 * The pruned search tightens θ from the dense codes before reading a list at least this many times longer
 * than the touched set (the tightening costs one pass over the touched set).
 */
const CODE_THETA_LIST_RATIO = 1;

/** Lower edge of the highest bucket at which at least k values lie at or above it (0 if none). */
function histogramEdge(hist: Int32Array, k: number, scale: number): number {
  let above = 0;
  for (let b = HIST_BUCKETS - 1; b > 0; b--) {
    above += hist[b]!;
    if (above >= k) return b / scale;
  }
  return 0;
}

/**
 * Exact top-k with MaxScore pruning (Turtle & Flood 1995) over impact-layered lists, term at a time:
 *
 * 1. The query's lists (each layer of each unique term) are read in decreasing bound U = (occurrences of
 *    the term in the query) × (largest impact in the layer), accumulating float64 partial sums over every
 *    document they touch. A document lies in at most one layer per term, so what an untouched document
 *    can still gain is R = Σ over terms of the bound of the term's highest unread layer.
 * 2. Once a lower bound θ on the k-th best partial sum exceeds R, no untouched document can reach the top
 *    k. From then on only candidates count: touched documents whose partial sum plus what the unread layers
 *    can still add to them (nothing from a term they already matched, by a per-document bit mask) can reach
 *    θ. Each remaining list is either scanned (skipping non-candidates) or visited once per candidate
 *    (dense column or galloping search), whichever is cheaper; a visit also prunes with the current θ and
 *    R and histograms the new sums for the next θ. Pruned documents are marked −∞.
 *    Dense terms (slots < 32 with a dense column) are settled together at their first unread layer, from
 *    their codes: each candidate's upper bound (partial sum + the codes' highs + what other slots can still
 *    add) is cut against θ code by code, θ rises to the k-th lower bound (partial sum + the codes' lows), and
 *    only the candidates whose upper bound still reaches θ read exact impacts from the dense columns.
 *    Before phase 1 reads a list longer than the touched set, θ is also raised from the touched documents'
 *    code lower bounds, which often ends phase 1 early (queries made of very common terms, where partial
 *    sums alone give a weak θ).
 * 3. The survivors of partial sum ≥ θ (exact k-th) are rescored exactly as the reference does (query-token
 *    order, float32 rounding per addition) and selected by (score desc, index asc).
 *
 * The steps are the methods of `MaxScoreSearch`, called in order below: `readWholeLists` (1), then
 * `readListsForCandidates` (2: `settleDenseSlots`, `scanListForCandidates`, `probeListForCandidates`),
 * `cutToExactThreshold` and `rescoreSurvivors` (3).
 *
 * Every bound is widened by ε = (m + 2)·2⁻²³ (m query tokens), more than the relative difference between a
 * float64 sum and its float32 accumulation in another order, and a document is dropped only when even its
 * widened bound is strictly below the narrowed θ, so it scores strictly below the final k-th score: the
 * result is identical to the exhaustive search (tests check this on random and real collections). Code
 * bounds are real impacts (the extremes of a code), summed like the partial sums, so the same ε covers
 * them; a regression test fails if the code step drops the widening. Under 'float64', ε = (m + 2)·2⁻⁵⁰.
 */
export function searchMaxScore(index: Bm25Index, terms: readonly number[], k: number): Bm25Hits {
  const search = new MaxScoreSearch(index, terms, k);
  search.collectDenseSlots();
  const candidatesOnly = search.readWholeLists();
  search.takeTouchedAsCandidates();
  if (candidatesOnly) search.readListsForCandidates();
  search.cutToExactThreshold();
  return search.rescoreSurvivors();
}

const LAST_BUCKET = HIST_BUCKETS - 1;
/** Longest list count ordered by insertion sort in `readOrderOf`. */
const INSERTION_SORT_MAX_LISTS = 64;

/** Slot's bit in the match mask (0 for untracked slots ≥ 32). */
function slotBit(slot: number): number {
  return slot < MASK_SLOTS ? 1 << slot : 0;
}

/** Cost of probing a list of `length` postings once per candidate (galloping), in sequential posting reads. */
function probeCost(length: number, candidates: number): number {
  return candidates * PROBE_COST_POSTINGS * (1 + Math.log2(1 + length / (candidates || 1)));
}

/** Histogram bucket of a partial sum (≥ 0; sums past the last bucket's edge go to the last bucket). */
function bucketOf(sum: number, scale: number): number {
  const x = sum * scale;
  return x >= LAST_BUCKET ? LAST_BUCKET : x | 0;
}

/**
 * List indices by decreasing bound, ties by index (so a term's layers keep their order). Queries have few
 * lists: an insertion sort, which spares a comparator closure per query; long queries use the library sort.
 */
function readOrderOf(listBound: readonly number[]): number[] {
  const count = listBound.length;
  if (count > INSERTION_SORT_MAX_LISTS) {
    return Array.from({ length: count }, (_, i) => i).sort((a, b) => listBound[b]! - listBound[a]! || a - b);
  }
  const order: number[] = [];
  for (let i = 0; i < count; i++) {
    const bound = listBound[i]!;
    order.push(i);
    let j = i;
    for (; j > 0 && listBound[order[j - 1]!]! < bound; j--) order[j] = order[j - 1]!;
    order[j] = i;
  }
  return order;
}

/**
 * One query's pruned search (see `searchMaxScore`): the plan (slots, lists, bounds) and the state the
 * phases hand on to each other. Hot loops copy the fields they use into locals and write back once.
 */
class MaxScoreSearch {
  private readonly index: Bm25Index;
  private readonly scratch: Scratch;
  private readonly k: number;
  private readonly float32: boolean;

  // The plan. A slot is a unique query term; a list is one layer of one slot's term.
  /** Term id per slot, in first-occurrence order. */
  private readonly slotTerm: number[];
  /** How often the slot's term occurs in the query: its impacts count that many times. */
  private readonly slotMult: number[];
  /** Slot of each query token, in query order. */
  private readonly tokenSlot: Int32Array;
  private readonly slotCount: number;
  /** Per list: layer, slot, bound U = multiplicity × the layer's largest impact. A slot's lists are adjacent. */
  private readonly listLayer: number[];
  private readonly listSlot: number[];
  private readonly listBound: number[];
  private readonly listCount: number;
  /** Lists by decreasing bound (a term's layers keep their order). */
  private readonly readOrder: number[];
  /** Bound of the slot's highest unread layer (0 once all are read or settled). */
  private readonly slotUnreadBound: Float64Array;
  private readonly slotLayersLeft: Int32Array;
  /** No partial sum exceeds Σ of the slots' top bounds. */
  private readonly sumCeiling: number;
  /** Bounds are multiplied by `widen` and thresholds by `narrow`: 1 ± ε, see `searchMaxScore`. */
  private readonly widen: number;
  private readonly narrow: number;
  /** Histogram buckets per unit of partial sum. */
  private readonly bucketScale: number;

  // The state handed from step to step.
  /** R: what a document can still gain from unread lists, Σ of `slotUnreadBound`. */
  private unreadBound: number;
  /** θ: a lower bound on the k-th best final score (never above it, by margins). */
  private threshold = 0;
  /** Position in `readOrder` of the next list to read. */
  private nextRank = 0;
  private touchedCount = 0;
  private candidateCount = 0;
  private candidatesSorted = false;
  /** Dense slots < 32 in slot order (`Scratch.denseSlot`...). */
  private denseSlotCount = 0;
  /** Bits of the dense slots whose every layer `settleDenseSlots` has resolved. */
  private settledSlots = 0;

  /** Plans the query: slots, lists, read order, bounds and margins. */
  constructor(index: Bm25Index, terms: readonly number[], k: number) {
    this.index = index;
    this.scratch = scratchFor(index);
    this.k = k;
    this.float32 = index.params.precision === 'float32';
    const { termLayers, layerMaxImpact } = index;
    const m = terms.length;

    const slotTerm: number[] = [];
    const slotMult: number[] = [];
    const tokenSlot = new Int32Array(m);
    for (let i = 0; i < m; i++) {
      const t = terms[i]!;
      let u = slotTerm.indexOf(t);
      if (u < 0) {
        u = slotTerm.length;
        slotTerm.push(t);
        slotMult.push(0);
      }
      slotMult[u]!++;
      tokenSlot[i] = u;
    }
    const slotCount = slotTerm.length;

    const listLayer: number[] = [];
    const listSlot: number[] = [];
    const listBound: number[] = [];
    for (let u = 0; u < slotCount; u++) {
      const t = slotTerm[u]!;
      for (let l = termLayers[t]!; l < termLayers[t + 1]!; l++) {
        listLayer.push(l);
        listSlot.push(u);
        listBound.push(slotMult[u]! * layerMaxImpact[l]!);
      }
    }
    const listCount = listLayer.length;
    const slotUnreadBound = new Float64Array(slotCount);
    for (let i = listCount - 1; i >= 0; i--) slotUnreadBound[listSlot[i]!] = listBound[i]!; // first layer of each slot
    const slotLayersLeft = new Int32Array(slotCount);
    for (let i = 0; i < listCount; i++) slotLayersLeft[listSlot[i]!]!++;

    this.slotTerm = slotTerm;
    this.slotMult = slotMult;
    this.tokenSlot = tokenSlot;
    this.slotCount = slotCount;
    this.listLayer = listLayer;
    this.listSlot = listSlot;
    this.listBound = listBound;
    this.listCount = listCount;
    this.readOrder = readOrderOf(listBound);
    this.slotUnreadBound = slotUnreadBound;
    this.slotLayersLeft = slotLayersLeft;
    this.unreadBound = this.sumOfUnreadBounds();
    this.sumCeiling = this.unreadBound;
    const eps = (m + 2) * (this.float32 ? 2 ** -23 : 2 ** -50);
    this.widen = 1 + eps;
    this.narrow = 1 - eps;
    this.bucketScale = HIST_BUCKETS / this.sumCeiling;
  }

  /** Σ of the slots' unread bounds, in slot order: a sum of non-negative terms (no cancellation). */
  private sumOfUnreadBounds(): number {
    const bounds = this.slotUnreadBound;
    let sum = 0;
    for (let u = 0; u < this.slotCount; u++) sum += bounds[u]!;
    return sum;
  }

  /** Marks a list read: its slot's next layer (if any) becomes the slot's bound, and R follows. */
  private markListRead(list: number): void {
    const slot = this.listSlot[list]!;
    this.slotUnreadBound[slot] = --this.slotLayersLeft[slot]! > 0 ? this.listBound[list + 1]! : 0;
    this.unreadBound = this.sumOfUnreadBounds();
  }

  /** θ only ever rises: every estimate is a lower bound on the k-th best final score. */
  private raiseThreshold(estimate: number): void {
    if (estimate > this.threshold) this.threshold = estimate;
  }

  /** True once no untouched document can reach the top k: R (widened) is below θ (narrowed). */
  private untouchedAreOut(): boolean {
    return this.unreadBound * this.widen < this.threshold * this.narrow;
  }

  /** Fills `Scratch.denseSlot`... with the query's dense slots (< 32), in slot order. */
  collectDenseSlots(): void {
    const { denseSlot, denseSlotColumn, denseSlotMult } = this.scratch;
    const denseColumn = this.index.denseColumn;
    let count = 0;
    for (let u = 0; u < this.slotCount && u < MASK_SLOTS; u++) {
      const column = denseColumn[this.slotTerm[u]!]!;
      if (column < 0) continue;
      denseSlot[count] = u;
      denseSlotColumn[count] = column;
      denseSlotMult[count] = this.slotMult[u]!;
      count++;
    }
    this.denseSlotCount = count;
  }

  /**
   * Phase 1: every posting of the lists in read order, until untouched documents cannot reach the top k
   * (returns true; the remaining lists are for candidates only) or every list is read (false). Guarantees:
   * every touched document's partial sum holds each read list it lies in, except lists that met it first
   * while it could no longer reach θ (see `accumulateList`); the histogram counts the touched partial sums.
   */
  readWholeLists(): boolean {
    const { listLayer, listSlot, listBound, slotUnreadBound, slotLayersLeft, readOrder, listCount, k, widen, narrow } = this;
    const layerOffsets = this.index.layerOffsets;
    this.scratch.histogram.fill(0);
    while (this.nextRank < listCount) {
      const list = readOrder[this.nextRank]!;
      const layer = listLayer[list]!;
      const slot = listSlot[list]!;
      const length = layerOffsets[layer + 1]! - layerOffsets[layer]!;
      if (this.denseSlotCount > 0 && this.touchedCount >= k && length > this.touchedCount * CODE_THETA_LIST_RATIO) {
        // Before a list longer than the touched set: θ from the touched documents' partial sums plus their
        // dense codes' lower bounds (k documents score at least that). Often enough to stop reading here.
        this.raiseThreshold(this.touchedCodeLowerBoundThreshold());
        if (this.untouchedAreOut()) return true;
      }
      // A document first met in this list can gain at most R' (R after this list) later. If even w + R'
      // stays below θ, it scores below k documents already touched and can never be returned: leave it
      // untouched. Should a later list meet it again, it restarts without this list's weight and bit; its
      // partial sum and rescoring are then underestimates, which keep it out all the same.
      const unreadAfter = this.unreadBound - slotUnreadBound[slot]! + (slotLayersLeft[slot]! > 1 ? listBound[list + 1]! : 0);
      const cut = this.threshold * narrow;
      this.accumulateList(list, unreadAfter, this.threshold > 0 && unreadAfter * widen < cut ? cut : -Infinity);
      this.markListRead(list);
      this.nextRank++;
      if (this.nextRank === listCount) break;
      if (this.touchedCount >= k) {
        this.raiseThreshold(histogramEdge(this.scratch.histogram, k, this.bucketScale));
        if (this.untouchedAreOut()) return true;
      }
    }
    return false;
  }

  /**
   * Adds one list's weighted impacts to the partial sums, sets the slot's bit, touches new documents and
   * keeps the histogram current. A new document whose weight plus `unreadAfter` (widened) stays below
   * `admitCut` is skipped (−∞: every document is admitted, and the loop skips the bound arithmetic).
   */
  private accumulateList(list: number, unreadAfter: number, admitCut: number): void {
    const { postingDocs, postingImpacts, layerOffsets } = this.index;
    const { partialSums, matchedSlots, touched, histogram } = this.scratch;
    const layer = this.listLayer[list]!;
    const slot = this.listSlot[list]!;
    const bit = slotBit(slot);
    const mult = this.slotMult[slot]!;
    const scale = this.bucketScale;
    const widen = this.widen;
    const screenNew = admitCut !== -Infinity;
    let touchedCount = this.touchedCount;
    const end = layerOffsets[layer + 1]!;
    for (let j = layerOffsets[layer]!; j < end; j++) {
      const doc = postingDocs[j]!;
      const sum = partialSums[doc]!;
      const weight = mult * postingImpacts[j]!;
      if (sum === 0) {
        if (screenNew && (weight + unreadAfter) * widen < admitCut) continue;
        touched[touchedCount++] = doc;
      } else {
        histogram[bucketOf(sum, scale)]!--;
      }
      const newSum = sum + weight;
      partialSums[doc] = newSum;
      histogram[bucketOf(newSum, scale)]!++;
      matchedSlots[doc] = matchedSlots[doc]! | bit;
    }
    this.touchedCount = touchedCount;
  }

  /** The k-th largest of (partial sum + the unmatched dense slots' code lower bounds) over the touched set. */
  private touchedCodeLowerBoundThreshold(): number {
    const { partialSums, matchedSlots, touched, lowerBounds, denseSlot, denseSlotColumn, denseSlotMult } = this.scratch;
    const { denseCodes, denseCodeLow, docCount: n } = this.index;
    const denseCount = this.denseSlotCount;
    const touchedCount = this.touchedCount;
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
    return kthLargestBounded(lowerBounds, touchedCount, this.k, this.sumCeiling, this.scratch.work);
  }

  /** The touched documents become the candidates (in touch order). */
  takeTouchedAsCandidates(): void {
    this.scratch.candidates.set(this.scratch.touched.subarray(0, this.touchedCount));
    this.candidateCount = this.touchedCount;
    this.candidatesSorted = false;
  }

  /**
   * Phase 2: the remaining lists, for candidates only. Dense slots are settled together at their first
   * unread layer; every other list is scanned (long list, many candidates) or probed once per candidate.
   * Guarantees: afterwards every list is read or settled, and each candidate left has its exact float64
   * partial sum over all its terms (or underestimates that keep it out, as in phase 1); candidates that
   * cannot reach θ were dropped (partial sum −∞).
   */
  readListsForCandidates(): void {
    const { listLayer, listSlot, slotTerm, slotUnreadBound, readOrder, listCount } = this;
    const { layerOffsets, denseColumn } = this.index;
    const { denseSlot } = this.scratch;
    let denseUnsettled = false;
    for (let j = 0; j < this.denseSlotCount; j++) if (slotUnreadBound[denseSlot[j]!]! > 0) denseUnsettled = true;
    for (; this.nextRank < listCount; this.nextRank++) {
      const list = readOrder[this.nextRank]!;
      const slot = listSlot[list]!;
      if ((this.settledSlots & slotBit(slot)) !== 0) continue;
      // A dense column holds the term's impact whatever the layer: only usable when the mask can tell
      // whether the document already matched another layer of the term (slots < 32).
      const column = slot < MASK_SLOTS ? denseColumn[slotTerm[slot]!]! : -1;
      if (denseUnsettled && column >= 0) {
        denseUnsettled = false;
        this.settleDenseSlots();
        continue;
      }
      const layer = listLayer[list]!;
      const length = layerOffsets[layer + 1]! - layerOffsets[layer]!;
      const candidates = this.candidateCount;
      const probe = column >= 0 ? candidates <= 2 * length : probeCost(length, candidates) < length;
      if (probe) this.probeListForCandidates(list, column);
      else this.scanListForCandidates(list);
      this.markListRead(list);
    }
  }

  /**
   * Settles every dense slot with unread layers at once. Each candidate gets an upper bound from its codes,
   * slot by slot (a cut as soon as it falls below θ), and a lower bound; θ rises to the k-th lower bound,
   * and only candidates whose upper bound still reaches θ read exact impacts from the dense columns. A
   * candidate's codes are one byte per slot, from columns that stay in cache. Guarantees: those slots are
   * fully accounted for in every surviving candidate's partial sum, and R drops to the other slots' bounds.
   */
  private settleDenseSlots(): void {
    const settling = this.orderSlotsToSettle();
    const otherBound = this.scratch.settleRest[settling]!;
    this.boundCandidatesByCodes(settling, otherBound);
    if (this.candidateCount >= this.k) {
      this.raiseThreshold(kthLargestBounded(this.scratch.lowerBounds, this.candidateCount, this.k, this.sumCeiling, this.scratch.work));
    }
    this.addDenseImpactsToSurvivors(settling);
    const { settleSlot } = this.scratch;
    for (let j = 0; j < settling; j++) {
      const slot = settleSlot[j]!;
      this.settledSlots |= 1 << slot;
      this.slotUnreadBound[slot] = 0;
      this.slotLayersLeft[slot] = 0;
    }
    this.unreadBound = otherBound;
  }

  /**
   * Fills `Scratch.settle*` with the dense slots (< 32) that have unread layers, by decreasing bound (the
   * most selective codes are read first), and settleRest[j] = what slots j.. and all others can still add
   * (a sum of non-negative terms, no subtraction; settleRest[count] is the other slots' R). Returns the count.
   */
  private orderSlotsToSettle(): number {
    const { settleSlot, settleColumn, settleMult, settleBound, settleRest } = this.scratch;
    const { slotTerm, slotMult, slotUnreadBound } = this;
    const denseColumn = this.index.denseColumn;
    let count = 0;
    let otherBound = 0;
    for (let v = 0; v < this.slotCount; v++) {
      const column = v < MASK_SLOTS ? denseColumn[slotTerm[v]!]! : -1;
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
   * First pass of a settle: drops (−∞) candidates whose code upper bound falls below θ and records, for the
   * rest in candidate order, lower bounds (partial sum + code lows) and upper bounds (+ code highs + the
   * other slots' R). Guarantees: no dropped candidate can reach θ; kept ones are unchanged.
   */
  private boundCandidatesByCodes(settling: number, otherBound: number): void {
    const { partialSums, matchedSlots, candidates, lowerBounds, upperBounds } = this.scratch;
    const { settleSlot, settleColumn, settleMult, settleRest } = this.scratch;
    const { denseCodes, denseCodeLow, denseCodeHigh, docCount: n } = this.index;
    const widen = this.widen;
    const cut = this.threshold * this.narrow;
    const everything = settleRest[0]!;
    const count = this.candidateCount;
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
    this.candidateCount = kept;
  }

  /**
   * Second pass of a settle (θ raised in between): candidates whose upper bound still reaches θ add their
   * exact dense impacts. Guarantees: every kept candidate has each settled slot's weight and bit, once.
   */
  private addDenseImpactsToSurvivors(settling: number): void {
    const { partialSums, matchedSlots, candidates, upperBounds, settleSlot, settleColumn, settleMult } = this.scratch;
    const { denseImpacts, docCount: n } = this.index;
    const widen = this.widen;
    const cut = this.threshold * this.narrow;
    const count = this.candidateCount;
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
    this.candidateCount = kept;
  }

  /** Reads a whole list. Guarantees: every candidate in it has the slot's weight and bit, added once. */
  private scanListForCandidates(list: number): void {
    const { postingDocs, postingImpacts, layerOffsets } = this.index;
    const { partialSums, matchedSlots } = this.scratch;
    const layer = this.listLayer[list]!;
    const slot = this.listSlot[list]!;
    const bit = slotBit(slot);
    const mult = this.slotMult[slot]!;
    const end = layerOffsets[layer + 1]!;
    for (let j = layerOffsets[layer]!; j < end; j++) {
      const doc = postingDocs[j]!;
      const sum = partialSums[doc]!;
      // Untouched (0) and pruned (−∞) documents are skipped, and so are those that already took this
      // term's weight from its dense column during an earlier layer's visit.
      if (sum > 0 && (matchedSlots[doc]! & bit) === 0) {
        partialSums[doc] = sum + mult * postingImpacts[j]!;
        matchedSlots[doc] = matchedSlots[doc]! | bit;
      }
    }
  }

  /**
   * Visits a list once per candidate: from the slot's dense column (`column` ≥ 0) or by galloping search
   * in candidate order. With more than k candidates, each is first pruned against θ and what its unread
   * slots can add, and the new sums are histogrammed to raise θ. Guarantees: every kept candidate in the
   * list has the slot's weight and bit, added once; dropped ones (−∞) cannot reach θ.
   */
  private probeListForCandidates(list: number, column: number): void {
    const { postingDocs, postingImpacts, layerOffsets, denseImpacts, docCount: n } = this.index;
    const { partialSums, matchedSlots, candidates, histogram } = this.scratch;
    const { slotUnreadBound, widen, k } = this;
    const layer = this.listLayer[list]!;
    const slot = this.listSlot[list]!;
    const bit = slotBit(slot);
    const mult = this.slotMult[slot]!;
    const start = layerOffsets[layer]!;
    const end = layerOffsets[layer + 1]!;
    const count = this.candidateCount;
    const prune = count > k;
    const cut = this.threshold * this.narrow;
    const unread = this.unreadBound;
    const scale = this.bucketScale;
    let open = 0; // slots (< 32) with unread layers: a match there rules the rest of that slot out
    for (let v = 0; v < this.slotCount && v < MASK_SLOTS; v++) if (slotUnreadBound[v]! > 0) open |= 1 << v;
    if (prune) histogram.fill(0);
    if (column < 0 && !this.candidatesSorted) {
      candidates.subarray(0, count).sort();
      this.candidatesSorted = true;
    }
    const base = column * n;
    let pos = start;
    let kept = 0;
    for (let q = 0; q < count; q++) {
      const doc = candidates[q]!;
      let sum = partialSums[doc]!;
      const matched = matchedSlots[doc]!;
      if (prune) {
        // R first (cheap); the tighter room only when a matched slot still has unread layers.
        let room = unread;
        if ((sum + room) * widen >= cut) {
          let openMatched = matched & open;
          while (openMatched !== 0) {
            const b = 31 - Math.clz32(openMatched);
            room -= slotUnreadBound[b]!;
            openMatched ^= 1 << b;
          }
        }
        if ((sum + room) * widen < cut) {
          partialSums[doc] = -Infinity;
          continue;
        }
      }
      if ((matched & bit) === 0) {
        if (column >= 0) {
          const impact = denseImpacts[base + doc]!;
          if (impact !== 0) {
            sum += mult * impact;
            partialSums[doc] = sum;
            matchedSlots[doc] = matched | bit;
          }
        } else if (pos < end) {
          pos = gallop(postingDocs, pos, end, doc);
          if (pos < end && postingDocs[pos] === doc) {
            sum += mult * postingImpacts[pos]!;
            partialSums[doc] = sum;
            matchedSlots[doc] = matched | bit;
          }
        }
      }
      candidates[kept++] = doc;
      if (prune) histogram[bucketOf(sum, scale)]!++;
    }
    this.candidateCount = kept;
    if (prune && kept >= k) this.raiseThreshold(histogramEdge(histogram, k, scale));
  }

  /**
   * Final cut with R = 0 and an exact θ (the k-th largest partial sum), then candidates in corpus order.
   * Guarantees: every document of the true top k survives, and few others do.
   */
  cutToExactThreshold(): void {
    const { partialSums, candidates, work } = this.scratch;
    const count = this.candidateCount;
    if (count > this.k) {
      this.threshold = kthLargestGathered(partialSums, candidates, count, this.k, this.sumCeiling, work);
      const widen = this.widen;
      const cut = this.threshold * this.narrow;
      let kept = 0;
      for (let q = 0; q < count; q++) {
        const doc = candidates[q]!;
        if (partialSums[doc]! * widen >= cut) candidates[kept++] = doc;
      }
      this.candidateCount = kept;
    }
    if (!this.candidatesSorted) candidates.subarray(0, this.candidateCount).sort();
    this.candidatesSorted = true;
  }

  /**
   * Phase 3: exact rescoring of the survivors in query-token order (float32 rounding per addition under
   * 'float32', as the reference), selected by (score desc, index asc). Leaves the scratch zeroed.
   */
  rescoreSurvivors(): Bm25Hits {
    const replay = this.replaySurvivorImpacts();
    this.clearScratch();
    const { candidates, heap } = this.scratch;
    const { tokenSlot, slotCount, float32 } = this;
    const count = this.candidateCount;
    const m = tokenSlot.length;
    heap.reset(Math.min(this.k, count));
    for (let q = 0; q < count; q++) {
      const row = q * slotCount;
      let score = 0;
      for (let x = 0; x < m; x++) {
        const w = replay[row + tokenSlot[x]!]!;
        if (w !== 0) score = float32 ? Math.fround(score + w) : score + w;
      }
      heap.push(candidates[q]!, score);
    }
    return drainHits(this.index, heap);
  }

  /**
   * Guarantees: replay[q · slots + u] is survivor q's impact for slot u (0 where it lacks the term), read
   * from the slot's dense column or by galloping through each layer in survivor (corpus) order.
   */
  private replaySurvivorImpacts(): Float64Array {
    const s = this.scratch;
    const { postingDocs, postingImpacts, layerOffsets, denseColumn, denseImpacts, docCount: n } = this.index;
    const { listLayer, listSlot, slotTerm, slotCount, listCount } = this;
    const { candidates, matchedSlots } = s;
    const count = this.candidateCount;
    if (s.replay.length < count * slotCount) s.replay = grow(s.replay, count * slotCount);
    const replay = s.replay;
    replay.fill(0, 0, count * slotCount);
    for (let u = 0; u < slotCount; u++) {
      const column = denseColumn[slotTerm[u]!]!;
      if (column < 0) continue;
      const base = column * n;
      for (let q = 0; q < count; q++) replay[q * slotCount + u] = denseImpacts[base + candidates[q]!]!;
    }
    for (let i = 0; i < listCount; i++) {
      const slot = listSlot[i]!;
      if (denseColumn[slotTerm[slot]!]! >= 0) continue;
      const layer = listLayer[i]!;
      const tracked = slot < MASK_SLOTS;
      const bit = slotBit(slot);
      const end = layerOffsets[layer + 1]!;
      let pos = layerOffsets[layer]!;
      for (let q = 0; q < count && pos < end; q++) {
        const doc = candidates[q]!;
        if (tracked && (matchedSlots[doc]! & bit) === 0) continue; // no layer of this term holds doc
        pos = gallop(postingDocs, pos, end, doc);
        if (pos < end && postingDocs[pos] === doc) replay[q * slotCount + slot] = postingImpacts[pos]!;
      }
    }
    return replay;
  }

  /** Zeroes the partial sums and masks of every touched document (by fill when most of the corpus was touched). */
  private clearScratch(): void {
    const { partialSums, matchedSlots, touched } = this.scratch;
    const touchedCount = this.touchedCount;
    if (touchedCount > this.index.docCount / RESET_FILL_FRACTION) {
      partialSums.fill(0);
      matchedSlots.fill(0);
    } else {
      for (let i = 0; i < touchedCount; i++) {
        const doc = touched[i]!;
        partialSums[doc] = 0;
        matchedSlots[doc] = 0;
      }
    }
  }
}
