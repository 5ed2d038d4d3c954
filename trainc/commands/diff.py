"""`trainc diff`: what a change to the inputs does to the rendered objects, and whether the cluster takes it.

Both sides come from one run (`trainc.engine`, PATHS as updates of the base):
the base is read as `--previous` reads previous versions (a directory, or PATHS
as the tree at a git revision holds them), and compiled with its own runtimes,
falling back to the current ones as the JobSet update check does. Objects are matched by identity (group,
kind, namespace, name), never by file;
fields are compared by path, list items by their `name` (`treediff`).
Nothing of a Secret but its name, type, labels and which keys it has reaches
the output: its values (and annotations, which tools such as kubectl's
last-applied-configuration fill with copies of them) are compared through an
HMAC under a key drawn for this run only, and shown as `(hidden)`, or
`(hidden, changed)`: a digest a reader could test guesses against would be
the value again. Whether the cluster refuses an update is the `--previous`
check itself (TrainJob transition rules, the JobSet webhook's update rules),
plus the API server's rule that an immutable Secret or ConfigMap keeps its data.

With `--base-trainer-version`, the base is rendered at that Kubeflow Trainer release (and the inputs as they
are, unless --base is given): the upgrade report for the pull request that changes a project's pin. Every
rendered object gets a verdict, unchanged ones too, and a JobSet that is suspended or waits in a Kueue queue
is called out: the v2.4 release note says an MPI job suspended before the upgrade cannot resume after it.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import hmac
import json
import os
import re
import secrets
import sys
from dataclasses import dataclass, field

import click

from ..compiler import mpikeys, sshkeys
from ..errors import InputError, InputErrors, Notice, Origin, PreviousError, TraincError, plural, render_path
from .. import inputs as inputset
from ..formats.limits import room_for_depth
from ..formats.source import Budget
from ..formats.serialize import dump_all
from ..formats.table import markdown as table
from ..k8s import treediff
from ..k8s.treediff import MISSING
from ..output import manifests
from ..trainer import api, releases
from ..validation import configdata, jobset_update
from ..validation.requests import delta, delta_markdown, delta_text, flavor_moves, jobs, queue_name, signed
from . import EXIT_DIFF_ERROR, write_out

REFUSED = "the cluster will refuse this update: delete and re-create, or rename the TrainJob"
PASSED_REFUSED = "the cluster will refuse this update: delete and re-create the {kind}, or give it a new name"
RUNTIME_REFUSED = "the cluster will refuse this update: delete and re-create the runtime"
CREATED = "applying creates it"
UPDATED = "applying updates it in place"
UNTIL_ADMITTED = "applying updates it in place only while Kueue has not admitted it; refused once it runs"
UPGRADE_REFUSED = (
    "refused in place: delete and re-create it (a running job starts over), or wait until it "
    "finishes and delete it then"
)
UNCHANGED = "the upgrade leaves it as it is"
KUEUE_MOVED = "applying leaves it as it is; Kueue now places it on flavor {1} (was {0})"
SUSPENDED = (
    "suspended (spec.suspend): the controller of the new release cannot resume it, its JobSet being "
    "immutable; re-create it after the upgrade"
)
QUEUED = (
    "managed by Kueue (queue {queue!r}): suspended until Kueue admits it, so one still queued at the "
    "upgrade cannot start after it; re-create it after the upgrade"
)
UNREADABLE = "unreadable at the base (its TrainJob did not compile there): applying creates it, or updates it"
REMOVED = "no longer rendered: `kubectl apply` leaves it in the cluster; a pruning apply (Argo CD, Flux) deletes it"
_UNREADABLE = object()  # the old side of an object whose TrainJob did not compile at the base
_SECRET_SHOWN = ("apiVersion", "kind", "type", "immutable")  # a Secret's fields that cannot hold its data
_HMAC_KEY = secrets.token_bytes(32)  # this run's: digests never leave the process, nor compare across runs


@dataclass
class ObjectDiff:
    kind: str
    namespace: str
    name: str
    change: str  # added, removed or changed
    effect: str
    reasons: list = field(default_factory=list)  # why the cluster refuses the update
    hunks: list = field(default_factory=list)  # (path, old or MISSING, new or MISSING)
    until_admitted: list = field(default_factory=list)  # why it refuses the update once Kueue admits the job
    waiting: list = field(default_factory=list)  # upgrade report: why this job, suspended or queued, breaks
    kueue: list = field(default_factory=list)  # the flavor a change moves it to; where it stands (--cluster-state)

    @property
    def title(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"


def compare(
    paths,
    options,
    *,
    notices: list | None = None,
    requests: list | None = None,
    base_release=None,
    reached: list | None = None,
    trainjobs: set | None = None,
    sides: list | None = None,
) -> list[ObjectDiff]:
    """The differences between what `trainc build` prints for PATHS at `options.previous` (the base) and now (the
    rendered objects and, unless `options.trainer_only`, what passes through), in (kind, namespace, name) order,
    from one run (`trainc.engine`): its update refusals are the cluster's verdict on a change, any other error
    fails the diff. TrainJobs of the base that do not compile there are unreadable: their objects now are shown
    against nothing, and `notices` gets why. With `base_release` (a `releases.Release`) the base is rendered at
    that release, PATHS as they are when `options.previous` is None, and every rendered object has a verdict
    (the upgrade report). PATHS of runtimes and no TrainJob compare the JobSets of the repository's TrainJobs
    that use a changed runtime (`reach`; what was found goes to `reached`); `trainjobs`, (namespace, name) of the
    TrainJobs whose rendered objects are compared (None: all).
    `sides` gets the base's jobs, the jobs now and the run's Result (its costs), for what a reviewer reads after
    the diff (`trainc.review`).

    Raises PreviousError for a base that is neither a directory nor a revision,
    InputErrors when the inputs do not compile, or the base cannot be read."""
    from .. import engine

    base = options.previous
    if base_release is not None:
        before = inputset.read_previous(
            base, paths, options.namespace, options.runtime_paths, options.reader(), options.apart
        )
        options = options._replace(previous=before._replace(release=base_release))
    elif isinstance(base, str):
        options = options._replace(base_ssh_key_seed=_seed_at(base, options.ssh_key_seed, options.max_input_bytes))
    new = engine.run(engine.Inputs(tuple(paths)), options).checked(refusals=False)
    reaches = []  # the JobSets a change of runtimes alone reaches
    if not new.jobs and isinstance(base, str) and new.previous is not None and base_release is None:
        reaches = _reached_jobsets(paths, options, new, base, notices, requests, reached)
    old, unreadable, problems = new.base, new.unreadable, new.base_problems
    if old is None:
        raise InputErrors(problems)
    if notices is not None and problems:
        where = (
            f"--base {base}"
            if isinstance(base, str)
            else "--base"
            if base_release is None
            else f"--base-trainer-version {base_release.name}"
        )
        notices.append(
            Notice(
                "notice",
                None,
                (),
                f"{where}: {plural(len(unreadable), 'TrainJob')} not compiled "
                "there, their objects shown against nothing (unreadable at the base):",
            )
        )
        notices.extend(Notice("notice", None, (), f"  {problem.render()}") for problem in problems)
    refusals = _refusals(new.refusals, new.jobs, new.user_runtimes)
    old_jobs, new_jobs = jobs(old, new.base_queues()), jobs(new)
    if requests is not None:  # from the two sides compared here: what the change adds on each Kueue queue
        requests.extend(delta(old_jobs, new_jobs))
    if sides is not None:
        sides.extend((old_jobs, new_jobs, new))
    old_objects = {
        _key(obj): obj
        for obj in manifests.select(old, namespace=options.namespace, trainer_only=options.trainer_only).objects()
    }
    new_manifests = new.manifests
    new_objects = {_key(obj): obj for obj in new_manifests.objects()}
    if trainjobs is not None:  # what other TrainJobs render is not compared
        others = {
            _key(obj)
            for trainjob, objects in [*old.jobs, *new_manifests.jobs]
            if (trainjob.namespace, trainjob.name) not in trainjobs
            for obj in objects
        }
        old_objects = {key: obj for key, obj in old_objects.items() if key not in others}
        new_objects = {key: obj for key, obj in new_objects.items() if key not in others}
        refusals = {key: found for key, found in refusals.items() if key in old_objects or key in new_objects}
    passed = {_key(document.data): document.origin for document in [*new_manifests.first, *new_manifests.last]}
    rendered = {_key(obj): trainjob.origin for trainjob, objects in new_manifests.jobs for obj in objects}
    unknown = {
        _key(obj)
        for trainjob, objects in new_manifests.jobs
        if (trainjob.namespace, trainjob.name) in unreadable
        for obj in objects
        if _key(obj) not in old_objects
    }
    found, texts = [], {}
    for key in sorted(old_objects.keys() | new_objects.keys() | refusals.keys()):
        if key in unknown:  # no update check holds against a base the cluster would not have taken
            found.append(
                ObjectDiff(*key[:3], "changed", UNREADABLE, hunks=[((), _UNREADABLE, _redact(new_objects[key]))])
            )
        elif key in old_objects or key in new_objects:
            with room_for_depth(2):  # a level of the walk of both trees: a generator frame and its `yield from`
                found.extend(
                    _object_diff(
                        key,
                        old_objects.get(key),
                        new_objects.get(key),
                        refusals.get(key, []),
                        passed.get(key),
                        rendered.get(key),
                        texts,
                    )
                )
        else:  # a runtime: not rendered, but an update the cluster refuses
            found.append(ObjectDiff(*key[:3], "changed", RUNTIME_REFUSED, refusals[key]))
    if base_release is not None:
        found = _upgrade_verdicts(found, new_manifests.jobs)
    return _placements(found + reaches, flavor_moves(old_jobs, new_jobs), new.standings)


def _placements(found: list[ObjectDiff], moves: dict, standings: dict) -> list[ObjectDiff]:
    """Each JobSet's Kueue lines: the flavor a change moves it to (an unchanged JobSet listed for it), and where
    it stands on the cluster of --cluster-state."""
    diffs = {(diff.kind, diff.namespace, diff.name): diff for diff in found}
    for namespace, name in sorted(moves.keys() | standings.keys()):
        diff = diffs.get(("JobSet", namespace, name))
        if diff is None and (namespace, name) not in moves:
            continue
        if diff is None:
            diff = diffs[("JobSet", namespace, name)] = ObjectDiff(
                "JobSet", namespace, name, "unchanged", KUEUE_MOVED.format(*moves[(namespace, name)])
            )
        if (namespace, name) in moves:
            diff.kueue.append("Kueue flavor: {} → {}".format(*moves[(namespace, name)]))
        if (namespace, name) in standings:
            diff.kueue.append(f"Kueue now: {standings[(namespace, name)].words()}")
    return sorted(diffs.values(), key=lambda diff: (diff.kind, diff.namespace, diff.name))


def _upgrade_verdicts(found: list[ObjectDiff], jobs) -> list[ObjectDiff]:
    """The upgrade report's: every rendered object, unchanged ones too; a refused update's remedy for a running
    fleet; a JobSet suspended or queued in Kueue called out, whatever its verdict (the controller cannot resume
    one whose update is refused)."""
    verdicts = {(diff.kind, diff.namespace, diff.name): diff for diff in found}
    for trainjob, objects in jobs:
        for obj in objects:
            key = _key(obj)[:3]
            diff = verdicts.setdefault(key, ObjectDiff(*key, "unchanged", UNCHANGED))
            if diff.effect == REFUSED:
                diff.effect = UPGRADE_REFUSED
            if key[0] == "JobSet":
                diff.waiting = _waiting(trainjob, obj)
    return sorted(verdicts.values(), key=lambda diff: (diff.kind, diff.namespace, diff.name))


def _waiting(trainjob, jobset: dict) -> list[str]:
    """Why a JobSet breaks if it is waiting when the cluster is upgraded: suspended, or queued in Kueue."""
    out = [SUSPENDED] if trainjob.spec.suspend else []
    queue = ((jobset.get("metadata") or {}).get("labels") or {}).get(jobset_update.QUEUE_LABEL)
    if queue is not None:
        out.append(QUEUED.format(queue=queue))
    return out


def _reached_jobsets(paths, options, new, base: str, notices, requests, reached) -> list[ObjectDiff]:
    """PATHS of runtimes and no TrainJob (`trainc diff platform/runtimes`): a runtime is not output, so its edit
    shows in the JobSets of the repository's TrainJobs that use it (`reach`), compared as `trainc diff --base
    BASE THEIR-FILES --runtimes PATHS` compares them; none when no runtime changed."""
    from . import reach

    runtimes = reach.changed(new.previous, new.user_runtimes)
    if not runtimes:
        return []
    found = reach.find(paths, options, runtimes, base)
    if reached is not None:
        reached.append(found)
    if notices is not None:
        notices.extend(found.notices)
    if not found.files:
        return []
    options = options._replace(
        runtime_paths=(*paths, *options.runtime_paths),
        trainer_only=True,
        previous=reach.base_of(base, new.previous, found, options),
    )
    return compare(found.files, options, notices=notices, requests=requests, trainjobs=set(found.trainjobs))


def _seed_at(base: str, seed, limit: int):
    """The seed settings the base was rendered with: under `--ssh-keys sealed-secrets`, the controller's
    certificate as the base revision holds it, so rotating the certificate in git shows every SealedSecret
    resealed (read within the run's bound, `limit` bytes). A certificate outside the repository, absent or
    unreadable at the base, or a directory base: the current one."""
    if (
        not isinstance(seed, sshkeys.SeedFile)
        or seed.mode != "sealed-secrets"
        or seed.cert is None
        or os.path.isdir(base)
    ):
        return seed

    from ..compiler import sealing

    try:
        texts, _ = inputset.at_revision(base, [seed.cert], budget=Budget(limit))
        then = sealing.Certificate(texts[0][1]) if texts else None
    except (inputset.RevisionError, sealing.CertError, TraincError):
        then = None
    if then is None:
        return seed
    at_base = copy.copy(seed)  # the same seed, read once; its own certificate
    at_base._certificate = then
    return at_base


def _key(obj: dict) -> tuple:
    """(kind, namespace, name, group): an object's identity in the cluster, wherever it is written (a moved file
    holds the same objects), in output order."""
    metadata = obj.get("metadata") or {}
    return (obj["kind"], metadata.get("namespace") or "", metadata["name"], obj["apiVersion"].rpartition("/")[0])


def _refusals(errors: list, jobs, runtimes) -> dict:
    """{object key: [rendered errors]} of the update checks: a TrainJob's go to its JobSet, a runtime's to the
    runtime."""
    owners = {
        _origin(trainjob.origin): ("JobSet", trainjob.namespace, trainjob.name, "jobset.x-k8s.io")
        for trainjob, _ in jobs
    }
    owners.update(
        {
            _origin(runtime.origin): (runtime.kind, runtime.metadata.namespace or "", runtime.name, api.GROUP)
            for runtime in runtimes
        }
    )
    found: dict = {}
    for error in errors:
        found.setdefault(owners.get(_origin(error.origin)), []).append(error.render())
    found.pop(None, None)  # every update check names a TrainJob or a runtime
    return found


def _origin(origin) -> tuple | None:
    return None if origin is None else (origin.file, origin.index, origin.base)


def _object_diff(
    key: tuple,
    old: dict | None,
    new: dict | None,
    refusals: list,
    origin: Origin | None = None,
    trainjob: Origin | None = None,
    texts: dict | None = None,
) -> list[ObjectDiff]:
    """What changed in one object, and the cluster's verdict; `origin` is where an object passed through
    comes from, `trainjob` the TrainJob a rendered one comes from (`texts`: `_placeable`'s)."""
    kind, namespace, name = key[:3]
    if old is None:
        return [ObjectDiff(kind, namespace, name, "added", CREATED, hunks=[((), MISSING, _redact(new))])]
    if new is None:
        return [ObjectDiff(kind, namespace, name, "removed", REMOVED, hunks=[((), _redact(old), MISSING)])]
    hunks = list(treediff.changes(_redact(old), _redact(new), named=True))
    if not hunks:
        return []
    trainjob = _placeable(trainjob, texts)
    reasons = list(refusals)
    if kind == "JobSet" and trainjob is not None and reasons:  # the webhook that sees what trainc applies
        webhook = [error.render() for error in jobset_update.refusals(trainjob, name, new, old)]
        reasons = webhook or reasons
    refused = configdata.refused_change(old, [path for path, _, _ in hunks])
    if refused is not None:
        data, why = refused
        at, path = (origin, data[:2]) if origin is not None else (trainjob, ())  # a rendered one: its TrainJob
        reasons.append(InputError(at, path, why).render())
    reasons += mpikeys.refusals(old, new)
    if reasons:
        effect, until_admitted = REFUSED if origin is None else PASSED_REFUSED.format(kind=kind), []
    else:
        until_admitted = (
            [error.render() for error in jobset_update.once_admitted(trainjob, new, old)]
            if kind == "JobSet" and trainjob is not None
            else []
        )
        effect = UNTIL_ADMITTED if until_admitted else mpikeys.update_effect(old, new) or UPDATED
    return [ObjectDiff(kind, namespace, name, "changed", effect, reasons, hunks, until_admitted)]


def _placeable(origin: Origin | None, texts: dict) -> Origin | None:
    """A rendered object's TrainJob `origin` with its file's text: a parallel build keeps only its file and place
    (`parallel.Placed`), and the verdicts worked out here point into that text, as after a one-process build
    (each file read once, into `texts`)."""
    if origin is None or origin.text is not None:
        return origin
    if origin.file not in texts:
        from ..engine import reread

        texts[origin.file] = reread(origin.file)
    return origin if texts[origin.file] is None else origin._replace(text=texts[origin.file])


def _redact(obj: dict) -> dict:
    """A Secret with every value that can hold its data (`data`, `stringData`, any other field, annotations)
    replaced by a Hidden; a SealedSecret's blobs by a word (mpikeys); other objects as they are."""
    if obj.get("kind") == "SealedSecret":
        return mpikeys.redacted(obj)
    if obj.get("kind") != "Secret":
        return obj
    redacted = {}
    for key, value in obj.items():
        if key in _SECRET_SHOWN and isinstance(value, bool if key == "immutable" else str):
            redacted[key] = value
        elif key == "metadata" and isinstance(value, dict):
            redacted[key] = {
                name: _hidden_values(item) if name == "annotations" else item for name, item in value.items()
            }
        else:
            redacted[key] = _hidden_values(value)
    return redacted


def _hidden_values(value):
    """A mapping with each value hidden (its keys shown); anything else hidden whole."""
    if isinstance(value, dict):
        return {str(name): Hidden.of(item) for name, item in value.items()}
    return Hidden.of(value)


@dataclass(frozen=True)
class Hidden:
    """A Secret value: equal to another exactly when the values are, shown as nothing of either."""

    digest: bytes

    @classmethod
    def of(cls, value) -> Hidden:
        return cls(hmac.new(_HMAC_KEY, _canonical(value).encode("utf-8", "surrogatepass"), hashlib.sha256).digest())


def _canonical(value) -> str:
    """The text of a value whatever its maps' order (and however odd its keys), for equality through the HMAC."""
    if isinstance(value, dict):
        return "{" + ",".join(sorted(f"{json.dumps(str(key))}:{_canonical(item)}" for key, item in value.items())) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_canonical(item) for item in value) + "]"
    return json.dumps(value, default=str, ensure_ascii=False)


def _shown(value, changed: bool = False):
    """`value` with each Hidden as the text it is printed as."""
    if isinstance(value, Hidden):
        return "(hidden, changed)" if changed else "(hidden)"
    if isinstance(value, dict):
        return {name: _shown(item) for name, item in value.items()}
    if isinstance(value, list):
        return [_shown(item) for item in value]
    return value


def _lines(value) -> list[str]:
    if value is MISSING:
        return []
    if value is _UNREADABLE:
        return ["(unreadable at the base)"]
    return dump_all([value]).removeprefix("---").removeprefix("\n").removeprefix(" ").splitlines()


def hunk_lines(hunk) -> list[tuple[str, str]]:
    """(style, line) of one hunk: its path, then the old lines (-) and the new ones (+)."""
    path, old, new = hunk
    out = [("path", f"@@ {render_path(path)} @@")] if path else []
    old, new = _shown(old), _shown(new, changed=isinstance(old, Hidden) and isinstance(new, Hidden))
    if isinstance(old, str) and isinstance(new, str) and ("\n" in old or "\n" in new):
        return out + _text_lines(old, new)
    out += [("old", f"- {line}") for line in _lines(old)]
    out += [("new", f"+ {line}") for line in _lines(new)]
    return out


def _text_lines(old: str, new: str) -> list[tuple[str, str]]:
    """Multi-line text (a hostfile, a script) compared line by line, three lines of context."""
    styles = {"-": "old", "+": "new", " ": "plain", "@": "path"}
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm=""))[2:]
    return [(styles[line[:1]], line if line.startswith("@@") else f"{line[:1]} {line[1:]}") for line in lines]


def summary(diffs: list[ObjectDiff]) -> str:
    counts = {change: sum(d.change == change for d in diffs) for change in ("added", "changed", "removed")}
    unchanged = sum(d.change == "unchanged" for d in diffs)
    if unchanged:
        counts["unchanged"] = unchanged
    refused = sum(bool(d.reasons) for d in diffs)
    until_admitted = sum(bool(d.until_admitted) for d in diffs)
    waiting = sum(bool(d.waiting) for d in diffs)
    text = ", ".join(f"{count} {change}" for change, count in counts.items())
    verdicts = [f"{refused} refused by the cluster"] * bool(refused)
    verdicts += [f"{until_admitted} refused once Kueue admits it"] * bool(until_admitted)
    verdicts += [f"{waiting} suspended or queued"] * bool(waiting)
    return f"{text} ({'; '.join(verdicts)})" if verdicts else text


def text(diffs: list[ObjectDiff], color: bool = False, requests=(), heading: str = "") -> str:
    """The diffs, then (when they change) the requests per Kueue queue (`requests.delta`); `heading` first."""
    import click

    styles = {
        "title": {"bold": True},
        "refused": {"fg": "red", "bold": True},
        "reason": {"fg": "red"},
        "path": {"fg": "cyan"},
        "old": {"fg": "red"},
        "new": {"fg": "green"},
        "plain": {},
    }
    out = [click.style(heading, bold=True) if color else heading, ""] if heading else []
    for diff in diffs:
        lines = [("title", f"{diff.title} {diff.change}: {diff.effect}")]
        lines += [("reason", f"! {reason}") for reason in [*diff.reasons, *diff.until_admitted, *diff.waiting]]
        lines += [("path", f"~ {line}") for line in diff.kueue]
        lines += [line for hunk in diff.hunks for line in hunk_lines(hunk)]
        out += [click.style(line, **styles[style]) if color else line for style, line in lines]
        out.append("")
    out.append(summary(diffs) if diffs else "no changes")  # an upgrade report lists unchanged objects too
    return "\n".join(out) + "\n" + ("\n" + delta_text(requests) if requests else "")


def json_text(diffs: list[ObjectDiff], requests=(), heading: str = "", reached=None) -> str:
    """The diffs as one JSON object, for tools: each object's change, what applying it does, the cluster's
    reasons and its hunks (`path`, `old`, `new`: a value absent on one side has no key; Secret values hidden as
    in the text); the summary, the requests per Kueue queue, and for a change of runtimes alone what it reaches."""
    out = {
        "heading": heading,
        "summary": summary(diffs) if diffs else "no changes",
        "objects": [_json_object(diff) for diff in diffs],
        "requests": [
            {"queue": queue_name(queue), "resource": resource, "change": signed(resource, change)}
            for queue, resource, change in requests
        ],
    }
    if reached is not None:
        out["reach"] = reached.json()
    return json.dumps(out, indent=2, default=str) + "\n"  # \u escapes: any text, a lone surrogate too, is JSON


def _json_object(diff: ObjectDiff) -> dict:
    hunks = []
    for path, old, new in diff.hunks:
        changed = isinstance(old, Hidden) and isinstance(new, Hidden)
        hunk = {"path": render_path(path)}
        hunk.update(
            {"old": "(unreadable at the base)" if old is _UNREADABLE else _shown(old)} if old is not MISSING else {}
        )
        hunk.update({"new": _shown(new, changed)} if new is not MISSING else {})
        hunks.append(hunk)
    return {
        "kind": diff.kind,
        "namespace": diff.namespace,
        "name": diff.name,
        "change": diff.change,
        "effect": diff.effect,
        "reasons": diff.reasons,
        "untilAdmitted": diff.until_admitted,
        "waiting": diff.waiting,
        "hunks": hunks,
    }


MARKDOWN_LIMIT = 65536  # characters of a GitHub comment (issue, pull request), the body GitHub refuses past


def markdown(diffs: list[ObjectDiff], requests=(), heading: str = "", limit: int = MARKDOWN_LIMIT) -> str:
    """A pull-request comment: a summary table, the change of requests per Kueue queue (if any), then one fenced
    `diff` block per object that changes, a removed object's folded (`<details>`); `heading` (the upgrade
    report's releases) in the first line. Within `limit` characters (GitHub's): the objects whose blocks do not
    fit (and table rows past half of it) are counted, not shown."""
    title = f"**trainc diff** ({heading})" if heading else "**trainc diff**"
    if not diffs:
        return f"{title}: no changes\n"
    out = [f"{title}: {summary(diffs)}", ""]
    rows = [
        (f"`{_code(diff.title)}`", diff.change, _code(" ".join([diff.effect, *_short(diff.waiting)]))) for diff in diffs
    ]
    while rows and len("\n".join(out + table([("Object", "Change", "Applying it"), *rows]))) > limit // 2:
        rows = rows[: len(rows) // 2]
    more = [(f"… {len(diffs) - len(rows)} more", "", "")] if len(rows) < len(diffs) else []
    out += table([("Object", "Change", "Applying it"), *rows, *more])
    out += ["", delta_markdown(requests).rstrip("\n")] if requests else []
    size, left_out = len("\n".join(out)) + 1, 0
    footer = f"\n_{{}} of {len(diffs)} objects' diffs left out to fit a GitHub comment; `trainc diff` shows them all._"
    for diff in diffs:
        if diff.change == "unchanged" and not diff.kueue:  # a JobSet a change moves to another flavor is shown
            continue
        section = _markdown_section(diff)
        if left_out or size + len(section) + len(footer) + 8 > limit:
            left_out += 1
            continue
        out.append(section)
        size += len(section) + 1
    if left_out:
        out.append(footer.format(left_out))
    return "\n".join(out) + "\n"


def _short(waiting: list[str]) -> list[str]:
    """The table's word for a waiting job (the section below says why)."""
    return ["**(" + reason.split(" (")[0].split(":")[0] + ")**" for reason in waiting]


def _markdown_section(diff: ObjectDiff) -> str:
    """One object's heading, the cluster's reasons and its fenced `diff` block (folded when it is removed)."""
    out = ["", f"#### `{_cell(diff.title)}` {diff.change}", ""]
    reasons = [*diff.reasons, *diff.until_admitted, *diff.waiting, *diff.kueue]
    out += [f"> {_cell(reason)}" for reason in reasons] + ([""] if reasons else [])
    body = [line for hunk in diff.hunks for _, line in hunk_lines(hunk)]
    if not body:  # unchanged: only Kueue's lines
        return "\n".join(out).rstrip("\n")
    longest = max((len(run) for line in body for run in re.findall("`+", line)), default=0)
    fence = "`" * max(3, longest + 1)  # a value holding ``` cannot close the block
    block = [fence + "diff", *body, fence]
    if diff.change == "removed":
        block = [f"<details><summary>{len(body)} lines removed</summary>", "", *block, "", "</details>"]
    return "\n".join(out + block)


def _cell(text: str) -> str:
    return _code(text).replace("|", "\\|")


def _code(text: str) -> str:
    """`text` without backticks, so it cannot close the code span it is shown in."""
    return text.replace("`", "'")


def main(paths, options, output_format, color, base_trainer_version=None) -> None:
    """`trainc diff`: the run of PATHS as updates of the base (`options.previous`), both sides compared; the exit
    status says whether anything changed. With `base_trainer_version` the base is rendered at that release (the
    inputs as they are without --base)."""
    base_release = releases.named(base_trainer_version) if base_trainer_version is not None else None
    if options.previous is None and base_release is None:
        options = options._replace(previous="HEAD")
    if "-" in paths:  # the base is PATHS read at a revision: stdin has none
        raise click.BadParameter("stdin (-) cannot be compared: pass files or directories", param_hint="PATHS")
    # without a seed both sides use one throwaway seed, so unchanged keys compare equal
    seed = options.ssh_key_seed
    key_seed = (
        seed
        if seed.path is not None
        else sshkeys.SeedFile(
            None, _seed=bytes(sshkeys.MIN_SEED_BYTES), mode=seed.mode, cert=seed.cert, scope=seed.scope
        )
    )
    notices: list[str] = []
    requests: list = []
    reached: list = []
    sides: list = []
    try:
        diffs = compare(
            paths,
            options._replace(ssh_key_seed=key_seed),
            notices=notices,
            requests=requests,
            base_release=base_release,
            reached=reached,
            sides=sides,
        )
    except PreviousError as exc:
        raise click.BadParameter(str(exc), param_hint="--base") from None
    except TraincError as error:
        click.echo(error.render(), err=True)
        sys.exit(EXIT_DIFF_ERROR)
    for warning in [*seed.warnings, *notices]:
        click.echo(warning, err=True)
    if key_seed is not seed and key_seed.read_by_a_job and seed.mode == "seed":
        click.echo(
            "notice: no --ssh-key-seed: MPI SSH keys are compared as unchanged; `trainc build` without a seed "
            "makes a new key every run",
            err=True,
        )
    target = releases.named(options.trainer_version) if options.trainer_version else releases.DEFAULT
    heading = "" if base_release is None else upgrade_heading(base_release, target, diffs)
    heading = reached[0].heading(options.previous) if reached else heading
    from ..review import report

    if output_format == "html":  # one self-contained page, for a CI artifact
        from ..review import page

        write_out(
            page.diff(
                diffs,
                summary(diffs) if diffs else "no changes",
                heading,
                *sides,
                [str(notice) for notice in notices],
                hunk_lines,
            )
        )
    elif output_format == "markdown":
        extra = report.diff(output_format, *sides)  # the cost and the charts, within the comment's bound
        write_out(markdown(diffs, requests, heading, MARKDOWN_LIMIT - len(extra)).rstrip("\n") + "\n" + extra)
    elif output_format == "json":
        write_out(json_text(diffs, requests, heading, reached[0] if reached else None))
    else:
        colored = color == "always" or (color == "auto" and sys.stdout is not None and sys.stdout.isatty())
        write_out(text(diffs, colored, requests, heading) + report.diff(output_format, *sides))
    sys.exit(1 if any(diff.change != "unchanged" for diff in diffs) else 0)


def upgrade_heading(base, target, diffs: list[ObjectDiff]) -> str:
    """The upgrade report's first line: the releases, and the target's release note when a job it names waits."""
    heading = f"Kubeflow Trainer {base.name} -> {target.name}"
    if target.note and any(diff.waiting and diff.reasons for diff in diffs):
        heading += f"; its release note: {target.note}"
    return heading
