import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Loops } from './loops.js';

/** A run that stays under way until end() is called. */
function pendingRun() {
  let calls = 0;
  let end: () => void = () => undefined;
  const run = () => {
    calls++;
    return new Promise<void>((resolve) => {
      end = resolve;
    });
  };
  return {
    run,
    calls: () => calls,
    end: () => {
      end();
    },
  };
}

/** Whether `p` has settled once the microtasks queued so far have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

test('stop() waits for the run under way, then settles', async () => {
  const loops = new Loops();
  const r = pendingRun();
  loops.now(r.run);
  assert.equal(r.calls(), 1);
  const stopped = loops.stop();
  assert.equal(await settled(stopped), false, 'stop() settled while a run was under way');
  r.end();
  assert.equal(await settled(stopped), true);
});

test('a run that fails does not keep stop() from settling', async () => {
  const loops = new Loops();
  loops.now(() => Promise.reject(new Error('the broker went away')));
  assert.equal(await settled(loops.stop()), true);
});

test('no run starts after stop(), from a tick or from now()', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const loops = new Loops();
  let calls = 0;
  const run = () => {
    calls++;
    return Promise.resolve();
  };
  loops.every(100, run);
  t.mock.timers.tick(100);
  assert.equal(calls, 1);
  await loops.stop();
  t.mock.timers.tick(1000);
  loops.now(run);
  assert.equal(calls, 1);
});

test('a tick that finds the last run still under way is skipped', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const loops = new Loops();
  const r = pendingRun();
  loops.every(100, r.run);
  t.mock.timers.tick(1000);
  assert.equal(r.calls(), 1, 'ten ticks over one run still under way');
  r.end();
  await settled(Promise.resolve());
  t.mock.timers.tick(100);
  assert.equal(r.calls(), 2);
  const stopped = loops.stop();
  r.end();
  await stopped;
});
