/**
 * Gain tables for the measures that take `level=gain` parameters (ndcg, ndcg_rel, Rndcg, G, rbp), as
 * trec_eval's setup_gains (gain_init.c) builds them: every level 0..max judged grade exists with the
 * grade as default gain; parameters override or add levels; levels are sorted by gain ascending and the
 * ideal ranking takes them from the top, each `count` times, while the gain is > 0.
 *
 * trec_eval sorts with a comparator that truncates the gain difference to int, so two gains less than
 * 1 apart compare equal and keep input order (glibc qsort is a stable merge sort); we use the same
 * truncating comparator with JavaScript's stable sort. Integer gains (the default) are unaffected.
 *
 * The table for the default gains depends only on the judgments, so it is cached on the JudgedQuery.
 */
import type { JudgedQuery } from './judged.ts';
import type { MeasureParams } from './measure.ts';

interface GainLevel {
  level: number;
  count: number;
  gain: number;
}

export interface GainTable {
  /**
   * Positive gains of the ideal ranking in rank order (the values m_ndcg.c's level walk yields before
   * its first non-positive gain; every later rank gains 0).
   */
  readonly ideal: Float64Array;
  /** Gain of the top level before the walk starts (the loops test `ideal_gain > 0` on it first). */
  readonly initial: number;
  /** Smallest and largest gain over all levels (rbp's rescaling); ±Infinity when there are none. */
  readonly min: number;
  readonly max: number;
  /** Gain of a relevance code (0 for a code with no level, e.g. not in the qrels). */
  gainOf(rel: number): number;
  /** Gain after rbp's rescaling to [0, 1] (identity when all gains already lie there). */
  scaledGainOf(rel: number): number;
}

const gradeGain = (rel: number): number => (rel > 0 ? rel : 0);

/** trec_eval str_to_long on a pair name, accepted only when it is an integer (gain_init.c valid_int). */
function parseLevel(name: string): number | undefined {
  return /^[+-]?\d+$/.test(name) ? Number.parseInt(name, 10) : undefined;
}

function defaultTable(judged: JudgedQuery): GainTable {
  const n = judged.numRelLevels;
  const max = n > 0 ? n - 1 : Number.NEGATIVE_INFINITY;
  const scale = max > 1;
  return {
    ideal: judged.idealGains,
    initial: n > 0 ? n - 1 : 0,
    min: n > 0 ? 0 : Number.POSITIVE_INFINITY,
    max,
    gainOf: gradeGain,
    // levels are 0..max with gain = level, so (g − 0)/(max − 0); codes without a level stay 0
    scaledGainOf: scale ? (rel) => (rel > 0 ? rel / max : 0) : gradeGain,
  };
}

function paramTable(judged: JudgedQuery, params: MeasureParams): GainTable {
  const levels: GainLevel[] = [];
  for (const p of params.pairs) {
    const level = parseLevel(p.level);
    if (level === undefined) continue; // gain_init.c skips names that are not integers (rbp's "p")
    levels.push({ level, count: 0, gain: p.gain });
  }
  let k = 0;
  for (let level = 0; level < judged.numRelLevels; level++) {
    const count = judged.levels[k] === level ? judged.counts[k++]! : 0;
    const existing = levels.find((l) => l.level === level);
    if (existing) existing.count = count;
    else levels.push({ level, count, gain: level });
  }
  levels.sort((a, b) => Math.trunc(a.gain - b.gain));

  const ideal: number[] = [];
  for (let li = levels.length - 1; li >= 0 && levels[li]!.gain > 0; li--) {
    for (let c = 0; c < levels[li]!.count; c++) ideal.push(levels[li]!.gain);
  }
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const l of levels) {
    if (l.gain < min) min = l.gain;
    if (l.gain > max) max = l.gain;
  }
  // get_gain returns the first match in sorted order
  const byLevel = new Map<number, number>();
  for (let i = levels.length - 1; i >= 0; i--) byLevel.set(levels[i]!.level, levels[i]!.gain);
  const gainOf = (rel: number): number => byLevel.get(rel) ?? 0;
  const scale = min < 0 || max > 1;
  return {
    ideal: Float64Array.from(ideal),
    initial: levels.length > 0 ? levels[levels.length - 1]!.gain : 0,
    min,
    max,
    gainOf,
    scaledGainOf: scale
      ? (rel) => {
          const g = byLevel.get(rel);
          return g === undefined ? 0 : (g - min) / (max - min);
        }
      : gainOf,
  };
}

const defaults = new WeakMap<JudgedQuery, GainTable>();

/** The gain table of one query for these parameters (default table cached per query). */
export function gainTable(judged: JudgedQuery, params: MeasureParams): GainTable {
  if (params.pairs.length > 0) return paramTable(judged, params);
  let t = defaults.get(judged);
  if (!t) defaults.set(judged, (t = defaultTable(judged)));
  return t;
}
