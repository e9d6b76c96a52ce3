// The OTLP/gRPC receiver's connections, bounded so that no one can take them from the SDKs: at
// most MAX_CONNECTIONS in all and MAX_PER_PEER from one address (the rest closed as they come); a
// connection that has not opened an admitted call (the token checked, when one is set) within
// SIGN_IN_MS of opening is closed; one with no admitted call for `idleMs` is closed; every one
// after MAX_CONNECTION_AGE_MS (clients reconnect, which lets load spread). Only an admitted call
// counts as use: streams refused on their headers (an unknown path, no token) refresh nothing, so a
// client that sends one HEADERS frame every 20 s holds no slot (it held all 64 before).
import type { Socket } from 'node:net';
import type { Http2Server, Http2Session } from 'node:http2';

/** Connections at once; one more is closed at once (its client retries, UNAVAILABLE). */
export const MAX_CONNECTIONS = 64;
/**
 * Connections from one address at once. SDKs open one per exporter; a proxy or Collector in front
 * may open several, so a quarter of all rather than a handful.
 */
export const MAX_PER_PEER = 16;
/** A connection must open an admitted call this soon, or it is closed. */
export const SIGN_IN_MS = 5_000;
const MAX_CONNECTION_AGE_MS = 10 * 60_000;

interface Tracked {
  /** Closes it when nothing admitted came for a while (first SIGN_IN_MS, then idleMs). */
  idle: NodeJS.Timeout;
  age: NodeJS.Timeout;
  signedIn: boolean;
}

export class GrpcSessions {
  private readonly tracked = new Map<Http2Session, Tracked>();
  private readonly perPeer = new Map<string, number>();

  /** @param idleMs a connection with no admitted call this long is closed */
  constructor(
    server: Http2Server,
    private readonly idleMs: number,
  ) {
    server.maxConnections = MAX_CONNECTIONS;
    server.on('connection', (socket: Socket) => {
      this.counted(socket);
    });
    server.on('session', (session) => {
      this.track(session);
    });
  }

  /** The sessions open now. */
  get all(): IterableIterator<Http2Session> {
    return this.tracked.keys();
  }

  /** A call on `session` was admitted: the session is in use; its idle bound is idleMs now. */
  used(session: Http2Session): void {
    const t = this.tracked.get(session);
    if (!t) return;
    if (t.signedIn) {
      t.idle.refresh();
      return;
    }
    t.signedIn = true;
    clearTimeout(t.idle);
    t.idle = setTimeout(() => {
      session.close();
    }, this.idleMs).unref();
  }

  /** Counts a connection by its peer's address; one over MAX_PER_PEER is closed at once. */
  private counted(socket: Socket): void {
    const peer = socket.remoteAddress ?? '';
    const n = (this.perPeer.get(peer) ?? 0) + 1;
    this.perPeer.set(peer, n);
    socket.once('close', () => {
      const left = (this.perPeer.get(peer) ?? 1) - 1;
      if (left > 0) this.perPeer.set(peer, left);
      else this.perPeer.delete(peer);
    });
    if (n > MAX_PER_PEER) socket.destroy();
  }

  private track(session: Http2Session): void {
    const t: Tracked = {
      idle: setTimeout(() => {
        session.close();
      }, SIGN_IN_MS).unref(),
      age: setTimeout(() => {
        session.close();
      }, MAX_CONNECTION_AGE_MS).unref(),
      signedIn: false,
    };
    this.tracked.set(session, t);
    session.once('close', () => {
      clearTimeout(t.idle);
      clearTimeout(t.age);
      this.tracked.delete(session);
    });
    session.on('error', () => undefined);
  }
}
