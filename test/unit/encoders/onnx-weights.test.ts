/**
 * A model's weights as external data pointing into its own bytes (src/encoders/onnx-weights.ts): the graph
 * shrinks to what is not weights, the "file" mounted is the given buffer itself, and onnxruntime-node runs the
 * rewritten model to the same outputs, bit for bit, as the original (fp32, fp16 and q8 fixtures, encoder and
 * decoder).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS_DIR, makeModelFixtures, makeReaderFixtures } from '../../../scripts/models/make-fixtures.ts';
import { fields, Writer } from '../../../src/encoders/onnx-proto.ts';
import { externalizeWeights, MIN_EXTERNAL_BYTES, WEIGHTS_FILE } from '../../../src/encoders/onnx-weights.ts';

beforeAll(async () => {
  await makeModelFixtures();
  await makeReaderFixtures(); // the decoder case below
}, 60_000);

const read = (model: string, file: string) => new Uint8Array(readFileSync(join(DEFAULT_MODELS_DIR, model, 'onnx', file)));

/** Deterministic feeds for a session's inputs: token ids in [0, 50), masks of ones, zeros elsewhere. */
function feedsFor(session: ort.InferenceSession): Record<string, ort.Tensor> {
  const feeds: Record<string, ort.Tensor> = {};
  const [batch, seq] = [2, 7];
  for (const name of session.inputNames) {
    if (name.startsWith('past_key_values')) {
      // the decoder's empty cache: [batch, heads, 0, head size]; its shape is read off the metadata
      const meta = session.inputMetadata.find((m) => m.name === name) as { shape?: readonly (number | string)[] } | undefined;
      const dims = (meta?.shape ?? []).map((d, i) => (typeof d === 'number' ? d : i === 0 ? batch : 0));
      feeds[name] = new ort.Tensor('float32', new Float32Array(0), dims);
      continue;
    }
    const data = BigInt64Array.from({ length: batch * seq }, (_, i) =>
      name === 'input_ids' ? BigInt((i * 7 + 3) % 50) : name === 'attention_mask' ? 1n : name === 'position_ids' ? BigInt(i % seq) : 0n,
    );
    feeds[name] = new ort.Tensor('int64', data, [batch, seq]);
  }
  return feeds;
}

describe('externalizeWeights', () => {
  const cases = [
    ['fliplab/tiny-bert', 'model.onnx'],
    ['fliplab/tiny-bert', 'model_fp16.onnx'],
    ['fliplab/tiny-bert', 'model_quantized.onnx'],
    ['fliplab/tiny-splade', 'model.onnx'],
    ['fliplab/tiny-gpt2', 'model.onnx'],
  ] as const;

  it.each(cases)('%s %s runs to the same outputs with its weights as external data', async (model, file) => {
    const bytes = read(model, file);
    const ext = externalizeWeights(bytes)!;
    expect(ext).not.toBeNull();
    // the mounted file is the given buffer, not a copy; the graph is what is left
    expect(ext.weights).toBe(bytes);
    expect(ext.tensors).toBeGreaterThan(0);
    expect(ext.graph.length).toBeLessThan(bytes.length - ext.bytes + 4096);
    expect(ext.graph.length + ext.bytes).toBeGreaterThan(bytes.length - 1);

    const plain = await ort.InferenceSession.create(bytes);
    const moved = await ort.InferenceSession.create(ext.graph, { externalData: [{ path: WEIGHTS_FILE, data: ext.weights }] });
    try {
      expect(moved.outputNames).toEqual(plain.outputNames);
      const feeds = feedsFor(plain);
      const [a, b] = [await plain.run(feeds), await moved.run(feeds)];
      for (const name of plain.outputNames) {
        expect(b[name]!.dims).toEqual(a[name]!.dims);
        expect(Buffer.from((b[name]!.data as Float32Array).buffer).equals(Buffer.from((a[name]!.data as Float32Array).buffer))).toBe(true);
      }
    } finally {
      await Promise.all([plain.release(), moved.release()]);
    }
  });

  it('moves only inline raw_data of at least the threshold, and points each at its own bytes', () => {
    const bytes = read('fliplab/tiny-bert', 'model.onnx');
    const ext = externalizeWeights(bytes)!;
    const graph = [...fields(ext.graph)].find((f) => f.field === 7)!;
    let moved = 0;
    let inline = 0;
    for (const init of fields(ext.graph, graph.start, graph.end)) {
      if (init.field !== 5) continue;
      const entries = new Map<string, string>();
      let raw = 0;
      for (const x of fields(ext.graph, init.start, init.end)) {
        if (x.field === 9) raw = x.end - x.start;
        if (x.field === 13) {
          const kv = [...fields(ext.graph, x.start, x.end)].map((y) => new TextDecoder().decode(ext.graph.subarray(y.start, y.end)));
          entries.set(kv[0]!, kv[1]!);
        }
      }
      if (entries.size === 0) {
        expect(raw).toBeLessThan(MIN_EXTERNAL_BYTES);
        inline++;
        continue;
      }
      moved++;
      expect(entries.get('location')).toBe(WEIGHTS_FILE);
      const offset = Number(entries.get('offset'));
      const length = Number(entries.get('length'));
      expect(length).toBeGreaterThanOrEqual(MIN_EXTERNAL_BYTES);
      // the bytes just before the offset are raw_data's tag and length in the original file
      expect(bytes[offset - 1 - (length >= 128 ? Math.floor(Math.log2(length) / 7) : 0) - 1]).toBe((9 << 3) | 2);
    }
    expect(moved).toBe(ext.tensors);
    expect(inline).toBeGreaterThan(0);
  });

  it('leaves a model with nothing to move, and rejects bytes that are not a message', () => {
    const tiny = new Writer()
      .message(7, (g) => g.message(5, (t) => t.int(1, 2).int(2, 1).string(8, 'w').bytes(9, new Uint8Array(8))))
      .finish();
    expect(externalizeWeights(tiny)).toBeNull();
    expect(externalizeWeights(tiny, 8)!.tensors).toBe(1);
    // already external: left alone
    const external = new Writer()
      .message(7, (g) =>
        g.message(5, (t) =>
          t
            .string(8, 'w')
            .message(13, (e) => e.string(1, 'location').string(2, 'x'))
            .int(14, 1),
        ),
      )
      .finish();
    expect(externalizeWeights(external, 0)).toBeNull();
    expect(() => externalizeWeights(Uint8Array.of(0x3a, 0x80))).toThrow(/not an ONNX model/);
  });
});
