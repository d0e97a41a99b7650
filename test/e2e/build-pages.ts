/**
 * Builds the e2e test pages (test/e2e/pages) with Vite's JS API, exactly as an app build would treat the
 * bridge and the worker: the worker is bundled as an ES module worker and the ONNX Runtime wasm files are
 * emitted next to it (same origin, no CDN).
 */
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

export const PAGES_ROOT = fileURLToPath(new URL('./pages', import.meta.url));

export async function buildTestPages(outDir: string): Promise<void> {
  await build({
    root: PAGES_ROOT,
    configFile: false,
    base: './',
    logLevel: 'warn',
    worker: { format: 'es' },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      minify: false,
      sourcemap: false,
      reportCompressedSize: false,
      // The 26 MB ORT wasm binaries are expected.
      chunkSizeWarningLimit: 100_000,
      rollupOptions: { input: { encode: fileURLToPath(new URL('./pages/encode.html', import.meta.url)) } },
    },
  });
}
