/**
 * Decompression bombs and endless lines offered to the lab's readers: a zip whose member inflates a
 * thousandfold is refused on its declared sizes before anything is inflated; a gzip of zeros or of one valid
 * line repeated is refused as it inflates; a line past 1 MiB is refused at its line. Each refusal is an
 * InputError naming the file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { inflateSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { isInputError } from '../../../src/core/io/errors.ts';
import { INFLATE_FREE_BYTES, readLines } from '../../../src/core/io/lines.ts';
import { parseRun } from '../../../src/core/io/trec.ts';
import { unzipChecked } from '../../../src/core/io/zip.ts';
import { maybeGunzip } from '../../../src/lab/data/bytes.ts';
import { expandArchives } from '../../../src/lab/data/files.ts';
import { loadCollection } from '../../../src/worker/load.ts';
import { zipBomb } from '../../support/bombs.ts';
import { tempDir } from '../../support/temp.ts';

const MB = 1 << 20;
const zeros = (n: number) => new Uint8Array(n);
const enc = (s: string) => new TextEncoder().encode(s);

/** fflate's raw inflate as expandArchives calls it, counting the bytes it writes. */
function countingInflate(): { bytes: number; inflate: (data: Uint8Array, out: Uint8Array) => Uint8Array } {
  const counter = {
    bytes: 0,
    inflate: (data: Uint8Array, out: Uint8Array) => {
      const got = inflateSync(data, { out });
      counter.bytes += got.length;
      return got;
    },
  };
  return counter;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(isInputError(e), String(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected a refusal, got none');
}

describe('zip bombs', () => {
  it('a member that declares a thousandfold inflation is refused before it is inflated', async () => {
    // 64 MiB of zeros: about 64 KB deflated (a real 1 GiB bomb is the same, only slower to build here)
    const zip = zipSync({ 'corpus.jsonl': [zeros(64 * MB), { level: 9 }], 'queries.jsonl': enc('{"_id":"q","text":"x"}\n') });
    expect(zip.length).toBeLessThan(MB);
    const message = await refusal(Promise.resolve().then(() => expandArchives([{ path: 'bomb.zip', bytes: zip }])));
    expect(message).toMatch(/^bomb\.zip\/corpus\.jsonl: refused as a decompression bomb: it inflates past 64 MiB from 0\.\d+ MiB/);
    // before a byte of it is inflated
    const counted = countingInflate();
    expect(await refusal(Promise.resolve().then(() => unzipChecked(zip, 'bomb.zip', counted.inflate)))).toBe(message);
    expect(counted.bytes).toBe(0);
    // and through the whole loader, as the lab's worker calls it
    expect(await refusal(loadCollection([{ path: 'bomb.zip', bytes: zip }]))).toMatch(/decompression bomb/);
  });

  it('ordinary compressed text is not refused, whatever its size', () => {
    const lines = Array.from(
      { length: 300_000 },
      (_, i) => `${i % 500} Q0 doc${(i * 7919) % 100_003} ${i} ${(1 / (i + 1)).toFixed(6)} run`,
    );
    const text = enc(lines.join('\n'));
    expect(text.length).toBeGreaterThan(INFLATE_FREE_BYTES / 2);
    const [entry] = expandArchives([{ path: 'runs.zip', bytes: zipSync({ 'a.run': [text, { level: 9 }] }) }]);
    expect(entry!.bytes.length).toBe(text.length);
  });
});

/** The offset of the end-of-central-directory record and of the first central directory entry. */
function zipLayout(zip: Uint8Array): { end: number; central: number } {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.length - 22;
  while (view.getUint32(end, true) !== 0x06054b50) end--;
  return { end, central: view.getUint32(end + 16, true) };
}

describe('ZIP64 and lying directories', () => {
  const work = tempDir('zip64');

  it.each(['zip64-extra', 'zip64'] as const)('a ZIP64 bomb (%s) is refused on the sizes in its ZIP64 extra field', async (sizes) => {
    const path = join(work, `${sizes}.zip`);
    await zipBomb(path, 'corpus.jsonl', 64, sizes);
    const zip = new Uint8Array(readFileSync(path));
    const counted = countingInflate();
    const message = await refusal(Promise.resolve().then(() => unzipChecked(zip, 'bomb.zip', counted.inflate)));
    expect(message).toMatch(/^bomb\.zip\/corpus\.jsonl: refused as a decompression bomb: it inflates past 64 MiB from 0\.\d+ MiB/);
    expect(counted.bytes).toBe(0);
    expect(await refusal(Promise.resolve().then(() => expandArchives([{ path: 'bomb.zip', bytes: zip }])))).toBe(message);
  });

  it('a ZIP64 member that is no bomb is read whole', async () => {
    const path = join(work, 'small64.zip');
    await zipBomb(path, 'corpus.jsonl', 1, 'zip64');
    const counted = countingInflate();
    expect(unzipChecked(new Uint8Array(readFileSync(path)), 'small.zip', counted.inflate).get('corpus.jsonl')!.length).toBe(MB);
    expect(counted.bytes).toBe(MB); // the counter counts
    const [entry] = expandArchives([{ path: 'small.zip', bytes: new Uint8Array(readFileSync(path)) }]);
    expect(entry!.path).toBe('small.zip/corpus.jsonl');
    expect(entry!.bytes.length).toBe(MB);
    expect(entry!.bytes.every((b) => b === 0)).toBe(true);
  });

  it('sizes of 0xFFFFFFFF with no ZIP64 field count only the bytes the archive holds', async () => {
    const zip = zipSync({ 'corpus.jsonl': [zeros(4 * MB), { level: 9 }] });
    const { central } = zipLayout(zip);
    const view = new DataView(zip.buffer);
    view.setUint32(central + 20, 0xffffffff, true); // compressed
    view.setUint32(central + 24, 0xffffffff, true); // original
    expect(await refusal(Promise.resolve().then(() => expandArchives([{ path: 'lie.zip', bytes: zip }])))).toMatch(
      /^lie\.zip\/corpus\.jsonl: refused as a decompression bomb: it inflates past 4096 MiB/,
    );
  });

  it('a member that inflates past its declared size is refused as damaged, never cut short', async () => {
    const text = enc('{"_id":"d1","text":"one"}\n{"_id":"d2","text":"two"}\n');
    const zip = zipSync({ 'corpus.jsonl': [text, { level: 6 }] });
    const { central } = zipLayout(zip);
    new DataView(zip.buffer).setUint32(central + 24, 10, true);
    expect(await refusal(Promise.resolve().then(() => expandArchives([{ path: 'short.zip', bytes: zip }])))).toMatch(
      /^short\.zip\/corpus\.jsonl: could not read the \.zip archive: it inflates past the 10 bytes its directory declares/,
    );
  });

  it('members that share one compressed stream are refused on their sum', async () => {
    // One 12 MiB member (under the free allowance alone), its directory entry listed four times: 48 MiB from ~12 KB.
    const zip = zipSync({ 'a.jsonl': [zeros(12 * MB), { level: 9 }] });
    const { end, central } = zipLayout(zip);
    const entry = zip.subarray(central, end);
    const endRecord = zip.slice(end);
    const copies = 4;
    const forged = new Uint8Array(central + copies * entry.length + endRecord.length);
    forged.set(zip.subarray(0, central));
    for (let i = 0; i < copies; i++) forged.set(entry, central + i * entry.length);
    const tail = central + copies * entry.length;
    forged.set(endRecord, tail);
    const view = new DataView(forged.buffer);
    view.setUint16(tail + 8, copies, true);
    view.setUint16(tail + 10, copies, true);
    view.setUint32(tail + 12, copies * entry.length, true);
    expect(await refusal(Promise.resolve().then(() => expandArchives([{ path: 'overlap.zip', bytes: forged }])))).toMatch(
      /^overlap\.zip: refused as a decompression bomb: it inflates past 48 MiB/,
    );
  });

  it('an encrypted member and an unknown method are named', async () => {
    const zip = zipSync({ 'q.jsonl': [enc('{"_id":"q","text":"x"}\n'), { level: 6 }] });
    const { central } = zipLayout(zip);
    const encrypted = zip.slice();
    new DataView(encrypted.buffer).setUint16(central + 8, 1, true);
    expect(await refusal(Promise.resolve().then(() => expandArchives([{ path: 'e.zip', bytes: encrypted }])))).toMatch(
      /^e\.zip\/q\.jsonl: expected an unencrypted zip member/,
    );
    const bzip = zip.slice();
    new DataView(bzip.buffer).setUint16(central + 10, 12, true);
    expect(await refusal(Promise.resolve().then(() => expandArchives([{ path: 'b.zip', bytes: bzip }])))).toMatch(
      /^b\.zip\/q\.jsonl: expected a stored or deflated zip member, found compression method 12/,
    );
  });
});

describe('gzip bombs and endless lines', () => {
  it('zeros: refused at line 1 by the line limit, long before the end', async () => {
    const bomb = gzipSync(zeros(256 * MB), { level: 9 });
    let lines = 0;
    const message = await refusal(readLines(bomb, () => lines++, 'bomb.run.gz'));
    expect(message).toMatch(/^bomb\.run\.gz:1: expected a line break within 1 MiB, found none/);
    expect(lines).toBe(0);
  });

  it('one valid line repeated: refused by the ratio, while reading lines and when gunzipped whole', async () => {
    const line = enc('1 Q0 d 1 1 t\n');
    const many = new Uint8Array(line.length * 4_000_000); // 52 MB of the same line
    for (let i = 0; i < 4_000_000; i++) many.set(line, i * line.length);
    const bomb = gzipSync(many, { level: 9 });
    expect(bomb.length * 100).toBeLessThan(many.length);
    expect(await refusal(readLines(bomb, () => undefined, 'same.run.gz'))).toMatch(/^same\.run\.gz: refused as a decompression bomb/);
    expect(await refusal(maybeGunzip(bomb, 'same.run.gz'))).toMatch(/^same\.run\.gz: refused as a decompression bomb/);
  });

  it('a plain line past 1 MiB is refused at its line number', async () => {
    const text = `q1 Q0 d1 1 1 t\nq1 Q0 ${'x'.repeat(2 * MB)} 2 1 t\n`;
    expect(await refusal(parseRun(enc(text), 'long.run'))).toMatch(/^long\.run:2: expected a line break within 1 MiB/);
  });
});
