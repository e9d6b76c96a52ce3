// OTLP/gRPC: opentelemetry.proto.collector.trace.v1.TraceService/Export on a port of its own
// (ACKTRAIL_OTLP_GRPC_PORT; 4317 is the OTLP default), the default transport of the Python, .NET
// and Java SDKs and of most Collector set-ups. The same Ingest as OTLP/HTTP decides: the token
// (`authorization: Bearer …` metadata), the shared in-flight budget, the span limit, the store.
// Status codes follow the OTLP specification, so that an SDK retries what may succeed later and
// drops what never will: UNAVAILABLE (retried) for every refusal, INVALID_ARGUMENT for a bad body,
// RESOURCE_EXHAUSTED (not retried without RetryInfo) beyond the body or span limit, and
// UNAUTHENTICATED.
//
// gRPC over node:http2, not a gRPC server library: Export is one unary call, and what bounds the
// exporter is when its bytes are looked at. A library reads each message whole (up to its size
// limit) before a handler or interceptor sees it, token or not: six connections of 16 streams that
// each send all but one byte of 8 MB held 800 MB that way. Here the token is checked on the
// request's headers before a byte of the message is read, and every DATA frame is charged to the
// in-flight budget as it arrives; a refused stream gets its status (Trailers-Only) and a
// RST_STREAM(NO_ERROR), which tells the client to stop sending (RFC 9113 §8.1). Connections,
// streams per connection and each call's time are bounded, and connections per address and until
// their first admitted call (grpc-sessions.ts) (grpc-js, the clients' library, is
// what the tests and the benchmark call it with).
import {
  constants,
  createServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import { CallError, GrpcStatus, INFLATE, readMessage } from './grpc-message.js';
import { GrpcSessions } from './grpc-sessions.js';
import type { IngestGate, Outcome } from './gate.js';
import { ExportTraceServiceResponse } from '../journeys/spans/index.js';

export const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

/** Concurrent calls on one connection (SETTINGS_MAX_CONCURRENT_STREAMS). */
const MAX_CONCURRENT_STREAMS = 16;

const ACCEPT_ENCODING = 'identity,gzip,deflate';

export class OtlpGrpcReceiver {
  private readonly server: Http2Server;
  private readonly sessions: GrpcSessions;

  constructor(private readonly ingest: IngestGate) {
    this.server = createServer({
      settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS },
      // nghttp2's own buffers for one connection (headers, frames not yet read): small, since
      // every DATA frame is read as it comes.
      maxSessionMemory: 4,
    });
    // A connection with no admitted call for a while is closed (GOAWAY); its client reconnects.
    this.sessions = new GrpcSessions(this.server, ingest.limits.bodyIdleMs * 6);
    this.server.on('stream', (stream, headers) => {
      stream.on('error', () => undefined);
      void this.call(stream, headers);
    });
  }

  private async call(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    let release: () => void = () => undefined;
    try {
      const refusal = this.admit(headers);
      if (refusal) throw refusal;
      this.sessions.used(stream.session!);
      const message = await readMessage(stream, headers, this.ingest).catch((err: unknown) => {
        this.counted(err);
        throw err;
      });
      release = message.release;
      const sender = stream.session?.socket.remoteAddress ?? '';
      answer(stream, await this.ingest.ingest('protobuf', message.body, sender));
    } catch (err) {
      const { code, message } =
        err instanceof CallError ? err : { code: GrpcStatus.INTERNAL, message: String(err) };
      fail(stream, code, message);
    } finally {
      release();
    }
  }

  /** A message that could not be read, counted as OTLP/HTTP counts its body: refused or unreadable. */
  private counted(err: unknown): void {
    if (!(err instanceof CallError)) return;
    if (err.refusal) this.ingest.refuse(err.refusal, err.message);
    else if (err.code === GrpcStatus.INVALID_ARGUMENT || err.code === GrpcStatus.RESOURCE_EXHAUSTED)
      this.ingest.unreadable(err.message, err.code === GrpcStatus.RESOURCE_EXHAUSTED);
  }

  /**
   * The call's token first (nothing else is answered to a client without it), then its route and
   * encoding, then whether the receiver takes it: from its headers alone, no byte is read before.
   */
  private admit(headers: IncomingHttpHeaders): CallError | null {
    const authorization = headers.authorization;
    const outcome = this.ingest.admit(
      typeof authorization === 'string' ? authorization : undefined,
    );
    if (outcome?.kind === 'unauthorized')
      return new CallError(GrpcStatus.UNAUTHENTICATED, outcome.message);
    if (headers[':path'] !== EXPORT_PATH)
      return new CallError(GrpcStatus.UNIMPLEMENTED, `no method ${String(headers[':path'])}`);
    if (!(headers['content-type'] ?? '').startsWith('application/grpc'))
      return new CallError(GrpcStatus.INVALID_ARGUMENT, 'content-type is not application/grpc');
    const encoding = String(headers['grpc-encoding'] ?? 'identity');
    if (encoding !== 'identity' && !(encoding in INFLATE))
      return new CallError(GrpcStatus.UNIMPLEMENTED, `grpc-encoding ${encoding} is not supported`);
    if (!outcome || outcome.kind === 'stored') return null;
    return new CallError(codeOf(outcome), outcome.message);
  }

  /** Listens on host:port (0: any free port); resolves with the port. */
  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const failed = (err: Error) => {
        reject(new Error(`OTLP/gRPC cannot listen on ${host}:${port}: ${err.message}`));
      };
      this.server.once('error', failed);
      this.server.listen(port, host, () => {
        this.server.off('error', failed);
        const address = this.server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  /** Lets calls in flight finish within `graceMs` (GOAWAY to every client), then ends the rest. */
  close(graceMs = 5000): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        for (const session of this.sessions.all) session.destroy();
      }, graceMs).unref();
      this.server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      for (const session of this.sessions.all) session.close();
    });
  }
}

const codeOf = (outcome: Exclude<Outcome, { kind: 'stored' }>): number =>
  outcome.kind === 'refused'
    ? GrpcStatus.UNAVAILABLE
    : outcome.tooLarge
      ? GrpcStatus.RESOURCE_EXHAUSTED
      : GrpcStatus.INVALID_ARGUMENT;

const RESPONSE_HEADERS = {
  [constants.HTTP2_HEADER_STATUS]: 200,
  [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc+proto',
  'grpc-accept-encoding': ACCEPT_ENCODING,
};

/**
 * A refusal as Trailers-Only (the status in the only HEADERS frame), then RST_STREAM(NO_ERROR) if
 * the client is still sending: it stops, and what it would have sent is never read.
 */
function fail(stream: ServerHttp2Stream, code: number, message: string): void {
  if (stream.destroyed || stream.closed) return;
  if (!stream.headersSent)
    stream.respond(
      { ...RESPONSE_HEADERS, 'grpc-status': String(code), 'grpc-message': encodeURI(message) },
      { endStream: true },
    );
  stream.close(constants.NGHTTP2_NO_ERROR);
}

function answer(stream: ServerHttp2Stream, outcome: Outcome): void {
  if (outcome.kind !== 'stored') {
    fail(stream, codeOf(outcome), outcome.message);
    return;
  }
  if (stream.destroyed || stream.closed) return;
  const response =
    outcome.rejected > 0
      ? { partialSuccess: { rejectedSpans: outcome.rejected, errorMessage: outcome.message } }
      : {};
  const payload = ExportTraceServiceResponse.encode(
    ExportTraceServiceResponse.fromObject(response),
  ).finish();
  const frame = Buffer.alloc(5 + payload.length);
  frame.writeUInt32BE(payload.length, 1);
  frame.set(payload, 5);
  stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
  stream.once('wantTrailers', () => {
    stream.sendTrailers({ 'grpc-status': String(GrpcStatus.OK) });
  });
  stream.end(frame);
}
