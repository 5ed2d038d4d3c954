"""Whole-or-nothing output that is not held in memory: rendered text is staged in files as each
TrainJob is compiled, and reaches stdout or its place in the output directory only once the whole
build has succeeded. A large build's memory is then its inputs, not its output."""

from __future__ import annotations

import errno
import os
import tempfile

_CHUNK = 1 << 20


class _Stage:
    """`add` keeps the first OSError in `failed` and ignores what follows, so that the build goes on and
    errors in the input, which say more, are reported before a full disk."""

    failed: OSError | None = None

    def add(self, namespace: str, name: str, text: str) -> None:
        if self.failed is None:
            try:
                self._add(namespace, name, text)
            except OSError as exc:
                self.failed = exc


class Spool(_Stage):
    """The output stream, staged in an anonymous temporary file."""

    _file = None

    def _add(self, namespace: str, name: str, text: str) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")
        self._file.write(text)

    def copy_to(self, stream) -> None:
        if self._file is not None:
            self._file.seek(0)
            while chunk := self._file.read(_CHUNK):
                stream.write(chunk)

    def discard(self) -> None:
        if self._file is not None:
            self._file.close()


class Directory(_Stage):
    """One file per TrainJob, DIR/<namespace>/<name>.yaml, each staged beside its target (in a new file of
    its own, so a planted `.tmp` symlink leads nowhere) and renamed into place by `commit`; `discard` removes
    what was staged and the folders made for it."""

    def __init__(self, root: str):
        self.root = root
        self._staged: dict[str, str] = {}  # target -> staging file
        self._made: list[str] = []
        self._mode = 0o666 & ~_umask()

    def _add(self, namespace: str, name: str, text: str) -> None:
        target = os.path.join(self.root, namespace, f"{name}.yaml")
        folder = os.path.dirname(target)
        missing = []
        while folder and not os.path.isdir(folder) and not os.path.exists(folder):
            missing.append(folder)
            folder = os.path.dirname(folder)
        for folder in reversed(missing):
            os.mkdir(folder)
            self._made.append(folder)
        if os.path.isdir(target):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), target)
        descriptor, staging = tempfile.mkstemp(dir=os.path.dirname(target) or ".",
                                               prefix=f".{os.path.basename(target)}.", suffix=".tmp")
        self._staged[target] = staging
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(staging, self._mode)

    def commit(self) -> None:
        for target, staging in self._staged.items():
            os.replace(staging, target)

    def discard(self) -> None:
        for path in self._staged.values():
            os.remove(path)
        for folder in reversed(self._made):
            os.rmdir(folder)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
