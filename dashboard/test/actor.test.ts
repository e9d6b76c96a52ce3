// The operator's name travels to the exporter's audit log whatever its script: percent-encoded,
// so that a header (Latin-1 only) can carry it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { actorHeaders } from '../lib/auth/actor.js';

test("an operator's name in any script makes a header fetch can send, and comes back whole", () => {
  for (const name of ['Иван Петров', 'jane+ops@example.com', '王伟', 'plain.name']) {
    const headers = actorHeaders({ name, verified: false });
    assert.doesNotThrow(() => new Headers(headers), name);
    assert.equal(decodeURIComponent(headers['x-acktrail-actor']!), name);
    assert.ok(!('x-acktrail-actor-verified' in headers));
  }
  assert.deepEqual(
    actorHeaders({ name: 'a', verified: true })['x-acktrail-actor-verified'],
    'proxy',
  );
  assert.deepEqual(actorHeaders({ name: null, verified: true }), {}, 'no name, nothing claimed');
  // What the dashboard sent before: a raw name fetch refuses.
  assert.throws(() => new Headers({ 'x-acktrail-actor': 'Иван' }));
});
