/**
 * The judging job's cache contract (src/encoders/judge-job.ts), with a stand-in judge (a unit test: the real
 * judges are test/unit/encoders/judge.test.ts's and the e2e's): each batch is committed before the next, so a
 * judge that fails mid-job keeps every verdict made and the next job judges only the rest; a cache-only job loads
 * no judge; a verdict is keyed by the judge and the two texts alone.
 */
import { describe, expect, it } from 'vitest';
import {
  judgeIdentity,
  judgeWithCache,
  judgmentKey,
  type JudgmentCache,
  type JudgmentRecord,
  type PairTask,
} from '../../../src/encoders/judge-job.ts';
import { customJudge } from '../../../src/encoders/judge-presets.ts';
import type { JudgePair, LoadedJudge } from '../../../src/encoders/judge.ts';

class MemoryCache implements JudgmentCache {
  readonly map = new Map<string, JudgmentRecord>();
  async getMany(keys: readonly string[]) {
    return new Map(keys.filter((k) => this.map.has(k)).map((k) => [k, this.map.get(k)!]));
  }
  async putMany(records: readonly JudgmentRecord[]) {
    for (const r of records) this.map.set(r.key, r);
  }
}

const config = customJudge('org/judge', 'cross-encoder');
const tasks: PairTask[] = Array.from({ length: 10 }, (_, i) => ({
  qid: `q${i % 3}`,
  docid: `d${i}`,
  query: `query ${i % 3}`,
  passage: `passage ${i}`,
}));

function judge(failAfterCalls = Infinity): { judge: LoadedJudge; seen: JudgePair[][] } {
  const seen: JudgePair[][] = [];
  return {
    seen,
    judge: {
      config,
      kind: 'cross-encoder',
      device: 'wasm',
      dtype: 'fp32',
      async judge(pairs) {
        if (seen.length >= failAfterCalls) throw new Error('device lost');
        seen.push([...pairs]);
        return pairs.map((p) => ({ score: p.passage.length + p.query.length / 100 }));
      },
      async dispose() {},
    },
  };
}

describe('judgeWithCache', () => {
  it('keeps every committed batch when the judge fails, and judges only the rest next time', async () => {
    const identity = await judgeIdentity(config);
    const cache = new MemoryCache();
    const first = judge(2);
    await expect(judgeWithCache({ load: async () => first.judge }, cache, tasks, { identity, batch: 4 })).rejects.toThrow('device lost');
    expect(cache.map.size).toBe(8);
    const second = judge();
    let loaded = 0;
    const result = await judgeWithCache(
      {
        load: async () => {
          loaded++;
          return second.judge;
        },
      },
      cache,
      tasks,
      { identity, batch: 4 },
    );
    expect(result).toMatchObject({ cached: 8, judged: 2, device: 'wasm' });
    expect(second.seen.flat().map((p) => p.passage)).toEqual(['passage 8', 'passage 9']);
    expect(loaded).toBe(1);
    expect(result.records.map((r) => [r.qid, r.docid, r.score])).toEqual(
      tasks.map((t) => [t.qid, t.docid, t.passage.length + t.query.length / 100]),
    );

    // Everything cached: no judge is loaded.
    const third = await judgeWithCache({ load: async () => Promise.reject(new Error('should not load')) }, cache, tasks, { identity });
    expect(third).toMatchObject({ cached: 10, judged: 0, device: null });
  });

  it('a cache-only job delivers what is cached and loads nothing', async () => {
    const identity = await judgeIdentity(config);
    const cache = new MemoryCache();
    await judgeWithCache({ load: async () => judge().judge }, cache, tasks.slice(0, 3), { identity });
    const r = await judgeWithCache({ load: async () => Promise.reject(new Error('no')) }, cache, tasks, { identity, cacheOnly: true });
    expect(r).toMatchObject({ cached: 3, judged: 0 });
    expect(r.records).toHaveLength(3);
  });

  it('keys a verdict by the judge and the two texts: not by ids, not by run; an edited prompt is another judge', async () => {
    const id = await judgeIdentity(config);
    const pair = { query: 'a', passage: 'b' };
    expect(await judgmentKey(id, pair)).toBe(await judgmentKey(id, { ...pair }));
    expect(await judgmentKey(id, pair)).not.toBe(await judgmentKey(id, { query: 'a', passage: 'c' }));
    const llm = customJudge('org/llm', 'llm');
    const edited = { ...llm, prompt: { ...llm.prompt!, template: `${llm.prompt!.template} ` } };
    expect(await judgeIdentity(llm)).not.toBe(await judgeIdentity(edited));
    expect(await judgeIdentity(config)).not.toBe(await judgeIdentity({ ...config, dtype: 'q8' }));
  });
});
