/** Retriever agreement without relevance judgments: overlap@k and rank-biased overlap, per query and on average. */
export {
  compareRuns,
  meanInterval,
  type AgreementDepth,
  type AgreementReport,
  type AgreementRow,
  type CompareOptions,
  type MeanInterval,
} from './compare.ts';
export { agreementProfile, RBO_P } from './rank-overlap.ts';
export { agreementDepthRows, formatAgreement, formatMeanInterval } from './format.ts';
export { studentTCdf, studentTQuantile, t95 } from '../stats/t-dist.ts';
