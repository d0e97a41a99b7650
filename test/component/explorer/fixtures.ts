/**
 * Synthetic data for the explorer tests: seeded random qrels and runs turned into a real FlipReport by
 * the core's `analyzeFlips` (so per-query states come from the real code, not from the test), plus fake
 * loaders built from the same runs.
 */
import { analyzeFlips } from '../../../src/core/flips/analyze.ts';
import { asDocId, asQueryId } from '../../../src/core/io/ids.ts';
import type { DocId, Qrels, QueryId, RankedList, Run } from '../../../src/core/types.ts';
import { mulberry32 } from '../../../bench/lib/rng.ts';
import type { FlipReport, QueryDetail, RankedDoc } from '../../../src/app/types.ts';

/** Small deterministic PRNG: the benches' mulberry32. */
export const rng = mulberry32;

export interface Synthetic {
  readonly qrels: Qrels;
  readonly runs: readonly Run[];
  readonly report: FlipReport;
  readonly texts: ReadonlyMap<string, string>;
}

const WORDS = ['protein', 'cell', 'cancer', 'gene', 'vitamin', 'risk', 'mouse', 'therapy', 'dose', 'brain'];

/** `n` queries, `docs` documents, a reference and `candidates` candidate runs of depth `depth`. */
export function synthetic(n: number, options: { seed?: number; docs?: number; depth?: number; candidates?: number } = {}): Synthetic {
  const rand = rng(options.seed ?? 1);
  const nDocs = options.docs ?? 200;
  const depth = options.depth ?? 50;
  if (depth > nDocs) throw new RangeError(`synthetic: depth ${depth} exceeds the ${nDocs} documents`);
  const byQuery = new Map<QueryId, Map<DocId, number>>();
  const texts = new Map<string, string>();
  const qids: QueryId[] = [];
  for (let i = 0; i < n; i++) {
    const qid = asQueryId(`q${i}`);
    qids.push(qid);
    const judged = new Map<DocId, number>();
    const positives = 1 + Math.floor(rand() * 3);
    for (let j = 0; j < positives; j++) judged.set(asDocId(`d${Math.floor(rand() * nDocs)}`), 1 + Math.floor(rand() * 2));
    if (rand() < 0.3) judged.set(asDocId(`d${Math.floor(rand() * nDocs)}`), 0);
    if ([...judged.values()].every((g) => g < 1)) judged.set(asDocId('d0'), 1);
    byQuery.set(qid, judged);
    texts.set(qid, `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} number ${i}`);
  }
  const makeRun = (name: string): Run => {
    const lists = new Map<QueryId, RankedList>();
    for (const qid of qids) {
      const docs: DocId[] = [];
      const seen = new Set<string>();
      const judged = [...byQuery.get(qid)!.keys()];
      while (docs.length < depth) {
        // Judged documents show up with some probability at random depths.
        const d =
          rand() < 0.08 && judged.length > 0 ? judged[Math.floor(rand() * judged.length)]! : asDocId(`d${Math.floor(rand() * nDocs)}`);
        if (seen.has(d)) continue;
        seen.add(d);
        docs.push(d);
      }
      lists.set(qid, { docs, scores: Float64Array.from(docs, (_, r) => 100 - r) });
    }
    return { name, byQuery: lists };
  };
  const runs = [makeRun('bm25'), ...Array.from({ length: options.candidates ?? 2 }, (_, c) => makeRun(`cand-${c + 1}`))];
  const qrels: Qrels = { byQuery };
  const report = analyzeFlips(qrels, runs[0]!, runs.slice(1), { perQuery: true });
  return { qrels, runs, report, texts };
}

/** A DetailLoader over the synthetic runs (what the lab worker would return). */
export function detailFrom(s: Synthetic, qid: string, runNames: readonly string[], k: number): QueryDetail {
  const judgedMap = s.qrels.byQuery.get(asQueryId(qid)) ?? new Map<DocId, number>();
  return {
    qid,
    text: s.texts.get(qid) ?? '',
    judged: [...judgedMap].map(([docId, grade]) => ({ docId, grade })),
    lists: runNames.map((name) => {
      const run = s.runs.find((r) => r.name === name)!;
      const list = run.byQuery.get(asQueryId(qid));
      const docs: RankedDoc[] = (list?.docs ?? []).slice(0, k).map((docId, i) => ({
        docId,
        rank: i + 1,
        score: list!.scores[i]!,
        title: `Title of ${docId}`,
        grade: judgedMap.get(docId) ?? null,
      }));
      const first = docs.find((d) => d.grade !== null && d.grade >= 1);
      return { run: name, docs, firstRelevant: first ? first.rank : null };
    }),
  };
}
