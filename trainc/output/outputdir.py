"""`trainc build --output-dir DIR`: a rendered tree that trainc owns, for committing and reviewing.

DIR holds one file per TrainJob, `<namespace>/<name>.yaml`, and one per pass-through object,
`<namespace>/<kind>.<name>.yaml` (`_cluster/` for cluster-scoped objects). trainc lists the files it
wrote in `DIR/.trainc-manifest`, one JSON string a line (so no name, whatever it holds, can end an entry or
add one), and heads each with a `# Rendered by trainc from <input>; do not edit.` line; the next build removes
the files it wrote before and no longer renders (a deleted TrainJob), and overwrites or removes only files
that still carry that line: a file without it is not trainc's, whatever the manifest says. Every file is
staged beside its target and renamed into place only when all are staged (all or nothing). A build holds an
exclusive flock(2) on DIR itself while it writes; a second one fails at once, naming the holder's pid (from
/proc/locks), rather than mixing two renders. Nothing is written through a symbolic link inside DIR
(directories are opened relative to DIR's descriptor with O_NOFOLLOW), and files holding a Secret are written
mode 0600.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import secrets
import stat
from contextlib import contextmanager, suppress

from ..errors import Notice, one_line
from .manifests import dump

MANIFEST = ".trainc-manifest"
HEADER = "# Rendered by trainc from {source}; do not edit.\n"
HEADER_START = HEADER.partition("{")[0]
_HEADER_START = HEADER_START.encode()
_ENTRY = re.compile(r"[^/.][^/]*/[^/.][^/]*")  # what a manifest may list: `<directory>/<file>`, never hidden
_OPEN_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class OutputDirError(Exception):
    """DIR cannot be written as asked: the message names the real path and problem (not a staging file)."""


def files(manifests) -> dict[str, tuple[str, bool]]:
    """{relative path: (text, holds a Secret)} for a build's manifests."""
    found = {}
    for trainjob, objects in manifests.jobs:
        text = HEADER.format(source=one_line(trainjob.origin.file)) + dump(objects)
        found[f"{trainjob.namespace}/{trainjob.name}.yaml"] = (text, any(o["kind"] == "Secret" for o in objects))
    for document in (*manifests.first, *manifests.last):
        text = HEADER.format(source=one_line(document.origin.file)) + "---\n" + document.text()
        found[document.path()] = (text, document.kind == "Secret")
    return found


def write(directory: str, contents: dict[str, tuple[str, bool]], inputs=None) -> list[Notice]:
    """Make DIR hold `contents` among the files trainc wrote there; raises OutputDirError. A file written
    before and no longer rendered is removed only when the input its header names is among `inputs` (the
    run's PATHS: files, or directories it was under; None: every input): a build of one app, or of one file,
    never prunes what other inputs rendered there (a per-app CI loop into one DIR). Returns notices: each
    file removed, each kept because this run was not given its input, each left because it no longer carries
    trainc's header."""
    directory = directory.rstrip(os.sep) or os.sep  # `rendered/` is `rendered`
    made = _make(directory)
    try:
        root = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        _unmake(made)
        raise OutputDirError(f"{directory}: {exc.strerror}") from None
    try:
        with _locked(root, directory):
            return _replace(root, directory, contents, inputs)
    except BaseException:
        _unmake(made)  # a DIR made for this build goes too
        raise
    finally:
        os.close(root)


def _make(directory: str) -> list[str]:
    """Create DIR and its missing parents; the ones made, outermost first."""
    missing, folder = [], directory
    while folder and not os.path.lexists(folder):
        missing.append(folder)
        folder = os.path.dirname(folder)
    made = []
    for folder in reversed(missing):
        try:
            os.mkdir(folder)
        except FileExistsError:  # another build made it meanwhile: as if it had been there (and not ours to remove)
            continue
        except OSError as exc:
            _unmake(made)
            raise OutputDirError(f"cannot create {folder}: {exc.strerror}") from None
        made.append(folder)
    return made


def _unmake(made: list[str]) -> None:
    for folder in reversed(made):
        _quietly(os.rmdir, folder)


def _quietly(remove, *args, **kwargs) -> None:
    """Best-effort clean-up after a failed write: what cannot be removed stays, and the write's own error is the
    one reported."""
    with suppress(OSError):  # see the docstring: the failure that got us here is the one to report
        remove(*args, **kwargs)


@contextmanager
def _locked(root: int, directory: str):
    """An exclusive flock(2) on DIR itself (released when its descriptor closes): no lock file to leave."""
    try:
        fcntl.flock(root, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise OutputDirError(
            f"{directory} is being written by another trainc build{_holder(root)}; run one build "
            "per directory at a time"
        ) from None
    yield


def _holder(root: int) -> str:
    """` (pid N)` of the process holding the lock on DIR, from Linux's /proc/locks; empty elsewhere."""
    status = os.fstat(root)
    device = f"{os.major(status.st_dev):02x}:{os.minor(status.st_dev):02x}:{status.st_ino}"
    with suppress(OSError), open("/proc/locks", encoding="ascii", errors="replace") as locks:
        for line in locks:  # (/proc/locks unreadable: the message only lacks the holder's pid)
            fields = line.split()  # `1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF`
            if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == device:
                return f" (pid {fields[4]})"
    return ""


def _replace(root: int, directory: str, contents: dict, inputs) -> list[Notice]:
    before = _manifest(root, directory)
    stale = sorted(before - contents.keys())
    others = [relative for relative in stale if not given(_source(root, relative), inputs)]
    folders: dict[str, int] = {}
    made: list[str] = []
    staged: list[tuple[int, str, str]] = []
    try:
        for relative in sorted(contents):
            folder, name = relative.split("/")
            path = os.path.join(directory, relative)
            if folder not in folders:
                folders[folder] = _folder(root, directory, folder, made)
            _check_target(folders[folder], path)
            text, private = contents[relative]
            staged.append((folders[folder], _stage(folders[folder], name, text, private, path), name))
        for folder_fd, staging, name in staged:
            os.replace(staging, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        staged.clear()
    except BaseException:
        for folder_fd, staging, _ in staged:
            _quietly(os.unlink, staging, dir_fd=folder_fd)
        for folder in reversed(made):
            _quietly(os.rmdir, folder, dir_fd=root)
        raise
    finally:
        for folder_fd in folders.values():
            os.close(folder_fd)
    sources = {relative: _source(root, relative) for relative in stale}
    removed, kept = [], []
    for relative in stale:
        if relative not in others:
            (removed if _remove(root, directory, relative) else kept).append(relative)
    listing = "".join(json.dumps(relative) + "\n" for relative in sorted({*contents, *others}))
    text = (
        "# The files trainc build wrote in this directory, one JSON string a line; it removes them once they are "
        "no longer rendered.\n" + listing
    )
    manifest = os.path.join(directory, MANIFEST)
    try:
        os.replace(_stage(root, MANIFEST, text, False, manifest), MANIFEST, src_dir_fd=root, dst_dir_fd=root)
    except OSError as exc:
        raise OutputDirError(f"{manifest}: {exc.strerror}") from None
    notices = [
        Notice(
            "notice",
            None,
            (),
            f"{os.path.join(directory, relative)}: removed: {sources[relative]} no longer renders it",
        )
        for relative in removed
    ]
    if others:
        notices.append(
            Notice(
                "notice",
                None,
                (),
                f"{directory}: {len(others)} file(s) rendered from inputs this run "
                f"was not given kept as they are (e.g. {os.path.join(directory, others[0])}, from "
                f"{sources[others[0]]}); a build given those inputs removes them once they render none",
            )
        )
    return notices + [
        Notice(
            "notice",
            None,
            (),
            f"{os.path.join(directory, relative)}: listed in {MANIFEST}, but not a "
            "file headed by trainc's line (any more), so not trainc's to remove: left as it is",
        )
        for relative in kept
    ]


def _source(root: int, relative: str) -> str | None:
    """The input a file trainc wrote names in its header, None when it has no such header."""
    folder, name = relative.split("/")
    try:
        folder_fd = os.open(folder, _OPEN_DIRECTORY, dir_fd=root)
    except OSError:
        return None
    try:
        handle = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder_fd)
    except OSError:
        return None
    finally:
        os.close(folder_fd)
    with os.fdopen(handle, "rb") as stream:
        return source_of(stream.readline(4096).decode("utf-8", "replace"))


def source_of(text: str) -> str | None:
    """The input named by the header line `text` starts with, None when it has none."""
    line = text.partition("\n")[0] + "\n"
    prefix, suffix = HEADER.split("{source}")
    if not line.startswith(prefix) or not line.endswith(suffix):
        return None
    return line[len(prefix) : -len(suffix)]


def given(source: str | None, inputs) -> bool:
    """Whether the run's inputs cover `source` (the file, or a directory above it); a file without trainc's
    header (None) is left to `_remove`, which keeps it and says so."""
    if inputs is None or source is None:
        return True
    if source == "-":
        return "-" in inputs
    real = os.path.abspath(source)
    for path in inputs:
        if path == "-":
            continue
        given = os.path.abspath(path)
        if real == given or real.startswith(given.rstrip(os.sep) + os.sep):
            return True
    return False


def _manifest(root: int, directory: str) -> set[str]:
    """The files the last build wrote (entries that are not `<directory>/<file>` are never acted on)."""
    try:
        handle = os.open(MANIFEST, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=root)
    except FileNotFoundError:
        return set()
    except OSError as exc:
        raise OutputDirError(f"{os.path.join(directory, MANIFEST)}: {exc.strerror}") from None
    with os.fdopen(handle, "rb") as stream:
        return listed(stream.read().decode("utf-8", "replace"))


def listed(manifest: str) -> set[str]:
    """The files a manifest's text lists: JSON strings, or the bare paths of manifests written before them
    (entries that are not `<folder>/<file>` are never acted on)."""
    found = set()
    for line in manifest.split("\n"):
        if line.startswith('"'):
            try:
                line = json.loads(line)
            except ValueError:
                continue
        if isinstance(line, str) and _ENTRY.fullmatch(line) and "\0" not in line:
            found.add(line)
    return found


def _folder(root: int, directory: str, folder: str, made: list[str]) -> int:
    """A descriptor of DIR/folder, made if missing; a symbolic link there is refused, never followed."""
    path = os.path.join(directory, folder)
    try:
        try:
            return os.open(folder, _OPEN_DIRECTORY, dir_fd=root)
        except FileNotFoundError:
            os.mkdir(folder, dir_fd=root)
            made.append(folder)
            return os.open(folder, _OPEN_DIRECTORY, dir_fd=root)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and stat.S_ISLNK(os.lstat(folder, dir_fd=root).st_mode):
            raise OutputDirError(
                f"{path} is a symbolic link: trainc writes only inside the output directory and "
                "never through a link (it could lead outside); remove the link"
            ) from None
        raise OutputDirError(f"{path}: {exc.strerror}") from None


def _check_target(folder: int, path: str) -> None:
    """Refuse to replace a directory, or a file trainc did not write (not headed by its line)."""
    name = os.path.basename(path)
    try:
        mode = os.lstat(name, dir_fd=folder).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        raise OutputDirError(f"{path}: Is a directory")
    if stat.S_ISREG(mode) and _headed(folder, name):
        return
    raise OutputDirError(
        f"{path} exists and trainc did not write it (it does not start with trainc's "
        f"'{_HEADER_START.decode()}...' line): move it away, or write to another --output-dir"
    )


def _headed(folder: int, name: str) -> bool:
    try:
        handle = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return False
    with os.fdopen(handle, "rb") as stream:
        return stream.read(len(_HEADER_START)) == _HEADER_START


def _stage(folder: int, name: str, text: str, private: bool, path: str) -> str:
    """Write `text` to a new file beside `name` (never an existing one: a planted link leads nowhere)."""
    while True:
        staging = f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            handle = os.open(
                staging,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o600 if private else 0o666,
                dir_fd=folder,
            )
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputDirError(f"{path}: {exc.strerror}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(text.encode("utf-8"))
    except OSError as exc:
        _quietly(os.unlink, staging, dir_fd=folder)
        raise OutputDirError(f"{path}: {exc.strerror}") from None
    return staging


def _remove(root: int, directory: str, relative: str) -> bool:
    """Remove a file a previous build wrote if it still carries trainc's header, and its directory once empty;
    a link on the way is not followed. False when a file is there that is not trainc's (left as it is)."""
    folder, name = relative.split("/")
    try:
        folder_fd = os.open(folder, _OPEN_DIRECTORY, dir_fd=root)
    except OSError:
        return True
    try:
        with suppress(FileNotFoundError):  # already gone: nothing of trainc's to remove
            if not stat.S_ISREG(os.lstat(name, dir_fd=folder_fd).st_mode) or not _headed(folder_fd, name):
                return False
            os.unlink(name, dir_fd=folder_fd)
    except OSError as exc:
        raise OutputDirError(f"{os.path.join(directory, relative)}: cannot remove it: {exc.strerror}") from None
    finally:
        os.close(folder_fd)
    _quietly(os.rmdir, folder, dir_fd=root)
    return True
