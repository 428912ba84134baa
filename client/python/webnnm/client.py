"""Client: a connection to webnnmd (datasets, jobs, checks)."""
import difflib
import os

import grpc

from webnnm import errors
from webnnm._files import content_hash, dataset_files
from webnnm._types import CheckResult, Dataset, as_dict, state_value, when
from webnnm.v1 import hyperparameters_pb2 as hp
from webnnm.v1 import webnnm_pb2 as pb
from webnnm.v1 import webnnm_pb2_grpc as rpc

CHUNK = 1 << 20  # the daemon takes at most 1 MiB a call
HYPERPARAMETERS = tuple(f.name for f in hp.Hyperparameters.DESCRIPTOR.fields)
DATA_OPTIONS = ("label", "split", "standardize", "impute", "no_header",
                "resize")


class Client:
    """A connection to webnnmd.

    address: HOST:PORT (default $WEBNNM_SERVER, else 127.0.0.1:50051).
    token: the bearer token when the daemon has tokens (default
    $WEBNNM_TOKEN). ca: a PEM file of the certificate authority for a
    daemon serving TLS. timeout: seconds a unary call may take.
    max_request_bytes: the most one Infer call carries; larger inputs go in
    several calls along their batch axis (keep it under the daemon's
    max_message_bytes, 16 MiB by default).
    """

    def __init__(self, address=None, token=None, *, ca=None, timeout=60.0,
                 max_request_bytes=8 << 20):
        self.address = (address or os.environ.get("WEBNNM_SERVER") or
                        "127.0.0.1:50051")
        token = token if token is not None else os.environ.get("WEBNNM_TOKEN")
        self._metadata = ((("authorization", f"Bearer {token}"),)
                          if token else ())
        options = [("grpc.max_receive_message_length", 64 << 20),
                   ("grpc.max_send_message_length", 64 << 20),
                   ("grpc.initial_reconnect_backoff_ms", 200),
                   ("grpc.min_reconnect_backoff_ms", 200),
                   ("grpc.max_reconnect_backoff_ms", 2000)]
        if ca:
            with open(ca, "rb") as f:
                credentials = grpc.ssl_channel_credentials(f.read())
            self._channel = grpc.secure_channel(self.address, credentials,
                                                options)
        else:
            self._channel = grpc.insecure_channel(self.address, options)
        self._stub = rpc.WebnnmStub(self._channel)
        self.timeout = timeout
        self.max_request_bytes = int(max_request_bytes)

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"Client({self.address!r})"

    # --- calls -------------------------------------------------------------

    def _call(self, method, request, timeout=None):
        """A unary call; a refusal as a WebnnmError."""
        try:
            return getattr(self._stub, method)(
                request, metadata=self._metadata,
                timeout=timeout or self.timeout)
        except grpc.RpcError as e:
            raise errors.from_rpc(e, self.address) from None

    def _stream(self, method, request, timeout=None):
        """A server-streaming call as a list of its messages."""
        try:
            return list(getattr(self._stub, method)(
                request, metadata=self._metadata, timeout=timeout))
        except grpc.RpcError as e:
            raise errors.from_rpc(e, self.address) from None

    # --- datasets ----------------------------------------------------------

    def upload(self, path, name=None):
        """Uploads a dataset (a CSV file, an .npz archive, a folder of class
        folders of images or its .zip, an IDX folder) unless the daemon
        already holds its content; returns its Dataset either way."""
        kind, files = dataset_files(path)
        start = pb.UploadDatasetRequest(
            name=name or os.path.basename(os.path.normpath(os.fspath(path)))
            or "dataset",
            format=kind, sha256=content_hash(files),
            total_bytes=sum(len(d) for _, d in files))
        answer = self._call("UploadDataset", start)
        if answer.HasField("dataset"):
            return Dataset.of(answer.dataset)
        upload = answer.upload_id
        for file_name, data in files:
            for offset in range(0, len(data), CHUNK):
                self._call("UploadDataset", pb.UploadDatasetRequest(
                    upload_id=upload, file_name=file_name, offset=offset,
                    data=data[offset:offset + CHUNK]))
        answer = self._call("UploadDataset", pb.UploadDatasetRequest(
            upload_id=upload, finish=True), timeout=max(self.timeout, 600))
        return Dataset.of(answer.dataset)

    def datasets(self):
        """The daemon's datasets (the caller's own), as Dataset records."""
        return [Dataset.of(d) for d in
                self._call("ListDatasets", pb.ListDatasetsRequest()).datasets]

    def delete_dataset(self, dataset):
        self._call("DeleteDataset", pb.DeleteDatasetRequest(
            dataset_id=self._dataset_id(dataset)))

    def _dataset_id(self, dataset):
        """A Dataset, a stored dataset's id, or a path to upload."""
        if isinstance(dataset, Dataset):
            return dataset.id
        if dataset is None:
            raise ValueError("a dataset is needed (a path or a Dataset)")
        if os.path.exists(os.fspath(dataset)):
            return self.upload(dataset).id
        ids = [d.id for d in self.datasets()]
        if dataset in ids:
            return dataset
        matches = [i for i in ids if i.startswith(str(dataset))]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise errors.InvalidArgument(
                f"dataset '{dataset}' is ambiguous: {', '.join(matches)}")
        raise errors.NotFound(f"no file and no dataset '{dataset}'")

    # --- models ------------------------------------------------------------

    @staticmethod
    def _model(model):
        """(text, file name) of a model path or model text."""
        text = os.fspath(model) if isinstance(model, os.PathLike) else model
        if "\n" not in text and os.path.isfile(text):
            with open(text, encoding="utf-8") as f:
                return f.read(), os.path.basename(text)
        return text, "model.wnm"

    def check(self, model):
        """Checks a model (a path to a .wnm file or the model's text):
        a CheckResult with its diagnostics, inputs, outputs and parameter
        count. A model that does not check is an answer, not an error."""
        text, file_name = self._model(model)
        return CheckResult.of(self._call("CheckModel", pb.CheckModelRequest(
            model_text=text, file_name=file_name)))

    def init(self, dataset, label=None, name=None, no_header=False):
        """A starter model for a dataset (as `webnnmctl init` writes one):
        (model text, the label column chosen, notes)."""
        r = self._call("InitModel", pb.InitModelRequest(
            dataset_id=self._dataset_id(dataset), label=label or "",
            name=name or "", no_header=no_header))
        return r.model_text, r.label, list(r.notes)

    # --- jobs --------------------------------------------------------------

    def submit(self, model, dataset, *, name=None, tags=None, note=None,
               backend=None, idempotency_key=None, **options):
        """Queues a training job and returns its Run.

        model: a .wnm path or the model's text. dataset: a path (uploaded
        first), a Dataset or a stored dataset's id. Keywords: the data
        options (label, split, standardize: True/False/None for 'auto',
        impute, no_header, resize) and any hyperparameter of the daemon's
        table by its snake_case name (epochs, lr, optimizer, batch_size,
        patience, seed, ...); left out, the expert system chooses."""
        text, file_name = self._model(model)
        options = dict(options)
        data_options = {k: options.pop(k) for k in DATA_OPTIONS
                        if k in options}
        chosen = hyperparameters(options)  # before any upload
        request = pb.SubmitJobRequest(
            kind=pb.JOB_KIND_TRAIN, model_text=text, file_name=file_name,
            data=self._data(self._dataset_id(dataset), data_options),
            hyperparameters=chosen, name=name or "",
            note=note or "", backend=backend or "",
            idempotency_key=idempotency_key or "")
        for key, value in _tags(tags).items():
            request.tags[key] = value
        from webnnm.run import Run
        return Run(self, self._call("SubmitJob", request).job)

    @staticmethod
    def _data(dataset_id, options):
        data = pb.DataSpec(dataset_id=dataset_id)
        for key in DATA_OPTIONS:
            if key not in options:
                continue
            value = options.pop(key)
            if key == "standardize":
                data.standardization = (pb.STANDARDIZATION_AUTO
                                        if value is None else
                                        pb.STANDARDIZATION_ON if value else
                                        pb.STANDARDIZATION_OFF)
            elif key == "split" and not isinstance(value, str):
                data.split = ",".join(str(v) for v in value)
            elif value is not None:
                setattr(data, key, value)
        return data

    def run(self, ref):
        """The Run of a job, named as the daemon names models: its id, its
        alias (Run.alias), its name, or a unique prefix of its id. A name
        or prefix several jobs share is refused, listing them."""
        from webnnm.run import Run
        try:
            return Run(self, self._call("GetJob", pb.GetJobRequest(
                job_id=str(ref))))
        except errors.NotFound:
            pass
        jobs = list(self._jobs())
        aliased = [j for j in jobs if j.tags.get("alias") == ref]
        if aliased:
            return Run(self, aliased[0])
        matches = [j for j in jobs if j.name == ref]
        if not matches:
            matches = [j for j in jobs if j.job_id.startswith(str(ref))]
        if len(matches) == 1:
            return Run(self, matches[0])
        if matches:
            raise errors.InvalidArgument(
                f"'{ref}' names {len(matches)} jobs: " +
                ", ".join(f"{j.job_id} ({j.name})" for j in matches))
        raise errors.NotFound(f"no job '{ref}' (an id, a prefix of one or "
                              "a job's name)")

    def _jobs(self, state=None, tags=None, name=None):
        request = pb.ListJobsRequest(page_size=1000, name=name or "")
        if state:
            request.state = state_value(state)
        for key, value in _tags(tags).items():
            request.tags[key] = value
        while True:
            page = self._call("ListJobs", request)
            yield from page.jobs
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    def runs(self, *, state=None, tags=None, name=None):
        """The jobs (newest first) as a pandas DataFrame: a row per job
        with its id, name, state, model, dataset, epochs, results, times
        and tags. state: "queued", "running", "succeeded", ... (any case);
        tags: jobs with every one of these ({key: value} or ["key=value"]);
        name: a glob (* and ?)."""
        import pandas as pd
        from webnnm._types import state_name
        rows = []
        for j in self._jobs(state, tags, name):
            rows.append({
                "id": j.job_id, "name": j.name, "state": state_name(j.state),
                "kind": pb.JobKind.Name(j.kind).replace("JOB_KIND_",
                                                        "").lower(),
                "model": j.model_name, "dataset": j.dataset_id,
                "epoch": j.epoch, "epochs": j.epochs,
                "best_epoch": j.best_epoch,
                "test_loss": j.test_loss if j.HasField("test_loss") else None,
                "test_accuracy": (j.test_accuracy
                                  if j.HasField("test_accuracy") else None),
                "created": when(j.created), "started": when(j.started),
                "finished": when(j.finished), "tags": dict(j.tags),
                "node": j.node, "error": j.error})
        columns = ["id", "name", "state", "kind", "model", "dataset", "epoch",
                   "epochs", "best_epoch", "test_loss", "test_accuracy",
                   "created", "started", "finished", "tags", "node", "error"]
        return pd.DataFrame(rows, columns=columns)

    def nodes(self):
        """The daemons serving this store, as dicts."""
        return [as_dict(n) for n in
                self._call("ListNodes", pb.ListNodesRequest()).nodes]


def hyperparameters(options):
    """The Hyperparameters message of keyword options (consumed); a name
    not in the table is refused with the nearest ones."""
    message = hp.Hyperparameters()
    for key, value in list(options.items()):
        if key not in HYPERPARAMETERS:
            near = difflib.get_close_matches(
                key, HYPERPARAMETERS + DATA_OPTIONS, n=3)
            hint = f" (did you mean {' or '.join(near)}?)" if near else ""
            raise TypeError(f"'{key}' is not a hyperparameter or data "
                            f"option{hint}")
        options.pop(key)
        if value is None:
            continue
        try:
            setattr(message, key, value)
        except (TypeError, ValueError) as e:
            raise TypeError(f"hyperparameter '{key}': {e}") from None
    return message


def _tags(tags):
    """{key: value} of a dict, or of ["key=value", "key"] strings."""
    if not tags:
        return {}
    if isinstance(tags, dict):
        return {str(k): str(v) for k, v in tags.items()}
    out = {}
    for t in tags:
        key, _, value = str(t).partition("=")
        out[key] = value
    return out
