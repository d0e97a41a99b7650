import { describe, expect, it } from 'vitest';
import { LAB_MEASURES } from '../../../src/report/metrics.ts';
import { evaluate, parseMeasures } from '../../../src/core/metrics/index.ts';
import { labMetricsRow, trecEvalName, trecEvalText } from '../../../src/report/metrics.ts';
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

  it('trec_eval text lists the runid and the asked measures', () => {
    const text = trecEvalText(c.qrels, c.reference, { measures: ['map', 'P.5'], perQuery: true });
    const lines = text.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('P_5                   \tall\t' + lines.at(-1)!.split('\t')[2]);
    expect(lines.filter((l) => l.startsWith('map ')).length).toBe(41); // 40 queries + all
    expect(trecEvalText(c.qrels, c.reference).split('\n')).toContain('runid                 \tall\treference');
  });
});
