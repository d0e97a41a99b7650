/**
 * Cross-file checks: judgments that name queries or documents the collection does not have. These are
 * reported with counts and examples and never stop the analysis (BEIR qrels do reference a few ids
 * missing from some corpora).
 */
import type { Corpus, Diagnostic, Qrels, Queries } from '../types.ts';
import { quote } from './errors.ts';

const EXAMPLES = 3;

export function checkQrels(qrels: Qrels, file: string, opts: { corpus?: Corpus; queries?: Queries }): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (opts.queries) {
    const unknown = [...qrels.byQuery.keys()].filter((q) => !opts.queries!.indexOf.has(q));
    if (unknown.length > 0) {
      out.push({
        severity: 'warning',
        file,
        message: `${unknown.length} of ${qrels.byQuery.size} judged queries are not in the queries file (e.g. ${unknown
          .slice(0, EXAMPLES)
          .map((s) => quote(s))
          .join(', ')}); they are skipped`,
      });
    }
  }
  if (opts.corpus) {
    let missing = 0;
    let total = 0;
    const examples: string[] = [];
    for (const judged of qrels.byQuery.values()) {
      for (const d of judged.keys()) {
        total++;
        if (!opts.corpus.indexOf.has(d)) {
          missing++;
          if (examples.length < EXAMPLES) examples.push(d);
        }
      }
    }
    if (missing > 0) {
      out.push({
        severity: 'warning',
        file,
        message:
          `${missing} of ${total} judgments name documents not in the corpus (e.g. ` +
          `${examples.map((s) => quote(s)).join(', ')}); kept, but no retriever over this corpus can return them`,
      });
    }
  }
  return out;
}

/**
 * The queries a collection is evaluated on, as the paper does: those judged in the chosen qrels split with
 * at least one positive judgment (grade ≥ `minGrade`) and non-empty text (unless `requireText` is false: queries known
 * only by id, from runs). Order: queries-file order.
 */
export function selectEvaluationQueries(qrels: Qrels, queries: Queries, minGrade = 1, requireText = true): number[] {
  const out: number[] = [];
  for (let i = 0; i < queries.ids.length; i++) {
    const judged = qrels.byQuery.get(queries.ids[i]!);
    if (!judged || (requireText && (queries.texts[i] ?? '').trim().length === 0)) continue;
    let positive = false;
    for (const g of judged.values()) if (g >= minGrade) positive = true;
    if (positive) out.push(i);
  }
  return out;
}
