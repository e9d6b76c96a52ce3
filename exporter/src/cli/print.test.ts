// What the command prints is inert: a Redis channel name or a server's message with terminal
// escapes (erase the line, set the title) or a newline that would forge a line of its own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { printable } from './print.js';
import { report } from './doctor/index.js';

const HOSTILE = 'celeryev\u001b[2K\u001b]0;pwned\u0007\u009b31m\u202etxet';

test('control and bidi-override characters are printed as \\uXXXX; newlines kept', () => {
  const p = printable(`${HOSTILE}\nnext\tline`);
  // eslint-disable-next-line no-control-regex -- the test looks for them
  assert.doesNotMatch(p, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  assert.match(p, /celeryev\\u001b\[2K\\u001b\]0;pwned\\u0007\\u009b31m\\u202etxet\nnext\tline/);
  // Still JSON where it was JSON: \uXXXX is a JSON escape.
  assert.deepEqual(JSON.parse(printable(JSON.stringify({ name: '\u009b' }))), { name: '\u009b' });
});

test("the doctor's report: one line per finding, whatever its text holds", () => {
  const text = report([
    {
      verdict: 'warn',
      source: `Celery broker (channel ${HOSTILE})`,
      said: 'quiet\nok    everything: fine',
      fix: 'x',
    },
  ]);
  const lines = text.split('\n');
  assert.equal(lines.length, 2, 'the finding and its fix');
  assert.match(lines[0]!, /^warn {2}Celery broker .*quiet\\u000aok {4}everything: fine$/);
  // eslint-disable-next-line no-control-regex -- the test looks for them
  assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
});
