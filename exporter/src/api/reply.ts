// What an API handler answers, as data: a status, a JSON body and its headers. Handlers are plain
// functions of their inputs that return a Reply (tested without HTTP); `send` is the one place
// that writes one to Express.
import type { Request, RequestHandler, Response } from 'express';

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

/** The Express handler that sends what `handle` replies. */
export function send<P = Record<string, string>>(
  handle: (req: Request<P>, res: Response) => Reply | Promise<Reply>,
): RequestHandler<P> {
  return async (req, res) => {
    const reply = await handle(req, res);
    if (reply.headers) res.set(reply.headers);
    res.status(reply.status).json(reply.body);
  };
}
