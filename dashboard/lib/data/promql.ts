// Adds the label matchers of PROMETHEUS_SELECTOR to every series selector of a PromQL expression,
// so that one dashboard reads its own cluster's series in a Prometheus (Mimir, Thanos) shared by
// many: `rate(x[5m])` becomes `rate(x{cluster="eu"}[5m])`. Parsed with Prometheus' own grammar
// (@prometheus-io/lezer-promql), never by pattern: a string or a function name is left alone.
import { parser } from '@prometheus-io/lezer-promql';

export class PromqlError extends Error {}

/** `expr` with `matchers` (e.g. `cluster="eu", job="acktrail"`) in every selector. */
export function withMatchers(expr: string, matchers: string): string {
  if (!matchers) return expr;
  const tree = parser.parse(expr);
  const inserts: { at: number; text: string }[] = [];
  const state = { broken: false };
  tree.iterate({
    enter(node) {
      if (node.type.isError) state.broken = true;
      if (node.name !== 'VectorSelector') return;
      const list = node.node.getChild('LabelMatchers');
      if (!list) {
        inserts.push({ at: node.to, text: `{${matchers}}` });
        return;
      }
      const inner = expr.slice(list.from + 1, list.to - 1).trim();
      inserts.push({ at: list.from + 1, text: inner ? `${matchers}, ` : matchers });
    },
  });
  if (state.broken) throw new PromqlError(`not a PromQL expression: ${expr}`);
  let out = expr;
  for (const { at, text } of inserts.sort((a, b) => b.at - a.at))
    out = out.slice(0, at) + text + out.slice(at);
  return out;
}

/** Checks PROMETHEUS_SELECTOR: matchers a selector can hold, nothing else. */
export function checkMatchers(matchers: string): string {
  const probe = `up{${matchers}}`;
  const state = { ok: matchers.trim() !== '' };
  parser.parse(probe).iterate({
    enter(node) {
      if (node.type.isError) state.ok = false;
    },
  });
  if (!state.ok) throw new PromqlError(`not label matchers: ${JSON.stringify(matchers)}`);
  return matchers.trim();
}
