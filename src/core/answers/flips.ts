/**
 * Answer-level flips (RAGFlip §3.5, §4.5, Table 9): are retrieval negative flips accompanied by answer
 * regressions? For each candidate at depth k:
 *
 *   flip set       every negative-flip query (supported by the reference at k, not by the candidate)
 *   control        a same-size sample of the queries supported by both, drawn reproducibly: the ids sorted
 *                  (UTF-16 code units), shuffled by Fisher–Yates driven by mulberry32(seed), the first n
 *                  taken; all of them, and said so, when fewer exist than flips
 *   regression     correct from the reference's passages, incorrect from the candidate's
 *
 * Queries without a gold answer are left out of both (listed, with a count), as are queries missing a
 * prediction from either side. The counts are descriptive (the paper: "based on small subgroups"); rates
 * carry 95% Wilson intervals like the paper's other tables.
 */
import { mulberry32 } from '../random.ts';
import { wilson, type Estimate } from '../stats/index.ts';

export { mulberry32 };
import type { QueryId } from '../types.ts';

/** The control sample's generator, named in every report so a sample can be redrawn anywhere. */
export const CONTROL_PRNG = 'mulberry32';
export const DEFAULT_ANSWER_SEED = 1;
export const DEFAULT_ANSWER_DEPTH = 10;

/** `size` ids from `pool`: sorted, shuffled with mulberry32(seed) (Fisher–Yates from the end), the first `size`. */
export function controlSample(pool: readonly string[], size: number, seed: number): string[] {
  const ids = [...pool].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const random = mulberry32(seed);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return ids.slice(0, Math.max(0, size));
}

/** Per query: was the answer from these passages correct (undefined: no prediction for it). */
export type AnswerCorrectness = ReadonlyMap<string, boolean>;

export interface AnswerFlipCandidateInput {
  readonly name: string;
  /** First rank at which the candidate supports each cohort query (NEVER when it does not). */
  readonly ranks: Int32Array;
  readonly answers: AnswerCorrectness;
}

export interface AnswerFlipInput {
  readonly k: number;
  readonly seed: number;
  /** The cohort (queries with a positive judgment), aligned with every ranks array. */
  readonly queries: readonly QueryId[];
  readonly reference: { readonly name: string; readonly ranks: Int32Array; readonly answers: AnswerCorrectness };
  readonly candidates: readonly AnswerFlipCandidateInput[];
  /** Queries that have at least one gold answer. */
  readonly gold: ReadonlySet<string>;
}

export interface CountEstimate {
  readonly count: number;
  readonly of: number;
  readonly rate: Estimate;
}

export interface AnswerFlipRow {
  readonly name: string;
  /** Flip-set size: negative flips with a gold answer and both predictions (what the rates count). */
  readonly flips: number;
  /** Control queries with both predictions. */
  readonly control: number;
  /** True when fewer both-supported queries existed than flips (the control is all of them). */
  readonly controlShort: boolean;
  readonly regressionsAmongFlips: CountEstimate;
  readonly regressionsInControl: CountEstimate;
  readonly flipsIncorrectFromReference: CountEstimate;
  /** Among flips answered correctly from the reference, how many became incorrect. */
  readonly becameIncorrect: CountEstimate;
  /** Answer regressions among flips as a share of every reference-supported query at k. */
  readonly shareOfReferenceSupported: CountEstimate;
  /** The queries to answer: every negative flip with a gold answer, and the control sample drawn for them. */
  readonly flipQueries: readonly string[];
  readonly controlQueries: readonly string[];
  /** Left out: negative flips without a gold answer; flip or control queries without a prediction on a side. */
  readonly missingGold: readonly string[];
  readonly missingPredictions: readonly string[];
}

export interface AnswerFlipReport {
  readonly k: number;
  readonly seed: number;
  readonly prng: typeof CONTROL_PRNG;
  readonly reference: string;
  /** Cohort queries the reference supports at k (the denominator of `shareOfReferenceSupported`). */
  readonly referenceSupported: number;
  readonly queries: number;
  readonly candidates: readonly AnswerFlipRow[];
}

const estimate = (count: number, of: number): CountEstimate => ({ count, of, rate: wilson(count, of) });

export function answerFlipReport(input: AnswerFlipInput): AnswerFlipReport {
  const { k, queries, reference } = input;
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`the depth must be a positive integer, got ${k}`);
  let referenceSupported = 0;
  for (let i = 0; i < queries.length; i++) if (reference.ranks[i]! <= k) referenceSupported++;
  const candidates = input.candidates.map((c): AnswerFlipRow => {
    if (c.ranks.length !== queries.length || reference.ranks.length !== queries.length)
      throw new RangeError(`${c.name}: ranks for ${c.ranks.length} queries, the cohort has ${queries.length}`);
    // The sets depend on retrieval and gold answers only, never on which predictions exist: the sample a
    // reader is run on is the sample the report is computed over.
    const flipSet: string[] = [];
    const both: string[] = [];
    const missingGold: string[] = [];
    for (let i = 0; i < queries.length; i++) {
      if (reference.ranks[i]! > k) continue;
      const q = queries[i] as string;
      const broken = c.ranks[i]! > k;
      if (!input.gold.has(q)) {
        if (broken) missingGold.push(q);
      } else (broken ? flipSet : both).push(q);
    }
    const controlSet = controlSample(both, flipSet.length, input.seed);
    const answered = (q: string) => reference.answers.has(q) && c.answers.has(q);
    const flips = flipSet.filter(answered);
    const control = controlSet.filter(answered);
    const missingPredictions = [...flipSet, ...controlSet].filter((q) => !answered(q));
    const regression = (q: string) => reference.answers.get(q) === true && c.answers.get(q) === false;
    const regressions = flips.filter(regression).length;
    const incorrectFromReference = flips.filter((q) => reference.answers.get(q) === false).length;
    return {
      name: c.name,
      flips: flips.length,
      control: control.length,
      controlShort: controlSet.length < flipSet.length,
      regressionsAmongFlips: estimate(regressions, flips.length),
      regressionsInControl: estimate(control.filter(regression).length, control.length),
      flipsIncorrectFromReference: estimate(incorrectFromReference, flips.length),
      becameIncorrect: estimate(regressions, flips.length - incorrectFromReference),
      shareOfReferenceSupported: estimate(regressions, referenceSupported),
      flipQueries: flipSet,
      controlQueries: controlSet,
      missingGold,
      missingPredictions,
    };
  });
  return {
    k,
    seed: input.seed,
    prng: CONTROL_PRNG,
    reference: reference.name,
    referenceSupported,
    queries: queries.length,
    candidates,
  };
}
