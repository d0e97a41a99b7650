/**
 * SettingsPanel: hosts the lab's checker refuses are reported in place and nothing is saved; valid hosts and
 * the device are saved to localStorage (`fliplab.settings`, read back by `loadSettings`) and `onsaved` runs; the
 * WASM threads line follows the page's isolation.
 */
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, test, vi } from 'vitest';
import SettingsPanel from '../../../src/app/views/shell/SettingsPanel.svelte';
import { DEFAULT_SETTINGS, loadSettings } from '../../../src/app/settings.ts';
import { pageIsolation } from '../../../src/app/state/isolation.svelte.ts';
import { wasmThreads } from '../../../src/lab/wasm-threads.ts';
import { asLab, FakeLab } from './fakes.svelte.ts';

const KEY = 'fliplab.settings';

function setup(settings = DEFAULT_SETTINGS) {
  const lab = new FakeLab();
  lab.settings = settings;
  const onsaved = vi.fn();
  const r = render(SettingsPanel, { lab: asLab(lab), onsaved });
  const field = (id: string) => screen.getByTestId(id) as HTMLInputElement;
  return { ...r, lab, onsaved, modelHost: field('model-host'), dataHost: field('data-host') };
}

afterEach(() => localStorage.clear());

describe('SettingsPanel', () => {
  test('starts from the lab settings', () => {
    const { modelHost, dataHost } = setup({
      modelHost: 'https://hf-mirror.example',
      dataHost: 'http://localhost:8080',
      device: 'wasm',
      confirmAboveMB: 300,
    });
    expect(modelHost.value).toBe('https://hf-mirror.example');
    expect(dataHost.value).toBe('http://localhost:8080');
    expect((screen.getByRole('radio', { name: /WASM only/ }) as HTMLInputElement).checked).toBe(true);
  });

  test('a model host that is not http(s) is refused in place; nothing is saved', async () => {
    const { modelHost, onsaved } = setup();
    await fireEvent.input(modelHost, { target: { value: 'ftp://models.example' } });
    await fireEvent.click(screen.getByTestId('save-settings'));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('Model host: expected an http(s) URL, got ftp:');
    expect(localStorage.getItem(KEY)).toBeNull();
    expect(onsaved).not.toHaveBeenCalled();
  });

  test('a data host with a query string is refused; nothing is saved', async () => {
    const { dataHost, onsaved } = setup();
    await fireEvent.input(dataHost, { target: { value: 'https://data.example/?token=1' } });
    await fireEvent.click(screen.getByTestId('save-settings'));
    expect((await screen.findByRole('alert')).textContent).toBe('Data host: expected a base URL without ? or #');
    expect(localStorage.getItem(KEY)).toBeNull();
    expect(onsaved).not.toHaveBeenCalled();
  });

  test('valid hosts and the device are saved under fliplab.settings, then onsaved runs', async () => {
    const { modelHost, dataHost, onsaved } = setup();
    await fireEvent.input(modelHost, { target: { value: 'ftp://x' } });
    await fireEvent.click(screen.getByTestId('save-settings'));
    await screen.findByRole('alert');

    await fireEvent.input(modelHost, { target: { value: '  https://hf-mirror.example/models/  ' } });
    await fireEvent.input(dataHost, { target: { value: 'http://localhost:8080' } });
    await fireEvent.click(screen.getByRole('radio', { name: /WebGPU, whatever the adapter/ }));
    await fireEvent.input(screen.getByTestId('confirm-above-mb'), { target: { value: '-5' } });
    await fireEvent.click(screen.getByTestId('save-settings'));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toMatch(/Ask before downloading: expected a number of MB ≥ 0/));
    expect(onsaved).not.toHaveBeenCalled();
    await fireEvent.input(screen.getByTestId('confirm-above-mb'), { target: { value: '1000' } });
    await fireEvent.click(screen.getByTestId('save-settings'));
    expect(onsaved).toHaveBeenCalledTimes(1);
    const saved = JSON.parse(localStorage.getItem(KEY) ?? 'null') as unknown;
    // Trimmed, without the trailing slash (how the hosts are joined with paths later).
    expect(saved).toEqual({
      modelHost: 'https://hf-mirror.example/models',
      dataHost: 'http://localhost:8080',
      device: 'webgpu',
      confirmAboveMB: 1000,
    });
    expect(loadSettings(localStorage)).toEqual(saved);
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
  });

  test('says how many WASM threads encoders and readers get, and why, as the page’s isolation changes', async () => {
    setup();
    const line = screen.getByTestId('wasm-threads');
    const expected = (isolation: Parameters<typeof wasmThreads>[1]) => wasmThreads(pageIsolation.cores, isolation);
    for (const isolation of ['pending', 'reload', 'isolated', 'no-service-worker'] as const) {
      pageIsolation.isolation = isolation;
      await waitFor(() => expect(line.textContent?.trim()).toBe(`WASM threads for encoders and readers: ${expected(isolation).reason}.`));
      expect(line.getAttribute('data-threads')).toBe(String(expected(isolation).threads));
    }
  });

  test('Defaults puts the hub and "auto" back in the form (saved only on Save)', async () => {
    const { modelHost, dataHost, onsaved } = setup({
      modelHost: 'https://a.example',
      dataHost: 'https://b.example',
      device: 'wasm',
      confirmAboveMB: 300,
    });
    await fireEvent.click(screen.getByRole('button', { name: 'Defaults' }));
    expect(modelHost.value).toBe(DEFAULT_SETTINGS.modelHost);
    expect(dataHost.value).toBe(DEFAULT_SETTINGS.dataHost);
    expect((screen.getByRole('radio', { name: /^Auto: WebGPU on a real GPU/ }) as HTMLInputElement).checked).toBe(true);
    expect(localStorage.getItem(KEY)).toBeNull();
    await fireEvent.click(screen.getByTestId('save-settings'));
    expect(JSON.parse(localStorage.getItem(KEY)!)).toEqual(DEFAULT_SETTINGS);
    expect(onsaved).toHaveBeenCalledTimes(1);
  });
});
