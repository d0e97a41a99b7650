/**
 * What a retriever row says about a model download before it starts: sizes from the host, or from the
 * preset table when the host gave none (and then it says so); cached files count apart.
 */
import { describe, expect, it } from 'vitest';
import { formatSize } from '../../../src/core/bytes.ts';
import type { DownloadPlan } from '../../../src/encoders/encoder.ts';
import { downloadState } from '../../../src/app/state/download-state.ts';

const plan = (files: DownloadPlan['files'], model = 'Xenova/bge-large-en-v1.5'): DownloadPlan => ({
  model,
  revision: 'main',
  dtype: 'fp32',
  onnxFolder: 'onnx',
  externalData: false,
  files,
  downloadBytes: 0,
  cachedBytes: 0,
});

describe('download state', () => {
  it('sums what is to fetch and what is cached; files the host lacks are not listed', () => {
    const s = downloadState(
      plan([
        { path: 'config.json', bytes: 600, cached: true, exists: true },
        { path: 'tokenizer.json', bytes: 711_000, cached: false, exists: true },
        { path: 'onnx/model.onnx', bytes: 1_340_000_000, cached: false, exists: true },
        { path: 'onnx/model.onnx_data', bytes: null, cached: false, exists: false },
      ]),
    );
    expect(s).toMatchObject({ downloadBytes: 1_340_711_000, cachedBytes: 600, sizesFrom: 'host', loaded: 0 });
    expect(s.files.map((f) => f.path)).toEqual(['config.json', 'tokenizer.json', 'onnx/model.onnx']);
    expect(s.files[0]!.loaded).toBe(600);
  });

  it('takes the weights size from the preset table when the host gave none, and says so', () => {
    const s = downloadState(plan([{ path: 'onnx/model.onnx', bytes: null, cached: false, exists: true }]));
    expect(s).toMatchObject({ downloadBytes: 1_340_000_000, sizesFrom: 'preset table' });
    const unknown = downloadState(plan([{ path: 'onnx/model.onnx', bytes: null, cached: false, exists: true }], 'me/unknown'));
    expect(unknown).toMatchObject({ downloadBytes: 0, sizesFrom: 'host' });
    expect(unknown.files[0]!.bytes).toBeNull();
  });

  it('writes sizes as the hub does', () => {
    expect([999, 1000, 711_396, 336_983_162, 1_340_000_000, 66_700_000].map(formatSize)).toEqual([
      '999 B',
      '1 kB',
      '711 kB',
      '337 MB',
      '1.34 GB',
      '66.7 MB',
    ]);
  });
});
