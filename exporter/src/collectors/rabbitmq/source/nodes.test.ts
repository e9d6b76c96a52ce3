import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkIdentity } from './detailed.js';
import { sameLayoutUrl } from './nodes.js';

// RabbitMQ 4 as shipped lists no listeners: each node is looked for at its own host with the
// configured endpoint's scheme and port (the official image's and the operator's layout).
test('a node without a listener is looked for at its host, on the configured port', () => {
  assert.equal(
    sameLayoutUrl('rabbit@rabbit-1.rabbit.ns', 'http://rabbit-0.rabbit.ns:15692'),
    'http://rabbit-1.rabbit.ns:15692',
  );
  assert.equal(sameLayoutUrl('rabbit@db2', 'https://metrics.example/'), 'https://db2');
  assert.equal(sameLayoutUrl('rabbit@::1', 'http://127.0.0.1:15692'), 'http://[::1]:15692');
});

test('an endpoint answering as another node is refused, naming the setting that fixes it', () => {
  assert.throws(() => {
    checkIdentity('rabbit@b', 'rabbit@a', 'http://b:15692');
  }, /http:\/\/b:15692 answers as rabbit@a: list each node's endpoint in rabbitmq.nodes/);
  checkIdentity('rabbit@a', 'rabbit@a', 'http://a:15692');
  checkIdentity(null, 'rabbit@a', 'http://a:15692'); // a configured endpoint without a name
  checkIdentity('rabbit@a', null, 'http://a:15692'); // a broker that does not say
});
