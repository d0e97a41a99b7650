import { describe, expect, it } from 'vitest';
import { etaMs } from '../../src/core/progress.ts';

describe('etaMs (the one ETA of downloads, BM25 runs and encoding)', () => {
  it('extrapolates the average rate so far', () => {
    expect(etaMs(25, 100, 1000)).toBe(3000);
    expect(etaMs(1, 3, 50)).toBe(100);
  });
  it('is 0 when nothing is left, null while there is no rate or no total', () => {
    expect(etaMs(100, 100, 1000)).toBe(0);
    expect(etaMs(120, 100, 1000)).toBe(0);
    expect(etaMs(0, 0, 0)).toBe(0);
    expect(etaMs(0, 100, 1000)).toBeNull();
    expect(etaMs(10, 100, 0)).toBeNull();
    expect(etaMs(10, null, 1000)).toBeNull();
  });
});
