/**
 * The one zip reader: a `.zip` picked as a collection and a zipped vector pack both go through it. It reads the
 * central directory itself (ZIP64 included) so that the bomb rule (lines.ts `inflationRefused`) sees the sizes
 * the archive really declares, before anything is inflated or allocated:
 * - a member whose classic size fields hold 0xFFFFFFFF takes its sizes from its ZIP64 extra field, whether or
 *   not the archive has a ZIP64 end record (a bomb can leave that out, and a reader that then believes
 *   4 GiB − 1 on both sides sees a harmless 1:1 ratio);
 * - a compressed size larger than the bytes the archive holds for the member counts only those bytes;
 * - the members' declared sizes are summed and the sum is held to the same rule against the whole archive,
 *   which stops members that share one compressed stream (overlapping-entry bombs);
 * - a member that inflates past the size its directory declares, or short of it, is refused as corrupt,
 *   never silently truncated.
 * Inflating is the caller's (core imports no package): `inflate(compressed, out)` writes raw deflate output
 * into `out` and returns the part it wrote (fflate's `inflateSync(data, { out })` does exactly that).
 */
import { InputError } from './errors.ts';
import { inflationRefused } from './lines.ts';

/** Raw deflate into `out`, stopping when it is full; returns the written part of `out`. */
export type RawInflate = (compressed: Uint8Array, out: Uint8Array) => Uint8Array;

export interface ZipMember {
  /** The member's path inside the archive (folders end in "/"). */
  readonly name: string;
  /** 0 stored, 8 deflated. */
  readonly method: number;
  /** Bytes of compressed data the archive holds for it (declared, bounded by the archive). */
  readonly compressedSize: number;
  /** Bytes it declares it inflates to. */
  readonly size: number;
  /** Where its compressed data starts in the archive. */
  readonly dataStart: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX32 = 0xffffffff;
const MAX16 = 0xffff;

const u16 = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8);
const u32 = (b: Uint8Array, at: number): number => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
/** A 64-bit little-endian size as a number (exact up to 2^53, which no real size passes). */
const u64 = (b: Uint8Array, at: number): number => u32(b, at) + u32(b, at + 4) * 0x1_0000_0000;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

/** A member's name: UTF-8 when flagged (bit 11) or when it decodes as UTF-8, else the old single-byte code page. */
function memberName(bytes: Uint8Array, flagged: boolean): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return flagged ? new TextDecoder('utf-8').decode(bytes) : latin1.decode(bytes);
  }
}

/** Where the end-of-central-directory record starts (it can be followed by a comment of up to 64 KiB). */
function findEnd(bytes: Uint8Array, archive: string): number {
  for (let at = bytes.length - 22; at >= 0 && bytes.length - at <= 22 + MAX16; at--) {
    if (u32(bytes, at) === EOCD) return at;
  }
  throw new InputError(archive, undefined, 'expected a zip file, found no end-of-central-directory record (not a zip, or truncated)');
}

interface Directory {
  readonly count: number;
  readonly offset: number;
  /** Where the central directory ends (the ZIP64 end record or the classic one follows it). */
  readonly end: number;
}

function directory(bytes: Uint8Array, archive: string): Directory {
  const eocd = findEnd(bytes, archive);
  let count = u16(bytes, eocd + 10);
  let offset = u32(bytes, eocd + 16);
  let end = eocd;
  const locator = eocd - 20;
  if (locator >= 0 && u32(bytes, locator) === ZIP64_LOCATOR) {
    const record = u64(bytes, locator + 8);
    if (record + 56 <= locator && u32(bytes, record) === ZIP64_EOCD) {
      count = u64(bytes, record + 32);
      offset = u64(bytes, record + 48);
      end = record;
    }
  }
  if (offset > end) throw corrupt(archive, `its central directory starts at byte ${offset}, past the archive's end`);
  return { count, offset, end };
}

const corrupt = (file: string, why: string): InputError => new InputError(file, undefined, `could not read the .zip archive: ${why}`);

/**
 * The archive's members as its central directory declares them, each held to the bomb rule, and the
 * declared total held to it against the whole archive. Refuses encrypted members and methods other than
 * stored and deflate.
 */
export function zipMembers(bytes: Uint8Array, archive: string): ZipMember[] {
  const dir = directory(bytes, archive);
  const members: ZipMember[] = [];
  let total = 0;
  let at = dir.offset;
  for (let i = 0; i < dir.count; i++) {
    if (at + 46 > dir.end || u32(bytes, at) !== CENTRAL) {
      throw corrupt(archive, `central directory entry ${i + 1} of ${dir.count} is missing or damaged`);
    }
    const flags = u16(bytes, at + 8);
    const method = u16(bytes, at + 10);
    let compressed = u32(bytes, at + 20);
    let size = u32(bytes, at + 24);
    const nameLength = u16(bytes, at + 28);
    const extraLength = u16(bytes, at + 30);
    const commentLength = u16(bytes, at + 32);
    let local = u32(bytes, at + 42);
    const nameStart = at + 46;
    const name = memberName(bytes.subarray(nameStart, nameStart + nameLength), (flags & 0x800) !== 0);
    const path = `${archive}/${name}`;
    // ZIP64 extra field (id 1): the 8-byte values, in this order, of just the classic fields that hold 0xFFFFFFFF.
    if (size === MAX32 || compressed === MAX32 || local === MAX32) {
      const extraEnd = nameStart + nameLength + extraLength;
      for (let x = nameStart + nameLength; x + 4 <= extraEnd; x += 4 + u16(bytes, x + 2)) {
        if (u16(bytes, x) !== 1) continue;
        let v = x + 4;
        const next = (): number => {
          const value = v + 8 <= extraEnd ? u64(bytes, v) : MAX32;
          v += 8;
          return value;
        };
        if (size === MAX32) size = next();
        if (compressed === MAX32) compressed = next();
        if (local === MAX32) local = next();
        break;
      }
    }
    at = nameStart + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    if (local + 30 > dir.offset || u32(bytes, local) !== LOCAL) throw corrupt(path, 'its local header is missing or damaged');
    const dataStart = local + 30 + u16(bytes, local + 26) + u16(bytes, local + 28);
    // What the archive really holds for the member: never more than the bytes up to the central directory.
    const held = Math.max(0, Math.min(compressed, dir.offset - dataStart));
    const bomb = inflationRefused(path, held, size);
    if (bomb) throw bomb;
    if (compressed > held) throw corrupt(path, `it declares ${compressed} compressed bytes, the archive holds ${held}`);
    if (flags & 1) throw new InputError(path, undefined, 'expected an unencrypted zip member: this one is encrypted');
    if (method !== 0 && method !== 8) {
      throw new InputError(path, undefined, `expected a stored or deflated zip member, found compression method ${method}`);
    }
    if (method === 0 && size !== compressed) throw corrupt(path, `a stored member of ${compressed} bytes declares ${size}`);
    total += size;
    members.push({ name, method, compressedSize: held, size, dataStart });
  }
  const bomb = inflationRefused(archive, bytes.length, total);
  if (bomb) throw bomb;
  return members;
}

/** One member's bytes: stored ones as a view of the archive, deflated ones inflated to exactly their declared size. */
export function zipMemberBytes(bytes: Uint8Array, member: ZipMember, archive: string, inflate: RawInflate): Uint8Array {
  const data = bytes.subarray(member.dataStart, member.dataStart + member.compressedSize);
  if (member.method === 0) return data;
  // One byte more than declared, so a member that inflates past its size is seen, not cut short.
  const out = inflate(data, new Uint8Array(member.size + 1));
  if (out.length !== member.size) {
    const path = `${archive}/${member.name}`;
    throw corrupt(
      path,
      out.length > member.size
        ? `it inflates past the ${member.size} bytes its directory declares (damaged or hostile)`
        : `it inflates to ${out.length} bytes, its directory declares ${member.size} (damaged or truncated)`,
    );
  }
  return out;
}

/** Every file of the archive (folders left out), by its path inside it. */
export function unzipChecked(bytes: Uint8Array, archive: string, inflate: RawInflate): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const member of zipMembers(bytes, archive)) files.set(member.name, zipMemberBytes(bytes, member, archive, inflate));
  return files;
}
