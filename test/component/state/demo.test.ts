/**
 * `fliplab demo` prints the lab's `#demo`: the real `openDemo` (src/app/demo.ts) drives the real `Lab` over the
 * real lab worker API on a MessageChannel (collection load, BM25, RM3, QL, flips, measures, paired tests), and
 * the headline the page would show (App.svelte's inputs to `headlineLines`) is the CLI's, sentence for
 * sentence; so is every section the CLI prints from the analysis, made from the lab's report, measures and tests.
 */
import { join } from 'node:path';
import { expose } from 'comlink';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { openDemo } from '../../../src/app/demo.ts';
import { EncodeBridge } from '../../../src/app/bridge/encode-bridge.ts';
import { DEFAULT_SETTINGS } from '../../../src/app/settings.ts';
import type { Collections } from '../../../src/app/state/collections.svelte.ts';
import { Lab } from '../../../src/app/state/lab.svelte.ts';
import { headlineLines } from '../../../src/app/views/analysis/headline.ts';
import { formatDemo } from '../../../src/cli/commands/demo.ts';
import type { CollectionFile } from '../../../src/lab/data/types.ts';
import { loadBeirFolder } from '../../../src/node/files.ts';
import { createLabApi, type LabApi } from '../../../src/worker/api.ts';
import { cli, demoHeadline } from '../../support/cli.ts';

const CLASSROOM = join(import.meta.dirname, '../../../examples/demo-beir');

/** The lab worker's API in this process (bytes copied into this realm's arrays, as the worker receives them). */
function labApi(): LabApi {
  const api = createLabApi();
  const here = (f: CollectionFile): CollectionFile => ({ path: f.path, bytes: new Uint8Array(f.bytes) });
  return { ...api, openFiles: (files, options) => api.openFiles(files.map(here), options) };
}

const labs: Lab[] = [];
afterEach(() => {
  for (const lab of labs.splice(0)) lab.dispose();
});

function demoLab(): Lab {
  const createLabWorker = (): Worker => {
    const { port1, port2 } = new MessageChannel();
    expose(labApi(), port2);
    return Object.assign(port1, { terminate: () => (port1.close(), port2.close()) }) as unknown as Worker;
  };
  const bridge = new EncodeBridge({
    createWorker: () => {
      throw new Error('the demo needs no encoder');
    },
  });
  const lab = new Lab({ settings: { ...DEFAULT_SETTINGS, device: 'wasm' }, createLabWorker, bridge });
  labs.push(lab);
  return lab;
}

/** A browser that stores no collection: the demo opens the bundled classroom collection. */
const noneStored = { refresh: async () => {}, isStored: () => false } as unknown as Collections;

describe('fliplab demo is the lab’s #demo', () => {
  test('the same headline, tables and flipped queries', async () => {
    const lab = demoLab();
    await openDemo(lab, noneStored);
    await vi.waitFor(() => expect(lab.report?.runs.map((r) => r.name)).toEqual(['bm25', 'bm25-rm3', 'ql']), { timeout: 20_000 });
    await lab.settled();
    await vi.waitFor(() => expect(lab.analysis.significance).not.toBeNull(), { timeout: 20_000 });
    const report = lab.report!;
    expect([lab.view.k, lab.view.depths, report.queries]).toEqual([3, [1, 3, 5, 10, 20], 32]);

    // What the page's headline shows, from App.svelte's inputs.
    const holes = (lab.collection?.nonRelevantJudgments ?? 0) > 0;
    const page = headlineLines(report, lab.view.k, lab.metrics, lab.partialProgress, { holes }).map((l) => l.text);
    expect(page).toHaveLength(2);
    expect(page[0]).toMatch(/^Replacing bm25 by bm25-rm3 at k = 3 fixes [1-9]\d* and breaks [1-9]\d* of 32 queries/);

    const out = await cli('demo');
    expect(out.code).toBe(0);
    expect(demoHeadline(out.stdout)).toEqual(page);

    // Every section after the header, made from the lab's own analysis, is the CLI's text.
    const { queries } = await loadBeirFolder(CLASSROOM);
    const fromLab = formatDemo(
      { runs: [], report, metrics: lab.metrics, significance: lab.analysis.significance!, holes },
      lab.view.k,
      queries,
    );
    expect(out.stdout).toContain(fromLab);
  });
});
