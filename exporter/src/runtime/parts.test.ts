// Parts: started in their order, stopped in the reverse one (a part stops before what it uses),
// a part that fails to stop does not keep the others running, and health lists those that have
// one of their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PartStatus } from './health.js';
import { Parts, type Part } from './parts.js';

function part(name: string, said: string[], opts: { failStop?: boolean; up?: boolean } = {}): Part {
  return {
    name,
    start: () => {
      said.push(`start ${name}`);
    },
    stop: () => {
      said.push(`stop ${name}`);
      return opts.failStop
        ? Promise.reject(new Error(`${name} would not stop`))
        : Promise.resolve();
    },
    health: (): PartStatus | null =>
      opts.up === undefined
        ? null
        : { part: name, up: opts.up, error: opts.up ? null : 'down', since: '' },
  };
}

test('started in order, stopped in reverse, every one even when one fails to stop', async () => {
  const said: string[] = [];
  const parts = new Parts([
    part('store', said, { up: true }),
    part('topology', said),
    part('celery', said, { failStop: true, up: false }),
    part('parking', said, { up: true }),
  ]);
  parts.start();
  await parts.stop();
  assert.deepEqual(said, [
    'start store',
    'start topology',
    'start celery',
    'start parking',
    'stop parking',
    'stop celery',
    'stop topology',
    'stop store',
  ]);
  assert.deepEqual(
    parts.health().map((h) => [h.part, h.up]),
    [
      ['store', true],
      ['celery', false],
      ['parking', true],
    ],
  );
});
