/**
 * The byte-level evaluator (`fliplab eval`'s fast path) against the text path it replaces: on random runs
 * written in the ways real files are written (sorted or shuffled lines, a query's lines split across the
 * file, scores as "1.5", "1.50", "15e-1" or "+1.5", comments, CRLF, tabs, non-ASCII ids, tied scores), both
 * must print the same bytes for every release and option; on malformed files the fast path must decline
 * (undefined), leaving the error to the text parser.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QrelsBuilder, parseRun } from '../../../src/core/io/trec.ts';
import { judgedQueries } from '../../../src/core/metrics/judged.ts';
import { evaluate, EvalPlan, formatTrecEval, parseMeasures, type TrecEvalVersion } from '../../../src/core/metrics/index.ts';
import {
  assembleRanges,
  evaluateChunks,
  evaluateRange,
  evaluateRunBytes,
  firstRunTag,
  lastQueryStart,
  parseQrelsBytes,
  splitRun,
  type ByteQrels,
} from '../../../src/core/metrics/run-bytes.ts';
import { parseScoreBytes } from '../../../src/core/io/score-bytes.ts';
import { qrels as makeQrels } from './helpers.ts';

const docId = fc.constantFrom('d0', 'd1', 'd2', 'd3', 'd10', 'D1', 'é1', 'd\u00e92', '文1', 'z');
const queryId = fc.constantFrom('q1', 'q2', 'q10', 'q3', 'Q1');
const score = fc.constantFrom(0, 0.5, 1, 1.5, 2, -1, 1e-7, 123456.789);
const grade = fc.constantFrom(-1, 0, 0, 1, 1, 2, 3);
const judgmentsArb = fc.dictionary(queryId, fc.dictionary(docId, grade, { minKeys: 1, maxKeys: 6 }), { minKeys: 1, maxKeys: 4 });
const listsArb = fc.dictionary(queryId, fc.uniqueArray(fc.tuple(docId, score), { minLength: 1, maxLength: 10, selector: ([d]) => d }), {
  minKeys: 1,
  maxKeys: 4,
});
const styleArb = fc.record({
  shuffle: fc.boolean(),
  crlf: fc.boolean(),
  tabs: fc.boolean(),
  comment: fc.boolean(),
  scoreForm: fc.constantFrom('plain', 'fixed', 'exp', 'plus'),
  tags: fc.constantFrom('one', 'mixed'),
});
type Style = { shuffle: boolean; crlf: boolean; tabs: boolean; comment: boolean; scoreForm: string; tags: string };

const optsArb = fc.record({
  version: fc.constantFrom<TrecEvalVersion>('10.0', '9.0.8'),
  complete: fc.boolean(),
  level: fc.constantFrom(1, 2),
  maxRetrieved: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
  judgedOnly: fc.boolean(),
  perQuery: fc.boolean(),
});

function formatScore(s: number, form: string): string {
  if (form === 'fixed') return s.toFixed(6);
  if (form === 'exp') return s.toExponential();
  if (form === 'plus' && s >= 0) return `+${s}`;
  return String(s);
}

function writeRun(lists: Record<string, [string, number][]>, style: Style, seed: number): string {
  const lines: string[] = [];
  for (const [q, docs] of Object.entries(lists)) {
    docs.forEach(([d, s], i) => {
      const sep = style.tabs ? '\t' : ' ';
      const tag = style.tags === 'mixed' && i % 3 === 2 ? 'other' : 'run1';
      lines.push([q, 'Q0', d, String(i + 1), formatScore(s, style.scoreForm), tag].join(sep));
    });
  }
  if (style.shuffle) {
    let x = seed;
    for (let i = lines.length - 1; i > 0; i--) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const j = x % (i + 1);
      [lines[i], lines[j]] = [lines[j]!, lines[i]!];
    }
  }
  if (style.comment) lines.splice(Math.min(1, lines.length), 0, '# a comment line');
  return lines.join(style.crlf ? '\r\n' : '\n') + '\n';
}

/** The same judgments as bytes for the byte path (TREC 4 columns). */
function byteQrels(spec: Record<string, Record<string, number>>): ByteQrels {
  const lines = Object.entries(spec).flatMap(([q, docs]) => Object.entries(docs).map(([d, g]) => `${q} 0 ${d} ${g}\n`));
  const parsed = parseQrelsBytes(new TextEncoder().encode(lines.join('')));
  if (!parsed) throw new Error('parseQrelsBytes declined well-formed qrels');
  return parsed;
}

/** Whether every query's lines are together (the byte path takes only such files). */
function grouped(text: string): boolean {
  const qids = text
    .split('\n')
    .filter((l) => l.trim().length > 0 && !l.startsWith('#'))
    .map((l) => l.trim().split(/\s+/)[0]!);
  const done = new Set<string>();
  for (let i = 0; i < qids.length; i++) {
    if (i > 0 && qids[i] !== qids[i - 1]) done.add(qids[i - 1]!);
    if (done.has(qids[i]!)) return false;
  }
  return true;
}

const MEASURES = ['all_trec', 'relstring', 'ncg_cut.5', 'recip_rank_cut.3'];

describe('evaluateRunBytes equals the text path', () => {
  it('prints the same bytes on random runs, formats, releases and options', async () => {
    await fc.assert(
      fc.asyncProperty(judgmentsArb, listsArb, styleArb, optsArb, fc.nat(), async (judgments, lists, style, o, seed) => {
        const qrels = makeQrels(judgments);
        const text = writeRun(lists, style, seed);
        const bytes = new TextEncoder().encode(text);
        const specs = parseMeasures(MEASURES, o.version);
        const options = {
          relevanceLevel: o.level,
          complete: o.complete,
          version: o.version,
          maxRetrieved: o.maxRetrieved ?? Number.POSITIVE_INFINITY,
          judgedOnly: o.judgedOnly,
        };
        const run = (await parseRun(text, 'r.txt')).value;
        let expected: string | undefined;
        try {
          expected = formatTrecEval(evaluate(qrels, run, specs, options), { perQuery: o.perQuery });
        } catch {
          expected = undefined; // no evaluable query: the fast path must decline too
        }
        const fast = evaluateRunBytes(byteQrels(judgments), bytes, new EvalPlan(specs, o.version), options);
        if (expected === undefined || !grouped(text)) {
          // nothing to evaluate, or a query's lines are not together: the text path decides
          expect(fast).toBeUndefined();
          return;
        }
        expect(fast).toBeDefined();
        expect(formatTrecEval(fast!.result, { perQuery: o.perQuery })).toBe(expected);
        expect(fast!.tag).toBe(run.name);
        const tags = text
          .split('\n')
          .filter((l) => l.length > 0 && !l.startsWith('#'))
          .map((l) => l.trim().split(/\s+/)[5]);
        expect(fast!.otherTags).toBe(tags.filter((t) => t !== tags[0]).length);
      }),
      { numRuns: 400 },
    );
  });

  it('streams each printed query once, in print order, with the row the result keeps', () => {
    const qrels = byteQrels({ b: { x: 1 }, a: { y: 2 }, c: { z: 1 } });
    const bytes = new TextEncoder().encode('b Q0 x 1 2 t\nb Q0 w 2 1 t\na Q0 y 1 3 t\n');
    const seen: string[] = [];
    const plan = new EvalPlan(parseMeasures(['map', 'num_ret']), '10.0');
    const fast = evaluateRunBytes(qrels, bytes, plan, {
      relevanceLevel: 1,
      complete: true,
      maxRetrieved: Infinity,
      version: '10.0',
      onQuery: (qid, row) => seen.push(`${qid}:${row[plan.slotOf[plan.valueNames.indexOf('num_ret')]!]}`),
    });
    expect(seen).toEqual(['a:1', 'b:2', 'c:0']);
    expect([...fast!.result.missing]).toEqual(['c']);
  });

  it('cut at query boundaries, ranges evaluated apart and assembled give the whole run', async () => {
    await fc.assert(
      fc.asyncProperty(judgmentsArb, listsArb, optsArb, fc.double({ min: 0, max: 1, noNaN: true }), async (judgments, lists, o, cut) => {
        const text = writeRun(lists, { shuffle: false, crlf: false, tabs: false, comment: false, scoreForm: 'plain', tags: 'one' }, 0);
        const bytes = new TextEncoder().encode(text);
        const qrels = byteQrels(judgments);
        const plan = new EvalPlan(parseMeasures(MEASURES, o.version), o.version);
        const options = {
          relevanceLevel: o.level,
          complete: o.complete,
          version: o.version,
          maxRetrieved: o.maxRetrieved ?? Infinity,
          judgedOnly: o.judgedOnly,
        };
        const whole = evaluateRunBytes(qrels, bytes, plan, options);
        const at = splitRun(bytes, Math.floor(cut * bytes.length));
        // the cut is a line start where the query id changes (or the end)
        if (at < bytes.length) {
          const before = text.slice(0, at).trimEnd().split('\n').pop()!.split(' ')[0];
          expect(text.slice(at).split(' ')[0]).not.toBe(before);
        }
        const tag = new TextEncoder().encode(firstRunTag(bytes)!);
        const parts = [
          evaluateRange(qrels, bytes, 0, at, plan, options, tag)!,
          evaluateRange(qrels, bytes, at, bytes.length, plan, options, tag)!,
        ];
        const split = assembleRanges(qrels, plan, options, firstRunTag(bytes)!, parts);
        expect(split === undefined).toBe(whole === undefined);
        if (whole && split) expect(formatTrecEval(split.result, { perQuery: true })).toBe(formatTrecEval(whole.result, { perQuery: true }));
      }),
      { numRuns: 200 },
    );
  });

  it('read in chunks of any size, with short reads, gives what the whole file gives', async () => {
    await fc.assert(
      fc.asyncProperty(
        judgmentsArb,
        listsArb,
        styleArb,
        optsArb,
        fc.nat(),
        fc.integer({ min: 1, max: 96 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        async (judgments, lists, style, o, seed, chunk, reads, bom) => {
          const text = (bom ? '\ufeff' : '') + writeRun(lists, style, seed);
          const bytes = new TextEncoder().encode(text);
          const qrels = byteQrels(judgments);
          const plan = new EvalPlan(parseMeasures(MEASURES, o.version), o.version);
          const options = {
            relevanceLevel: o.level,
            complete: o.complete,
            version: o.version,
            maxRetrieved: o.maxRetrieved ?? Infinity,
            judgedOnly: o.judgedOnly,
          };
          const whole = evaluateRunBytes(qrels, bytes, plan, options);
          let at = 0;
          let call = 0;
          // a reader that hands out fewer bytes than asked, as pipes and slow disks do
          const read = (into: Uint8Array, offset: number, length: number): number => {
            const n = Math.min(length, reads[call++ % reads.length]!, bytes.length - at);
            into.set(bytes.subarray(at, at + n), offset);
            at += n;
            return n;
          };
          const chunked = evaluateChunks(qrels, read, plan, options, chunk);
          expect(chunked === undefined).toBe(whole === undefined);
          if (whole && chunked) {
            expect(formatTrecEval(chunked.result, { perQuery: true })).toBe(formatTrecEval(whole.result, { perQuery: true }));
            expect(chunked.otherTags).toBe(whole.otherTags);
            expect(chunked.lengths).toEqual(whole.lengths);
            expect(chunked.tag).toBe(whole.tag);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('cuts chunks where the last query begins, past comments and blank lines', () => {
    const cut = (text: string) => lastQueryStart(new TextEncoder().encode(text), new TextEncoder().encode(text).length);
    expect(cut('a Q0 x 1 1 t\nb Q0 y 1 1 t\nb Q0 z 2 0 t\n')).toBe(13);
    expect(cut('a Q0 x 1 1 t\n# note\n\nb Q0 y 1 1 t\n')).toBe(13);
    expect(cut('a Q0 x 1 1 t\na Q0 y 2 0 t\n')).toBe(0);
    expect(cut('a Q0 x 1 1 t\n  a\tQ0 y 2 0 t\n')).toBe(0);
    expect(cut('ab Q0 x 1 1 t\na Q0 y 2 0 t\n')).toBe(14);
    expect(cut('\n')).toBe(0);
  });

  it('declines a run whose query comes back after another one (the text path sorts it out)', () => {
    const qrels = byteQrels({ q1: { d1: 1 }, q2: { d1: 1 } });
    const plan = new EvalPlan(parseMeasures(['map']), '10.0');
    const bytes = new TextEncoder().encode('q1 Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n');
    expect(
      evaluateRunBytes(qrels, bytes, plan, { relevanceLevel: 1, complete: false, maxRetrieved: Infinity, version: '10.0' }),
    ).toBeUndefined();
  });

  it.each([
    ['five columns', 'q1 Q0 d1 1 2\n'],
    ['seven columns', 'q1 Q0 d1 1 2 t extra\n'],
    ['a non-integer rank', 'q1 Q0 d1 one 2 t\n'],
    ['a score that is not a number', 'q1 Q0 d1 1 high t\n'],
    ['an infinite score', 'q1 Q0 d1 1 1e999 t\n'],
    ['a document twice in one query, far apart', 'q1 Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\nq1 Q0 d1 2 1 t\n'],
    [
      'a score with a non-ASCII byte (U+00A0 read as Latin-1 would pass Number())',
      new Uint8Array([...new TextEncoder().encode('q1 Q0 d1 1 3'), 0xa0, ...new TextEncoder().encode(' t\n')]),
    ],
    [
      'another tag with bytes that are not UTF-8',
      new Uint8Array([...new TextEncoder().encode('q1 Q0 d1 1 3 run\nq1 Q0 d2 2 2 ru'), 0x80, 0x0a]),
    ],
    ['invalid UTF-8 in a docid', new Uint8Array([...new TextEncoder().encode('q1 Q0 d'), 0xff, ...new TextEncoder().encode(' 1 2 t\n')])],
  ])('declines on %s (the text parser reports it)', (_, input) => {
    const qrels = byteQrels({ q1: { d1: 1 }, q2: { d1: 1 } });
    const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
    const plan = new EvalPlan(parseMeasures(['map']), '10.0');
    expect(
      evaluateRunBytes(qrels, bytes, plan, { relevanceLevel: 1, complete: false, maxRetrieved: Infinity, version: '10.0' }),
    ).toBeUndefined();
  });

  it('parses scores exactly as Number() does (correctly rounded)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
          fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((x) => x.toFixed(fc.sample(fc.nat(12), 1)[0]!)),
          fc.tuple(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: -30, max: 30 })).map(([m, e]) => `${m}e${e}`),
          fc.stringMatching(/^[+-]?\d{0,18}(\.\d{0,18})?([eE][+-]?\d{1,3})?$/),
        ),
        (s) => {
          const b = new TextEncoder().encode(s);
          const want = Number(s);
          const got = parseScoreBytes(b, 0, b.length);
          if (s.trim() === '' || !Number.isFinite(want)) expect(got).toBeNaN();
          else expect(Object.is(got, want) || (got === 0 && want === 0), s).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('parseQrelsBytes equals the text qrels parser', () => {
  const line = fc.tuple(queryId, docId, fc.constantFrom('0', '1', '2', '-1', '1.0', 'x'));
  it('takes the same judgments (repeats counted once) or declines where the text parser errs or is unusual', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 30 }), fc.boolean(), fc.constantFrom(3, 4), (lines, header, columns) => {
        const text =
          (header && columns === 3 ? 'query-id\tcorpus-id\tscore\n' : '') +
          lines.map(([q, d, g]) => (columns === 4 ? `${q} 0 ${d} ${g}` : `${q}\t${d}\t${g}`)).join('\n');
        const b = new QrelsBuilder('q.txt');
        let expected: ReturnType<QrelsBuilder['finish']> | undefined;
        try {
          text.split('\n').forEach((l, i) => b.line(l, i + 1));
          expected = b.finish();
        } catch {
          expected = undefined;
        }
        const got = parseQrelsBytes(new TextEncoder().encode(text));
        if (expected === undefined) {
          expect(got).toBeUndefined();
          return;
        }
        if (got === undefined) {
          // declining is allowed only for what the byte path leaves to the text parser: grades like "1.0"
          expect(lines.some(([, , g]) => g === '1.0')).toBe(true);
          return;
        }
        const judged = judgedQueries(expected.value);
        expect([...got.queries.keys()].sort()).toEqual([...judged.keys()].sort());
        for (const [qid, j] of judged) expect(got.queries.get(qid)!.judged).toEqual(j);
        const repeats = expected.warnings.find((w) => /repeated judgment/.test(w.message));
        expect(got.duplicates).toBe(repeats ? Number(/^(\d+)/.exec(repeats.message)![1]) : 0);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the byte path on inputs a review found', () => {
  const text = async (qrels: string, run: string, measures: string[]): Promise<{ fast: string | undefined; slow: string }> => {
    const { parseQrels } = await import('../../../src/core/io/trec.ts');
    const q = (await parseQrels(qrels, 'q')).value;
    const r = (await parseRun(run, 'r')).value;
    const specs = parseMeasures(measures);
    const opts = { relevanceLevel: 1, complete: false, maxRetrieved: Infinity, version: '10.0' as const };
    const slow = formatTrecEval(evaluate(q, r, specs, opts), { perQuery: true });
    const bq = parseQrelsBytes(new TextEncoder().encode(qrels));
    const fast = bq && evaluateRunBytes(bq, new TextEncoder().encode(run), new EvalPlan(specs, '10.0'), opts);
    return { fast: fast ? formatTrecEval(fast.result, { perQuery: true }) : undefined, slow };
  };

  it("a U+FEFF inside a field is data, as the text parser keeps it (only the file's leading BOM is dropped)", async () => {
    const got = await text('2 0 a 1\n\uFEFF2 0 b 1\n', '2 Q0 a 1 2 t\n2 Q0 b 2 1 t\n\uFEFF2 Q0 b 1 1 t\n', ['num_rel', 'map']);
    if (got.fast !== undefined) expect(got.fast).toBe(got.slow);
    expect(got.slow).toMatch(/^num_rel {15}\t2\t1$/m);
  });

  it('a comment line after a query id that starts with # is still a comment', async () => {
    const got = await text(' #1 0 a 1\n#1 0 b 1\n', ' #1 Q0 a 1 2 t\n#1 Q0 b 2 1 t\n', ['num_rel', 'num_ret']);
    if (got.fast !== undefined) expect(got.fast).toBe(got.slow);
    expect(got.slow).toMatch(/^num_ret {15}\t#1\t1$/m);
  });

  it('grades above 4096 are summarised (by sorting), not a stack overflow', async () => {
    const got = await text('1 0 a 5000\n1 0 b 3\n', '1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n', ['ndcg', 'num_rel']);
    expect(got.fast).toBe(got.slow);
    expect(got.slow).toMatch(/^ndcg {18}\t1\t1\.0000$/m);
  });
});
