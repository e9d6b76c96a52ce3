// Reads an OTLP request body within its bounds: the body's own size after inflation
// (maxBodyBytes, 413 beyond), the pieces it may come in (pieces.ts, 400 beyond), what every body
// being read or worked on holds at once (the in-flight budget, 503 with Retry-After beyond; and
// over the exporter's memory budget, 503 for the bodies being read too), time without a byte
// (bodyIdleTimeout) and time in all (bodyTimeout: a body sent but for a byte dripped every few
// seconds), the body dropped. The budget is charged for what is held as it arrives (after
// inflation), never by what a client declares: a connection that declares 8 MiB and sends nothing
// holds nothing. A body whose declared size does not fit what is free now is refused before it is
// read. A refused body is read and thrown away (discard.ts), so the client sees the answer, not a
// reset.
import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { BudgetRefusal, ByteBudget } from './budget.js';
import { discardBody, discardLimit } from './discard.js';
import { IdleWatch } from './idle.js';
import { MAX_PIECES, Pieces } from './pieces.js';

export class BodyError extends Error {
  constructor(
    readonly status: 400 | 408 | 413 | 415 | 503,
    message: string,
    /** A 408 for a body that kept sending but too slowly (bodyTimeout), not an idle one. */
    readonly slow = false,
    /** A 503's cause: the in-flight budget, or the exporter's memory. */
    readonly refusal: BudgetRefusal = 'over_budget',
  ) {
    super(message);
  }
}

const INFLATE = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
} as const;

/**
 * A body, as the chunks it arrived in (a large one is moved to a decoding worker as they are,
 * never joined on the event loop), and the budget it holds: release it when the request is
 * answered.
 */
export interface Body {
  chunks: Buffer[];
  release(): void;
}

/** A body's bounds in time, and how a refused one is thrown away (discard.ts). */
export interface BodyTimes {
  idleMs: number;
  totalMs: number;
  /** Node's HTTP parser throws it away (the default); false: read as 'data' events. */
  discardInParser?: boolean;
}

/**
 * Reads (and inflates) the body, charging what it holds to the budget as it arrives. Throws
 * BodyError; on any error the budget taken is given back. A body idle for `idleMs` is destroyed
 * (408; the connection goes with it).
 */
export async function readBody(
  req: IncomingMessage,
  budget: ByteBudget,
  maxBodyBytes: number,
  { idleMs, totalMs, discardInParser = true }: BodyTimes,
  /** Called once the declared size is within the bounds, before the first byte is read. */
  beforeRead: () => void = () => undefined,
): Promise<Body> {
  const discard = { parser: discardInParser };
  const { encoding, inflate } = checkHeaders(req, budget, maxBodyBytes);
  beforeRead();

  const declared = inflate ? null : Number(req.headers['content-length'] ?? NaN);
  const pieces = new Pieces(budget, Number.isSafeInteger(declared) ? declared : null);
  let idle: IdleWatch | undefined;
  let cleanup: () => void = () => undefined;
  let done = false;
  const sink = inflate ? inflate() : null;
  const source = sink ?? req;
  try {
    await new Promise<void>((resolve, reject) => {
      const stop = (err: Error) => {
        source.off('data', take);
        if (sink) {
          req.unpipe(sink);
          sink.destroy();
        }
        reject(err);
      };
      const drop = (err: BodyError) => {
        stop(err);
        req.destroy(err);
      };
      idle = new IdleWatch(idleMs, () => {
        drop(new BodyError(408, `the request body sent nothing for ${idleMs / 1000} s`));
      });
      // After setImmediate, as the idle watch: bytes that came during a stall are read first.
      const deadline = setTimeout(() => {
        setImmediate(() => {
          if (!done)
            drop(new BodyError(408, `the request body took over ${totalMs / 1000} s`, true));
        });
      }, totalMs);
      const quiet = () => {
        idle?.touch();
      };
      // Over the memory budget a body being read stops at once, not at its next piece.
      const stopReading = budget.reading(() => {
        stop(busy(budget));
      });
      // Charged as the bytes arrive (after inflation): a gzip bomb stops at the budget too.
      const take = (chunk: Buffer) => {
        if (pieces.size + chunk.length > maxBodyBytes) {
          stop(new BodyError(413, `body larger than ${maxBodyBytes} bytes (after inflation)`));
          return;
        }
        const refused = pieces.add(chunk);
        if (refused === 'pieces')
          stop(new BodyError(400, `the request body came in more than ${MAX_PIECES} pieces`));
        else if (refused === 'budget') stop(busy(budget));
      };
      cleanup = () => {
        done = true;
        clearTimeout(deadline);
        idle?.stop();
        stopReading();
        req.off('data', quiet);
        source.off('data', take);
      };
      req.on('data', quiet);
      if (sink) req.pipe(sink);
      source.on('data', take);
      source.once('end', () => {
        resolve();
      });
      source.once('error', stop);
      req.once('close', () => {
        if (!req.complete) stop(new Error('aborted'));
      });
    });
  } catch (err) {
    pieces.release();
    if (err instanceof BodyError) {
      if (err.status !== 408) discardBody(req, discardLimit(maxBodyBytes), idleMs, discard);
      throw err;
    }
    const code = (err as { code?: string }).code ?? '';
    if (code.startsWith('Z_') || code.startsWith('ERR__')) {
      discardBody(req, discardLimit(maxBodyBytes), idleMs, discard);
      throw new BodyError(400, `unreadable ${encoding} body: ${(err as Error).message}`);
    }
    // The client went away mid-body: nothing to answer, nothing was taken.
    throw new BodyError(400, `the request body ended early (${code || (err as Error).message})`);
  } finally {
    cleanup();
  }
  return {
    chunks: pieces.buffers(),
    release: () => {
      pieces.release();
    },
  };
}

/** What the headers say of the body, refused (BodyError) before a byte of it is read. */
function checkHeaders(req: IncomingMessage, budget: ByteBudget, maxBodyBytes: number) {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const inflate =
    encoding === 'identity'
      ? null
      : (INFLATE as Partial<Record<string, (typeof INFLATE)[keyof typeof INFLATE]>>)[encoding];
  if (inflate === undefined)
    throw new BodyError(415, `content-encoding ${encoding} is not supported (gzip, deflate, br)`);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (!Number.isSafeInteger(declared) || declared < 0)
    throw new BodyError(400, 'content-length is not a number of bytes');
  if (declared > maxBodyBytes)
    throw new BodyError(413, `body larger than ${maxBodyBytes} bytes (after inflation)`);
  if (declared > budget.max - budget.inUse) throw busy(budget);
  return { encoding, inflate };
}

function busy(budget: ByteBudget): BodyError {
  const why = budget.refusal;
  return new BodyError(503, budget.describe(why), false, why);
}
