// How many requests of one kind a token may have running at once (after requireToken): past it,
// 429 with Retry-After, before anything reads the store. Tokens are counted by what they may do
// (read, operate): the dashboard reads with one token for every viewer, so a limit per token is a
// limit on what all of them together can ask of the store's read pool.
import type { RequestHandler } from 'express';
import { scopeOf, type Scope } from './auth.js';

/** `what` names the requests and the key that sets `max`, for the 429's message. */
export function concurrentPerToken(max: number, what: string): RequestHandler {
  const running = new Map<Scope, number>();
  return (_req, res, next) => {
    const scope = scopeOf(res);
    const now = running.get(scope) ?? 0;
    if (now >= max) {
      res
        .status(429)
        .set('retry-after', '1')
        .json({ error: `${now} ${what} of this token are running; retry when one ends` });
      return;
    }
    running.set(scope, now + 1);
    // 'close' comes once the answer is sent or the client went away, whichever is first.
    res.once('close', () => {
      running.set(scope, (running.get(scope) ?? 1) - 1);
    });
    next();
  };
}
