import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { crc32Combine } from './crc32.js';

test("the CRC-32 of two parts combined is the CRC-32 of their concatenation, zlib's own", () => {
  const sizes = [0, 1, 2, 3, 7, 8, 255, 4096, 65_537, 3 * 1024 * 1024 + 5];
  for (const a of sizes)
    for (const b of sizes) {
      const [x, y] = [randomBytes(a), randomBytes(b)];
      assert.equal(
        crc32Combine(crc32(x), crc32(y), y.length),
        crc32(Buffer.concat([x, y])),
        `${a} then ${b} bytes`,
      );
    }
});

test('folded over many parts, as a scrape joins its pieces', () => {
  const parts = Array.from({ length: 40 }, (_, i) => randomBytes(i * 997));
  const folded = parts.reduce((crc, p) => crc32Combine(crc, crc32(p), p.length), 0);
  assert.equal(folded, crc32(Buffer.concat(parts)));
});
