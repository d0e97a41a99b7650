/**
 * CollectionPanel: the BEIR catalog, the open collection's summary and warnings, errors with file and line,
 * download progress with cancel, stored collections with sizes, and picking files — against fakes of the
 * lab and the collections store (the real ones need workers, IndexedDB and the network).
 */
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, test } from 'vitest';
import CollectionPanel from '../../../src/app/views/shell/CollectionPanel.svelte';
import { BEIR_CATALOG } from '../../../src/lab/data/catalog.ts';
import type { CollectionMeta } from '../../../src/lab/data/types.ts';
import { asCollections, asLab, FakeCollections, FakeLab, summary } from './fakes.svelte.ts';

const MiB = 1024 * 1024;

function setup() {
  const lab = new FakeLab();
  const collections = new FakeCollections();
  const r = render(CollectionPanel, { lab: asLab(lab), collections: asCollections(collections) });
  return { ...r, lab, collections };
}

const text = (el: Element | null): string => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

describe('CollectionPanel', () => {
  test('lists every catalog set with its size; clicking one opens it by name', async () => {
    const { collections } = setup();
    collections.stored = [{ id: 'beir:nfcorpus', name: 'NFCorpus', source: 'catalog', files: [], totalBytes: 5 * MiB, addedAt: 0 }];
    const list = screen.getByRole('heading', { name: 'BEIR catalog' }).parentElement!.querySelector('ul')!;
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(BEIR_CATALOG.length);
    BEIR_CATALOG.forEach((entry, i) => {
      const item = items[i]!;
      expect(within(item).getByRole('button').textContent!.trim()).toBe(entry.displayName);
      expect(text(item)).toContain(`${entry.docs.toLocaleString('en-US')} docs · ${entry.queries.toLocaleString('en-US')} queries`);
    });
    await waitFor(() => expect(text(items[1]!)).toMatch(/· stored$/));
    expect(text(items[0]!)).not.toContain('stored');

    await fireEvent.click(screen.getByRole('button', { name: 'SciFact' }));
    expect(collections.openCatalog).toHaveBeenCalledTimes(1);
    expect(collections.openCatalog).toHaveBeenCalledWith('scifact');
    await fireEvent.click(screen.getByRole('button', { name: 'FiQA-2018' }));
    expect(collections.openCatalog).toHaveBeenLastCalledWith('fiqa');
  });

  test('catalog buttons are disabled while the lab is busy', async () => {
    const { lab } = setup();
    lab.busy = 'Reading SciFact…';
    await waitFor(() => expect(screen.getByRole('button', { name: 'SciFact' }).hasAttribute('disabled')).toBe(true));
    expect(screen.getByText('Reading SciFact…').getAttribute('role')).toBe('status');
  });

  test('shows the open collection: passages, queries, judged queries with the split, and the warnings', async () => {
    const { lab } = setup();
    expect(screen.queryByTestId('collection-summary')).toBeNull();
    lab.collection = summary({
      name: 'SciFact',
      docs: 5183,
      queries: 1109,
      evaluated: 300,
      split: 'test',
      diagnostics: [
        { severity: 'warning', file: 'corpus.jsonl', line: 12, message: 'duplicate _id "42": the first one is kept' },
        { severity: 'warning', file: 'README.txt', message: 'ignored: not a collection file' },
      ],
    });
    await waitFor(() => expect(screen.getByTestId('collection-summary')).toBeTruthy());
    expect(text(screen.getByTestId('collection-summary'))).toBe('SciFact: 5,183 passages, 1,109 queries, 300 judged (test)');
    const details = screen.getByText('2 warnings while reading').closest('details')!;
    expect(within(details).getAllByRole('listitem').map(text)).toEqual([
      'corpus.jsonl, line 12: duplicate _id "42": the first one is kept',
      'README.txt: ignored: not a collection file',
    ]);
    expect(screen.queryByTestId('collection-problems')).toBeNull();
  });

  test('files left out are shown unfolded, each with its file and line; warnings stay folded', async () => {
    const { lab } = setup();
    lab.collection = summary({
      name: 'formula',
      diagnostics: [
        { severity: 'error', file: 'nan.run', line: 1, message: 'run left out: expected a finite number as score in column 5, got "inf"' },
        { severity: 'error', file: 'empty.run', message: 'run left out: expected at least one run line, found none' },
        { severity: 'warning', file: 'README.txt', message: 'ignored: not a collection file' },
      ],
    });
    const problems = await screen.findByTestId('collection-problems');
    expect(problems.getAttribute('role')).toBe('alert');
    expect(problems.closest('details')).toBeNull();
    expect(text(problems)).toMatch(/^2 files were left out; the rest opened\./);
    expect(within(problems).getAllByRole('listitem').map(text)).toEqual([
      'nan.run, line 1: run left out: expected a finite number as score in column 5, got "inf"',
      'empty.run: run left out: expected at least one run line, found none',
    ]);
    expect(screen.getByText('1 warning while reading')).toBeTruthy();
  });

  test('a collection without judgments says it is compared by overlap', async () => {
    const { lab } = setup();
    lab.collection = summary({ name: 'notes', docs: 3, queries: 2, evaluated: 2, judged: false, split: null });
    await waitFor(() => expect(screen.getByTestId('collection-summary')).toBeTruthy());
    expect(text(screen.getByTestId('collection-summary'))).toBe(
      'notes: 3 passages, 2 queries, no judgments (retrievers are compared by overlap)',
    );
    expect(screen.queryByText(/warnings? while reading/)).toBeNull();
  });

  test("the lab's error is an alert naming the file and the line", async () => {
    const { lab, collections } = setup();
    expect(screen.queryByRole('alert')).toBeNull();
    lab.collectionError = { message: 'expected 3 tab-separated fields (query-id corpus-id score), got 2', file: 'qrels/test.tsv', line: 7 };
    const alert = await screen.findByRole('alert');
    expect(text(alert)).toContain('qrels/test.tsv, line 7');
    expect(text(alert)).toContain('expected 3 tab-separated fields (query-id corpus-id score), got 2');
    // Without a line, only the file; the collections store's own errors are alerts too.
    lab.collectionError = { message: 'no corpus file found', file: 'scifact.zip' };
    collections.error = 'Could not download SciFact: HTTP 404';
    await waitFor(() => expect(screen.getAllByRole('alert')).toHaveLength(2));
    const [labAlert, storeAlert] = screen.getAllByRole('alert');
    expect(text(labAlert!)).toBe('Could not open the collection. scifact.zip no corpus file found');
    expect(text(storeAlert!)).toBe('Could not download SciFact: HTTP 404');
  });

  test('download progress: bytes, percent of the file, ETA; Cancel cancels', async () => {
    const { collections } = setup();
    collections.download = { name: 'SciFact', progress: null, finishedBytes: 0 };
    const box = await screen.findByTestId('download');
    expect(text(box)).toContain('Downloading SciFact…');
    expect(box.querySelector('progress')).toBeNull();

    // Second file of the set: 1 MiB finished before, 512 KiB of this file's 2 MiB loaded, 65 s left.
    collections.download = {
      name: 'SciFact',
      progress: { url: 'https://hub/x/queries.jsonl.gz', loaded: 512 * 1024, total: 2 * MiB, etaMs: 65_000 },
      finishedBytes: MiB,
    };
    await waitFor(() => expect(box.querySelector('progress')).not.toBeNull());
    const bar = box.querySelector('progress')!;
    expect(bar.value).toBe(512 * 1024);
    expect(bar.max).toBe(2 * MiB);
    expect(text(box)).toContain("512 KiB of this file's 2.0 MiB (25%)");
    expect(text(box)).toContain('1.5 MiB in all');
    expect(text(box)).toContain('1 min 5 s left');

    // No Content-Length: no percent, and the ETA is unknown.
    collections.download = {
      name: 'SciFact',
      progress: { url: 'https://hub/x/corpus.jsonl.gz', loaded: 3 * MiB, total: null, etaMs: null },
      finishedBytes: 0,
    };
    await waitFor(() => expect(text(box)).toContain('3.0 MiB'));
    expect(text(box)).not.toMatch(/%/);
    expect(text(box)).toContain('estimating…');

    await fireEvent.click(within(box).getByRole('button', { name: 'Cancel' }));
    expect(collections.cancelDownload).toHaveBeenCalledTimes(1);
    // Catalog buttons wait for the download.
    expect(screen.getByRole('button', { name: 'NFCorpus' }).hasAttribute('disabled')).toBe(true);
  });

  test('stored collections: a table with sizes and last use, most recent first; Open and Delete act on that id', async () => {
    const { collections } = setup();
    expect(screen.queryByRole('table')).toBeNull();
    const stored: CollectionMeta[] = [
      { id: 'beir:scifact', name: 'SciFact', source: 'catalog', files: [], totalBytes: 3 * MiB + MiB / 2, addedAt: 1, lastUsed: 5000 },
      {
        id: 'files:notes-1a2b3c',
        name: 'notes',
        source: 'files',
        files: [{ path: 'notes/a.txt', bytes: 900 }],
        totalBytes: 900,
        addedAt: 2,
      },
    ];
    collections.stored = stored;
    const table = await screen.findByRole('table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getByRole('rowheader').textContent)).toEqual(['SciFact', 'notes']);
    expect(rows.map((row) => within(row).getAllByRole('cell').slice(0, 2).map(text))).toEqual([
      ['catalog', '3.5 MiB'],
      ['your files', '900 B'],
    ]);
    // last use: a date for SciFact; notes was stored before uses were kept, so it says when it was stored
    const used = rows.map((row) => text(within(row).getAllByRole('cell')[2]!));
    expect(used[0]).toBe(new Date(5000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }));
    expect(used[1]).toMatch(/^stored /);
    await fireEvent.click(within(rows[1]!).getByRole('button', { name: /^Delete / }));
    expect(collections.remove).toHaveBeenCalledWith('files:notes-1a2b3c');
    await fireEvent.click(within(rows[0]!).getByRole('button', { name: /^Open / }));
    expect(collections.openStored).toHaveBeenCalledWith('beir:scifact');
    expect(collections.remove).toHaveBeenCalledTimes(1);
  });

  test('picking files hands {path, bytes} of each File to openUpload', async () => {
    const { collections } = setup();
    const corpus = '{"_id":"d1","title":"T","text":"x"}\n';
    const queries = '{"_id":"q1","text":"é?"}\n';
    const input = screen.getByTestId('pick-files') as HTMLInputElement;
    const files = [new File([corpus], 'corpus.jsonl'), new File([queries], 'queries.jsonl')];
    Object.defineProperty(input, 'files', { value: files, configurable: true });
    await fireEvent.change(input);
    await waitFor(() => expect(collections.openUpload).toHaveBeenCalledTimes(1));
    const given = collections.openUpload.mock.calls[0]![0];
    expect(given.map((f) => f.path)).toEqual(['corpus.jsonl', 'queries.jsonl']);
    expect(given.map((f) => new TextDecoder().decode(f.bytes))).toEqual([corpus, queries]);
    // Bytes, not decoded text: "é" is two UTF-8 bytes (arrays compared as plain numbers across realms).
    expect(Array.from(given[1]!.bytes)).toEqual(Array.from(new TextEncoder().encode(queries)));
    expect(given[1]!.bytes).toBeInstanceOf(Uint8Array);
  });

  test('picking a folder keeps the paths relative to it', async () => {
    const { collections } = setup();
    const input = screen.getByTestId('pick-folder') as HTMLInputElement;
    const file = new File(['q1\t0\td1\t1\n'], 'test.tsv');
    Object.defineProperty(file, 'webkitRelativePath', { value: 'scifact/qrels/test.tsv' });
    Object.defineProperty(input, 'files', { value: [file], configurable: true });
    await fireEvent.change(input);
    await waitFor(() => expect(collections.openUpload).toHaveBeenCalledTimes(1));
    const given = collections.openUpload.mock.calls[0]![0];
    expect(given.map((f) => ({ path: f.path, bytes: Array.from(f.bytes) }))).toEqual([
      { path: 'scifact/qrels/test.tsv', bytes: Array.from(new TextEncoder().encode('q1\t0\td1\t1\n')) },
    ]);
  });
});
