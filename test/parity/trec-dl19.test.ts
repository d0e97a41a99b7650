/**
 * Parity on real collections (shared/data):
 * - TREC DL19 passage, Anserini BM25 run: trec_eval 9.0.8 `-q` output and `-q -l 2` output for num_rel,
 *   num_rel_ret, map, recip_rank, P_10, recall_10/100, ndcg_cut_10/100 — every query and `all`, byte for
 *   byte. The `-l 2` file was produced with `-c` (Anserini's standard DL invocation): its summary num_rel
 *   is 4102, the number of judgments with grade > 0, which trec_eval prints only under -c; every query of
 *   the qrels is in the run, so -c changes nothing else.
 * - TREC-COVID (BEIR), BM25 flat run: trec_eval's nDCG@10 0.5947, recall@100 0.1091, recall@1000 0.3955.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseQrels, parseRun } from '../../src/core/io/trec.ts';
import { evaluate, formatTrecEval, parseMeasures } from '../../src/core/metrics/index.ts';
import type { Qrels, Run } from '../../src/core/types.ts';
import { fileSource } from '../../src/node/files.ts';

const DATA = process.env.FLIPLAB_SHARED_DATA ?? join(import.meta.dirname, '../../../shared/data');
const DL19 = join(DATA, 'trec-dl19-passage');
const COVID = join(DATA, 'trec-covid-bm25');
const DL19_MEASURES = ['num_rel', 'num_rel_ret', 'map', 'recip_rank', 'P.10', 'recall.10,100', 'ndcg_cut.10,100'];

async function load(dir: string, qrelsFile: string, runFile: string): Promise<{ qrels: Qrels; run: Run }> {
  const [q, r] = await Promise.all([
    parseQrels(fileSource(join(dir, qrelsFile)), qrelsFile),
    parseRun(fileSource(join(dir, runFile)), runFile),
  ]);
  return { qrels: q.value, run: r.value };
}

describe('TREC DL19 passage, BM25 (Anserini) vs trec_eval 9.0.8 -q', () => {
  let data: { qrels: Qrels; run: Run };
  beforeAll(async () => {
    data = await load(DL19, 'qrels.dl19-passage.txt', 'run.msmarco-v1-passage.bm25-default.dl19.txt');
  });

  const expected = (f: string): string => readFileSync(join(DL19, f), 'utf8');

  it('matches `trec_eval -q` (relevance level 1) on every query and all', () => {
    const got = formatTrecEval(evaluate(data.qrels, data.run, parseMeasures(DL19_MEASURES)), { perQuery: true });
    expect(got).toBe(expected('run.msmarco-v1-passage.bm25-default.dl19.trec_eval-q.txt'));
  });

  it('matches `trec_eval -c -q -l 2` on every query and all', () => {
    const got = formatTrecEval(evaluate(data.qrels, data.run, parseMeasures(DL19_MEASURES), { relevanceLevel: 2, complete: true }), {
      perQuery: true,
    });
    expect(got).toBe(expected('run.msmarco-v1-passage.bm25-default.dl19.trec_eval-q-l2.txt'));
  });

  it('without -c, only the num_rel summary differs: the sum of per-query num_rel at level 2', () => {
    const result = evaluate(data.qrels, data.run, parseMeasures(DL19_MEASURES), { relevanceLevel: 2 });
    const perQuerySum = [...result.perQuery.values()].reduce((s, v) => s + v.num_rel!, 0);
    expect(result.aggregate.num_rel).toBe(perQuerySum);
    expect(perQuerySum).toBeLessThan(4102);
    const withC = evaluate(data.qrels, data.run, parseMeasures(DL19_MEASURES), { relevanceLevel: 2, complete: true });
    expect({ ...result.aggregate, num_rel: 0 }).toEqual({ ...withC.aggregate, num_rel: 0 });
  });

  it('aliases give the same numbers: nDCG@10, RR, AP, R@100, P@10', () => {
    const a = evaluate(data.qrels, data.run, parseMeasures(['nDCG@10', 'RR', 'AP', 'R@100', 'P@10'])).aggregate;
    const t = evaluate(data.qrels, data.run, parseMeasures(['ndcg_cut.10', 'recip_rank', 'map', 'recall.100', 'P.10'])).aggregate;
    expect(a).toEqual(t);
    expect(a.ndcg_cut_10!.toFixed(4)).toBe('0.5058');
  });
});

describe('TREC-COVID, BM25 flat vs trec_eval', () => {
  it('nDCG@10 0.5947, recall@100 0.1091, recall@1000 0.3955', async () => {
    const { qrels, run } = await load(COVID, 'qrels.test.txt', 'run.bm25-flat.txt');
    const out = formatTrecEval(evaluate(qrels, run, parseMeasures(['ndcg_cut.10', 'recall.100,1000'])), { perQuery: false });
    const line = (name: string, v: string): string => `${name.padEnd(22)}\tall\t${v}\n`;
    // trec_eval prints in its table order: recall before ndcg_cut
    expect(out).toBe(line('recall_100', '0.1091') + line('recall_1000', '0.3955') + line('ndcg_cut_10', '0.5947'));
  });
});
