/**
 * From what a judge model says to a grade on the collection's scale, and the prompt an LLM judge reads.
 *
 * - A cross-encoder gives one score per (query, passage); thresholds t₁ ≤ … ≤ t_max map it to a grade: the number
 *   of thresholds the score reaches (score ≥ t_g). They are fitted on pairs people judged (`fitThresholds`), or a
 *   preset's, which leaves the labels unaudited.
 * - An LLM judge gives the next-token probabilities of "0" … "3" after the UMBRELA prompt: its grade is the argmax
 *   (the lower grade on a tie), its expected grade Σ g·p_g; `umbrelaToScale` puts the 0–3 grade on the
 *   collection's scale.
 */
import { fnv1a } from '../fnv.ts';

/** A grade from a score: how many of the ascending thresholds it reaches. */
export function gradeOfScore(score: number, thresholds: readonly number[]): number {
  let g = 0;
  while (g < thresholds.length && score >= thresholds[g]!) g++;
  return g;
}

/**
 * Thresholds for grades 1 … max from scores of pairs people judged: for each g, the cut that best separates the
 * pairs graded ≥ g from the rest (highest balanced accuracy, (TPR + TNR)/2; on a tie the lowest cut), kept
 * ascending. Null when some boundary has no pair on one side (people who judged only relevant passages, as most
 * BEIR sets): no cut can be fitted there. Scores and grades pair by index.
 */
export function fitThresholds(scores: readonly number[], grades: readonly number[], max: number): number[] | null {
  if (scores.length !== grades.length) throw new RangeError(`expected one grade per score, got ${scores.length} and ${grades.length}`);
  const order = scores.map((_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  const out: number[] = [];
  for (let g = 1; g <= max; g++) {
    const positives = grades.filter((x) => x >= g).length;
    const negatives = grades.length - positives;
    const previous = out[out.length - 1] ?? Number.NEGATIVE_INFINITY;
    if (positives === 0 || negatives === 0) return null;
    // Cut before position i (every score from order[i] up counts as ≥ g).
    let belowPositives = 0;
    let belowNegatives = 0;
    let best = -1;
    let bestCut = Number.NEGATIVE_INFINITY;
    for (let i = 0; i <= order.length; i++) {
      const atBoundary = i === 0 || i === order.length || scores[order[i]!]! !== scores[order[i - 1]!]!;
      if (atBoundary) {
        const tpr = (positives - belowPositives) / positives;
        const tnr = belowNegatives / negatives;
        const score = (tpr + tnr) / 2;
        const cut = i === order.length ? Number.POSITIVE_INFINITY : scores[order[i]!]!;
        if (score > best) {
          best = score;
          bestCut = cut;
        }
      }
      if (i < order.length) {
        if (grades[order[i]!]! >= g) belowPositives++;
        else belowNegatives++;
      }
    }
    out.push(Math.max(previous, bestCut));
  }
  return out;
}

/** UMBRELA's 0–3 on a collection whose grades run 0 … max: 3 → max; binary keeps 2 and 3 relevant, as UMBRELA does. */
export function umbrelaToScale(grade: number, max: number): number {
  if (max >= 3) return grade;
  if (max === 2) return [0, 0, 1, 2][grade]!;
  return grade >= 2 ? 1 : 0;
}

/** Argmax over the grades' probabilities (the lower grade on a tie) and the expected grade. */
export function gradeOfProbabilities(p: readonly number[]): { grade: number; expected: number } {
  let grade = 0;
  for (let g = 1; g < p.length; g++) if (p[g]! > p[grade]!) grade = g;
  const expected = p.reduce((s, x, g) => s + g * x, 0);
  return { grade, expected };
}

/** Softmax of logits, computed stably. */
export function softmax(logits: readonly number[]): number[] {
  const top = Math.max(...logits);
  const e = logits.map((x) => Math.exp(x - top));
  const sum = e.reduce((s, x) => s + x, 0);
  return e.map((x) => x / sum);
}

/** A prompt an LLM judge reads: its text with `{query}` and `{passage}`, and the prefix its answer starts with. */
export interface JudgePrompt {
  /** Named and versioned: a changed prompt is another judge (its labels are cached apart). */
  readonly id: string;
  readonly template: string;
  /** Written as the start of the model's reply; the grade is the token after it. */
  readonly answerPrefix: string;
}

/**
 * UMBRELA (Upadhyay et al., 2024), the prompt of the TREC 2024 RAG track's automatic assessments, as published;
 * the model's reply is started with its answer format so that the next token is the grade.
 */
export const UMBRELA_PROMPT: JudgePrompt = {
  id: 'umbrela-v1',
  template:
    'Given a query and a passage, you must provide a score on an integer scale of 0 to 3 with the following meanings:\n' +
    '0 = represent that the passage has nothing to do with the query,\n' +
    '1 = represents that the passage seems related to the query but does not answer it,\n' +
    '2 = represents that the passage has some answer for the query, but the answer may be a bit unclear, or hidden ' +
    'amongst extraneous information and\n' +
    '3 = represents that the passage is dedicated to the query and contains the exact answer.\n\n' +
    'Important Instruction: Assign category 1 if the passage is somewhat related to the topic but not completely, ' +
    'category 2 if passage presents something very important related to the entire topic but also has some extra ' +
    'information and category 3 if the passage only and entirely refers to the topic. If none of the above ' +
    'satisfies give it category 0.\n\n' +
    'Query: {query}\n' +
    'Passage: {passage}\n\n' +
    'Split this problem into steps:\n' +
    'Consider the underlying intent of the search.\n' +
    'Measure how well the content matches a likely intent of the query (M).\n' +
    'Measure how trustworthy the passage is (T).\n' +
    'Consider the aspects above and the relative importance of each, and decide on a final score (O). Final score ' +
    'must be an integer value only.\n' +
    'Do not provide any code in result. Provide each score in the format of: ##final score: score without providing ' +
    'any reasoning.',
  answerPrefix: '##final score: ',
};

/**
 * The prompt for one pair. Query and passage go in as text, once each, after the template's own placeholders are
 * found (a passage holding "{query}" is not expanded); the judge is never told which retriever found the passage.
 */
export function fillJudgePrompt(prompt: JudgePrompt, query: string, passage: string): string {
  const parts = prompt.template.split(/(\{query\}|\{passage\})/);
  return parts.map((p) => (p === '{query}' ? query : p === '{passage}' ? passage : p)).join('');
}

/** The name of a prompt edited by hand: `<id>+edited-<hash of its text>`, another judge (or writer), cached apart. */
export function editedPromptId(id: string, text: string): string {
  return `${id}+edited-${(fnv1a(new TextEncoder().encode(text)) >>> 0).toString(16).padStart(8, '0')}`;
}

/** A prompt's problems: each placeholder once. */
export function checkJudgePrompt(template: string): string | null {
  for (const name of ['{query}', '{passage}']) {
    const n = template.split(name).length - 1;
    if (n !== 1) return `the prompt must hold ${name} exactly once; it holds it ${n} times`;
  }
  return null;
}
