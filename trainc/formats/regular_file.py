"""Opening input files without blocking: a FIFO or device given as a path is refused, not waited on."""

from __future__ import annotations

import errno
import os
import stat

NOT_REGULAR = "not a regular file"


def open_regular(path: str | os.PathLike[str]):
    """A binary handle on `path`; OSError unless it is a regular file (checked without blocking on a FIFO
    that has no writer, which a plain open would wait on forever)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    handle = os.fdopen(descriptor, "rb")
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        handle.close()
        raise OSError(errno.EINVAL, NOT_REGULAR, os.fspath(path))
    return handle
