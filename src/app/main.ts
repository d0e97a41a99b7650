/**
 * Entry: install the Content-Security-Policy built from the user's hosts before anything can fetch, mount
 * the lab, and register the service worker that makes it work offline.
 */
import { mount } from 'svelte';
import { registerSW } from 'virtual:pwa-register';
import App from './App.svelte';
import { applyContentSecurityPolicy, loadSettings } from './settings.ts';

applyContentSecurityPolicy(loadSettings());

const target = document.getElementById('app');
if (!target) throw new Error('fliplab: #app element missing from index.html');
mount(App, { target });

if ('serviceWorker' in navigator) registerSW({ immediate: true });
