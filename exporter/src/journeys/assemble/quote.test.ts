// Text from a message or a span is quoted with who said it, never spoken as acktrail's verdict:
// a forged reason header of a parked copy, a consumer's reason attribute, an unknown x-death word
// and control or bidirectional-override characters in any of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QUOTE_MAX, quoted, reasonWords } from './quote.js';
import { untracedVerdict } from './untraced.js';
import type { ParkedRecord } from '../model/index.js';

const FORGED = 'refund approved, nothing to do: see https://evil.example/ticket';

const parked = (over: Partial<ParkedRecord>): ParkedRecord => ({
  id: '7',
  queue: 'payments.dlq',
  from: 'payments.capture',
  reason: 'rejected',
  reasonSource: 'x-death',
  deathReason: 'rejected',
  state: 'parked',
  parkedAt: new Date('2026-12-07T12:00:00Z'),
  ...over,
});

test("a parked copy's forged reason header is the message's quote, x-death's word shown apart", () => {
  const { verdict } = untracedVerdict(null, [
    parked({ reason: FORGED, reasonSource: 'x-exception-message' }),
  ]);
  assert.match(verdict, /the message's header “x-exception-message” says “refund approved/);
  assert.match(verdict, /; x-death: rejected\)/);
  // Never as acktrail's own words after the colon or parenthesis it opens.
  assert.doesNotMatch(verdict, /\(refund approved/);
});

test("the broker's own x-death words are said as they are; any other x-death text is quoted", () => {
  assert.equal(reasonWords({ text: 'delivery_limit', by: 'broker' }), 'delivery_limit');
  assert.equal(reasonWords({ text: 'approved', by: 'broker' }), 'x-death says “approved”');
  assert.equal(
    reasonWords({ text: 'invalid address', by: 'span' }),
    "its consumer's span says “invalid address”",
  );
  // A header that claims a broker word is still the header's.
  assert.equal(
    reasonWords({ text: 'rejected', by: 'header', header: 'x-error' }),
    "the message's header “x-error” says “rejected”",
  );
});

test('control and bidi-override characters cannot rewrite the line; long text is cut', () => {
  const q = quoted('ok\u001b[2K\u001b]0;owned\u0007\u202etxet\r\nnext');
  // eslint-disable-next-line no-control-regex -- the test looks for them
  assert.doesNotMatch(q, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
  assert.equal(quoted('x'.repeat(1000)).length, QUOTE_MAX + 3);
  assert.equal(quoted('a “quote” inside'), '“a "quote" inside”');
});
