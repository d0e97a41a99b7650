/** Where CLI text goes: stdout, a file (--out), and diagnostics on stderr. Injected so tests can capture. */
import { writeFileSync } from 'node:fs';
import type { Diagnostic } from '../core/types.ts';

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processIo: Io = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

export function writeOutput(io: Io, text: string, out: string | undefined): void {
  if (out === undefined || out === '-') io.stdout(text);
  else writeFileSync(out, text);
}

export function reportDiagnostics(io: Io, diagnostics: readonly Diagnostic[]): void {
  for (const d of diagnostics) {
    io.stderr(`${d.severity}: ${d.file}${d.line === undefined ? '' : `:${d.line}`}: ${d.message}\n`);
  }
}

/** Exit statuses every command shares (CI gates depend on them). */
export const EXIT_OK = 0;
export const EXIT_GATE_FAILED = 1;
export const EXIT_BAD_INPUT = 2;

/** A usage problem found by a command (bad flag value): reported like bad input, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
