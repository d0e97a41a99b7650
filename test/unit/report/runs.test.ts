import { describe, expect, it } from 'vitest';
import { parseRun } from '../../../src/core/io/trec.ts';
import { runText } from '../../../src/report/runs.ts';
import { makeRun } from './fixtures.ts';

describe('TREC run export', () => {
  it('re-reads as the same rankings and the exact scores', async () => {
    const run = makeRun('my run', { q1: ['a', 'b', 'c'], q2: ['z'] });
    (run.byQuery.get('q1' as never)!.scores as Float64Array).set([0.1 + 0.2, 1 / 3, -2.5e-300]);
    const text = runText(run);
    expect(text.split('\n')[0]).toBe(`q1 Q0 a 1 ${0.1 + 0.2} my_run`);
    const back = (await parseRun(text, 'x.run')).value;
    expect(back.name).toBe('my_run');
    expect([...back.byQuery.keys()]).toEqual(['q1', 'q2']);
    expect(back.byQuery.get('q1' as never)!.docs).toEqual(['a', 'b', 'c']);
    expect([...back.byQuery.get('q1' as never)!.scores]).toEqual([0.1 + 0.2, 1 / 3, -2.5e-300]);
    expect(runText(run, 'tag')).toMatch(/ tag\n$/);
  });
});
