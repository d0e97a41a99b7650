/**
 * A structural scan of one JSON object line that finds its top-level "_id" value without decoding the line:
 * what lets the passage filter (passages.ts) test a BEIR corpus line's id against the ids it keeps before paying
 * for JSON.parse. Bytes in, byte offsets out; anything it cannot read plainly is left to JSON.parse.
 */
export const FAILED = -1;
export const NO_ID = -2;
export const ID_PLAIN_STRING = 1;
export const ID_OTHER = 2;

const isWs = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/** End (exclusive) of the JSON string starting at buf[i] === '"', and whether it had escapes; -1 if unterminated. */
function stringEnd(buf: Uint8Array, i: number, end: number): number {
  for (let j = i + 1; j < end; j++) {
    const c = buf[j]!;
    if (c === 0x22) return j + 1;
    if (c === 0x5c) j++;
  }
  return -1;
}

/** End (exclusive) of the JSON value starting at buf[i], scanned structurally; -1 if malformed. */
function valueEnd(buf: Uint8Array, i: number, end: number): number {
  const c = buf[i]!;
  if (c === 0x22) return stringEnd(buf, i, end);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < end; j++) {
      const d = buf[j]!;
      if (d === 0x22) {
        j = stringEnd(buf, j, end) - 1;
        if (j < 0) return -1;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  // number, true, false, null
  let j = i;
  while (j < end) {
    const d = buf[j]!;
    if (isWs(d) || d === 0x2c || d === 0x7d) break;
    j++;
  }
  return j > i ? j : -1;
}

/** What `scanTopLevelId` finds: [kind, start, end) of the value, or why there is none. */
export type IdScan = readonly [number, number, number] | typeof FAILED | typeof NO_ID;

/**
 * [kind, start, end) of the top-level "_id" value (a plain string's content without quotes, or any other
 * value's whole text), NO_ID when the object has none, FAILED when the line is not one JSON object.
 */
export function scanTopLevelId(buf: Uint8Array, start: number, end: number): IdScan {
  while (end > start && isWs(buf[end - 1]!)) end--;
  if (buf[start] !== 0x7b || buf[end - 1] !== 0x7d) return FAILED;
  let i = start + 1;
  let found: readonly [number, number, number] | undefined;
  for (;;) {
    while (i < end && isWs(buf[i]!)) i++;
    if (buf[i] === 0x7d) return i === end - 1 ? (found ?? NO_ID) : FAILED;
    if (buf[i] !== 0x22) return FAILED;
    const keyEnd = stringEnd(buf, i, end);
    if (keyEnd < 0) return FAILED;
    const isId = keyEnd - i === 5 && buf[i + 1] === 0x5f && buf[i + 2] === 0x69 && buf[i + 3] === 0x64; // "_id"
    i = keyEnd;
    while (i < end && isWs(buf[i]!)) i++;
    if (buf[i] !== 0x3a) return FAILED;
    i++;
    while (i < end && isWs(buf[i]!)) i++;
    if (i >= end) return FAILED;
    const vEnd = valueEnd(buf, i, end);
    if (vEnd < 0) return FAILED;
    if (isId) {
      let plain = buf[i] === 0x22 && vEnd - i > 2;
      for (let j = i + 1; plain && j < vEnd - 1; j++) if (buf[j] === 0x5c) plain = false;
      found = plain ? [ID_PLAIN_STRING, i + 1, vEnd - 1] : [ID_OTHER, i, vEnd];
    }
    i = vEnd;
    while (i < end && isWs(buf[i]!)) i++;
    if (buf[i] === 0x2c) {
      i++;
      continue;
    }
    if (buf[i] === 0x7d) return i === end - 1 ? (found ?? NO_ID) : FAILED;
    return FAILED;
  }
}
