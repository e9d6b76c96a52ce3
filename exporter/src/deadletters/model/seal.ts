// What a parked dead letter says (properties, headers, body) is sealed with AES-256-GCM under
// ACKTRAIL_DEAD_LETTER_KEY before it reaches the store: a fresh 96-bit nonce per message, the
// 128-bit tag beside it, and the message's queue as associated data (a sealed body moved to
// another row's queue does not open). The key id (a hash prefix) says which key sealed a row.
import { createCipheriv, createDecipheriv, createHash, randomFillSync } from 'node:crypto';

const NONCE = 12;
const TAG = 16;

const ids = new WeakMap<Buffer, string>();

/** The key's id, computed once per key (parking asks for it once per message). */
export function keyId(key: Buffer): string {
  let id = ids.get(key);
  if (id === undefined) {
    id = createHash('sha256').update(key).digest('hex').slice(0, 16);
    ids.set(key, id);
  }
  return id;
}

/**
 * Random nonces, drawn from the system's generator a few hundred at a time: one randomBytes(12)
 * per message cost parking more than the cipher itself (docs/benchmarks-history.md, dead-letter parking).
 * Each nonce is a fresh slice of random bytes, used once.
 */
const nonces = Buffer.alloc(NONCE * 512);
let nextNonce = nonces.length;

function nonceInto(out: Buffer): void {
  if (nextNonce === nonces.length) {
    randomFillSync(nonces);
    nextNonce = 0;
  }
  nonces.copy(out, 0, nextNonce, nextNonce + NONCE);
  nextNonce += NONCE;
}

/** A row sealed with a key this exporter does not hold: says which, so the key can be found. */
export class UnknownKeyError extends Error {
  readonly code = 'UNKNOWN_KEY';
  constructor(
    readonly keyId: string,
    currentId: string,
  ) {
    super(
      `sealed with key ${keyId}, which is neither ACKTRAIL_DEAD_LETTER_KEY (key ${currentId}) nor in ACKTRAIL_DEAD_LETTER_KEYS: give that key in ACKTRAIL_DEAD_LETTER_KEYS to open it`,
    );
  }
}

/** nonce ‖ tag ‖ ciphertext, in one buffer. */
export function seal(key: Buffer, plain: Buffer, aad: string): Buffer {
  const out = Buffer.allocUnsafe(NONCE + TAG + plain.length);
  const nonce = out.subarray(0, NONCE);
  nonceInto(nonce);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(aad));
  let at = NONCE + TAG + cipher.update(plain).copy(out, NONCE + TAG);
  at += cipher.final().copy(out, at);
  cipher.getAuthTag().copy(out, NONCE);
  return at === out.length ? out : out.subarray(0, at);
}

/** Throws when the key is another one or the sealed bytes were changed. */
export function unseal(key: Buffer, sealed: Buffer, aad: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(sealed.subarray(NONCE, NONCE + TAG));
  return Buffer.concat([decipher.update(sealed.subarray(NONCE + TAG)), decipher.final()]);
}
