"""Admission spread over processes (`trainc.policy.spread`, through `trainc.shares`): the verdicts of a one-process admission, in its
order, whatever the number of processes; a helper's failure is the run's, and a helper never outlives its run.
The policies are a Deny cap, a Warn rule with a variable read by two validations, and an authorizer check
no RBAC object answers (for the last TrainJobs only), over 200 TrainJobs' JobSets."""

from __future__ import annotations

import os
import time
from types import SimpleNamespace

import pytest
from helpers import bounded as run_bounded
from helpers import ends

from trainc import bounds, policy, shares
from trainc.errors import Origin
from trainc.policy import vap

JOBS = 200
helpers = pytest.mark.skipif(not bounds.HELPERS, reason="admission helpers are forked on Linux only")


def _policy(name, spec, actions):
    rules = [{"apiGroups": ["jobset.x-k8s.io"], "apiVersions": ["*"], "operations": ["CREATE"], "resources": ["*"]}]
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {"matchConstraints": {"resourceRules": rules}, **spec},
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": f"{name}-binding"},
            "spec": {"policyName": name, "validationActions": actions},
        },
    ]


POLICIES = [
    *_policy(
        "cap", {"validations": [{"expression": "object.spec.replicas <= 150", "message": "at most 150"}]}, ["Deny"]
    ),
    *_policy(
        "odd",
        {
            "variables": [{"name": "n", "expression": "object.spec.replicas"}],
            "validations": [
                {"expression": "variables.n % 2 == 0", "messageExpression": "'odd: ' + string(variables.n)"},
                {"expression": "variables.n % 3 != 0", "message": "a multiple of 3"},
            ],
        },
        ["Warn"],
    ),
    *_policy(
        "who",
        {
            "failurePolicy": "Ignore",
            "matchConditions": [{"name": "late", "expression": "object.spec.replicas >= 150"}],
            "validations": [{"expression": "authorizer.group('').resource('pods').check('create').allowed()"}],
        },
        ["Deny"],
    ),
]


def output():
    """A build.Output's parts that admission reads: each TrainJob renders one JobSet with `replicas` its number."""
    jobs = []
    for number in range(JOBS):
        name = f"job-{number}"
        trainjob = SimpleNamespace(namespace="team-a", name=name, origin=Origin(f"jobs/{name}.yaml"))
        jobset = {
            "apiVersion": "jobset.x-k8s.io/v1alpha2",
            "kind": "JobSet",
            "metadata": {"name": name, "namespace": "team-a"},
            "spec": {"replicas": number},
        }
        jobs.append((trainjob, [jobset]))
    others = [(Origin("policies.yaml", index), obj) for index, obj in enumerate(POLICIES)]
    return SimpleNamespace(jobs=jobs, others=others, uncompiled=[])


def verdicts(workers):
    errors, notices = policy.check(output(), workers=workers)
    return [(e.origin, e.path, e.message) for e in errors], notices


@helpers
def test_two_processes_give_the_verdicts_of_one_in_its_order(monkeypatch):
    alone = verdicts(1)
    started = []
    real = shares._start
    monkeypatch.setattr(shares, "_start", lambda *args: started.append(1) or real(*args))
    assert verdicts(2) == alone and started == [1]  # one helper, beside this process
    errors, notices = alone
    assert [origin.file for origin, _, _ in errors] == [f"jobs/job-{n}.yaml" for n in range(151, JOBS)]
    assert errors[0][2] == (
        "JobSet team-a/job-151: ValidatingAdmissionPolicy 'cap' with binding 'cap-binding' denied request: at most 150"
    )
    warned = [n.message.partition(": ")[0] for n in notices if n.severity == "warning"]
    assert warned == [  # every part's warnings, in the order of the parts
        f"JobSet team-a/job-{n}" for n in range(JOBS) for fails in (n % 2, n % 3 == 0) if fails
    ]
    # the authorizer check no RBAC object answers, met only by the last parts: one notice, at the expression
    assert [(n.origin, n.path) for n in notices if n.severity == "notice"] == [
        (Origin("policies.yaml", 4), ("spec", "validations", 0, "expression"))
    ]


def test_few_objects_stay_in_one_process(monkeypatch):
    monkeypatch.setattr(shares, "_start", lambda *args: pytest.fail("forked for a small admission"))
    small = output()
    small.jobs = small.jobs[:100]
    errors, notices = policy.check(small, workers=2)
    assert errors == [] and any(notice.severity == "warning" for notice in notices)  # admitted here


@helpers
def test_a_helpers_exception_is_raised_here(monkeypatch, tmp_path):
    real, parent, mark = vap.Admission.admit, os.getpid(), tmp_path / "helper"

    def admit(self, subject, outcome):  # this process waits until the helper has taken a part, and raised
        if os.getpid() != parent:
            mark.write_text("")
            raise ValueError("met in the helper")
        for _ in range(3000):
            if mark.exists():
                break
            time.sleep(0.01)
        real(self, subject, outcome)

    monkeypatch.setattr(vap.Admission, "admit", admit)
    with pytest.raises(ValueError, match="met in the helper"):
        policy.check(output(), workers=2)


def bounded(body: str, **env):
    """`body` run under the run's bound after `supervise` (the policies are compiled under it), with `output`
    and the modules above at hand."""
    prelude = "sys.path.insert(0, 'tests/policy')\nsys.path.insert(0, 'tests')\nfrom test_spread import *\n"
    prelude += "from trainc.k8s import celengine\n"
    return run_bounded("bounds.supervise()\n" + body, prelude, **env)


# The helper's first object: its first policy's evaluation crashes (as native code may), or never ends. This
# process waits in its own first admission until the helper has taken a part of the work and noted that object.
MEETS_HELPERS_FIRST = """\
parent, meeting, real_admit, real_evaluate = os.getpid(), [None], vap.Admission.admit, celengine.evaluate
def admit(self, subject, outcome):
    if os.getpid() == parent:
        for _ in range(3000):
            if os.path.exists({mark!r}):
                break
            time.sleep(0.01)
    elif meeting[0] is None:
        meeting[0] = subject.obj["metadata"]["name"]
        open({mark!r}, "w").write(f"{{os.getpid()}} {{meeting[0]}}")
    real_admit(self, subject, outcome)
def evaluate(program, data):
    if meeting[0] is not None:
        {action}
    return real_evaluate(program, data)
vap.Admission.admit, celengine.evaluate = admit, evaluate
policy.check(output(), workers=2)
print("ended")
"""


def _helpers_first(mark, action: str, **env):
    """The run of MEETS_HELPERS_FIRST, and (pid, name) of the helper and the object it met."""
    done = bounded(MEETS_HELPERS_FIRST.format(mark=str(mark), action=action), **env)
    pid, name = mark.read_text().split()
    return done, int(pid), name


@helpers
def test_a_helpers_crash_ends_the_run_naming_what_the_helper_was_evaluating(tmp_path):
    done, _, name = _helpers_first(tmp_path / "helper", "os.kill(os.getpid(), signal.SIGSEGV)")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(
        f"Error: the run crashed (SIGSEGV) while evaluating ValidatingAdmissionPolicy 'cap' on JobSet team-a/{name};"
    ), done.stderr


@helpers
def test_a_helper_out_of_memory_ends_the_run_naming_what_the_helper_was_evaluating(tmp_path):
    done, _, name = _helpers_first(tmp_path / "helper", "raise MemoryError", TRAINC_RUN_MEMORY="4Gi")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(
        f"Error: the run ran out of the memory bound (TRAINC_RUN_MEMORY={4 << 30} bytes) while evaluating "
        f"ValidatingAdmissionPolicy 'cap' on JobSet team-a/{name};"
    ), done.stderr


@helpers
def test_a_helper_ends_with_its_run_past_the_bound(tmp_path):
    done, helper, _ = _helpers_first(tmp_path / "helper", "time.sleep(60)", TRAINC_RUN_TIMEOUT="3")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("Error: the run ran past the time bound (TRAINC_RUN_TIMEOUT=3 seconds)"), done.stderr
    assert ends(helper)
