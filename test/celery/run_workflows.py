"""Runs a chain, a group, a chord, a task that retries, one that fails, one revoked and one the
worker rejects, waits for them, and prints what Celery itself reports for every task (JSON on
stdout)."""
import json
import time
import uuid

from celery import chain, chord, group
from celery.result import AsyncResult

from tasks import add, app, boom, flaky, refuse, tsum

TIMEOUT = 60

c = chain(add.s(1, 2), add.s(3), add.s(4))()
g = group(add.s(i, i) for i in range(3))()
ch = chord([add.s(1, 1), add.s(2, 2), add.s(3, 3)], tsum.s())()
f = flaky.delay(7)
b = boom.delay(3)
# Revoked before it is sent, once the worker has said it took the revoke (a broadcast that waits
# too long in a busy worker expires; one sent before the worker listens to its control channel is
# lost, so it is sent again until a reply): the worker discards it on receipt (task-revoked).
revoked_id = str(uuid.uuid4())
for _ in range(30):
    if app.control.revoke(revoked_id, reply=True, timeout=1, limit=1):
        break
else:
    raise SystemExit("no worker took the revoke in 30 s")
rv = add.apply_async((5, 5), task_id=revoked_id)
rj = refuse.delay()

c.get(timeout=TIMEOUT)
g.get(timeout=TIMEOUT)
ch.get(timeout=TIMEOUT)
f.get(timeout=TIMEOUT)
try:
    b.get(timeout=TIMEOUT)
except ValueError:
    pass
deadline = time.time() + TIMEOUT
while AsyncResult(rv.id, app=app).state != "REVOKED" and time.time() < deadline:
    time.sleep(0.2)

chain_ids = []
node = c
while node is not None:
    chain_ids.insert(0, node.id)
    node = node.parent
header_ids = [r.id for r in ch.parent.results]


def report(task_id):
    r = AsyncResult(task_id, app=app)
    return {
        "id": task_id,
        "name": r.name,
        "state": r.state,
        "retries": r.retries,
        "worker": r.worker,
        "queue": r.queue,
    }


ids = chain_ids + [r.id for r in g.results] + header_ids + [ch.id, f.id, b.id]
print(
    json.dumps(
        {
            "tasks": [report(i) for i in ids],
            "chain": chain_ids,
            "group": [r.id for r in g.results],
            "chord": {"header": header_ids, "body": ch.id},
            "retried": f.id,
            "failed": b.id,
            # Celery's backend keeps REVOKED; a rejected task has no state there (PENDING), only
            # its task-rejected event.
            "revoked": {"id": rv.id, "state": AsyncResult(rv.id, app=app).state},
            "rejected": rj.id,
        }
    )
)
