import { describe, expect, it } from 'vitest';
import { errorInfo, errorText } from '../../../src/app/state/errors.ts';
import { InputError } from '../../../src/core/io/errors.ts';

describe('errorInfo', () => {
  it('an InputError shows its file, line and reason', () => {
    expect(errorInfo(new InputError('scifact/corpus.jsonl', 12, 'expected one JSON object per line'))).toEqual({
      file: 'scifact/corpus.jsonl',
      line: 12,
      message: 'expected one JSON object per line',
    });
    expect(errorInfo(new InputError('qrels/test.tsv', undefined, 'expected at least one judgment'))).toEqual({
      file: 'qrels/test.tsv',
      message: 'expected at least one judgment',
    });
  });

  it('leaves other messages whole, never guessing a file from the text', () => {
    expect(errorInfo(new Error('Could not download SciFact: HTTP 404 for http://x/y.jsonl'))).toEqual({
      message: 'Could not download SciFact: HTTP 404 for http://x/y.jsonl',
    });
    expect(errorInfo(new Error('corpus.jsonl:3: looks like a location'))).toEqual({ message: 'corpus.jsonl:3: looks like a location' });
    expect(errorInfo('plain string')).toEqual({ message: 'plain string' });
  });

  it('as one line: file, line and reason as the collection panel writes them; other messages whole', () => {
    expect(errorText(errorInfo(new InputError('runs/a.trec', 3, 'expected 6 columns')))).toBe('runs/a.trec, line 3: expected 6 columns');
    expect(errorText(errorInfo(new InputError('qrels/test.tsv', undefined, 'expected at least one judgment')))).toBe(
      'qrels/test.tsv: expected at least one judgment',
    );
    expect(errorText(errorInfo(new Error('no run named "x"')))).toBe('no run named "x"');
  });
});
