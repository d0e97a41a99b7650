import { describe, expect, it } from 'vitest';
import { bm25RunName, parseBm25RunName } from '../../../src/core/retrieve/bm25.ts';
import {
  configForRecipe,
  encoderConfig,
  encoderRunId,
  isRecipeRunId,
  parseEncoderRunId,
  recipeConfig,
  recipeRunId,
  type EncoderRecipe,
} from '../../../src/lab/retriever-ids.ts';
import { PRESETS } from '../../../src/encoders/presets.ts';

describe('retriever ids', () => {
  it('name BM25 runs one way, and read back only the names they make', () => {
    expect(bm25RunName({ k1: 1.5, b: 0.75 })).toBe('bm25');
    expect(bm25RunName({ k1: 1.2, b: 0.75 })).toBe('bm25-k1=1.2-b=0.75');
    expect(bm25RunName({ k1: 1.2, b: 0.65 })).toBe('bm25-k1=1.2-b=0.65');
    for (const p of [
      { k1: 1.5, b: 0.75 },
      { k1: 1.2, b: 0.65 },
      { k1: 0.9, b: 1 },
      { k1: 2, b: 0 },
    ])
      expect(parseBm25RunName(bm25RunName(p))).toEqual(p);
    for (const name of ['bm25-k1=1.5-b=0.75', 'bm25-k1=1.20-b=0.65', 'bm25-k1=1.2-b=1.5', 'bm25-k1=1.2', 'bge-large', 'BM25'])
      expect(parseBm25RunName(name), name).toBeNull();
  });

  it('say what departs from the preset and rebuild the same configuration', () => {
    const cases = [
      encoderConfig('bge-large'),
      encoderConfig('e5-large', { dtype: 'q8' }),
      encoderConfig('splade', { maxLength: 128 }),
      encoderConfig('bge-small', { model: 'fliplab/tiny-bert', maxLength: 32 }),
      encoderConfig('e5-small', { model: 'org/model-with-dashes-max', dtype: 'fp16' }),
      encoderConfig('bge-large', { model: 'BAAI/bge-large-en-v1.5', revision: 'd4aa6901d3a4', dtype: 'q8', maxLength: 256 }),
    ];
    expect(cases.map(encoderRunId)).toEqual([
      'bge-large',
      'e5-large-q8',
      'splade-max128',
      'bge-small:fliplab/tiny-bert-max32',
      'e5-small:org/model-with-dashes-max-fp16',
      'bge-large:BAAI/bge-large-en-v1.5@d4aa6901d3a4-q8-max256',
    ]);
    // A local folder's revision (its files' fingerprint) stays out of the id.
    expect(encoderRunId(encoderConfig('bge-small', { model: 'local/tiny-bert', revision: 'f'.repeat(64) }))).toBe(
      'bge-small:local/tiny-bert',
    );
    for (const config of cases) expect(parseEncoderRunId(encoderRunId(config))).toEqual(config);
  });

  it('keep the recipe of the preset for a custom checkpoint', () => {
    const c = encoderConfig('e5-small', { model: 'me/mine' });
    expect(c).toMatchObject({ model: 'me/mine', pooling: PRESETS['e5-small'].pooling, queryPrefix: 'query: ', maxLength: 512 });
  });

  it('reject what is not an encoder run or a bad length', () => {
    expect(parseEncoderRunId('bm25')).toBeNull();
    expect(parseEncoderRunId('my-run.trec')).toBeNull();
    expect(() => encoderConfig('bge-small', { maxLength: 2 })).toThrow(/max tokens/);
  });

  // What `fliplab encode --model fliplab/tiny-bert --pooling mean --max-length 24` writes: no preset has it.
  const MEAN: EncoderRecipe = {
    model: 'fliplab/tiny-bert',
    revision: 'main',
    dtype: 'fp32',
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    passagePrefix: '',
    maxLength: 24,
    sparseTopK: null,
  };

  it('name a recipe no preset has by its model and a fingerprint of every field, the same every time', () => {
    expect(configForRecipe(MEAN)).toBeNull();
    // The fingerprints were computed apart from this code (FNV-1a, 32 bits, over the canonical JSON in Python).
    expect(recipeRunId(MEAN)).toBe('pack:fliplab/tiny-bert~883aef1c');
    const odd: EncoderRecipe = { ...MEAN, model: 'my company/embedder v4 ✓', revision: '2026-11-01', pooling: 'cls', normalize: false };
    expect(recipeRunId({ ...odd, queryPrefix: 'Q: ', maxLength: 8192 })).toBe('pack:my-company/embedder-v4-~7c06f263');
    // Any field changes the name; the key order of the object given does not, nor fields that are not the recipe's.
    const changed: EncoderRecipe[] = [
      { ...MEAN, revision: 'v2' },
      { ...MEAN, dtype: 'q8' },
      { ...MEAN, pooling: 'cls' },
      { ...MEAN, normalize: false },
      { ...MEAN, queryPrefix: 'query: ' },
      { ...MEAN, passagePrefix: 'query: ' },
      { ...MEAN, maxLength: 25 },
      { ...MEAN, model: 'fliplab/tiny-bert2' },
    ];
    const ids = new Set([MEAN, ...changed].map(recipeRunId));
    expect(ids.size).toBe(changed.length + 1);
    const reordered = Object.fromEntries(Object.entries(MEAN).reverse()) as unknown as EncoderRecipe;
    expect(recipeRunId({ ...reordered, id: 'x', label: 'y' } as EncoderRecipe)).toBe(recipeRunId(MEAN));
  });

  it('keep recipe-run ids URL- and TREC-safe, recognisable, and out of the preset parser', () => {
    for (const model of ['openai/text-embedding-3-small', 'my-company-embedder-v4', 'a b\tc#d&e=f,g%h?i', '日本語モデル']) {
      const id = recipeRunId({ ...MEAN, model });
      expect(id, model).toMatch(/^pack:[A-Za-z0-9._/-]+~[0-9a-f]{8}$/);
      expect(isRecipeRunId(id)).toBe(true);
      expect(parseEncoderRunId(id)).toBeNull();
    }
    for (const id of ['bge-large', 'bge-small:org/pack', 'pack:x', 'pack:x~123', 'pack:x y~12345678'])
      expect(isRecipeRunId(id), id).toBe(false);
  });

  it('give a recipe run a configuration with the recipe as it came, named by the same id', () => {
    const config = recipeConfig({ ...MEAN, model: 'my-company-embedder-v4' });
    expect(config).toMatchObject({ ...MEAN, model: 'my-company-embedder-v4', kind: 'dense' });
    expect(encoderRunId(config)).toBe(config.id);
    expect(config.id).toBe(recipeRunId({ ...MEAN, model: 'my-company-embedder-v4' }));
    const sparse = recipeConfig({ ...MEAN, pooling: 'splade-max', normalize: false, sparseTopK: 64 });
    expect(sparse.kind).toBe('sparse');
    // A preset's recipe with another checkpoint keeps the preset's name.
    const bge = { ...MEAN, pooling: 'cls' as const, queryPrefix: PRESETS['bge-small'].queryPrefix };
    expect(encoderRunId(configForRecipe(bge)!)).toBe('bge-large:fliplab/tiny-bert-max24');
  });
});
