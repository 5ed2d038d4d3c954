"""Opening input files without blocking: a FIFO or device given as a path is refused, not waited on."""

from __future__ import annotations

import errno
import os
import stat

NOT_REGULAR = "not a regular file"
_CHUNK = 1 << 20  # bytes read at a time past a file's size (it grew)


def _opened(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """A descriptor on `path` and its status; OSError unless it is a regular file (checked without blocking on a
    FIFO that has no writer, which a plain open would wait on forever)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        os.close(descriptor)
        if stat.S_ISDIR(status.st_mode):  # said as opening a folder to read says it
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        raise OSError(errno.EINVAL, NOT_REGULAR, os.fspath(path))
    return descriptor, status


def open_regular(path: str | os.PathLike[str]):
    """A binary handle on `path`, a regular file (`_opened`)."""
    return os.fdopen(_opened(path)[0], "rb")


def read_regular(path: str, most: int) -> bytes:
    """What the regular file `path` holds, at most `most` + 1 bytes (so that more than `most` shows); OSError
    unless it is a regular file (`_opened`). The first read asks for the file's size (plus one, to see its end):
    a buffered handle reading in large chunks allocates each chunk whole, which took half the time of reading a
    small file."""
    descriptor, status = _opened(path)
    try:
        chunks, size, want = [], 0, status.st_size + 1
        while size <= most:
            chunk = os.read(descriptor, min(want, most + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            want = _CHUNK
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(descriptor)
