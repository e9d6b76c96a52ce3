// What an API handler answers, as data: a status, a JSON body and its headers. Handlers are plain
// functions of their inputs that return a Reply (tested without HTTP); `send` is the one place
// that writes one to Express.
import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });

/** An error answer: `{ error }`, with headers such as Retry-After. */
export const refusal = (
  status: number,
  error: string,
  headers?: Record<string, string>,
): Reply => ({ status, body: { error }, ...(headers ? { headers } : {}) });

/**
 * The answer while the store cannot be read (a restart, a failover, connections being ended): 503
 * with a stable code, and a short Retry-After, since the pools reconnect by themselves.
 */
export const storeUnavailable = (what = 'the journey store'): Reply => ({
  status: 503,
  body: { error: `${what} is unavailable; retry later`, code: 'store_unavailable' },
  headers: { 'retry-after': '2' },
});

/** The Express handler that sends what `handle` replies. */
export function send<P = Record<string, string>>(
  handle: (req: Request<P>, res: Response) => Reply | Promise<Reply>,
): RequestHandler<P> {
  return async (req, res) => {
    const reply = await handle(req, res);
    if (reply.headers) res.set(reply.headers);
    // Text (a CSV export) goes as it is, with the content type its headers give.
    if (typeof reply.body === 'string') res.status(reply.status).send(reply.body);
    else res.status(reply.status).json(reply.body);
  };
}

/** A 400's words for what a query or body failed: each parameter and what is wrong with it. */
export function explain(error: z.ZodError): string {
  return error.issues
    .map((i) =>
      i.code === 'unrecognized_keys'
        ? `unknown parameter(s): ${i.keys.join(', ')}`
        : `${i.path.join('.') || 'body'}: ${i.message}`,
    )
    .join('; ');
}
