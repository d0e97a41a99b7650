/** Flag value parsers shared by the commands; each throws a UsageError naming the flag. */
import { UsageError } from './output.ts';

export function parseIntFlag(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^[+-]?\d+$/.test(value.trim()) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer in [${min}, ${max}]`;
      throw new UsageError(`${flag} expects ${range}, got "${value}"`);
    }
    return n;
  };
}

export function parseFloatFlag(flag: string, min: number, max = Number.POSITIVE_INFINITY) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
      throw new UsageError(`${flag} expects a number in [${min}, ${max}], got "${value}"`);
    }
    return n;
  };
}

/** A finite number > 0 (an exclusive lower bound, which `parseFloatFlag` cannot say). */
export function parsePositiveFlag(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} expects a number > 0, got "${value}"`);
    return n;
  };
}

/** "1,5,10" → [1, 5, 10]. */
export function parseIntList(flag: string) {
  return (value: string): number[] =>
    value.split(',').map((part) => {
      const n = Number(part);
      if (!/^\s*\d+\s*$/.test(part) || n < 1) throw new UsageError(`${flag} expects comma-separated positive integers, got "${value}"`);
      return n;
    });
}

/** Collector for repeatable flags. */
export const collect = (value: string, previous: string[]): string[] => [...previous, value];
