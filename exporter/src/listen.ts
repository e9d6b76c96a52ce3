// Puts the exporter's apps on their ports: the main one (ACKTRAIL_PORT), and /metrics, OTLP/HTTP
// and OTLP/gRPC on ports of their own when configured, so that a NetworkPolicy can let Prometheus
// reach only /metrics and the SDKs only ingest. Every HTTP listener bounds how long a client may
// take to send its headers and its whole request.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { ValidatedConfig } from './config.js';
import { onCheckContinue } from './receiver/continue.js';
import type { Exporter } from './server.js';

const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 120_000;
/**
 * An idle keep-alive connection is closed this long after the timeout its answers advertise
 * (`keepAliveTimeoutMs`; Node's own margin is 1 s): a client drops it at that timeout less its own
 * margin, and one whose event loop is late (a throttled pod, a loaded machine) otherwise writes its
 * next request into a connection the exporter has just closed (EPIPE; a POST is not retried).
 */
const KEEP_ALIVE_BUFFER_MS = 10_000;

export interface Listeners {
  /** The port each listener took (null: not configured). */
  ports: { main: number; metrics: number | null; ingest: number | null; otlpGrpc: number | null };
  servers: Server[];
}

async function listenHttp(
  app: Exporter['app'],
  port: number,
  host: string,
  keepAliveTimeoutMs: number,
): Promise<Server> {
  const server = app.listen(port, host);
  // A client gets this long to send its headers, and a request (body included) this long in all,
  // whatever it declared; an idle body is dropped sooner (journeys.bodyIdleTimeoutSeconds).
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  // Longer than a proxy's idle timeout in front (ingress-nginx, AWS ALB: 60 s): a proxy that
  // reuses a connection the exporter closed answers its client 502.
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.keepAliveTimeoutBuffer = KEEP_ALIVE_BUFFER_MS;
  // `Expect: 100-continue`: the ingest route answers a refusal before the body is sent.
  server.on('checkContinue', onCheckContinue(app));
  await once(server, 'listening');
  return server;
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
  const main = await listenHttp(exporter.app, config.port, host, keepAlive);
  const metrics = exporter.metricsApp
    ? await listenHttp(exporter.metricsApp, config.metricsPort ?? 0, host, keepAlive)
    : null;
  const ingest = exporter.ingestApp
    ? await listenHttp(exporter.ingestApp, config.ingestPort ?? 0, host, keepAlive)
    : null;
  const otlpGrpc = exporter.otlpGrpc
    ? await exporter.otlpGrpc.listen(config.otlpGrpcPort ?? 0, host)
    : null;
  exporter.listening();
  return {
    ports: {
      main: portOf(main),
      metrics: metrics && portOf(metrics),
      ingest: ingest && portOf(ingest),
      otlpGrpc,
    },
    servers: [main, metrics, ingest].filter((s): s is Server => s !== null),
  };
}
