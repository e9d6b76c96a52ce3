// What a request says about where it comes from, believed only as far as config.trustProxy says.
import 'server-only';
import type { NextRequest } from 'next/server';
import { config } from './config';

/**
 * The client's address: behind a trusted proxy, the last address in X-Forwarded-For (the one the
 * proxy saw); otherwise the header as Next.js set it from the connection (a client that sends
 * its own header chooses its own key; the global sign-in limit still holds).
 */
export function clientAddress(req: NextRequest): string {
  const forwarded = req.headers.get('x-forwarded-for') ?? '';
  const parts = forwarded
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return (config.trustProxy ? parts.at(-1) : parts[0])?.slice(0, 64) ?? 'unknown';
}

/** Whether the browser reached us over https (only a trusted proxy can say so). */
export function overHttps(req: NextRequest): boolean {
  return config.trustProxy && req.headers.get('x-forwarded-proto') === 'https';
}

/**
 * A state-changing request from a page of another site is refused: browsers say where a request
 * comes from (Sec-Fetch-Site, Origin); a request that says nothing is not from a browser page.
 */
export function crossSite(req: NextRequest): boolean {
  const site = req.headers.get('sec-fetch-site');
  if (site) return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.get('origin');
  if (!origin) return false;
  const host =
    (config.trustProxy ? req.headers.get('x-forwarded-host') : null) ?? req.headers.get('host');
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}
