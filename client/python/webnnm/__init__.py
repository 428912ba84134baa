"""webnnm: the Python client of webnnmd, the WebNNM training daemon.

    import webnnm
    client = webnnm.Client("127.0.0.1:50051")
    run = client.submit("iris.wnm", "iris.csv", epochs=50)
    run.wait()
    run.metrics()                     # a pandas DataFrame
    run.predict(numpy_array)          # {output: array, "classes": [...]}

See docs/python.md.
"""
from webnnm.client import Client
from webnnm.errors import (FailedPrecondition, InvalidArgument, JobFailed,
                           NotFound, PermissionDenied, ResourceExhausted,
                           Unauthenticated, Unavailable, WebnnmError)
from webnnm.run import Run
from webnnm._types import CheckResult, Dataset, Diagnostic, Event, TensorInfo

__version__ = "0.1.0"
__all__ = ["Client", "Run", "Dataset", "Event", "CheckResult", "Diagnostic",
           "TensorInfo", "WebnnmError", "NotFound", "InvalidArgument",
           "FailedPrecondition", "Unauthenticated", "PermissionDenied",
           "ResourceExhausted", "Unavailable", "JobFailed"]
