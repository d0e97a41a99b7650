/**
 * Numbers typed into the retrievers' forms, checked in words. The inputs use `step="any"` and their forms
 * `novalidate`: the browser's step rules refused values such as μ = 1000 (with `step="100" min="1"`) without
 * a word, so the range is checked here and said next to the input instead.
 */

export interface NumberRange {
  readonly min: number;
  readonly max?: number;
  /** The minimum itself is not allowed (a value must be greater than it). */
  readonly minOpen?: boolean;
}

/** The problem with a typed value (null: empty or not a number), or null when it is in range. */
export function checkNumber(value: number | null | undefined, name: string, range: NumberRange): string | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return `${name} needs a number.`;
  const below = range.minOpen ? value <= range.min : value < range.min;
  if (below) {
    const upper = range.max === undefined ? '' : ` and at most ${range.max}`;
    return `${name} must be ${range.minOpen ? 'greater than' : 'at least'} ${range.min}${upper}.`;
  }
  if (range.max !== undefined && value > range.max) return `${name} must be at most ${range.max}.`;
  return null;
}
