// GET /metrics: one exposition of every registry (the exporter's own and the families the
// collectors write themselves), in the format the scraper asks for (Accept, negotiate.ts): the
// text format by default, OpenMetrics (with exemplars) when preferred, on Prometheus 2 and 3
// alike; gzipped when asked (Accept-Encoding). Only
// the registry is serialised per scrape; the per-queue families come as the bytes written once
// per broker answer (exposition/families.ts).
import type { RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import type { CollectorRunner } from '../collectors/index.js';
import { encodeExposition, Piece } from '../exposition/encoding.js';
import type { Exemplars } from '../exposition/exemplars.js';
import { IdleCollector } from './idle-collect.js';
import { OPENMETRICS_EOF, openMetricsFamilies } from '../exposition/openmetrics.js';
import { negotiate } from '../exposition/negotiate.js';

const EOF = Piece.of(OPENMETRICS_EOF);
const LARGE_EXPOSITION = 1_000_000;

export function metricsHandler(
  registry: Registry,
  runner: CollectorRunner,
  exemplars: Exemplars,
): RequestHandler {
  const idle = new IdleCollector();
  return async (req, res) => {
    idle.begin();
    let size = 0;
    try {
      await runner.collect();
      const own = await registry.metrics();
      const chosen = negotiate(req.get('accept'));
      const openMetrics = chosen.format === 'openmetrics';
      const pieces = openMetrics
        ? [Piece.of(openMetricsFamilies(own, exemplars)), ...runner.exposition('openmetrics'), EOF]
        : [Piece.of(`${own}\n`), ...runner.exposition('text')];
      size = pieces.reduce((n, p) => n + p.length, 0);
      const encoded = await encodeExposition(pieces, req.acceptsEncodings('gzip', 'identity'));
      res
        .status(200)
        .set('content-type', chosen.contentType)
        .set('vary', 'accept, accept-encoding')
        .set('content-length', String(encoded.length));
      if (encoded.encoding) res.set('content-encoding', encoded.encoding);
      for (const chunk of encoded.chunks) res.write(chunk);
      res.end();
    } finally {
      idle.end(size > LARGE_EXPOSITION);
    }
  };
}
