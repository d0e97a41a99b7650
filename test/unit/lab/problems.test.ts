import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../src/lab/data/fetch.ts';
import { BlockedRequestError } from '../../../src/worker/network-guard.ts';
import { fromWireError, toWireError } from '../../../src/lab/errors.ts';
import { problemAdvice, problemOf, problemSummary, withProblem } from '../../../src/lab/problems.ts';

describe('network problems in plain language', () => {
  it('tell offline, unreachable, not found, blocked and other HTTP failures apart', () => {
    const noAnswer = new TypeError('Failed to fetch');
    expect(problemOf(noAnswer, false)).toBe('offline');
    expect(problemOf(noAnswer, true)).toBe('unreachable');
    expect(problemOf(new Error('GET x failed', { cause: noAnswer }), true)).toBe('unreachable');
    expect(problemOf(new HttpError('https://h/x', 404, 'Not Found'))).toBe('not-found');
    expect(problemOf(new Error('not found: config.json (HTTP 404)'))).toBe('not-found');
    expect(problemOf(new HttpError('https://h/x', 503, 'Service Unavailable'))).toBe('http');
    expect(problemOf(new BlockedRequestError('blocked a request to https://evil.example'))).toBe('blocked');
    expect(problemOf(new Error('corpus.jsonl, line 2: expected JSON'))).toBeNull();
    expect(problemOf('a string')).toBeNull();
  });

  it('keep their kind across the worker boundary', () => {
    const e = withProblem(new Error('Could not load org/model'), 'unreachable');
    expect(problemOf(fromWireError(toWireError(e)), false)).toBe('unreachable');
  });

  it('say what happened and what to do, differently for each kind', () => {
    const kinds = ['offline', 'unreachable', 'not-found', 'blocked', 'http'] as const;
    const summaries = kinds.map((k) => problemSummary(k, 'SciFact', 'https://mirror.example'));
    const advice = kinds.map((k) => problemAdvice(k, 'pick your own files'));
    expect(new Set(summaries).size).toBe(5);
    expect(new Set(advice).size).toBe(5);
    for (const s of summaries) expect(s).toMatch(/SciFact/);
    expect(summaries[0]).toMatch(/offline/);
    expect(advice[1]).toMatch(/Settings/);
    expect(advice[3]).toMatch(/Add the host in Settings/);
    for (const a of advice) expect(a).toMatch(/pick your own files/);
  });
});
