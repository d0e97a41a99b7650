// Svelte compiler options for Vite, svelte-check and eslint-plugin-svelte. Runes everywhere (Svelte 5).
export default {
  compilerOptions: { runes: true },
};
