// What bounds each label's values: a fixed set, the configuration, or a cap past which a value is
// "other" (labels.ts, counted in acktrail_label_overflow_total). A label no metric may carry
// unbounded: catalogue.test.ts fails on a label missing here; docs/metrics.md's "Labels and their
// bounds" is generated from it. Ids (trace, event, task, message) are never labels.

export const LABEL_BOUNDS: Readonly<Record<string, string>> = {
  attribute:
    'the attributes coverage checks: a fixed set (`event_id`, `queue`, `delivery_attempt`, `aggregate_id`, …)',
  collector: 'the collectors configured: a fixed set of names',
  event_type: 'the confirmation event types the pipeline writes: at most 20, then `other`',
  exchange:
    'exchanges of unroutable publishes: at most 50 exchange and routing-key values, then `other`',
  fate: 'a fixed set: `requeued`, `dead_lettered`, `discarded`, `rejected`',
  kind: 'a fixed set: `gap`, `out_of_order`, `stale`',
  label: 'the names of the capped labels: a fixed set',
  node: "the broker's nodes (`rabbitmq.nodes`)",
  outcome: 'a fixed set per metric, listed in its row',
  part: 'the background parts: a fixed set',
  pool: 'a fixed set: `replica`, `primary`',
  provider: 'provider names from the pipeline: at most `provider.maxProviders` (20), then `other`',
  queue:
    "queue names: the broker's queues in scope (`rabbitmq.include`, `rabbitmq.exclude`); from spans, only names the topology knows, at most 200 (dead-letter parking: its configured queues; Celery: `celery.maxQueues`), then `other`",
  rabbitmq_cluster: "one value: the broker's cluster name",
  reason:
    'a fixed set (`acktrail_ingest_refused_total`, `acktrail_celery_events_skipped_total`); dead-letter reasons masked into groups, at most 20 (journeys) or 50 (parking), then `other`',
  result: 'a fixed set: `stored`, `failed`',
  revision: 'one value: the build',
  role: 'a fixed set: `work`, `retry`, `dead_letter`',
  routing_key:
    'routing keys of unroutable publishes: shares the cap of `exchange` (50), then `other`',
  service: 'service.name of spans: at most 100, then `other`',
  source: 'a fixed set: `detailed`, `management`, `none`',
  stage: 'the journey stages: a fixed set (`end_to_end` among them)',
  state: 'the Celery task states: a fixed set',
  status:
    'a fixed set (`ok`, `warn`, `stall`, `stop`, `unknown`); aggregates: the statuses the pipeline writes, at most 20, then `other`',
  table: 'the outbox tables configured',
  task: 'Celery task names: at most `celery.maxTaskNames` (200), task and queue pairs `celery.maxTaskQueuePairs` (1,000), then `other`',
  trigger: 'a fixed set: `scheduled`, `early`',
  type: 'a fixed set: queue types (`classic`, `quorum`, `stream`); Celery event types',
  version: 'one value: the build',
  vhost: "the vhosts of the broker's queues in scope (`rabbitmq.vhosts`)",
  worker:
    'Celery worker hostnames: at most `celery.maxWorkers` (500) tracked; an offline one goes after `celery.workerExpirySeconds`',
};
