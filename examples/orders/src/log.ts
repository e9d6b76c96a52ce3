import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON lines on stdout, one logger per process role. Addresses and other personal data are
 * never logged: the paths below are redacted wherever they appear.
 */
export function createLogger(role: string, level: string): Logger {
  return pino({
    name: role,
    level,
    base: { role },
    redact: { paths: ['customer_email', '*.customer_email', 'to', '*.to'], censor: '[redacted]' },
  });
}

/** Turns anything thrown into an Error, so every catch handles one type. */
export function coerceError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
