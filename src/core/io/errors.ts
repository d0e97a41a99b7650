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

/**
 * A short, printable excerpt of a line for an error message: at most `max` characters, every control,
 * unassigned, private-use or undecodable character (U+FFFD, what a binary file's bytes decode to) shown as
 * "?", and a note when most of it is such characters, so a junk file is named for what it is instead of
 * quoted as garbage.
 */
export function quote(line: string, max = 60): string {
  const chars = Array.from(line.length > 4 * max ? line.slice(0, 4 * max) : line);
  const cut = chars.length > max ? chars.slice(0, max) : chars;
  let unprintable = 0;
  const shown = cut
    .map((c) => {
      if (c === '\t' || !UNPRINTABLE.test(c)) return c;
      unprintable++;
      return '?';
    })
    .join('');
  const s = JSON.stringify(chars.length > max ? `${shown}…` : shown);
  return unprintable * 4 >= cut.length && unprintable > 0 ? `${s} (binary data, not text)` : s;
}

const UNPRINTABLE = /[\p{Cc}\p{Co}\p{Cn}\p{Cs}\uFFFD]/u;
