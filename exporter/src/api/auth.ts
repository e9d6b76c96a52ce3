// Bearer tokens of the API, with two permissions: `read` (ACKTRAIL_API_TOKEN: journeys, coverage,
// dead letters without their bodies) and `operate` (ACKTRAIL_OPERATOR_TOKEN: everything read
// may, plus dead-letter bodies, replay and discard). With no token configured every request is
// refused: order data is never public by accident. State changes are POST only, and refused when
// a browser says it comes from a page of another site.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export interface Tokens {
  read: string | null;
  operate: string | null;
}
export type Scope = 'read' | 'operate';

const digest = (s: string) => createHash('sha256').update(s).digest();
const matches = (given: Buffer, expected: Buffer | null) =>
  expected !== null && timingSafeEqual(given, expected);

export function requireToken(tokens: Tokens, scope: Scope = 'read') {
  const read = tokens.read ? digest(tokens.read) : null;
  const operate = tokens.operate ? digest(tokens.operate) : null;
  return (req: Request, res: Response, next: NextFunction) => {
    if (!read && !operate) {
      res.status(401).json({ error: 'the journey API is off: set ACKTRAIL_API_TOKEN' });
      return;
    }
    const header = req.get('authorization') ?? '';
    const given = /^Bearer (.+)$/i.exec(header)?.[1];
    const d = given ? digest(given) : null;
    const granted: Scope | null = !d
      ? null
      : matches(d, operate)
        ? 'operate'
        : matches(d, read)
          ? 'read'
          : null;
    if (!granted) {
      res.status(401).set('www-authenticate', 'Bearer realm="acktrail"').json({
        error: 'missing or wrong bearer token (Authorization: Bearer <ACKTRAIL_API_TOKEN>)',
      });
      return;
    }
    if (scope === 'operate' && granted !== 'operate') {
      res.status(403).json({
        error: 'this token may read, not operate: replay and discard need ACKTRAIL_OPERATOR_TOKEN',
      });
      return;
    }
    res.locals.scope = granted;
    next();
  };
}

/**
 * /metrics and /status with ACKTRAIL_METRICS_TOKEN set: the bearer token, or 401. Without one
 * they are open to whoever reaches the port (the NetworkPolicy's job).
 */
export function requireScrapeToken(token: string | null) {
  const granted = scrapeGrant(token);
  return (req: Request, res: Response, next: NextFunction) => {
    if (granted(req.get('authorization'))) {
      next();
      return;
    }
    res
      .status(401)
      .set('www-authenticate', 'Bearer realm="acktrail"')
      .type('text/plain')
      .send(`${SCRAPE_REFUSAL}\n`);
  };
}

export const SCRAPE_REFUSAL =
  'missing or wrong bearer token (Authorization: Bearer <ACKTRAIL_METRICS_TOKEN>)';

/** Whether an Authorization value may read /metrics and /status (always, without a token). */
export function scrapeGrant(token: string | null): (authorization: string | undefined) => boolean {
  const expected = token ? digest(token) : null;
  return (authorization) => {
    const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
    return !expected || (given !== undefined && matches(digest(given), expected));
  };
}

/** The permission the request's token carries (after requireToken). */
export const scopeOf = (res: Response): Scope =>
  res.locals.scope === 'operate' ? 'operate' : 'read';

/**
 * A state-changing request from a browser page of another site is refused (Sec-Fetch-Site,
 * Origin): the API is called by servers (the dashboard, scripts), which send neither.
 */
export function refuseCrossSite(req: Request, res: Response, next: NextFunction): void {
  const site = req.get('sec-fetch-site');
  const origin = req.get('origin');
  const sameHost = (() => {
    try {
      return origin !== undefined && new URL(origin).host === req.get('host');
    } catch {
      return false;
    }
  })();
  if ((site && site !== 'same-origin' && site !== 'none') || (origin && !sameHost)) {
    res.status(403).json({ error: 'refused: a state change from a page of another site' });
    return;
  }
  next();
}
