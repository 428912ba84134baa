"""What an upload sends: a dataset path's format, its files and the content
hash the daemon checks (proto/wire/sha256.h: SHA-256 over each file's base
name, a NUL, its size in decimal, a NUL and its bytes, files in name
order)."""
import hashlib
import io
import os
import zipfile

from webnnm.v1 import webnnm_pb2 as pb

IDX_FILES = ["train-images-idx3-ubyte", "train-images-idx3-ubyte.gz",
             "train-labels-idx1-ubyte", "train-labels-idx1-ubyte.gz",
             "t10k-images-idx3-ubyte", "t10k-images-idx3-ubyte.gz",
             "t10k-labels-idx1-ubyte", "t10k-labels-idx1-ubyte.gz"]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def content_hash(files):
    """files: [(name, bytes)]; the daemon's dataset hash (hex)."""
    h = hashlib.sha256()
    for name, data in sorted(files, key=lambda f: f[0]):
        h.update(name.encode())
        h.update(b"\0")
        h.update(str(len(data)).encode())
        h.update(b"\0")
        h.update(data)
    return h.hexdigest()


def _is_idx(name):
    return "-idx" in name and "-ubyte" in name


def _is_image_folder(path):
    entries = os.listdir(path)
    if any(_is_idx(e) for e in entries):
        return False
    return any(not e.startswith(".") and os.path.isdir(os.path.join(path, e))
               for e in entries)


def _zip_image_folder(path):
    """The class folders' images as CLASS/FILE entries (stored, fixed
    times: the same folder gives the same bytes)."""
    out = io.BytesIO()
    count = 0
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for cls in sorted(os.listdir(path)):
            folder = os.path.join(path, cls)
            if cls.startswith(".") or not os.path.isdir(folder):
                continue
            for name in sorted(os.listdir(folder)):
                if not name.lower().endswith(IMAGE_SUFFIXES):
                    continue
                info = zipfile.ZipInfo(f"{cls}/{name}", (1980, 1, 1, 0, 0, 0))
                with open(os.path.join(folder, name), "rb") as f:
                    z.writestr(info, f.read())
                count += 1
    if count == 0:
        raise ValueError(f"'{path}' holds no CLASS/FILE.png or .jpg images")
    return out.getvalue()


def dataset_files(path):
    """(format, [(name, bytes)]) of a CSV file, an .npz archive, a .zip of
    image folders, an image folder (zipped here) or an IDX folder."""
    path = os.fspath(path)
    if os.path.isdir(path):
        if _is_image_folder(path):
            stem = os.path.basename(os.path.normpath(path)) or "images"
            return pb.DATASET_FORMAT_IMAGES, [(stem + ".zip",
                                               _zip_image_folder(path))]
        files = []
        for name in IDX_FILES:
            full = os.path.join(path, name)
            if os.path.isfile(full):
                with open(full, "rb") as f:
                    files.append((name, f.read()))
        if not files:
            raise ValueError(f"'{path}' holds no IDX files "
                             "(train-images-idx3-ubyte[.gz], ...) and no "
                             "class folders of images")
        return pb.DATASET_FORMAT_IDX, files
    if not os.path.isfile(path):
        raise FileNotFoundError(f"cannot read '{path}'")
    with open(path, "rb") as f:
        data = f.read()
    lower = path.lower()
    kind = (pb.DATASET_FORMAT_NPZ if lower.endswith(".npz") else
            pb.DATASET_FORMAT_IMAGES if lower.endswith(".zip") else
            pb.DATASET_FORMAT_CSV)
    return kind, [(os.path.basename(path), data)]
