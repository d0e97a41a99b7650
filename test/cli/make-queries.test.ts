/**
 * `fliplab make-queries` on a folder of text files with the generated reader (tiny-gpt2, q8 as the lab's preset):
 * the sample is the core's, each query is what the reader writes from the writer's prompt (computed here with the
 * same reader), the folder it writes opens in `fliplab bm25`, a rerun writes nothing (its cache), an edited prompt
 * is another writer, and bad input gets a clear error.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeReaderFixtures, TINY_READER } from '../../scripts/models/make-fixtures.ts';
import { cleanQuery, QUERY_WRITER, samplePassages, writerMessages } from '../../src/core/judging/synthetic.ts';
import { loadReader } from '../../src/encoders/reader.ts';
import { loadCollection } from '../../src/worker/load.ts';
import { cli } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';

const tmp = tempDir('make-queries');
const DOCS = join(tmp, 'notes');
const TIMEOUT_MS = 120_000;
const TEXTS: Record<string, string> = {};
const WORDS = 'tide moon river rain sea light ship coast fog lamp bee honey comb colony flower nectar wax'.split(' ');

beforeAll(async () => {
  await makeReaderFixtures();
  for (let i = 0; i < 30; i++) {
    const id = `${i % 3 === 0 ? 'a' : 'b'}/doc${i}`;
    const text = Array.from({ length: 6 + ((i * 7) % 25) }, (_, w) => WORDS[(i + w * 3) % WORDS.length]).join(' ');
    mkdirSync(join(DOCS, id, '..'), { recursive: true });
    writeFileSync(join(DOCS, `${id}.txt`), `${text}\n`);
    TEXTS[id] = text;
  }
  writeFileSync(join(DOCS, 'tiny.txt'), 'two words\n');
  TEXTS['tiny'] = 'two words';
}, TIMEOUT_MS);

const args = (out: string, ...more: string[]) => [
  'make-queries',
  DOCS,
  '--out',
  out,
  '--reader',
  TINY_READER.id,
  '--dtype',
  'q8',
  '--model-dir',
  DEFAULT_MODELS_DIR,
  '--offline',
  '--n',
  '8',
  ...more,
];

describe('fliplab make-queries', () => {
  it(
    'writes the queries the reader writes for the core’s sample, as a BEIR folder; a rerun writes none',
    async () => {
      const out = join(tmp, 'made');
      const first = await cli(...args(out));
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toMatch(/8 of 31 passages drawn \(seed 1, \d+ strata by folder and length; 1 under 5 words left out\)/);
      expect(first.stderr).toMatch(/8 passages, 0 written before, 8 to write/);

      // The expected queries: the core's sample of the same corpus, the writer's prompt, the same reader in-process.
      const ids = Object.keys(TEXTS).sort();
      const sample = samplePassages(
        ids,
        ids.map((id) => TEXTS[id]!),
        8,
        1,
      ).indices.map((i) => ids[i]!);
      const reader = await loadReader(
        { id: TINY_READER.id, label: TINY_READER.id, model: TINY_READER.id, revision: 'main', dtype: 'q8' },
        { device: 'cpu', source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false } },
      );
      const expected: { text: string; source: string }[] = [];
      try {
        for (const id of sample) {
          const messages = writerMessages(QUERY_WRITER, { id, title: id.slice(id.lastIndexOf('/') + 1), text: TEXTS[id]! });
          const text = cleanQuery((await reader.answer(messages, QUERY_WRITER)).text);
          if (text !== '') expected.push({ text, source: id });
        }
      } finally {
        await reader.dispose();
      }
      const queries = readFileSync(join(out, 'queries.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { _id: string; text: string; metadata: { origin: string; source: string } });
      expect(queries.map((q) => ({ text: q.text, source: q.metadata.source }))).toEqual(expected);
      expect(queries.every((q) => q.metadata.origin === 'reader')).toBe(true);
      expect(new Set(queries.map((q) => (q.metadata as { writer?: string }).writer))).toEqual(
        new Set([`${TINY_READER.id} (q8), fliplab-write-query@v1`]),
      );
      expect(readFileSync(join(out, 'qrels', 'test.tsv'), 'utf8')).toBe(
        `query-id\tcorpus-id\tscore\n${queries.map((q) => `${q._id}\t${q.metadata.source}\t2`).join('\n')}\n`,
      );
      const provenance = JSON.parse(readFileSync(join(out, 'synthetic-queries.json'), 'utf8')) as {
        kind: string;
        prompt: { name: string };
        sample: { asked: number; seed: number };
        queries: { reader: number; deleted: number };
      };
      expect(provenance).toMatchObject({
        kind: 'fliplab synthetic queries',
        prompt: { name: 'fliplab-write-query@v1' },
        sample: { asked: 8, seed: 1 },
        queries: { reader: expected.length, deleted: 8 - expected.length },
      });

      // A BEIR folder: the CLI ranks its queries, and the lab opens it as made queries (the cache is not in it).
      const bm25 = await cli('bm25', out, '--out', join(tmp, 'bm25.run'));
      expect(bm25.code, bm25.stderr).toBe(0);
      const files = ['corpus.jsonl', 'qrels/test.tsv', 'queries.jsonl', 'synthetic-queries.json'];
      const written = readdirSync(out, { recursive: true }).map(String);
      expect(written.filter((f) => !statSync(join(out, f)).isDirectory()).sort()).toEqual(files);
      const opened = await loadCollection(files.map((f) => ({ path: `made/${f}`, bytes: new Uint8Array(readFileSync(join(out, f))) })));
      expect(opened.queries.ids).toHaveLength(expected.length);
      expect(opened.synthetic?.queries.reader).toBe(expected.length);
      expect(opened.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);

      // A rerun loads no reader: every query comes from the cache, the same files.
      const again = await cli(...args(out));
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toMatch(/8 passages, 8 written before, 0 to write/);
      expect(readFileSync(join(out, 'queries.jsonl'), 'utf8')).toBe(queries.map((q) => JSON.stringify(q)).join('\n') + '\n');

      // An edited prompt is another writer: written again, named apart.
      const prompt = join(tmp, 'prompt.txt');
      writeFileSync(prompt, 'Passage:\n{passage}\n\nA question it answers:');
      const edited = await cli(...args(out, '--prompt', prompt));
      expect(edited.code, edited.stderr).toBe(0);
      expect(edited.stderr).toMatch(/0 written before, 8 to write/);
      expect((JSON.parse(readFileSync(join(out, 'synthetic-queries.json'), 'utf8')) as { prompt: { name: string } }).prompt.name).toMatch(
        /^fliplab-write-query\+edited-[0-9a-f]{8}@v1$/,
      );
    },
    TIMEOUT_MS,
  );

  it('refuses what it cannot use, saying why', async () => {
    const empty = join(tmp, 'empty');
    mkdirSync(empty, { recursive: true });
    writeFileSync(join(empty, 'notes.csv'), 'a,b\n');
    const none = await cli(...args(join(tmp, 'o1')).map((a) => (a === DOCS ? empty : a)));
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/empty: holds no documents; expected a folder of \.txt\/\.md files/);

    const bad = join(tmp, 'bad-prompt.txt');
    writeFileSync(bad, 'no placeholder here');
    const refused = await cli(...args(join(tmp, 'o2'), '--prompt', bad));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/bad-prompt\.txt: the prompt must hold \{passage\} exactly once; it holds it 0 times/);
  });
});
