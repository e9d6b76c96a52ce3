import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../config.js';
import { scopeFilter } from './scope.js';

test("acktrail's own queues are never in scope; the pipeline's are, by vhost and pattern", () => {
  const inScope = scopeFilter(loadConfig({}));
  assert.equal(inScope('/', 'acktrail.celery.events'), false, 'the Celery events queue');
  assert.equal(inScope('/', 'acktrail.dead-letters.set-aside'), false, 'the set-aside queue');
  assert.equal(inScope('/', 'amq.gen-123'), false, 'the default exclude');
  assert.equal(inScope('/', 'orders.confirmations'), true);
  assert.equal(inScope('/', 'acktrail.celery.events.archive'), true, 'only the names themselves');
});
