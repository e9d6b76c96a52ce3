// Reads an OTLP request body within two bounds: the body's own size after inflation
// (maxBodyBytes, 413 beyond) and the bytes of every body being read or worked on at once (the
// in-flight budget, 503 with Retry-After beyond). A body whose declared size does not fit the
// budget is refused before a byte of it is read; a compressed one is charged as it inflates, so
// a gzip bomb never gets further than the budget either.
import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

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
    readonly status: 400 | 413 | 415 | 503,
    message: string,
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

/** A body and the budget it holds: release it when the request is answered. */
export interface Body {
  bytes: Buffer;
  release(): void;
}

/**
 * Takes the request's declared size from the budget, then reads (and inflates) the body,
 * charging every byte beyond the declared size as it arrives. Throws BodyError; on any error
 * the budget taken is given back.
 */
export async function readBody(
  req: IncomingMessage,
  budget: ByteBudget,
  maxBodyBytes: number,
): Promise<Body> {
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
  if (!budget.tryTake(declared)) throw busy(budget);

  let held = declared;
  let size = 0;
  const chunks: Buffer[] = [];
  const collect = new Writable({
    write(chunk: Buffer, _enc, done: (err?: Error) => void) {
      size += chunk.length;
      if (size > maxBodyBytes) {
        done(new BodyError(413, `body larger than ${maxBodyBytes} bytes (after inflation)`));
        return;
      }
      if (size > held) {
        if (!budget.tryTake(size - held)) {
          done(busy(budget));
          return;
        }
        held = size;
      }
      chunks.push(chunk);
      done();
    },
  });
  try {
    await (inflate ? pipeline(req, inflate(), collect) : pipeline(req, collect));
  } catch (err) {
    budget.release(held);
    if (err instanceof BodyError) throw err;
    const code = (err as { code?: string }).code ?? '';
    if (code.startsWith('Z_') || code.startsWith('ERR__'))
      throw new BodyError(400, `unreadable ${encoding} body: ${(err as Error).message}`);
    // The client went away mid-body: nothing to answer, nothing was taken.
    throw new BodyError(400, `the request body ended early (${code || (err as Error).message})`);
  }
  let released = false;
  return {
    bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size),
    release: () => {
      if (released) return;
      released = true;
      budget.release(held);
    },
  };
}

function busy(budget: ByteBudget): BodyError {
  return new BodyError(
    503,
    `the receiver holds its in-flight budget (${budget.max} bytes of request bodies); retry later`,
  );
}
