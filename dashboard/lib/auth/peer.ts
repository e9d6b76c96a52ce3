// Next.js gives a route no socket address, and keeps an X-Forwarded-For that a client sent (it
// only fills one in when there is none). So the server stamps each request with its TCP peer's
// address, in a header of ours that replaces any the client sent, before Next.js sees it: what
// lib/auth/request.ts decides trust by (DASHBOARD_TRUSTED_PROXY). Installed once, at start
// (instrumentation.ts), on every HTTP server of the process.
import { Server, type IncomingMessage } from 'node:http';

export const PEER_HEADER = 'x-acktrail-peer';

let installed = false;

export function stampPeerAddresses(): void {
  if (installed) return;
  installed = true;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the server as this
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (this: Server, ...args: Parameters<Server['emit']>) {
    const [event, req] = args as unknown as [string | symbol, IncomingMessage];
    if (event === 'request') {
      const address = req.socket.remoteAddress ?? '';
      // An IPv4 client of a dual-stack listener shows as ::ffff:a.b.c.d.
      req.headers[PEER_HEADER] = address.startsWith('::ffff:') ? address.slice(7) : address;
    }
    return emit.apply(this, args);
  } as typeof Server.prototype.emit;
}
