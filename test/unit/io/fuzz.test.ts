/**
 * Every reader against generated malformed input: valid files with random edits (nasty tokens inserted,
 * ranges deleted or repeated, lines swapped, the end cut off), random bytes, and the same gzipped or with a
 * truncated gzip. A reader either reads the input or refuses it with an InputError that names the file (and,
 * where it names a line, a line the input has) — never another exception, never a hang (each case has a
 * time bound). The byte paths (eval's fast readers) must never throw at all: they decline with undefined.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGold, parsePredictions } from '../../../src/core/io/answers.ts';
import { parseCorpus, parseQueries } from '../../../src/core/io/beir.ts';
import { isInputError } from '../../../src/core/io/errors.ts';
import { parseJudgments } from '../../../src/core/io/judgments.ts';
import { filterPassages } from '../../../src/core/io/passages.ts';
import { readRunTop } from '../../../src/core/io/run-top.ts';
import { readKeptRun } from '../../../src/core/io/kept-run.ts';
import { parseTopics } from '../../../src/core/io/topics.ts';
import { parseQrels, parseRun } from '../../../src/core/io/trec.ts';
import { EvalPlan, parseMeasures } from '../../../src/core/metrics/index.ts';
import { evaluateRunBytes, parseQrelsBytes } from '../../../src/core/metrics/run-bytes.ts';
import { packFilesOf } from '../../../src/worker/packs.ts';
import { readPack, writePack, zipPack } from '../../../src/encoders/pack.ts';
import { textKeys } from '../../../src/encoders/identity.ts';
import { encoderConfig } from '../../../src/lab/retriever-ids.ts';
import { loadCollection } from '../../../src/worker/load.ts';

const enc = new TextEncoder();
/** A case that takes longer than this is a hang. */
const CASE_MS = 5_000;
const RUNS = 120;

const NASTY = [
  '\u0000',
  '\uFFFD',
  '\uFEFF',
  '\t',
  '\r',
  '\n',
  '\r\n',
  ' ',
  '"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '#',
  '<',
  '>',
  '</top>',
  '<top>',
  '<num>',
  '<title>',
  '<topic number="1">',
  'NaN',
  'Infinity',
  '-0',
  '1e999',
  '99999999999999999999',
  '-1',
  '0.5',
  'null',
  'true',
  '{}',
  '[]',
  '"_id"',
  '"text"',
  'Q0',
  '\u2028',
  '😀',
  '\ud800',
  'x'.repeat(300),
];

/** A valid text with 1–6 random edits. */
function mutated(valid: string): fc.Arbitrary<string> {
  const edit = fc.oneof(
    fc.record({
      kind: fc.constant('insert' as const),
      at: fc.nat(),
      token: fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 8 })),
    }),
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 12 }) }),
    fc.record({ kind: fc.constant('repeat' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
    fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
    fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  );
  return fc.array(edit, { minLength: 1, maxLength: 6 }).map((edits) => {
    let s = valid;
    for (const e of edits) {
      const at = s.length === 0 ? 0 : ('at' in e ? e.at : 0) % (s.length + 1);
      if (e.kind === 'insert') s = s.slice(0, at) + e.token + s.slice(at);
      else if (e.kind === 'delete') s = s.slice(0, at) + s.slice(at + e.length);
      else if (e.kind === 'repeat') s = s.slice(0, at + e.length) + s.slice(at);
      else if (e.kind === 'cut') s = s.slice(0, at);
      else {
        const lines = s.split('\n');
        const i = e.a % lines.length;
        const j = e.b % lines.length;
        [lines[i], lines[j]] = [lines[j]!, lines[i]!];
        s = lines.join('\n');
      }
    }
    return s;
  });
}

/** Bytes of a mutated valid text, random bytes, or either gzipped (whole or cut short). */
function inputs(valid: string): fc.Arbitrary<Uint8Array> {
  const text = mutated(valid).map((s) => enc.encode(s));
  const raw = fc.uint8Array({ maxLength: 200 });
  const plain = fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: raw });
  return fc.oneof(
    { weight: 5, arbitrary: plain },
    { weight: 1, arbitrary: plain.map((b) => new Uint8Array(gzipSync(b))) },
    {
      weight: 1,
      arbitrary: fc.tuple(plain, fc.nat()).map(([b, n]) => {
        const gz = gzipSync(b);
        return new Uint8Array(gz.subarray(0, n % gz.length));
      }),
    },
  );
}

const lineCount = (b: Uint8Array): number => {
  let n = 1;
  for (const c of b) if (c === 10) n++;
  return n;
};

/** Runs `read`; returns nothing when it read, the refusal otherwise, and fails on anything else. */
async function readOrRefuse(read: () => Promise<unknown>, files: readonly string[], maxLine: number, shown: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CASE_MS} ms`)), CASE_MS);
  });
  try {
    await Promise.race([read(), hang]);
  } catch (e) {
    if (!isInputError(e)) throw new Error(`expected an InputError for ${shown}, got ${String(e)}`, { cause: e });
    // the file itself, or a part of it named after it ("pack.zip/manifest.json (passages)")
    const named = files.some((f) => e.file === f || e.file.startsWith(`${f} (`));
    expect(named, `${shown}: ${e.message} names none of ${files.join(', ')}`).toBe(true);
    if (e.line !== undefined) {
      expect(Number.isInteger(e.line) && e.line >= 1, `${shown}: ${e.message}`).toBe(true);
      // a gzip's line numbers count its content's lines; a plain input cannot name a line it does not have
      if (maxLine > 0) expect(e.line, `${shown}: ${e.message}`).toBeLessThanOrEqual(maxLine);
    }
  } finally {
    clearTimeout(timer);
  }
}

const isGz = (b: Uint8Array) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

interface Reader {
  readonly name: string;
  readonly file: string;
  readonly valid: string;
  readonly read: (bytes: Uint8Array, file: string) => Promise<unknown>;
  /** Other files the refusal may name (a collection's other files). */
  readonly others?: readonly string[];
}

const RUN = '1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 1.5 tag\n2 Q0 d3 1 0.5 tag\n2 Q0 d1 2 0.25 tag\n';
const QRELS = '1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n';
const BEIR_QRELS = 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t0\n';
const CORPUS = '{"_id":"d1","title":"A","text":"one two"}\n{"_id":"d2","title":"","text":"three"}\n{"_id":"d3","text":"four"}\n';
const QUERIES = '{"_id":"q1","text":"one"}\n{"_id":"q2","text":"three"}\n';
const SGML =
  '<top>\n<num> Number: 1\n<title> one two\n<desc> Description:\nabout one\n</top>\n<top>\n<num> Number: 2\n<title> three\n</top>\n';
const XML = '<topics>\n<topic number="1">\n<query>one two</query>\n<question>what?</question>\n</topic>\n</topics>\n';
const CSV = 'id,title,text\nd1,A,"one, two"\nd2,,"three ""quoted"""\n';
const TSV_QUERIES = 'qid\ttext\nq1\tone\nq2\tthree\n';
const PASSAGES = 'd1\tone two\nd2\tthree\n';
const GOLD = '{"query_id":"q1","answers":["a","b"]}\n{"query_id":"q2","answers":[]}\n';
const PREDICTIONS = '{"query_id":"q1","prediction":"a"}\n{"query_id":"q2","prediction":""}\n';
const KEPT_RUN =
  '{"format":"fliplab-kept-run","version":1,"name":"tag","depth":2,"cut":true,"lines":5,"source":{"file":"x.run","bytes":90},"judged":"test","warnings":[]}\n' +
  '{"query":"1","length":3,"docs":["d1","d2"],"scores":[2.5,1.5],"tail":[["d4",3]]}\n{"query":"2","length":2,"docs":["d3","d1"],"scores":[0.5,0.25]}\n';
const JUDGMENTS = '{"qid":"1","docid":"d1","grade":1,"assessor":"me","time":"2026-01-01T00:00:00Z"}\n{"qid":"2","docid":"d3","grade":0}\n';

const collection = (file: string, bytes: Uint8Array, rest: Record<string, string>) =>
  loadCollection([{ path: file, bytes }, ...Object.entries(rest).map(([path, text]) => ({ path, bytes: enc.encode(text) }))]);

const READERS: readonly Reader[] = [
  { name: 'TREC run', file: 'x.run', valid: RUN, read: (b, f) => parseRun(b, f) },
  { name: 'TREC run, streamed and cut', file: 'x.run', valid: RUN, read: (b, f) => readRunTop(() => b, f, { depth: 1 }) },
  { name: 'kept run', file: 'x.fliplab-run.jsonl', valid: KEPT_RUN, read: (b, f) => readKeptRun(b, f) },
  { name: 'TREC qrels', file: 'x.qrels', valid: QRELS, read: (b, f) => parseQrels(b, f) },
  { name: 'BEIR qrels TSV', file: 'test.tsv', valid: BEIR_QRELS, read: (b, f) => parseQrels(b, f) },
  { name: 'BEIR corpus', file: 'corpus.jsonl', valid: CORPUS, read: (b, f) => parseCorpus(b, f) },
  { name: 'BEIR queries', file: 'queries.jsonl', valid: QUERIES, read: (b, f) => parseQueries(b, f) },
  { name: 'TREC topics (SGML)', file: 'topics.txt', valid: SGML, read: (b, f) => parseTopics(b, f) },
  { name: 'TREC topics (XML)', file: 'topics.xml', valid: XML, read: (b, f) => parseTopics(b, f) },
  {
    name: 'CSV corpus',
    file: 'c/corpus.csv',
    valid: CSV,
    read: (b, f) => collection(f, b, { 'c/queries.jsonl': QUERIES, 'c/qrels/test.tsv': BEIR_QRELS }),
    others: ['c/queries.jsonl', 'c/qrels/test.tsv', 'c', 'collection'],
  },
  {
    name: 'TSV queries',
    file: 'c/queries.tsv',
    valid: TSV_QUERIES,
    read: (b, f) => collection(f, b, { 'c/corpus.jsonl': CORPUS, 'c/qrels/test.tsv': BEIR_QRELS }),
    others: ['c/corpus.jsonl', 'c/qrels/test.tsv', 'c', 'collection'],
  },
  { name: 'passage text (TSV)', file: 'collection.tsv', valid: PASSAGES, read: (b, f) => filterPassages([b], f, new Set(['d1', 'd2'])) },
  { name: 'passage text (JSONL)', file: 'corpus.jsonl', valid: CORPUS, read: (b, f) => filterPassages([b], f, new Set(['d1', 'd3'])) },
  { name: 'gold answers', file: 'gold.jsonl', valid: GOLD, read: (b, f) => parseGold(b, f) },
  { name: 'predictions', file: 'predictions.jsonl', valid: PREDICTIONS, read: (b, f) => parsePredictions(b, f) },
  { name: 'judgments (JSONL)', file: 'judgments.jsonl', valid: JUDGMENTS, read: (b, f) => parseJudgments(b, f) },
  { name: 'judgments (qrels)', file: 'judgments.qrels', valid: QRELS, read: (b, f) => parseJudgments(b, f) },
];

describe('every reader on generated malformed input: an InputError naming file and line, or a result', () => {
  for (const r of READERS) {
    it(r.name, async () => {
      await fc.assert(
        fc.asyncProperty(inputs(r.valid), async (bytes) => {
          const shown = JSON.stringify(new TextDecoder().decode(bytes).slice(0, 200));
          await readOrRefuse(() => r.read(bytes, r.file), [r.file, ...(r.others ?? [])], isGz(bytes) ? 0 : lineCount(bytes), shown);
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe('the byte paths decline what they cannot read, and never throw', () => {
  const plan = new EvalPlan(parseMeasures(['official'], '10.0'), '10.0');
  const qrels = parseQrelsBytes(enc.encode(QRELS))!;

  it('qrels bytes', () => {
    fc.assert(
      fc.property(inputs(QRELS), (bytes) => {
        parseQrelsBytes(bytes);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('run bytes', () => {
    fc.assert(
      fc.property(inputs(RUN), (bytes) => {
        evaluateRunBytes(qrels, bytes, plan, {
          relevanceLevel: 1,
          complete: false,
          maxRetrieved: Infinity,
          judgedOnly: false,
          version: '10.0',
        });
      }),
      { numRuns: RUNS * 2 },
    );
  });
});

describe('vector packs with corrupted files', () => {
  // A real dense pack as `fliplab encode` writes it; each case alters one of its files (bytes changed, cut
  // short or grown) or hands over junk instead of a zip.
  const pack = (async () => {
    const config = encoderConfig('bge-large', { model: 'org/tiny', maxLength: 64 });
    const part = async (ids: string[], seed: number) => ({
      ids,
      textKeys: await textKeys(ids.map((id) => `text of ${id}`)),
      vectors: ids.map((_, i) => ({ dense: Float32Array.from({ length: 4 }, (_, d) => Math.sin(seed + 7 * i + d)), tokens: 3 })),
    });
    return writePack({ config, device: 'cpu', tool: 'test', passages: await part(['d1', 'd2', 'd3'], 1), queries: await part(['q1'], 9) });
  })();

  it('is read, or refused by name: never another exception, never a hang', async () => {
    const files = await pack;
    const names = [...files.keys()];
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.constantFrom('flip' as const, 'cut' as const, 'grow' as const, 'text' as const, 'junk' as const),
        fc.nat(),
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        async (which, how, at, bytes) => {
          const name = names[which % names.length]!;
          const original = files.get(name)!;
          let altered: Uint8Array;
          if (how === 'flip') {
            altered = original.slice();
            bytes.forEach((b, k) => {
              if (altered.length > 0) altered[(at + k) % altered.length] = b;
            });
          } else if (how === 'cut') altered = original.slice(0, at % (original.length + 1));
          else if (how === 'grow') altered = new Uint8Array([...original, ...bytes]);
          else altered = enc.encode(new TextDecoder().decode(original).replace(/\d/g, String(at % 10)));
          const changed = new Map(files);
          changed.set(name, altered);
          const input = how === 'junk' ? bytes : zipPack(changed);
          await readOrRefuse(
            async () => {
              const { files: found, where } = packFilesOf([{ path: 'pack.zip', bytes: input }]);
              await readPack(found, where);
            },
            ['pack.zip', ...names.map((n) => `pack.zip/${n}`), ...names.map((n) => `pack/${n}`), 'pack'],
            0,
            `${how} ${name} at ${at}`,
          );
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });
});

describe('what the fuzzing found', () => {
  it('a CSV error names the line the record starts on, past quoted fields that span lines', async () => {
    const csv = 'id,text\nd1,"two\nlines"\n,"empty id"\n';
    await expect(collection('c/corpus.csv', enc.encode(csv), { 'c/queries.jsonl': QUERIES })).rejects.toThrow(/^c\/corpus\.csv:4: /);
    const open = 'id,text\nd1,"one"\nd2,"never closed\n';
    await expect(collection('c/corpus.csv', enc.encode(open), { 'c/queries.jsonl': QUERIES })).rejects.toThrow(
      /^c\/corpus\.csv:3: expected well-formed CSV/,
    );
  });
});
