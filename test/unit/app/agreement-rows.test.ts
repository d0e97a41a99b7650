/**
 * What an encoder row says of the path that ran it and offers after a failure (app/state/encoder-rows.ts), and
 * the recipe lines every export carries (report/recipe.ts): the device and adapter, threads, runtime versions,
 * the agreement check's numbers.
 */
import { describe, expect, it } from 'vitest';
import { agreementOf, deviceOf, encoderRunOf, pathAfter } from '../../../src/app/state/encoder-rows.ts';
import { compareAgreement } from '../../../src/encoders/agreement.ts';
import type { StoredVector } from '../../../src/encoders/pooling.ts';
import { PRESETS } from '../../../src/encoders/presets.ts';
import type { WorkerLoadResult } from '../../../src/lab/encode-types.ts';
import type { RetrieverInfo } from '../../../src/lab/types.ts';
import { encoderRecipe, recipeObject } from '../../../src/report/recipe.ts';

const v = (...x: number[]): StoredVector => ({ dense: Float32Array.from(x), tokens: 1 });
const same = { queries: [v(1, 0)], passages: [v(1, 0), v(0, 1), v(1, 1)] };
const runtime = { onnxRuntime: 'onnxruntime-web 1.31.0', transformers: 'transformers.js 4.3.2', threads: 2 };
const load: WorkerLoadResult = {
  device: 'webgpu',
  reason: null,
  adapterInfo: { vendor: 'nvidia', architecture: 'ampere', device: '', description: '', isFallbackAdapter: false },
  dtype: 'fp16',
  model: 'Xenova/bge-small-en-v1.5',
  runtime,
  agreement: compareAgreement(same, same, { device: 'webgpu', dtype: 'fp16' }),
};

describe('the path a failed row offers', () => {
  it('the reference after a disagreement or a NaN, unless the path was the reference itself', () => {
    expect(pathAfter('disagreement', null, 'webgpu', 'fp32')).toBe('reference');
    expect(pathAfter('non-finite', null, 'wasm', 'fp16')).toBe('reference');
    expect(pathAfter('non-finite', null, 'wasm', 'fp32')).toBeNull();
  });

  it('WASM after WebGPU failed mid-job or did not load the model, but not for a network problem', () => {
    expect(pathAfter('device-lost', null, 'webgpu', 'fp16')).toBe('wasm');
    expect(pathAfter('model-load', null, 'webgpu', 'fp32')).toBe('wasm');
    expect(pathAfter('model-load', 'unreachable', 'webgpu', 'fp32')).toBeNull();
    expect(pathAfter('model-load', null, 'wasm', 'fp32')).toBeNull();
    expect(pathAfter(null, null, 'webgpu', 'fp32')).toBeNull();
  });
});

describe('what a row and its recipe record of the run', () => {
  it('the agreement in words: passed with its numbers, or why it was not checked', () => {
    expect(agreementOf(load)).toEqual({
      agreement: 'passed: min cosine 1.00000, median 1.00000, top-1 overlap 1.00 (1 query × 3 passages)',
    });
    const { agreement: _, ...unchecked } = load;
    expect(agreementOf({ ...unchecked, agreementUnchecked: 'the folder has no onnx/model.onnx' })).toEqual({
      agreement: 'not checked: the folder has no onnx/model.onnx',
    });
    expect(agreementOf(unchecked)).toEqual({});
  });

  it('every line a run’s recipe needs: device and adapter, threads, ONNX Runtime, transformers.js, the check', () => {
    const row: RetrieverInfo = { id: 'bge-small-fp16', name: 'bge-small-fp16', kind: 'dense', status: 'ready', ...deviceOf(load) };
    const recipe = recipeObject(encoderRecipe({ ...PRESETS['bge-small'], dtype: 'fp16' }, encoderRunOf(row)));
    expect(recipe).toMatchObject({
      dtype: 'fp16',
      device: 'webgpu (nvidia ampere)',
      'wasm threads': '2',
      'ONNX Runtime': 'onnxruntime-web 1.31.0',
      'transformers.js': 'transformers.js 4.3.2',
      'agreement with WASM fp32': 'passed: min cosine 1.00000, median 1.00000, top-1 overlap 1.00 (1 query × 3 passages)',
    });
    // Node's runtime picks its own threads: no line for them.
    const node = encoderRunOf({ ...row, runtime: { ...runtime, onnxRuntime: 'onnxruntime-node 1.30.0', threads: null } });
    expect(recipeObject(encoderRecipe(PRESETS['bge-small'], node))).not.toHaveProperty('wasm threads');
  });
});
