import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

// Cross-origin isolation lets ONNX Runtime use WASM threads. `npm start` serves the build with these headers; on
// any other static host the service worker (workers/sw.ts) adds them to what it serves.
// COEP credentialless (not require-corp): model files from the hub's CDNs need no CORP header.
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'credentialless' };

// Relative base so `dist/` works from any static host and any sub-path.
export default defineConfig({
  base: './',
  plugins: [
    svelte(),
    // Installable PWA: the app shell and the ONNX Runtime wasm are precached, so the lab opens offline;
    // collections and vectors live in IndexedDB, model files in transformers.js's Cache Storage. The worker is
    // our own (workers/sw.ts, still `sw.js`): it adds the isolation headers to what it serves.
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'workers',
      filename: 'sw.ts',
      registerType: 'autoUpdate',
      injectRegister: null,
      manifest: {
        name: 'fliplab — which queries do I lose?',
        short_name: 'fliplab',
        description: 'A retrieval lab in your browser: RAGFlip query-level transitions between retrievers.',
        theme_color: '#1d3557',
        background_color: '#ffffff',
        display: 'standalone',
        start_url: '.',
        icons: [{ src: 'icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
      },
      // Navigations fall back to index.html and old precaches are removed in workers/sw.ts.
      injectManifest: {
        globPatterns: ['**/*.{js,mjs,css,html,wasm,svg,webmanifest}'],
        // The ORT wasm binary is ~25 MB.
        maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
      },
    }),
  ],
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 100_000,
    // The PWA plugin's closeBundle (hashing the 26 MB wasm for the precache) dominates; the timings table
    // says only that, on every build.
    rolldownOptions: { checks: { pluginTimings: false } },
  },
  preview: { headers: isolation },
  server: { headers: isolation },
});
