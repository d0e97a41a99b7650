import { describe, expect, it } from 'vitest';
import { errorInfo } from '../../../src/app/lab/errors.ts';
import { InputError } from '../../../src/core/io/errors.ts';

describe('errorInfo', () => {
  it('splits the core’s file:line: reason, also after a worker boundary turned it into a plain Error', () => {
    const original = new InputError('scifact/corpus.jsonl', 12, 'expected one JSON object per line');
    expect(errorInfo(original)).toEqual({ file: 'scifact/corpus.jsonl', line: 12, message: original.message });
    expect(errorInfo(new Error(original.message))).toEqual({ file: 'scifact/corpus.jsonl', line: 12, message: 'expected one JSON object per line' });
    expect(errorInfo(new Error('qrels/test.tsv: expected at least one judgment'))).toEqual({ file: 'qrels/test.tsv', message: 'expected at least one judgment' });
  });

  it('leaves other messages whole', () => {
    expect(errorInfo(new Error('Could not download SciFact: HTTP 404 for http://x/y.jsonl'))).toEqual({ message: 'Could not download SciFact: HTTP 404 for http://x/y.jsonl' });
    expect(errorInfo('plain string')).toEqual({ message: 'plain string' });
  });
});
