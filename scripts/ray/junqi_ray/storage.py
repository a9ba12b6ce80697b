"""Where parts and the merged run are published: a directory (local or a shared
file system) or an object store that pyarrow can open (s3://, gs://, ...).

Both kinds publish a directory so that a reader never sees half of it:

* a directory is copied into a hidden temporary sibling, completed with a
  ``_SUCCESS`` marker and then renamed into place (``os.rename``, atomic on one
  file system); a previous copy at the same path is moved aside first;
* an object store has no rename, so every file is uploaded first and the
  ``_SUCCESS`` marker is written last. A prefix without the marker counts as
  absent; publishing again deletes the marker first, then the old files.

The marker is a small JSON file listing the published files and their sizes;
fetching a part reads exactly those files back.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlparse

MARKER = "_SUCCESS"

# Files a junqi run directory holds that are no part of its data.
_SKIP = {".lock"}


def _local_files(root: str) -> list[tuple[str, int]]:
    """(relative path, size) of every file under root, sorted, without locks."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name in _SKIP or name == MARKER:
                continue
            full = os.path.join(dirpath, name)
            out.append((os.path.relpath(full, root).replace(os.sep, "/"), os.path.getsize(full)))
    return out


def _marker_bytes(files: list[tuple[str, int]]) -> bytes:
    body = {
        "format": "junqi-ray-published/1",
        "files": [{"path": p, "size": s} for p, s in files],
        "published_unix": round(time.time(), 3),
    }
    return (json.dumps(body, indent=1) + "\n").encode()


@dataclass(frozen=True)
class StorageOptions:
    """How to reach an object store: travels with each task (no secrets; the
    credentials come from the worker's environment or instance role)."""

    endpoint: Optional[str] = None  # e.g. http://127.0.0.1:9000
    region: Optional[str] = None

    @staticmethod
    def from_env(endpoint: Optional[str] = None, region: Optional[str] = None) -> "StorageOptions":
        endpoint = (
            endpoint
            or os.environ.get("JUNQI_RAY_S3_ENDPOINT")
            or os.environ.get("AWS_ENDPOINT_URL_S3")
            or os.environ.get("AWS_ENDPOINT_URL")
        )
        region = region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        return StorageOptions(endpoint=endpoint or None, region=region or None)


def is_remote(url: str) -> bool:
    scheme = urlparse(url).scheme
    return bool(scheme) and scheme != "file" and len(scheme) > 1  # C:\ is not a scheme


def open_store(url: str, options: StorageOptions = StorageOptions()) -> "Store":
    if is_remote(url):
        return ObjectStore(url, options)
    path = urlparse(url).path if url.startswith("file://") else url
    return DirStore(os.path.abspath(path))


class Store:
    url: str

    def join(self, rel: str) -> str:
        return self.url.rstrip("/") + "/" + rel

    def has(self, rel: str) -> bool:
        raise NotImplementedError

    def publish(self, local_dir: str, rel: str) -> int:
        """Publish local_dir at rel; returns the bytes published."""
        raise NotImplementedError

    def fetch(self, rel: str, local_dir: str) -> str:
        """A local directory holding the published rel (may be the store's own)."""
        raise NotImplementedError

    def list_parts(self, prefix: str) -> list[str]:
        """Names of the published (marked) entries directly under prefix."""
        raise NotImplementedError


class DirStore(Store):
    def __init__(self, root: str):
        self.root = root
        self.url = root

    def _path(self, rel: str) -> str:
        return os.path.join(self.root, *rel.split("/"))

    def has(self, rel: str) -> bool:
        return os.path.isfile(os.path.join(self._path(rel), MARKER))

    def publish(self, local_dir: str, rel: str) -> int:
        final = self._path(rel)
        parent, name = os.path.split(final)
        os.makedirs(parent, exist_ok=True)
        tag = uuid.uuid4().hex[:12]
        tmp = os.path.join(parent, f".{name}.tmp-{tag}")
        files = _local_files(local_dir)
        try:
            for path, _ in files:
                dst = os.path.join(tmp, *path.split("/"))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copyfile(os.path.join(local_dir, *path.split("/")), dst)
            with open(os.path.join(tmp, MARKER), "wb") as f:
                f.write(_marker_bytes(files))
                f.flush()
                os.fsync(f.fileno())
            # A retried task publishes the same part again: move the old copy
            # aside (the part is absent for a moment, never half there).
            while True:
                try:
                    os.rename(tmp, final)
                    break
                except OSError:
                    if not os.path.lexists(final):
                        raise
                    old = os.path.join(parent, f".{name}.old-{uuid.uuid4().hex[:12]}")
                    try:
                        os.rename(final, old)
                    except FileNotFoundError:
                        continue
                    shutil.rmtree(old, ignore_errors=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return sum(s for _, s in files)

    def fetch(self, rel: str, local_dir: str) -> str:
        if not self.has(rel):
            raise FileNotFoundError(f"{self.join(rel)} is not published (no {MARKER})")
        return self._path(rel)

    def list_parts(self, prefix: str) -> list[str]:
        d = self._path(prefix)
        if not os.path.isdir(d):
            return []
        return sorted(n for n in os.listdir(d) if not n.startswith(".") and self.has(f"{prefix}/{n}"))


class ObjectStore(Store):
    def __init__(self, url: str, options: StorageOptions):
        import pyarrow.fs as pafs

        self.url = url.rstrip("/")
        parsed = urlparse(url)
        if parsed.scheme == "s3" and (options.endpoint or options.region):
            kw = {}
            if options.endpoint:
                ep = urlparse(options.endpoint if "://" in options.endpoint else "https://" + options.endpoint)
                kw["endpoint_override"] = ep.netloc
                kw["scheme"] = ep.scheme or "https"
            kw["region"] = options.region or "us-east-1"
            self.fs = pafs.S3FileSystem(**kw)
            self.base = (parsed.netloc + parsed.path).rstrip("/")
        else:
            self.fs, base = pafs.FileSystem.from_uri(url)
            self.base = base.rstrip("/")

    def _path(self, rel: str) -> str:
        return f"{self.base}/{rel}" if rel else self.base

    def has(self, rel: str) -> bool:
        import pyarrow.fs as pafs

        return self.fs.get_file_info(self._path(rel) + "/" + MARKER).type == pafs.FileType.File

    def publish(self, local_dir: str, rel: str) -> int:
        import pyarrow.fs as pafs

        dest = self._path(rel)
        marker = dest + "/" + MARKER
        # Unmark first: from here until the new marker the part is absent.
        if self.fs.get_file_info(marker).type == pafs.FileType.File:
            self.fs.delete_file(marker)
        self.fs.delete_dir_contents(dest, missing_dir_ok=True)
        files = _local_files(local_dir)
        for path, _ in files:
            with open(os.path.join(local_dir, *path.split("/")), "rb") as src, \
                    self.fs.open_output_stream(f"{dest}/{path}") as out:
                shutil.copyfileobj(src, out, 1 << 20)
        with self.fs.open_output_stream(marker) as out:
            out.write(_marker_bytes(files))
        return sum(s for _, s in files)

    def fetch(self, rel: str, local_dir: str) -> str:
        src = self._path(rel)
        try:
            with self.fs.open_input_stream(src + "/" + MARKER) as f:
                listing = json.loads(f.read())
        except (FileNotFoundError, OSError) as e:
            raise FileNotFoundError(f"{self.join(rel)} is not published (no {MARKER}): {e}") from e
        os.makedirs(local_dir, exist_ok=True)
        for entry in listing["files"]:
            dst = os.path.join(local_dir, *entry["path"].split("/"))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with self.fs.open_input_stream(f"{src}/{entry['path']}") as f, open(dst, "wb") as out:
                shutil.copyfileobj(f, out, 1 << 20)
            if os.path.getsize(dst) != entry["size"]:
                raise IOError(f"{self.join(rel)}/{entry['path']}: size {os.path.getsize(dst)}, marker says {entry['size']}")
        return local_dir

    def list_parts(self, prefix: str) -> list[str]:
        import pyarrow.fs as pafs

        sel = pafs.FileSelector(self._path(prefix), allow_not_found=True, recursive=False)
        names = [i.base_name for i in self.fs.get_file_info(sel) if i.type == pafs.FileType.Directory]
        return sorted(n for n in names if self.has(f"{prefix}/{n}"))
