// Vite's `?url` imports (the full `vite/client` types would add ambient globals to the whole project).
declare module '*?url' {
  const url: string;
  export default url;
}
