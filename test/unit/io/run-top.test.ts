/**
 * The streaming top-D run reader against its oracle: `parseRun` on the same bytes, then the lists cut at D
 * (`keepTop`, itself checked against a literal cut). Any chunking, any depth, unsorted ranks, CRLF, comments,
 * gzip; bad lines fail with parseRun's own file:line message; a query split across the file falls back to
 * parseRun and keeps the same top.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keepTop, readRunTop, RunTopReader, ScatteredRunError, type KeptRun } from '../../../src/core/io/run-top.ts';
import { parseRun } from '../../../src/core/io/trec.ts';
import type { DocId, QueryId } from '../../../src/core/types.ts';
import { inputError } from './helpers.ts';

const enc = new TextEncoder();

/** The reader fed `bytes` in pieces of `size`. */
function readInPieces(bytes: Uint8Array, size: number, depth: number, judged?: Map<string, Map<string, number>>): KeptRun {
  const r = new RunTopReader('run.trec', { depth, ...(judged ? { judged: (q: QueryId) => judged.get(q) as Map<DocId, number> } : {}) });
  for (let i = 0; i < bytes.length; i += size) r.push(bytes.subarray(i, i + size));
  return r.finish().value;
}

/** Plain data for comparing runs. */
function plain(run: KeptRun) {
  return {
    name: run.name,
    cut: run.cut,
    lines: run.lines,
    queries: [...run.byQuery].map(([q, l]) => ({
      q,
      docs: [...l.docs],
      scores: [...l.scores],
      length: l.length,
      tail: l.tail ? { docs: [...l.tail.docs], positions: [...l.tail.positions] } : null,
    })),
  };
}

const lineArb = fc.record({
  doc: fc.constantFrom('d0', 'd1', 'd2', 'd3', 'd10', 'D1', 'é1', '文1', 'z', 'd11', 'd12', 'd13'),
  rank: fc.integer({ min: -2, max: 30 }),
  score: fc.constantFrom('1', '0.5', '-1', '2.25', '1e-7', '123456.789', '+3', '.5'),
});
const runArb = fc.record({
  queries: fc.uniqueArray(
    fc.record({
      q: fc.constantFrom('q1', 'q2', 'q10', 'Q1', 'q3', 'q4'),
      lines: fc.uniqueArray(lineArb, { minLength: 1, maxLength: 12, selector: (l) => l.doc }),
    }),
    { minLength: 1, maxLength: 5, selector: (x) => x.q },
  ),
  crlf: fc.boolean(),
  comment: fc.boolean(),
  otherTag: fc.boolean(),
  extraColumn: fc.boolean(),
});

function runText(r: typeof runArb extends fc.Arbitrary<infer T> ? T : never): string {
  const nl = r.crlf ? '\r\n' : '\n';
  const out: string[] = [];
  if (r.comment) out.push('# a comment line');
  let first = true;
  for (const { q, lines } of r.queries)
    for (const l of lines) {
      const tag = r.otherTag && !first ? 'other' : 'mine';
      first = false;
      out.push(`${q} Q0 ${l.doc} ${l.rank} ${l.score} ${tag}${r.extraColumn ? ' extra' : ''}`);
    }
  return out.join(nl) + nl;
}

describe('RunTopReader', () => {
  it('equals parseRun cut at D (with the judged tail), for any chunking and depth', async () => {
    await fc.assert(
      fc.asyncProperty(runArb, fc.integer({ min: 1, max: 14 }), fc.integer({ min: 1, max: 64 }), async (r, depth, piece) => {
        const text = runText(r);
        const judged = new Map([
          [
            'q1',
            new Map([
              ['d10', 1],
              ['d3', 0],
              ['文1', 2],
            ]),
          ],
          ['q2', new Map([['z', 1]])],
        ]);
        const got = readInPieces(enc.encode(text), piece, depth, judged);
        const full = await parseRun(text, 'run.trec');
        const want = keepTop(full.value, { depth, judged: (q) => judged.get(q) as Map<DocId, number> | undefined });
        expect(plain(got)).toEqual(plain(want));
      }),
      { numRuns: 300 },
    );
  });

  it('a budget: past `docs` kept documents every list is cut to the budget depth, as keepTop does on the whole run', async () => {
    await fc.assert(
      fc.asyncProperty(
        runArb,
        fc.integer({ min: 2, max: 14 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 40 }),
        async (r, depth, docs, piece) => {
          const text = runText(r);
          const judged = new Map([
            [
              'q1',
              new Map([
                ['d10', 1],
                ['d3', 0],
                ['文1', 2],
                ['d0', 1],
              ]),
            ],
          ]);
          const opts = { depth, budget: { docs, depth: 1 }, judged: (q: QueryId) => judged.get(q) as Map<DocId, number> | undefined };
          const reader = new RunTopReader('run.trec', opts);
          const bytes = enc.encode(text);
          for (let i = 0; i < bytes.length; i += piece) reader.push(bytes.subarray(i, i + piece));
          const got = reader.finish().value;
          const want = keepTop((await parseRun(text, 'run.trec')).value, opts);
          expect(plain(got)).toEqual(plain(want));
          const total = [...want.byQuery.values()].reduce((a, l) => a + l.length, 0);
          const keptAtDepth = [...want.byQuery.values()].reduce((a, l) => a + Math.min(l.length, depth), 0);
          expect(want.depth).toBe(keptAtDepth > docs ? 1 : depth);
          expect(total).toBe(want.lines);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keepTop is the literal cut: the first D in rank order, judged documents below D with their positions', async () => {
    const text = ['q1 Q0 a 3 1 t', 'q1 Q0 b 1 9 t', 'q1 Q0 c 2 8 t', 'q1 Q0 d 2 7 t', 'q1 Q0 e 5 1 t'].join('\n');
    const run = (await parseRun(text, 'r')).value;
    const kept = keepTop(run, {
      depth: 2,
      judged: () =>
        new Map([
          ['e', 1],
          ['a', 0],
          ['x', 2],
        ]) as Map<DocId, number>,
    });
    // rank order: b(1) c(2) d(2, later line) a(3) e(5)
    expect(plain(kept).queries).toEqual([
      { q: 'q1', docs: ['b', 'c'], scores: [9, 8], length: 5, tail: { docs: ['a', 'e'], positions: [4, 5] } },
    ]);
    expect(kept.cut).toBe(true);
    expect(keepTop(run, { depth: 5 }).cut).toBe(false);
  });

  it('warns as parseRun does: other tags, more than six columns', async () => {
    const text = 'q1 Q0 a 1 1 t\nq1 Q0 b 2 1 u x\n';
    const r = new RunTopReader('f', { depth: 1 });
    r.push(enc.encode(text));
    const { warnings } = r.finish();
    expect(warnings).toEqual((await parseRun(text, 'f')).warnings);
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/1 line\(s\) carry a run tag other than "t"/),
      expect.stringMatching(/1 line\(s\) have more than 6 columns/),
    ]);
  });

  it('a byte-order mark and a last line without a newline are read', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode('q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t')]);
    const run = readInPieces(bytes, 2, 5);
    expect(plain(run).queries).toEqual([{ q: 'q1', docs: ['a', 'b'], scores: [2, 1], length: 2, tail: null }]);
  });
});

describe('bad input: parseRun’s message, file and line', () => {
  const cases: [string, string][] = [
    ['five fields on line 3', 'q1 Q0 a 1 1 t\nq1 Q0 b 2 1 t\nq1 Q0 c 3 1\n'],
    ['a rank that is not an integer', 'q1 Q0 a 1 1 t\nq1 Q0 b 2.5 1 t\n'],
    ['a score that is not a number', 'q1 Q0 a 1 1 t\nq2 Q0 b 1 abc t\n'],
    ['an infinite score', 'q1 Q0 a 1 1e999 t\n'],
    ['a document twice in one query', 'q1 Q0 a 1 1 t\nq1 Q0 b 2 1 t\nq1 Q0 a 3 1 t\n'],
    ['no run line at all', '# only a comment\n\n'],
    [
      'a document twice in a query of 3,000 lines (past the docid table’s first growth)',
      Array.from({ length: 3000 }, (_, i) => `q1 Q0 d${i % 2999} ${i + 1} 1 t\n`).join(''),
    ],
    ['binary junk', String.fromCharCode(...Array.from({ length: 300 }, (_, i) => (i * 7919 + 13) % 256))],
  ];
  for (const [what, text] of cases) {
    it(what, async () => {
      const want = await inputError(parseRun(text, 'bad.run'));
      const got = await inputError(readRunTop(() => enc.encode(text), 'bad.run', { depth: 1 }));
      expect([got.file, got.line, got.reason]).toEqual([want.file, want.line, want.reason]);
    });
  }

  it('a truncated gzip names the file', async () => {
    const gz = gzipSync(enc.encode(Array.from({ length: 5000 }, (_, i) => `q1 Q0 d${i} ${i + 1} 1 t\n`).join('')));
    const e = await inputError(readRunTop(() => gz.subarray(0, gz.length - 40), 'run.gz', { depth: 10 }));
    expect(e.file).toBe('run.gz');
    expect(e.reason).toMatch(/could not decompress \(corrupt or truncated gzip\)/);
  });
});

describe('readRunTop', () => {
  it('reads gzip like plain text', async () => {
    const text = 'q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq2 Q0 c 1 1 t\n';
    const a = await readRunTop(() => enc.encode(text), 'r', { depth: 1 });
    const b = await readRunTop(() => gzipSync(enc.encode(text)), 'r', { depth: 1 });
    expect(plain(b.value)).toEqual(plain(a.value));
    expect(plain(a.value).queries.map((q) => q.docs)).toEqual([['a'], ['c']]);
  });

  it('a query whose lines are apart: the stream says so, readRunTop reads the file whole and keeps the same top', async () => {
    const text = 'q1 Q0 a 1 3 t\nq2 Q0 c 1 1 t\nq1 Q0 b 2 2 t\nq1 Q0 z 0 9 t\n';
    const r = new RunTopReader('r', { depth: 2 });
    expect(() => r.push(enc.encode(text))).toThrow(ScatteredRunError);
    let opened = 0;
    const got = await readRunTop(
      () => {
        opened++;
        return enc.encode(text);
      },
      'r',
      { depth: 2 },
    );
    expect(opened).toBe(2);
    expect(plain(got.value)).toEqual(plain(keepTop((await parseRun(text, 'r')).value, { depth: 2 })));
    expect(plain(got.value).queries[0]!.docs).toEqual(['z', 'a']);
  });

  it('names the run as given, or by its tag', async () => {
    const text = 'q1 Q0 a 1 3 mytag\n';
    expect((await readRunTop(() => text, 'f', { depth: 1 })).value.name).toBe('mytag');
    expect((await readRunTop(() => text, 'f', { depth: 1, name: 'given' })).value.name).toBe('given');
  });
});

describe('a kept run in the flip analysis', () => {
  it('support ranks below the kept depth come from the tail: the per-query ranks equal the whole run’s', async () => {
    const { analyzeFlips } = await import('../../../src/core/flips/analyze.ts');
    const { parseQrels } = await import('../../../src/core/io/trec.ts');
    // q1's only positive is at rank 7 of the reference and rank 2 of the candidate; q2's at 1 and 9.
    const ref = ['q1', 'q2'].flatMap((q) => Array.from({ length: 10 }, (_, i) => `${q} Q0 ${q}d${i} ${i + 1} ${10 - i} ref`)).join('\n');
    const cand = ['q1', 'q2']
      .flatMap((q) => Array.from({ length: 10 }, (_, i) => `${q} Q0 ${q}d${(i + 5) % 10} ${i + 1} ${10 - i} cand`))
      .join('\n');
    const qrels = (await parseQrels('q1 0 q1d6 1\nq2 0 q2d0 1\nq2 0 q2d3 0\n', 'qrels')).value;
    const judged = (q: QueryId) => qrels.byQuery.get(q);
    const whole = analyzeFlips(qrels, (await parseRun(ref, 'r')).value, [(await parseRun(cand, 'c')).value], {
      depths: [1, 3],
      perQuery: true,
    });
    const kept = analyzeFlips(
      qrels,
      (await readRunTop(() => ref, 'r', { depth: 3, judged })).value,
      [(await readRunTop(() => cand, 'c', { depth: 3, judged })).value],
      { depths: [1, 3], perQuery: true },
    );
    expect(whole.per_query!.map((r) => [r.qid, r.reference_rank, r.candidates[0]!.rank])).toEqual([
      ['q1', 7, 2],
      ['q2', 1, 6],
    ]);
    expect(kept).toEqual(whole);
  });
});

describe('bad input at scale', () => {
  it('a run line with 5 fields at line 6,000,000 is named with its line, read as a stream', async () => {
    const LINES = 6_000_000;
    function* chunks(): Generator<Uint8Array> {
      const perChunk = 20_000;
      for (let start = 1; start <= LINES; start += perChunk) {
        const parts: string[] = [];
        for (let n = start; n < start + perChunk && n <= LINES; n++) {
          const q = Math.floor((n - 1) / 1000);
          parts.push(n === LINES ? `q${q} Q0 d${n} ${n} 1.5\n` : `q${q} Q0 d${n} ${((n - 1) % 1000) + 1} 1.5 run\n`);
        }
        yield enc.encode(parts.join(''));
      }
    }
    const e = await inputError(readRunTop(() => chunks(), 'big.run', { depth: 100 }));
    expect([e.file, e.line]).toEqual(['big.run', LINES]);
    expect(e.reason).toMatch(/^expected 6 columns "qid Q0 docid rank score tag" \(TREC run\), got 5: "q5999 Q0 d6000000 6000000 1.5"$/);
  }, 60_000);

  it('a file of junk is refused at its first line, not after reading it all', async () => {
    let served = 0;
    function* junk(): Generator<Uint8Array> {
      // As many 1 MiB chunks of junk as asked for (a 250 MB file would be 250 of them).
      for (let i = 0; i < 250; i++) {
        served++;
        yield new Uint8Array(1 << 20).map((_, j) => (j * 7919 + i * 31 + 1) % 256 || 1);
      }
    }
    const e = await inputError(readRunTop(() => junk(), 'junk.bin', { depth: 100 }));
    expect(e.line).toBe(1);
    expect(e.reason).toMatch(/binary data, not text/);
    expect(served).toBeLessThanOrEqual(2);
  });

  it('a file with no line break at all is refused after 1 MiB, not read whole', async () => {
    let served = 0;
    function* oneLine(): Generator<Uint8Array> {
      for (let i = 0; i < 250; i++) {
        served++;
        yield new Uint8Array(1 << 20).fill(0x41);
      }
    }
    const e = await inputError(readRunTop(() => oneLine(), 'blob.bin', { depth: 100 }));
    expect(e.line).toBe(1);
    expect(e.reason).toMatch(/expected a line break within 1 MiB, found none/);
    expect(served).toBeLessThanOrEqual(2);
  });
});

describe('forEvaluation: a kept run, measured as the whole file', () => {
  it('every trec_eval measure of the kept run (cut at any depth, with its judged tail) equals the whole run’s', async () => {
    const { evaluate, parseMeasures } = await import('../../../src/core/metrics/index.ts');
    const { forEvaluation } = await import('../../../src/core/io/run-top.ts');
    const { parseQrels } = await import('../../../src/core/io/trec.ts');
    const specs = parseMeasures(['all_trec'], '10.0');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.integer({ min: 5, max: 60 }),
        async (depth, seed, deep) => {
          // 3 queries, `deep` documents each in score order; judgments on some ranked and some unranked documents.
          let x = seed;
          const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
          const lines: string[] = [];
          const judged: string[] = [];
          for (let q = 1; q <= 3; q++) {
            for (let i = 0; i < deep; i++) {
              lines.push(`q${q} Q0 d${q}-${i} ${i + 1} ${(100 - i * 0.5).toFixed(2)} r`);
              if (rand() < 0.25) judged.push(`q${q} 0 d${q}-${i} ${Math.floor(rand() * 3)}`);
            }
            judged.push(`q${q} 0 unranked-${q} 1`);
          }
          const text = `${lines.join('\n')}\n`;
          const qrels = (await parseQrels(`${judged.join('\n')}\n`, 'qrels')).value;
          const whole = (await parseRun(text, 'r')).value;
          const kept = (await readRunTop(() => text, 'r', { depth, judged: (q) => qrels.byQuery.get(q) })).value;
          const a = evaluate(qrels, whole, specs, { relevanceLevel: 1, version: '10.0' }).aggregate;
          const b = evaluate(qrels, forEvaluation(kept), specs, { relevanceLevel: 1, version: '10.0' }).aggregate;
          expect(b).toEqual(a);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a run kept whole is returned as it is', async () => {
    const { forEvaluation } = await import('../../../src/core/io/run-top.ts');
    const run = (await readRunTop(() => 'q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n', 'r', { depth: 5 })).value;
    expect(forEvaluation(run)).toBe(run);
  });
});
