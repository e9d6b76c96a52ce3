// An HTTP listener as every exporter port has one: a client gets HEADERS_TIMEOUT_MS to send its
// headers and REQUEST_TIMEOUT_MS for its whole request, an idle keep-alive connection outlives
// the timeout its answers advertise, and `Expect: 100-continue` is answered by the ingest route
// before the body is sent (continue.ts). Every listener answers in JSON what no route answers (404)
// and what a route threw (jsonErrors), whatever NODE_ENV: no stack, no path of the exporter's.
// The exporter's event loop (listen.ts) and the ingest thread (thread/worker.ts) listen with it.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
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

/** What no route answered: 404, in JSON. */
export const jsonNotFound: RequestHandler = (req, res) => {
  res.status(404).json({ error: `no such resource: ${req.method} ${req.path.slice(0, 200)}` });
};

/**
 * What a route threw, in JSON: a client's error (a 4xx that Express, its body parser or the router
 * raised: a malformed JSON body, a path that does not decode) with its own message when it is
 * meant to be shown, anything else 500 with no detail. `failed` hears every 5xx (the log).
 */
export function jsonErrors(failed: (err: unknown) => void = () => undefined): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const e = (err ?? {}) as { status?: unknown; statusCode?: unknown; expose?: unknown };
    const given = typeof e.status === 'number' ? e.status : e.statusCode;
    const status = typeof given === 'number' && given >= 400 && given < 600 ? given : 500;
    if (status >= 500) {
      failed(err);
      res.status(status).json({ error: 'internal error: the exporter logged it' });
      return;
    }
    const said = e.expose === true && err instanceof Error ? err.message : 'bad request';
    res.status(status).json({ error: said.slice(0, 300) });
  };
}

export async function listenHttp(
  app: Express,
  port: number,
  host: string,
  keepAliveTimeoutMs: number,
  /** Hears every error a route threw that was answered 5xx (the exporter's log). */
  failed?: (err: unknown) => void,
): Promise<Server> {
  app.use(jsonNotFound);
  app.use(jsonErrors(failed));
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
