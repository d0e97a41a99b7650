/**
 * A reader that cannot be used, or a prompt it cannot take; the message says which and what to do. Apart from
 * reader.ts so that code which only recognises it (the answer job, the CLI's startup) loads no model runtime.
 */
export class ReaderError extends Error {
  override readonly name = 'ReaderError';
}
