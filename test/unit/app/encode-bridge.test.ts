/**
 * The page's encode bridge keeps the picked local model folders and registers them again with every fresh
 * worker (a fake worker on a MessageChannel records what each instance was given), and reports a WebGPU job
 * that failed mid-job instead of continuing it on WASM behind the user's back.
 */
import { expose } from 'comlink';
import { describe, expect, it } from 'vitest';
import { EncodeBridge } from '../../../src/app/bridge/encode-bridge.ts';
import type { EncoderConfig, EncoderDtype } from '../../../src/encoders/presets.ts';
import { PRESETS } from '../../../src/encoders/presets.ts';
import { localModelSource, type LocalModelFile } from '../../../src/lab/local-model.ts';

/** A fake encode worker on a MessageChannel: records what each worker instance was registered with. */
function fakeWorkers() {
  const log: { worker: number; call: string; name?: string; paths?: string[]; sizes?: number[] }[] = [];
  let started = 0;
  const create = (): Worker => {
    const id = ++started;
    const { port1, port2 } = new MessageChannel();
    const registered = new Set<string>();
    expose(
      {
        init: () => log.push({ worker: id, call: 'init' }),
        registerLocalModel: (name: string, files: readonly LocalModelFile[]) => {
          registered.add(name);
          log.push({
            worker: id,
            call: 'register',
            name,
            paths: files.map((f) => f.path),
            sizes: files.map((f) => (f.bytes as Blob).size),
          });
        },
        unregisterLocalModel: (name: string) => registered.delete(name),
        load: (c: EncoderConfig) => {
          if (!registered.has(c.model)) throw new Error(`worker ${id}: ${c.model} is not registered`);
          return { device: 'wasm', reason: null, adapterInfo: null, dtype: 'fp32' as EncoderDtype, model: c.model };
        },
      },
      port2,
    );
    return Object.assign(port1, { terminate: () => (port1.close(), port2.close()) }) as unknown as Worker;
  };
  return { log, create, started: () => started };
}

describe('EncodeBridge keeps local folders for every fresh worker', () => {
  const files: LocalModelFile[] = [
    { path: 'config.json', bytes: new Blob(['{}']) },
    { path: 'tokenizer.json', bytes: new TextEncoder().encode('{"t":1}') },
    { path: 'tokenizer_config.json', bytes: new Blob(['{}']) },
    { path: 'onnx/model.onnx', bytes: new Uint8Array([1, 2, 3, 4]).buffer },
  ];
  const load = (bridge: EncodeBridge, model: string) =>
    bridge.load({ ...PRESETS['bge-small'], model }, { device: 'wasm', dtype: 'fp32', source: localModelSource() });

  it('registered before any worker, replayed after terminate; a late registration reaches the running worker', async () => {
    const fake = fakeWorkers();
    const bridge = new EncodeBridge({ createWorker: fake.create, idleMs: 60_000 });
    try {
      await bridge.registerLocalModel('local/a', files);
      expect(fake.started()).toBe(0); // registering alone starts no worker
      expect((await load(bridge, 'local/a')).model).toBe('local/a');
      await bridge.registerLocalModel('local/b', files);
      expect((await load(bridge, 'local/b')).model).toBe('local/b');
      expect(fake.log.filter((e) => e.worker === 1).map((e) => `${e.call} ${e.name ?? ''}`.trim())).toEqual([
        'init',
        'register local/a',
        'register local/b',
      ]);
      // Raw bytes arrive as Blobs of the same size.
      expect(fake.log.find((e) => e.name === 'local/a')!.sizes).toEqual([2, 7, 2, 4]);

      bridge.terminate(); // as an abort or a crash would
      expect((await load(bridge, 'local/b')).model).toBe('local/b');
      expect(fake.started()).toBe(2);
      expect(fake.log.filter((e) => e.worker === 2).map((e) => `${e.call} ${e.name ?? ''}`.trim())).toEqual([
        'init',
        'register local/a',
        'register local/b',
      ]);

      expect(await bridge.unregisterLocalModel('local/a')).toBe(true);
      expect(bridge.localModels).toEqual(['local/b']);
      bridge.terminate();
      await expect(load(bridge, 'local/a')).rejects.toThrow(/local\/a is not registered/);
    } finally {
      bridge.terminate();
    }
  });

  it('an incomplete folder is refused before it can poison every later worker', async () => {
    const fake = fakeWorkers();
    const bridge = new EncodeBridge({ createWorker: fake.create });
    await expect(bridge.registerLocalModel('local/c', files.slice(1))).rejects.toThrow(/missing config\.json/);
    expect(bridge.localModels).toEqual([]);
    bridge.terminate();
  });
});

describe('EncodeBridge never switches devices on its own', () => {
  /** A fake worker whose corpus job reports encoding on `device`, then fails with `error`; counts its jobs. */
  function failingWorkers(device: 'webgpu' | 'wasm', error: () => Error) {
    const jobs: string[] = [];
    const create = (): Worker => {
      const { port1, port2 } = new MessageChannel();
      expose(
        {
          init: () => undefined,
          encodeCorpus: async (request: { load: { device: string } }, onProgress: (p: unknown) => Promise<void>) => {
            jobs.push(request.load.device);
            await onProgress({ phase: 'encoding', done: 4, total: 24, cached: 0, load: { device } });
            throw error();
          },
        },
        port2,
      );
      return Object.assign(port1, { terminate: () => (port1.close(), port2.close()) }) as unknown as Worker;
    };
    return { create, jobs };
  }
  const request = (device: 'webgpu' | 'wasm') => ({
    config: PRESETS['bge-small'],
    load: { device, dtype: 'fp32' as const, source: {} },
    texts: ['a', 'b'],
    role: 'passage' as const,
  });

  it('a WebGPU job that fails mid-job rejects as device-lost, and nothing runs on WASM in its place', async () => {
    const fake = failingWorkers('webgpu', () => new Error('GPUDevice was lost'));
    const bridge = new EncodeBridge({ createWorker: fake.create });
    const e = await bridge.encodeCorpus(request('webgpu'), () => undefined).catch((x: unknown) => x);
    expect(e).toMatchObject({ failure: 'device-lost' });
    expect((e as Error).message).toMatch(/^WebGPU failed mid-job \(GPUDevice was lost\); .*nothing was encoded on another device$/);
    expect(fake.jobs).toEqual(['webgpu']);
    bridge.terminate();
  });

  it('a failure with a reason of its own (a refusal, NaN) or on WASM passes through as it is', async () => {
    const nan = failingWorkers('webgpu', () => Object.assign(new Error('batch 1 gave NaN'), { failure: 'non-finite' }));
    const bridge = new EncodeBridge({ createWorker: nan.create });
    await expect(bridge.encodeCorpus(request('webgpu'))).rejects.toMatchObject({ message: 'batch 1 gave NaN', failure: 'non-finite' });
    bridge.terminate();
    const wasm = failingWorkers('wasm', () => new Error('memory access out of bounds'));
    const other = new EncodeBridge({ createWorker: wasm.create });
    const e = await other.encodeCorpus(request('wasm')).catch((x: unknown) => x);
    expect(e).toMatchObject({ message: 'memory access out of bounds' });
    expect((e as { failure?: unknown }).failure).toBeUndefined();
    expect(wasm.jobs).toEqual(['wasm']);
    other.terminate();
  });
});
