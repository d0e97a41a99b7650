/** Decompression bombs for the tests: built as a real attacker would, with Node's own gzip. */
import { createWriteStream, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';

/** A gzip file of `mib` MiB of zeros (1 GiB compresses to about 1 MB), with no line break. */
export async function gzipBomb(path: string, mib: number): Promise<void> {
  const zeros = Buffer.alloc(1 << 20);
  await pipeline(
    Readable.from(
      (function* () {
        for (let i = 0; i < mib; i++) yield zeros;
      })(),
    ),
    createGzip({ level: 9 }),
    createWriteStream(path),
  );
}

/** How a bomb's zip declares its member's sizes. */
export type ZipSizes =
  /** in the classic 32-bit fields */
  | 'classic'
  /** 0xFFFFFFFF in the classic fields, the sizes in each header's ZIP64 extra field, and no ZIP64 end record */
  | 'zip64-extra'
  /** as 'zip64-extra', with the ZIP64 end record and its locator, as a ZIP64 writer makes them */
  | 'zip64';

/**
 * A zip holding one member, `name`, of `mib` MiB of zeros deflated: the deflate stream and its CRC-32 are
 * taken from Node's gzip (a gzip file is a 10-byte header, raw deflate, CRC-32 and size), and the zip's
 * headers written around them, its sizes declared as `sizes` says.
 */
export async function zipBomb(path: string, name: string, mib: number, sizes: ZipSizes = 'classic'): Promise<void> {
  const gz = `${path}.gz`;
  await gzipBomb(gz, mib);
  const g = readFileSync(gz);
  const deflated = g.subarray(10, g.length - 8);
  const crc = g.readUInt32LE(g.length - 8);
  const size = mib * (1 << 20);
  const zip64 = sizes !== 'classic';
  const file = Buffer.from(name);
  // ZIP64 extra field: id 1, 16 bytes: the original size, then the compressed size.
  const extra = Buffer.alloc(zip64 ? 20 : 0);
  if (zip64) {
    extra.writeUInt16LE(1, 0);
    extra.writeUInt16LE(16, 2);
    extra.writeBigUInt64LE(BigInt(size), 4);
    extra.writeBigUInt64LE(BigInt(deflated.length), 12);
  }
  const declared = (n: number) => (zip64 ? 0xffffffff : n >>> 0);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(zip64 ? 45 : 20, 4);
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(declared(deflated.length), 18);
  local.writeUInt32LE(declared(size), 22);
  local.writeUInt16LE(file.length, 26);
  local.writeUInt16LE(extra.length, 28);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(zip64 ? 45 : 20, 4);
  central.writeUInt16LE(zip64 ? 45 : 20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(declared(deflated.length), 20);
  central.writeUInt32LE(declared(size), 24);
  central.writeUInt16LE(file.length, 28);
  central.writeUInt16LE(extra.length, 30);
  const cdOffset = local.length + file.length + extra.length + deflated.length;
  const cdSize = central.length + file.length + extra.length;
  const tail: Buffer[] = [];
  if (sizes === 'zip64') {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(1n, 24);
    record.writeBigUInt64LE(1n, 32);
    record.writeBigUInt64LE(BigInt(cdSize), 40);
    record.writeBigUInt64LE(BigInt(cdOffset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(cdOffset + cdSize), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(cdSize, 12);
  end.writeUInt32LE(cdOffset, 16);
  await writeFile(path, Buffer.concat([local, file, extra, deflated, central, file, extra, ...tail, end]));
  await rm(gz);
}

/** Zigzag varint of a thrift compact i32. */
function varint(n: number): number[] {
  let z = (n << 1) ^ (n >> 31);
  const out: number[] = [];
  do {
    let b = z & 0x7f;
    z >>>= 7;
    if (z !== 0) b |= 0x80;
    out.push(b);
  } while (z !== 0);
  return out;
}

/** The page size a parquet page bomb's header declares: 134,000,000 bytes (128 MiB as the refusal rounds it). */
export const PARQUET_BOMB_DECLARED_BYTES = 134_000_000;

/**
 * A corpus parquet (`_id`, `text`) of one row whose text page holds 1.1 MB of text in ~50 KB of snappy (its
 * declared size a 4-byte varint), and the same file with that page header's uncompressed size raised in place
 * to PARQUET_BOMB_DECLARED_BYTES: `honest` reads, `bomb` asks the reader to allocate 128 MiB for the page.
 */
export function parquetPageBomb(): { readonly honest: Uint8Array; readonly bomb: Uint8Array } {
  const text = 'a'.repeat(1_100_000);
  const honest = new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: '_id', data: ['d1'], type: 'STRING' },
        { name: 'text', data: [text], type: 'STRING' },
      ],
    }),
  );
  const bomb = honest.slice();
  let patched = 0;
  for (let i = 0; i + 10 < bomb.length; i++) {
    if (bomb[i] !== 0x15) continue;
    // uncompressed_page_size (field 2, i32) then compressed_page_size (field 3, i32), each a 4-byte varint
    let u = 0;
    let j = i + 1;
    for (let s = 0; s < 28; s += 7, j++) u |= (bomb[j]! & 0x7f) << s;
    if ((bomb[i + 4]! & 0x80) !== 0 || bomb[j] !== 0x15) continue;
    const size = (u >>> 1) ^ -(u & 1);
    if (size < 1_100_000 || size > 1_200_000) continue;
    bomb.set(varint(PARQUET_BOMB_DECLARED_BYTES), i + 1);
    patched++;
  }
  if (patched !== 1) throw new Error(`expected one text page header to patch, found ${patched}`);
  return { honest, bomb };
}
