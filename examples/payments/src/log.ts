import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON lines on stdout, one logger per role; a line with msg "ready" says the role is up. */
export function createLogger(role: string, level: string): Logger {
  return pino({ name: role, level, base: { role } });
}

export const messageOf = (err: unknown): string =>
  err instanceof Error ? err.message : String(err);
