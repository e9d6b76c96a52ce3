import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({ name: 'acktrail-exporter', level });
}

/** Turns anything thrown into an Error, so every catch handles one type. */
export function coerceError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** Query parameters that carry a secret in a connection URL (libpq's password, sslpassword, …). */
const SECRET_PARAM = /([?&;][\w.-]{0,40}?(?:pass(?:word|wd)?|pwd|secret|token|key)=)[^&\s#"']*/gi;

/**
 * Text with the credentials of any URL in it replaced by ***: `user:pass@` and secret query
 * parameters (`?password=`). Cut to 2,000 characters first, so no input makes it slow.
 */
export function redactCredentials(text: string): string {
  return text
    .slice(0, 2000)
    .replace(/\/\/[^/@\s]+@/g, '//***@')
    .replace(SECRET_PARAM, '$1***');
}

/** A log-safe message: URLs in it lose their credentials. */
export function errorMessage(err: unknown): string {
  return redactCredentials(coerceError(err).message);
}
