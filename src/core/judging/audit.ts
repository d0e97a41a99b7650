/**
 * The audit that always stands beside model labels: on the pairs people also judged, how far the model agrees
 * (Cohen's κ at the relevance level, weighted κ on the grades, the confusion matrix), and with three or more runs
 * whether the ordering of systems survives (Kendall's τ-b and τ_AP of the runs' means under the model's labels
 * against their means under people's). The JSON keys are `fliplab judge-audit --json`'s contract.
 */
import { countOf } from '../count.ts';
import type { Qrels } from '../types.ts';
import { cohenKappa, confusion, kappaWords, kendallTauB, tauAp, weightedKappa, type Confusion } from './agreement-stats.ts';
import { sharedPairs } from './layer.ts';

export interface SystemsAudit {
  /** The measure, as trec_eval prints it. */
  readonly measure: string;
  readonly tau: number | null;
  readonly tau_ap: number | null;
  /** Each run's mean, evaluated with people's qrels alone and with the model's alone. */
  readonly runs: { readonly name: string; readonly human: number; readonly model: number }[];
}

export interface JudgeAudit {
  readonly pairs: number;
  readonly relevance_level: number;
  /** The share of pairs graded alike on both sides of the relevance level (κ's observed agreement). */
  readonly agreement: number | null;
  /** Why κ says little here, when it does (people's labels all on one side of the level: κ is 0 by construction). */
  readonly note: string | null;
  readonly kappa: number | null;
  readonly kappa_linear: number | null;
  readonly kappa_quadratic: number | null;
  /** `labels`: the grades sorted; `counts`: people's grades as rows, the model's as columns. */
  readonly confusion: Confusion;
  readonly systems?: SystemsAudit;
}

/** The agreement on shared pairs, and with `runs` the systems' ordering. */
export function judgeAudit(
  human: Qrels,
  model: Qrels,
  level: number,
  runs?: { measure: string; runs: readonly { name: string; human: number; model: number }[] },
): JudgeAudit {
  const shared = sharedPairs(human, model);
  const h = shared.map((p) => p.human);
  const m = shared.map((p) => p.model);
  const table = confusion(h, m);
  const audit: JudgeAudit = {
    pairs: shared.length,
    relevance_level: level,
    agreement: shared.length === 0 ? null : h.filter((g, i) => g >= level === m[i]! >= level).length / shared.length,
    note:
      shared.length > 0 && new Set(h.map((g) => g >= level)).size === 1
        ? `people graded every one ${h[0]! >= level ? 'relevant' : 'not relevant'}, so κ is 0 by construction`
        : null,
    kappa: cohenKappa(
      h.map((g) => g >= level),
      m.map((g) => g >= level),
    ),
    kappa_linear: weightedKappa(table, 'linear'),
    kappa_quadratic: weightedKappa(table, 'quadratic'),
    confusion: table,
  };
  if (runs === undefined) return audit;
  const names = runs.runs.map((r) => r.name);
  const humanMeans = runs.runs.map((r) => r.human);
  const modelMeans = runs.runs.map((r) => r.model);
  return {
    ...audit,
    systems: {
      measure: runs.measure,
      tau: kendallTauB(humanMeans, modelMeans),
      tau_ap: tauAp(names, humanMeans, modelMeans),
      runs: runs.runs.map((r) => ({ ...r })),
    },
  };
}

const percent = (x: number): string => `${(100 * x).toFixed(0)}%`;
const fixed = (x: number | null, digits = 2): string => (x === null ? 'undefined' : x.toFixed(digits));

/**
 * The sentence a teacher reads out: "On 300 pairs people also judged, the model agrees with κ = 0.41 (moderate);
 * the order of the 24 runs holds with τ = 0.87."
 */
export function auditSentence(audit: JudgeAudit, whose: 'people' | 'sources' = 'people'): string {
  if (audit.pairs === 0) return 'No pair was judged by both people and the model: the model’s labels are unaudited.';
  const s = audit.systems;
  const order =
    s === undefined || s.runs.length < 3
      ? ''
      : `the order of the ${s.runs.length} runs holds with τ = ${fixed(s.tau)} (τ_AP = ${fixed(s.tau_ap)})`;
  // Made queries: the pairs judged by both are each query with the passage it was written from, relevant by construction.
  if (whose === 'sources' && audit.agreement !== null) {
    const agree =
      `Of ${countOf(audit.pairs, 'query', 'queries')} with the passage it was written from, the model judges ` +
      `${percent(audit.agreement)} relevant`;
    return order === '' ? `${agree}.` : `${agree}; ${order}.`;
  }
  if (audit.note !== null && audit.agreement !== null) {
    const agree = `On ${countOf(audit.pairs, 'pair')} people also judged, the model agrees on ${percent(audit.agreement)}: ${audit.note}`;
    return order === '' ? `${agree}.` : `${agree}; ${order}.`;
  }
  const kappa = `κ = ${fixed(audit.kappa)} (${kappaWords(audit.kappa)})`;
  const agree = `On ${countOf(audit.pairs, 'pair')} people also judged, the model agrees with ${kappa}`;
  return order === '' ? `${agree}.` : `${agree}; ${order}.`;
}

/** The audit as text: the sentence, the numbers, the confusion matrix and the runs' means. */
export function formatJudgeAudit(audit: JudgeAudit): string {
  const lines = [auditSentence(audit), ''];
  lines.push(`pairs judged by both      ${audit.pairs}`);
  lines.push(
    `agreement (grade ≥ ${audit.relevance_level})     ${audit.agreement === null ? 'undefined' : `${(100 * audit.agreement).toFixed(1)}%`}`,
  );
  lines.push(`kappa (grade ≥ ${audit.relevance_level})         ${fixed(audit.kappa, 4)}`);
  lines.push(`weighted kappa, linear    ${fixed(audit.kappa_linear, 4)}`);
  lines.push(`weighted kappa, quadratic ${fixed(audit.kappa_quadratic, 4)}`);
  const { labels, counts } = audit.confusion;
  if (labels.length > 0) {
    const width = Math.max(6, ...counts.flat().map((c) => String(c).length + 1));
    lines.push('', 'people ↓ / model →');
    lines.push(`${''.padStart(8)}${labels.map((g) => String(g).padStart(width)).join('')}`);
    counts.forEach((row, i) => lines.push(`${String(labels[i]).padStart(8)}${row.map((c) => String(c).padStart(width)).join('')}`));
  }
  const s = audit.systems;
  if (s !== undefined) {
    lines.push('', `${s.measure} by run: people's qrels, the model's`);
    const nameWidth = Math.max(4, ...s.runs.map((r) => r.name.length));
    for (const r of s.runs) lines.push(`${r.name.padEnd(nameWidth)}  ${r.human.toFixed(4)}  ${r.model.toFixed(4)}`);
    lines.push(`Kendall tau-b  ${fixed(s.tau, 4)}`, `tau_AP         ${fixed(s.tau_ap, 4)}`);
  }
  return `${lines.join('\n')}\n`;
}
