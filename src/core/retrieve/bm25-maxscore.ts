/**
 * The pruned search both BM25 scorers share: exact top-k by MaxScore (see `searchMaxScore`) over the shared
 * postings (`bm25-postings.ts`), returning exactly what the exhaustive search (`searchExhaustive` in
 * `bm25-scoring.ts`) returns under the scorer's rule, lists and scores.
 */
import { grow } from '../grow.ts';
import { gallop, type Bm25Postings } from './bm25-postings.ts';
import {
  HIST_BUCKETS as SCORING_HIST_BUCKETS,
  MASK_SLOTS as SCORING_MASK_SLOTS,
  rescoreSurvivors,
  scratchFor,
  type Bm25Hits,
  type Bm25Query,
  type Bm25ScoreRule,
  type Scratch,
} from './bm25-scoring.ts';
import { addDenseImpactsToSurvivors, boundCandidatesByCodes, codeLowerBounds, orderSlotsToSettle } from './bm25-maxscore-codes.ts';
import { planMaxScore } from './bm25-maxscore-plan.ts';
import { kthLargestBounded, kthLargestGathered } from './topk.ts';

// Module-local copies of the shared constants the hot loops read: V8 folds a module's own constants into
// optimized code but loads an imported binding each time (5% of the FiQA-sized query pass, measured).
const HIST_BUCKETS = SCORING_HIST_BUCKETS;
const MASK_SLOTS = SCORING_MASK_SLOTS;

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
 * 1. The query's lists (each layer of each slot's term) are read in decreasing bound U = (the slot's
 *    multiplier) × (largest impact in the layer), accumulating float64 partial sums (multiplier × impact)
 *    over every document they touch. A document lies in at most one layer per term, so what an untouched
 *    document can still gain is R = Σ over terms of the bound of the term's highest unread layer.
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
 * 3. The survivors of partial sum ≥ θ (exact k-th) are rescored exactly by the scorer's rule (its steps in
 *    order, its rounding: `rescoreSurvivors`) and selected by (score desc, number asc).
 *
 * The steps are the methods of `MaxScoreSearch`, called in order below: `readWholeLists` (1), then
 * `readListsForCandidates` (2: `settleDenseSlots`, `scanListForCandidates`, `probeListForCandidates`),
 * `cutToExactThreshold` and `rescore` (3). What the scorer plugs in (`Bm25Query`, `Bm25ScoreRule`): its
 * impacts (in the postings), each slot's multiplier, the steps of its final sum and what each adds, and its
 * rounding; the plan is `planMaxScore`.
 *
 * Every bound is widened by ε, more than the relative difference between a document's float64 partial sum
 * and its final score under the rule (m steps: (m + 2)·2⁻²³ under float32 accumulation, the paper's;
 * 2⁻²³ + (m + 2)·2⁻⁵⁰ for a double sum rounded to float32, Lucene's; (m + 2)·2⁻⁵⁰ in double; plus the rule's
 * slack), and a document is dropped only when even its widened bound is strictly below the narrowed θ, so it
 * scores strictly below the final k-th score and cannot tie it: the result is identical to the exhaustive
 * search (tests check this on random and real collections, for both scorers, and fail if Lucene's 2⁻²³ or
 * its slack is dropped). Code bounds are real impacts (the extremes of a code),
 * summed like the partial sums, so the same ε covers them; a regression test fails if the code step drops
 * the widening.
 */
export function searchMaxScore(postings: Bm25Postings, query: Bm25Query, rule: Bm25ScoreRule, k: number): Bm25Hits {
  const search = new MaxScoreSearch(postings, query, rule, k);
  search.collectDenseSlots();
  const candidatesOnly = search.readWholeLists();
  search.takeTouchedAsCandidates();
  if (candidatesOnly) search.readListsForCandidates();
  search.cutToExactThreshold();
  return search.rescore();
}

const LAST_BUCKET = HIST_BUCKETS - 1;

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
 * One query's pruned search (see `searchMaxScore`): the plan (slots, lists, bounds) and the state the
 * phases hand on to each other. Hot loops copy the fields they use into locals and write back once.
 */
class MaxScoreSearch {
  private readonly postings: Bm25Postings;
  private readonly scratch: Scratch;
  private readonly k: number;
  private readonly rule: Bm25ScoreRule;
  private readonly steps: Int32Array;

  // The plan (`planMaxScore`). A slot is a distinct query term; a list is one layer of one slot's term.
  private readonly slotMult: readonly number[];
  private readonly slotWeight: readonly (((position: number) => number) | null)[];
  private readonly slotColumn: Int32Array;
  private readonly slotCount: number;
  private readonly listLayer: readonly number[];
  private readonly listSlot: readonly number[];
  private readonly listBound: readonly number[];
  private readonly listCount: number;
  private readonly readOrder: readonly number[];
  private readonly sumCeiling: number;
  private readonly widen: number;
  private readonly narrow: number;
  private readonly bucketScale: number;

  // The state handed from step to step.
  /** Bound of the slot's highest unread layer (0 once all are read or settled). */
  private readonly slotUnreadBound: Float64Array;
  private readonly slotLayersLeft: Int32Array;
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

  constructor(index: Bm25Postings, query: Bm25Query, rule: Bm25ScoreRule, k: number) {
    this.scratch = scratchFor(index, rule);
    const postings = this.scratch.postings; // one shape for every scorer's index
    this.postings = postings;
    this.k = k;
    this.rule = rule;
    this.steps = query.steps;
    const plan = planMaxScore(postings, query, rule);
    this.slotMult = query.slotMult;
    this.slotWeight = query.slotWeight;
    this.slotColumn = plan.slotColumn;
    this.slotCount = plan.slotCount;
    this.listLayer = plan.listLayer;
    this.listSlot = plan.listSlot;
    this.listBound = plan.listBound;
    this.listCount = plan.listCount;
    this.readOrder = plan.readOrder;
    this.sumCeiling = plan.sumCeiling;
    this.widen = plan.widen;
    this.narrow = plan.narrow;
    this.bucketScale = plan.bucketScale;
    this.slotUnreadBound = plan.slotFirstBound.slice();
    this.slotLayersLeft = plan.slotLayerCount.slice();
    this.unreadBound = plan.sumCeiling;
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
    let count = 0;
    for (let u = 0; u < this.slotCount && u < MASK_SLOTS; u++) {
      const column = this.slotColumn[u]!;
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
    const layerOffsets = this.postings.layerOffsets;
    this.scratch.histogram.fill(0);
    while (this.nextRank < listCount) {
      const list = readOrder[this.nextRank]!;
      const layer = listLayer[list]!;
      const slot = listSlot[list]!;
      const length = layerOffsets[layer + 1]! - layerOffsets[layer]!;
      if (this.denseSlotCount > 0 && this.touchedCount >= k && length > this.touchedCount * CODE_THETA_LIST_RATIO) {
        // Before a list longer than the touched set: θ from the touched documents' partial sums plus their
        // dense codes' lower bounds (k documents score at least that). Often enough to stop reading here.
        const { lowerBounds, work } = this.scratch;
        codeLowerBounds(this.postings, this.scratch, this.touchedCount, this.denseSlotCount);
        this.raiseThreshold(kthLargestBounded(lowerBounds, this.touchedCount, k, this.sumCeiling, work));
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
    const { postingDocs, postingImpacts, layerOffsets } = this.postings;
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
    const { listLayer, listSlot, slotColumn, slotUnreadBound, readOrder, listCount } = this;
    const layerOffsets = this.postings.layerOffsets;
    const { denseSlot } = this.scratch;
    let denseUnsettled = false;
    for (let j = 0; j < this.denseSlotCount; j++) if (slotUnreadBound[denseSlot[j]!]! > 0) denseUnsettled = true;
    for (; this.nextRank < listCount; this.nextRank++) {
      const list = readOrder[this.nextRank]!;
      const slot = listSlot[list]!;
      if ((this.settledSlots & slotBit(slot)) !== 0) continue;
      // A dense column holds the term's impact whatever the layer: only usable when the mask can tell
      // whether the document already matched another layer of the term (slots < 32).
      const column = slot < MASK_SLOTS ? slotColumn[slot]! : -1;
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
    const { postings, scratch, widen, narrow } = this;
    const settling = orderSlotsToSettle(scratch, this.slotColumn, this.slotMult, this.slotUnreadBound, this.slotCount);
    const otherBound = scratch.settleRest[settling]!;
    this.candidateCount = boundCandidatesByCodes(postings, scratch, this.candidateCount, settling, this.threshold * narrow, widen);
    if (this.candidateCount >= this.k) {
      this.raiseThreshold(kthLargestBounded(scratch.lowerBounds, this.candidateCount, this.k, this.sumCeiling, scratch.work));
    }
    this.candidateCount = addDenseImpactsToSurvivors(postings, scratch, this.candidateCount, settling, this.threshold * narrow, widen);
    const { settleSlot } = this.scratch;
    for (let j = 0; j < settling; j++) {
      const slot = settleSlot[j]!;
      this.settledSlots |= 1 << slot;
      this.slotUnreadBound[slot] = 0;
      this.slotLayersLeft[slot] = 0;
    }
    this.unreadBound = otherBound;
  }

  /** Reads a whole list. Guarantees: every candidate in it has the slot's weight and bit, added once. */
  private scanListForCandidates(list: number): void {
    const { postingDocs, postingImpacts, layerOffsets } = this.postings;
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
    const { postingDocs, postingImpacts, layerOffsets, denseImpacts, docCount: n } = this.postings;
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
   * Phase 3: the survivors' exact scores by the scorer's rule (`rescoreSurvivors`), selected by (score desc,
   * number asc). Leaves the scratch zeroed.
   */
  rescore(): Bm25Hits {
    const replay = this.replaySurvivorWeights();
    this.clearScratch();
    const { candidates, heap } = this.scratch;
    return rescoreSurvivors(replay, this.slotCount, candidates, this.candidateCount, this.steps, this.rule, heap, this.k);
  }

  /**
   * Guarantees: replay[q · slots + u] is what a step of slot u adds to survivor q's score (0 where it lacks
   * the term): the impact, read from the slot's dense column or by galloping through each layer in survivor
   * (number) order, or the slot's own weight of the posting found so.
   */
  private replaySurvivorWeights(): Float64Array {
    const s = this.scratch;
    const { postingDocs, postingImpacts, layerOffsets, denseImpacts, docCount: n } = this.postings;
    const { listLayer, listSlot, slotColumn, slotWeight, slotCount, listCount } = this;
    const { candidates, matchedSlots } = s;
    const count = this.candidateCount;
    if (s.replay.length < count * slotCount) s.replay = grow(s.replay, count * slotCount);
    const replay = s.replay;
    replay.fill(0, 0, count * slotCount);
    for (let u = 0; u < slotCount; u++) {
      const column = slotColumn[u]!;
      if (column < 0 || slotWeight[u]) continue;
      const base = column * n;
      for (let q = 0; q < count; q++) replay[q * slotCount + u] = denseImpacts[base + candidates[q]!]!;
    }
    for (let i = 0; i < listCount; i++) {
      const slot = listSlot[i]!;
      const weight = slotWeight[slot] ?? null;
      if (slotColumn[slot]! >= 0 && weight === null) continue;
      const layer = listLayer[i]!;
      const tracked = slot < MASK_SLOTS;
      const bit = slotBit(slot);
      const end = layerOffsets[layer + 1]!;
      let pos = layerOffsets[layer]!;
      for (let q = 0; q < count && pos < end; q++) {
        const doc = candidates[q]!;
        if (tracked && (matchedSlots[doc]! & bit) === 0) continue; // no layer of this term holds doc
        pos = gallop(postingDocs, pos, end, doc);
        if (pos < end && postingDocs[pos] === doc) replay[q * slotCount + slot] = weight === null ? postingImpacts[pos]! : weight(pos);
      }
    }
    return replay;
  }

  /** Zeroes the partial sums and masks of every touched document (by fill when most of the corpus was touched). */
  private clearScratch(): void {
    const { partialSums, matchedSlots, touched } = this.scratch;
    const touchedCount = this.touchedCount;
    if (touchedCount > this.postings.docCount / RESET_FILL_FRACTION) {
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
