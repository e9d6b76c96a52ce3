// A request body's bytes as they are held while it is read, charged to the in-flight budget for
// what holding them costs. A client chooses the size of its pieces: an HTTP chunk or an HTTP/2
// DATA frame may carry one byte, and each piece kept as a Buffer of its own costs about 350 B of
// resident memory (HTTP) or 130 B (gRPC) for that byte, so that bytes alone undercharged 24 MB of
// one-byte chunks by 300 times. Small pieces are copied into segments that grow over a run of them
// (1 KiB, doubling to 1 MiB, never past what the body declared): the piece itself is young garbage
// at once. Large ones are kept as they came. The budget is charged each segment's whole capacity
// and a floor per Buffer held, before the bytes are held; and a body may arrive in at most
// MAX_PIECES pieces.
import type { ByteBudget } from './budget.js';

/**
 * Pieces one body may arrive in. SDKs write a body in one go (socket reads of up to 64 KiB,
 * HTTP/2 frames of 16 KiB): an 8 MiB body comes in a few hundred. 65,536 is an average piece of
 * 128 B at the default maxBodyBytes.
 */
export const MAX_PIECES = 65_536;
/** Pieces this large are kept as they came; smaller ones are copied. */
const COPY_BELOW = 16 * 1024;
const FIRST_SEGMENT = 1024;
const LAST_SEGMENT = 1024 * 1024;
/** What a Buffer held costs beyond its bytes: its object, its backing store, its array slot. */
export const PIECE_COST = 256;

/** Why a piece was not taken; nothing is held for it. */
export type Refusal = 'budget' | 'pieces';

export class Pieces {
  private readonly held: Buffer[] = [];
  private segment: Buffer | null = null;
  private used = 0;
  private nextSegment = FIRST_SEGMENT;
  private count = 0;
  /** Bytes received. */
  size = 0;
  /** What the budget was charged for this body. */
  charged = 0;

  /** @param declared the body's length where the client declared it (uncompressed), else null */
  constructor(
    private readonly budget: ByteBudget,
    private readonly declared: number | null = null,
  ) {}

  /** Holds a piece, charged before it is held; a refusal holds nothing for it. */
  add(piece: Buffer): Refusal | null {
    if (this.count >= MAX_PIECES) return 'pieces';
    this.count++;
    if (piece.length >= COPY_BELOW) {
      if (!this.charge(piece.length + PIECE_COST)) return 'budget';
      this.seal();
      this.held.push(piece);
      // Segments grow over a run of small pieces only: one between large ones gets its own size.
      this.nextSegment = FIRST_SEGMENT;
    } else {
      if (!this.segment || this.used + piece.length > this.segment.length) {
        const capacity = this.capacityFor(piece.length);
        if (!this.charge(capacity + PIECE_COST)) return 'budget';
        this.seal();
        this.segment = Buffer.allocUnsafeSlow(capacity);
        this.nextSegment = Math.min(this.nextSegment * 2, LAST_SEGMENT);
      }
      piece.copy(this.segment, this.used);
      this.used += piece.length;
    }
    this.size += piece.length;
    return null;
  }

  /** The body as the Buffers held, in order (a large body is not joined here). */
  buffers(): Buffer[] {
    this.seal();
    return this.held;
  }

  /** The body as one Buffer (a gRPC message is decoded whole); the pieces are let go. */
  join(): Buffer {
    const all = this.buffers();
    const one = all.length === 1 ? all[0]! : Buffer.concat(all, this.size);
    this.held.splice(0, this.held.length, one);
    return one;
  }

  /** The first `n` bytes received (fewer when fewer came). */
  head(n: number): Buffer {
    const parts = this.segment ? [...this.held, this.segment.subarray(0, this.used)] : this.held;
    return Buffer.concat(parts, Math.min(n, this.size)).subarray(0, n);
  }

  /** Gives back what the budget was charged; once. */
  release(): void {
    this.budget.release(this.charged);
    this.charged = 0;
  }

  private charge(n: number): boolean {
    if (!this.budget.tryTake(n)) return false;
    this.charged += n;
    return true;
  }

  /** The next segment: growing, at least the piece, never past what is left of the declared body. */
  private capacityFor(piece: number): number {
    const left = this.declared === null ? Infinity : this.declared - this.size;
    return Math.max(piece, Math.min(this.nextSegment, left));
  }

  private seal(): void {
    if (!this.segment) return;
    this.held.push(this.segment.subarray(0, this.used));
    this.segment = null;
    this.used = 0;
  }
}
