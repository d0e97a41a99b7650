/**
 * Bad input is reported, never swallowed: every parse problem becomes an InputError naming the file,
 * the 1-based line and what was expected there, so the CLI can print `file:line: ...` and the UI can
 * show it in place.
 */
export class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly reason: string,
  ) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${reason}`);
  }
}

export function isInputError(e: unknown): e is InputError {
  return e instanceof Error && e.name === 'InputError' && 'file' in e && 'reason' in e;
}

/** Shorten a line for quoting in an error message. */
export function quote(line: string, max = 80): string {
  const s = line.length > max ? `${line.slice(0, max)}…` : line;
  return JSON.stringify(s);
}
