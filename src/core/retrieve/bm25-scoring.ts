/**
 * What a BM25 scorer hands the shared search (`bm25-engine.ts`), and how its score rule turns impacts into
 * final scores: a query as slots over the shared postings (`Bm25Query`), the rule (`Bm25ScoreRule`), the
 * per-postings scratch both strategies reuse, the exhaustive search (every posting, in the rule's order),
 * and the rescoring of the pruned search's survivors by the same rule. Ranking is (score desc, document
 * number asc): each scorer numbers its documents so that this is its tie rule.
 */
import type { Bm25Postings } from './bm25-postings.ts';
import { BM25_MAX_DEPTH } from './bm25-params.ts';
import { TopKHeap } from './topk.ts';

/**
 * One query over the postings. A slot is one distinct query term (for Anserini, one per field and term).
 * The final score adds the slots' weights in `steps` order, one addition per step: the paper lists a term
 * once per occurrence in the query (a repeated token adds its impact again), Anserini each clause once, in
 * decreasing bound. The pruned search's float64 partial sums add each posting's impact times its slot's
 * multiplier, in whatever order it reads the lists.
 */
export interface Bm25Query {
  /** Per slot: its term in the postings. */
  readonly slotTerm: readonly number[];
  /** Per slot: the multiplier of its impacts in the partial sums (the paper: its steps; Lucene: the boost). */
  readonly slotMult: readonly number[];
  /** Slot per addition, in the order the final score adds them. */
  readonly steps: Int32Array;
  /**
   * Per slot (missing: null), null: a step adds the posting's impact. Otherwise what a step adds for the
   * posting at a position (Lucene's repeated terms: the count is a boost inside the formula, not a
   * multiplier of it); it lies within `Bm25ScoreRule.slack` of multiplier × impact, relatively.
   */
  readonly slotWeight: readonly (((position: number) => number) | null)[];
}

/** How a scorer forms a score from its weights. */
export interface Bm25ScoreRule {
  /** 'float32': every addition rounded to float32 (the paper's float32 score buffer); 'float64': added in double. */
  readonly accumulate: 'float32' | 'float64';
  /** The final sum rounded to float32 (Lucene's float of the double sum of the clause scores). */
  readonly roundFinal: boolean;
  /**
   * Every weight is > 0, so a zero sum marks an untouched document. False (Lucene's float scores can round
   * to 0 with an extreme k1): only the exhaustive search runs, with a mark per touched document.
   */
  readonly positive: boolean;
  /**
   * How far, relatively, a step's weight may lie from its slot's multiplier × impact (0 unless `slotWeight`
   * is given); the pruned search widens its bounds by it. Infinity: only the exhaustive search runs.
   */
  readonly slack: number;
}

/** One query's result: document numbers best first and their scores (float32 under a float32 rule). */
export interface Bm25Hits {
  readonly docs: Uint32Array;
  readonly scores: Float32Array | Float64Array;
}

/** Scores come out as float32 under either float32 rounding. */
export function roundsToFloat32(rule: Bm25ScoreRule): boolean {
  return rule.accumulate === 'float32' || rule.roundFinal;
}

/**
 * Query slots (distinct terms) with a bit in the pruned search's per-document match mask. Later slots use no
 * dense column, no per-slot room and no settling, and rescoring searches their lists for every survivor.
 */
export const MASK_SLOTS = 32;
/** Histogram resolution of the pruned search's θ estimates (θ is only ever under-estimated, by ≤ max/HIST_BUCKETS). */
export const HIST_BUCKETS = 1024;

/** Per-postings reusable buffers, kept outside the postings so they stay plain data. */
export interface Scratch {
  /**
   * The postings' own fields, copied into one object literal: whichever scorer's index is searched, the
   * shared loops then read one object shape (a second shape costs the paper's queries ~5% in a process that
   * also runs Anserini's, measured on the FiQA-sized collection).
   */
  readonly postings: Bm25Postings;
  /** Partial float64 sums per document (pruned search; −∞ once pruned); zero between queries. */
  readonly partialSums: Float64Array;
  /** The exhaustive search's score buffer, of the rule's accumulation type; zero between queries. */
  exact: Float32Array | Float64Array;
  /** 1 per document touched by an exhaustive search under a rule whose weights can be 0; zero between queries. */
  readonly marks: Uint8Array;
  /** Per document: bit u set when it matched query slot u (u < 32); zero between queries. */
  readonly matchedSlots: Uint32Array;
  /** Documents whose partial sum (pruned search) or score (exhaustive search) this query set, first touch first. */
  readonly touched: Uint32Array;
  readonly candidates: Uint32Array;
  /** Selection workspace. */
  readonly work: Float64Array;
  /** Lower and upper bounds per touched document or candidate, from the dense codes. */
  readonly lowerBounds: Float64Array;
  readonly upperBounds: Float64Array;
  /** The query's dense slots (slots < 32 whose term has a dense column): slot, column, multiplicity. */
  readonly denseSlot: Int32Array;
  readonly denseSlotColumn: Int32Array;
  readonly denseSlotMult: Float64Array;
  /** Dense slots being settled, by decreasing bound: slot, column, multiplicity, bound. */
  readonly settleSlot: Int32Array;
  readonly settleColumn: Int32Array;
  readonly settleMult: Float64Array;
  readonly settleBound: Float64Array;
  /** settleRest[j]: what settled slots j.. and every other slot can still add at most (length 33). */
  readonly settleRest: Float64Array;
  /** Histogram of the partial sums, for θ estimates. */
  readonly histogram: Int32Array;
  readonly heap: TopKHeap;
  /** Final candidates × query slots: each survivor's weight per slot, for the rescoring. */
  replay: Float64Array;
}

const scratchOf = new WeakMap<Bm25Postings, Scratch>();

export function scratchFor(postings: Bm25Postings, rule: Bm25ScoreRule): Scratch {
  const n = postings.docCount;
  const float32 = rule.accumulate === 'float32';
  let s = scratchOf.get(postings);
  if (!s) {
    s = {
      postings: {
        docCount: n,
        termLayers: postings.termLayers,
        layerOffsets: postings.layerOffsets,
        layerMaxImpact: postings.layerMaxImpact,
        postingDocs: postings.postingDocs,
        postingImpacts: postings.postingImpacts,
        denseColumn: postings.denseColumn,
        denseImpacts: postings.denseImpacts,
        denseCodes: postings.denseCodes,
        denseCodeLow: postings.denseCodeLow,
        denseCodeHigh: postings.denseCodeHigh,
      },
      partialSums: new Float64Array(n),
      exact: float32 ? new Float32Array(n) : new Float64Array(n),
      marks: new Uint8Array(n),
      matchedSlots: new Uint32Array(n),
      touched: new Uint32Array(n),
      candidates: new Uint32Array(n),
      work: new Float64Array(n),
      lowerBounds: new Float64Array(n),
      upperBounds: new Float64Array(n),
      denseSlot: new Int32Array(MASK_SLOTS),
      denseSlotColumn: new Int32Array(MASK_SLOTS),
      denseSlotMult: new Float64Array(MASK_SLOTS),
      settleSlot: new Int32Array(MASK_SLOTS),
      settleColumn: new Int32Array(MASK_SLOTS),
      settleMult: new Float64Array(MASK_SLOTS),
      settleBound: new Float64Array(MASK_SLOTS),
      settleRest: new Float64Array(MASK_SLOTS + 1),
      histogram: new Int32Array(HIST_BUCKETS),
      heap: new TopKHeap(BM25_MAX_DEPTH),
      replay: new Float64Array(1024),
    };
    scratchOf.set(postings, s);
  } else if (s.exact instanceof Float32Array !== float32) {
    s.exact = float32 ? new Float32Array(n) : new Float64Array(n);
  }
  return s;
}

export function checkDepth(depth: number): void {
  if (!Number.isInteger(depth) || depth < 1 || depth > BM25_MAX_DEPTH) {
    throw new RangeError(`BM25 depth must be an integer in [1, ${BM25_MAX_DEPTH}], got ${depth}`);
  }
}

export function emptyHits(rule: Bm25ScoreRule): Bm25Hits {
  return { docs: new Uint32Array(0), scores: roundsToFloat32(rule) ? new Float32Array(0) : new Float64Array(0) };
}

export function drainHits(heap: TopKHeap, rule: Bm25ScoreRule): Bm25Hits {
  const r = roundsToFloat32(rule) ? heap.drain((n) => new Float32Array(n)) : heap.drain((n) => new Float64Array(n));
  return { docs: r.indices, scores: r.scores };
}

/** Postings [start, end) of a term, all its layers (they are contiguous). */
export function termStart(postings: Bm25Postings, term: number): number {
  return postings.layerOffsets[postings.termLayers[term]!]!;
}
export function termEnd(postings: Bm25Postings, term: number): number {
  return postings.layerOffsets[postings.termLayers[term + 1]!]!;
}

/**
 * The reference algorithm of either scorer: every posting of every step, in step order, into the score
 * buffer (a Float32Array store is `fround(v + w)`: the paper's rounding), then selection by (score desc,
 * number asc), each score rounded as the rule says.
 */
export function searchExhaustive(index: Bm25Postings, query: Bm25Query, rule: Bm25ScoreRule, k: number): Bm25Hits {
  const s = scratchFor(index, rule);
  const { touched, marks, postings } = s;
  const sc = s.exact;
  const { slotTerm, steps } = query;
  const { postingDocs: docs, postingImpacts: imp } = postings;
  let nt = 0;
  for (let x = 0; x < steps.length; x++) {
    const slot = steps[x]!;
    const t = slotTerm[slot]!;
    const start = termStart(postings, t);
    const end = termEnd(postings, t);
    const weight = query.slotWeight[slot] ?? null;
    // One loop per buffer type, so each stays monomorphic when both scorers run in one process.
    if (weight !== null || !rule.positive) nt = addWeighted(sc, rule.positive ? null : marks, touched, nt, docs, imp, weight, start, end);
    else if (sc instanceof Float32Array) nt = addFloat32(sc, touched, nt, docs, imp, start, end);
    else nt = addFloat64(sc, touched, nt, docs, imp, start, end);
  }
  const heap = s.heap;
  heap.reset(Math.min(k, nt));
  const round = rule.roundFinal;
  for (let i = 0; i < nt; i++) {
    const d = touched[i]!;
    heap.push(d, round ? Math.fround(sc[d]!) : sc[d]!);
    sc[d] = 0;
  }
  if (!rule.positive) for (let i = 0; i < nt; i++) marks[touched[i]!] = 0;
  return drainHits(heap, rule);
}

function addFloat32(
  sc: Float32Array,
  touched: Uint32Array,
  nt: number,
  docs: Uint32Array,
  imp: Float64Array,
  start: number,
  end: number,
): number {
  for (let j = start; j < end; j++) {
    const d = docs[j]!;
    const v = sc[d]!;
    if (v === 0) touched[nt++] = d;
    sc[d] = v + imp[j]!;
  }
  return nt;
}

function addFloat64(
  sc: Float64Array,
  touched: Uint32Array,
  nt: number,
  docs: Uint32Array,
  imp: Float64Array,
  start: number,
  end: number,
): number {
  for (let j = start; j < end; j++) {
    const d = docs[j]!;
    const v = sc[d]!;
    if (v === 0) touched[nt++] = d;
    sc[d] = v + imp[j]!;
  }
  return nt;
}

/**
 * The other additions: the slot's own weights (`weight`, else the impacts), and with `marks` a mark per
 * touched document, for weights that can be 0.
 */
function addWeighted(
  sc: Float32Array | Float64Array,
  marks: Uint8Array | null,
  touched: Uint32Array,
  nt: number,
  docs: Uint32Array,
  imp: Float64Array,
  weight: ((position: number) => number) | null,
  start: number,
  end: number,
): number {
  for (let j = start; j < end; j++) {
    const d = docs[j]!;
    const v = sc[d]!;
    if (marks === null ? v === 0 : marks[d] === 0) {
      if (marks !== null) marks[d] = 1;
      touched[nt++] = d;
    }
    sc[d] = v + (weight === null ? imp[j]! : weight(j));
  }
  return nt;
}

/**
 * The survivors' final scores by the rule: survivor q's weight for slot u is `replay[q · slotCount + u]` (0
 * where it lacks the term); the steps add them in order (a zero adds nothing under either rule), and the
 * selection keeps the top k by (score desc, number asc).
 */
export function rescoreSurvivors(
  replay: Float64Array,
  slotCount: number,
  candidates: Uint32Array,
  count: number,
  steps: Int32Array,
  rule: Bm25ScoreRule,
  heap: TopKHeap,
  k: number,
): Bm25Hits {
  const float32 = rule.accumulate === 'float32';
  const round = rule.roundFinal;
  const m = steps.length;
  heap.reset(Math.min(k, count));
  for (let q = 0; q < count; q++) {
    const row = q * slotCount;
    let score = 0;
    for (let x = 0; x < m; x++) {
      const w = replay[row + steps[x]!]!;
      if (w !== 0) score = float32 ? Math.fround(score + w) : score + w;
    }
    heap.push(candidates[q]!, round ? Math.fround(score) : score);
  }
  return drainHits(heap, rule);
}
