import { describe, expect, it } from 'vitest';
import { checkNumber } from '../../../src/app/views/shell/number-input.ts';

describe('checkNumber: a typed parameter checked in words', () => {
  it('accepts any value in range, whatever its step (μ = 1000, 1, 0.5; b = 0.65)', () => {
    for (const mu of [1000, 1, 0.5, 2500.25]) expect(checkNumber(mu, 'μ', { min: 0, minOpen: true })).toBeNull();
    expect(checkNumber(0.65, 'b', { min: 0, max: 1 })).toBeNull();
    expect(checkNumber(0, 'k1', { min: 0 })).toBeNull();
  });

  it('says what is wrong: empty, not a number, below, above', () => {
    expect(checkNumber(null, 'μ', { min: 0, minOpen: true })).toBe('μ needs a number.');
    expect(checkNumber(Number.NaN, 'μ', { min: 0, minOpen: true })).toBe('μ needs a number.');
    expect(checkNumber(0, 'μ', { min: 0, minOpen: true })).toBe('μ must be greater than 0.');
    expect(checkNumber(-1, 'b', { min: 0, max: 1 })).toBe('b must be at least 0 and at most 1.');
    expect(checkNumber(1.5, 'b', { min: 0, max: 1 })).toBe('b must be at most 1.');
  });
});
