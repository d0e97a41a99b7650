/**
 * `fliplab answers generate` end to end with the generated decoder (onnxruntime-node): a QA collection the
 * test writes, BM25 and BM25+RM3 runs from the CLI, the flip set from `answers flips --json`, answers for
 * exactly those queries, the file reused as a cache on a second run, and the bad input the issue names.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeReaderFixtures, TINY_READER, TINY_READER_BASE } from '../../scripts/models/make-fixtures.ts';
import { main } from '../../src/cli/main.ts';
import { writeQaCollection } from '../support/qa-collection.ts';
import { tempDir } from '../support/temp.ts';

const tmp = tempDir('answers-generate');
const TIMEOUT_MS = 120_000;

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

const qa = join(tmp, 'qa');
const bm25 = join(tmp, 'bm25.run');
const rm3 = join(tmp, 'rm3.run');
const flips = join(tmp, 'flips.json');
const reader = ['--model-dir', DEFAULT_MODELS_DIR, '--offline'];
/** `answers generate` over the QA collection with the tiny reader (offline), the flip set's queries by default. */
const generate = (run: string, out: string, ...extra: string[]) =>
  cli('answers', 'generate', qa, '--run', run, '--reader', TINY_READER.id, ...reader, '--queries', flips, '--out', out, ...extra);

/** `answers flips --json` at k = 2, BM25 against BM25 + RM3, gold from the queries' metadata. */
const flipsJson = (...extra: string[]) =>
  cli(
    'answers',
    'flips',
    join(qa, 'qrels', 'test.tsv'),
    '--reference',
    bm25,
    '--candidate',
    rm3,
    '--gold',
    join(qa, 'queries.jsonl'),
    '--at',
    '2',
    '--json',
    ...extra,
  );

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  await makeReaderFixtures();
  writeQaCollection(qa);
  expect((await cli('bm25', qa, '--out', bm25)).code).toBe(0);
  expect((await cli('bm25', qa, '--rm3', '--out', rm3)).code).toBe(0);
  const f = await flipsJson();
  expect(f.code).toBe(0);
  writeFileSync(flips, f.stdout);
}, TIMEOUT_MS);

describe('fliplab answers generate', () => {
  it(
    "answers the flip set's queries from the run's top k, with provenance on every line, and reuses them on a second run",
    async () => {
      const wanted = JSON.parse(readFileSync(flips, 'utf8')) as { candidates: { flip_queries: string[]; control_queries: string[] }[] };
      const queries = new Set(wanted.candidates.flatMap((c) => [...c.flip_queries, ...c.control_queries]));
      expect(queries.size).toBeGreaterThan(0);
      const out = join(tmp, 'bm25-answers.jsonl');
      const first = await generate(bm25, out, '--k', '2');
      expect(first.stderr).toMatch(new RegExp(`answers: ${queries.size} questions, 0 already answered, ${queries.size} to generate`));
      expect(first.stderr).toMatch(/new tokens\/s/);
      expect(first.code).toBe(0);
      const records = lines(out);
      expect(new Set(records.map((r) => r.query_id))).toEqual(queries);
      const run = readFileSync(bm25, 'utf8').split('\n');
      for (const r of records) {
        expect(r).toMatchObject({
          reader: TINY_READER.id,
          revision: 'main',
          dtype: 'fp32',
          template: 'fliplab-short-answer@v1',
          k: 2,
          run: 'bm25',
        });
        expect(typeof r.prediction).toBe('string');
        // The passages are the run's top 2 for that query, in rank order.
        const top = run
          .filter((l) => l.startsWith(`${String(r.query_id)} `))
          .slice(0, 2)
          .map((l) => l.split(' ')[2]);
        expect(r.passage_ids).toEqual(top);
      }
      const again = await generate(bm25, out, '--k', '2');
      expect(again.code).toBe(0);
      expect(again.stderr).toMatch(new RegExp(`${queries.size} already answered, 0 to generate`));
      expect(lines(out)).toEqual(records);
      // A different k is a different question for the reader: nothing is reused, and the user is told.
      const k3 = await generate(bm25, out, '--k', '3');
      expect(k3.stderr).toMatch(new RegExp(`${queries.size} answers in .* were made with other settings or for other queries: moved to`));
      expect(k3.stderr).toMatch(/warning: .*flips\.json holds the flip sets at k = 2, but --k is 3/);
      expect(lines(out).every((r) => r.k === 3)).toBe(true);
      // Nothing is lost: the k = 2 answers moved aside, whole.
      expect(lines(`${out}.replaced.jsonl`)).toEqual(records);
      // Without --k the flip file's depth is used (its sets are for k = 2).
      const byFile = join(tmp, 'by-file-k.jsonl');
      expect(
        (await cli('answers', 'generate', qa, '--run', bm25, '--reader', TINY_READER.id, ...reader, '--queries', flips, '--out', byFile))
          .code,
      ).toBe(0);
      expect(lines(byFile).map((r) => r.k)).toEqual(records.map(() => 2));
    },
    TIMEOUT_MS,
  );

  it(
    'feeds answers flips: the generated files give the Table 9 report',
    async () => {
      const ref = join(tmp, 'ref.jsonl');
      const cand = join(tmp, 'cand.jsonl');
      for (const [run, out] of [
        [bm25, ref],
        [rm3, cand],
      ] as const) {
        expect((await generate(run, out, '--k', '2')).code).toBe(0);
      }
      const r = await flipsJson('--reference-answers', ref, '--candidate-answers', cand);
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout) as { candidates: { flips: number; missing_predictions: string[] }[] };
      expect(report.candidates[0]!.flips).toBeGreaterThan(0);
      expect(report.candidates[0]!.missing_predictions).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it(
    'downloads the reader from a host with the hub layout (--host), reporting bytes per file, then reuses the download',
    async () => {
      const { startHubServer } = await import('../support/hub-server.ts');
      const server = await startHubServer({ modelsRoot: DEFAULT_MODELS_DIR });
      process.env.FLIPLAB_CACHE_DIR = join(tmp, 'model-cache');
      try {
        const out = join(tmp, 'hub-answers.jsonl');
        const args = ['answers', 'generate', qa, '--run', bm25, '--reader', TINY_READER.id, '--host', server.url, '--k', '2'];
        const r = await cli(...args, '--queries', flips, '--out', out);
        expect(r.code).toBe(0);
        expect(r.stderr).toMatch(/reader: onnx\/model\.onnx [\d.]+ (KiB|MiB) of [\d.]+ (KiB|MiB)/);
        expect(server.requests.some((p) => p.includes(`/${TINY_READER.id}/resolve/main/onnx/model.onnx`))).toBe(true);
        // The same answers as from the folder on disk.
        const fromDisk = join(tmp, 'disk-answers.jsonl');
        expect((await generate(bm25, fromDisk, '--k', '2')).code).toBe(0);
        expect(lines(out).map((l) => l.prediction)).toEqual(lines(fromDisk).map((l) => l.prediction));
        // Another question set: the weights come from the per-host cache, not the server.
        const before = server.requests.length;
        expect((await cli(...args, '--out', join(tmp, 'hub-all.jsonl'))).code).toBe(0);
        expect(server.requests.slice(before).filter((p) => p.endsWith('.onnx'))).toEqual([]);
      } finally {
        delete process.env.FLIPLAB_CACHE_DIR;
        await server.close();
      }
    },
    TIMEOUT_MS,
  );

  it(
    'refuses a base model without a chat template, saying why',
    async () => {
      const r = await cli(
        'answers',
        'generate',
        qa,
        '--run',
        bm25,
        '--reader',
        TINY_READER_BASE.id,
        ...reader,
        '--queries',
        flips,
        '--out',
        join(tmp, 'x.jsonl'),
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/tiny-gpt2-base has no chat template.*base model, not an instruct model/);
    },
    TIMEOUT_MS,
  );

  it('refuses to overwrite a file it did not write (e.g. the user’s own predictions), naming file and line', async () => {
    const mine = join(tmp, 'mine.jsonl');
    writeFileSync(mine, '{"query_id": "q1", "prediction": "red"}\n');
    const r = await generate(bm25, mine, '--k', '2');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/mine\.jsonl:1.*is not a line `answers generate` wrote.*choose another file/);
    expect(readFileSync(mine, 'utf8')).toBe('{"query_id": "q1", "prediction": "red"}\n');
  });

  it('refuses a changed template that keeps the built-in name', async () => {
    const t = join(tmp, 'template.json');
    writeFileSync(t, JSON.stringify({ ...JSON.parse((await cli('answers', 'template')).stdout), user: 'Q: {question}\n{passages}' }));
    const r = await generate(bm25, join(tmp, 't.jsonl'), '--template', t);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/differs from the built-in template but keeps its name fliplab-short-answer@v1/);
  });

  it('says what --queries expects, naming the file', async () => {
    const bad = join(tmp, 'bad.json');
    writeFileSync(bad, '{"not": "flips"}');
    const r = await cli(
      'answers',
      'generate',
      qa,
      '--run',
      bm25,
      '--reader',
      TINY_READER.id,
      ...reader,
      '--queries',
      bad,
      '--out',
      join(tmp, 'y.jsonl'),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.json.*expected a JSON array of query ids or an object with "candidates"/);
    const d = await cli(
      'answers',
      'generate',
      qa,
      '--run',
      bm25,
      '--reader',
      TINY_READER.id,
      ...reader,
      '--device',
      'tpu',
      '--out',
      join(tmp, 'z.jsonl'),
    );
    expect(d.code).toBe(2);
    expect(d.stderr).toMatch(/--device expects cpu or cuda, got "tpu"/);
  });

  it('prints the prompt template as JSON', async () => {
    const r = await cli('answers', 'template');
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'fliplab-short-answer', version: 1, passageWords: 300, maxNewTokens: 24 });
  });
});
