// An HTTP listener as every exporter port has one: a client gets HEADERS_TIMEOUT_MS to send its
// headers and REQUEST_TIMEOUT_MS for its whole request, an idle keep-alive connection outlives
// the timeout its answers advertise, and `Expect: 100-continue` is answered by the ingest route
// before the body is sent (continue.ts). The exporter's event loop (listen.ts) and the ingest
// thread (thread/worker.ts) listen with it.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { Express } from 'express';
import { onCheckContinue } from './continue.js';

const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 120_000;
/**
 * An idle keep-alive connection is closed this long after the timeout its answers advertise
 * (`keepAliveTimeoutMs`; Node's own margin is 1 s): a client drops it at that timeout less its own
 * margin, and one whose event loop is late (a throttled pod, a loaded machine) otherwise writes its
 * next request into a connection the exporter has just closed (EPIPE; a POST is not retried).
 */
const KEEP_ALIVE_BUFFER_MS = 10_000;

export async function listenHttp(
  app: Express,
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

/** The requests in flight on these servers, for a shutdown that lets them finish. */
export function requestsInFlight(servers: Server[]) {
  let count = 0;
  for (const server of servers)
    server.on('request', (_req, res: NodeJS.EventEmitter) => {
      count++;
      res.once('close', () => count--);
    });
  return {
    count: () => count,
    /** Waits until none is in flight or `deadline` (ms since the epoch); whether none is. */
    async drained(deadline: number): Promise<boolean> {
      while (count > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return count === 0;
    },
  };
}
