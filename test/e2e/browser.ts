/**
 * The one way tests and benches start a browser: Debian's chromium (or CHROMIUM_PATH) through
 * playwright-core, never a downloaded one, with the flags that keep it off the network and, on request,
 * WebGPU enabled (SwiftShader on machines without a GPU). See /work/shared/TOOLCHAIN.md.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export async function launchChromium(opts: { webgpu: boolean }): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No browser at ${CHROMIUM}: apt-get install -y chromium (see .ci/run), or set CHROMIUM_PATH.`);
  return chromium.launch({ executablePath: CHROMIUM, args: opts.webgpu ? [...CHROMIUM_ARGS, '--enable-unsafe-webgpu'] : CHROMIUM_ARGS });
}
