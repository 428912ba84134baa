"""The client's exceptions: every failed call raises a WebnnmError carrying
the daemon's message and its gRPC status code."""
import grpc


class WebnnmError(Exception):
    """A call the daemon (or the client, before calling) refused.

    `code` is the gRPC status code's name ("NOT_FOUND", "INVALID_ARGUMENT",
    ...) and `message` the daemon's own words."""

    code = "UNKNOWN"

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code

    def __str__(self):
        return self.message


class NotFound(WebnnmError):
    code = "NOT_FOUND"


class InvalidArgument(WebnnmError):
    """A bad model, dataset or hyperparameter (the message says which)."""
    code = "INVALID_ARGUMENT"


class FailedPrecondition(WebnnmError):
    code = "FAILED_PRECONDITION"


class Unauthenticated(WebnnmError):
    """No token, or one the daemon does not know."""
    code = "UNAUTHENTICATED"


class PermissionDenied(WebnnmError):
    code = "PERMISSION_DENIED"


class ResourceExhausted(WebnnmError):
    """A request over one of the daemon's limits (the message names it)."""
    code = "RESOURCE_EXHAUSTED"


class Unavailable(WebnnmError):
    """The daemon cannot be reached."""
    code = "UNAVAILABLE"


class JobFailed(WebnnmError):
    """Run.wait() on a run that ended FAILED: `run` is the Run, `message`
    the job's error."""
    code = "FAILED"

    def __init__(self, message, run=None):
        super().__init__(message)
        self.run = run


_BY_CODE = {c.code: c for c in (NotFound, InvalidArgument, FailedPrecondition,
                               Unauthenticated, PermissionDenied,
                               ResourceExhausted, Unavailable)}


def from_rpc(error, address=None):
    """The WebnnmError of a grpc.RpcError."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    name = code.name if isinstance(code, grpc.StatusCode) else str(code)
    message = error.details() if hasattr(error, "details") else str(error)
    if name == "UNAVAILABLE" and address:
        message = f"cannot reach webnnmd at {address}: {message}"
    cls = _BY_CODE.get(name, WebnnmError)
    return cls(message or name, name)
