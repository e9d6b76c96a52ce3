-- Indexes that keep acktrail's per-scrape queries small on large tables (docs/metrics.md):
-- new confirmations and attempts since a watermark, newly published outbox rows, and the oldest
-- order still waiting for its confirmation.

CREATE INDEX order_confirmations_created_idx ON order_confirmations (created_at);

CREATE INDEX outbox_events_published_idx
  ON outbox_events (published_at)
  WHERE published_at IS NOT NULL;

CREATE INDEX orders_pending_created_idx
  ON orders (created_at)
  WHERE notification_status = 'pending';
