"""The client's surface against a real daemon: upload, submit, watch, wait,
metrics and runs as DataFrames, predict with NumPy, export, check."""
import hashlib
import os

import numpy as np
import pytest

import webnnm
from conftest import config

IRIS_ROWS = np.array([[5.1, 3.5, 1.4, 0.2], [6.7, 3.0, 5.2, 2.3],
                      [5.9, 3.0, 4.2, 1.5]], dtype=np.float32)


def test_the_package_comes_from_where_the_suite_says():
    # The build tree's layout or an installed copy, never client/python
    # (whose webnnm/ has no generated stubs).
    assert os.path.isfile(os.path.join(os.path.dirname(webnnm.__file__),
                                       "v1", "webnnm_pb2.py"))


def test_upload_hashes_like_the_daemon_and_reuses_content(client, folder):
    path = os.path.join(folder, "small.csv")
    with open(path, "w") as f:
        f.write("a,b,label\n" + "".join(f"{i},{i % 3},{i % 2}\n"
                                        for i in range(40)))
    first = client.upload(path)
    assert (first.name, first.format, first.rows, first.columns) == \
        ("small.csv", "csv", 40, 3)
    assert first.header == ["a", "b", "label"]
    data = open(path, "rb").read()
    expected = hashlib.sha256(b"small.csv\0" + str(len(data)).encode() +
                              b"\0" + data).hexdigest()
    assert first.sha256 == expected
    again = client.upload(path, name="other name")
    assert again.id == first.id
    assert first.id in [d.id for d in client.datasets()]


def test_upload_of_a_large_file_goes_in_chunks(client, folder):
    # 3 MiB: four calls of at most 1 MiB each.
    path = os.path.join(folder, "wide.csv")
    rng = np.random.default_rng(1)
    with open(path, "w") as f:
        f.write(",".join(f"c{i}" for i in range(20)) + ",y\n")
        rows = rng.random((15000, 20))
        for i, r in enumerate(rows):
            f.write(",".join(f"{v:.9f}" for v in r) + f",{i % 2}\n")
    assert os.path.getsize(path) > 3 << 20
    d = client.upload(path)
    assert d.rows == 15000 and d.bytes == os.path.getsize(path)


def test_an_image_folder_is_zipped_and_uploaded(client, folder):
    import zlib, struct

    def png(gray):
        raw = b"".join(b"\0" + bytes([gray] * 4) for _ in range(4))
        chunk = lambda t, d: (struct.pack(">I", len(d)) + t + d +
                              struct.pack(">I", zlib.crc32(t + d)))
        return (b"\x89PNG\r\n\x1a\n" +
                chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 0, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    images = os.path.join(folder, "shapes")
    for cls, gray in (("dark", 10), ("light", 240)):
        os.makedirs(os.path.join(images, cls))
        for i in range(3):
            with open(os.path.join(images, cls, f"{i}.png"), "wb") as f:
                f.write(png(gray + i))
    d = client.upload(images)
    assert d.format == "images" and d.files == ["shapes.zip"]
    assert d.rows == 6


def test_submit_watch_wait_and_the_events_have_no_gaps(client, iris_run):
    run = client.run(iris_run.id)
    events = list(run.watch())
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[-1].type == "state" and events[-1].state == "succeeded"
    epochs = [e.detail["epoch"] for e in events if e.type == "epoch"]
    assert epochs == list(range(1, len(epochs) + 1))
    assert any(e.type == "decision" for e in events)
    # From a later sequence number only the rest.
    tail = list(run.watch(from_seq=events[-3].seq))
    assert [e.seq for e in tail] == [e.seq for e in events[-3:]]
    assert run.state == "succeeded" and run.done
    assert run.summary["test_accuracy"] > 0.8
    assert run.name == "iris-py"


def test_metrics_are_a_dataframe(iris_run):
    frame = iris_run.metrics()
    assert list(frame.columns) == ["run", "epoch", "name", "value", "time"]
    assert set(frame["name"]) >= {"trainLoss", "validationLoss", "lr",
                                  "trainAccuracy", "validationAccuracy"}
    epochs = iris_run.refresh().job.epoch
    losses = frame[frame["name"] == "trainLoss"]
    assert list(losses["epoch"]) == list(range(1, epochs + 1))
    assert losses["value"].notna().all()
    assert frame["time"].notna().all()
    assert (frame["run"] == iris_run.id).all()
    # Times grow with the epochs.
    times = list(losses["time"])
    assert times == sorted(times)


def test_runs_are_a_dataframe_filtered_by_state_and_tags(client, iris_run):
    runs = client.runs()
    assert iris_run.id in set(runs["id"])
    row = runs[runs["id"] == iris_run.id].iloc[0]
    assert row["state"] == "succeeded" and row["name"] == "iris-py"
    assert row["tags"] == {"suite": "python"} and row["epoch"] > 0
    assert iris_run.id in set(client.runs(state="SUCCEEDED")["id"])
    assert iris_run.id in set(client.runs(tags={"suite": "python"})["id"])
    assert client.runs(tags=["suite=elsewhere"]).empty
    assert iris_run.id not in set(client.runs(state="failed")["id"])
    with pytest.raises(ValueError, match="no job state 'done'"):
        client.runs(state="done")


def test_a_run_by_id_prefix_or_name(client, iris_run):
    assert client.run(iris_run.id[:7]).id == iris_run.id
    assert client.run("iris-py").id == iris_run.id
    with pytest.raises(webnnm.NotFound, match="no job 'no-such-run'"):
        client.run("no-such-run")


def test_an_alias_names_a_run_and_moves(client, iris_run, folder):
    other = client.submit(config("models", "iris.wnm"),
                          config("datasets", "iris.csv"), epochs=2,
                          name="iris-other")
    other.wait(timeout=60)
    client.run(iris_run.id).alias("champion")
    assert client.run("champion").id == iris_run.id
    other.alias("champion")
    assert client.run("champion").id == other.id
    assert client.run(iris_run.id).alias_name is None
    assert other.alias_name == "champion"
    other.delete()


def test_predict_with_numpy(iris_run):
    out = iris_run.predict(IRIS_ROWS)
    assert out["classes"] == ["setosa", "versicolor", "virginica"]
    probabilities = out["model"]
    assert probabilities.shape == (3, 3) and probabilities.dtype == np.float32
    np.testing.assert_allclose(probabilities.sum(axis=1), 1, rtol=1e-5)
    assert list(probabilities.argmax(axis=1)) == [0, 2, 1]
    # By name; one sample without its batch axis is a batch of one.
    np.testing.assert_array_equal(
        iris_run.predict({"model": IRIS_ROWS[:1]})["model"],
        iris_run.predict(IRIS_ROWS[0])["model"])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64,
                                   np.int32, np.int64, np.bool_])
def test_input_types_survive_the_wire(iris_run, dtype):
    # The daemon reads each type's own bytes: the answer equals the float32
    # answer for the same values as that type holds them.
    x = (IRIS_ROWS * 3).astype(dtype)
    got = iris_run.predict(x)["model"]
    want = iris_run.predict(x.astype(np.float32))["model"]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert got.shape == (3, 3)


def test_a_large_batch_goes_in_several_calls(client, iris_run):
    rng = np.random.default_rng(3)
    x = rng.uniform(1, 7, size=(5000, 4)).astype(np.float32)
    small = webnnm.Client(client.address, max_request_bytes=4096)
    whole = iris_run.predict(x)["model"]
    parts = small.run(iris_run.id).predict(x)["model"]
    assert parts.shape == (5000, 3)
    # (another batch size: another GEMM blocking, float rounding apart)
    np.testing.assert_allclose(parts, whole, rtol=1e-5, atol=1e-6)
    tiny = webnnm.Client(client.address, max_request_bytes=8)
    with pytest.raises(webnnm.ResourceExhausted, match="max_request_bytes"):
        tiny.run(iris_run.id).predict(x)


def test_predict_a_dataset_file(iris_run):
    out = iris_run.predict(config("datasets", "iris.csv"))
    assert out["model"].shape == (150, 3)
    assert list(out["model_classes"]) == ["setosa", "versicolor", "virginica"]
    assert out["model_class"].shape == (150,)


def test_export_onnx_and_snapshot(iris_run, folder):
    onnx_path = iris_run.export(os.path.join(folder, "iris.onnx"))
    with open(onnx_path, "rb") as f:
        data = f.read()
    import onnx
    model = onnx.load_from_string(data)
    onnx.checker.check_model(model)
    assert len(model.graph.input) == 1 and len(model.graph.output) >= 1
    wnms = iris_run.export(os.path.join(folder, "iris.wnms"))
    assert open(wnms, "rb").read(8) == b"WNNMSNAP"
    with pytest.raises(ValueError, match="no export format 'tflite'"):
        iris_run.export(os.path.join(folder, "x"), format="tflite")


def test_check_returns_diagnostics(client):
    good = client.check(config("models", "iris.wnm"))
    assert good.ok and good.parameters > 0
    assert [t.shape for t in good.inputs] == [[-1, 4]]
    bad = client.check("model:input shape=[4];\nlayer x = dense(nope);\n")
    assert not bad.ok
    assert bad.diagnostics[0].severity == "error"
    assert bad.diagnostics[0].line == 2
    assert "^" in bad.rendered


def test_tags_names_and_notes(client, iris_run):
    run = client.run(iris_run.id)
    run.tag({"stage": "candidate"}, note="first try")
    assert dict(run.job.tags) == {"suite": "python", "stage": "candidate"}
    run.tag(remove=["stage"])
    assert dict(run.job.tags) == {"suite": "python"}
    assert run.info()["note"] == "first try"
