// The public API starts every trace itself. A client's traceparent, tracestate or baggage would
// let anyone join an order's journey to a trace of their own choosing, unsample it, or tag it
// with an acktrail.event_id of their own; so those headers are dropped before the HTTP
// instrumentation (which reads them from the request) sees the request.
import type { IncomingMessage, Server } from 'node:http';

/** W3C trace context and baggage, and the B3 and Jaeger headers other propagators read. */
const PROPAGATION_HEADERS = new Set([
  'traceparent',
  'tracestate',
  'baggage',
  'b3',
  'x-b3-traceid',
  'x-b3-spanid',
  'x-b3-parentspanid',
  'x-b3-sampled',
  'x-b3-flags',
  'uber-trace-id',
]);

/**
 * Call before the server listens. The instrumentation wraps http.Server.prototype.emit; this
 * server's own emit runs first and clears the headers.
 */
export function dropIncomingTraceContext(server: Server): void {
  const emit = server.emit.bind(server);
  server.emit = ((event: string, ...args: unknown[]) => {
    if (event === 'request') {
      const req = args[0] as IncomingMessage;
      req.headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !PROPAGATION_HEADERS.has(name)),
      );
    }
    return emit(event, ...args);
  }) as Server['emit'];
}
