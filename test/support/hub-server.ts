/**
 * A tiny local stand-in for the Hugging Face hub (and, optionally, a static file host) for tests, demos and
 * offline mirrors. It serves a models root laid out like transformers.js's local models
 * (`<root>/<org>/<name>/config.json`, `<root>/<org>/<name>/onnx/model.onnx`, ...) under the hub's URL
 * layout, which is transformers.js's default `remotePathTemplate` (`{model}/resolve/{revision}/`):
 *
 *   GET /<org>/<name>/resolve/<revision>/<path>  →  <modelsRoot>/<org>/<name>/<path>
 *   GET /<anything else>                          →  <staticRoot>/<anything else> (index.html for folders)
 *
 * With `datasetsRoot` it also serves hub *datasets* (e.g. a BEIR mirror written by test/support/beir-mirror.ts),
 * every revision again from one folder (`refs%2Fconvert%2Fparquet` is one URL segment, as on the hub):
 *
 *   GET /datasets/<org>/<name>/resolve/<revision>/<path>  →  <datasetsRoot>/datasets/<org>/<name>/<path>
 *   GET /api/datasets/<org>/<name>/tree/<revision>/<dir>  →  JSON [{ type, path, size }] of that folder
 *
 * Every revision maps to the one folder on disk (a local root holds one revision). Node `http` only, no
 * dependencies. Binds to 127.0.0.1 unless told otherwise; every request path is recorded so tests can
 * assert exactly which files a page fetched.
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';

export interface HubServerOptions {
  /** Folder holding `<org>/<name>/...` model folders. Omit to serve static files only. */
  readonly modelsRoot?: string;
  /** Folder served for every path that is not a hub `resolve` path (e.g. a Vite build). */
  readonly staticRoot?: string;
  /** Folder holding `datasets/<org>/<name>/...` dataset folders (hub datasets layout). */
  readonly datasetsRoot?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** Print every request (method, path, status) to stderr. */
  readonly log?: boolean;
  /**
   * Send COOP/COEP so pages are cross-origin isolated (SharedArrayBuffer, hence multi-threaded ORT wasm).
   * Off by default: the tests pin ORT to one thread for reproducible timings.
   */
  readonly crossOriginIsolated?: boolean;
}

export interface HubServer {
  /** Base URL with a trailing slash, e.g. `http://127.0.0.1:41234/`: usable as transformers.js `remoteHost`. */
  readonly url: string;
  /** Path (with query string) of every request received, in arrival order. */
  readonly requests: string[];
  close(): Promise<void>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  // application/wasm is required for WebAssembly.instantiateStreaming / compileStreaming.
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.bin': 'application/octet-stream',
  '.jsonl': 'application/x-ndjson; charset=utf-8',
  '.tsv': 'text/tab-separated-values; charset=utf-8',
  '.parquet': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

const HUB_PATH = /^\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/;
/** Matched on the raw (still URL-encoded) path, so an encoded revision stays one segment. */
const DATASET_PATH = /^\/datasets\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/;
const DATASET_TREE = /^\/api\/datasets\/([^/]+)\/([^/]+)\/tree\/([^/]+)(?:\/(.*))?$/;

/** The dataset folder and the decoded path inside it, or undefined when not a dataset request. */
function datasetTarget(rawPath: string, re: RegExp, root: string): { repo: string; rest: string } | undefined {
  const m = re.exec(rawPath);
  if (!m) return undefined;
  const org = decodePath(m[1]!);
  const name = decodePath(m[2]!);
  const rest = decodePath(m[4] ?? '');
  if (org === undefined || name === undefined || rest === undefined || org.includes('/') || name.includes('/')) return undefined;
  const repo = safeJoin(root, join('datasets', org, name));
  return repo === undefined ? undefined : { repo, rest };
}

/** The hub's tree API for one folder: files and folders directly inside it, paths relative to the repo. */
async function treeListing(repo: string, dir: string): Promise<string | undefined> {
  const folder = safeJoin(repo, dir);
  if (folder === undefined) return undefined;
  try {
    const entries = await readdir(folder, { withFileTypes: true });
    const prefix = dir.replace(/^\/+|\/+$/g, '');
    const out = [];
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) out.push({ type: 'directory', path });
      else if (e.isFile()) out.push({ type: 'file', path, size: (await stat(join(folder, e.name))).size });
    }
    return JSON.stringify(out);
  } catch {
    return undefined;
  }
}

/** `root` joined with decoded URL segments, or undefined when the result would escape `root`. */
function safeJoin(root: string, relative: string): string | undefined {
  const base = resolve(root);
  const full = resolve(base, `.${sep}${relative}`);
  return full === base || full.startsWith(base + sep) ? full : undefined;
}

function decodePath(pathname: string): string | undefined {
  try {
    const decoded = decodeURIComponent(pathname);
    return decoded.includes('\0') ? undefined : decoded;
  } catch {
    return undefined;
  }
}

/** Map a request path to a file on disk (or undefined: 404). */
async function locate(pathname: string, opts: HubServerOptions): Promise<string | undefined> {
  const hub = HUB_PATH.exec(pathname);
  if (hub && opts.modelsRoot !== undefined) {
    const [, org, name, , rest] = hub as unknown as [string, string, string, string, string];
    const file = safeJoin(opts.modelsRoot, join(org, name, rest));
    return file !== undefined && (await isFile(file)) ? file : undefined;
  }
  if (opts.staticRoot === undefined) return undefined;
  const file = safeJoin(opts.staticRoot, pathname);
  if (file === undefined) return undefined;
  if (await isFile(file)) return file;
  const index = join(file, 'index.html');
  return (await isFile(index)) ? index : undefined;
}

async function locateIn(root: string, relative: string): Promise<string | undefined> {
  const file = safeJoin(root, relative);
  return file !== undefined && (await isFile(file)) ? file : undefined;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function commonHeaders(res: ServerResponse, opts: HubServerOptions): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', '*');
  res.setHeader('Access-Control-Expose-Headers', 'Accept-Ranges, Content-Length, Content-Range, Content-Type, ETag');
  res.setHeader('Cache-Control', 'no-cache');
  if (opts.crossOriginIsolated) {
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, opts: HubServerOptions): Promise<number> {
  commonHeaders(res, opts);
  if (req.method === 'OPTIONS') {
    res.writeHead(204).end();
    return 204;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD, OPTIONS' }).end();
    return 405;
  }
  const rawPath = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (opts.datasetsRoot !== undefined) {
    const tree = datasetTarget(rawPath, DATASET_TREE, opts.datasetsRoot);
    const listing = tree === undefined ? undefined : await treeListing(tree.repo, tree.rest);
    if (listing !== undefined) {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(listing) });
      res.end(req.method === 'HEAD' ? undefined : listing);
      return 200;
    }
  }
  const dataset = opts.datasetsRoot === undefined ? undefined : datasetTarget(rawPath, DATASET_PATH, opts.datasetsRoot);
  const pathname = decodePath(rawPath);
  const file =
    dataset !== undefined ? await locateIn(dataset.repo, dataset.rest) : pathname === undefined ? undefined : await locate(pathname, opts);
  if (file === undefined) {
    const body = `Not found: ${req.url ?? ''}\n`;
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
    return 404;
  }
  const { size } = await stat(file);
  const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  res.setHeader('Accept-Ranges', 'bytes');
  // transformers.js probes file sizes with `Range: bytes=0-0` (as the hub answers: 206 + Content-Range).
  const range = parseRange(req.headers.range, size);
  if (range === 'unsatisfiable') {
    res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
    return 416;
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  const length = Math.max(0, end - start + 1);
  res.writeHead(range ? 206 : 200, {
    'Content-Type': type,
    'Content-Length': length,
    ...(range ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {}),
  });
  if (req.method === 'HEAD' || length === 0) {
    res.end();
    return range ? 206 : 200;
  }
  await new Promise<void>((done, fail) => {
    const stream = createReadStream(file, { start, end });
    stream.on('error', fail);
    res.on('close', () => {
      stream.destroy();
      done();
    });
    stream.pipe(res);
  });
  return range ? 206 : 200;
}

/** One `bytes=` range (the only form clients here send); multi-range requests get the whole file. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  return start > end || start >= size ? 'unsatisfiable' : { start, end };
}

/** Start the server; resolves once it listens. */
export async function startHubServer(options: HubServerOptions): Promise<HubServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '/');
    handle(req, res, options).then(
      (status) => {
        if (options.log) console.error(`[hub-server] ${req.method ?? '?'} ${req.url ?? '/'} ${status}`);
      },
      (error: unknown) => {
        if (options.log) console.error(`[hub-server] ${req.method ?? '?'} ${req.url ?? '/'} failed:`, error);
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      },
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', fail);
      done();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/`,
    requests,
    close: () =>
      new Promise<void>((done, fail) => {
        server.close((error) => (error ? fail(error) : done()));
        server.closeAllConnections();
      }),
  };
}
