// Puts the exporter's apps on their ports: the main one (ACKTRAIL_PORT), and /metrics, OTLP/HTTP
// and OTLP/gRPC on ports of their own when configured, so that a NetworkPolicy can let Prometheus
// reach only /metrics and the SDKs only ingest (OTLP's own port is the ingest thread's). Every HTTP
// listener bounds how long a client may take to send its headers and its whole request
// (receiver/http-listener.ts).
import type { Server } from 'node:http';
import type { ValidatedConfig } from './config.js';
import { listenHttp } from './receiver/http-listener.js';
import type { Exporter } from './server.js';

export interface Listeners {
  /** The port each listener took (null: not configured). */
  ports: { main: number; metrics: number | null; ingest: number | null; otlpGrpc: number | null };
  servers: Server[];
}

const portOf = (server: Server) => {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
};

export async function listen(
  exporter: Exporter,
  config: ValidatedConfig,
  host = config.listenHost,
): Promise<Listeners> {
  const keepAlive = config.keepAliveTimeoutMs;
  const failed = (err: unknown) => {
    exporter.health.error('http', err, 'a request failed');
  };
  const main = await listenHttp(exporter.app, config.port, host, keepAlive, failed);
  const metrics = exporter.metricsApp
    ? await listenHttp(exporter.metricsApp, config.metricsPort ?? 0, host, keepAlive, failed)
    : null;
  // OTLP on a port of its own runs on the ingest thread, which listens there itself.
  const thread = exporter.ingestThread ? await exporter.ingestThread.start(host) : null;
  const otlpGrpc = exporter.otlpGrpc
    ? await exporter.otlpGrpc.listen(config.otlpGrpcPort ?? 0, host)
    : (thread?.grpc ?? null);
  exporter.listening();
  return {
    ports: {
      main: portOf(main),
      metrics: metrics && portOf(metrics),
      ingest: thread?.http ?? null,
      otlpGrpc,
    },
    servers: [main, metrics].filter((s): s is Server => s !== null),
  };
}
