// A refused body is read and thrown away, so that its client (which is still sending) reads the
// answer, not a connection reset; bounded by a size and by time without a byte.
//
// Node's HTTP parser hands every piece of a body to JavaScript as a Buffer of its own (a copy,
// counted as external memory) only when the parser's onBody callback is a function. Under a flood,
// most bodies are refused, and reading them so cost the event loop about 19 garbage collections
// per 100 bodies of 8 MB and twice the CPU (docs/benchmarks-history.md, "Refused bodies thrown away by
// the HTTP parser; where the event loop's time goes"). So a refused body of a declared length is
// thrown away by the parser itself: while it is, the connection's parser has no onBody. The parser
// still reads the body to its end and the connection stays usable; the callback is put back when
// the message completes (synchronously, inside the parser, before a pipelined next request is
// parsed) or when the connection closes (before its parser can serve another). Where the parser
// is not as this expects (another runtime, a later Node), or the body has no declared length
// (chunked; the bound must then be counted here), the body is read as 'data' events instead.
import type { IncomingMessage } from 'node:http';
import { IdleWatch } from './idle.js';

/** What this module touches of Node's HTTP parser (lib/_http_common.js, src/node_http_parser.cc). */
interface HttpParser {
  [callback: number]: unknown;
  constructor: { kOnBody?: unknown; kOnMessageComplete?: unknown };
}

const discarding = new WeakSet<IncomingMessage>();

/**
 * How much of a refused body is read and thrown away, for bodies up to `maxBodyBytes`: more than
 * the limit itself, so that a client that sends a body over it whole before it reads (most SDKs'
 * HTTP clients) still reads its 413. Beyond, the connection is closed.
 */
export const discardLimit = (maxBodyBytes: number): number => 4 * maxBodyBytes;

/**
 * Reads the rest of a refused body and throws it away; past `maxBytes`, or `idleMs` without a byte,
 * the connection is closed. `parser: false` (ACKTRAIL_PARSER_DISCARD=off) reads it as 'data'
 * events whatever the body.
 */
export function discardBody(
  req: IncomingMessage,
  maxBytes: number,
  idleMs: number,
  { parser = true } = {},
): void {
  // A refusal found while reading is discarded there and answered by the route, which discards
  // too: one reader is enough.
  if (req.complete || req.destroyed || discarding.has(req)) return;
  discarding.add(req);
  req.unpipe();
  const idle =
    parser && inParser(req, maxBytes)
      ? new IdleWatch(
          idleMs,
          () => req.destroy(),
          () => req.socket.bytesRead,
        )
      : inJavaScript(req, maxBytes, idleMs);
  req.once('end', () => {
    idle.stop();
  });
  req.once('close', () => {
    idle.stop();
  });
  // Once the answer is out, Node arms the connection's keep-alive timeout and, when it fires with
  // nobody listening for the request's 'timeout', destroys the connection, body still coming: a
  // client paused that long (Node's default is 5 s; a loaded machine) wrote into a closed socket
  // instead of reading its answer. Listening hands the bound to the idle watch above.
  req.on('timeout', () => undefined);
  req.resume();
}

/** Every piece of the body as a 'data' event, counted against the bound. */
function inJavaScript(req: IncomingMessage, maxBytes: number, idleMs: number): IdleWatch {
  let seen = 0;
  const idle = new IdleWatch(idleMs, () => req.destroy());
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) req.destroy();
    else idle.touch();
  });
  return idle;
}

/**
 * Has the connection's parser throw the body away, when the body has a declared length within
 * `maxBytes` (the parser then ends it there) and the parser is as expected; false otherwise.
 */
function inParser(req: IncomingMessage, maxBytes: number): boolean {
  const declared = Number(req.headers['content-length']);
  if (req.headers['transfer-encoding'] !== undefined || !(declared <= maxBytes)) return false;
  const socket = req.socket as typeof req.socket & { parser?: HttpParser | null };
  const parser = socket.parser;
  const { kOnBody: body, kOnMessageComplete: done } = parser?.constructor ?? {};
  if (!parser || typeof body !== 'number' || typeof done !== 'number') return false;
  const onBody = parser[body];
  const onDone = parser[done];
  if (typeof onBody !== 'function' || typeof onDone !== 'function') return false;

  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    parser[body] = onBody;
    parser[done] = onDone;
    socket.off('close', restore);
  };
  parser[body] = null;
  parser[done] = function (this: unknown, ...args: unknown[]): unknown {
    restore();
    return (onDone as (...a: unknown[]) => unknown).apply(this, args);
  };
  // Node frees the parser in its own 'close' listener, added first; this one follows at once.
  socket.on('close', restore);
  return true;
}
