/** Errors as the panels show them: file, line and reason when the error names them. */
export interface CollectionError {
  readonly message: string;
  readonly file?: string;
  readonly line?: number;
}

/**
 * What an error says, split into file / line / reason. Errors cross the worker boundary as plain
 * name + message, so the core's InputError ("file:line: reason") is recognised by its message.
 */
export function errorInfo(e: unknown): CollectionError {
  const err = e as { message?: unknown; file?: unknown; line?: unknown; name?: unknown };
  const message = typeof err?.message === 'string' ? err.message : String(e);
  if (typeof err?.file === 'string') return { message, file: err.file, ...(typeof err.line === 'number' ? { line: err.line } : {}) };
  const m = /^(.+?):(\d+): (.+)$/s.exec(message) ?? /^(\S+?\.[A-Za-z0-9.]+): (.+)$/s.exec(message);
  if (m && m.length === 4) return { file: m[1]!, line: Number(m[2]), message: m[3]! };
  if (m && m.length === 3) return { file: m[1]!, message: m[2]! };
  return { message };
}

