export {
  analyzeFlips,
  prepareFlips,
  reportFromPrepared,
  validateDepths,
  DEFAULT_DEPTHS,
  type FlipOptions,
  type FlipReport,
  type PreparedFlips,
} from './analyze.ts';
export { buildCohort, supportProfile, supportRanks, NEVER, type Cohort, type SupportLabel } from './cohort.ts';
export { countTransitions, summarize, transitionStates, type TransitionState } from './transitions.ts';
export { alternate, reciprocalRankFusion, RRF_K } from './hybrids.ts';
export { rankBins, strata } from './strata.ts';
export { pairedFlips } from './paired.ts';
export { formatFlipReport } from './format.ts';
