/**
 * Service worker (built by vite-plugin-pwa's injectManifest into `sw.js`): the app shell, the workers and ONNX
 * Runtime's ~25 MB wasm precached, every navigation answered with index.html (offline too), old precaches
 * removed, a new version in control at once (autoUpdate); and COOP/COEP on what it serves, so the page is
 * cross-origin isolated on any static host (src/worker/isolation-headers.ts; the page reloads once for it).
 */
import { clientsClaim } from 'workbox-core';
import { addPlugins, cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute, type PrecacheEntry } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { withIsolationHeaders } from '../src/worker/isolation-headers.ts';

declare const self: { readonly __WB_MANIFEST: (string | PrecacheEntry)[]; readonly location: Location; skipWaiting(): Promise<void> };

void self.skipWaiting();
clientsClaim();
addPlugins([{ handlerWillRespond: async ({ request, response }) => withIsolationHeaders(request, response, self.location.origin) }]);
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
registerRoute(new NavigationRoute(createHandlerBoundToURL('index.html')));
