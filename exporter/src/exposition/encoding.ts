// The exposition gzipped when the scraper asks for it (Prometheus sends Accept-Encoding: gzip on
// every scrape): 80,000 lines of repetitive text shrink about tenfold. The compression runs in
// libuv's thread pool, not on the event loop, at the fastest level: an exporter's CPU is the
// monitored host's.
import { promisify } from 'node:util';
import { constants, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

export interface Encoded {
  body: string | Buffer;
  /** The Content-Encoding to answer with; null: identity. */
  encoding: 'gzip' | null;
}

/** `accepted`: what the request's Accept-Encoding chose among gzip and identity (express). */
export async function encodeExposition(body: string, accepted: string | false): Promise<Encoded> {
  if (accepted !== 'gzip') return { body, encoding: null };
  return {
    body: await gzipAsync(body, { level: constants.Z_BEST_SPEED }),
    encoding: 'gzip',
  };
}
