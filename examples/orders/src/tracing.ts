// Tracing of the pipeline's processes, started before amqplib, pg and http are loaded: main.ts
// imports this module first. On only when OTEL_EXPORTER_OTLP_ENDPOINT is set (the demo points it
// at the acktrail exporter). A bad configuration is left for main.ts to report.
import { startTracing, type Tracing } from '@acktrail/instrument';
import { loadConfig } from './config.js';
import { HEADERS } from './broker/topology.js';

function start(): Tracing | null {
  let endpoint: string | null;
  let exportIntervalMs: number;
  let pgAndHttp: boolean;
  try {
    ({ endpoint, exportIntervalMs, pgAndHttp } = loadConfig().tracing);
  } catch {
    return null;
  }
  const role = process.argv[2];
  if (!endpoint || !role || role === 'migrate' || role === 'loadgen') return null;
  return startTracing({
    serviceName: `orders-${role}`,
    endpoint,
    exportIntervalMs,
    instrumentPgAndHttp: pgAndHttp,
    amqp: {
      attemptHeader: HEADERS.attempt,
      deadLetterReasonHeader: HEADERS.deadLetterReason,
      aggregateTypeHeader: HEADERS.aggregateType,
      aggregateIdHeader: HEADERS.aggregateId,
    },
  });
}

export const tracing = start();

/**
 * Exits after exporting the spans that already ended (bounded to 2 s). The fault injections use
 * it: a crash from kill -9 would lose them, and the journey would then show only the rows.
 */
export async function exitAfterFlush(code: number): Promise<never> {
  await Promise.race([tracing?.flush(), new Promise((r) => setTimeout(r, 2000))]);
  process.exit(code);
}
