"""Issue 22's CEL findings through the command line, as a hostile repository brings them: a policy or house
rule must end in a result or a positioned error (under the policy's failurePolicy), never a hang, a
traceback or a signal. Each runs `python -m trainc` in a child with a time limit."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from conftest import ROOT
from helpers import bounded as run_bounded

TRAINJOB = textwrap.dedent("""\
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainJob
    metadata:
      name: demo
      namespace: team-a
    spec:
      runtimeRef:
        name: torch-distributed
      trainer:
        numNodes: 2
        image: registry.example.com/train:1
    """)


def policy(*validations, variables=(), failure="Fail"):
    """A ValidatingAdmissionPolicy over JobSets with `validations` (expressions) and `variables` ((name,
    expression) pairs), and its Deny binding."""
    body = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "hostile"},
        "spec": {
            "failurePolicy": failure,
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": ["jobset.x-k8s.io"],
                        "apiVersions": ["*"],
                        "operations": ["CREATE"],
                        "resources": ["jobsets"],
                    }
                ]
            },
            "variables": [{"name": name, "expression": text} for name, text in variables],
            "validations": [{"expression": text} for text in validations],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "hostile-binding"},
        "spec": {"policyName": "hostile", "validationActions": ["Deny"]},
    }
    import yaml

    return yaml.safe_dump_all([body, binding], sort_keys=False)


def trainc(tmp_path, *documents, command="build", env=None, timeout=60):
    for index, text in enumerate(documents):
        (tmp_path / f"f{index}.yaml").write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "trainc", command, *sorted(str(p) for p in tmp_path.glob("f*.yaml"))],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=timeout,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), (done.returncode, done.stderr)
    return done


def denied(done, message: str) -> bool:
    return (
        done.returncode == 1
        and f"ValidatingAdmissionPolicy 'hostile' with binding 'hostile-binding' denied request: {message}"
        in done.stderr
    )


# finding 1: RE2's linear time, not Python's backtracking
@pytest.mark.parametrize(
    "call", ["find('(a+)+$') == ''", "findAll('(a+)+$').size() == 0", "findAll('(x+x+)+y', 1).size() == 0"]
)
def test_a_catastrophic_regular_expression_returns(tmp_path, call):
    text = "a" * 60 + "!" if "a+" in call else "x" * 5000
    done = trainc(tmp_path, TRAINJOB, policy(f"'{text}'.{call}"), timeout=30)
    assert done.returncode == 0 and "kind: JobSet" in done.stdout, done.stderr


def test_a_regular_expression_go_refuses_is_an_error_under_failure_policy(tmp_path):
    done = trainc(tmp_path, TRAINJOB, policy("'x'.find('(') == ''"))
    assert denied(done, "expression ''x'.find('(') == ''' resulted in error: error parsing regexp: missing ): (")


# finding 2: quantities with an exponent of 2**31 - 1 answer at once
@pytest.mark.parametrize(
    "expression",
    [
        "quantity('1e2147483647').isInteger()",
        "quantity('1e2147483647').sign() == 1",
        "quantity('1e2147483647').compareTo(quantity('1')) == 1",
        "quantity('1e2147483647').isGreaterThan(quantity('1'))",
        "quantity('1e-2147483647').isLessThan(quantity('1'))",
        "!quantity('1e-2147483647').isInteger()",
        "quantity('1e2147483647').asApproximateFloat() > 1e300",
        "quantity('1e2147483647').add(quantity('1e2147483647')).sign() == 1",
    ],
)
def test_a_huge_quantity_answers(tmp_path, expression):
    done = trainc(tmp_path, TRAINJOB, policy(expression), timeout=30)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "expression, error",
    [
        ("quantity('1e2147483647').asInteger() > 0", "cannot convert value to integer"),
        (
            "quantity('1e2147483647').add(1).sign() == 1",
            "quantity out of range: the exact sum needs more than 1000 digits",
        ),
        (
            "quantity('1e2147483647').sub(quantity('1')).sign() == 1",
            "quantity out of range: the exact sum needs more than 1000 digits",
        ),
    ],
)
def test_a_huge_quantity_beyond_exact_arithmetic_is_an_error(tmp_path, expression, error):
    done = trainc(tmp_path, TRAINJOB, policy(expression), timeout=30)
    assert denied(done, f"expression '{expression}' resulted in error: {error}"), done.stderr


# finding 3: Kueue saturates quotas (SafeValue, SafeMilliValue)
@pytest.mark.parametrize("command", ["validate", "build", "summary"])
def test_a_cluster_queue_quota_of_1e2147483647_saturates(tmp_path, command):
    queues = textwrap.dedent("""\
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: ClusterQueue
        metadata: {name: huge}
        spec:
          namespaceSelector: {}
          resourceGroups:
          - coveredResources: [cpu, memory]
            flavors:
            - name: default-flavor
              resources:
              - {name: cpu, nominalQuota: 1e2147483647, lendingLimit: 1e2147483647}
              - {name: memory, nominalQuota: 1e2147483647, borrowingLimit: -1e2147483647}
        ---
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: LocalQueue
        metadata: {name: q, namespace: team-a}
        spec: {clusterQueue: huge}
        ---
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: ResourceFlavor
        metadata: {name: default-flavor}
        """)
    job = TRAINJOB.replace(
        "  namespace: team-a\n", "  namespace: team-a\n  labels:\n    kueue.x-k8s.io/queue-name: q\n"
    )
    done = trainc(tmp_path, job, queues, command=command, timeout=30)
    assert done.returncode in (0, 1) and (done.returncode == 0 or ":" in done.stderr), done.stderr


# finding 4: optional values never reach a Python-implemented function
@pytest.mark.parametrize(
    "expression",
    ["optional.none().getHost() == ''", "optional.of(1).sign() == 1", "optional.none().isLessThan(quantity('1'))"],
)
def test_an_optional_receiver_is_a_compile_error(tmp_path, expression):
    done = trainc(tmp_path, TRAINJOB, policy(expression))
    assert done.returncode == 1 and "spec.validations[0].expression: compilation failed:" in done.stderr, done.stderr


@pytest.mark.parametrize(
    "expression",
    [
        "[optional.none()].sum() == 1",
        "quantity('1').add(optional.none()).sign() == 1",
        "[1].indexOf(optional.none()) == 0",
        "sets.contains([optional.none()], [1])",
        "{'@kubernetes.URL': optional.none()}.getHost() == ''",
        "[1, optional.of(2)].max() == 2",
        "dyn(optional.none()).getHostname() == ''",
        "[dyn(optional.none())].isSorted()",
    ],
)
def test_an_optional_inside_an_argument_is_no_such_overload(tmp_path, expression):
    done = trainc(tmp_path, TRAINJOB, policy(expression))
    assert denied(done, f"expression '{expression}' resulted in error: no such overload"), done.stderr


ISOLATED_SEND_FAILS = """\
import os, sys
from trainc.k8s import celengine
program = celengine.compile("optional.none().hasValue() || [1, 2].max() == 2", ("object",))  # isolated, no crash
parent, real = os.getpid(), os.fdopen
def fdopen(*args, **kwargs):
    if os.getpid() != parent:  # the child's result cannot be sent (its parent gone, say)
        raise BrokenPipeError(32, "Broken pipe")
    return real(*args, **kwargs)
os.fdopen = fdopen
try:
    celengine.evaluate(program, {"object": {}})
except celengine.EvalError as exc:
    print(os.getpid() == parent, exc)
"""


def test_an_isolated_evaluation_never_returns_into_the_callers_code():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", ISOLATED_SEND_FAILS], capture_output=True, text=True, timeout=60)
    assert (done.stdout, done.stderr) == ("True no such overload\n", "")  # the parent alone goes on


def test_an_optional_argument_under_ignore_is_allowed(tmp_path):
    done = trainc(tmp_path, TRAINJOB, policy("[optional.none()].sum() == 1", failure="Ignore"))
    assert done.returncode == 0 and "kind: JobSet" in done.stdout, done.stderr


# finding 5: cost is charged per evaluation; past the per-call limit it stops
def test_forty_doubling_variables_stop_at_the_cost_limit(tmp_path):
    variables = [("v0", "'ab'")] + [(f"v{n}", f"variables.v{n - 1} + variables.v{n - 1}") for n in range(1, 40)]
    done = trainc(
        tmp_path,
        TRAINJOB,
        policy("size(variables.v39) > 0", variables=variables),
        env={"TRAINC_RUN_MEMORY": "2Gi"},
        timeout=60,
    )
    assert denied(
        done,
        "expression 'variables.v22 + variables.v22' resulted in error: operation cancelled: actual cost limit exceeded",
    ), done.stderr


def test_the_budget_of_a_policy_is_shared_by_its_expressions(tmp_path):
    # v21 holds 4 MiB; each copy of 8 MiB costs about 840,000 (within the per-call limit), 12 of them and the
    # doubling before them pass the budget of 10,000,000 (the validation reads all 12: unread ones are not evaluated)
    variables = (
        [("v0", "'ab'")]
        + [(f"v{n}", f"variables.v{n - 1} + variables.v{n - 1}") for n in range(1, 22)]
        + [(f"c{n}", "variables.v21 + variables.v21") for n in range(12)]
    )
    every = ", ".join(f"variables.c{n}" for n in range(12))
    done = trainc(
        tmp_path,
        TRAINJOB,
        policy(f"[{every}].all(c, size(c) > 0)", variables=variables),
        env={"TRAINC_RUN_MEMORY": "2Gi"},
    )
    assert denied(
        done, "validation failed due to running out of cost budget, no further validation rules will be run"
    ), done.stderr[:2000]


# finding 7: cel-cpp's iteration budget is the cost limit, not a traceback
def test_a_comprehension_past_the_iteration_budget_is_an_error(tmp_path):
    inner = ",".join(map(str, range(110)))
    expression = f"[1,2].all(x, [{inner}].all(y, [{inner}].all(z, true)))"
    done = trainc(tmp_path, TRAINJOB, policy(expression))
    assert denied(done, "expression '[1,2].all(x, [0,1,2,"), done.stderr
    assert done.stderr.endswith("resulted in error: operation cancelled: actual cost limit exceeded\n")


# finding 8: a value trainc cannot carry is an error, not a TypeError or SystemError
@pytest.mark.parametrize("expression", ["object.?metadata", "[object.?metadata]"])
def test_a_rule_whose_value_is_an_optional_is_an_error(tmp_path, expression):
    done = trainc(tmp_path, TRAINJOB, policy(expression))
    assert denied(done, f"expression '{expression}' resulted in error: a value of type"), done.stderr


def test_a_variable_holding_an_optional_is_an_error(tmp_path):
    done = trainc(tmp_path, TRAINJOB, policy("variables.a.hasValue()", variables=[("a", "object.?metadata")]))
    assert denied(done, "expression 'object.?metadata' resulted in error: a value of type"), done.stderr


# finding 9: timestamps and durations in list functions
@pytest.mark.parametrize(
    "expression",
    [
        "[timestamp('2020-01-01T00:00:00Z')].min() == timestamp('2020-01-01T00:00:00Z')",
        "[timestamp('2020-01-01T00:00:00Z')].max() == timestamp('2020-01-01T00:00:00Z')",
        "[duration('1s'), duration('2s')].sum() == duration('3s')",
    ],
)
def test_timestamps_and_durations_in_list_functions_are_an_error(tmp_path, expression):
    done = trainc(tmp_path, TRAINJOB, policy(expression))
    assert denied(done, f"expression '{expression}' resulted in error: trainc cannot return a timestamp or duration"), (
        done.stderr
    )


# findings 10 and 11: overflow as cel-go reports it
@pytest.mark.parametrize(
    "expression, error",
    [
        ("[18446744073709551615u, 18446744073709551615u].sum() > 0u", "unsigned integer overflow"),
        ("[9223372036854775807, 1].sum() > 0", "integer overflow"),
        ("[-9223372036854775807, -2].sum() < 0", "integer overflow"),
    ],
)
def test_an_overflowing_sum_denies_under_fail(tmp_path, expression, error):
    done = trainc(tmp_path, TRAINJOB, policy(expression))
    assert denied(done, f"expression '{expression}' resulted in error: {error}"), done.stderr


def test_list_functions_still_answer(tmp_path):
    done = trainc(
        tmp_path,
        TRAINJOB,
        policy(
            "[1, 2, 3].sum() == 6",
            "[1.5, 2.5].sum() == 4.0",
            "[3, 1].min() == 1",
            "['a', 'b'].max() == 'b'",
            "[1, 2].isSorted()",
            "[1, 2, 1].lastIndexOf(1) == 2",
            "'abc'.findAll('[a-c]', 2) == ['a', 'b']",
            "quantity('1.5').add(1) == quantity('2.5')",
            "quantity('2').sub(quantity('500m')) == quantity('1500m')",
            "url('https://a.example:8080/x?y=1').getPort() == '8080'",
            "isQuantity('1e2147483647')",
        ),
    )
    assert done.returncode == 0, done.stderr


# the run bound (item 3): the operator's limits, a clear error past them
def test_the_run_bound_ends_a_run_with_a_clear_error(tmp_path):
    done = trainc(tmp_path, TRAINJOB, policy("true"), env={"TRAINC_RUN_TIMEOUT": "0.01"})
    assert done.returncode == 1 and done.stdout == ""
    assert "Error: the run ran past the time bound (TRAINC_RUN_TIMEOUT=0.01 seconds)" in done.stderr


@pytest.mark.parametrize("name, value", [("TRAINC_RUN_TIMEOUT", "soon"), ("TRAINC_RUN_MEMORY", "lots")])
def test_a_run_bound_that_does_not_read_is_an_error(tmp_path, name, value):
    done = trainc(tmp_path, TRAINJOB, env={name: value})
    assert done.returncode == 1 and f"Error: {name}='{value}'" in done.stderr


def test_an_application_cannot_set_the_run_bound(tmp_path):
    # an Argo CD Application sets only ARGOCD_ENV_* variables; the bound is the sidecar's own environment
    done = trainc(
        tmp_path,
        TRAINJOB,
        policy("true"),
        env={"ARGOCD_ENV_TRAINC_RUN_TIMEOUT": "0.01", "ARGOCD_ENV_TRAINC_RUN_MEMORY": "1"},
    )
    assert done.returncode == 0 and "kind: JobSet" in done.stdout, done.stderr


def bounded(body: str, **env):
    """`body` under the run's bound; `pid` is the process's own id before it."""
    return run_bounded(body, "pid = os.getpid()\n", **env)


def test_a_run_without_the_repositorys_cel_is_bounded_in_its_own_process():
    done = bounded("print(os.getpid() == pid)\ntime.sleep(30)", TRAINC_RUN_TIMEOUT="0.5")
    assert done.stdout == "True\n" and done.returncode == 1
    assert done.stderr.startswith("Error: the run ran past the time bound (TRAINC_RUN_TIMEOUT=0.5 seconds); nothing")


def test_a_run_goes_on_under_the_supervisor_once_it_meets_the_repositorys_cel():
    done = bounded("bounds.supervise()\nprint(os.getpid() != pid, flush=True)\nsys.exit(3)")
    assert (done.stdout, done.returncode, done.stderr) == ("True\n", 3, "")
    done = bounded("bounds.supervise()\nbounds.doing('house rule x on y')\nos.kill(os.getpid(), signal.SIGSEGV)")
    assert done.returncode == 1 and done.stderr.startswith(
        "Error: the run crashed (SIGSEGV) while evaluating house rule x on y; nothing was written."
    )
    done = bounded("bounds.supervise()\nbounds.doing('policy p')\ntime.sleep(30)", TRAINC_RUN_TIMEOUT="0.5")
    assert done.returncode == 1 and done.stderr.startswith(
        "Error: the run ran past the time bound (TRAINC_RUN_TIMEOUT=0.5 seconds) while evaluating policy p;"
    )


def test_a_native_module_past_the_memory_bound_is_the_bound_s_error():
    # cel-cpp's libraries are loaded when a run first needs them: a bound that leaves no room to map one is the
    # memory bound's error, not an ImportError's traceback
    fill = (
        "import resource\n"
        "used = int(open('/proc/self/statm').read().split()[0]) * resource.getpagesize()\n"
        "filler = bytearray(resource.getrlimit(resource.RLIMIT_AS)[0] - used - (4 << 20))\n"
        "from cel_expr_python.ext import ext_optional\n"
    )
    runs_out_of_the_memory_bound(fill)
    missing = bounded("import trainc_no_such_module", TRAINC_RUN_MEMORY="200Mi")
    assert "ModuleNotFoundError" in missing.stderr  # any other failed import is no memory error


def test_the_bound_is_reported_with_every_byte_of_it_held():
    # what fills the address space is still held when the bound's error is said: the reserve kept past the bound
    # is what saying it takes
    body = (
        "chunks = []\n"
        "for size in (1 << 20, 1 << 12, 1 << 6, 8):  # down to the smallest gap\n"
        "    try:\n"
        "        while True:\n"
        "            chunks.append(bytearray(size))\n"
        "    except MemoryError:\n"
        "        pass\n"
        "raise MemoryError"
    )
    runs_out_of_the_memory_bound(body)


def runs_out_of_the_memory_bound(body: str) -> None:
    """`body`, under a 200 MiB bound before supervision and after it, ends with the bound's error alone."""
    for each in (body, "bounds.supervise()\n" + body):
        done = bounded(each, TRAINC_RUN_MEMORY="200Mi")
        assert (done.returncode, done.stderr.count("\n")) == (1, 1) and done.stderr.startswith(
            f"Error: the run ran out of the memory bound (TRAINC_RUN_MEMORY={200 << 20} bytes)"
        ), done.stderr


@pytest.mark.parametrize(
    "raised, memory",
    [
        ("OSError(errno.ENOMEM, 'Cannot allocate memory')", True),  # a system call's, under the bound
        ("SystemError('error return without exception set')", True),  # the interpreter's, failing to allocate
        ("OSError(errno.EACCES, 'Permission denied')", False),
        ("SystemError('something else')", False),
    ],
)
def test_what_says_the_memory_ran_out_is_the_bound_s_error(raised, memory):
    done = bounded(f"import errno\nraise {raised}", TRAINC_RUN_MEMORY="200Mi")
    assert done.returncode == 1
    assert done.stderr.startswith("Error: the run ran out of the memory bound") is memory, done.stderr


def test_the_memory_bound_holds_before_and_after_supervision():
    for body in ("b = bytearray(1 << 31)", "bounds.supervise()\nb = bytearray(1 << 31)"):
        done = bounded(body, TRAINC_RUN_MEMORY="1Gi")
        assert done.returncode == 1 and done.stderr.startswith(
            f"Error: the run ran out of the memory bound (TRAINC_RUN_MEMORY={1 << 30} bytes)"
        ), done.stderr
