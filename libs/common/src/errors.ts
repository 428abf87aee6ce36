/** Kinds of domain failure; only the HTTP layer maps them to status codes. */
export type ErrorKind =
  | 'invalid' // 400
  | 'unauthorized' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'precondition' // 412
  | 'too_large' // 413
  | 'unprocessable' // 422
  | 'unavailable'; // 503

export interface FieldError {
  path: string;
  message: string;
}

/** A failure the caller caused or can act on, with a stable machine-readable `code`. */
export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (code: string, message: string, errors?: FieldError[]) =>
  new DomainError('invalid', code, message, errors);
export const notFound = (code: string, message: string) => new DomainError('not_found', code, message);
export const conflict = (code: string, message: string) => new DomainError('conflict', code, message);

/** A bad setting of the environment; the message names the variable (loadConfig, the summarizer's choice). */
export class ConfigError extends Error {}
