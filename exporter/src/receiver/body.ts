// Reads an OTLP request body within three bounds: the body's own size after inflation
// (maxBodyBytes, 413 beyond), the bytes of every body being read or worked on at once (the
// in-flight budget, 503 with Retry-After beyond), time without a byte (bodyIdleTimeout) and time in
// all (bodyTimeout: a body sent but for a byte dripped every few seconds), the body dropped. The budget is charged by bytes received (after inflation), never by what a
// client declares: a connection that declares 8 MiB and sends nothing holds nothing. A body
// whose declared size does not fit what is free now is refused before it is read. A refused
// body is read and thrown away (discard.ts), so the client sees the answer, not a reset.
import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { discardBody, discardLimit } from './discard.js';
import { IdleWatch } from './idle.js';

/** Bytes of request bodies held at once, shared by every request of one receiver. */
export class ByteBudget {
  private used = 0;

  /** @param onChange told the bytes in use after every change (a gauge). */
  constructor(
    readonly max: number,
    private readonly onChange: (inUse: number) => void = () => undefined,
  ) {}

  get inUse(): number {
    return this.used;
  }

  /** Takes `n` bytes if they fit; nothing is taken otherwise. */
  tryTake(n: number): boolean {
    if (this.used + n > this.max) return false;
    this.used += n;
    this.onChange(this.used);
    return true;
  }

  release(n: number): void {
    this.used = Math.max(0, this.used - n);
    this.onChange(this.used);
  }
}

export class BodyError extends Error {
  constructor(
    readonly status: 400 | 408 | 413 | 415 | 503,
    message: string,
    /** A 408 for a body that kept sending but too slowly (bodyTimeout), not an idle one. */
    readonly slow = false,
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
 * Reads (and inflates) the body, charging every byte to the budget as it arrives. Throws
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

  let held = 0;
  let size = 0;
  const chunks: Buffer[] = [];
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
      // Charged as the bytes arrive (after inflation): a gzip bomb stops at the budget too.
      const take = (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBodyBytes) {
          stop(new BodyError(413, `body larger than ${maxBodyBytes} bytes (after inflation)`));
          return;
        }
        if (!budget.tryTake(size - held)) {
          stop(busy(budget));
          return;
        }
        held = size;
        chunks.push(chunk);
      };
      cleanup = () => {
        done = true;
        clearTimeout(deadline);
        idle?.stop();
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
    budget.release(held);
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
  let released = false;
  return {
    chunks,
    release: () => {
      if (released) return;
      released = true;
      budget.release(held);
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
  return new BodyError(
    503,
    `the receiver holds its in-flight budget (${budget.max} bytes of request bodies); retry later`,
  );
}
