"""Sends tasks without waiting for them (test/celery-redis.int.test.ts) and prints their ids, one
per line:
  send.py idle N M     N add tasks to queue `idle` at priority 0 and M at priority 6
  send.py slow         one tasks.slow (acks late)
  send.py load SECONDS add tasks to `celery` as fast as the broker takes them, for SECONDS,
                       going on through a broker restart (each send retries)"""
import sys
import time

from tasks import add, slow

what = sys.argv[1]
if what == "idle":
    for priority, count in ((0, int(sys.argv[2])), (6, int(sys.argv[3]))):
        for i in range(count):
            print(add.apply_async((i, i), queue="idle", priority=priority).id)
elif what == "slow":
    print(slow.delay().id)
elif what == "load":
    end = time.time() + float(sys.argv[2])
    sent = 0
    while time.time() < end:
        add.apply_async((sent, 1), retry=True, retry_policy={"max_retries": 100, "interval_max": 1})
        sent += 1
    print(sent)
sys.stdout.flush()
