/**
 * `fliplab search` end to end on the real stack (transformers.js + onnxruntime-node) with the generated
 * tiny models: the run must equal brute-force scoring of vectors from the encoder module.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../scripts/models/make-fixtures.ts';
import { main } from '../../src/cli/main.ts';
import { passageText } from '../../src/core/io/beir.ts';
import { parseRun } from '../../src/core/io/trec.ts';
import { selectEvaluationQueries } from '../../src/core/io/validate.ts';
import { loadEncoder } from '../../src/encoders/encoder.ts';
import { PRESETS } from '../../src/encoders/presets.ts';
import { loadBeirFolder } from '../../src/node/files.ts';
import { tempDir } from '../support/temp.ts';

const ROOT = join(import.meta.dirname, '../..');
const TINY = join(ROOT, 'examples/tiny-beir');
const MODEL_TIMEOUT_MS = 60_000;
const tmp = tempDir('search');

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  await makeModelFixtures();
}, MODEL_TIMEOUT_MS);

describe('fliplab search', () => {
  it(
    'writes the exact dense top-k of E5-style vectors (mean pooling, prefixes, L2)',
    async () => {
      const r = await cli(
        'search',
        TINY,
        '--model',
        'fliplab/tiny-bert',
        '--pooling',
        'mean',
        '--query-prefix',
        'query: ',
        '--passage-prefix',
        'passage: ',
        '--model-dir',
        DEFAULT_MODELS_DIR,
        '--offline',
        '--depth',
        '4',
      );
      expect(r.code).toBe(0);
      const run = (await parseRun(r.stdout, 'stdout')).value;
      expect(run.name).toBe('fliplab_tiny-bert');

      const col = await loadBeirFolder(TINY);
      const config = { ...PRESETS['e5-small'], id: 'x', model: 'fliplab/tiny-bert' };
      const enc = await loadEncoder(config, { device: 'cpu', source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false } });
      const passages = (
        await enc.encode(
          col.corpus.ids.map((_, i) => passageText(col.corpus, i)),
          'passage',
        )
      ).dense!;
      for (const qi of selectEvaluationQueries(col.qrels, col.queries)) {
        const q = (await enc.encode([col.queries.texts[qi]!], 'query')).dense![0]!;
        const scores = passages.map((p) => Math.fround(p.reduce((s, x, j) => s + x * q[j]!, 0)));
        const expected = scores
          .map((s, i) => ({ s, i }))
          .sort((a, b) => b.s - a.s || a.i - b.i)
          .slice(0, 4)
          .map((x) => col.corpus.ids[x.i]);
        expect(run.byQuery.get(col.queries.ids[qi]!)!.docs).toEqual(expected);
      }
    },
    MODEL_TIMEOUT_MS,
  );

  it(
    'writes a sparse run for SPLADE-style models, only over passages sharing a term',
    async () => {
      const r = await cli(
        'search',
        TINY,
        '--model',
        'fliplab/tiny-splade',
        '--pooling',
        'splade',
        '--sparse-top-k',
        '16',
        '--model-dir',
        DEFAULT_MODELS_DIR,
        '--offline',
        '--tag',
        'splade16',
      );
      expect(r.code).toBe(0);
      const run = (await parseRun(r.stdout, 'stdout')).value;
      expect(run.name).toBe('splade16');
      expect(run.byQuery.size).toBe(8);
      for (const list of run.byQuery.values()) for (const s of list.scores) expect(s).toBeGreaterThan(0);
      expect(r.stderr).toMatch(/fliplab\/tiny-splade@main \(fp32, cpu, splade-max\)/);
    },
    MODEL_TIMEOUT_MS,
  );

  it('explains a missing local model and a custom model without pooling (exit 2)', async () => {
    const missing = await cli('search', TINY, '--model', 'e5-small', '--model-dir', DEFAULT_MODELS_DIR, '--offline');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/model "Xenova\/e5-small-v2" is incomplete or missing under .*expected .*config\.json/);
    const custom = await cli('search', TINY, '--model', 'someone/some-model');
    expect(custom.code).toBe(2);
    expect(custom.stderr).toMatch(/is not a preset .* give --pooling cls\|mean\|splade/);
    const device = await cli('search', TINY, '--model', 'e5-small', '--device', 'tpu');
    expect(device.code).toBe(2);
  });

  it(
    'takes the pooling a local model folder names in its manifest (the generated fixtures do): no --pooling',
    async () => {
      const named = await cli(
        'search',
        TINY,
        '--model',
        'fliplab/tiny-bert',
        '--model-dir',
        DEFAULT_MODELS_DIR,
        '--offline',
        '--depth',
        '3',
      );
      expect(named.code, named.stderr).toBe(0);
      const explicit = await cli(
        'search',
        TINY,
        '--model',
        'fliplab/tiny-bert',
        '--pooling',
        'cls',
        '--model-dir',
        DEFAULT_MODELS_DIR,
        '--offline',
        '--depth',
        '3',
      );
      expect(named.stdout).toBe(explicit.stdout);
      const mean = await cli(
        'search',
        TINY,
        '--model',
        'fliplab/tiny-bert',
        '--pooling',
        'mean',
        '--model-dir',
        DEFAULT_MODELS_DIR,
        '--offline',
        '--depth',
        '3',
      );
      expect(mean.stdout).not.toBe(named.stdout); // the flag still wins, and pooling matters
    },
    MODEL_TIMEOUT_MS,
  );

  it(
    'a model host that cannot be reached says what to do without a network',
    async () => {
      process.env.FLIPLAB_CACHE_DIR = join(tmp, 'unreachable-cache');
      try {
        const r = await cli('search', TINY, '--model', 'e5-small', '--host', 'http://127.0.0.1:9/');
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/could not load model "Xenova\/e5-small-v2".*No network\? .*--model-dir <dir> --offline/s);
      } finally {
        delete process.env.FLIPLAB_CACHE_DIR;
      }
    },
    MODEL_TIMEOUT_MS,
  );
});

describe('fliplab encode → vector pack → search --vectors', () => {
  const model = [
    '--model',
    'fliplab/tiny-bert',
    '--pooling',
    'mean',
    '--query-prefix',
    'query: ',
    '--passage-prefix',
    'passage: ',
    '--model-dir',
    DEFAULT_MODELS_DIR,
    '--offline',
  ];

  it(
    'writes passages and queries; search ranks from the pack with no model at all, equal to a fresh search',
    async () => {
      const out = join(tmp, 'tiny-e5-pack');
      const enc = await cli('encode', TINY, ...model, '--out', out);
      expect(enc.code).toBe(0);
      expect(enc.stderr).toMatch(/encode: 12 passages and \d+ queries, \d+ tokens .* → /);
      const { readPackPath } = await import('../../src/node/vectors-file.ts');
      const { readPack } = await import('../../src/encoders/pack.ts');
      const pack = await readPack(readPackPath(out), out);
      expect(pack.manifest).toMatchObject({ kind: 'dense', dim: 32, valueType: 'float32', passages: { count: 12 } });
      // Where and with what it was encoded: the device, dtype and the runtime's versions.
      expect(pack.manifest.device).toMatch(/^cpu · fp32 · onnxruntime-node \d+\.\d+\.\d+ · transformers\.js 4\.\d+\.\d+$/);
      expect(pack.manifest.encoder).toMatchObject({ model: 'fliplab/tiny-bert', pooling: 'mean', queryPrefix: 'query: ' });
      expect(pack.passages!.ids.slice(0, 2)).toEqual(['d1', 'd2']);

      const fresh = await cli('search', TINY, ...model, '--depth', '4');
      // No --model, no --model-dir: nothing to load a model from, so any attempt would fail.
      const reused = await cli('search', TINY, '--depth', '4', '--vectors', out, '--tag', 'fliplab_tiny-bert');
      expect(reused.stderr).toMatch(/vectors: 12 of 12 passages and \d+ of \d+ queries taken from/);
      expect(reused.stderr).toMatch(/no model loaded/);
      expect(reused.code).toBe(0);
      expect(reused.stdout).toBe(fresh.stdout);

      // The same pack as one .zip, with --model given: checked against the flags and used the same way.
      const zip = join(tmp, 'tiny-e5-pack.zip');
      expect((await cli('encode', TINY, ...model, '--out', zip)).code).toBe(0);
      const zipped = await cli('search', TINY, ...model, '--depth', '4', '--vectors', zip);
      expect(zipped.stdout).toBe(fresh.stdout);

      // Recipe flags without --model have nothing to be checked against: refused, not silently ignored.
      const flagOnly = await cli('search', TINY, '--vectors', out, '--dtype', 'q8');
      expect(flagOnly.code).toBe(2);
      expect(flagOnly.stderr).toMatch(/the pack says how its vectors were made; give --model too if --dtype should be checked/);

      const other = await cli('search', TINY, ...model.filter((x) => x !== 'passage: ' && x !== '--passage-prefix'), '--vectors', out);
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(
        /manifest\.json: the pack was made with other settings: passagePrefix: "passage: " in the pack, "" here/,
      );
    },
    MODEL_TIMEOUT_MS,
  );

  // Before the test whose model load fails: transformers.js replays a failed file fetch to later loads of the
  // same model id in this process (the CLI loads once per process; the lab ends a worker whose call failed).
  it(
    'still reads a version 1 vectors folder (passages only, with --model)',
    async () => {
      const { loadEncoder } = await import('../../src/encoders/encoder.ts');
      const { writeVectorsFolder } = await import('../../src/node/vectors-file.ts');
      const { encodingIdentity, encodingKey, textKeys } = await import('../../src/encoders/identity.ts');
      const { resolveEncoderConfig } = await import('../../src/cli/model-options.ts');
      const config = resolveEncoderConfig({
        model: 'fliplab/tiny-bert',
        pooling: 'mean',
        queryPrefix: 'query: ',
        passagePrefix: 'passage: ',
        device: 'cpu',
        split: 'test',
      });
      const encoder = await loadEncoder(config, {
        device: 'cpu',
        source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false },
      });
      const col = await loadBeirFolder(TINY, 'test');
      const texts = col.corpus.ids.map((_, i) => passageText(col.corpus, i));
      const batch = await encoder.encode(texts, 'passage');
      await encoder.dispose();
      const identity = encodingIdentity(config, 'passage');
      const out = join(tmp, 'v1');
      writeVectorsFolder(out, {
        manifest: { identity, encoding: await encodingKey(identity), device: 'cpu' },
        ids: Array.from(col.corpus.ids, String),
        textKeys: await textKeys(texts),
        vectors: batch.dense!.map((dense) => ({ dense, tokens: 0 })),
      });
      const r = await cli('search', TINY, ...model, '--depth', '4', '--vectors', out);
      expect(r.stderr).toMatch(/vectors: 12 of 12 passages taken from/);
      expect(r.stdout).toBe((await cli('search', TINY, ...model, '--depth', '4')).stdout);
    },
    MODEL_TIMEOUT_MS,
  );
  it(
    'a passages-only pack encodes the queries (and only them), which needs the model',
    async () => {
      const out = join(tmp, 'tiny-passages');
      expect((await cli('encode', TINY, ...model, '--role', 'passage', '--out', out)).code).toBe(0);
      const fresh = await cli('search', TINY, ...model, '--depth', '4');
      const r = await cli('search', TINY, ...model, '--depth', '4', '--vectors', out);
      expect(r.stderr).toMatch(/vectors: 12 of 12 passages and 0 of \d+ queries/);
      expect(r.stderr).toMatch(/passages: 12\/12 \(12 cached\)/);
      expect(r.stdout).toBe(fresh.stdout);
      const noModel = await cli('search', TINY, '--vectors', out);
      expect(noModel.code).toBe(2);
      expect(noModel.stderr).toMatch(/could not load model "fliplab\/tiny-bert"/);
    },
    MODEL_TIMEOUT_MS,
  );
});

describe('fliplab search from a model host', () => {
  it(
    'downloads the model from a server with the hub URL layout (--host), not from disk',
    async () => {
      const { startHubServer } = await import('../support/hub-server.ts');
      const server = await startHubServer({ modelsRoot: DEFAULT_MODELS_DIR });
      process.env.FLIPLAB_CACHE_DIR = join(tmp, 'model-cache');
      try {
        const r = await cli('search', TINY, '--model', 'fliplab/tiny-bert', '--pooling', 'cls', '--host', server.url, '--depth', '3');
        expect(r.code).toBe(0);
        expect(server.requests.some((p) => p.includes('/fliplab/tiny-bert/resolve/main/onnx/model.onnx'))).toBe(true);
        expect(server.requests.some((p) => p.includes('/fliplab/tiny-bert/resolve/main/tokenizer.json'))).toBe(true);
        expect((await parseRun(r.stdout, 'stdout')).value.byQuery.size).toBe(8);
        // A second run is served from the per-host download cache: no more model requests.
        const before = server.requests.length;
        const again = await cli('search', TINY, '--model', 'fliplab/tiny-bert', '--pooling', 'cls', '--host', server.url, '--depth', '3');
        expect(again.stdout).toBe(r.stdout);
        expect(server.requests.slice(before).filter((p) => p.endsWith('.onnx'))).toEqual([]);
      } finally {
        delete process.env.FLIPLAB_CACHE_DIR;
        await server.close();
      }
    },
    MODEL_TIMEOUT_MS,
  );

  it(
    'loads every preset from its hub repo, repos with the weights at the root (the SPLADE++ preset as published), and says what a repo lacks',
    async () => {
      const { startHubServer } = await import('../support/hub-server.ts');
      const { LAYOUT_REPOS, writeHubLayouts } = await import('../support/hub-layouts.ts');
      const server = await startHubServer({ modelsRoot: await writeHubLayouts(join(tmp, 'hub-layouts')) });
      process.env.FLIPLAB_CACHE_DIR = join(tmp, 'layout-cache');
      const search = (...args: string[]) => cli('search', TINY, '--host', server.url, '--depth', '3', ...args);
      try {
        // Root layout = onnx/ layout, run for run (same weights).
        const onnxLayout = await search('--model', LAYOUT_REPOS.bert, '--pooling', 'cls');
        const rootLayout = await search('--model', LAYOUT_REPOS.bertRoot, '--pooling', 'cls', '--tag', LAYOUT_REPOS.bert.replace('/', '_'));
        expect(rootLayout.stderr).toMatch(
          /model: downloading 4 files, .* \(config\.json, tokenizer\.json, tokenizer_config\.json, model\.onnx\)/,
        );
        expect(rootLayout.code).toBe(0);
        expect(rootLayout.stdout).toBe(onnxLayout.stdout);
        expect(server.requests.some((p) => p.endsWith(`/${LAYOUT_REPOS.bertRoot}/resolve/main/model.onnx`))).toBe(true);

        // The splade-pp preset from the host, as the hub lays it out; its run is the tiny SPLADE's.
        const preset = await search('--model', 'splade-pp', '--tag', 't');
        expect(preset.stderr).toMatch(/search: Qdrant\/Splade_PP_en_v1@main/);
        expect(preset.code).toBe(0);
        const spladeRecipe = ['--pooling', 'splade', '--max-length', '256', '--sparse-top-k', '256', '--tag', 't'];
        expect(preset.stdout).toBe((await search('--model', LAYOUT_REPOS.splade, ...spladeRecipe)).stdout);

        // Every dense preset from its hub repo (the tiny BERT under each name), in each dtype the hub offers.
        for (const preset of ['bge-large', 'e5-large', 'bge-small', 'e5-small']) {
          for (const dtype of ['fp32', 'fp16', 'q8']) {
            const r = await search('--model', preset, '--dtype', dtype);
            expect(r.stderr, `${preset} ${dtype}`).toMatch(/search: Xenova\/(bge|e5)-/);
            expect(r.code, `${preset} ${dtype}: ${r.stderr}`).toBe(0);
            expect((await parseRun(r.stdout, 'stdout')).value.byQuery.size).toBe(8);
          }
        }

        // The paper's checkpoint as naver publishes it: no ONNX, and what to do about it.
        const paper = await search('--model', 'splade');
        expect(paper.code).toBe(2);
        expect(paper.stderr).toMatch(
          /naver\/splade-cocondenser-ensembledistil@main has no ONNX weights for fp32: neither onnx\/model\.onnx nor model\.onnx/,
        );
        expect(paper.stderr).toMatch(/optimum-cli export onnx --model naver\/splade-cocondenser-ensembledistil --task fill-mask/);
        const noOnnx = await search('--model', LAYOUT_REPOS.noOnnx, '--pooling', 'cls', '--dtype', 'q8');
        expect(noOnnx.stderr).toMatch(/no ONNX weights for q8: neither onnx\/model_quantized\.onnx nor model_quantized\.onnx/);
        const noTokenizer = await search('--model', LAYOUT_REPOS.noTokenizer, '--pooling', 'cls');
        expect(noTokenizer.code).toBe(2);
        expect(noTokenizer.stderr).toMatch(/fliplab\/no-tokenizer@main lacks tokenizer\.json, tokenizer_config\.json/);
      } finally {
        delete process.env.FLIPLAB_CACHE_DIR;
        await server.close();
      }
    },
    MODEL_TIMEOUT_MS,
  );
});
