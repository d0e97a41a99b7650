/**
 * Bring-your-own loading: a zipped BEIR folder, custom corpora (.txt/.md folder, CSV, aliased JSONL),
 * TREC runs and qrels told apart by content, queries optional with runs, and malformed lines surfacing
 * as the core's InputError with the file's path and line. Expectations come from the core parsers run
 * on the same bytes, or from the small inputs written here.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { parseCorpus, parseQueries } from '../../../src/core/io/beir.ts';
import { InputError } from '../../../src/core/io/errors.ts';
import { parseQrels, parseRun } from '../../../src/core/io/trec.ts';
import { classifyFiles } from '../../../src/lab/data/files.ts';
import { loadCollection } from '../../../src/worker/load.ts';
import type { CollectionFile } from '../../../src/lab/data/types.ts';
import { join } from 'node:path';
import { SCIFACT_DIR, SHARED_DATA } from '../../shared-data.ts';

const SCIFACT = SCIFACT_DIR;
const enc = new TextEncoder();
const file = (path: string, text: string): CollectionFile => ({ path, bytes: enc.encode(text) });

const QUERIES = '{"_id":"q1","text":"red apples"}\n{"_id":"q2","text":"green pears"}\n';
const QRELS_TREC = 'q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n';
const RUN_A = 'q1 Q0 d1 1 9.5 bm25\nq1 Q0 d2 2 8.0 bm25\nq2 Q0 d3 1 3.0 bm25\n';
const RUN_B = 'q1 Q0 d2 1 0.9 dense\nq2 Q0 d1 1 0.8 dense\nq2 Q0 d3 2 0.7 dense\n';

async function inputError(p: Promise<unknown>): Promise<InputError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(InputError);
  return e as InputError;
}

describe('loadCollection: BEIR folders and archives', () => {
  it('loads a zip of the SciFact BEIR folder (gzipped corpus inside) like the core parses the folder', async () => {
    const corpus = readFileSync(`${SCIFACT}/corpus.jsonl`);
    const queries = readFileSync(`${SCIFACT}/queries.jsonl`);
    const test = readFileSync(`${SCIFACT}/qrels/test.tsv`);
    const train = readFileSync(`${SCIFACT}/qrels/train.tsv`);
    const zip = zipSync({
      'scifact/corpus.jsonl.gz': gzipSync(corpus),
      'scifact/queries.jsonl': queries,
      'scifact/qrels/test.tsv': test,
      'scifact/qrels/train.tsv': train,
      '__MACOSX/scifact/._corpus.jsonl.gz': new Uint8Array([0, 1, 2]),
    });
    const got = await loadCollection([{ path: 'scifact.zip', bytes: zip }]);
    const c = (await parseCorpus(corpus, 'c')).value;
    const q = (await parseQueries(queries, 'q')).value;
    const r = (await parseQrels(test, 't')).value;
    expect(got.name).toBe('scifact');
    expect(got.corpus.ids).toEqual(c.ids);
    expect(got.corpus.texts).toEqual(c.texts);
    expect(got.queries.ids).toEqual(q.ids);
    expect(got.splits).toEqual(['test', 'train']);
    expect(got.split).toBe('test');
    expect([...got.qrels!.byQuery].map(([k, v]) => [k, [...v]])).toEqual([...r.byQuery].map(([k, v]) => [k, [...v]]));
    expect(got.diagnostics.some((d) => d.message.includes('system file'))).toBe(true);
    const train2 = await loadCollection([{ path: 'scifact.zip', bytes: zip }], { split: 'train' });
    expect(train2.qrels!.byQuery.size).toBe((await parseQrels(train, 'x')).value.byQuery.size);
    await expect(loadCollection([{ path: 'scifact.zip', bytes: zip }], { split: 'dev' })).rejects.toThrow(/no judgments for split "dev"/);
  });
});

describe('loadCollection: custom corpora', () => {
  it('a folder of .txt/.md files: id = path without extension, title = first heading or file name', async () => {
    const got = await loadCollection([
      file('notes/a.txt', 'plain apples\n'),
      file('notes/sub/b.md', 'intro line\n# Pears and more\nbody about pears\n'),
      file('notes/c.md', 'no heading here'),
      file('notes/queries.tsv', 'qid\ttext\nq1\tred apples\nq2\tgreen pears\n'),
    ]);
    expect(got.name).toBe('notes');
    expect(got.corpus.ids).toEqual(['a', 'c', 'sub/b']);
    expect(got.corpus.titles).toEqual(['a', 'c', 'Pears and more']);
    expect(got.corpus.texts).toEqual(['plain apples', 'no heading here', 'intro line\nbody about pears']);
    expect(got.queries.ids).toEqual(['q1', 'q2']);
    expect(got.queries.texts).toEqual(['red apples', 'green pears']);
    expect(got.qrels).toBeNull();
    expect(got.split).toBeNull();
  });

  it('a CSV corpus with aliased columns and quoted fields, and an aliased JSONL corpus', async () => {
    const csv = 'doc_id,title,contents\nd1,Apples,"red, crisp apples"\nd2,,"pears\nspanning lines"\nd3,Plums,plums\n';
    const fromCsv = await loadCollection([file('docs.csv', csv), file('queries.jsonl', QUERIES), file('qrels.txt', QRELS_TREC)], {
      name: 'csv',
    });
    expect(fromCsv.corpus.ids).toEqual(['d1', 'd2', 'd3']);
    expect(fromCsv.corpus.titles).toEqual(['Apples', '', 'Plums']);
    expect(fromCsv.corpus.texts[1]).toBe('pears\nspanning lines');
    expect(fromCsv.qrels!.byQuery.get('q2' as never)?.get('d3' as never)).toBe(2);

    const jsonl = '{"pid":"p1","passage":"alpha"}\n{"pid":"p2","passage":"beta","title":"B"}\n';
    const fromJsonl = await loadCollection([file('collection.jsonl', jsonl), file('topics.tsv', 'q1\talpha?\n')], { name: 'j' });
    expect(fromJsonl.corpus.ids).toEqual(['p1', 'p2']);
    expect(fromJsonl.corpus.texts).toEqual(['alpha', 'beta']);
    expect(fromJsonl.corpus.titles).toEqual(['', 'B']);
    expect(fromJsonl.queries.texts).toEqual(['alpha?']);
  });

  it('a CSV without an id or text column is reported, naming the file and the accepted columns', async () => {
    const { files, diagnostics } = await classifyFiles([file('docs.csv', 'name,words\na,b\n')]);
    expect(files[0]!.role).toBe('unknown');
    expect(diagnostics[0]).toMatchObject({ severity: 'error', file: 'docs.csv' });
    expect(diagnostics[0]!.message).toMatch(/id column .*docid/);
    await expect(loadCollection([file('docs.csv', 'name,words\na,b\n')], { name: 'x' })).rejects.toThrow(/no corpus found/);
  });
});

describe('runs, qrels and classification', () => {
  it('tells TREC runs from TREC qrels by content, whatever the names', async () => {
    const { files, diagnostics } = await classifyFiles([
      file('a.txt', RUN_A),
      file('b', RUN_B),
      file('judgments', QRELS_TREC),
      file('x/qrels/dev.tsv', 'query-id\tcorpus-id\tscore\nq1\td1\t1\n'),
      file('mystery.bin', 'hello world\nthis is not a run\n'),
    ]);
    const roles = Object.fromEntries(files.map((f) => [f.file.path, [f.role, f.split ?? null]]));
    expect(roles).toEqual({
      'a.txt': ['run', null],
      b: ['run', null],
      judgments: ['qrels', 'judgments'],
      'x/qrels/dev.tsv': ['qrels', 'dev'],
      'mystery.bin': ['unknown', null],
    });
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'error', file: 'mystery.bin' })]);
  });

  it('loads runs next to a corpus; queries default to the ids of judgments and runs when absent', async () => {
    const got = await loadCollection(
      [
        file('corpus.jsonl', '{"_id":"d1","text":"a"}\n{"_id":"d2","text":"b"}\n{"_id":"d3","text":"c"}\n'),
        file('bm25.run', RUN_A),
        file('dense.trec', RUN_B),
        file('test.qrels', QRELS_TREC),
      ],
      {
        name: 'runs',
      },
    );
    expect(got.runs.map((r) => r.name)).toEqual(['bm25', 'dense']);
    const a = (await parseRun(enc.encode(RUN_A), 'a')).value;
    expect([...got.runs[0]!.byQuery.get('q1' as never)!.docs]).toEqual([...a.byQuery.get('q1' as never)!.docs]);
    expect(got.queries.ids).toEqual(['q1', 'q2']);
    expect(got.queries.texts).toEqual(['', '']);
    expect(got.split).toBe('test');
    expect(got.diagnostics.some((d) => d.message.startsWith('no queries file'))).toBe(true);
    // two runs with the same tag keep apart by file name
    const twice = await loadCollection([file('corpus.jsonl', '{"_id":"d1","text":"a"}\n'), file('one.txt', RUN_A), file('two.txt', RUN_A)]);
    expect(twice.runs.map((r) => r.name).sort()).toEqual(['bm25', 'two']);
  });

  it('without runs, missing queries is an InputError naming what is accepted', async () => {
    const e = await inputError(loadCollection([file('corpus.jsonl', '{"_id":"d1","text":"a"}\n')], { name: 'c' }));
    expect(e.reason).toMatch(/no queries found.*queries\.jsonl/);
  });
});

describe('malformed input surfaces as InputError with path and line', () => {
  it('a malformed JSONL line in a zipped corpus names the entry path and line', async () => {
    const zip = zipSync({
      'set/corpus.jsonl': enc.encode('{"_id":"d1","text":"a"}\n{"_id":"d2", text:"b"}\n'),
      'set/queries.jsonl': enc.encode(QUERIES),
    });
    const e = await inputError(loadCollection([{ path: 'set.zip', bytes: zip }]));
    expect(e.file).toBe('set.zip/set/corpus.jsonl');
    expect(e.line).toBe(2);
    expect(e.reason).toMatch(/JSON/);
  });

  it('a malformed qrels line names the qrels file and line', async () => {
    const e = await inputError(
      loadCollection([
        file('b/corpus.jsonl', '{"_id":"d1","text":"a"}\n'),
        file('b/queries.jsonl', QUERIES),
        file('b/qrels/test.tsv', 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td1\tyes\n'),
      ]),
    );
    expect(e).toMatchObject({ file: 'b/qrels/test.tsv', line: 3 });
    expect(e.reason).toMatch(/integer relevance grade/);
  });

  it('an aliased JSONL record without a text field names file, line and the accepted names', async () => {
    const e = await inputError(loadCollection([file('docs.jsonl', '{"id":"a","body":"x"}\n{"id":"b"}\n'), file('queries.jsonl', QUERIES)]));
    expect(e).toMatchObject({ file: 'docs.jsonl', line: 2 });
    expect(e.reason).toMatch(/text field \(one of text, contents/);
  });

  it('a malformed run line names the run file and line; the run is left out, the collection opens', async () => {
    const c = await loadCollection([
      file('corpus.jsonl', '{"_id":"d1","text":"a"}\n'),
      file('queries.jsonl', QUERIES),
      file('run.txt', `${RUN_A}q3 Q0 d1 x 1.0 bm25\n`),
    ]);
    expect(c.runs).toEqual([]);
    expect(c.diagnostics).toContainEqual({
      severity: 'error',
      file: 'run.txt',
      line: 4,
      message: expect.stringMatching(/^run left out: expected an integer rank in column 4, got "x"/) as string,
    });
  });
});

describe('bad runs beside good ones', () => {
  /** What *Import runs* says of the same bytes (the same reader). */
  async function importError(path: string, text: string): Promise<InputError> {
    const { readRunTop } = await import('../../../src/core/io/run-top.ts');
    return inputError(readRunTop(() => enc.encode(text), path, { depth: 1000 }));
  }

  it('each bad run is reported with its file, line and reason, as Import runs reports it, and the good ones open', async () => {
    const bad = {
      'nan.run': 'q1 Q0 d1 1 inf t\n',
      'empty.run': '',
      'twice.run': 'q1 Q0 d1 1 2 t\nq1 Q0 d1 2 1 t\n',
    };
    const c = await loadCollection([
      file('formula.qrels', QRELS_TREC),
      file('a.run', RUN_A),
      ...Object.entries(bad).map(([path, text]) => file(path, text)),
      file('b.run', RUN_B),
    ]);
    expect(c.runs.map((r) => r.name)).toEqual(['bm25', 'dense']);
    const errors = c.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => d.file)).toEqual(Object.keys(bad));
    for (const [path, text] of Object.entries(bad)) {
      const expected = await importError(path, text);
      const d = errors.find((x) => x.file === path)!;
      expect(d.line).toBe(expected.line);
      expect(d.message).toBe(`run left out: ${expected.reason}`);
    }
    expect(errors.find((d) => d.file === 'nan.run')).toMatchObject({ line: 1, message: expect.stringContaining('got "inf"') as string });
    // Each run names its own file, never the qrels.
    expect(c.runSources?.map((s) => [s.run, s.source])).toEqual([
      ['bm25', 'a.run'],
      ['dense', 'b.run'],
    ]);
  });

  it('only runs, none readable: the first run error is the collection error', async () => {
    const e = await inputError(loadCollection([file('formula.qrels', QRELS_TREC), file('nan.run', 'q1 Q0 d1 1 nan t\n')]));
    expect(e).toMatchObject({ file: 'nan.run', line: 1 });
  });
});

describe('runs without a corpus', () => {
  it('qrels and two runs open as a collection: passages are the ids the runs rank, queries the ids, no text', async () => {
    const c = await loadCollection([file('qrels.txt', QRELS_TREC), file('a.run', RUN_A), file('b.run', RUN_B)], { name: 'runs' });
    expect(c.passagesFromRuns).toBe(true);
    expect([...c.corpus.ids].sort()).toEqual(['d1', 'd2', 'd3']);
    expect(c.corpus.texts.every((t) => t === '')).toBe(true);
    expect([...c.queries.ids]).toEqual(['q1', 'q2']);
    expect(c.runs.map((r) => r.name)).toEqual(['bm25', 'dense']);
    expect(c.qrels?.byQuery.get('q2' as never)?.get('d3' as never)).toBe(2);
  });

  it('TREC-COVID: qrels and the Anserini BM25 run, no corpus; the kept run equals the parsed file and records no tail', async () => {
    const dir = join(SHARED_DATA, 'trec-covid-bm25');
    const qrels = readFileSync(join(dir, 'qrels.test.txt'));
    const run = readFileSync(join(dir, 'run.bm25-flat.txt'));
    const c = await loadCollection(
      [
        { path: 'qrels.test.txt', bytes: qrels },
        { path: 'run.bm25-flat.txt', bytes: run },
      ],
      { name: 'covid' },
    );
    const parsed = (await parseRun(new Uint8Array(run), 'run.bm25-flat.txt')).value;
    expect(c.passagesFromRuns).toBe(true);
    expect(c.queries.ids).toHaveLength(50);
    expect(c.runs).toHaveLength(1);
    const kept = c.runs[0]!;
    // 1,000 a query: kept whole.
    for (const [q, list] of parsed.byQuery) {
      expect(kept.byQuery.get(q)!.docs).toEqual(list.docs);
      expect(kept.byQuery.get(q)!.tail).toBeUndefined();
    }
    expect(c.corpus.ids.length).toBe(new Set([...parsed.byQuery.values()].flatMap((l) => l.docs)).size);
  });

  it('neither a corpus nor a run: the corpus is asked for', async () => {
    await expect(loadCollection([file('qrels.txt', QRELS_TREC), file('queries.jsonl', QUERIES)], { name: 'x' })).rejects.toThrow(
      /no corpus found .* or TREC runs/,
    );
  });
});

describe('topic files', () => {
  const XML = `<?xml version="1.0" encoding="UTF-8"?>
<topics task="COVIDSearch" batch="5">
  <topic number="1">
    <query>coronavirus origin</query>
    <question>what is the origin of COVID-19</question>
    <narrative>seeking range of information about the SARS-CoV-2 virus's origin</narrative>
  </topic>
  <topic number="2">
    <query>coronavirus response to weather changes</query>
    <question>how does the coronavirus respond to changes in the weather</question>
    <narrative>seeking range of information about the SARS-CoV-2 virus viability</narrative>
  </topic>
</topics>
`;
  const SGML = `<top>
<num> Number: q1
<title> red apples
<desc> Description:
Documents about red apples.
</top>
<top>
<num> Number: q2
<title> green pears
<desc> Description:
Documents about pears.
</top>
`;

  it('a TREC-COVID XML topic file gives the runs-only collection its query text (by content, any name)', async () => {
    const qrels = '1 0 d1 2\n2 0 d3 1\n';
    const run = '1 Q0 d1 1 9 a\n2 Q0 d3 1 8 a\n';
    const c = await loadCollection([file('qrels.txt', qrels), file('topics-rnd5.xml', XML), file('a.run', run)], { name: 'covid' });
    expect(c.passagesFromRuns).toBe(true);
    expect([...c.queries.ids]).toEqual(['1', '2']);
    expect([...c.queries.texts]).toEqual(['coronavirus origin', 'coronavirus response to weather changes']);
  });

  it('an SGML <top> file named .txt is topics, not a document of a custom corpus', async () => {
    const { files } = await classifyFiles([file('topics.301-302.txt', SGML)]);
    expect(files.map((f) => [f.role, f.format])).toEqual([['queries', 'topics']]);
    const c = await loadCollection([file('qrels.txt', QRELS_TREC), file('topics.txt', SGML), file('a.run', RUN_A)], { name: 'x' });
    expect([...c.queries.texts]).toEqual(['red apples', 'green pears']);
  });
});

describe('a track’s worth of runs', () => {
  it('20 runs open without a corpus; any of them is the reference, the other 19 are compared pairwise with Holm', async () => {
    const { analyzeFlips } = await import('../../../src/core/flips/analyze.ts');
    const qrels = Array.from({ length: 30 }, (_, q) => `t${q} 0 rel-${q} 1`).join('\n') + '\n';
    // Run r ranks the relevant passage of topic q at rank 1 + (q * 7 + r * 3) % 12, among 12 passages.
    const run = (r: number) =>
      Array.from({ length: 30 }, (_, q) => {
        const at = (q * 7 + r * 3) % 12;
        return Array.from({ length: 12 }, (_, i) => `t${q} Q0 ${i === at ? `rel-${q}` : `p-${q}-${i}`} ${i + 1} ${12 - i} sys${r}`).join(
          '\n',
        );
      }).join('\n') + '\n';
    const files = [file('qrels.txt', qrels), ...Array.from({ length: 20 }, (_, r) => file(`runs/input.sys${r}`, run(r)))];
    const c = await loadCollection(files, { name: 'track' });
    expect(c.passagesFromRuns).toBe(true);
    expect(c.runs.map((r) => r.name)).toEqual(Array.from({ length: 20 }, (_, r) => `sys${r}`));
    const reference = c.runs[5]!;
    const candidates = c.runs.filter((r) => r !== reference);
    const report = analyzeFlips(c.qrels!, reference, candidates, { depths: [1, 5] });
    expect(report.paired).toHaveLength(((19 * 18) / 2) * 2);
    // Holm across the depths of each pair: never below the raw p, and 1 when nothing differs.
    for (const row of report.paired) expect(row.p_holm).toBeGreaterThanOrEqual(row.p);
    const same = report.paired.filter((r) => r.only_a === 0 && r.only_b === 0);
    for (const row of same) expect(row.p_holm).toBe(1);
  });
});
