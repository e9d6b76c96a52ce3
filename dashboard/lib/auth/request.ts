// What a request says about where it comes from and who sent it, believed only from a trusted
// proxy (config.trustedProxy): the TCP peer's address is stamped by the server (lib/auth/peer.ts).
import 'server-only';
import { isIPv4 } from 'node:net';
import type { NextRequest } from 'next/server';
import { config } from '../config/settings';
import { PEER_HEADER } from './peer';

/** The TCP peer's address, as the server stamped it; '' when unknown. */
export const peerOf = (headers: Headers): string => headers.get(PEER_HEADER) ?? '';

/** Whether the request came straight from one of the proxies in DASHBOARD_TRUSTED_PROXY. */
export function fromTrustedProxy(headers: Headers): boolean {
  const peer = peerOf(headers);
  if (!peer || !config.trustedProxy) return false;
  return config.trustedProxy.check(peer, isIPv4(peer) ? 'ipv4' : 'ipv6');
}

/**
 * The client's address, the key of the sign-in limits: the TCP peer; behind a trusted proxy, the
 * address DASHBOARD_TRUSTED_HOPS entries from the right of X-Forwarded-For (the one the outermost
 * proxy saw; entries left of it the client wrote), or its first when the chain is shorter.
 */
export function clientAddress(req: NextRequest): string {
  const peer = peerOf(req.headers) || 'unknown';
  if (!fromTrustedProxy(req.headers)) return peer;
  const forwarded = (req.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return (forwarded.at(-config.trustedHops) ?? forwarded[0])?.slice(0, 64) ?? peer;
}

/** Whether the browser reached us over https (only a trusted proxy can say so). */
export function overHttps(req: NextRequest): boolean {
  return fromTrustedProxy(req.headers) && req.headers.get('x-forwarded-proto') === 'https';
}

/**
 * A state-changing request from a page of another site is refused: browsers say where a request
 * comes from (Sec-Fetch-Site, Origin); a request that says nothing is not from a browser page.
 */
export function crossSite(headers: Headers): boolean {
  const site = headers.get('sec-fetch-site');
  if (site) return site !== 'same-origin' && site !== 'none';
  const origin = headers.get('origin');
  if (!origin) return false;
  const host =
    (fromTrustedProxy(headers) ? headers.get('x-forwarded-host') : null) ?? headers.get('host');
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}
