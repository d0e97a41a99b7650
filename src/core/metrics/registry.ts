/**
 * The measures, keyed by trec_eval name, in trec_eval's table order (measures.c of the Anserini
 * trec_eval 9.0.8 build, which adds rbp, rbp_resid and unj). Output is always in this order, whatever
 * order they were requested in — as trec_eval prints. Our extensions (recip_rank_cut, ncg_cut) follow.
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
import { ndcg } from './ndcg.ts';
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

/** trec_eval's measure sets (`-m official`, `-m all_trec`, `-m set`), limited to what is implemented. */
export const NICKNAMES: Readonly<Record<string, readonly string[]>> = {
  official: [
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
  ],
  all_trec: MEASURES.filter((m) => m !== recipRankCut && m !== ncgCut).map((m) => m.name),
  set: ['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'utility', 'set_P', 'set_recall', 'set_relative_P', 'set_map', 'set_F'],
};

/**
 * Measures of trec_eval 9.0.8's all_trec set that are not implemented: none — every measure the Anserini
 * 9.0.8 build prints for `-m all_trec` is here (the self-test parity checks all of them).
 *
 * Outside all_trec, not implemented: the preference measures (prefs_*, need the prefs/qrels_prefs input
 * formats), the judgment-group measures (map_avgjg, P_avgjg, Rprec_mult_avgjg, need qrels_jg), yaap, and
 * dcg/ideal_dcg (added in later trec_eval releases). Options not supported: -J (judged documents only),
 * -N (collection size, used by utility's 4th coefficient; taken as 0 like trec_eval's default), -Z.
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
  'yaap',
  'dcg',
  'ideal_dcg',
];
