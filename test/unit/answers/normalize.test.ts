/**
 * The correctness rule (RAGFlip §3.5), case by case with the reason each case exists: lowercase, punctuation
 * deleted (ASCII string.punctuation and Unicode \p{P}), articles removed as whole words, gold tokens contiguous
 * in the prediction, any gold suffices, "unknown" is wrong, an empty gold never matches.
 */
import { describe, expect, it } from 'vitest';
import { answerTokens, matchAnswer, normalizeAnswer } from '../../../src/core/answers/normalize.ts';

describe('answer normalization', () => {
  it.each([
    ['lowercase', 'Paris', 'paris'],
    ['punctuation is deleted, not replaced by a space', 'U.S.A.', 'usa'],
    ["an apostrophe joins the word (SQuAD's rule)", "don't", 'dont'],
    ['ASCII symbols in string.punctuation go too', '$5 + 3 = <8>', '5 3 8'],
    ['Unicode punctuation: dashes, curly quotes, ellipsis, guillemets', '“Yes” — «no»… ¿qué?', 'yes no qué'],
    ['articles as whole words only', 'The theory of an atom', 'theory of atom'],
    ['"a" inside a word stays', 'Alabama', 'alabama'],
    ['an article after punctuation removal ("the," → "the")', 'in the, end', 'in end'],
    ['any whitespace splits, runs collapse', 'new\tyork\n\u00a0city', 'new york city'],
    ['empty stays empty', '  ...  ', ''],
  ])('%s', (_, input, expected) => {
    expect(normalizeAnswer(input)).toBe(expected);
  });

  it('keeps letters and digits of any script', () => {
    expect(answerTokens('Ça coûte 10€, 東京!')).toEqual(['ça', 'coûte', '10€', '東京']);
  });
});

describe('answer correctness', () => {
  it.each<[string, string, string[], boolean, string | null]>([
    ['the gold tokens appear contiguously', 'It was the Eiffel Tower in Paris.', ['Eiffel Tower'], true, 'Eiffel Tower'],
    ['order matters', 'tower eiffel', ['Eiffel Tower'], false, null],
    ['contiguous, not scattered', 'Eiffel is a tower', ['Eiffel Tower'], false, null],
    ['whole tokens, not substrings', 'Parisian', ['Paris'], false, null],
    ['any one gold answer suffices (the first found is named)', 'Barack Obama', ['George Bush', 'Obama'], true, 'Obama'],
    ['articles and punctuation do not block a match', 'The Beatles!', ['Beatles'], true, 'Beatles'],
    ['"unknown" is incorrect, whatever the gold', 'Unknown.', ['unknown'], false, null],
    ['"unknown" inside a longer answer is an answer', 'unknown soldier', ['unknown soldier'], true, 'unknown soldier'],
    ['an empty normalized gold never matches', 'anything', ['', 'the', '...'], false, null],
    ['no gold answers: incorrect', 'Paris', [], false, null],
    ['an empty prediction is incorrect', '', ['Paris'], false, null],
  ])('%s', (_, prediction, golds, correct, matched) => {
    const m = matchAnswer(prediction, golds);
    expect(m.correct).toBe(correct);
    expect(m.matchedAnswer).toBe(matched);
    expect(m.normalizedPrediction).toBe(normalizeAnswer(prediction));
  });
});
