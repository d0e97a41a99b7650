/**
 * Static hosting and privacy, end to end (lab-session.ts: the production build, the local hub server, Debian
 * chromium): the same build works from a sub-path of any static host (relative base: assets, workers, service
 * worker scope); a session of its own (the app, a dataset from the catalog, a model and an encoding) sends every
 * request to the local server only; the Content-Security-Policy allows only the chosen hosts and blocks the rest.
 *
 * Every request of every test to the default hosts stays on the local server (checked after each test, here and
 * in every lab e2e file: the privacy test's claim, per test).
 */
import { basename, dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startHubServer, type HubServer } from '../support/hub-server.ts';
import { builtApp } from './harness.ts';
import { type Lab, useLabSession, loadSciFact, MODEL, row } from './lab-session.ts';

let lab: Lab;
let work: string;
let server: HubServer;
let browser: Browser;

useLabSession('hosting-privacy', (l) => {
  lab = l;
  ({ work, server, browser } = l);
});

describe('static hosting', () => {
  it('works from a sub-path of any static host (relative base: assets, workers, service worker scope)', async () => {
    // The same build, served one folder down: http://host/app/ instead of http://host/.
    const sub = await startHubServer({ staticRoot: dirname(builtApp()), datasetsRoot: join(work, 'mirror') });
    const c = await browser.newContext();
    try {
      const host = sub.url.replace(/\/$/, '');
      await c.addInitScript(
        (h) => localStorage.setItem('fliplab.settings', JSON.stringify({ modelHost: h, dataHost: h, device: 'wasm' })),
        host,
      );
      const p = await c.newPage();
      await p.goto(`${sub.url}${basename(builtApp())}/`);
      await p.getByTestId('catalog-scifact').click();
      await expect.poll(() => row(p, 'bm25').getAttribute('data-status'), { timeout: 90_000 }).toBe('ready');
      const scope = await p.evaluate(async () => (await navigator.serviceWorker.ready).scope);
      expect(scope).toBe(`${sub.url}${basename(builtApp())}/`);
      expect(sub.requests.filter((r) => r.startsWith('/assets/') || r === '/sw.js')).toEqual([]);
    } finally {
      await c.close();
      await sub.close();
    }
  }, 120_000);
});

describe('privacy', () => {
  it('sent every request to the local server only', async () => {
    // A session of its own (every other test's requests are checked after it, by afterEach): the app and its
    // service worker, SciFact from the catalog, then a link that opens the demo with an encoder (a model's files).
    const { context: c, page } = await lab.openLab(browser);
    try {
      await loadSciFact(page);
      const encoder = `bge-small:${MODEL}-max16`;
      const demo = await c.newPage();
      await demo.goto(`${server.url}#c=${encodeURIComponent('example:demo')}&ref=bm25&cand=${encodeURIComponent(encoder)}`);
      await expect.poll(() => row(demo, encoder).getAttribute('data-status'), { timeout: 120_000 }).toBe('ready');
    } finally {
      await c.close();
    }
    expect(lab.requested.length).toBeGreaterThan(10);
    expect(lab.requested.filter((u) => u.includes('/datasets/')).length).toBeGreaterThan(0);
    expect(lab.requested.filter((u) => u.includes(`/${MODEL}/resolve/`)).length).toBeGreaterThan(0);
    expect(lab.foreignRequests()).toEqual([]);
  }, 240_000);

  it('installs a Content-Security-Policy that allows only the chosen hosts, and it blocks the rest', async () => {
    const { context: c, page } = await lab.openLab(browser);
    try {
      const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
      const origin = new URL(server.url).origin;
      expect(csp).toContain(`connect-src 'self' ${origin};`);
      expect(csp).not.toMatch(/huggingface/);
      const blocked = await page.evaluate(async () => {
        const violation = new Promise<string>((resolve) =>
          document.addEventListener('securitypolicyviolation', (e) => resolve(`${e.effectiveDirective} ${e.blockedURI}`), { once: true }),
        );
        await fetch('http://192.0.2.1/not-allowed').catch(() => undefined);
        return violation;
      });
      expect(blocked).toBe('connect-src http://192.0.2.1/not-allowed');
    } finally {
      await c.close();
    }
  });
});
