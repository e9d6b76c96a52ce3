// OTLP/gRPC: opentelemetry.proto.collector.trace.v1.TraceService/Export on a port of its own
// (ACKTRAIL_OTLP_GRPC_PORT; 4317 is the OTLP default), the default transport of the Python, .NET
// and Java SDKs and of most Collector set-ups. The same Ingest as OTLP/HTTP decides: the token
// (`authorization: Bearer …` metadata), the shared in-flight budget, the span limit, the store.
// Status codes follow the OTLP specification, so that an SDK retries what may succeed later and
// drops what never will: UNAVAILABLE (retried) for every refusal, INVALID_ARGUMENT for a bad body,
// RESOURCE_EXHAUSTED (not retried without RetryInfo) beyond the body or span limit, and
// UNAUTHENTICATED. The message arrives whole before the handler runs; grpc-js bounds it by
// max_receive_message_length after decompression, and the streams of a connection by
// max_concurrent_streams.
import {
  Server,
  ServerCredentials,
  status,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import type { Ingest, Outcome } from './ingest.js';
import { ExportTraceServiceResponse } from './otlp-schema.js';

const identity = (b: Buffer) => b;

/** The service as raw bytes: the body goes to the same decoder as OTLP/HTTP's protobuf. */
const TRACE_SERVICE: ServiceDefinition = {
  Export: {
    path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

/** Concurrent calls on one connection: each holds at most one message of maxBodyBytes. */
const MAX_CONCURRENT_STREAMS = 16;
/** A connection is closed this long after it opened (clients reconnect; lets load spread). */
const MAX_CONNECTION_AGE_MS = 10 * 60_000;

export class OtlpGrpcReceiver {
  private readonly server: Server;

  constructor(private readonly ingest: Ingest) {
    this.server = new Server({
      'grpc.max_receive_message_length': ingest.limits.maxBodyBytes,
      'grpc.max_concurrent_streams': MAX_CONCURRENT_STREAMS,
      'grpc.max_connection_age_ms': MAX_CONNECTION_AGE_MS,
      'grpc.max_connection_age_grace_ms': ingest.limits.bodyIdleMs,
      'grpc.max_connection_idle_ms': ingest.limits.bodyIdleMs * 6,
    });
    this.server.addService(TRACE_SERVICE, {
      Export: (call: ServerUnaryCall<Buffer, Buffer>, done: sendUnaryData<Buffer>) => {
        void this.export(call.request, call.metadata.get('authorization')).then(
          (outcome) => {
            answer(outcome, done);
          },
          (err: unknown) => {
            done({ code: status.INTERNAL, details: (err as Error).message });
          },
        );
      },
    });
  }

  private async export(body: Buffer, authorization: unknown[]): Promise<Outcome | Unauthorized> {
    const given = authorization.length === 1 ? String(authorization[0]) : undefined;
    const admitted = this.ingest.admit(given);
    if (admitted) return admitted;
    // grpc-js has read the message already: charge what it holds, or refuse it now.
    if (!this.ingest.budget.tryTake(body.length))
      return this.ingest.refuse(
        'over_budget',
        `the receiver holds its in-flight budget (${this.ingest.budget.max} bytes of request bodies); retry later`,
      );
    try {
      return await this.ingest.ingest('protobuf', body);
    } finally {
      this.ingest.budget.release(body.length);
    }
  }

  /** Listens on host:port (0: any free port); resolves with the port. */
  listen(port: number, host: string): Promise<number> {
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    return new Promise((resolve, reject) => {
      this.server.bindAsync(address, ServerCredentials.createInsecure(), (err, bound) => {
        if (err) reject(new Error(`OTLP/gRPC cannot listen on ${address}: ${err.message}`));
        else resolve(bound);
      });
    });
  }

  /** Lets calls in flight finish within `graceMs`, then cancels the rest. */
  close(graceMs = 5000): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs).unref();
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

type Unauthorized = { kind: 'unauthorized'; message: string };

function answer(outcome: Outcome | Unauthorized, done: sendUnaryData<Buffer>): void {
  switch (outcome.kind) {
    case 'stored': {
      const response =
        outcome.rejected > 0
          ? { partialSuccess: { rejectedSpans: outcome.rejected, errorMessage: outcome.message } }
          : {};
      const message = ExportTraceServiceResponse.fromObject(response);
      done(null, Buffer.from(ExportTraceServiceResponse.encode(message).finish()));
      return;
    }
    case 'refused':
      done({ code: status.UNAVAILABLE, details: outcome.message });
      return;
    case 'invalid':
      done({
        code: outcome.tooLarge ? status.RESOURCE_EXHAUSTED : status.INVALID_ARGUMENT,
        details: outcome.message,
      });
      return;
    case 'unauthorized':
      done({ code: status.UNAUTHENTICATED, details: outcome.message });
  }
}
