/**
 * A model's judgments as the CLI reads them (`flips --model-qrels`, `judge-audit`): TREC or BEIR qrels whose
 * grades must fall in the collection's scale (people's grades, with 0 and 1; a grade outside it is refused with
 * its file and line), and labels for queries or passages the collection does not know counted and reported,
 * never dropped in silence.
 */
import { countOf } from '../core/count.ts';
import { gradeScale, knownLabels } from '../core/judging/layer.ts';
import { parseQrels } from '../core/io/trec.ts';
import type { Diagnostic, DocId, Qrels, QueryId, Run } from '../core/types.ts';
import { fileSource } from '../node/files.ts';

/** Read a model layer's qrels, its grades held to the scale of `human` (read from `humanName`). */
export async function readModelQrels(
  path: string,
  human: Qrels,
  humanName: string,
): Promise<{ qrels: Qrels; warnings: readonly Diagnostic[] }> {
  const scale = gradeScale(human);
  const parsed = await parseQrels(fileSource(path), path, { grades: { ...scale, of: `the grades of ${humanName}, with 0 and 1` } });
  return { qrels: parsed.value, warnings: parsed.warnings };
}

/**
 * The model's labels the analysis can use: those for a query people judged or a run ranks. Labels for any other
 * query are left out and reported; labels for passages neither people nor any run met for that query are kept
 * (a judge may have pooled more runs: they still count in recall and nDCG's ideal) and reported.
 */
export function usableModelLabels(
  model: Qrels,
  human: Qrels,
  runs: readonly Run[],
  path: string,
): { qrels: Qrels; warnings: Diagnostic[] } {
  const ranked = new Map<QueryId, Set<DocId>>();
  const met = (qid: QueryId, docid: DocId): boolean => {
    if (human.byQuery.get(qid)?.has(docid) === true) return true;
    let docs = ranked.get(qid);
    if (docs === undefined) {
      ranked.set(qid, (docs = new Set()));
      for (const r of runs) {
        const list = r.byQuery.get(qid);
        for (const d of list?.docs ?? []) docs.add(d);
        for (const d of list?.tail?.docs ?? []) docs.add(d);
      }
    }
    return docs.has(docid);
  };
  const known = knownLabels(model, {
    query: (qid) => human.byQuery.has(qid) || runs.some((r) => r.byQuery.has(qid)),
    passage: () => true,
  });
  let unmet = 0;
  for (const [qid, docs] of known.qrels.byQuery) for (const docid of docs.keys()) if (!met(qid, docid)) unmet++;
  const warnings: Diagnostic[] = [];
  if (known.unknownQueries > 0)
    warnings.push({
      severity: 'warning',
      file: path,
      message:
        `${countOf(known.unknownQueryLabels, 'label')} for ${countOf(known.unknownQueries, 'query', 'queries')} that no run ` +
        'ranks and no person judged: left out',
    });
  if (unmet > 0)
    warnings.push({
      severity: 'warning',
      file: path,
      message: `${countOf(unmet, 'label')} for passages no run given here ranks for that query: kept (they count in recall and nDCG)`,
    });
  return { qrels: known.qrels, warnings };
}
