"""A watch that outlives its daemon: the daemon stops (SIGTERM) while the
job trains and starts again on the same port and database; the events go
on from the next sequence number, none missing, none twice."""
import threading

import webnnm
from conftest import Daemon, config, wait_until


def test_watch_rides_through_a_daemon_restart(folder):
    d = Daemon(folder)
    c = webnnm.Client(d.address)
    run = c.submit(config("models", "iris.wnm"), config("datasets", "iris.csv"),
                   epochs=3000, patience=3000, optimizer="sgdm", lr=0.01,
                   batch_size=4)
    events, failure = [], []

    def watch():
        try:
            for e in run.watch(reconnect_timeout=60):
                events.append(e)
        except Exception as e:  # reported below
            failure.append(e)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        wait_until(lambda: sum(e.type == "epoch" for e in events) >= 20)
        seen_before = len(events)
        assert d.stop() == 0
        d = Daemon(folder, port=d.port)
        wait_until(lambda: len(events) > seen_before + 20, timeout=120)
        c.run(run.id).cancel()
        watcher.join(timeout=120)
        assert not watcher.is_alive() and not failure, failure
    finally:
        d.stop()
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[-1].state == "cancelled"
    epochs = [e.detail["epoch"] for e in events if e.type == "epoch"]
    assert epochs == list(range(1, len(epochs) + 1))
    # The daemon's stop is in the record: the job was requeued and resumed.
    states = [(e.state, e.message) for e in events if e.type == "state"]
    assert any(s == "queued" and m for s, m in states[1:]), states
