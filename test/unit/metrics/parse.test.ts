import { describe, expect, it } from 'vitest';
import { findMeasure, outputNames, parseMeasures } from '../../../src/core/metrics/index.ts';

const names = (specs: string[]) => parseMeasures(specs).flatMap((s) => outputNames(findMeasure(s.measure)!, s.params));

describe('parseMeasures: trec_eval -m syntax', () => {
  it('takes comma lists of cutoffs, sorted ascending, and prints them as trec_eval does', () => {
    expect(parseMeasures(['P.10,5'])).toEqual([{ measure: 'P', params: '10,5' }]);
    expect(names(['P.10,5'])).toEqual(['P_5', 'P_10']);
    expect(names(['ndcg_cut.10,20,23.4'])).toEqual(['ndcg_cut_10', 'ndcg_cut_20', 'ndcg_cut_23']); // atol truncation
    expect(names(['iprec_at_recall..10,.5'])).toEqual(['iprec_at_recall_0.10', 'iprec_at_recall_0.50']);
  });

  it('uses trec_eval default cutoffs when a family is named bare', () => {
    const deflt = ['5', '10', '15', '20', '30', '100', '200', '500', '1000'];
    expect(names(['P'])).toEqual(deflt.map((k) => `P_${k}`));
    expect(names(['recall'])).toEqual(deflt.map((k) => `recall_${k}`));
    expect(names(['ndcg_cut'])).toEqual(deflt.map((k) => `ndcg_cut_${k}`));
    expect(names(['map_cut'])).toEqual(deflt.map((k) => `map_cut_${k}`));
    expect(names(['success'])).toEqual(['success_1', 'success_5', 'success_10']);
    expect(names(['recip_rank_cut'])).toEqual(['recip_rank_cut_10']);
  });

  it('prints measures in trec_eval table order whatever the request order, once each', () => {
    expect(parseMeasures(['ndcg_cut.10', 'map', 'P.5', 'map']).map((s) => s.measure)).toEqual(['map', 'P', 'ndcg_cut']);
  });

  it('merges repeated explicit cutoffs; explicit cutoffs win over a bare name or set', () => {
    expect(parseMeasures(['P.5', 'P.10'])).toEqual([{ measure: 'P', params: '5,10' }]);
    expect(parseMeasures(['official', 'P.10']).find((s) => s.measure === 'P')).toEqual({ measure: 'P', params: '10' });
  });

  it('expands official and all_trec', () => {
    expect(parseMeasures(['official']).map((s) => s.measure)).toEqual([
      'runid',
      'num_q',
      'num_ret',
      'num_rel',
      'num_rel_ret',
      'map',
      'gm_map',
      'Rprec',
      'bpref',
      'recip_rank',
      'iprec_at_recall',
      'P',
    ]);
    const all = parseMeasures(['all_trec']).map((s) => s.measure);
    expect(all).toContain('ndcg_cut');
    expect(all).not.toContain('ncg_cut'); // our extensions are not trec_eval measures
  });

  it('keeps parameter text verbatim in the name for parameter (not cutoff) measures', () => {
    expect(names(['utility.2,-1,0,0', 'ndcg.1=3,2=9', '11pt_avg..25,.5'])).toEqual(['utility_2,-1,0,0', '11pt_avg_.25,.5', 'ndcg_1=3,2=9']);
    expect(names(['utility', 'ndcg'])).toEqual(['utility', 'ndcg']);
  });

  it('rejects bad parameters like trec_eval', () => {
    expect(() => parseMeasures(['P.0'])).toThrow(/positive/);
    expect(() => parseMeasures(['P.5,5'])).toThrow(/duplicate/);
    expect(() => parseMeasures(['P.'])).toThrow(/empty parameter/);
    expect(() => parseMeasures(['map.5'])).toThrow(/takes no parameters/);
    expect(() => parseMeasures(['ndcg.3'])).toThrow(/level=gain/);
  });
});

describe('parseMeasures: ir_measures-style aliases', () => {
  it.each([
    ['nDCG@10', 'ndcg_cut', '10'],
    ['RR@10', 'recip_rank_cut', '10'],
    ['MRR@10', 'recip_rank_cut', '10'],
    ['RR', 'recip_rank', null],
    ['R@100', 'recall', '100'],
    ['P@10', 'P', '10'],
    ['AP', 'map', null],
    ['AP@100', 'map_cut', '100'],
    ['NCG@100', 'ncg_cut', '100'],
    ['Success@5', 'success', '5'],
    ['nDCG', 'ndcg', null],
    ['Rprec', 'Rprec', null],
    ['R-Prec', 'Rprec', null],
  ])('%s → %s.%s', (alias, measure, params) => {
    expect(parseMeasures([alias])).toEqual([{ measure, params }]);
  });

  it('merges aliases of one family into one cutoff list', () => {
    expect(parseMeasures(['nDCG@10', 'nDCG@5', 'ndcg_cut.100'])).toEqual([{ measure: 'ndcg_cut', params: '5,10,100' }]);
  });

  it('splits whitespace-separated requests', () => {
    expect(parseMeasures(['map P.10']).map((s) => s.measure)).toEqual(['map', 'P']);
  });

  it('throws on unknown names with the list of valid ones', () => {
    expect(() => parseMeasures(['nDCG@0'])).toThrow(/positive/);
    let message = '';
    try {
      parseMeasures(['ndgc_cut.10']);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/unknown measure "ndgc_cut.10"/);
    expect(message).toMatch(/ndcg_cut/);
    expect(message).toMatch(/all_trec/);
    expect(message).toMatch(/nDCG@k/);
    expect(() => parseMeasures(['Judged@10'])).toThrow(/unknown measure/);
  });
});
