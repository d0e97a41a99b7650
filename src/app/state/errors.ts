/** Errors as the panels show them: file, line and reason when the error names them. */
import { errorMessage } from '../../core/error-message.ts';
import { isInputError } from '../../core/io/errors.ts';

export interface CollectionError {
  readonly message: string;
  readonly file?: string;
  readonly line?: number;
  /** The files hold documents and nothing else: queries can be made from them. */
  readonly corpusOnly?: boolean;
}

/**
 * What an error says, split into file / line / reason. The core's InputError keeps its fields across the
 * worker boundary (src/lab/errors.ts), so nothing is parsed out of message strings.
 */
export function errorInfo(e: unknown): CollectionError {
  if (isInputError(e))
    return {
      file: e.file,
      ...(e.line === undefined ? {} : { line: e.line }),
      message: e.reason,
      ...('corpusOnly' in e && e.corpusOnly === true ? { corpusOnly: true } : {}),
    };
  return { message: errorMessage(e) };
}

/** The error as one line where it is shown as text (a retriever row): "file, line N: reason", as the collection panel writes it. */
export function errorText(info: CollectionError): string {
  if (info.file === undefined) return info.message;
  return `${info.file}${info.line === undefined ? '' : `, line ${info.line}`}: ${info.message}`;
}
