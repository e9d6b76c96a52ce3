// The exposition as pieces of bytes, sent as they are or gzipped when the scraper asks for it
// (Prometheus sends Accept-Encoding: gzip on every scrape; 80,000 lines of repetitive text shrink
// about twentyfold). A piece that does not change between scrapes (the families of one broker
// answer) is encoded and compressed once: each piece is deflated on its own, ending on a byte
// boundary (a sync flush), and the pieces of a scrape are joined into one gzip member (RFC 1952:
// header, the deflate blocks, an empty final block, CRC-32 and length), which every gzip reader
// reads. The compression runs in libuv's thread pool at the fastest level: an exporter's CPU is
// the monitored host's.
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw } from 'node:zlib';

const deflateRawAsync = promisify(deflateRaw);

/** A gzip header: deflate, no name, no time, unknown OS. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** An empty final deflate block (fixed Huffman codes): what ends the stream. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** Bytes of the exposition, with their deflated form made at most once. */
export class Piece {
  private deflated: Promise<Buffer> | null = null;

  constructor(readonly bytes: Buffer) {}

  static of(text: string): Piece {
    return new Piece(Buffer.from(text));
  }

  /** Raw deflate ending with a sync flush: another piece's blocks may follow. */
  deflate(): Promise<Buffer> {
    this.deflated ??= deflateRawAsync(this.bytes, {
      level: constants.Z_BEST_SPEED,
      finishFlush: constants.Z_SYNC_FLUSH,
    });
    return this.deflated;
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
    const chunks = pieces.map((p) => p.bytes);
    return { chunks, length: byteLength(chunks), encoding: null };
  }
  let crc = 0;
  let size = 0;
  for (const p of pieces) {
    crc = crc32(p.bytes, crc);
    size += p.bytes.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size % 2 ** 32, 4);
  const deflated = await Promise.all(pieces.map((p) => p.deflate()));
  const chunks = [GZIP_HEADER, ...deflated, FINAL_BLOCK, trailer];
  return { chunks, length: byteLength(chunks), encoding: 'gzip' };
}

const byteLength = (chunks: readonly Buffer[]) => chunks.reduce((n, c) => n + c.length, 0);
