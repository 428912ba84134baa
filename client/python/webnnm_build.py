"""The webnnm package's build: a PEP 517 backend with no requirements, so
`pip install client/python` works offline (`--no-index`), and a command that
lays the package out in a folder for tests run from the build tree.

The gRPC stubs are generated from the repository's proto/ files with protoc
and grpc_python_plugin (Debian's protobuf-compiler and
protobuf-compiler-grpc) into the package's `webnnm/v1/`: the generated code
imports `webnnm.v1.*`, which is this package's own subpackage.

    python3 webnnm_build.py tree DIR    # DIR/webnnm, importable with
                                        # PYTHONPATH=DIR
"""
import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

NAME = "webnnm"
VERSION = "0.1.0"
HERE = os.path.dirname(os.path.abspath(__file__))
PROTOS = ["webnnm/v1/webnnm.proto", "webnnm/v1/hyperparameters.proto",
          "webnnm/v1/snapshot.proto"]
REQUIRES = ["grpcio>=1.51", "protobuf>=3.20", "numpy>=1.21", "pandas>=1.3"]
SUMMARY = "Python client of webnnmd, the WebNNM training daemon"


def _proto_root():
    """The folder holding webnnm/v1/*.proto: $WEBNNM_PROTO, else the
    repository's proto/ beside client/."""
    root = os.environ.get("WEBNNM_PROTO") or os.path.join(HERE, "..", "..",
                                                          "proto")
    root = os.path.abspath(root)
    if not os.path.isfile(os.path.join(root, PROTOS[0])):
        raise RuntimeError(
            f"webnnm: cannot find {PROTOS[0]} under {root} (build from the "
            "WebNNM source tree, or set WEBNNM_PROTO to its proto/ folder)")
    return root


def _plugin():
    plugin = shutil.which("grpc_python_plugin")
    if not plugin or not shutil.which("protoc"):
        raise RuntimeError(
            "webnnm: building needs protoc and grpc_python_plugin (Debian: "
            "apt-get install protobuf-compiler protobuf-compiler-grpc)")
    return plugin


def _sources():
    """(path in the package, path on disk) of the hand-written modules."""
    package = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(package)):
        if name.endswith(".py"):
            yield f"{NAME}/{name}", os.path.join(package, name)


def lay_out(dest):
    """Writes the package (sources and generated stubs) under dest/webnnm;
    returns the files written, relative to dest."""
    root, plugin = _proto_root(), _plugin()
    package = os.path.join(dest, NAME)
    if os.path.isdir(package):
        shutil.rmtree(package)
    os.makedirs(os.path.join(package, "v1"))
    written = []
    for rel, path in _sources():
        shutil.copyfile(path, os.path.join(dest, rel))
        written.append(rel)
    subprocess.run(
        ["protoc", "-I", root, "--python_out", dest, "--grpc_python_out",
         dest, f"--plugin=protoc-gen-grpc_python={plugin}", *PROTOS],
        check=True)
    with open(os.path.join(package, "v1", "__init__.py"), "w") as f:
        f.write('"""Generated from proto/webnnm/v1 by protoc."""\n')
    for name in sorted(os.listdir(os.path.join(package, "v1"))):
        if name.endswith(".py"):
            written.append(f"{NAME}/v1/{name}")
    return written


def _metadata():
    lines = ["Metadata-Version: 2.1", f"Name: {NAME}", f"Version: {VERSION}",
             f"Summary: {SUMMARY}", "License: Apache-2.0",
             "Requires-Python: >=3.9"]
    lines += [f"Requires-Dist: {r}" for r in REQUIRES]
    return "\n".join(lines) + "\n"


def _wheel_name():
    return f"{NAME}-{VERSION}-py3-none-any.whl"


# --- PEP 517 ---------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory,
                                     config_settings=None):
    info = f"{NAME}-{VERSION}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w") as f:
        f.write(_metadata())
    return info


def build_wheel(wheel_directory, config_settings=None,
                metadata_directory=None):
    info = f"{NAME}-{VERSION}.dist-info"
    with tempfile.TemporaryDirectory() as tree:
        files = lay_out(tree)
        contents = [(rel, open(os.path.join(tree, rel), "rb").read())
                    for rel in files]
    contents.append((f"{info}/METADATA", _metadata().encode()))
    contents.append((f"{info}/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: webnnm_build\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n").encode()))
    record = []
    for rel, data in contents:
        digest = base64.urlsafe_b64encode(
            hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{rel},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    contents.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    path = os.path.join(wheel_directory, _wheel_name())
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for rel, data in contents:
            z.writestr(rel, data)
    return _wheel_name()


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("webnnm: no source distribution; install from the "
                       "WebNNM source tree (pip install client/python)")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "tree":
        sys.exit("usage: webnnm_build.py tree DIR")
    lay_out(sys.argv[2])
