"""Sends one add(1, 2) and waits for its result (test/celery.int.test.ts, enable_events)."""
from tasks import add

print(add.delay(1, 2).get(timeout=30))
