// One OTLP/gRPC call's message, read as it arrives: every DATA frame charged to the ingest's
// in-flight budget, the declared length checked on the 5-byte prefix before the rest is read, the
// call refused the moment the budget is full, the stream goes idle or the call's deadline passes
// (grpc.ts answers the refusal). gRPC's framing: doc/PROTOCOL-HTTP2.md, "Length-Prefixed-Message".
import type { ServerHttp2Stream, IncomingHttpHeaders } from 'node:http2';
import { promisify } from 'node:util';
import { gunzip, inflate } from 'node:zlib';
import { IdleWatch } from './idle.js';
import type { IngestGate } from './gate.js';

/** The gRPC status codes this service answers (grpc/doc/statuscodes.md). */
export const GrpcStatus = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export const INFLATE = { gzip: promisify(gunzip), deflate: promisify(inflate) } as const;

export class CallError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads the call's one length-prefixed message, charging every DATA frame to the in-flight budget
 * as it arrives and refusing the call the moment the declared length is over the limit, the budget
 * is full, the stream is idle or the call's deadline passes. A compressed message is inflated
 * within the body limit and its inflated size charged too.
 */
export function readMessage(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  ingest: IngestGate,
): Promise<{ body: Buffer; release: () => void }> {
  const { budget, limits } = ingest;
  let held = 0;
  const release = () => {
    budget.release(held);
    held = 0;
  };
  const tooLarge = () =>
    new CallError(
      GrpcStatus.RESOURCE_EXHAUSTED,
      `message larger than ${limits.maxBodyBytes} bytes (after inflation)`,
    );
  const busy = () =>
    new CallError(
      GrpcStatus.UNAVAILABLE,
      `the receiver holds its in-flight budget (${budget.max} bytes of request bodies); retry later`,
    );
  const read = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (err: CallError) => {
      idle.stop();
      clearTimeout(deadline);
      stream.off('data', take);
      reject(err);
    };
    const idle = new IdleWatch(limits.bodyIdleMs, () => {
      stop(
        new CallError(
          GrpcStatus.DEADLINE_EXCEEDED,
          `the message sent nothing for ${limits.bodyIdleMs / 1000} s`,
        ),
      );
    });
    const deadline = setTimeout(() => {
      stop(
        new CallError(
          GrpcStatus.DEADLINE_EXCEEDED,
          `the message did not arrive within ${limits.bodyMs / 1000} s`,
        ),
      );
    }, limits.bodyMs);
    const take = (chunk: Buffer) => {
      idle.touch();
      size += chunk.length;
      // The prefix (flag, length) is known from the fifth byte on: refuse before the rest comes.
      if (size >= 5 && size - chunk.length < 5) {
        const prefix = Buffer.concat([...chunks, chunk]).subarray(0, 5);
        if (prefix.readUInt32BE(1) > limits.maxBodyBytes) {
          stop(tooLarge());
          return;
        }
      }
      if (size > limits.maxBodyBytes + 5) {
        stop(tooLarge());
        return;
      }
      if (!budget.tryTake(chunk.length)) {
        stop(busy());
        return;
      }
      held += chunk.length;
      chunks.push(chunk);
    };
    stream.on('data', take);
    stream.once('end', () => {
      idle.stop();
      clearTimeout(deadline);
      resolve(Buffer.concat(chunks, size));
    });
    stream.once('close', () => {
      stop(new CallError(GrpcStatus.UNAVAILABLE, 'the call was cancelled'));
    });
  });
  return read.then(
    async (frame) => {
      const body = await unframe(frame, String(headers['grpc-encoding'] ?? 'identity'), limits);
      if (body !== frame && !budget.tryTake(body.length)) {
        release();
        throw busy();
      }
      if (body !== frame) held += body.length;
      return { body, release };
    },
    (err: unknown) => {
      release();
      throw err;
    },
  );
}

/** The message of a unary call's one length-prefixed frame, inflated if its flag says so. */
async function unframe(
  frame: Buffer,
  encoding: string,
  limits: IngestGate['limits'],
): Promise<Buffer> {
  if (frame.length < 5) throw new CallError(GrpcStatus.INVALID_ARGUMENT, 'no message in the call');
  const length = frame.readUInt32BE(1);
  if (frame.length !== 5 + length)
    throw new CallError(GrpcStatus.INVALID_ARGUMENT, 'a unary call carries exactly one message');
  const message = frame.subarray(5);
  if (frame[0] === 0) return message;
  const inflateWith = INFLATE[encoding as keyof typeof INFLATE] as
    (typeof INFLATE)[keyof typeof INFLATE] | undefined;
  if (!inflateWith)
    throw new CallError(GrpcStatus.INTERNAL, 'a compressed message without grpc-encoding');
  try {
    return await inflateWith(message, { maxOutputLength: limits.maxBodyBytes });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError)
      throw new CallError(
        GrpcStatus.RESOURCE_EXHAUSTED,
        `message larger than ${limits.maxBodyBytes} bytes (after inflation)`,
      );
    throw new CallError(
      GrpcStatus.INVALID_ARGUMENT,
      `unreadable ${encoding} message: ${(err as Error).message}`,
    );
  }
}
