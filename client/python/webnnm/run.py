"""Run: one job of the daemon — watch it, wait for it, read its metrics,
predict with it, export it."""
import os
import time

import grpc
import numpy as np

from webnnm import errors
from webnnm._tensors import from_tensor, to_tensor
from webnnm._types import TERMINAL, Event, as_dict, state_name, when
from webnnm.v1 import webnnm_pb2 as pb

# Errors a watch rides through while the daemon restarts.
_TRANSIENT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
              grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL,
              grpc.StatusCode.ABORTED)


class Run:
    """A job of the daemon (Client.submit, Client.run).

    `id` is the job's id; `job` the last Job message read (refresh() reads
    it again); `state`, `name`, `error` and `summary` read from it."""

    def __init__(self, client, job):
        self.client = client
        self.job = job
        self.id = job.job_id
        self._signature = None

    def __repr__(self):
        return f"Run({self.id!r}, name={self.name!r}, state={self.state!r})"

    # --- what the job is ---------------------------------------------------

    def refresh(self):
        """Reads the job again; returns self."""
        self.job = self.client._call("GetJob", pb.GetJobRequest(job_id=self.id))
        return self

    @property
    def state(self):
        """"queued", "running", "succeeded", "failed" or "cancelled", as
        last read."""
        return state_name(self.job.state)

    @property
    def name(self):
        return self.job.name

    @property
    def error(self):
        return self.job.error

    @property
    def done(self):
        return self.state in TERMINAL

    @property
    def summary(self):
        """The tested job's results (epochs, losses, accuracy, per-output
        metrics, the expert system's decisions) as a dict; {} before."""
        return as_dict(self.job.summary) if self.job.HasField("summary") else {}

    def info(self):
        """The whole job record as a dict (refreshed)."""
        return as_dict(self.refresh().job)

    # --- events ------------------------------------------------------------

    def watch(self, from_seq=1, progress=False, reconnect_timeout=120.0):
        """The job's events from `from_seq`, then live ones until it ends:
        a generator of Event. When the daemon restarts (or the connection
        drops) it reconnects and goes on from the next sequence number, so
        no event is missed or repeated; it gives up after
        `reconnect_timeout` seconds without an answer (Unavailable).
        progress: also yield "progress" events (seq 0) while it trains."""
        next_seq = max(1, int(from_seq))
        lost_since = None
        while True:
            call = self.client._stub.WatchJob(
                pb.WatchJobRequest(job_id=self.id, from_seq=next_seq,
                                   progress=progress),
                metadata=self.client._metadata)
            try:
                for message in call:
                    lost_since = None
                    event = Event.of(message)
                    if event.seq:
                        if event.seq < next_seq:
                            continue  # already given
                        next_seq = event.seq + 1
                    yield event
                # The stream ended: the job ended, or the daemon stopped.
                if self.refresh().done and self.job.last_seq < next_seq:
                    return
            except grpc.RpcError as e:
                if e.code() not in _TRANSIENT:
                    raise errors.from_rpc(e, self.client.address) from None
            except errors.WebnnmError as e:
                if e.code not in ("UNAVAILABLE", "CANCELLED", "UNKNOWN"):
                    raise
            finally:
                call.cancel()
            lost_since = lost_since or time.monotonic()
            if time.monotonic() - lost_since > reconnect_timeout:
                raise errors.Unavailable(
                    f"lost webnnmd at {self.client.address} while watching "
                    f"job {self.id} (no answer for {reconnect_timeout:g} s)")
            time.sleep(0.25)

    def wait(self, timeout=None, raise_on_failure=True):
        """Waits until the job ends (following its events, through daemon
        restarts); returns self. A FAILED job raises JobFailed with its
        error unless raise_on_failure is False; TimeoutError after
        `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        self.refresh()
        while not self.done:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"job {self.id} still {self.state} after "
                                   f"{timeout:g} s")
            # Poll with a short watch: each event wakes us.
            for _ in self.watch(from_seq=self.job.last_seq + 1):
                if deadline is not None and time.monotonic() > deadline:
                    break
            self.refresh()
        if raise_on_failure and self.state == "failed":
            raise errors.JobFailed(f"job {self.id} failed: {self.error}",
                                   run=self)
        return self

    # --- metrics -----------------------------------------------------------

    def metrics(self):
        """The per-epoch metrics as a pandas DataFrame with columns run,
        epoch, name (trainLoss, validationLoss, trainAccuracy,
        validationAccuracy, lr, samplesPerSecond), value and time (when
        the epoch ended, UTC)."""
        import pandas as pd
        series = self.client._call(
            "GetMetrics", pb.GetMetricsRequest(job_id=self.id)).series
        times = self._epoch_times()
        rows = [{"run": self.id, "epoch": p.epoch, "name": s.name,
                 "value": p.value, "time": times.get(p.epoch)}
                for s in series for p in s.points]
        frame = pd.DataFrame(rows,
                             columns=["run", "epoch", "name", "value", "time"])
        return frame.sort_values(["epoch", "name"], kind="stable",
                                 ignore_index=True)

    def _epoch_times(self):
        """{epoch: when its event was written} from the stored events (up
        to the job's latest one; a repeated epoch keeps its last time)."""
        last = self.refresh().job.last_seq
        times = {}
        if last < 1:
            return times
        call = self.client._stub.WatchJob(
            pb.WatchJobRequest(job_id=self.id, from_seq=1),
            metadata=self.client._metadata, timeout=self.client.timeout)
        try:
            for message in call:
                if message.HasField("epoch"):
                    times[message.epoch.epoch] = when(message.time)
                if message.seq >= last:
                    break
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                raise errors.from_rpc(e, self.client.address) from None
        finally:
            call.cancel()
        return times

    # --- inference ---------------------------------------------------------

    def signature(self):
        """(inputs, outputs) of the job's model as TensorInfo lists (the
        batch dimension -1); empty when the job holds no model text."""
        if self._signature is None:
            text = self.refresh().job.model_text
            if not text:
                self._signature = ([], [])
            else:
                r = self.client.check(text)
                self._signature = (r.inputs, r.outputs)
        return self._signature

    def predict(self, inputs, *, label=None, no_header=False, resize=None):
        """Runs the job's best parameters.

        inputs: {input name: array} (a bare array for a one-input model),
        each with the batch dimension first (one sample of the input's own
        shape is taken as a batch of one); arrays keep their data type on
        the wire. Returns {output name: array} in the model's output types,
        and "classes" (the class order) for a classifier. Large batches go
        in several calls of at most the client's max_request_bytes.

        inputs may instead be a dataset (a path, a Dataset or a stored
        dataset's id): every sample is predicted by the daemon (Predict),
        and the answer is the arrays of its .npz file (per output, and
        OUTPUT_class for a classifier)."""
        if isinstance(inputs, (str, os.PathLike)) or type(inputs).__name__ \
                == "Dataset":
            return self._predict_dataset(inputs, label, no_header, resize)
        declared_in, declared_out = self.signature()
        if not isinstance(inputs, dict):
            if len(declared_in) != 1:
                raise ValueError(
                    "give the inputs as {name: array}: the model has "
                    f"{len(declared_in)} inputs "
                    f"({', '.join(t.name for t in declared_in)})")
            inputs = {declared_in[0].name: inputs}
        arrays = {}
        for name, value in inputs.items():
            array = np.asarray(value)
            spec = next((t for t in declared_in if t.name == name), None)
            if spec is not None and array.ndim == len(spec.shape) - 1:
                array = array[np.newaxis]
            if array.ndim == 0:
                raise ValueError(f"input '{name}': a scalar has no batch "
                                 "dimension")
            arrays[name] = array
        batch = {a.shape[0] for a in arrays.values()}
        if len(batch) != 1:
            raise ValueError(f"the inputs' batch sizes differ: "
                             f"{ {n: a.shape[0] for n, a in arrays.items()} }")
        rows = batch.pop()
        per_row = sum(a[:1].nbytes for a in arrays.values()) or 1
        limit = self.client.max_request_bytes
        if per_row > limit:
            raise errors.ResourceExhausted(
                f"one sample of the inputs is {per_row} bytes, more than the "
                f"client's max_request_bytes ({limit}); raise it up to the "
                "daemon's max_message_bytes")
        step = max(1, limit // per_row)
        types = {t.name: t.data_type for t in declared_out}
        parts, classes = [], []
        for start in range(0, max(rows, 1), step):
            request = pb.InferRequest(job_id=self.id, inputs=[
                to_tensor(n, a[start:start + step]) for n, a in arrays.items()])
            answer = self.client._call("Infer", request)
            parts.append({t.name: from_tensor(t, types.get(t.name))
                          for t in answer.outputs})
            classes = list(answer.classes)
        out = {name: np.concatenate([p[name] for p in parts])
               for name in parts[0]}
        if classes:
            out["classes"] = classes
        return out

    def _predict_dataset(self, dataset, label, no_header, resize):
        import io
        data = pb.DataSpec(dataset_id=self.client._dataset_id(dataset),
                           label=label or "", no_header=no_header)
        if resize is not None:
            data.resize = resize
        chunks = self.client._stream("Predict", pb.PredictRequest(
            job_id=self.id, data=data, format=pb.PREDICT_FORMAT_NPZ))
        payload = b"".join(c.data for c in chunks)
        with np.load(io.BytesIO(payload), allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}

    # --- files -------------------------------------------------------------

    def export(self, path, format=None):
        """Writes the job's model to `path`: "onnx" (ONNX, opset 17, raw
        features in: docs/interop.md) or "snapshot" (a .wnms file the
        daemon and webnnmctl load), by `format` or the path's extension
        (.onnx, .wnms). Returns the path."""
        path = os.fspath(path)
        if format is None:
            format = ("snapshot" if path.endswith(".wnms") else "onnx")
        if format == "onnx":
            chunks = self.client._stream("ExportModel", pb.ExportModelRequest(
                job_id=self.id, format="onnx"))
        elif format == "snapshot":
            chunks = self.client._stream("ExportSnapshot",
                                         pb.ExportSnapshotRequest(
                                             job_id=self.id))
        else:
            raise ValueError(f"no export format '{format}' (onnx or "
                             "snapshot)")
        data = b"".join(c.data for c in chunks)
        if chunks and chunks[0].total_bytes and \
                len(data) != chunks[0].total_bytes:
            raise errors.WebnnmError(
                f"export of job {self.id} cut short: {len(data)} of "
                f"{chunks[0].total_bytes} bytes", "DATA_LOSS")
        tmp = path + ".part"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        return path

    # --- control -----------------------------------------------------------

    def cancel(self):
        self.job = self.client._call("CancelJob",
                                     pb.CancelJobRequest(job_id=self.id))
        return self

    def resume(self):
        self.job = self.client._call("ResumeJob",
                                     pb.ResumeJobRequest(job_id=self.id))
        return self

    def delete(self):
        self.client._call("DeleteJob", pb.DeleteJobRequest(job_id=self.id))

    @property
    def alias_name(self):
        """The alias that names the job (None without one), as last read."""
        return self.job.tags.get("alias")

    def alias(self, name):
        """Gives the job the alias `name` (moved from the job that had it):
        Client.run(name), webnnmctl and KServe then find it by that name."""
        return self.tag({"alias": name})

    def tag(self, tags=None, *, remove=(), name=None, note=None):
        """Sets tags ({key: value}), removes tag keys, renames, or sets the
        note."""
        from webnnm.client import _tags
        request = pb.TagJobRequest(job_id=self.id, remove=list(remove))
        for key, value in _tags(tags).items():
            request.set[key] = value
        if name is not None:
            request.name = name
        if note is not None:
            request.note = note
        self.job = self.client._call("TagJob", request)
        return self
