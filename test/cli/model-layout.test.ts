/**
 * A model folder under --model-dir with the weights at its root (`model.onnx`, as several public conversions
 * are laid out) loads in `encode`, `search` and `answers generate` exactly like the transformers.js layout
 * (`onnx/model.onnx`): the real bin on copies of the generated tiny models, root layout against onnx/ layout,
 * output for output. The rule is presets.ts's `locateWeights`, which the lab's folder picker uses too.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeModelFixtures } from '../../scripts/models/make-fixtures.ts';
import { locateWeights } from '../../src/encoders/presets.ts';
import { LAYOUT_REPOS, writeHubLayouts } from '../support/hub-layouts.ts';
import { writeQaCollection } from '../support/qa-collection.ts';
import { tempDir } from '../support/temp.ts';

const ROOT = join(import.meta.dirname, '../..');
const TINY = join(ROOT, 'examples/tiny-beir');
const TIMEOUT_MS = 120_000;
const tmp = tempDir('model-layout');
const models = join(tmp, 'models');

/** The real bin, with its exit status, stdout and stderr (a non-zero exit is a result, not a failure). */
function bin(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'bin/fliplab.mjs'), ...argv], { maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

const offline = ['--model-dir', models, '--offline'];

beforeAll(async () => {
  await makeModelFixtures();
  await writeHubLayouts(models);
}, TIMEOUT_MS);

describe('locateWeights (the one layout rule)', () => {
  it('takes onnx/ first, then the root, per weights file; null when neither has it', () => {
    const has = (paths: string[]) => (p: string) => paths.includes(p);
    expect(locateWeights('model.onnx', has(['onnx/model.onnx', 'model.onnx']))).toEqual({ folder: 'onnx', path: 'onnx/model.onnx' });
    expect(locateWeights('model.onnx', has(['model.onnx']))).toEqual({ folder: '', path: 'model.onnx' });
    expect(locateWeights('model_quantized.onnx', has(['onnx/model.onnx', 'model_quantized.onnx']))).toEqual({
      folder: '',
      path: 'model_quantized.onnx',
    });
    expect(locateWeights('model_fp16.onnx', has(['onnx/model.onnx', 'model.onnx']))).toBeNull();
  });
});

describe('--model-dir folders with model.onnx at the root', () => {
  it(
    'search: a root-layout SPLADE folder offline gives the onnx/-layout run, byte for byte',
    async () => {
      const recipe = ['--pooling', 'splade', '--depth', '5', '--tag', 'splade', ...offline];
      const root = await bin('search', TINY, '--model', LAYOUT_REPOS.spladeRoot, ...recipe);
      expect(root.stderr).not.toMatch(/incomplete or missing/);
      expect(root.code, root.stderr).toBe(0);
      const onnx = await bin('search', TINY, '--model', LAYOUT_REPOS.splade, ...recipe);
      expect(onnx.code, onnx.stderr).toBe(0);
      expect(root.stdout.split('\n').length).toBeGreaterThan(8);
      expect(root.stdout).toBe(onnx.stdout);
    },
    TIMEOUT_MS,
  );

  it(
    'encode: a root-layout BERT folder offline writes the same vectors as the onnx/ layout',
    async () => {
      const packs = { root: join(tmp, 'root-pack'), onnx: join(tmp, 'onnx-pack') };
      const recipe = ['--pooling', 'mean', ...offline];
      const root = await bin('encode', TINY, '--model', LAYOUT_REPOS.bertRoot, ...recipe, '--out', packs.root);
      expect(root.code, root.stderr).toBe(0);
      const onnx = await bin('encode', TINY, '--model', LAYOUT_REPOS.bert, ...recipe, '--out', packs.onnx);
      expect(onnx.code, onnx.stderr).toBe(0);
      for (const file of ['passages.tsv', 'passages.f32', 'queries.tsv', 'queries.f32']) {
        const bytes = readFileSync(join(packs.root, file));
        expect(bytes.length, file).toBeGreaterThan(0);
        expect(bytes.equals(readFileSync(join(packs.onnx, file))), file).toBe(true);
      }
    },
    TIMEOUT_MS,
  );

  it(
    'answers generate: a root-layout reader folder offline gives the onnx/-layout answers',
    async () => {
      const qa = join(tmp, 'qa');
      writeQaCollection(qa);
      const run = join(tmp, 'bm25.run');
      expect((await bin('bm25', qa, '--out', run)).code).toBe(0);
      const answers = async (reader: string, out: string) => {
        const r = await bin('answers', 'generate', qa, '--run', run, '--reader', reader, ...offline, '--k', '2', '--out', out);
        expect(r.code, r.stderr).toBe(0);
        return readFileSync(out, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as { query_id: string; prediction: string });
      };
      const root = await answers(LAYOUT_REPOS.readerRoot, join(tmp, 'root.jsonl'));
      const onnx = await answers(LAYOUT_REPOS.reader, join(tmp, 'onnx.jsonl'));
      expect(root.length).toBeGreaterThan(0);
      expect(root.map((a) => [a.query_id, a.prediction])).toEqual(onnx.map((a) => [a.query_id, a.prediction]));
    },
    TIMEOUT_MS,
  );

  it('a folder with the weights in neither place is refused offline, naming both paths (exit 2)', async () => {
    const r = await bin('search', TINY, '--model', LAYOUT_REPOS.noOnnx, '--pooling', 'cls', ...offline);
    expect(r.code).toBe(2);
    const folder = join(models, LAYOUT_REPOS.noOnnx);
    expect(r.stderr).toContain(`expected ${join(folder, 'onnx/model.onnx')} or ${join(folder, 'model.onnx')}`);
  });
});
