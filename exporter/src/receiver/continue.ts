// `Expect: 100-continue`: a client that sends it waits for `100 Continue` before it sends the body
// (curl does for large bodies; other clients when asked to, such as Java's HttpClient with
// expectContinue(true); the OpenTelemetry SDKs do not by default). Node sends that at once by
// itself, so a refused body was sent, and read, in full. The listeners (listen.ts) take that over:
// POST /v1/traces sends it only once the body may come (route.ts: authorised, accepted, its
// declared size within the limits and the in-flight budget); every other request gets it at once,
// as before. A request refused before that is answered without its body ever being sent, and
// with `Connection: close` (RFC 9110, 10.1.1: the server says whether it will read the content;
// it will not).
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The ingest route, which sends its own 100 Continue. */
export const OTLP_TRACES_PATH = '/v1/traces';

/** Requests whose 100 Continue the ingest route sends itself, not yet sent. */
const deferred = new WeakSet<ServerResponse>();

/** Tells a client that waits for it to send its body (once; nothing for any other request). */
export function sendContinue(res: ServerResponse): void {
  if (deferred.delete(res)) res.writeContinue();
}

/** The client still holds its body back: answering now, the connection must close after. */
export const bodyHeldBack = (req: IncomingMessage, res: ServerResponse): boolean =>
  deferred.has(res) && !req.complete;

/**
 * The listeners' 'checkContinue' handler (Node calls it for a request that expects 100-continue,
 * instead of sending 100 Continue itself): only the ingest route's POST decides for itself.
 */
export function onCheckContinue(
  app: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (req.method === 'POST' && path === OTLP_TRACES_PATH) deferred.add(res);
    else res.writeContinue();
    app(req, res);
  };
}
