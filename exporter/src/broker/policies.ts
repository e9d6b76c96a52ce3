// A queue's effective policy where the broker's listing does not say it. RabbitMQ 3.10 to 3.12
// list `effective_policy_definition` only once the queue has emitted its statistics (a second or
// more after it is declared), and RabbitMQ 4 with the management agent's metrics collector off
// (the official image) never: absent, the policy is not "none", it is not said. The broker's rule
// is then applied to its policies (/api/policies, readable by a monitoring user): of the policies
// of the queue's vhost whose pattern matches its name and whose apply-to covers its type, the one
// of the highest priority. Where that cannot be told (policies not readable, a pattern this
// exporter cannot compile, two policies of the same priority that disagree) it stays unknown.
// Patterns are a policymaker's PCRE: they run in RE2's linear-time engine (linear-regex.ts), and one
// RE2 cannot compile (a back-reference, a look-around) leaves the queues it could match unknown.
// Operator policies are left out: they cannot set a dead-letter exchange.

import { linearRegex, type LinearRegex } from '../linear-regex.js';

export interface PolicyInfo {
  vhost: string;
  name: string;
  pattern: string;
  'apply-to': string;
  definition: Record<string, unknown>;
  priority: number;
}

/** Which queue types each apply-to value covers (RabbitMQ 3.12 added the per-type values). */
const APPLIES: Record<string, (type: string) => boolean> = {
  all: () => true,
  queues: () => true,
  classic_queues: (t) => t === 'classic',
  quorum_queues: (t) => t === 'quorum',
  streams: (t) => t === 'stream',
};

/** Patterns compiled once per refresh; null: not compilable here. */
export class Policies {
  private readonly compiled: { policy: PolicyInfo; re: LinearRegex | null }[];

  constructor(policies: readonly PolicyInfo[]) {
    this.compiled = policies.map((policy) => {
      try {
        return { policy, re: linearRegex(policy.pattern) };
      } catch {
        return { policy, re: null };
      }
    });
  }

  /** The definition that applies to the queue ({} when none does); null: cannot be told. */
  effective(vhost: string, name: string, type: string): Record<string, unknown> | null {
    let best: PolicyInfo[] = [];
    for (const { policy, re } of this.compiled) {
      if (policy.vhost !== vhost) continue;
      const applies = APPLIES[policy['apply-to']];
      if (!applies) {
        if (policy['apply-to'] === 'exchanges') continue;
        return null; // a kind this exporter does not know
      }
      if (!applies(type)) continue;
      if (!re) return null;
      if (!re.test(name)) continue;
      if (!best.length || policy.priority > best[0]!.priority) best = [policy];
      else if (policy.priority === best[0]!.priority) best.push(policy);
    }
    if (!best.length) return {};
    const [one, ...rest] = best;
    const same = rest.every(
      (p) => JSON.stringify(p.definition) === JSON.stringify(one!.definition),
    );
    return same ? one!.definition : null;
  }
}
