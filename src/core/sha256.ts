/**
 * SHA-256 in lowercase hex, for every hash the project writes down: embedding cache keys (text and encoding),
 * vector-pack row files, collection ids, local model fingerprints. Web Crypto (`crypto.subtle`) is a global in
 * browser tabs, workers and Node (≥ 19), so this stays pure. A shorter id is a prefix of this hex.
 */

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const utf8 = new TextEncoder();

/** SHA-256 of a string (as UTF-8) or of exact bytes: 64 lowercase hex digits. */
export async function sha256Hex(data: string | Uint8Array | ArrayBuffer): Promise<string> {
  const bytes = typeof data === 'string' ? utf8.encode(data) : data;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer> | ArrayBuffer));
  let out = '';
  for (const b of digest) out += HEX[b];
  return out;
}
