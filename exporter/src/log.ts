import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({ name: 'acktrail-exporter', level });
}

/** Turns anything thrown into an Error, so every catch handles one type. */
export function coerceError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** A log-safe message: URLs in it lose their credentials. */
export function errorMessage(err: unknown): string {
  return coerceError(err).message.replace(/\/\/[^/@\s]+@/g, '//***@');
}
