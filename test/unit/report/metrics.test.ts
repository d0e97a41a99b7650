import { describe, expect, it } from 'vitest';
import { LAB_MEASURES } from '../../../src/report/metrics.ts';
import { evaluate, parseMeasures } from '../../../src/core/metrics/index.ts';
import { labMetricsRow, trecEvalName, trecEvalText } from '../../../src/report/metrics.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_DATA } from '../../shared-data.ts';
import { syntheticCase } from './fixtures.ts';

describe('measures for reports', () => {
  const c = syntheticCase(3, ['cand']);

  it('maps lab keys to the names trec_eval prints', () => {
    expect(LAB_MEASURES.map((m) => trecEvalName(m.key))).toEqual([
      'recip_rank_cut_10',
      'ndcg_cut_10',
      'ncg_cut_100',
      'recall_10',
      'recall_100',
      'map',
    ]);
    expect(() => trecEvalName('P')).toThrow(/one measure with one value/);
  });

  it('a lab row holds, under each key, the value evaluate() gives for that measure alone', () => {
    const row = labMetricsRow(c.qrels, c.candidates[0]!, { relevanceLevel: 2, partial: true });
    expect(row.run).toBe('cand');
    expect(row.partial).toBe(true);
    expect(Object.keys(row.values)).toEqual(LAB_MEASURES.map((m) => m.key));
    for (const m of LAB_MEASURES) {
      const alone = evaluate(c.qrels, c.candidates[0]!, parseMeasures([m.key]), { relevanceLevel: 2 });
      expect(row.values[m.key], m.key).toBe(alone.aggregate[trecEvalName(m.key)]);
    }
    // -l matters for binary measures: the rows differ between levels on this data.
    expect(labMetricsRow(c.qrels, c.candidates[0]!).values['map']).not.toBe(row.values['map']);
  });

  it('a lab row records the trec_eval release it was computed with (10.0 unless asked), and follows it', async () => {
    // DL19: the releases turn recall fractions into document counts differently (11pt_avg differs).
    const { parseQrels, parseRun } = await import('../../../src/core/io/trec.ts');
    const dir = join(SHARED_DATA, 'trec-dl19-passage');
    const qrels = (await parseQrels(readFileSync(join(dir, 'qrels.dl19-passage.txt'), 'utf8'), 'qrels')).value;
    const run = (await parseRun(readFileSync(join(dir, 'run.msmarco-v1-passage.bm25-default.dl19.txt'), 'utf8'), 'run')).value;
    const measures = [{ key: '11pt_avg' }];
    const byDefault = labMetricsRow(qrels, run, { measures });
    const old = labMetricsRow(qrels, run, { measures, version: '9.0.8' });
    expect(byDefault.trecEval).toBe('10.0');
    expect(old.trecEval).toBe('9.0.8');
    for (const row of [byDefault, old]) {
      const alone = evaluate(qrels, run, parseMeasures(['11pt_avg'], row.trecEval), { version: row.trecEval });
      expect(row.values['11pt_avg']).toBe(alone.aggregate['11pt_avg']);
    }
    expect(old.values['11pt_avg']).not.toBe(byDefault.values['11pt_avg']);
  });

  it('trec_eval text lists the runid and the asked measures', () => {
    const text = trecEvalText(c.qrels, c.reference, { measures: ['map', 'P.5'], perQuery: true });
    const lines = text.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('P_5                   \tall\t' + lines.at(-1)!.split('\t')[2]);
    expect(lines.filter((l) => l.startsWith('map ')).length).toBe(41); // 40 queries + all
    expect(trecEvalText(c.qrels, c.reference).split('\n')).toContain('runid                 \tall\treference');
  });
});
