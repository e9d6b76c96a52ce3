// One OTLP/gRPC call's message, read as it arrives: every DATA frame charged to the ingest's
// in-flight budget for what holding it costs (pieces.ts), the declared length checked on the
// 5-byte prefix before the rest is read, the call refused the moment the budget is full (or the
// exporter goes over its memory budget), the message comes in too many frames, the stream goes
// idle or the call's deadline passes (grpc.ts answers the refusal). gRPC's framing:
// doc/PROTOCOL-HTTP2.md, "Length-Prefixed-Message".
import type { ServerHttp2Stream, IncomingHttpHeaders } from 'node:http2';
import { promisify } from 'node:util';
import { gunzip, inflate } from 'node:zlib';
import { IdleWatch } from './idle.js';
import type { ByteBudget } from './budget.js';
import type { IngestGate } from './gate.js';
import { MAX_PIECES, Pieces } from './pieces.js';

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
    /** Why the budget refused it, where it did: counted as a refusal. */
    readonly refusal: 'over_budget' | 'over_memory' | null = null,
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
export async function readMessage(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  ingest: IngestGate,
): Promise<{ body: Buffer; release: () => void }> {
  const { budget, limits } = ingest;
  const pieces = new Pieces(budget);
  let inflated = 0;
  const release = () => {
    pieces.release();
    budget.release(inflated);
    inflated = 0;
  };
  try {
    const frame = await readFrame(stream, ingest, pieces);
    const body = await unframe(frame, String(headers['grpc-encoding'] ?? 'identity'), limits);
    if (body !== frame) {
      if (!budget.tryTake(body.length)) throw busy(budget);
      inflated = body.length;
    }
    return { body, release };
  } catch (err) {
    release();
    throw err;
  }
}

const busy = (budget: ByteBudget) => {
  const why = budget.refusal;
  return new CallError(GrpcStatus.UNAVAILABLE, budget.describe(why), why);
};

/** The length-prefixed frame as its DATA frames arrive, held in `pieces`. */
function readFrame(
  stream: ServerHttp2Stream,
  { budget, limits }: IngestGate,
  pieces: Pieces,
): Promise<Buffer> {
  const tooLarge = () =>
    new CallError(
      GrpcStatus.RESOURCE_EXHAUSTED,
      `message larger than ${limits.maxBodyBytes} bytes (after inflation)`,
    );
  const deadlineError = (message: string) => new CallError(GrpcStatus.DEADLINE_EXCEEDED, message);
  return new Promise<Buffer>((resolve, reject) => {
    const end = () => {
      idle.stop();
      clearTimeout(deadline);
      stopReading();
      stream.off('data', take);
    };
    const stop = (err: CallError) => {
      end();
      reject(err);
    };
    const idle = new IdleWatch(limits.bodyIdleMs, () => {
      stop(deadlineError(`the message sent nothing for ${limits.bodyIdleMs / 1000} s`));
    });
    const deadline = setTimeout(() => {
      stop(deadlineError(`the message did not arrive within ${limits.bodyMs / 1000} s`));
    }, limits.bodyMs);
    // Over the memory budget a call being read stops at once, not at its next frame.
    const stopReading = budget.reading(() => {
      stop(busy(budget));
    });
    const take = (chunk: Buffer) => {
      idle.touch();
      const before = pieces.size;
      if (before + chunk.length > limits.maxBodyBytes + 5) {
        stop(tooLarge());
        return;
      }
      const refused = pieces.add(chunk);
      if (refused === 'pieces') {
        const message = `the message came in more than ${MAX_PIECES} frames`;
        stop(new CallError(GrpcStatus.INVALID_ARGUMENT, message));
      } else if (refused === 'budget') stop(busy(budget));
      // The prefix (flag, length) is known from the fifth byte on: refuse before the rest comes.
      else if (
        before < 5 &&
        pieces.size >= 5 &&
        pieces.head(5).readUInt32BE(1) > limits.maxBodyBytes
      )
        stop(tooLarge());
    };
    stream.on('data', take);
    stream.once('end', () => {
      end();
      resolve(pieces.join());
    });
    stream.once('close', () => {
      stop(new CallError(GrpcStatus.UNAVAILABLE, 'the call was cancelled'));
    });
  });
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
