"""The plain records the client returns: datasets, diagnostics, check
results, events. Timestamps are timezone-aware datetimes (UTC)."""
import dataclasses
import datetime
from typing import List, Optional

from google.protobuf import json_format

from webnnm.v1 import webnnm_pb2 as pb

TERMINAL = ("succeeded", "failed", "cancelled")
STATES = ("queued", "running") + TERMINAL


def when(ts):
    """A Timestamp as a UTC datetime; None when unset."""
    if ts is None or (ts.seconds == 0 and ts.nanos == 0):
        return None
    return datetime.datetime.fromtimestamp(ts.seconds + ts.nanos / 1e9,
                                           tz=datetime.timezone.utc)


def state_name(value):
    """JOB_STATE_SUCCEEDED -> "succeeded"."""
    return pb.JobState.Name(value).replace("JOB_STATE_", "").lower()


def state_value(name):
    """"succeeded" (any case) -> JOB_STATE_SUCCEEDED; ValueError otherwise."""
    key = "JOB_STATE_" + str(name).upper()
    if key not in pb.JobState.keys() or key == "JOB_STATE_UNSPECIFIED":
        raise ValueError(f"no job state '{name}' (one of "
                         f"{', '.join(STATES)})")
    return pb.JobState.Value(key)


def as_dict(message):
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


@dataclasses.dataclass
class Dataset:
    """A dataset the daemon stores (Client.upload, Client.datasets)."""
    id: str
    name: str
    format: str  # "csv", "idx", "npz" or "images"
    sha256: str
    bytes: int
    files: List[str]
    rows: Optional[int]
    columns: Optional[int]
    header: List[str]
    created: Optional[datetime.datetime]

    @classmethod
    def of(cls, d):
        return cls(id=d.dataset_id, name=d.name,
                   format=pb.DatasetFormat.Name(d.format).replace(
                       "DATASET_FORMAT_", "").lower(),
                   sha256=d.sha256, bytes=d.bytes, files=list(d.files),
                   rows=d.rows if d.HasField("rows") else None,
                   columns=d.columns if d.HasField("columns") else None,
                   header=list(d.header), created=when(d.created))


@dataclasses.dataclass
class Diagnostic:
    severity: str  # "error" or "warning"
    message: str
    line: int      # 1-based; 0 when not tied to the source
    column: int

    def __str__(self):
        where = f"{self.line}:{self.column}: " if self.line else ""
        return f"{where}{self.severity}: {self.message}"


@dataclasses.dataclass
class TensorInfo:
    name: str
    data_type: str
    shape: List[int]  # -1 for the batch dimension


@dataclasses.dataclass
class CheckResult:
    """Client.check's answer: `ok` when the model checks; `diagnostics`
    with lines and columns; `rendered` as webnnmctl prints them."""
    ok: bool
    diagnostics: List[Diagnostic]
    model_name: str
    inputs: List[TensorInfo]
    outputs: List[TensorInfo]
    parameters: int
    warnings: List[str]
    decisions: List[dict]
    rendered: str

    @classmethod
    def of(cls, r):
        info = lambda ts: [TensorInfo(t.name, t.data_type, list(t.shape))
                           for t in ts]
        return cls(ok=r.ok,
                   diagnostics=[Diagnostic(d.severity, d.message, d.line,
                                           d.column) for d in r.diagnostics],
                   model_name=r.model_name, inputs=info(r.inputs),
                   outputs=info(r.outputs), parameters=r.parameters,
                   warnings=list(r.warnings),
                   decisions=[{"what": d.what, "why": d.why}
                              for d in r.decisions],
                   rendered=r.rendered)


@dataclasses.dataclass
class Event:
    """One of a job's events (Run.watch): `seq` numbers them from 1 without
    gaps; `type` is "state", "decision", "warning", "scout", "epoch",
    "snapshot", "test", "error" or "progress" (seq 0, never stored);
    `detail` the event's own fields (a dict) or text; `state` is set for a
    state event ("running", "succeeded", ...)."""
    seq: int
    time: Optional[datetime.datetime]
    type: str
    job_id: str
    detail: object
    message: str = ""
    state: Optional[str] = None

    @classmethod
    def of(cls, e):
        kind = pb.EventType.Name(e.type).replace("EVENT_TYPE_", "").lower()
        which = e.WhichOneof("detail")
        detail, state = None, None
        if which == "state":
            state = state_name(e.state)
            detail = state
        elif which is not None:
            value = getattr(e, which)
            detail = value if isinstance(value, str) else as_dict(value)
        return cls(seq=e.seq, time=when(e.time), type=kind, job_id=e.job_id,
                   detail=detail, message=e.message, state=state)
