/**
 * Saving an export from the page: the content becomes a Blob behind an object URL that a hidden
 * `<a download>` click hands to the browser; the URL is revoked right after the click has been handled.
 * No server round trip, so nothing leaves the machine.
 */

/** Windows device names that cannot be file names, whatever the extension. */
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/**
 * A file name safe on every common file system: letters and digits of any script, ".", "-" and "_" are
 * kept; every other run of characters (slashes, spaces, quotes, control characters…) becomes one "-"
 * (none next to a dot);
 * leading dots and dashes go (no hidden files, no option-like names); at most 120 characters (keeping
 * the extension); never empty ("download").
 */
export function safeFileName(s: string): string {
  let name = s
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/-*\.-*/g, '.')
    .replace(/^[.-]+/, '')
    .replace(/[.-]+$/, '');
  if (name.length > 120) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : '';
    name = name.slice(0, 120 - ext.length).replace(/[.-]+$/, '') + ext;
  }
  if (RESERVED.test(name)) name = `_${name}`;
  return name === '' ? 'download' : name;
}

/** Start a download of `content` as `filename` (made safe) with the given MIME type. */
export function download(filename: string, content: string | Blob | Uint8Array, mime: string): void {
  const blob =
    content instanceof Blob ? content : new Blob([typeof content === 'string' ? content : new Uint8Array(content)], { type: mime });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = safeFileName(filename);
  a.rel = 'noopener';
  a.hidden = true;
  document.body.append(a);
  try {
    a.click();
  } finally {
    a.remove();
    // The click's navigation reads the URL asynchronously in some browsers; revoke once it has started.
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
}
