/**
 * What the e2e files of model judgments share (model-judge, make-queries): a fresh visitor whose settings name the
 * local hub server as model and data host, on WASM; a judging job run through the panel as a user runs it; and the
 * verdicts the lab stored in IndexedDB.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { E2e } from './harness.ts';

/** A new visitor (past the one isolation reload) whose settings name the local server as the hub. */
export async function hubVisitor(e2e: E2e): Promise<BrowserContext> {
  const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await context.addInitScript(
    (h) => {
      sessionStorage.setItem('fliplab.isolation-reloaded', '1');
      if (!localStorage.getItem('fliplab.settings'))
        localStorage.setItem('fliplab.settings', JSON.stringify({ modelHost: h, dataHost: h, device: 'wasm' }));
    },
    e2e.server.url.replace(/\/$/, ''),
  );
  return context;
}

/** Judge the holes with `judgeId` (thresholds typed when given), waiting for the job to end without an error. */
export async function judgeWith(p: Page, judgeId: string, budget: number, audit: number, thresholds?: string): Promise<void> {
  await p.getByTestId('judge-choice').selectOption(judgeId);
  if (thresholds !== undefined) await p.getByTestId('judge-thresholds').fill(thresholds);
  await p.getByTestId('judge-budget').fill(String(budget));
  await p.getByTestId('judge-audit').fill(String(audit));
  await p.getByTestId('judge-start').click();
  await expect.poll(() => p.getByTestId('judge-start').count(), { timeout: 120_000 }).toBe(1);
  expect(await p.getByTestId('judge-error').count()).toBe(0);
}

/** The verdicts the lab stored in IndexedDB. */
export const storedVerdicts = (p: Page) =>
  p.evaluate(
    () =>
      new Promise<{ key: string; qid: string; docid: string; judge: string; score: number; probabilities?: number[] }[]>(
        (resolve, reject) => {
          const open = indexedDB.open('fliplab-verdicts');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const req = open.result.transaction('verdicts').objectStore('verdicts').getAll();
            req.onsuccess = () => resolve(req.result);
            req.onerror = () => reject(req.error);
          };
        },
      ),
  );
