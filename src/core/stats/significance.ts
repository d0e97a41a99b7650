/**
 * Is a measure's difference real? For every candidate × measure of one call: the paired statistics of the
 * candidate against the reference (paired.ts) over the queries both are evaluated on, with the p values
 * corrected over the call's declared family (every candidate × measure), and, on request, a randomized
 * Tukey HSD per measure over the reference and all candidates (tukey.ts) and GeoRisk over them (georisk.ts).
 * The input is per-query values, as trec_eval computes them (core/metrics): this module knows nothing of how
 * they were measured.
 */
import { fnv1a } from '../fnv.ts';
import { adjustPValues, type Correction } from './corrections.ts';
import { geoRisk, type GeoRiskResult } from './georisk.ts';
import { bootstrapIndices, DEFAULT_DELTAS, DEFAULT_POWER, pairedTest, POWER_ALPHA, type PairedResult } from './paired.ts';

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
  /** GeoRisk per measure over the reference and every candidate, at each α of `riskAlphas`. */
  readonly georisk?: boolean;
  /** Power asked of `mde` and `n_needed` (default 0.8). */
  readonly power?: number;
  /** The Δ of `n_needed`, as written (default 0.02, 0.05). */
  readonly deltas?: readonly string[];
}

export interface SignificanceRow extends PairedResult {
  readonly candidate: string;
  readonly measure: string;
  readonly p_t_adjusted: number | null;
  readonly p_randomization_adjusted: number;
  readonly p_wilcoxon_adjusted: number | null;
  readonly p_sign_adjusted: number | null;
}

export interface SignificanceReport {
  readonly reference: string;
  readonly family: {
    readonly correction: Correction;
    readonly members: readonly { readonly candidate: string; readonly measure: string }[];
    readonly permutations: number;
    readonly bootstrap: number;
    readonly seed: number;
    /** The power computations' settings: the paired t-test at `alpha` (two-sided), `level` asked, the Δ of n_needed. */
    readonly power: { readonly level: number; readonly alpha: number; readonly deltas: readonly string[] };
  };
  readonly rows: readonly SignificanceRow[];
  /** Per measure, when asked for: the randomized Tukey HSD over the reference and every candidate. */
  readonly tukey?: Readonly<Record<string, TukeyResult & { readonly n: number }>>;
  /** Per measure, when asked for: GeoRisk over the reference and every candidate (reference first). */
  readonly georisk?: Readonly<Record<string, GeoRiskResult>>;
}

/** Query ids every system has a value for, in code-unit order (what the resampling draws index). */
function sharedQueries(measure: string, systems: readonly SystemValues[]): string[] {
  const first = systems[0]!.byMeasure.get(measure);
  if (first === undefined) return [];
  return [...first.keys()]
    .filter((q) => systems.every((s) => s.byMeasure.get(measure)?.has(q) === true))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The name of a query set (its size and the FNV-1a of its ids): what the bootstrap's resamples are drawn for. */
function querySetKey(queries: readonly string[]): string {
  const bytes = new TextEncoder().encode(queries.join('\u0000'));
  return `${queries.length}|${(fnv1a(bytes) >>> 0).toString(16).padStart(8, '0')}`;
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
  const deltas = options.deltas ?? DEFAULT_DELTAS;
  const power = options.power ?? DEFAULT_POWER;
  // The bootstrap's resamples depend on the seed and the query set only: drawn once for the rows that share a
  // set, while they fit in RESAMPLES_KEPT indices (the CLI's 10,000 × MS MARCO's 7,000 are drawn as used).
  const kept = new Map<string, Uint16Array | Uint32Array>();
  const resamples = (key: string, n: number) => {
    if (n * options.bootstrap > RESAMPLES_KEPT) return undefined;
    let indices = kept.get(key);
    if (indices === undefined) kept.set(key, (indices = bootstrapIndices(n, options.bootstrap, options.seed, key)));
    return indices;
  };
  const raw = members.map(({ candidate, measure }) => {
    const c = candidates.find((x) => x.name === candidate)!;
    const queries = sharedQueries(measure, [reference, c]);
    if (queries.length === 0) throw new RangeError(`${candidate} and ${reference.name} have no evaluated query in common for ${measure}`);
    const key = querySetKey(queries);
    const drawn = resamples(key, queries.length);
    const result = pairedTest(valuesOf(reference, measure, queries), valuesOf(c, measure, queries), {
      permutations: options.permutations,
      bootstrap: options.bootstrap,
      seed: options.seed,
      stream: `${candidate}|${measure}`,
      riskAlphas: options.riskAlphas,
      bootstrapKey: key,
      ...(drawn === undefined ? {} : { resamples: drawn }),
      power,
      deltas,
    });
    return { candidate, measure, ...result };
  });
  const adjusted = (pick: (r: (typeof raw)[number]) => number | null) =>
    adjustPValues(
      raw.map((r) => pick(r)),
      options.correction,
    );
  const pT = adjusted((r) => r.p_t);
  const pR = adjusted((r) => r.p_randomization);
  const pW = adjusted((r) => r.p_wilcoxon);
  const pS = adjusted((r) => r.p_sign);
  const rows = raw.map((r, i) => ({
    ...r,
    p_t_adjusted: pT[i]!,
    p_randomization_adjusted: pR[i]!,
    p_wilcoxon_adjusted: pW[i]!,
    p_sign_adjusted: pS[i]!,
  }));
  let report: SignificanceReport = {
    reference: reference.name,
    family: {
      correction: options.correction,
      members,
      permutations: options.permutations,
      bootstrap: options.bootstrap,
      seed: options.seed,
      power: { level: power, alpha: POWER_ALPHA, deltas },
    },
    rows,
  };
  const systems = [reference, ...candidates];
  const everyQuery = (measure: string): string[] => {
    const queries = sharedQueries(measure, systems);
    if (queries.length === 0) throw new RangeError(`the systems have no evaluated query in common for ${measure}`);
    return queries;
  };
  if (options.tukey) {
    const tukey = Object.fromEntries(
      measures.map((measure) => {
        const queries = everyQuery(measure);
        const result = randomizedTukey(
          systems.map((s) => s.name),
          systems.map((s) => valuesOf(s, measure, queries)),
          { permutations: options.permutations, seed: options.seed, stream: measure },
        );
        return [measure, { ...result, n: queries.length }];
      }),
    );
    report = { ...report, tukey };
  }
  if (options.georisk) {
    const georisk = Object.fromEntries(
      measures.map((measure) => {
        const queries = everyQuery(measure);
        const names = systems.map((s) => s.name);
        return [
          measure,
          geoRisk(
            names,
            systems.map((s) => valuesOf(s, measure, queries)),
            options.riskAlphas,
          ),
        ];
      }),
    );
    report = { ...report, georisk };
  }
  return report;
}
