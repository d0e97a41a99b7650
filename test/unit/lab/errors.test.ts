/**
 * Errors keep their structure across a real comlink channel (MessageChannel in Node, structured clone as
 * between a worker and its page): an InputError arrives as an InputError with file, line and reason; a
 * StorageFullError with the bytes needed and free; anything thrown that is not an Error arrives as it was.
 */
import { expose, wrap } from 'comlink';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, isInputError } from '../../../src/core/io/errors.ts';
import { installErrorTransfer } from '../../../src/lab/errors.ts';
import { StorageFullError } from '../../../src/store/embeddings.ts';

installErrorTransfer();
installErrorTransfer(); // idempotent

const { port1, port2 } = new MessageChannel();
expose(
  {
    input: () => {
      throw new InputError('scifact/corpus.jsonl', 12, 'expected one JSON object per line');
    },
    noLine: () => {
      throw new InputError('qrels/test.tsv', undefined, 'expected at least one judgment');
    },
    full: () => {
      throw new StorageFullError(288, 0);
    },
    plain: () => {
      throw new TypeError('not a function');
    },
    notAnError: () => {
      throw { code: 7 };
    },
  },
  port1,
);
const remote = wrap<{ input(): void; noLine(): void; full(): void; plain(): void; notAnError(): void }>(port2);
afterAll(() => (port1.close(), port2.close()));

async function thrown(call: () => Promise<void>): Promise<unknown> {
  try {
    await call();
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to throw');
}

describe('errors across comlink', () => {
  it('an InputError arrives as an InputError with its file, line and reason', async () => {
    const e = await thrown(() => remote.input());
    expect(e).toBeInstanceOf(InputError);
    expect(isInputError(e)).toBe(true);
    expect(e).toMatchObject({
      file: 'scifact/corpus.jsonl',
      line: 12,
      reason: 'expected one JSON object per line',
      message: 'scifact/corpus.jsonl:12: expected one JSON object per line',
    });
    const noLine = (await thrown(() => remote.noLine())) as InputError;
    expect(noLine.line).toBeUndefined();
    expect(noLine.message).toBe('qrels/test.tsv: expected at least one judgment');
  });

  it('other errors keep their name, message and own fields', async () => {
    const full = (await thrown(() => remote.full())) as Error & { neededBytes: number; availableBytes: number };
    expect(full.name).toBe('StorageFullError');
    expect(full.neededBytes).toBe(288);
    expect(full.availableBytes).toBe(0);
    expect(full.message).toMatch(/needs about 288 B and about 0 B is free/);
    const plain = (await thrown(() => remote.plain())) as Error;
    expect(plain).toBeInstanceOf(Error);
    expect([plain.name, plain.message]).toEqual(['TypeError', 'not a function']);
    expect(isInputError(plain)).toBe(false);
  });

  it('a thrown non-Error arrives unchanged', async () => {
    expect(await thrown(() => remote.notAnError())).toEqual({ code: 7 });
  });
});
