/** Decompression bombs for the tests: built as a real attacker would, with Node's own gzip. */
import { createWriteStream, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

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

/**
 * A zip holding one member, `name`, of `mib` MiB of zeros deflated: the deflate stream and its CRC-32 are
 * taken from Node's gzip (a gzip file is a 10-byte header, raw deflate, CRC-32 and size), and the zip's
 * headers written around them.
 */
export async function zipBomb(path: string, name: string, mib: number): Promise<void> {
  const gz = `${path}.gz`;
  await gzipBomb(gz, mib);
  const g = readFileSync(gz);
  const deflated = g.subarray(10, g.length - 8);
  const crc = g.readUInt32LE(g.length - 8);
  const size = mib * (1 << 20);
  const file = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(deflated.length, 18);
  local.writeUInt32LE(size >>> 0, 22);
  local.writeUInt16LE(file.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(deflated.length, 20);
  central.writeUInt32LE(size >>> 0, 24);
  central.writeUInt16LE(file.length, 28);
  const cdOffset = local.length + file.length + deflated.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + file.length, 12);
  end.writeUInt32LE(cdOffset, 16);
  await writeFile(path, Buffer.concat([local, file, deflated, central, file, end]));
  await rm(gz);
}
