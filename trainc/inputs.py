"""The input set: which files a run reads, read once each within the run's byte bound.

Every command that reads manifests (build, validate, diff, explain, run, runtimes)
lists and reads its files here, a git base included (`at_revision`), so they all see
the same objects; `trainc fn` and the Argo CD plugin's discover apply the same rule
to what their hosts give them.

The rule: PATHS and --runtimes name files or directories; a directory is walked
recursively for `*.yaml`, `*.yml` and `*.json` files (kubectl's `-f DIR -R` set),
and **names starting with `.` are skipped there**, files and directories alike.
Those are tool configs, never manifests: `.trainc.yaml`, `.pre-commit-config.yaml`,
`.github/workflows/`, `.gitlab-ci.yml`, Argo CD's parameter overrides
`.argocd-source.yaml` and `.argocd-source-<app>.yaml`, `.git/`. (Argo CD's directory
source reads them and drops, by their text, YAML that does not look like a
manifest; kubectl `-R` reads them and fails; trainc skips them by name, which a
user can see and predict.) A file named explicitly is read whatever its name.

A file that starts with the line trainc heads its rendered files with (`trainc build
--output-dir`, `outputdir.HEADER`) is trainc's output, never an input: a committed
rendered tree inside PATHS (or at a git base) adds nothing, wherever it is.

Each file is read once, whatever routes reach it (a runtime directory inside
PATHS and also given by --runtimes): the same file is the same device and inode,
and the first place it is reached names it. A file reached through PATHS is an
input (its other objects pass through); under --runtimes only runtimes are read.
"""

from __future__ import annotations

import os
import stat

from .errors import InputError, InputErrors, Notice, Origin, Record, SHOWN, caught
from .formats import source
from .trainer import api

SUFFIXES = (".yaml", ".yml", ".json")
# The API groups of what a run compiles (Trainer) or admits against (Kueue's queues, admission policies): a file
# naming none of them is passed over by `validate --skip-other-files` (the pre-commit hook) without a verdict.
MATTERS = (api.GROUP.encode(), b"kueue.x-k8s.io", b"admissionregistration.k8s.io")
RENDERED = "# Rendered by trainc from "  # outputdir.HEADER's start (not imported: it costs every build 8 ms)


def hidden(name: str) -> bool:
    """Whether a directory walk passes over this file or directory name (see the module's rule)."""
    return name.startswith(".") and name not in (".", "..")


def hidden_path(path: str) -> bool:
    """Whether a `/`-separated path inside a directory of inputs goes through a name the rule skips (a
    kpt package's `config.kubernetes.io/path`)."""
    return any(hidden(part) for part in path.split("/"))


def manifest_name(name: str) -> bool:
    """Whether a directory walk reads a file of this name."""
    return name.endswith(SUFFIXES) and not hidden(name)


class Files(Record):
    """The files of a run: PATHS' and those of --runtimes not among them, each in walk order, and the size of
    each regular file as listed (for a parallel build to share them out without another stat each)."""

    inputs: list
    runtimes: list
    sizes: dict | None = None


def files(paths, runtime_paths=(), apart=(), root: str | None = None) -> Files:
    """The input set of PATHS and --runtimes; files under a path of `apart` (what the run reads apart from its
    inputs, inside PATHS: `engine.Options.apart`) are not inputs. `root`: the run's repository (`listed`)."""
    seen: set = set()
    sizes: dict = {}
    inputs = listed(paths, seen, root, sizes)
    if apart:
        away = tuple(os.path.realpath(path) for path in apart)
        folders: dict = {}  # each folder resolved once: a repository's thousands of files share a few dozen
        inputs = [file for file in inputs if file == "-" or not _under(_resolved(file, folders), away)]
    return Files(inputs, listed(runtime_paths, seen, root, sizes), sizes)


def _resolved(file: str, folders: dict) -> str:
    """`file`'s real path (os.path.realpath), its folder's looked up in `folders`."""
    if os.path.islink(file):
        return os.path.realpath(file)
    folder, name = os.path.split(file)
    real = folders.get(folder)
    if real is None:
        real = folders[folder] = os.path.realpath(folder)
    return os.path.join(real, name)


def _under(path: str, tops, sep: str = os.sep) -> bool:
    """Whether `path` is one of the paths `tops` (real paths, or a repository's `/`-separated ones) or inside one."""
    return any(path == top or path.startswith(top.rstrip(sep) + sep) for top in tops)


def listed(paths, seen: set | None = None, root: str | None = None, sizes: dict | None = None) -> list[str]:
    """Directories expanded by the rule, sorted; each file once (by device and inode: a link is the file it
    names) across every call sharing `seen`. A directory that cannot be listed is an error, never an empty set
    of inputs (which a GitOps sync would turn into pruning everything). With `root` (the run's repository,
    `engine.Options.root`), a link met in a directory must lead inside it, or inside that directory's own
    repository. `sizes` gets each regular file's size, as listed."""
    found_files, seen = [], set() if seen is None else seen
    for path in paths:
        if path != "-" and os.path.isdir(path):
            found = sorted(
                (_joined(folder, name), status)
                for folder, name in _walk(path, root)
                for status in [_regular_file(os.path.join(folder, name))]
                if status is not None
            )
        else:  # read as given; what cannot be read is reported then
            found = [(path, None if path == "-" else _regular_file(path))]
        for file, status in found:
            identity = file if status is None else (status.st_dev, status.st_ino)
            if identity not in seen:
                seen.add(identity)
                found_files.append(file)
                if sizes is not None and status is not None:
                    sizes[file] = status.st_size
    return found_files


def _walk(top: str, root: str | None):
    """(folder, name) of every manifest-named file under `top`, hidden directories not entered; links confined
    as `listed` says. The walk of os.walk (top-down, links to directories listed but not entered), reading
    whether an entry is a link from the directory listing rather than with a call per file."""
    allowed = None if root is None else _repository_of(os.path.realpath(top), root)
    pending = [top]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as exc:
            _unlisted(exc)
        directories, files = [], []
        for entry in entries:
            try:
                is_directory = entry.is_dir()
            except OSError:
                is_directory = False
            (directories if is_directory else files).append(entry)
        directories = [entry for entry in directories if not hidden(entry.name)]
        if allowed is not None:  # links to directories: not entered, but one leading outside is refused as a file's is
            for entry in sorted(directories, key=lambda entry: entry.name):
                _confined(entry.path, allowed, _is_link(entry))
        for entry in files:
            if manifest_name(entry.name):
                if allowed is not None:
                    _confined(entry.path, allowed, _is_link(entry))
                yield folder, entry.name
        pending.extend(reversed([entry.path for entry in directories if not _is_link(entry)]))


def _is_link(entry: os.DirEntry) -> bool:
    try:
        return entry.is_symlink()
    except OSError:  # as os.walk and os.path.islink take it
        return False


def _repository_of(top: str, root: str) -> tuple[str, ...]:
    """Where links in a walked directory may lead: the run's root, and for a directory outside it (one the
    command line names) its own git repository, else itself."""
    from .formats.projectconfig import _git_root

    root = os.path.realpath(root)
    if os.path.commonpath([top, root]) == root:
        return (root,)
    return root, os.path.realpath(_git_root(top) or top)


def _confined(path: str, allowed: tuple[str, ...], link: bool) -> None:
    """A link met in a directory is a path the repository names: it must resolve inside the repository, and is
    refused, before its target is looked at, in words that say nothing of it."""
    if link and not any(os.path.commonpath([os.path.realpath(path), top]) == top for top in allowed):
        raise InputError(
            Origin(_joined(*os.path.split(path))),
            (),
            f"a symbolic link to outside the repository "
            f"being rendered ({allowed[-1]}): trainc reads only the repository's own files",
        )


def _regular_file(path: str) -> os.stat_result | None:
    """The status of a regular file (links followed), else None: one stat, where isfile and realpath took a
    stat per path component."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return status if stat.S_ISREG(status.st_mode) else None


def _joined(folder: str, name: str) -> str:
    """`folder/name` spelled as pathlib spells it: no empty or `.` parts, `..` kept (a link may lead elsewhere)."""
    root = "//" if folder.startswith("//") and not folder.startswith("///") else "/" if folder.startswith("/") else ""
    return root + "/".join([*(part for part in folder.split("/") if part not in ("", ".")), name])


def _unlisted(exc: OSError):
    raise InputError(Origin(exc.filename), (), f"cannot read the directory: {exc.strerror}")


class Reader:
    """The reads of one run: each file's text read once, all of them within the run's byte bound
    (`--max-input-bytes`), however many times the run needs them (`trainc diff` compiles PATHS twice); `root`,
    the repository its directories' links are confined to (`listed`)."""

    def __init__(self, budget: source.Budget | None = None, root: str | None = None):
        self.budget = budget or source.Budget()
        self.root = root
        self._texts: dict = {}

    def fresh(self) -> Reader:
        """A reader with the same bound, none of it used, and the same root: a second read set of the run (the
        previous versions), bounded on its own."""
        return Reader(source.Budget(self.budget.limit), self.root)

    def listed(self, paths) -> list[str]:
        """`listed`, confined to this run's root."""
        return listed(paths, root=self.root)

    def text(self, path: str) -> str:
        found = self._texts.get(path)
        if found is None:
            found = self._texts[path] = source.read_bytes(path, self.budget)
        if isinstance(found, bytes):  # read by `may_matter`, decoded when first needed
            found = self._texts[path] = source.decode(found, source.name(path))
        return found

    def may_matter(self, path: str) -> bool:
        """Whether a file may hold what a run compiles or admits against (`validate --skip-other-files`): its
        bytes name an API group of `MATTERS` (or it cannot be read, which the run then reports); directories and
        stdin always may. What is read is kept for the run; what is passed over is not held, nor counted in the
        run's bound."""
        if path == "-" or os.path.isdir(path):
            return True
        try:
            data = source.read_bytes(path, self.budget)
        except InputError:
            return True
        if not any(group in data for group in MATTERS):
            self.budget.left += len(data)
            return False
        self._texts[path] = data
        return True

    def documents(self, file_list, errors: list) -> list:
        """(origin, object) for every object in `file_list`, `List`s expanded; what cannot be read goes to
        `errors`."""
        return documents(((source.name(path), lambda path=path: self.text(path)) for path in file_list), errors)


def documents(texts, errors: list) -> list:
    """(origin, object) for every object in the texts of (name, reader of its text) pairs, `List`s expanded,
    trainc's rendered files left out; what cannot be read goes to `errors`."""
    found = []
    for name, read in texts:
        loaded, problems = caught(lambda: list(source.load_text(_input(read()), name)))
        errors.extend(problems)
        for origin, document in loaded or ():
            found.extend(source.items(origin, document))
    return found


def _input(text: str) -> str:
    """The text, or none for a file trainc rendered (see the module's rule)."""
    return "" if text.startswith(RENDERED) else text


def runtimes_only(documents, notices: list) -> list:
    """The (Cluster)TrainingRuntimes among documents read under --runtimes; anything else is ignored with a
    notice, never passed through (a runtime directory outside the app must not add objects to it)."""
    found = []
    for origin, data in documents:
        kind = data.get("kind") if isinstance(data, dict) else None
        if kind in api.RUNTIME_KINDS:
            found.append((origin, data))
            continue
        named = isinstance(kind, str) and kind
        what = f"a {kind[:SHOWN]}" if named else "a document"
        notices.append(
            Notice(
                "notice",
                origin,
                (),
                f"{what} under --runtimes, not a runtime: ignored (only runtimes are read there)",
                at=("kind",) if named else (),
            )
        )
    return found


def read_previous(rev_or_dir: str | None, paths, namespace: str = "default", runtime_paths=(), reader=None, apart=()):
    """The previous versions (trainer/previous.Previous) of PATHS and --runtimes (of which only runtimes are read);
    None: PATHS as they are (read by `reader`, the run's), for a change of Trainer release alone. A directory
    or a revision is read within a bound of its own, as large as `reader`'s, and a directory confined to its root.

    REV_OR_DIR is a directory holding the previous versions (searched like the inputs), or a git revision: PATHS
    (and --runtimes) are then read as the tree at that revision holds them (`at_revision`), so a file deleted
    since holds removed objects and a moved one its objects where they were. What PATHS hold under a path of
    `apart` is no previous version, as it is no input (`files`). Raises PreviousError for a REV_OR_DIR that is
    neither, InputErrors for previous versions that cannot be read."""
    from .formats import position
    from .errors import PreviousError
    from .trainer.previous import collect

    errors: list = []
    reader = reader or Reader()
    if rev_or_dir is None:
        inputs = files(paths, runtime_paths, apart, reader.root)
        found, runtime_documents = reader.documents(inputs.inputs, errors), reader.documents(inputs.runtimes, errors)
    elif os.path.isdir(rev_or_dir):
        own = reader.fresh()
        found, runtime_documents = own.documents(own.listed([rev_or_dir]), errors), []
    else:
        try:
            texts, runtime_texts = at_revision(rev_or_dir, paths, runtime_paths, reader.fresh().budget, apart)
        except RevisionError as exc:
            raise PreviousError(str(exc)) from None
        found = documents(_decoded(texts), errors)
        runtime_documents = documents(_decoded(runtime_texts), errors)
    previous = collect([*found, *runtimes_only(runtime_documents, [])], namespace, errors)
    if errors:
        raise InputErrors(sorted(errors, key=position.order))
    return previous


def _decoded(texts) -> list:
    """(label, reader of its text) for (label, bytes) pairs read at a revision."""
    return [(label, lambda label=label, data=data: source.decode(data, label)) for label, data in texts]


class RevisionError(ValueError):
    """A git base that cannot be read: the inputs are in no git repository, or REV is no commit of it."""


class _Blob(Record):
    path: str  # in the repository, `/`-separated
    oid: str
    size: int
    link: bool  # a symbolic link: its content is the path it names


def at_revision(rev: str, paths, runtime_paths=(), budget: source.Budget | None = None, apart=()) -> tuple[list, list]:
    """([(label, bytes)] of PATHS, the same of --runtimes) as they were at git revision `rev`: each PATH read as
    the tree at `rev` holds it, by the rule of the working tree, so a file deleted or moved since is read where
    it was. `label` is `REV:path/in/the/repository`. Per repository, one `git ls-tree` and one `git cat-file`
    process, whatever the number of files; what they give is read within `budget` (the run's bound).
    --runtimes outside any repository holding `rev` (a sidecar's own runtimes) are not read: the base then
    compiles with the current ones. Files under a path of `apart` (in the working tree) are left out, as `files`
    leaves them out of the inputs."""
    budget = budget or source.Budget()
    if all(path == "-" for path in [*paths, *runtime_paths]):
        raise RevisionError(f"{rev!r} is not a directory, and the inputs hold no file a git revision can be read at")
    trees: dict = {}
    try:
        picked, seen = ([], []), set()
        for runtimes, (group, chosen) in enumerate(zip((paths, runtime_paths), picked)):
            for path in group:
                if path == "-":
                    continue
                try:
                    tree = _tree_of(path, rev, trees)
                except RevisionError:
                    if runtimes:
                        continue
                    raise
                away = tuple(_in_tree(each, tree.top) for each in apart)
                for label_path, blob in tree.under(_in_tree(path, tree.top)):
                    if _under(label_path, away, "/"):
                        continue
                    if (tree.top, blob.path) not in seen:
                        seen.add((tree.top, blob.path))
                        chosen.append((tree, label_path, blob))
        return tuple(
            [
                (f"{rev}:{label_path}", tree.read(blob, f"{rev}:{label_path}", budget))
                for tree, label_path, blob in chosen
            ]
            for chosen in picked
        )
    finally:
        for tree in trees.values():
            tree.close()


def _in_tree(path: str, top: str) -> str:
    """A working-tree path as the repository at `top` names it."""
    return os.path.relpath(os.path.realpath(path), top).replace(os.sep, "/")


def _tree_of(path: str, rev: str, trees: dict) -> _Tree:
    """The tree at `rev` of the repository holding `path` (which may not exist any more)."""
    real = os.path.realpath(path)
    for top, tree in trees.items():
        if _under(real, (top,), "/"):
            return tree
    folder = real
    while not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    found = _git(folder, "rev-parse", "--show-toplevel")
    if found.returncode != 0:
        reason = found.stderr.decode(errors="replace").strip().splitlines()
        raise RevisionError(
            f"{rev!r} is not a directory, and git cannot read a repository holding {path}"
            + (f": {reason[0].removeprefix('fatal: ')}" if reason else "")
        )
    top = os.path.realpath(found.stdout.decode(errors="surrogateescape").rstrip("\n"))
    commit = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    if commit.returncode != 0:
        raise RevisionError(f"{rev!r} is neither a directory nor a git revision of the repository at {top}")
    trees[top] = tree = _Tree(top, commit.stdout.decode().strip())
    return tree


class _Tree:
    """The files of one commit: listed once (`git ls-tree -r -l -z`), read by one `git cat-file --batch`."""

    def __init__(self, top: str, commit: str):
        self.top, self.reader = top, None
        listing = _git(top, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
        if listing.returncode != 0:
            raise RevisionError(
                f"git cannot list commit {commit} of the repository at {top}: "
                f"{listing.stderr.decode(errors='replace').strip()}"
            )
        self.blobs = {}
        for entry in listing.stdout.split(b"\0"):
            if not entry:
                continue
            fields, _, name = entry.partition(b"\t")
            mode, kind, oid, size = fields.split()
            if kind == b"blob":  # commits (submodules) hold no file here
                path = name.decode(errors="surrogateescape")
                self.blobs[path] = _Blob(path, oid.decode(), int(size), mode == b"120000")

    def under(self, relative: str) -> list[tuple[str, _Blob]]:
        """(path, blob) of the files a PATH (`relative` to the repository) names, by the working tree's rule;
        a link names the file it leads to in the same tree (none: not read, as a dangling link)."""
        relative = "" if relative == "." else relative.replace(os.sep, "/")
        if relative.startswith("../"):  # outside this repository (a link into another)
            return []
        if relative in self.blobs:
            named = [relative]
        else:
            prefix = relative + "/" if relative else ""
            named = sorted(
                path
                for path in self.blobs
                if path.startswith(prefix) and not hidden_path(path[len(prefix) :]) and manifest_name(path)
            )
        return [(path, blob) for path in named if (blob := self._followed(self.blobs[path])) is not None]

    def _followed(self, blob: _Blob) -> _Blob | None:
        for _ in range(40):  # as the kernel's limit on links followed
            if not blob.link:
                return blob
            target = self._content(blob).decode(errors="surrogateescape")
            path = os.path.normpath(os.path.join(os.path.dirname(blob.path), target)).replace(os.sep, "/")
            blob = self.blobs.get(path)
            if blob is None or os.path.isabs(target):
                return None
        return None

    def read(self, blob: _Blob, label: str, budget: source.Budget) -> bytes:
        budget.charge(blob.size, label)
        return self._content(blob)

    def _content(self, blob: _Blob) -> bytes:
        import subprocess

        if self.reader is None:
            self.reader = subprocess.Popen(
                ["git", "-C", self.top, "cat-file", "--batch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        self.reader.stdin.write(blob.oid.encode() + b"\n")
        self.reader.stdin.flush()
        header = self.reader.stdout.readline().split()
        if len(header) != 3 or header[2] != str(blob.size).encode():
            raise RevisionError(f"git cannot read {blob.path} at {self.top}")
        return self.reader.stdout.read(blob.size + 1)[:-1]  # the content, then a newline

    def close(self) -> None:
        if self.reader is not None:  # at the end of its input, or a closed output, git ends
            self.reader.stdin.close()
            self.reader.stdout.close()
            self.reader.wait()


def _git(folder: str, *args: str):
    import subprocess  # only a git base needs it

    try:
        return subprocess.run(["git", "-C", folder, *args], capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RevisionError(f"cannot run git: {exc}") from None


class Staleness:
    """Whether the cluster state `path` was taken before the inputs' commit (HEAD of the git repository holding the
    first of `paths`): the cluster it describes may not hold what that commit deployed. It was taken when its file
    last changed: its last commit when git tracks it unmodified, else its modification time; stdin is taken now.

    Git is asked at once while the run goes on (`notice` takes the answers): its four questions in one shell,
    spawned directly, as the subprocess module's import alone costs more than the answers, and each process
    spawned holds the run up about a millisecond."""

    def __init__(self, path: str, paths):
        self.path, self._asked = path, None
        if path == "-":
            return
        folder = next((p if os.path.isdir(p) else os.path.dirname(p) or "." for p in paths if p != "-"), ".")
        here, name = os.path.dirname(os.path.abspath(path)), os.path.basename(path)
        self._asked = _spawned(_QUESTIONS, folder, here, name)

    def notice(self) -> Notice | None:
        """The notice, when the state is older than the commit; git's answers waited for (a minute at most)."""
        if self._asked is None:
            return None
        import time

        answers = _answers(self._asked, time.monotonic() + 60)
        self._asked = None
        commit, tracked, changed, last = answers + [None] * (len(_QUESTIONS) - len(answers))
        commit = _number(commit)
        if commit is None:
            return None
        taken = _number(last) if tracked is not None and changed is not None and not changed.strip() else None
        if taken is None:
            try:
                taken = int(os.stat(self.path).st_mtime)
            except OSError:
                return None
        if taken >= commit:
            return None
        from datetime import datetime, timezone

        def shown(seconds: int) -> str:
            return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

        return Notice(
            "notice",
            Origin(source.name(self.path)),
            (),
            (
                f"the cluster state was taken at {shown(taken)}, before the inputs' commit ({shown(commit)}): the "
                "cluster may have changed since; take it again (kubectl get clusterqueues,localqueues,"
                "resourceflavors,cohorts,workloads -A -o json)"
            ),
        )


# Staleness's questions, for the shell's $1 (the inputs' folder), $2 (the state's folder) and $3 (its name): the
# inputs' commit, whether git tracks the state, whether it is changed, its last commit. Past the first, which
# every other needs, each is asked only when the one before was answered.
_QUESTIONS = (
    'git -C "$1" log -1 --format=%ct HEAD',
    'git -C "$2" ls-files --error-unmatch -- "$3"',
    'git -C "$2" status --porcelain -- "$3"',
    'git -C "$2" log -1 --format=%ct -- "$3"',
)


def _spawned(questions: tuple, *args: str) -> tuple[int, int] | None:
    """(pid, the read end of its stdout) of a shell asking git `questions` in turn with `args`, each answer
    followed by NUL, git's exit status and NUL; stdin and stderr the null device; the shell leads its own process
    group. None when it cannot be started (or spawned: not on POSIX)."""
    if not hasattr(os, "posix_spawnp"):
        return None
    script = "".join(f"{question}; s=$?; printf '\\0%s\\0' $s; [ $s = 0 ] || exit 0\n" for question in questions)
    read, write = os.pipe()  # not inherited but as the shell's stdout
    try:
        pid = os.posix_spawnp(
            "sh",
            ["sh", "-c", script, "sh", *args],
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, write, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
            setpgroup=0,
        )
    except OSError:  # no shell: no commit to compare with
        os.close(read)
        return None
    finally:
        os.close(write)
    return pid, read


def _answers(asked: tuple[int, int], deadline: float) -> list:
    """What git printed for each question the shell asked, None for one that failed; none when the shell outlived
    `deadline` (then stopped, with the gits it started)."""
    import select
    import signal
    import time

    pid, read = asked
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([read], [], [], max(deadline - time.monotonic(), 0))
            chunk = os.read(read, 65536) if ready else None
            if not chunk:
                break
            chunks.append(chunk)
        if chunk is None:
            os.killpg(pid, signal.SIGKILL)
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    if chunk is None:
        return []
    parts = b"".join(chunks).split(b"\0")
    return [out.decode("utf-8", "replace") if status == b"0" else None for out, status in zip(parts[0::2], parts[1::2])]


def _number(out: str | None) -> int | None:
    """The number git printed (a commit time), None when it printed none."""
    try:
        return int(out.strip()) if out is not None else None
    except ValueError:
        return None
