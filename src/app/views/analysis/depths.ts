/**
 * Parsing the editable depth list ("1, 5, 10, 20, 50") for the analysis controls. Validation is the core's
 * `validateDepths` (positive integers; duplicates dropped; sorted), so the UI accepts exactly what the
 * analysis accepts; this module only turns text into numbers and errors into sentences.
 */
import { errorMessage } from '../../../core/error-message.ts';
import { validateDepths } from '../../../core/flips/analyze.ts';

export type DepthParse = { readonly ok: true; readonly depths: number[] } | { readonly ok: false; readonly error: string };

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** Parses a list like "10, 1, 5" → [1, 5, 10]; `maxDepth` bounds the largest depth (the runs' depth). */
export function parseDepthList(text: string, maxDepth?: number): DepthParse {
  const tokens = text.split(/[\s,;]+/).filter((t) => t !== '');
  if (tokens.length === 0) return { ok: false, error: 'Enter at least one depth, e.g. "1, 5, 10, 20, 50".' };
  const bad = tokens.find((t) => !NUMBER.test(t));
  if (bad !== undefined) {
    return { ok: false, error: `"${bad}" is not a number: expected positive whole numbers separated by commas, e.g. "1, 5, 10".` };
  }
  let depths: number[];
  try {
    depths = validateDepths(tokens.map(Number));
  } catch (e) {
    const message = errorMessage(e);
    return { ok: false, error: `${message.charAt(0).toUpperCase()}${message.slice(1)}.` };
  }
  const deepest = depths[depths.length - 1]!;
  if (maxDepth !== undefined && deepest > maxDepth) {
    return { ok: false, error: `Depth ${deepest} exceeds ${maxDepth}, the deepest the loaded runs allow.` };
  }
  return { ok: true, depths };
}

/** The list as the editor shows it: "1, 5, 10". */
export function depthListText(depths: readonly number[]): string {
  return depths.join(', ');
}
