// The exposition as pieces of bytes, sent as they are or gzipped when the scraper asks for it
// (Prometheus sends Accept-Encoding: gzip on every scrape; 80,000 lines of repetitive text shrink
// about twentyfold). A piece that does not change between scrapes (the families of one broker
// answer) is encoded and compressed once: each piece is deflated on its own, ending on a byte
// boundary (a sync flush), and the pieces of a scrape are joined into one gzip member (RFC 1952:
// header, the deflate blocks, an empty final block, CRC-32 and length), which every gzip reader
// reads. The compression runs in libuv's thread pool at the fastest level: an exporter's CPU is
// the monitored host's.
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw, inflateRaw } from 'node:zlib';
import { crc32Combine } from './crc32.js';

const deflateRawAsync = promisify(deflateRaw);
const inflateRawAsync = promisify(inflateRaw);
const SYNC_FLUSH = { finishFlush: constants.Z_SYNC_FLUSH };

/** A gzip header: deflate, no name, no time, unknown OS. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** An empty final deflate block (fixed Huffman codes): what ends the stream. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/**
 * Bytes of the exposition, with their deflated form made at most once, and their CRC-32 (for the
 * gzip trailer) summed once. A cached piece (one broker answer's families, megabytes at 10,000
 * queues) lets its bytes go once deflated: scrapers ask for gzip, and one that does not gets them
 * inflated again.
 */
export class Piece {
  readonly length: number;
  readonly crc: number;
  private raw: Buffer | null;
  private deflated: Promise<Buffer> | null = null;

  private constructor(
    bytes: Buffer,
    private readonly cached: boolean,
  ) {
    this.raw = bytes;
    this.length = bytes.length;
    this.crc = crc32(bytes);
  }

  /** A piece of one scrape. */
  static of(text: string): Piece {
    return new Piece(Buffer.from(text), false);
  }

  /** A piece served by many scrapes: only its deflated form stays once it is made. */
  static cached(text: string): Piece {
    return new Piece(Buffer.from(text), true);
  }

  /** Raw deflate ending with a sync flush: another piece's blocks may follow. */
  deflate(): Promise<Buffer> {
    this.deflated ??= deflateRawAsync(this.raw!, {
      level: constants.Z_BEST_SPEED,
      ...SYNC_FLUSH,
    }).then((deflated) => {
      if (this.cached) this.raw = null;
      return deflated;
    });
    return this.deflated;
  }

  /** The piece's bytes as they are (inflated again, in libuv's pool, once they were let go). */
  async read(): Promise<Buffer> {
    return this.raw ?? inflateRawAsync(await this.deflate(), SYNC_FLUSH);
  }
}

export interface Encoded {
  chunks: Buffer[];
  length: number;
  /** The Content-Encoding to answer with; null: identity. */
  encoding: 'gzip' | null;
}

/** `accepted`: what the request's Accept-Encoding chose among gzip and identity (express). */
export async function encodeExposition(
  pieces: readonly Piece[],
  accepted: string | false,
): Promise<Encoded> {
  if (accepted !== 'gzip') {
    const chunks = await Promise.all(pieces.map((p) => p.read()));
    return { chunks, length: byteLength(chunks), encoding: null };
  }
  let crc = 0;
  let size = 0;
  for (const p of pieces) {
    crc = crc32Combine(crc, p.crc, p.length);
    size += p.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc, 0);
  trailer.writeUInt32LE(size % 2 ** 32, 4);
  const deflated = await Promise.all(pieces.map((p) => p.deflate()));
  const chunks = [GZIP_HEADER, ...deflated, FINAL_BLOCK, trailer];
  return { chunks, length: byteLength(chunks), encoding: 'gzip' };
}

const byteLength = (chunks: readonly Buffer[]) => chunks.reduce((n, c) => n + c.length, 0);
