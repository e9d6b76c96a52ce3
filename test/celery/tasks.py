"""The Celery app of acktrail's Celery tests (test/celery.int.test.ts): a real Celery 5 worker on the
broker CELERY_BROKER_URL names (the local RabbitMQ or Redis), results in Redis (chords need a
result backend)."""
import os
import time

from celery import Celery
from celery.exceptions import Reject

app = Celery(
    "acktrail_test",
    broker=os.environ["CELERY_BROKER_URL"],
    backend=os.environ["CELERY_RESULT_BACKEND"],
)
app.conf.update(
    task_send_sent_event=True,  # task-sent events: the queue and the time a task was sent
    result_extended=True,  # the backend keeps name, worker, queue and retries: what we compare
    broker_connection_retry_on_startup=True,
    # Redis brokers: how long a reserved, unacknowledged message waits before Celery restores it
    # to its queue (test/celery-redis.int.test.ts makes it short).
    broker_transport_options={
        "visibility_timeout": float(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600")),
        # Sentinel brokers (sentinel://): the master's name.
        **({"master_name": os.environ["CELERY_MASTER_NAME"]} if "CELERY_MASTER_NAME" in os.environ else {}),
    },
)


@app.task
def add(x, y):
    return x + y


@app.task
def tsum(values):
    return sum(values)


@app.task
def boom(x):
    raise ValueError(f"bad value {x}")


@app.task(bind=True, max_retries=2)
def flaky(self, x):
    if self.request.retries < 2:
        raise self.retry(exc=RuntimeError("provider 503"), countdown=1)
    return x


@app.task(bind=True, acks_late=True)
def slow(self):
    """Runs for ten minutes on its first delivery (a worker is killed meanwhile), at once after."""
    if not self.request.delivery_info.get("redelivered"):
        time.sleep(600)
    return "done"


@app.task(bind=True, acks_late=True)
def refuse(self):
    """Rejected by the worker (not requeued): the task-rejected event."""
    raise Reject("refused by the test", requeue=False)
