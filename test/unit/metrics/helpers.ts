/**
 * Tiny fixtures for metric tests, built through core/io (the only place ids are minted) synchronously.
 *
 *   qrels({ q1: { d1: 1, d2: 0 } })            → Qrels
 *   run({ q1: [['d1', 3], ['d2', 2]] })         → Run (list order = rank column order)
 */
import { QrelsBuilder, RunBuilder } from '../../../src/core/io/trec.ts';
import { evaluate, parseMeasures, type EvaluateOptions } from '../../../src/core/metrics/index.ts';
import type { Qrels, Run } from '../../../src/core/types.ts';

export function qrels(spec: Record<string, Record<string, number>>): Qrels {
  const b = new QrelsBuilder('fixture.qrels');
  let n = 0;
  for (const [q, docs] of Object.entries(spec)) for (const [d, g] of Object.entries(docs)) b.line(`${q} 0 ${d} ${g}`, ++n);
  return b.finish().value;
}

export function run(spec: Record<string, readonly (readonly [string, number])[]>, tag = 'fixture'): Run {
  const b = new RunBuilder('fixture.run');
  let n = 0;
  for (const [q, docs] of Object.entries(spec)) docs.forEach(([d, s], i) => b.line(`${q} Q0 ${d} ${i + 1} ${s} ${tag}`, ++n));
  return b.finish().value;
}

/** Evaluate `measures` and return one query's values (or `all` for the summary). */
export function values(q: Qrels, r: Run, measures: string[], opts: EvaluateOptions = {}, qid = 'all'): Record<string, number> {
  const result = evaluate(q, r, parseMeasures(measures), opts);
  if (qid === 'all') return { ...result.aggregate };
  const v = result.perQuery.get(qid as never);
  if (!v) throw new Error(`query ${qid} was not evaluated`);
  return { ...v };
}
