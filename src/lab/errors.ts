/**
 * Errors that cross a worker boundary keep their structure. comlink's own handler sends a thrown Error as
 * name + message + stack only, so the core's InputError (file, line, reason) and the store's
 * StorageFullError (bytes needed and free) would arrive as bare messages to be re-parsed. This handler
 * also carries an error's own primitive fields and rebuilds an InputError on the receiving side, so
 * `isInputError`, `e.file` and `e.line` work on the page exactly as in the worker.
 *
 * Install it on both sides (the worker before `expose`, the page before `wrap`); installing twice is harmless.
 */
import { transferHandlers, type TransferHandler } from 'comlink';
import { InputError } from '../core/io/errors.ts';

/** An error as it travels: what comlink sends plus the error's own primitive fields. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly fields: Readonly<Record<string, string | number | boolean | null>>;
}

type Thrown = { readonly value: unknown };
type WireThrown = { readonly isError: true; readonly value: WireError } | { readonly isError: false; readonly value: unknown };

/** Own enumerable fields of primitive type (file, line, reason, neededBytes, ...). */
function primitiveFields(error: Error): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[key] = value;
  }
  return out;
}

export function toWireError(error: Error): WireError {
  return {
    name: error.name,
    message: error.message,
    ...(error.stack === undefined ? {} : { stack: error.stack }),
    fields: primitiveFields(error),
  };
}

export function fromWireError(wire: WireError): Error {
  const { file, line, reason, name: _name, ...rest } = wire.fields;
  const error =
    wire.name === 'InputError' && typeof file === 'string' && typeof reason === 'string'
      ? Object.assign(new InputError(file, typeof line === 'number' ? line : undefined, reason), rest) // and its own marks (corpusOnly)
      : Object.assign(new Error(wire.message), wire.fields, { name: wire.name });
  if (wire.stack !== undefined) error.stack = wire.stack;
  return error;
}

let installed = false;

/** Replace comlink's 'throw' handler by one that keeps an error's structure (idempotent). */
export function installErrorTransfer(): void {
  if (installed) return;
  const base = transferHandlers.get('throw') as TransferHandler<Thrown, WireThrown> | undefined;
  if (!base) throw new Error("comlink has no 'throw' transfer handler to extend");
  const handler: TransferHandler<Thrown, WireThrown> = {
    canHandle: (value: unknown): value is Thrown => base.canHandle(value),
    serialize: ({ value }) => [value instanceof Error ? { isError: true, value: toWireError(value) } : { isError: false, value }, []],
    deserialize: (wire) => {
      throw wire.isError ? fromWireError(wire.value) : wire.value;
    },
  };
  transferHandlers.set('throw', handler as TransferHandler<unknown, unknown>);
  installed = true;
}
