import { describe, expect, it } from 'vitest';
import { errorInfo } from '../../../src/app/state/errors.ts';
import { InputError } from '../../../src/core/io/errors.ts';

describe('errorInfo', () => {
  it('an InputError shows its file, line and reason', () => {
    expect(errorInfo(new InputError('scifact/corpus.jsonl', 12, 'expected one JSON object per line'))).toEqual({
      file: 'scifact/corpus.jsonl',
      line: 12,
      message: 'expected one JSON object per line',
    });
    expect(errorInfo(new InputError('qrels/test.tsv', undefined, 'expected at least one judgment'))).toEqual({ file: 'qrels/test.tsv', message: 'expected at least one judgment' });
  });

  it('leaves other messages whole, never guessing a file from the text', () => {
    expect(errorInfo(new Error('Could not download SciFact: HTTP 404 for http://x/y.jsonl'))).toEqual({ message: 'Could not download SciFact: HTTP 404 for http://x/y.jsonl' });
    expect(errorInfo(new Error('corpus.jsonl:3: looks like a location'))).toEqual({ message: 'corpus.jsonl:3: looks like a location' });
    expect(errorInfo('plain string')).toEqual({ message: 'plain string' });
  });
});
