/**
 * Is a measure's difference real? For every candidate × measure of one call: the paired statistics of the
 * candidate against the reference (paired.ts) over the queries both are evaluated on, with the p values
 * corrected over the call's declared family (every candidate × measure), and, on request, a randomized
 * Tukey HSD per measure over the reference and all candidates (tukey.ts). The input is per-query values,
 * as trec_eval computes them (core/metrics): this module knows nothing of how they were measured.
 */
import { adjustPValues, type Correction } from './corrections.ts';
import { bootstrapIndices, pairedTest, type PairedResult } from './paired.ts';

/** Bootstrap indices a call keeps for reuse: 16M (32 MB as 16-bit indices). */
const RESAMPLES_KEPT = 16_000_000;
import { randomizedTukey, type TukeyResult } from './tukey.ts';

export const DEFAULT_PERMUTATIONS = 10_000;
export const DEFAULT_BOOTSTRAP = 10_000;
export const DEFAULT_SEED = 42;
export const DEFAULT_RISK_ALPHAS: readonly number[] = [1, 5];
/** trec_eval's names of the default measures. */
export const DEFAULT_SIGNIFICANCE_MEASURES: readonly string[] = ['ndcg_cut_10', 'recip_rank'];

/** One system's per-query values of each measure: measure (trec_eval's name) → query id → value. */
export interface SystemValues {
  readonly name: string;
  readonly byMeasure: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

export interface SignificanceOptions {
  readonly permutations: number;
  readonly bootstrap: number;
  readonly seed: number;
  readonly correction: Correction;
  readonly riskAlphas: readonly number[];
  readonly tukey: boolean;
}

export interface SignificanceRow extends PairedResult {
  readonly candidate: string;
  readonly measure: string;
  readonly p_t_adjusted: number | null;
  readonly p_randomization_adjusted: number;
}

export interface SignificanceReport {
  readonly reference: string;
  readonly family: {
    readonly correction: Correction;
    readonly members: readonly { readonly candidate: string; readonly measure: string }[];
    readonly permutations: number;
    readonly bootstrap: number;
    readonly seed: number;
  };
  readonly rows: readonly SignificanceRow[];
  /** Per measure, when asked for: the randomized Tukey HSD over the reference and every candidate. */
  readonly tukey?: Readonly<Record<string, TukeyResult & { readonly n: number }>>;
}

/** Query ids every system has a value for, in code-unit order (what the resampling draws index). */
function sharedQueries(measure: string, systems: readonly SystemValues[]): string[] {
  const first = systems[0]!.byMeasure.get(measure);
  if (first === undefined) return [];
  return [...first.keys()]
    .filter((q) => systems.every((s) => s.byMeasure.get(measure)?.has(q) === true))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const valuesOf = (system: SystemValues, measure: string, queries: readonly string[]): Float64Array => {
  const m = system.byMeasure.get(measure)!;
  return Float64Array.from(queries, (q) => m.get(q)!);
};

/**
 * The paired tests of each candidate against the reference on each measure. Throws a RangeError naming
 * the pair when a candidate and the reference share no evaluated query for a measure.
 */
export function significance(
  reference: SystemValues,
  candidates: readonly SystemValues[],
  measures: readonly string[],
  options: SignificanceOptions,
): SignificanceReport {
  const members = candidates.flatMap((c) => measures.map((measure) => ({ candidate: c.name, measure })));
  // The bootstrap's resamples depend on the seed and n only: drawn once for the rows that share an n, while
  // they fit in RESAMPLES_KEPT indices (the CLI's 10,000 × MS MARCO's 7,000 are drawn as used, row by row).
  const kept = new Map<number, Uint16Array | Uint32Array>();
  const resamples = (n: number) => {
    if (n * options.bootstrap > RESAMPLES_KEPT) return undefined;
    let indices = kept.get(n);
    if (indices === undefined) kept.set(n, (indices = bootstrapIndices(n, options.bootstrap, options.seed)));
    return indices;
  };
  const raw = members.map(({ candidate, measure }) => {
    const c = candidates.find((x) => x.name === candidate)!;
    const queries = sharedQueries(measure, [reference, c]);
    if (queries.length === 0) throw new RangeError(`${candidate} and ${reference.name} have no evaluated query in common for ${measure}`);
    const result = pairedTest(valuesOf(reference, measure, queries), valuesOf(c, measure, queries), {
      permutations: options.permutations,
      bootstrap: options.bootstrap,
      seed: options.seed,
      stream: `${candidate}|${measure}`,
      riskAlphas: options.riskAlphas,
      resamples,
    });
    return { candidate, measure, ...result };
  });
  const pT = adjustPValues(
    raw.map((r) => r.p_t),
    options.correction,
  );
  const pR = adjustPValues(
    raw.map((r) => r.p_randomization),
    options.correction,
  );
  const rows = raw.map((r, i) => ({ ...r, p_t_adjusted: pT[i]!, p_randomization_adjusted: pR[i]! }));
  const report: SignificanceReport = {
    reference: reference.name,
    family: {
      correction: options.correction,
      members,
      permutations: options.permutations,
      bootstrap: options.bootstrap,
      seed: options.seed,
    },
    rows,
  };
  if (!options.tukey) return report;
  const systems = [reference, ...candidates];
  const tukey = Object.fromEntries(
    measures.map((measure) => {
      const queries = sharedQueries(measure, systems);
      if (queries.length === 0) throw new RangeError(`the systems have no evaluated query in common for ${measure}`);
      const result = randomizedTukey(
        systems.map((s) => s.name),
        systems.map((s) => valuesOf(s, measure, queries)),
        { permutations: options.permutations, seed: options.seed, stream: measure },
      );
      return [measure, { ...result, n: queries.length }];
    }),
  );
  return { ...report, tukey };
}
