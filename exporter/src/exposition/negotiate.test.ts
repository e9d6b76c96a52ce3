// The format each Prometheus gets, from the Accept header it really sends, taken from its source
// (scrape/scrape.go): 2.x up to 2.48 a constant; 2.49 to 2.55 built from scrape_protocols; 3.0
// with `escaping=allow-utf-8` on every entry (UTF8NamesHeader); 3.1 on, on the 1.0.0 text formats
// only. Each prefers OpenMetrics, the only format with exemplars.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { negotiate } from './negotiate.js';

const OPENMETRICS = 'application/openmetrics-text; version=1.0.0; charset=utf-8';
const TEXT = 'text/plain; version=0.0.4; charset=utf-8';

const PROMETHEUS: Record<string, string> = {
  '2.42 (scrapeAcceptHeader)':
    'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
  '2.55 (DefaultScrapeProtocols)':
    'application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2',
  '3.0 (UTF8NamesHeader on each)':
    'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;escaping=allow-utf-8;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;escaping=allow-utf-8;q=0.3,*/*;q=0.2',
  '3.5 (escaping on the 1.0.0 formats)':
    'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2',
};

for (const [version, accept] of Object.entries(PROMETHEUS))
  test(`Prometheus ${version}: OpenMetrics`, () => {
    const chosen = negotiate(accept);
    assert.equal(chosen.format, 'openmetrics');
    assert.ok(chosen.contentType.startsWith(OPENMETRICS), chosen.contentType);
  });

test('the escaping asked for is answered where it leaves the names as they are', () => {
  assert.equal(negotiate(PROMETHEUS['2.42 (scrapeAcceptHeader)']).contentType, OPENMETRICS);
  assert.equal(
    negotiate(PROMETHEUS['3.5 (escaping on the 1.0.0 formats)']).contentType,
    `${OPENMETRICS}; escaping=allow-utf-8`,
  );
  const asked = (scheme: string) =>
    negotiate(`application/openmetrics-text;version=1.0.0;escaping=${scheme};q=0.6,*/*;q=0.2`)
      .contentType;
  assert.equal(asked('underscores'), `${OPENMETRICS}; escaping=underscores`);
  assert.equal(asked('values'), `${OPENMETRICS}; escaping=values`);
  // dots would double every underscore: the names stay, and say so.
  assert.equal(asked('dots'), `${OPENMETRICS}; escaping=underscores`);
  assert.equal(asked('made-up'), `${OPENMETRICS}; escaping=underscores`);
});

test('the text format where the scraper does not prefer OpenMetrics', () => {
  for (const accept of [
    undefined,
    '',
    '*/*',
    'text/plain',
    'text/plain;version=0.0.4',
    // q values: text preferred
    'application/openmetrics-text;version=1.0.0;q=0.2,text/plain;version=0.0.4;q=0.9',
    // OpenMetrics refused outright
    'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0,*/*;q=0.1',
    // only 0.0.1, which is not written here
    'application/openmetrics-text;version=0.0.1',
  ])
    assert.deepEqual(negotiate(accept), { format: 'text', contentType: TEXT }, String(accept));
});
