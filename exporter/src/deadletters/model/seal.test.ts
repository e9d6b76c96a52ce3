import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import test from 'node:test';
import { keyId, seal, unseal } from './seal.js';

test('every seal takes a nonce of its own, across refills of the nonce pool', () => {
  const key = randomBytes(32);
  const body = Buffer.from('{"to":"someone@example.com"}');
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const sealed = seal(key, body, 'q');
    assert.equal(sealed.length, 12 + 16 + body.length);
    assert.ok(unseal(key, sealed, 'q').equals(body));
    seen.add(sealed.subarray(0, 12).toString('hex'));
  }
  assert.equal(seen.size, 2000);
});

test("a key's id is its hash prefix, whichever buffer holds it", () => {
  const key = randomBytes(32);
  const id = createHash('sha256').update(key).digest('hex').slice(0, 16);
  assert.equal(keyId(key), id);
  assert.equal(keyId(key), id);
  assert.equal(keyId(Buffer.from(key)), id);
  assert.notEqual(keyId(randomBytes(32)), id);
});
