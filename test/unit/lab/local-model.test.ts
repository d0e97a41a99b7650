/**
 * "Load a local model folder": checking a picked folder, naming it, fingerprinting it, serving its bytes to
 * transformers.js through the custom cache (on the real stack, in Node: the vectors equal a load from disk).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { env } from '@huggingface/transformers';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures } from '../../../scripts/models/make-fixtures.ts';
import {
  LOCAL_MODEL_ROOT,
  LocalModelError,
  ONNX_FILE_BY_DTYPE,
  createLocalModelCache,
  fingerprintFiles,
  localModelName,
  localModelSource,
  prepareLocalModel,
  requiredModelFiles,
  resolveLocalKey,
  selectLocalModelFiles,
  validateRegisteredModel,
  type PickedFile,
} from '../../../src/lab/local-model.ts';
import { loadEncoder } from '../../../src/encoders/encoder.ts';
import { PRESETS, type EncoderConfig } from '../../../src/encoders/presets.ts';

const MODEL_LOAD_TIMEOUT_MS = 60_000;

/** A File as `<input webkitdirectory>` yields it (Node's File has no webkitRelativePath: add it). */
function picked(path: string, content: string | Uint8Array): PickedFile {
  const file = new File([content as BlobPart], path.split('/').pop()!);
  Object.defineProperty(file, 'webkitRelativePath', { value: path });
  return file as PickedFile;
}

const entries = (paths: readonly string[]) => paths.map((path) => ({ path, file: path }));
const COMPLETE = ['bert/config.json', 'bert/tokenizer.json', 'bert/tokenizer_config.json', 'bert/onnx/model.onnx'];

describe('selectLocalModelFiles', () => {
  it('a complete folder: the model folder, its name, the files a load reads (relative to it)', () => {
    const sel = selectLocalModelFiles(
      entries([...COMPLETE, 'bert/vocab.txt', 'bert/special_tokens_map.json', 'bert/onnx/model_quantized.onnx', 'bert/README.md']),
      'fp32',
    );
    expect(sel.name).toBe('local/bert');
    expect(sel.folder).toBe('bert');
    expect(sel.prefix).toBe('bert/');
    expect(sel.availableDtypes).toEqual(['fp32', 'q8']);
    // Other dtypes' weights and unrelated files stay behind; small root configs come along.
    expect(sel.files.map((f) => f.path).sort()).toEqual([
      'config.json',
      'onnx/model.onnx',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    expect(sel.files.find((f) => f.path === 'onnx/model.onnx')!.file).toBe('bert/onnx/model.onnx');
  });

  it('a folder with model.onnx at its root (no onnx/): the root weights are loaded under the onnx/ names', () => {
    const root = [
      'splade/config.json',
      'splade/tokenizer.json',
      'splade/tokenizer_config.json',
      'splade/model.onnx',
      'splade/model.onnx_data',
    ];
    const sel = selectLocalModelFiles(entries([...root, 'splade/model_quantized.onnx']), 'fp32');
    expect(sel.availableDtypes).toEqual(['fp32', 'q8']);
    expect(sel.files.map((f) => f.path).sort()).toEqual([
      'config.json',
      'onnx/model.onnx',
      'onnx/model.onnx_data',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    expect(sel.files.find((f) => f.path === 'onnx/model.onnx')!.file).toBe('splade/model.onnx');
    // q8 from the root file too; a dtype the folder lacks is still named as missing (under its onnx/ name).
    expect(selectLocalModelFiles(entries([...root, 'splade/model_quantized.onnx']), 'q8').files.map((f) => f.path)).toContain(
      'onnx/model_quantized.onnx',
    );
    expect(() => selectLocalModelFiles(entries(root), 'fp16')).toThrow(/missing onnx\/model_fp16\.onnx.*has weights for: fp32/);
    // With an onnx/ folder the root file is not used (the transformers.js layout wins).
    const both = selectLocalModelFiles(entries([...COMPLETE, 'bert/model.onnx']), 'fp32');
    expect(both.files.find((f) => f.path === 'onnx/model.onnx')!.file).toBe('bert/onnx/model.onnx');
    expect(both.files.map((f) => f.path)).not.toContain('model.onnx');
    // The rule is per weights file (presets.ts's locateWeights, the CLI's too): q8 only at the root still loads.
    const mixed = selectLocalModelFiles(entries([...COMPLETE, 'bert/model_quantized.onnx']), 'q8');
    expect(mixed.availableDtypes).toEqual(['fp32', 'q8']);
    expect(mixed.files.find((f) => f.path === 'onnx/model_quantized.onnx')!.file).toBe('bert/model_quantized.onnx');
  });

  it.each(['fp32', 'fp16', 'q8'] as const)('each missing file is named (%s)', (dtype) => {
    const needed = requiredModelFiles(dtype);
    expect(needed).toContain(ONNX_FILE_BY_DTYPE[dtype]);
    for (const drop of needed) {
      const paths = needed.filter((p) => p !== drop).map((p) => `m/${p}`);
      let error: unknown;
      try {
        selectLocalModelFiles(entries(paths), dtype);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(LocalModelError);
      expect((error as LocalModelError).missing).toEqual([drop]);
      expect((error as Error).message).toContain(`"m" is missing ${drop}`);
    }
  });

  it('weights for another dtype only: says which dtypes the folder can load', () => {
    expect(() => selectLocalModelFiles(entries(COMPLETE), 'q8')).toThrow(/missing onnx\/model_quantized\.onnx.*has weights for: fp32/);
  });

  it('the model one level inside the picked folder; several models are refused', () => {
    const nested = selectLocalModelFiles(entries(COMPLETE.map((p) => `models/${p}`)), 'fp32');
    expect(nested).toMatchObject({ name: 'local/bert', prefix: 'models/bert/' });
    expect(() =>
      selectLocalModelFiles(
        entries([...COMPLETE.map((p) => `all/${p}`), ...COMPLETE.map((p) => `all/${p.replace('bert', 'e5')}`)]),
        'fp32',
      ),
    ).toThrow(/several models \(all\/bert\/, all\/e5\/\)/);
  });

  it('external weights of the chosen dtype come along', () => {
    const sel = selectLocalModelFiles(entries([...COMPLETE, 'bert/onnx/model.onnx_data', 'bert/onnx/model_fp16.onnx_data']), 'fp32');
    expect(sel.files.map((f) => f.path)).toContain('onnx/model.onnx_data');
    expect(sel.files.map((f) => f.path)).not.toContain('onnx/model_fp16.onnx_data');
  });

  it('an empty pick and a folder without config.json are clear errors', () => {
    expect(() => selectLocalModelFiles([], 'fp32')).toThrow(/empty/);
    expect(() => selectLocalModelFiles(entries(['x/tokenizer.json', 'x/tokenizer_config.json', 'x/onnx/model.onnx']), 'fp32')).toThrow(
      /"x" is missing config\.json/,
    );
  });
});

describe('localModelName', () => {
  let isValidHfModelId: (s: string) => boolean;
  beforeAll(async () => {
    // transformers.js's own check (not exported by the package): its local-path cache keys need a valid id.
    const path = fileURLToPath(new URL('../../../node_modules/@huggingface/transformers/src/utils/hub/utils.js', import.meta.url));
    ({ isValidHfModelId } = (await import(/* @vite-ignore */ path)) as { isValidHfModelId: (s: string) => boolean });
  });

  it('keeps plain folder names', () => {
    expect(localModelName('bge-small-en-v1.5')).toBe('local/bge-small-en-v1.5');
    expect(localModelName('my model (v2)')).toBe('local/my-model-v2');
  });

  it('is always a valid transformers.js model id, and stable (validated again in the worker)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (folder) => {
        const name = localModelName(folder);
        expect(isValidHfModelId(name)).toBe(true);
        expect(name.startsWith('local/')).toBe(true);
        expect(localModelName(name.slice('local/'.length))).toBe(name);
        expect(() => validateRegisteredModel(name, requiredModelFiles('fp32'))).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });
});

describe('validateRegisteredModel (worker side)', () => {
  it('refuses foreign names, escaping paths and folders without config/tokenizer/weights', () => {
    expect(() => validateRegisteredModel('Xenova/bge', requiredModelFiles('fp32'))).toThrow(/not a local model name/);
    expect(() => validateRegisteredModel('local/x', [...requiredModelFiles('fp32'), '../secret'])).toThrow(
      /invalid file paths "\.\.\/secret"/,
    );
    expect(() => validateRegisteredModel('local/x', ['config.json', 'tokenizer_config.json'])).toThrow(
      /missing tokenizer\.json, onnx\/model\.onnx/,
    );
    expect(() =>
      validateRegisteredModel('local/x', ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_fp16.onnx']),
    ).not.toThrow();
  });
});

describe('fingerprintFiles', () => {
  const big = (at: number) => {
    const bytes = new Uint8Array(5 * 1024 * 1024 + 3);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i & 0xff;
    if (at >= 0) bytes[at] = bytes[at]! ^ 1;
    return new Blob([bytes]);
  };

  it('same files → same fingerprint; any change of content, size or path → another', async () => {
    const base = [{ path: 'config.json', file: new Blob(['{"a":1}']) }];
    const fp = await fingerprintFiles(base);
    expect(fp).toMatch(/^sha256-[0-9a-f]{16}$/);
    expect(await fingerprintFiles([{ path: 'config.json', file: new Blob(['{"a":1}']) }])).toBe(fp);
    expect(await fingerprintFiles([{ path: 'config.json', file: new Blob(['{"a":2}']) }])).not.toBe(fp);
    expect(await fingerprintFiles([{ path: 'config2.json', file: new Blob(['{"a":1}']) }])).not.toBe(fp);
    // Large files (weights) by samples: the first and last byte are always sampled.
    const weights = await fingerprintFiles([{ path: 'onnx/model.onnx', file: big(-1) }]);
    expect(await fingerprintFiles([{ path: 'onnx/model.onnx', file: big(-1) }])).toBe(weights);
    expect(await fingerprintFiles([{ path: 'onnx/model.onnx', file: big(0) }])).not.toBe(weights);
    expect(await fingerprintFiles([{ path: 'onnx/model.onnx', file: big(5 * 1024 * 1024 + 2) }])).not.toBe(weights);
  });
});

describe('the custom cache', () => {
  const registry = new Map([
    [
      'local/x',
      new Map([
        ['config.json', new Blob(['{"model_type":"bert"}'])],
        ['onnx/model.onnx', new Blob([new Uint8Array([1, 2, 3])])],
      ]),
    ],
    ['local/x-y', new Map([['config.json', new Blob(['{}'])]])],
  ]);
  const cache = createLocalModelCache(registry);

  it('serves registered files under the local root (path or URL) and the hub form, as fresh Responses', async () => {
    const r = await cache.match(`${LOCAL_MODEL_ROOT}local/x/config.json`);
    expect(r?.status).toBe(200);
    expect(r?.headers.get('content-length')).toBe(String('{"model_type":"bert"}'.length));
    expect(await r!.text()).toBe('{"model_type":"bert"}');
    // A second match is a new body (transformers.js reads each response once).
    expect(await (await cache.match(`${LOCAL_MODEL_ROOT}local/x/config.json`))!.text()).toBe('{"model_type":"bert"}');
    const onnx = await cache.match(`http://localhost:4173${LOCAL_MODEL_ROOT}local/x/onnx/model.onnx`);
    expect(new Uint8Array(await onnx!.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
    expect(await (await cache.match('https://huggingface.co/local/x/resolve/sha256-00/onnx/model.onnx'))!.arrayBuffer()).toHaveProperty(
      'byteLength',
      3,
    );
    expect(await (await cache.match(`${LOCAL_MODEL_ROOT}local/x-y/config.json`))!.text()).toBe('{}');
  });

  it('misses everything else', async () => {
    for (const key of [
      `${LOCAL_MODEL_ROOT}local/x/tokenizer.json`,
      `${LOCAL_MODEL_ROOT}local/z/config.json`,
      '/models/local/x/config.json',
      'https://huggingface.co/Xenova/bge/resolve/main/config.json',
      `${LOCAL_MODEL_ROOT}local/x`,
    ]) {
      expect(await cache.match(key)).toBeUndefined();
    }
    expect(resolveLocalKey(registry, `${LOCAL_MODEL_ROOT}local/x-y/config.json`)).toEqual({ model: 'local/x-y', path: 'config.json' });
  });
});

/** The generated tiny BERT, as a browser would pick its folder. */
async function pickFixtureFolder(modelDir: string, folder: string, skip: readonly string[] = []): Promise<PickedFile[]> {
  const out: PickedFile[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else {
        const rel = relative(modelDir, full).split('\\').join('/');
        if (!skip.includes(rel)) out.push(picked(`${folder}/${rel}`, new Uint8Array(await readFile(full))));
      }
    }
  };
  await walk(modelDir);
  return out;
}

describe('on the real stack (transformers.js + onnxruntime-node)', () => {
  const TEXTS = ['tides and the moon', 'a lighthouse guides ships along the coast at night', 'x'];
  const config = (model: string): EncoderConfig => ({ ...PRESETS['bge-large'], id: `local-test-${model}`, model });
  beforeAll(() => makeModelFixtures(), MODEL_LOAD_TIMEOUT_MS);

  it(
    'a picked folder served by the custom cache encodes exactly like the same files loaded from disk; the next load is unaffected',
    async () => {
      const tinyBert = join(DEFAULT_MODELS_DIR, 'fliplab/tiny-bert');
      const local = await prepareLocalModel(await pickFixtureFolder(tinyBert, 'tiny-bert'), 'fp32');
      expect(local.name).toBe('local/tiny-bert');
      expect(local.files.map((f) => f.path)).toContain('onnx/model.onnx');
      const registry = new Map([[local.name, new Map(local.files.map((f) => [f.path, f.bytes as Blob]))]]);
      const served: string[] = [];
      const inner = createLocalModelCache(registry);
      const cache = {
        match: async (key: string) => ((await inner.match(key)) ? (served.push(key), inner.match(key)) : undefined),
        put: inner.put,
      };

      const fromFolder = await loadEncoder(
        { ...config(local.name), revision: local.revision },
        { device: 'cpu', dtype: 'fp32', source: { ...localModelSource(), customCache: cache } },
      );
      const got = await fromFolder.encode(TEXTS, 'query');
      await fromFolder.dispose();
      expect(served).toEqual(
        expect.arrayContaining([
          `${LOCAL_MODEL_ROOT}local/tiny-bert/config.json`,
          `${LOCAL_MODEL_ROOT}local/tiny-bert/tokenizer.json`,
          `${LOCAL_MODEL_ROOT}local/tiny-bert/onnx/model.onnx`,
        ]),
      );

      // A load without a custom cache resets transformers.js's env (applySource sets all of the source).
      const fromDisk = await loadEncoder(config('fliplab/tiny-bert'), {
        device: 'cpu',
        dtype: 'fp32',
        source: { localModelPath: `${DEFAULT_MODELS_DIR}/`, allowRemote: false },
      });
      expect(env.useCustomCache).toBe(false);
      expect(env.customCache).toBeNull();
      const want = await fromDisk.encode(TEXTS, 'query');
      await fromDisk.dispose();
      expect(got.tokens).toEqual(want.tokens);
      got.dense!.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(want.dense![i]!)));
    },
    MODEL_LOAD_TIMEOUT_MS,
  );

  it('prepareLocalModel on a folder without tokenizer.json names it', async () => {
    const files = await pickFixtureFolder(join(DEFAULT_MODELS_DIR, 'fliplab/tiny-bert'), 'tiny-bert', ['tokenizer.json']);
    await expect(prepareLocalModel(files, 'fp32')).rejects.toThrow(/"tiny-bert" is missing tokenizer\.json/);
  });
});
