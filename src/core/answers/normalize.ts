/**
 * Answer correctness (RAGFlip §3.5): predictions and gold answers are lowercased, stripped of punctuation
 * and of the articles a, an, the; a prediction is correct when the normalized gold-token sequence appears
 * as a contiguous subsequence of the normalized prediction (any one gold answer suffices).
 *
 * Where the paper is silent: "punctuation" is Python's `string.punctuation` (ASCII, which includes symbols
 * such as $ + < = > ^ ` | ~) plus every Unicode punctuation character (\p{P}); it is deleted, not replaced by
 * a space ("U.S." → "us", "don't" → "dont"), as SQuAD's normalize_answer does. Articles are removed as whole
 * words after that; tokens are split on any Unicode whitespace. A prediction that normalizes to exactly
 * "unknown" is incorrect (the reader's abstention); a gold answer that normalizes to nothing never matches.
 */

/** Python's string.punctuation. */
const ASCII_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const PUNCTUATION = new RegExp(`[\\p{P}${ASCII_PUNCTUATION.replace(/[\\\]^-]/g, '\\$&')}]`, 'gu');
const ARTICLE = /^(a|an|the)$/;

/** The normalized tokens of an answer. */
export function answerTokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(PUNCTUATION, '')
    .split(/\s+/u)
    .filter((t) => t !== '' && !ARTICLE.test(t));
}

/** The normalized form as one string (tokens joined by single spaces). */
export function normalizeAnswer(text: string): string {
  return answerTokens(text).join(' ');
}

export interface AnswerMatch {
  readonly correct: boolean;
  readonly normalizedPrediction: string;
  /** The first gold answer (in the given order) found in the prediction; null when none is. */
  readonly matchedAnswer: string | null;
}

function containsSequence(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0 || needle.length > haystack.length) return false;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** Is `prediction` correct for any of `golds`? */
export function matchAnswer(prediction: string, golds: readonly string[]): AnswerMatch {
  const tokens = answerTokens(prediction);
  const normalizedPrediction = tokens.join(' ');
  if (normalizedPrediction === 'unknown') return { correct: false, normalizedPrediction, matchedAnswer: null };
  const matchedAnswer = golds.find((g) => containsSequence(tokens, answerTokens(g))) ?? null;
  return { correct: matchedAnswer !== null, normalizedPrediction, matchedAnswer };
}
