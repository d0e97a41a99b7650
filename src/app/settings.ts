/**
 * User settings (kept in localStorage) and the network policy derived from them: the model host and the
 * data host are the only places the lab may contact besides its own origin. The page gets a
 * Content-Security-Policy `<meta>` built from them before anything else runs; workers enforce the same list
 * with `guardNetwork` (a meta policy does not reach workers). Changing a host reloads the page, since a
 * policy can only be tightened once set.
 */
export type DevicePreference = 'auto' | 'webgpu' | 'wasm';

export interface Settings {
  /** Hub-compatible host for models (`{host}/{repo}/resolve/{revision}/{file}`). */
  readonly modelHost: string;
  /** Hub-compatible host for the BEIR catalog (`{host}/datasets/BeIR/{name}/resolve/main/{file}`). */
  readonly dataHost: string;
  readonly device: DevicePreference;
  /** Ask before downloading a model larger than this many megabytes (10⁶ bytes); 0 asks every time. */
  readonly confirmAboveMB: number;
}

export const HUB = 'https://huggingface.co';
export const DEFAULT_CONFIRM_MB = 300;
export const DEFAULT_SETTINGS: Settings = { modelHost: HUB, dataHost: HUB, device: 'auto', confirmAboveMB: DEFAULT_CONFIRM_MB };
const KEY = 'fliplab.settings';

/** An http(s) URL without trailing slash, or an error message. */
export function checkHost(value: string): { host: string } | { error: string } {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return { error: `expected an http(s) URL such as ${HUB}, got ${JSON.stringify(value)}` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { error: `expected an http(s) URL, got ${url.protocol}` };
  if (url.search || url.hash) return { error: 'expected a base URL without ? or #' };
  return { host: url.href.replace(/\/+$/, '') };
}

export function loadSettings(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): Settings {
  try {
    const raw = storage?.getItem(KEY);
    if (!raw) return DEFAULT_SETTINGS;
    const parsed = JSON.parse(raw) as Partial<Settings>;
    const host = (v: unknown, d: string) => (typeof v === 'string' && 'host' in checkHost(v) ? (checkHost(v) as { host: string }).host : d);
    const device = parsed.device === 'webgpu' || parsed.device === 'wasm' ? parsed.device : 'auto';
    const mb = parsed.confirmAboveMB;
    const confirmAboveMB = typeof mb === 'number' && Number.isFinite(mb) && mb >= 0 ? mb : DEFAULT_CONFIRM_MB;
    return { modelHost: host(parsed.modelHost, HUB), dataHost: host(parsed.dataHost, HUB), device, confirmAboveMB };
  } catch {
    return DEFAULT_SETTINGS;
  }
}

export function saveSettings(settings: Settings, storage: Pick<Storage, 'setItem'> | undefined = globalThis.localStorage): void {
  storage?.setItem(KEY, JSON.stringify(settings));
}

/** Origins the lab may fetch from (besides its own). */
export function allowedOrigins(settings: Settings): string[] {
  return [...new Set([new URL(settings.modelHost).origin, new URL(settings.dataHost).origin])];
}

/** The hub answers file requests with redirects to its CDNs; a policy must allow those too. */
function cdnSources(origin: string): string[] {
  return origin === HUB ? ['https://*.huggingface.co', 'https://*.hf.co'] : [];
}

export function contentSecurityPolicy(settings: Settings): string {
  const connect = ["'self'", ...allowedOrigins(settings).flatMap((o) => [o, ...cdnSources(o)])];
  return [
    "default-src 'self'",
    // ONNX Runtime compiles WebAssembly; nothing else is evaluated.
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self' blob:",
    // Svelte and Observable Plot set style attributes.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    `connect-src ${connect.join(' ')}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'none'",
  ].join('; ');
}

/** Install the policy as the first thing the page does. */
export function applyContentSecurityPolicy(settings: Settings, doc: Document = document): void {
  const meta = doc.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = contentSecurityPolicy(settings);
  doc.head.prepend(meta);
}
