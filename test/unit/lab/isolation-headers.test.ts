import { describe, expect, it } from 'vitest';
import { withIsolationHeaders } from '../../../src/worker/isolation-headers.ts';

const ORIGIN = 'https://user.github.io';
const as = (type: ResponseType, response: Response) => Object.defineProperty(response, 'type', { value: type });
const page = () => new Response('<!doctype html>', { status: 200, statusText: 'OK', headers: { 'Content-Type': 'text/html' } });

describe('withIsolationHeaders (the service worker’s COOP/COEP)', () => {
  it('adds COOP same-origin and COEP credentialless to a navigation and to same-origin files, keeping the rest', async () => {
    for (const [request, response] of [
      // A navigation (index.html from the precache, whatever the path).
      [new Request(`${ORIGIN}/fliplab/?x#demo`), as('basic', page())],
      [new Request(`${ORIGIN}/fliplab/assets/encode.worker-x.js`), as('basic', page())],
      // A response the service worker made itself (workbox copies redirected ones).
      [new Request(`${ORIGIN}/fliplab/index.html`), page()],
    ] as const) {
      const out = withIsolationHeaders(request, response, ORIGIN);
      expect(out).not.toBe(response);
      expect(out.headers.get('Cross-Origin-Opener-Policy')).toBe('same-origin');
      expect(out.headers.get('Cross-Origin-Embedder-Policy')).toBe('credentialless');
      expect(out.headers.get('Content-Type')).toBe('text/html');
      expect([out.status, out.statusText]).toEqual([200, 'OK']);
      expect(await out.text()).toBe('<!doctype html>');
    }
  });

  it('replaces a header the host sent, and keeps a body-less status body-less', () => {
    const sent = as('basic', new Response('x', { headers: { 'Cross-Origin-Embedder-Policy': 'unsafe-none' } }));
    expect(withIsolationHeaders(new Request(`${ORIGIN}/a.js`), sent, ORIGIN).headers.get('Cross-Origin-Embedder-Policy')).toBe(
      'credentialless',
    );
    const none = withIsolationHeaders(new Request(`${ORIGIN}/a.js`), as('basic', new Response(null, { status: 204 })), ORIGIN);
    expect([none.status, none.body, none.headers.get('Cross-Origin-Opener-Policy')]).toEqual([204, null, 'same-origin']);
  });

  it('leaves opaque, cross-origin and error responses untouched', () => {
    const hub = new Request('https://huggingface.co/BAAI/bge-small-en-v1.5/resolve/main/onnx/model.onnx');
    for (const [request, response] of [
      [hub, as('opaque', new Response(null))],
      [hub, as('cors', new Response('weights'))],
      // A same-origin URL answered cross-origin cannot be (the types say whose it is); a cross-origin URL never is.
      [hub, as('basic', new Response('weights'))],
      [new Request(`${ORIGIN}/a.js`), as('opaqueredirect', new Response(null))],
      [new Request(`${ORIGIN}/a.js`), Response.error()],
    ] as const)
      expect(withIsolationHeaders(request, response, ORIGIN)).toBe(response);
  });
});
