// Bearer-token check for the journey API. With no token configured every request is refused:
// order data is never public by accident.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function requireToken(token: string | null) {
  const expected = token ? digest(token) : null;
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.get('authorization') ?? '';
    const given = /^Bearer (.+)$/i.exec(header)?.[1];
    if (!expected) {
      res.status(401).json({ error: 'the journey API is off: set ACKTRAIL_API_TOKEN' });
      return;
    }
    if (!given || !timingSafeEqual(digest(given), expected)) {
      res.status(401).set('www-authenticate', 'Bearer realm="acktrail"').json({
        error: 'missing or wrong bearer token (Authorization: Bearer <ACKTRAIL_API_TOKEN>)',
      });
      return;
    }
    next();
  };
}
