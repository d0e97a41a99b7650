import { describe, expect, it } from 'vitest';
import { evaluate, formatTrecEval, parseMeasures } from '../../../src/core/metrics/index.ts';
import { formatFixed, formatLong, formatValue } from '../../../src/core/metrics/printf.ts';
import { qrels, run } from './helpers.ts';

describe('printf-compatible numbers', () => {
  it('rounds exact decimal ties half to even like glibc, not half up like toFixed', () => {
    expect((0.03125).toFixed(4)).toBe('0.0313');
    expect(formatFixed(0.03125, 4)).toBe('0.0312'); // trec_eval prints iprec_at_recall_0.80 0.0312
    expect(formatFixed(0.09375, 4)).toBe('0.0938'); // tie, 7 is odd → up
    expect(formatFixed(0.125, 2)).toBe('0.12');
    expect(formatFixed(0.375, 2)).toBe('0.38');
    expect(formatFixed(2.5, 0)).toBe('2');
  });

  it('rounds non-ties by the exact binary value', () => {
    expect(formatFixed(0.00005, 4)).toBe('0.0001'); // the double is slightly above 0.00005
    expect(formatFixed(1 / 3, 4)).toBe('0.3333');
    expect(formatFixed(-412.66666666, 4)).toBe('-412.6667');
  });

  it("prints %6.4f, %ld and trec_eval's -nan", () => {
    expect(formatValue(0.5)).toBe('0.5000');
    expect(formatValue(Number.NaN)).toBe('  -nan');
    expect(formatFixed(-0, 4)).toBe('-0.0000');
    expect(formatLong(1500)).toBe('1500');
    expect(formatLong(3.9)).toBe('3');
  });
});

describe('formatTrecEval', () => {
  // q1: a relevant at rank 1 of 2; q2: nothing relevant retrieved.
  const q = qrels({ q1: { a: 1 }, q2: { b: 1 } });
  const r = run(
    {
      q1: [
        ['a', 2],
        ['x', 1],
      ],
      q2: [['y', 1]],
    },
    'myrun',
  );

  it('prints %-22s\\t%s\\t%6.4f lines, integer counts, runid and num_q on the summary only', () => {
    const out = formatTrecEval(evaluate(q, r, parseMeasures(['runid', 'num_q', 'num_ret', 'map'])), { perQuery: true });
    expect(out).toBe(
      [
        'num_ret               \tq1\t2',
        'map                   \tq1\t1.0000',
        'num_ret               \tq2\t1',
        'map                   \tq2\t0.0000',
        'runid                 \tall\tmyrun',
        'num_q                 \tall\t2',
        'num_ret               \tall\t3',
        'map                   \tall\t0.5000',
        '',
      ].join('\n'),
    );
  });

  it('overrides the run tag and leaves out per-query blocks without -q', () => {
    const out = formatTrecEval(evaluate(q, r, parseMeasures(['runid', 'P.1'])), { perQuery: false, runid: 'other' });
    expect(out).toBe('runid                 \tall\tother\nP_1                   \tall\t0.5000\n');
  });

  it('does not truncate names longer than 22 characters', () => {
    const out = formatTrecEval(evaluate(q, r, parseMeasures(['num_nonrel_judged_ret'])), { perQuery: false });
    expect(out).toBe('num_nonrel_judged_ret \tall\t0\n');
    // utility 1,-1,0,0 = relevant retrieved − non-relevant retrieved: q1 1 − 1 = 0, q2 0 − 1 = −1; mean −1/2
    const long = formatTrecEval(evaluate(q, r, parseMeasures(['utility.1.0,-1.0,0.0,0.0'])), { perQuery: false });
    expect(long).toBe('utility_1.0,-1.0,0.0,0.0\tall\t-0.5000\n');
  });
});
