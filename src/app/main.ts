/**
 * Entry: install the Content-Security-Policy built from the user's hosts before anything can fetch, watch the
 * page's cross-origin isolation (the service worker's headers; one reload when it first takes control), mount
 * the lab, and register the service worker that makes it work offline and isolated on any static host.
 */
import { mount } from 'svelte';
import { registerSW } from 'virtual:pwa-register';
import App from './App.svelte';
import { browserIsolationEnv, watchIsolation } from './isolation.ts';
import { applyContentSecurityPolicy, loadSettings } from './settings.ts';
import { pageIsolation } from './state/isolation.svelte.ts';

applyContentSecurityPolicy(loadSettings());
const isolation = watchIsolation(browserIsolationEnv(), (state) => (pageIsolation.isolation = state));

const target = document.getElementById('app');
if (!target) throw new Error('fliplab: #app element missing from index.html');
mount(App, { target });

if ('serviceWorker' in navigator) registerSW({ immediate: true, onRegisterError: () => isolation.refused() });
