/** What an encoder row says while encoding: the batch sizing by the device's limits and out-of-memory retries. */
import { describe, expect, it } from 'vitest';
import { describeRowProgress } from '../../../src/app/views/shell/progress.ts';
import type { JobProgress } from '../../../src/lab/types.ts';

const base: JobProgress = { done: 500, total: 1000, cached: 0, etaMs: 60_000, unit: 'documents', perSecond: 10 };

describe('an encoding row', () => {
  it('says nothing of limits or retries when neither applies', () => {
    const text = describeRowProgress('encoding', base);
    expect(text).not.toMatch(/buffers|out-of-memory/);
  });

  it("names the tensor that sized the batches to the device's memory, and counts out-of-memory retries", () => {
    const text = describeRowProgress('encoding', { ...base, planBoundBy: 'logits (30,522 per token)', oomRetries: 3 });
    expect(text).toMatch(/batches sized to the device's memory by the logits \(30,522 per token\)/);
    expect(text).toMatch(/· 3 out-of-memory retries$/);
    expect(describeRowProgress('encoding', { ...base, oomRetries: 1 })).toMatch(/· 1 out-of-memory retry$/);
  });
});

describe('counts in a row', () => {
  it('name one query or passage in the singular and the rest in the plural, with thousands separators', () => {
    const one: JobProgress = { done: 0, total: 1, cached: 0, etaMs: null, unit: 'queries' };
    expect(describeRowProgress('confirm', one)).toBe('1 query to encode once the model is loaded');
    expect(describeRowProgress('checking', { ...one, unit: 'documents', checked: 0 })).toBe('0 of 1 passage looked up · none stored yet');
    expect(describeRowProgress('confirm', { ...one, total: 5183, unit: 'documents' })).toBe(
      '5,183 passages to encode once the model is loaded',
    );
  });
});
