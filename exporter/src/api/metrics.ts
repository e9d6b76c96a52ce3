// GET /metrics: one exposition of every registry (the exporter's own and the collectors'), in the
// format the scraper asks for (Accept): the text format by default, OpenMetrics (with exemplars)
// when asked; gzipped when asked (Accept-Encoding).
import type { RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import type { CollectorRunner } from '../collectors/index.js';
import { encodeExposition } from '../exposition/encoding.js';
import type { Exemplars } from '../exposition/exemplars.js';
import {
  OFFERS,
  OPENMETRICS_CONTENT_TYPE,
  TEXT_CONTENT_TYPE,
  toOpenMetrics,
} from '../exposition/openmetrics.js';

const LARGE_EXPOSITION = 1_000_000;

export function metricsHandler(
  registry: Registry,
  runner: CollectorRunner,
  exemplars: Exemplars,
): RequestHandler {
  // One exposition of every registry, in the format the scraper asks for (Accept): the text
  // format by default, OpenMetrics (with exemplars) when asked; gzipped when asked.
  return async (req, res) => {
    await runner.collect();
    const [own, collectors] = await Promise.all([registry.metrics(), runner.exposition()]);
    const text = `${own}\n${collectors}`;
    const openMetrics = req.accepts(OFFERS) === OFFERS[1];
    const body = openMetrics ? toOpenMetrics(text, exemplars) : text;
    const encoded = await encodeExposition(body, req.acceptsEncodings('gzip', 'identity'));
    res
      .set('content-type', openMetrics ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE)
      .set('vary', 'accept, accept-encoding');
    if (encoded.encoding) res.set('content-encoding', encoded.encoding);
    res.send(encoded.body);
    // A large exposition (thousands of queues) leaves megabytes of strings that V8 keeps in its
    // large-object space until a full collection, which it puts off while memory grows: collect
    // once the answer is out, when the process runs with --expose-gc (npm run exporter does).
    const gc = globalThis.gc;
    if (body.length > LARGE_EXPOSITION && gc) {
      setImmediate(() => {
        gc();
      });
    }
  };
}
