import { isInputError, type InputError } from '../../../src/core/io/errors.ts';

/** Await a parse that must fail with an InputError, and return it for inspection. */
export async function inputError(p: Promise<unknown>): Promise<InputError> {
  try {
    await p;
  } catch (e) {
    if (isInputError(e)) return e;
    throw e;
  }
  throw new Error('expected an InputError');
}
