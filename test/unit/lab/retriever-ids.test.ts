import { describe, expect, it } from 'vitest';
import { bm25RunName, parseBm25RunName } from '../../../src/core/retrieve/bm25.ts';
import { encoderConfig, encoderRunId, parseEncoderRunId } from '../../../src/lab/retriever-ids.ts';
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
});
