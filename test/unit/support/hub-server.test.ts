/**
 * The tests' stand-in for the hub (test/support/hub-server.ts), which the product's downloads are tested
 * against, over plain fetch: the hub URL layout, the byte-range probe transformers.js sends, 404s, path
 * traversal, CORS, static files and the request log.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubServer, type HubServer } from '../../support/hub-server.ts';

const ONNX_BYTES = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

let dir: string;
let server: HubServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fliplab-hub-'));
  await mkdir(join(dir, 'models/org/model/onnx'), { recursive: true });
  await writeFile(join(dir, 'models/org/model/config.json'), '{"model_type":"bert"}');
  await writeFile(join(dir, 'models/org/model/onnx/model.onnx'), ONNX_BYTES);
  await mkdir(join(dir, 'site/sub'), { recursive: true });
  await writeFile(join(dir, 'site/index.html'), '<p>home</p>');
  await writeFile(join(dir, 'site/sub/app.wasm'), Buffer.from([0, 97, 115, 109]));
  await writeFile(join(dir, 'secret.txt'), 'outside both roots');
  server = await startHubServer({ modelsRoot: join(dir, 'models'), staticRoot: join(dir, 'site') });
});

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const get = (path: string, init?: RequestInit) => fetch(new URL(path, server.url), init);

describe('hub server', () => {
  it('maps /{org}/{name}/resolve/{revision}/{path} to <root>/{org}/{name}/{path}', async () => {
    const res = await get('/org/model/resolve/main/config.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-length')).toBe('21');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual({ model_type: 'bert' });

    const onnx = await get('/org/model/resolve/v1.0/onnx/model.onnx');
    expect(onnx.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await onnx.arrayBuffer()).equals(ONNX_BYTES)).toBe(true);
  });

  it('answers the `Range: bytes=0-0` size probe like the hub (206 + Content-Range)', async () => {
    const res = await get('/org/model/resolve/main/onnx/model.onnx', { headers: { Range: 'bytes=0-0' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('bytes 0-0/1000');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array([0]));
    const tail = await get('/org/model/resolve/main/onnx/model.onnx', { headers: { Range: 'bytes=-2' } });
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(new Uint8Array([998 % 251, 999 % 251]));
    expect((await get('/org/model/resolve/main/onnx/model.onnx', { headers: { Range: 'bytes=5000-' } })).status).toBe(416);
  });

  it('404s for missing files and models, and never leaves its roots', async () => {
    expect((await get('/org/model/resolve/main/tokenizer.json')).status).toBe(404);
    expect((await get('/org/other/resolve/main/config.json')).status).toBe(404);
    // Encoded slashes survive the client's URL normalization (a literal `..` would not) and are decoded
    // by the server into `../`.
    expect((await get('/org/model/resolve/main/..%2F..%2F..%2Fsecret.txt')).status).toBe(404);
    expect((await get('/..%2Fsecret.txt')).status).toBe(404);
    expect((await get('/sub%2F..%2F..%2Fsecret.txt')).status).toBe(404);
  });

  it('serves the static root (index.html for folders, application/wasm for .wasm)', async () => {
    expect(await (await get('/')).text()).toBe('<p>home</p>');
    const wasm = await get('/sub/app.wasm');
    expect(wasm.headers.get('content-type')).toBe('application/wasm');
    expect((await get('/sub/missing.js')).status).toBe(404);
  });

  it('answers CORS preflights and logs every request path in order', async () => {
    const before = server.requests.length;
    expect((await get('/org/model/resolve/main/config.json', { method: 'OPTIONS' })).status).toBe(204);
    await get('/org/model/resolve/main/config.json', { method: 'HEAD' });
    expect(server.requests.slice(before)).toEqual(['/org/model/resolve/main/config.json', '/org/model/resolve/main/config.json']);
  });
});
