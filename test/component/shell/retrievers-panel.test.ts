/**
 * RetrieversPanel: each retriever row (status, device and why, cached and partial badges, progress with ETA,
 * Cancel/Remove), picking the reference and the candidates (the view patches the lab receives), and the
 * forms that add an encoder (built by the real `encoderConfig`), a BM25 variant, BM25 (Anserini) and run files.
 */
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, test } from 'vitest';
import RetrieversPanel from '../../../src/app/views/shell/RetrieversPanel.svelte';
import { encoderConfig } from '../../../src/lab/retriever-ids.ts';
import type { RetrieverInfo } from '../../../src/app/types.ts';
import { asLab, FakeLab, summary } from './fakes.svelte.ts';

const text = (el: Element | null): string => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

const BM25: RetrieverInfo = {
  id: 'bm25',
  name: 'bm25',
  kind: 'bm25',
  status: 'ready',
  device: 'cpu',
  progress: { done: 5183, total: 5183, cached: 0, etaMs: 0, unit: 'documents' },
};
const BGE: RetrieverInfo = {
  id: 'bge-small',
  name: 'bge-small',
  kind: 'dense',
  status: 'ready',
  device: 'webgpu',
  dtype: 'fp32',
  cached: true,
  partial: { encodedDocs: 5183, totalDocs: 5183 },
};
const E5: RetrieverInfo = {
  id: 'e5-small-q8',
  name: 'e5-small-q8',
  kind: 'dense',
  status: 'encoding',
  device: 'wasm',
  deviceReason: 'WebGPU: no adapter (navigator.gpu is undefined)',
  dtype: 'q8',
  progress: { done: 1200, total: 5183, cached: 200, etaMs: 30_000, unit: 'documents' },
  partial: { encodedDocs: 1000, totalDocs: 5183 },
};
const SPLADE: RetrieverInfo = { id: 'splade', name: 'splade', kind: 'sparse', status: 'loading', dtype: 'fp32' };
const FAILED: RetrieverInfo = {
  id: 'run.trec',
  name: 'run.trec',
  kind: 'imported',
  status: 'error',
  error: 'run.trec, line 3: expected 6 fields (qid Q0 docid rank score tag), got 4',
};

function setup(retrievers: RetrieverInfo[] = [BM25, BGE, E5, SPLADE, FAILED], candidates: string[] = ['bge-small']) {
  const lab = new FakeLab();
  lab.collection = summary();
  lab.retrievers = retrievers;
  lab.view = { ...lab.view, reference: 'bm25', candidates };
  const r = render(RetrieversPanel, { lab: asLab(lab) });
  return { ...r, lab };
}

const row = (id: string): HTMLElement => screen.getByTestId(`retriever-${id}`);
const cells = (id: string) => within(row(id)).getAllByRole('cell');

describe('RetrieversPanel rows', () => {
  test('asks for a collection first', () => {
    const lab = new FakeLab();
    render(RetrieversPanel, { lab: asLab(lab) });
    expect(screen.getByText('Open a collection first.')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  test('status text, device with the reason, cached and partial badges', () => {
    setup();
    const status = (id: string) => text(cells(id)[2]!.querySelector('[class^="status-"]'));
    expect(['bm25', 'bge-small', 'e5-small-q8', 'splade', 'run.trec'].map(status)).toEqual([
      'ready',
      'ready',
      'encoding',
      'loading model…',
      'failed',
    ]);
    expect(row('e5-small-q8').dataset['status']).toBe('encoding');

    expect(text(cells('bm25')[3]!)).toBe('cpu');
    expect(text(cells('e5-small-q8')[3]!)).toBe('wasm (WebGPU: no adapter (navigator.gpu is undefined))');
    expect(text(cells('splade')[3]!)).toBe('');

    // "cached": a ready run whose vectors all came from the cache; not for the others.
    expect(within(row('bge-small')).getByText('cached')).toBeTruthy();
    expect(within(row('e5-small-q8')).queryByText('cached')).toBeNull();
    // Partial: only while fewer passages are encoded than the corpus has.
    // One number on the row (the progress line); the badge says what the analysis covers in its title.
    const badge = row('e5-small-q8').querySelector('.badge.partial')!;
    expect(text(badge)).toBe('partial');
    expect(badge.getAttribute('title')).toBe('the analysis covers 1,000 of 5,183 passages so far');
    expect(row('bge-small').querySelector('.badge.partial')).toBeNull();

    const err = within(row('run.trec')).getByRole('alert');
    expect(text(err)).toBe(FAILED.error);
  });

  test('progress of a running job: counts, cached, percent and ETA; none once ready', () => {
    setup();
    const bar = within(row('e5-small-q8')).getByRole('progressbar', { name: 'e5-small-q8 progress' }) as HTMLProgressElement;
    expect(bar.value).toBe(1200);
    expect(bar.max).toBe(5183);
    // 1200 / 5183 = 23.2 %; 30 000 ms = 30 s.
    expect(text(row('e5-small-q8').querySelector('.progress-text'))).toBe('1,200 of 5,183 passages (200 cached) · 23% · 30 s left');
    expect(within(row('bm25')).queryByRole('progressbar')).toBeNull();
  });

  test('the ETA follows the job: unknown at first, then minutes', async () => {
    const { lab } = setup();
    lab.retrievers = lab.retrievers.map((r) =>
      r.id === E5.id ? { ...r, progress: { done: 0, total: 5183, cached: 0, etaMs: null, unit: 'documents' } } : r,
    );
    await waitFor(() => expect(text(row('e5-small-q8').querySelector('.progress-text'))).toBe('0 of 5,183 passages · 0% · estimating…'));
    lab.retrievers = lab.retrievers.map((r) =>
      r.id === E5.id ? { ...r, progress: { done: 5183, total: 5183, cached: 0, etaMs: 125_000, unit: 'documents' } } : r,
    );
    await waitFor(() =>
      expect(text(row('e5-small-q8').querySelector('.progress-text'))).toBe('5,183 of 5,183 passages · 100% · 2 min 5 s left'),
    );
  });

  test('Cancel for encoding and loading rows, Remove for the others but BM25', async () => {
    const { lab } = setup();
    await fireEvent.click(within(row('e5-small-q8')).getByRole('button', { name: /^Cancel / }));
    await fireEvent.click(within(row('splade')).getByRole('button', { name: /^Cancel / }));
    expect(lab.cancel.mock.calls).toEqual([['e5-small-q8'], ['splade']]);
    expect(within(row('bm25')).queryByRole('button')).toBeNull();
    expect(within(row('bge-small')).queryByRole('button', { name: /^Cancel / })).toBeNull();
    await fireEvent.click(within(row('bge-small')).getByRole('button', { name: /^Remove / }));
    expect(lab.remove).toHaveBeenCalledWith('bge-small');
    expect(lab.cancel).toHaveBeenCalledTimes(2);
  });
});

describe('RetrieversPanel after a cancel', () => {
  test('a cancelled encoder offers Resume and Remove, and no stale progress or ETA', async () => {
    const cancelled: RetrieverInfo = { ...E5, status: 'cancelled' };
    const { lab } = setup([BM25, cancelled]);
    expect(row('e5-small-q8').querySelector('.progress-text')).toBeNull();
    expect(within(row('e5-small-q8')).queryByRole('progressbar')).toBeNull();
    expect(row('e5-small-q8').querySelector('.badge.partial')).toBeNull();
    await fireEvent.click(within(row('e5-small-q8')).getByRole('button', { name: 'Resume e5-small-q8' }));
    expect(lab.resume).toHaveBeenCalledWith('e5-small-q8');
    expect(within(row('e5-small-q8')).getByRole('button', { name: 'Remove e5-small-q8' })).toBeTruthy();
    // An imported run cannot be resumed: there is nothing to continue.
    expect(within(row('bm25')).queryByRole('button', { name: /^Resume/ })).toBeNull();
  });

  test('the instant candidates need no form: one click each', async () => {
    const { lab } = setup([BM25]);
    await fireEvent.click(screen.getByTestId('add-rm3'));
    expect(lab.addRm3).toHaveBeenCalledTimes(1);
    await fireEvent.submit(screen.getByTestId('add-ql').closest('form')!);
    expect(lab.addQl).toHaveBeenCalledWith(1000);
  });
});

describe('RetrieversPanel reference and candidates', () => {
  test('the reference radio makes that run the reference and drops it from the candidates', async () => {
    const { lab } = setup([BM25, BGE, E5], ['bge-small', 'e5-small-q8']);
    const radio = (name: string) => screen.getByRole('radio', { name: `use ${name} as reference` }) as HTMLInputElement;
    expect(radio('bm25').checked).toBe(true);
    expect(radio('e5-small-q8').disabled).toBe(true); // not ready
    await fireEvent.click(radio('bge-small'));
    expect(lab.setView).toHaveBeenCalledTimes(1);
    expect(lab.setView).toHaveBeenCalledWith({ reference: 'bge-small', candidates: ['e5-small-q8'] });
    await waitFor(() => expect(radio('bge-small').checked).toBe(true));
    // The reference cannot also be a candidate.
    expect((screen.getByRole('checkbox', { name: 'compare bge-small' }) as HTMLInputElement).disabled).toBe(true);
  });

  test('the candidate checkbox adds and removes that run', async () => {
    const { lab } = setup([BM25, BGE, E5, SPLADE], ['bge-small']);
    const box = (name: string) => screen.getByRole('checkbox', { name: `compare ${name}` }) as HTMLInputElement;
    expect(box('bge-small').checked).toBe(true);
    expect(box('e5-small-q8').checked).toBe(false);
    expect(box('e5-small-q8').disabled).toBe(false); // encoding runs can be compared (partial)
    expect(box('splade').disabled).toBe(true); // still loading
    expect(box('bm25').disabled).toBe(true); // the reference

    await fireEvent.click(box('e5-small-q8'));
    expect(lab.setView).toHaveBeenLastCalledWith({ candidates: ['bge-small', 'e5-small-q8'] });
    await waitFor(() => expect(box('e5-small-q8').checked).toBe(true));
    await fireEvent.click(box('bge-small'));
    expect(lab.setView).toHaveBeenLastCalledWith({ candidates: ['e5-small-q8'] });
    expect(lab.setView).toHaveBeenCalledTimes(2);
  });
});

describe('RetrieversPanel forms', () => {
  test('Encode builds the config of the chosen recipe, model, weights and max tokens', async () => {
    const { lab } = setup();
    await fireEvent.change(screen.getByTestId('encoder-preset'), { target: { value: 'e5-small' } });
    await fireEvent.input(screen.getByTestId('encoder-model'), { target: { value: 'my-org/e5-finetuned' } });
    await fireEvent.change(screen.getByTestId('encoder-dtype'), { target: { value: 'q8' } });
    await fireEvent.input(screen.getByTestId('encoder-max-length'), { target: { value: '256' } });
    await fireEvent.click(screen.getByTestId('add-encoder'));
    expect(lab.addEncoder).toHaveBeenCalledTimes(1);
    const want = encoderConfig('e5-small', { model: 'my-org/e5-finetuned', dtype: 'q8', maxLength: 256 });
    expect(lab.addEncoder).toHaveBeenCalledWith(want);
    expect(want.id).toBe('e5-small:my-org/e5-finetuned'); // the custom checkpoint is in the config
    expect(
      screen
        .queryAllByRole('alert')
        .map(text)
        .filter((t) => /max tokens/.test(t)),
    ).toEqual([]);
  });

  test("defaults: the preset's own model and max tokens", async () => {
    const { lab } = setup();
    expect((screen.getByTestId('encoder-max-length') as HTMLInputElement).placeholder).toBe(String(encoderConfig('bge-small').maxLength));
    await fireEvent.click(screen.getByTestId('add-encoder'));
    expect(lab.addEncoder).toHaveBeenCalledWith(encoderConfig('bge-small', { dtype: 'fp32' }));
  });

  test('max tokens = 2 is refused with a message, and nothing is encoded', async () => {
    const { lab } = setup([BM25]);
    await fireEvent.input(screen.getByTestId('encoder-max-length'), { target: { value: '2' } });
    await fireEvent.click(screen.getByTestId('add-encoder'));
    const alert = await screen.findByRole('alert');
    expect(text(alert)).toMatch(/max tokens must be an integer in \[8, 8192\], got 2/);
    expect(lab.addEncoder).not.toHaveBeenCalled();
    // Fixing the value clears the message and encodes.
    await fireEvent.input(screen.getByTestId('encoder-max-length'), { target: { value: '64' } });
    await fireEvent.click(screen.getByTestId('add-encoder'));
    expect(lab.addEncoder).toHaveBeenCalledWith(encoderConfig('bge-small', { dtype: 'fp32', maxLength: 64 }));
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
  });

  test('Rank adds the BM25 variant with the k1 and b given', async () => {
    const { lab } = setup();
    await fireEvent.input(screen.getByRole('spinbutton', { name: 'k1' }), { target: { value: '0.9' } });
    await fireEvent.input(screen.getByRole('spinbutton', { name: 'b' }), { target: { value: '0.4' } });
    await fireEvent.click(screen.getByTestId('add-bm25'));
    expect(lab.addBm25).toHaveBeenCalledTimes(1);
    expect(lab.addBm25).toHaveBeenCalledWith(0.9, 0.4);
  });

  test('BM25 (Anserini) is added with its defaults, or the documents, k1 and b chosen; a b out of range is refused in words', async () => {
    const { lab } = setup([BM25]);
    expect((screen.getByTestId('anserini-k1') as HTMLInputElement).value).toBe('0.9');
    expect((screen.getByTestId('anserini-b') as HTMLInputElement).value).toBe('0.4');
    expect(screen.getByTestId('add-anserini').textContent).toBe('BM25 (Anserini)');
    await fireEvent.click(screen.getByTestId('add-anserini'));
    expect(lab.addAnserini).toHaveBeenLastCalledWith({ fields: 'flat', k1: 0.9, b: 0.4 });
    // Its inputs have names of their own beside the BM25 variant's k1 and b.
    await fireEvent.change(screen.getByRole('combobox', { name: 'Documents' }), { target: { value: 'multifield' } });
    await fireEvent.input(screen.getByRole('spinbutton', { name: 'k1 (Anserini)' }), { target: { value: '1.2' } });
    await fireEvent.input(screen.getByRole('spinbutton', { name: 'b (Anserini)' }), { target: { value: '1.5' } });
    await fireEvent.click(screen.getByTestId('add-anserini'));
    expect(lab.addAnserini).toHaveBeenCalledTimes(1);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe('b must be at most 1.');
    expect(screen.getByTestId('anserini-b').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByTestId('anserini-b').getAttribute('aria-describedby')).toBe(alert.id);
    await fireEvent.input(screen.getByTestId('anserini-b'), { target: { value: '0.75' } });
    await fireEvent.click(screen.getByTestId('add-anserini'));
    expect(lab.addAnserini).toHaveBeenLastCalledWith({ fields: 'multifield', k1: 1.2, b: 0.75 });
    expect(screen.queryByRole('alert')).toBeNull();
    // The paper's BM25 variant is untouched by it.
    expect(lab.addBm25).not.toHaveBeenCalled();
  });

  test('run files are handed over as {path, bytes}, one call each', async () => {
    const { lab } = setup();
    const input = screen.getByTestId('pick-runs') as HTMLInputElement;
    const runs = ['q1 Q0 d1 1 2.5 mine\n', 'q1 Q0 d2 1 1.0 theirs\n'];
    Object.defineProperty(input, 'files', {
      value: [new File([runs[0]!], 'mine.trec'), new File([runs[1]!], 'theirs.run')],
      configurable: true,
    });
    await fireEvent.change(input);
    await waitFor(() => expect(lab.addRunFile).toHaveBeenCalledTimes(2));
    expect(lab.addRunFile.mock.calls.map(([f]) => ({ path: f.path, text: new TextDecoder().decode(f.bytes) }))).toEqual([
      { path: 'mine.trec', text: runs[0] },
      { path: 'theirs.run', text: runs[1] },
    ]);
  });
});

describe('RetrieversPanel says what each encoder is doing', () => {
  const encoder = (over: Partial<RetrieverInfo>): RetrieverInfo => ({
    id: 'bge-small',
    name: 'bge-small',
    kind: 'dense',
    status: 'checking',
    dtype: 'fp32',
    ...over,
  });
  const statusOf = (id: string) => text(cells(id)[2]!.querySelector('[class^="status-"]'));
  const lineOf = (id: string) => text(row(id).querySelector('.progress-text'));

  test('a fresh encoder: checking the cache (none stored), then loading the model with its download, then encoding with rate and ETA', async () => {
    const { lab } = setup([
      BM25,
      encoder({ progress: { done: 0, total: 5183, cached: 0, checked: 1024, etaMs: null, unit: 'documents' } }),
    ]);
    expect(statusOf('bge-small')).toBe("checking this browser's cache");
    expect(lineOf('bge-small')).toBe('1,024 of 5,183 passages looked up · none stored yet');
    expect(text(row('bge-small')).toLowerCase()).not.toMatch(/restor/);
    const bar = within(row('bge-small')).getByRole('progressbar', { name: 'bge-small progress' }) as HTMLProgressElement;
    expect([bar.value, bar.max]).toEqual([1024, 5183]);
    expect(text(cells('bge-small')[3]!)).toBe('');

    lab.retrievers = [
      BM25,
      encoder({
        status: 'loading',
        progress: { done: 0, total: 300, cached: 0, checked: 300, etaMs: null, unit: 'queries' },
        download: {
          files: [{ path: 'onnx/model.onnx', bytes: 133e6, cached: false, loaded: 40e6 }],
          downloadBytes: 133e6,
          cachedBytes: 0,
          loaded: 40e6,
          etaMs: 7_000,
          sizesFrom: 'host',
        },
      }),
    ];
    await waitFor(() => expect(statusOf('bge-small')).toBe('loading model…'));
    expect(lineOf('bge-small')).toBe('300 queries to encode once the model is loaded');
    expect(within(row('bge-small')).getByRole('progressbar', { name: 'bge-small download' })).toBeTruthy();
    expect(within(row('bge-small')).queryByRole('progressbar', { name: 'bge-small progress' })).toBeNull();
    expect(text(screen.getByTestId('download-bge-small'))).toMatch(/^Downloading 133(\.0)? MB/);

    lab.retrievers = [
      BM25,
      encoder({
        status: 'encoding',
        device: 'wasm',
        deviceReason: null,
        progress: { done: 1200, total: 5183, cached: 0, checked: 5183, etaMs: 90_000, perSecond: 44.4, unit: 'documents' },
        partial: { encodedDocs: 1200, totalDocs: 5183 },
      }),
    ];
    await waitFor(() => expect(statusOf('bge-small')).toBe('encoding'));
    expect(lineOf('bge-small')).toBe('1,200 of 5,183 passages · 23% · 44 passages/s · 1 min 30 s left');
    expect(text(cells('bge-small')[3]!)).toBe('wasm');
  });

  test('a fully cached encoder: restoring n of N from this browser, no device named until it is done, then "cache"', async () => {
    const { lab } = setup([
      BM25,
      encoder({ status: 'restoring', progress: { done: 2048, total: 5183, cached: 2048, checked: 2048, etaMs: null, unit: 'documents' } }),
    ]);
    expect(statusOf('bge-small')).toBe("restoring from this browser's cache");
    expect(lineOf('bge-small')).toBe('2,048 of 5,183 passages restored · 2,048 looked up');
    expect(text(cells('bge-small')[3]!)).toBe('');
    lab.retrievers = [
      BM25,
      encoder({
        status: 'ready',
        cached: true,
        device: 'cache',
        deviceReason: "no model loaded: every vector came from this browser's cache",
        progress: { done: 5183, total: 5183, cached: 5183, etaMs: 0, unit: 'documents' },
      }),
    ];
    await waitFor(() => expect(statusOf('bge-small')).toBe('ready'));
    expect(text(cells('bge-small')[3]!)).toBe("cache (no model loaded: every vector came from this browser's cache)");
  });

  test('a resumed encoder, half cached: what was restored and what is left while the model loads, then encoding on its device', async () => {
    const { lab } = setup([
      BM25,
      encoder({ status: 'loading', progress: { done: 2600, total: 5183, cached: 2600, checked: 5183, etaMs: null, unit: 'documents' } }),
    ]);
    expect(statusOf('bge-small')).toBe('loading model…');
    expect(lineOf('bge-small')).toBe('2,600 of 5,183 passages restored · 2,583 to encode once the model is loaded');
    expect(text(cells('bge-small')[3]!)).toBe('');
    lab.retrievers = [
      BM25,
      encoder({
        status: 'encoding',
        device: 'webgpu',
        deviceReason: null,
        adapter: 'nvidia ampere',
        progress: { done: 2600, total: 5183, cached: 2600, checked: 5183, etaMs: null, perSecond: null, unit: 'documents' },
      }),
    ];
    await waitFor(() => expect(statusOf('bge-small')).toBe('encoding'));
    expect(lineOf('bge-small')).toBe('2,600 of 5,183 passages (2,600 cached) · 50% · estimating…');
    expect(text(cells('bge-small')[3]!)).toBe('webgpu on nvidia ampere');
    expect(text(row('bge-small'))).not.toMatch(/no model loaded/);
  });

  test('Cancel while checking the cache too', async () => {
    const { lab } = setup([BM25, encoder({})]);
    await fireEvent.click(within(row('bge-small')).getByRole('button', { name: 'Cancel bge-small' }));
    expect(lab.cancel).toHaveBeenCalledWith('bge-small');
  });
});

describe('RetrieversPanel folds what is done', () => {
  const addBox = () => screen.getByTestId('add-retriever') as HTMLDetailsElement;

  test('"Add a retriever" is open while there is no candidate, folds once one exists, and keeps the user\'s choice', async () => {
    const { lab } = setup([BM25, BGE], []);
    expect(addBox().open).toBe(true);
    lab.view = { ...lab.view, candidates: ['bge-small'] };
    await waitFor(() => expect(addBox().open).toBe(false));
    // The user opens it again: it stays open while candidates come and go.
    await fireEvent.click(addBox().querySelector('summary')!);
    lab.view = { ...lab.view, candidates: [] };
    lab.view = { ...lab.view, candidates: ['bge-small'] };
    await waitFor(() => expect(addBox().open).toBe(true));
  });

  test('a retriever added from the box keeps it open: the user folds it, not the add', async () => {
    const { lab } = setup([BM25], []);
    expect(addBox().open).toBe(true);
    await fireEvent.click(screen.getByTestId('add-rm3'));
    expect(lab.addRm3).toHaveBeenCalled();
    lab.view = { ...lab.view, candidates: ['bm25-rm3'] };
    await tick();
    expect(addBox().open).toBe(true);
    await fireEvent.click(addBox().querySelector('summary')!);
    await waitFor(() => expect(addBox().open).toBe(false));
  });

  test('a new batch of run files clears the refusals of the last one', async () => {
    const { lab } = setup([BM25], []);
    lab.runImportErrors = [{ file: 'old.run', line: 3, message: 'expected 6 columns', summary: '', advice: '', detail: '' } as never];
    await tick();
    expect(screen.getAllByTestId('run-import-error')).toHaveLength(1);
    const input = screen.getByTestId('pick-runs') as HTMLInputElement;
    Object.defineProperty(input, 'files', { value: [new File(['q1 Q0 d1 1 2.5 mine\n'], 'mine.trec')], configurable: true });
    await fireEvent.change(input);
    await waitFor(() => expect(lab.addRunFile).toHaveBeenCalledTimes(1));
    expect(lab.clearRunImportErrors).toHaveBeenCalled();
    expect(screen.queryAllByTestId('run-import-error')).toHaveLength(0);
  });

  test('query likelihood takes any positive μ (1000 by default) and says why it refuses the rest', async () => {
    const { lab } = setup([BM25], []);
    await fireEvent.click(screen.getByTestId('add-ql'));
    expect(lab.addQl).toHaveBeenCalledWith(1000);
    await fireEvent.input(screen.getByTestId('ql-mu'), { target: { value: '0' } });
    await fireEvent.click(screen.getByTestId('add-ql'));
    expect(lab.addQl).toHaveBeenCalledTimes(1);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe('Dirichlet μ must be greater than 0.');
    expect(screen.getByTestId('ql-mu').getAttribute('aria-describedby')).toBe(alert.id);
    await fireEvent.input(screen.getByTestId('ql-mu'), { target: { value: '250.5' } });
    await fireEvent.click(screen.getByTestId('add-ql'));
    expect(lab.addQl).toHaveBeenLastCalledWith(250.5);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  test('a run file that could not be read is said beside the import control, not as a row', () => {
    const lab = new FakeLab();
    lab.collection = summary();
    lab.retrievers = [BM25];
    lab.runImportErrors = [
      { file: 'junk.run', line: 1, message: 'expected an integer rank in column 4, got "??" (binary data, not text)' },
    ];
    render(RetrieversPanel, { lab: asLab(lab) });
    const error = screen.getByTestId('run-import-error');
    expect(text(error)).toBe('junk.run, line 1: expected an integer rank in column 4, got "??" (binary data, not text)');
    expect(error.closest('div')!.querySelector('[data-testid="pick-runs"]')).not.toBeNull();
    expect(within(screen.getByTestId('retrievers')).queryByText(/junk\.run/)).toBeNull();
  });
});
