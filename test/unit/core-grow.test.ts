import { describe, expect, it } from 'vitest';
import { grow } from '../../src/core/grow.ts';

describe('grow', () => {
  it('returns the array itself while it is long enough', () => {
    const a = new Int32Array([1, 2, 3]);
    expect(grow(a, 3)).toBe(a);
    expect(grow(a, 0)).toBe(a);
  });

  it('doubles (or jumps to minLength when that is more), same type, values first, zeros after', () => {
    const a = new Float64Array([0.5, -1]);
    const b = grow(a, 3);
    expect(b).toBeInstanceOf(Float64Array);
    expect(Array.from(b)).toEqual([0.5, -1, 0, 0]);
    const c = grow(new Uint8Array([7]), 5);
    expect(c).toBeInstanceOf(Uint8Array);
    expect(Array.from(c)).toEqual([7, 0, 0, 0, 0]);
  });

  it('grows an empty array too', () => {
    expect(grow(new Uint32Array(0), 1)).toHaveLength(1);
    expect(grow(new Uint16Array(0), 4)).toEqual(new Uint16Array(4));
  });
});
