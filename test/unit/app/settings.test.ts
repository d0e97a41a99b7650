import { describe, expect, it } from 'vitest';
import {
  allowedOrigins,
  checkHost,
  contentSecurityPolicy,
  DEFAULT_SETTINGS,
  loadSettings,
  saveSettings,
} from '../../../src/app/settings.ts';

const memory = () => {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
};

describe('settings', () => {
  it('round-trips through storage and falls back on garbage', () => {
    const s = memory();
    expect(loadSettings(s)).toEqual(DEFAULT_SETTINGS);
    saveSettings({ modelHost: 'http://127.0.0.1:8080', dataHost: 'https://mirror.example.org/hf', device: 'wasm', confirmAboveMB: 50 }, s);
    expect(loadSettings(s)).toEqual({
      modelHost: 'http://127.0.0.1:8080',
      dataHost: 'https://mirror.example.org/hf',
      device: 'wasm',
      confirmAboveMB: 50,
    });
    // Settings saved before the download question existed get its default; a bad threshold too.
    s.setItem('fliplab.settings', '{"modelHost":"http://127.0.0.1:8080","confirmAboveMB":-3}');
    expect(loadSettings(s).confirmAboveMB).toBe(300);
    s.setItem('fliplab.settings', '{"modelHost":"javascript:alert(1)","device":"gpu"}');
    expect(loadSettings(s)).toEqual(DEFAULT_SETTINGS);
    s.setItem('fliplab.settings', 'not json');
    expect(loadSettings(s)).toEqual(DEFAULT_SETTINGS);
  });

  it('checks hosts', () => {
    expect(checkHost(' https://mirror.example.org/hf/ ')).toEqual({ host: 'https://mirror.example.org/hf' });
    expect(checkHost('ftp://x')).toHaveProperty('error');
    expect(checkHost('mirror')).toHaveProperty('error');
    expect(checkHost('https://x.org/?a=1')).toHaveProperty('error');
  });

  it('allows only the chosen hosts (and the hub CDNs only when the hub is chosen)', () => {
    const local = {
      modelHost: 'http://127.0.0.1:8080',
      dataHost: 'http://127.0.0.1:8080/data',
      device: 'auto',
      confirmAboveMB: 300,
    } as const;
    expect(allowedOrigins(local)).toEqual(['http://127.0.0.1:8080']);
    const csp = contentSecurityPolicy(local);
    expect(csp).toMatch(/connect-src 'self' http:\/\/127\.0\.0\.1:8080;/);
    expect(csp).not.toMatch(/huggingface/);
    expect(contentSecurityPolicy(DEFAULT_SETTINGS)).toMatch(
      /connect-src 'self' https:\/\/huggingface\.co https:\/\/\*\.huggingface\.co https:\/\/\*\.hf\.co;/,
    );
    expect(csp).toMatch(/script-src 'self' 'wasm-unsafe-eval'/);
  });
});
