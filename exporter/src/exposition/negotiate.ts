// Which format a scrape gets, from its Accept header, by the HTTP rules (negotiator: q values,
// wildcards, parameters): the Prometheus text format (0.0.4) when the scraper does not say,
// OpenMetrics 1.0.0 (the only one with exemplars) when it prefers it. Prometheus 3 adds
// `escaping=` to its 1.0.0 entries (allow-utf-8 by default, scrape/scrape.go acceptHeader): how a
// name outside the legacy character set is to be written. Every acktrail name is inside it, so
// any scheme that leaves such names as they are is answered as asked (allow-utf-8, underscores,
// values) and any other (dots doubles every underscore) as `underscores`, the names unchanged.
// The parameter is negotiated apart: an Accept entry with it matches no offer without it.
import Negotiator from 'negotiator';
import { OPENMETRICS_CONTENT_TYPE, TEXT_CONTENT_TYPE } from './openmetrics.js';

const TEXT = 'text/plain; version=0.0.4';
const OPENMETRICS = 'application/openmetrics-text; version=1.0.0';
/** In order of preference where the scraper does not say (no Accept, `*\/*`). */
const OFFERS = [TEXT, OPENMETRICS];
/** Escaping schemes under which a name of the legacy character set stays as it is. */
const UNCHANGED = new Set(['allow-utf-8', 'underscores', 'values']);

export interface Negotiated {
  format: 'text' | 'openmetrics';
  /** The Content-Type to answer with. */
  contentType: string;
}

const ESCAPING = /^escaping\s*=\s*"?([^"]*)"?$/i;
const isOpenMetrics1 = (params: string[]) =>
  /^application\/openmetrics-text$/i.test(params[0] ?? '') &&
  params.some((p) => /^version\s*=\s*"?1\.0\.0"?$/i.test(p));

/** The header without its `escaping` parameters, and the one its OpenMetrics 1.0.0 entry asks. */
function apart(accept: string): { header: string; asked: string | null } {
  const asked: string[] = [];
  const header = accept
    .split(',')
    .map((entry) => {
      const params = entry.split(';').map((p) => p.trim());
      return params
        .filter((p) => {
          const m = ESCAPING.exec(p);
          if (m && isOpenMetrics1(params)) asked.push(m[1]!.toLowerCase());
          return !m;
        })
        .join(';');
    })
    .join(',');
  return { header, asked: asked[0] ?? null };
}

export function negotiate(accept: string | undefined): Negotiated {
  const { header, asked } = apart(accept ?? '');
  const headers = accept === undefined ? {} : { accept: header };
  if (new Negotiator({ headers }).mediaType(OFFERS) !== OPENMETRICS)
    return { format: 'text', contentType: TEXT_CONTENT_TYPE };
  const escaping = asked === null ? null : UNCHANGED.has(asked) ? asked : 'underscores';
  return {
    format: 'openmetrics',
    contentType: escaping
      ? `${OPENMETRICS_CONTENT_TYPE}; escaping=${escaping}`
      : OPENMETRICS_CONTENT_TYPE,
  };
}
