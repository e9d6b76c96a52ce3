// Checks across keys of the environment that a schema cannot say: each listener its own port,
// and tokens of different powers different. ConfigError names the key (main exits with code 2).
import type { z } from 'zod';
import type { envSchema } from './env.js';

export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
}

/** Each listener has a port of its own (0, any free port, may repeat). */
export function checkDistinctPorts(e: z.output<typeof envSchema>): void {
  const seen = new Map<number, string>([[e.ACKTRAIL_PORT, 'ACKTRAIL_PORT']]);
  for (const key of [
    'ACKTRAIL_METRICS_PORT',
    'ACKTRAIL_INGEST_PORT',
    'ACKTRAIL_OTLP_GRPC_PORT',
  ] as const) {
    const port = e[key];
    if (port === undefined || port === 0) continue;
    const other = seen.get(port);
    if (other)
      throw new ConfigError(
        `${key}: ${port} is already ${other}; each listener needs its own port`,
      );
    seen.set(port, key);
  }
}

/** Tokens of different powers must differ: a token shared with a weaker role gives it more. */
export function checkDistinctTokens(e: z.output<typeof envSchema>, ingest: string | null): void {
  if (ingest && ingest === e.ACKTRAIL_API_TOKEN)
    throw new ConfigError(
      'ACKTRAIL_INGEST_TOKEN: must differ from ACKTRAIL_API_TOKEN (every SDK that sends spans could read every journey)',
    );
  const scrape = e.ACKTRAIL_METRICS_TOKEN;
  if (scrape && [e.ACKTRAIL_API_TOKEN, e.ACKTRAIL_OPERATOR_TOKEN, ingest].includes(scrape))
    throw new ConfigError(
      'ACKTRAIL_METRICS_TOKEN: must differ from the API, operator and ingest tokens (whatever scrapes the metrics would read journeys, operate or send spans)',
    );
  const operator = e.ACKTRAIL_OPERATOR_TOKEN;
  if (!operator) return;
  if (operator === e.ACKTRAIL_API_TOKEN)
    throw new ConfigError(
      'ACKTRAIL_OPERATOR_TOKEN: must differ from ACKTRAIL_API_TOKEN (the read token would operate)',
    );
  if (operator === ingest)
    throw new ConfigError(
      'ACKTRAIL_OPERATOR_TOKEN: must differ from the ingest token (every SDK that sends spans would operate)',
    );
}
