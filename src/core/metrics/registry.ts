/**
 * The measures, keyed by trec_eval name, in trec_eval's table order (measures.c of trec_eval 10.0; 9.0.8's
 * table is the same without dcg, ideal_dcg, rbp, rbp_resid and unj). Output is always in this order,
 * whatever order they were requested in — as trec_eval prints. Our extensions (recip_rank_cut, ncg_cut)
 * follow.
 */
import { binG } from './bin-g.ts';
import { bpref } from './bpref.ts';
import { elevenPtAvg } from './eleven-pt-avg.ts';
import { gMeasure } from './g.ts';
import { gmBpref } from './gm-bpref.ts';
import { gmMap } from './gm-map.ts';
import { infAP } from './infap.ts';
import { iprecAtRecall } from './iprec-at-recall.ts';
import { map } from './map.ts';
import { mapCut } from './map-cut.ts';
import type { MeasureDef } from './measure.ts';
import { ncgCut } from './ncg-cut.ts';
import { dcg, idealDcg, ndcg } from './ndcg.ts';
import { ndcgCut } from './ndcg-cut.ts';
import { ndcgRel } from './ndcg-rel.ts';
import { numNonrelJudgedRet } from './num-nonrel-judged-ret.ts';
import { numQ } from './num-q.ts';
import { numRel } from './num-rel.ts';
import { numRelRet } from './num-rel-ret.ts';
import { numRet } from './num-ret.ts';
import { precision } from './precision.ts';
import { rbp } from './rbp.ts';
import { rbpResid } from './rbp-resid.ts';
import { recall } from './recall.ts';
import { recipRank } from './recip-rank.ts';
import { recipRankCut } from './recip-rank-cut.ts';
import { relativePrecision } from './relative-precision.ts';
import { relstring } from './relstring.ts';
import { rndcg } from './rndcg.ts';
import { rprec } from './rprec.ts';
import { rprecMult } from './rprec-mult.ts';
import { runid } from './runid.ts';
import { setF } from './set-f.ts';
import { setMap } from './set-map.ts';
import { setPrecision } from './set-precision.ts';
import { setRecall } from './set-recall.ts';
import { setRelativePrecision } from './set-relative-precision.ts';
import { success } from './success.ts';
import { unjudged } from './unjudged.ts';
import { utility } from './utility.ts';
import type { TrecEvalVersion } from './version.ts';
import { yaap } from './yaap.ts';

/** Every implemented measure in print order. */
export const MEASURES: readonly MeasureDef[] = [
  runid,
  numQ,
  numRet,
  numRel,
  numRelRet,
  map,
  gmMap,
  rprec,
  bpref,
  recipRank,
  iprecAtRecall,
  precision,
  relstring,
  recall,
  infAP,
  gmBpref,
  rprecMult,
  utility,
  elevenPtAvg,
  binG,
  gMeasure,
  dcg,
  idealDcg,
  ndcg,
  ndcgRel,
  rndcg,
  ndcgCut,
  mapCut,
  relativePrecision,
  success,
  setPrecision,
  setRelativePrecision,
  setRecall,
  setMap,
  setF,
  numNonrelJudgedRet,
  yaap,
  rbp,
  rbpResid,
  unjudged,
  // extensions, not in trec_eval
  recipRankCut,
  ncgCut,
];

const BY_NAME = new Map(MEASURES.map((m) => [m.name, m]));

/** The measure with this exact trec_eval name. */
export function findMeasure(name: string): MeasureDef | undefined {
  return BY_NAME.get(name);
}

/** Position in print order. */
export function measureOrder(name: string): number {
  return MEASURES.findIndex((m) => m.name === name);
}

/** Whether `def` exists in this trec_eval release (our extensions exist in both modes). */
export function inRelease(def: MeasureDef, version: TrecEvalVersion): boolean {
  return def.origin !== 'trec_eval-10' || version === '10.0';
}

const OFFICIAL = [
  'runid',
  'num_q',
  'num_ret',
  'num_rel',
  'num_rel_ret',
  'map',
  'gm_map',
  'Rprec',
  'bpref',
  'recip_rank',
  'iprec_at_recall',
  'P',
];
const SET = ['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'utility', 'set_P', 'set_recall', 'set_relative_P', 'set_map', 'set_F'];
/** all_trec as each release's measures.c lists it (yaap, dcg and ideal_dcg are in neither). */
const ALL_TREC_9 = [
  ...OFFICIAL,
  ...['relstring', 'recall', 'infAP', 'gm_bpref', 'utility', '11pt_avg', 'ndcg', 'relative_P', 'Rprec_mult', 'success'],
  ...['map_cut', 'ndcg_cut', 'ndcg_rel', 'Rndcg', 'binG', 'G', 'set_P', 'set_recall', 'set_relative_P', 'set_map', 'set_F'],
  'num_nonrel_judged_ret',
];
const ALL_TREC_10 = [...ALL_TREC_9, 'unj', 'rbp', 'rbp_resid'];

/** trec_eval's measure sets (`-m official`, `-m all_trec`, `-m set`) in a release. */
export function nicknames(version: TrecEvalVersion): Readonly<Record<string, readonly string[]>> {
  return { official: OFFICIAL, all_trec: version === '10.0' ? ALL_TREC_10 : ALL_TREC_9, set: SET };
}

/**
 * Measures of trec_eval's all_trec set that are not implemented: none, in either release (the parity
 * suites check every one of them).
 *
 * Outside all_trec, not implemented: the preference measures (prefs_*, need the prefs/qrels_prefs input
 * formats) and the judgment-group measures (map_avgjg, P_avgjg, Rprec_mult_avgjg, need qrels_jg).
 * Options not supported: -J (judged documents only), -N (collection size, used by utility's 4th
 * coefficient; taken as 0 like trec_eval's default), -Z.
 */
export const NOT_IMPLEMENTED_ALL_TREC: readonly string[] = [];

/** trec_eval measures (outside all_trec) that are not implemented, for help texts. */
export const NOT_IMPLEMENTED_OTHER: readonly string[] = [
  'prefs_num_prefs_poss',
  'prefs_num_prefs_ful',
  'prefs_num_prefs_ful_ret',
  'prefs_simp',
  'prefs_pair',
  'prefs_avgjg',
  'prefs_avgjg_Rnonrel',
  'prefs_simp_ret',
  'prefs_pair_ret',
  'prefs_avgjg_ret',
  'prefs_avgjg_Rnonrel_ret',
  'prefs_simp_imp',
  'prefs_pair_imp',
  'prefs_avgjg_imp',
  'map_avgjg',
  'P_avgjg',
  'Rprec_mult_avgjg',
];
