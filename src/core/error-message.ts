/** What to show for anything thrown: an Error's message, else the value as text. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A Cancel: an AbortSignal's reason or an aborted fetch (a DOMException is an Error), no failure to report. */
export const isAbort = (e: unknown): boolean => e instanceof Error && e.name === 'AbortError';
