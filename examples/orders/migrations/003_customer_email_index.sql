-- Support looks orders up by the customer's e-mail address (acktrail.yaml, lookups): an index
-- read, not a scan of every order.
CREATE INDEX orders_customer_email_idx ON orders (customer_email, created_at);
