/**
 * The statistics of fliplab, one module an idea (DESIGN.md "Definitions" and "Is the difference real?"): rates
 * with Wilson intervals, the exact McNemar test and the net-gain interval of the flips; multiple-comparison
 * corrections; Student's t, the normal distribution and the t-test's power; the paired tests on per-query
 * measures (t, randomization, Wilcoxon, sign, bootstrap, risk), the randomized Tukey HSD and GeoRisk over a
 * track, and their text tables.
 */
export { wilson, Z_95, UNDEFINED_ESTIMATE, type Estimate } from './wilson.ts';
export { netGainInterval } from './net-gain.ts';
export { exactMcNemar } from './mcnemar.ts';
export { holm } from './holm.ts';
export { adjustPValues, benjaminiHochberg, CORRECTIONS, type Correction } from './corrections.ts';
export { lnGamma, regularizedBeta, studentTCdf, studentTQuantile, t95, tTwoSided } from './t-dist.ts';
export { normalCdf } from './normal.ts';
export { minimumDetectableEffect, noncentralTCdf, pairedPower, queriesNeeded } from './power.ts';
export { signTest, wilcoxonSignedRank, type WilcoxonResult } from './rank-tests.ts';
export { meanSd, pairedTest, risk, riskOfCounts, type PairedOptions, type PairedResult, type RiskValue } from './paired.ts';
export { randomizedTukey, type TukeyResult } from './tukey.ts';
export { geoRisk, type GeoRiskResult } from './georisk.ts';
export {
  DEFAULT_BOOTSTRAP,
  DEFAULT_PERMUTATIONS,
  DEFAULT_SEED,
  significance,
  type SignificanceOptions,
  type SignificanceReport,
  type SignificanceRow,
  type SystemValues,
} from './significance.ts';
export { familyLine, formatSignificance, geoRiskTables, powerTables, significanceTables, tukeyLetters } from './format.ts';
