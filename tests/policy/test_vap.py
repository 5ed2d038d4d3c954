"""Admission policies offline: ValidatingAdmissionPolicies with bindings (in the inputs or --policies) and
house rules, run through `trainc build` / `trainc validate` as a user runs them. The cases follow
k8s.io/apiserver plugin/policy/validating's admission tests: Deny/Warn/Audit actions, params by name and
selector with parameterNotFoundAction, namespaceSelector, messageExpression, failurePolicy on CEL errors."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from trainc.cli import cli


def trainjob(name="demo", namespace="team-a", gpus=8):
    return textwrap.dedent(f"""\
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: TrainJob
        metadata:
          name: {name}
          namespace: {namespace}
        spec:
          runtimeRef:
            name: torch-distributed
          trainer:
            numNodes: 2
            image: registry.example.com/train:1
            resourcesPerNode:
              limits:
                nvidia.com/gpu: {gpus}
        """)


# Every container of a JobSet asks for at most 8 GPUs (a node has 8).
GPU_CAP = textwrap.dedent("""\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata:
      name: gpu-cap
    spec:
      failurePolicy: Fail
      matchConstraints:
        resourceRules:
          - apiGroups: [jobset.x-k8s.io]
            apiVersions: ["*"]
            operations: [CREATE, UPDATE]
            resources: [jobsets]
      variables:
        - name: containers
          expression: "object.spec.replicatedJobs.map(j, j.template.spec.template.spec.containers).map(c, c)"
      validations:
        - expression: >-
            object.spec.replicatedJobs.all(j, j.template.spec.template.spec.containers.all(c,
              !has(c.resources) || !has(c.resources.limits) || !('nvidia.com/gpu' in c.resources.limits) ||
              int(c.resources.limits['nvidia.com/gpu']) <= 8))
          message: at most 8 GPUs per node
          reason: Forbidden
    """)


def binding(actions="[Deny]", policy="gpu-cap", name="gpu-cap-binding", extra=""):
    return (
        textwrap.dedent(f"""\
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicyBinding
        metadata:
          name: {name}
        spec:
          policyName: {policy}
          validationActions: {actions}
        """)
        + extra
    )


def run(tmp_path, *files, args=(), command="build"):
    paths = []
    for index, text in enumerate(files):
        path = tmp_path / f"f{index}.yaml"
        path.write_text(text)
        paths.append(str(path))
    result = CliRunner().invoke(cli, [command, *args, *paths], catch_exceptions=False)
    return result, paths


def test_gpu_cap_denies_naming_policy_binding_and_trainjob_place(tmp_path):
    result, paths = run(tmp_path, trainjob(gpus=16), GPU_CAP + "---\n" + binding())
    assert result.exit_code == 1 and "kind: JobSet" not in result.stdout
    assert result.stderr.strip().splitlines() == [
        f"{paths[0]}:1:1: JobSet team-a/demo: ValidatingAdmissionPolicy 'gpu-cap' with binding 'gpu-cap-binding' "
        "denied request: at most 8 GPUs per node"
    ]
    allowed, _ = run(tmp_path, trainjob(gpus=8), GPU_CAP + "---\n" + binding())
    assert allowed.exit_code == 0 and "kind: JobSet" in allowed.stdout
    # the policy objects among the inputs pass through, as any cluster object does
    assert "kind: ValidatingAdmissionPolicy\n" in allowed.stdout


def test_warn_and_audit_do_not_deny(tmp_path):
    result, paths = run(tmp_path, trainjob(gpus=16), GPU_CAP + "---\n" + binding("[Warn, Audit]"))
    assert result.exit_code == 0 and "kind: JobSet" in result.stdout
    assert (
        f"warning: {paths[0]}:1:1: JobSet team-a/demo: Validation failed for ValidatingAdmissionPolicy "
        "'gpu-cap' with binding 'gpu-cap-binding': at most 8 GPUs per node"
    ) in result.stderr
    assert (
        f"notice: {paths[0]}:1:1: JobSet team-a/demo: audit: ValidatingAdmissionPolicy 'gpu-cap' with binding "
        "'gpu-cap-binding': validation failed: at most 8 GPUs per node"
    ) in result.stderr


def test_validate_reports_the_denial_as_a_json_problem(tmp_path):
    result, paths = run(
        tmp_path, trainjob(gpus=16), GPU_CAP + "---\n" + binding(), args=("-o", "json"), command="validate"
    )
    assert result.exit_code == 1
    assert '"message": "JobSet team-a/demo: ValidatingAdmissionPolicy \'gpu-cap\'' in result.stdout


def test_policies_path_is_not_passed_through(tmp_path):
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "cap.yaml").write_text(GPU_CAP + "---\n" + binding())
    job = tmp_path / "job.yaml"
    job.write_text(trainjob(gpus=8))
    result = CliRunner().invoke(cli, ["build", "--policies", str(policies), str(job)])
    assert result.exit_code == 0 and "ValidatingAdmissionPolicy" not in result.stdout
    job.write_text(trainjob(gpus=9))
    result = CliRunner().invoke(cli, ["build", "--policies", str(policies), str(job)])
    assert result.exit_code == 1 and "denied request: at most 8 GPUs per node" in result.stderr


PARAM_POLICY = textwrap.dedent("""\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata:
      name: gpu-cap-param
    spec:
      paramKind:
        apiVersion: v1
        kind: ConfigMap
      matchConstraints:
        resourceRules:
          - apiGroups: [jobset.x-k8s.io]
            apiVersions: [v1alpha2]
            operations: [CREATE]
            resources: [jobsets]
      validations:
        - expression: >-
            object.spec.replicatedJobs.all(j, j.template.spec.template.spec.containers.all(c,
              int(c.resources.limits['nvidia.com/gpu']) <= int(params.data.maxGPUs)))
          messageExpression: "'at most ' + params.data.maxGPUs + ' GPUs per node in ' + object.metadata.namespace"
    """)


def limits(namespace="team-a", gpus="4", name="gpu-limits"):
    return textwrap.dedent(f"""\
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {name}
          namespace: {namespace}
        data:
          maxGPUs: "{gpus}"
        """)


def test_params_from_the_inputs_and_message_expression(tmp_path):
    ref = "  paramRef:\n    name: gpu-limits\n    parameterNotFoundAction: Deny\n"
    result, paths = run(
        tmp_path, trainjob(gpus=8), PARAM_POLICY + "---\n" + binding(policy="gpu-cap-param", extra=ref), limits()
    )
    assert result.exit_code == 1
    assert (
        "ValidatingAdmissionPolicy 'gpu-cap-param' with binding 'gpu-cap-binding' denied request: "
        "at most 4 GPUs per node in team-a"
    ) in result.stderr
    # the param is the one of the object's namespace: in team-b it allows 8
    result, _ = run(
        tmp_path,
        trainjob(gpus=8, namespace="team-b"),
        PARAM_POLICY + "---\n" + binding(policy="gpu-cap-param", extra=ref),
        limits(),
        limits("team-b", "8"),
    )
    assert result.exit_code == 0, result.stderr


def test_missing_params_deny_or_allow_by_parameter_not_found_action(tmp_path):
    deny = "  paramRef:\n    name: nowhere\n    parameterNotFoundAction: Deny\n"
    result, _ = run(tmp_path, trainjob(), PARAM_POLICY + "---\n" + binding(policy="gpu-cap-param", extra=deny))
    assert (
        result.exit_code == 1
        and (
            "ValidatingAdmissionPolicy 'gpu-cap-param' with binding 'gpu-cap-binding' denied request: failed to configure "
            "binding: no params found for policy binding with `Deny` parameterNotFoundAction"
        )
        in result.stderr
    )
    allow = "  paramRef:\n    name: nowhere\n    parameterNotFoundAction: Allow\n"
    result, _ = run(tmp_path, trainjob(), PARAM_POLICY + "---\n" + binding(policy="gpu-cap-param", extra=allow))
    assert result.exit_code == 0, result.stderr


def test_params_by_selector_each_evaluated(tmp_path):
    selector = "  paramRef:\n    selector:\n      matchLabels: {kind: gpu-limit}\n    parameterNotFoundAction: Allow\n"
    labelled = limits(gpus="16", name="loose").replace(
        "  name: loose\n", "  name: loose\n  labels: {kind: gpu-limit}\n"
    )
    strict = limits(gpus="2", name="strict").replace(
        "  name: strict\n", "  name: strict\n  labels: {kind: gpu-limit}\n"
    )
    result, _ = run(
        tmp_path,
        trainjob(gpus=4),
        PARAM_POLICY + "---\n" + binding(policy="gpu-cap-param", extra=selector),
        labelled,
        strict,
    )
    assert result.exit_code == 1 and result.stderr.count("denied request") == 1
    assert "at most 2 GPUs per node" in result.stderr


NAMESPACES = textwrap.dedent("""\
    apiVersion: v1
    kind: Namespace
    metadata:
      name: team-a
      labels:
        gpu-quota: limited
    ---
    apiVersion: v1
    kind: Namespace
    metadata:
      name: team-b
    """)


def test_namespace_selector_over_the_inputs_namespaces(tmp_path):
    selected = GPU_CAP.replace(
        "  matchConstraints:\n",
        "  matchConstraints:\n    namespaceSelector:\n      matchLabels: {gpu-quota: limited}\n",
    )
    result, _ = run(
        tmp_path,
        trainjob(gpus=16),
        trainjob(name="other", namespace="team-b", gpus=16),
        NAMESPACES,
        selected + "---\n" + binding(),
    )
    assert result.exit_code == 1
    assert "JobSet team-a/demo: ValidatingAdmissionPolicy 'gpu-cap'" in result.stderr
    assert "team-b" not in result.stderr
    # a Namespace not among the inputs has only its name label: matchExpressions on it
    by_name = GPU_CAP.replace(
        "  matchConstraints:\n",
        "  matchConstraints:\n    namespaceSelector:\n"
        "      matchExpressions:\n        - {key: kubernetes.io/metadata.name,"
        " operator: In, values: [team-c]}\n",
    )
    result, _ = run(tmp_path, trainjob(gpus=16, namespace="team-c"), by_name + "---\n" + binding())
    assert result.exit_code == 1 and "JobSet team-c/demo" in result.stderr


def test_object_selector_and_exclude_rules(tmp_path):
    by_label = GPU_CAP.replace(
        "  matchConstraints:\n", "  matchConstraints:\n    objectSelector:\n      matchLabels: {tier: batch}\n"
    )
    result, _ = run(tmp_path, trainjob(gpus=16), by_label + "---\n" + binding())
    assert result.exit_code == 0, result.stderr  # the JobSet carries no tier label
    excluded = GPU_CAP.replace(
        "  matchConstraints:\n",
        "  matchConstraints:\n    excludeResourceRules:\n"
        "      - {apiGroups: ['*'], apiVersions: ['*'], operations: ['*'],"
        " resources: [jobsets], resourceNames: [demo]}\n",
    )
    result, _ = run(tmp_path, trainjob(gpus=16), excluded + "---\n" + binding())
    assert result.exit_code == 0, result.stderr


def test_cel_error_denies_under_fail_and_is_ignored_under_ignore(tmp_path):
    result, _ = run(tmp_path, trainjob(gpus=8), _policy_with("object.spec.nothere == 1", "Fail") + "---\n" + binding())
    assert result.exit_code == 1
    assert (
        "denied request: expression 'object.spec.nothere == 1' resulted in error: no such key: nothere" in result.stderr
    )
    result, _ = run(
        tmp_path, trainjob(gpus=8), _policy_with("object.spec.nothere == 1", "Ignore") + "---\n" + binding()
    )
    assert result.exit_code == 0, result.stderr


def _policy_with(expression: str, failure: str = "Fail", extra: str = "") -> str:
    return (
        textwrap.dedent(f"""\
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata:
          name: gpu-cap
        spec:
          failurePolicy: {failure}
          matchConstraints:
            resourceRules:
              - apiGroups: ["*"]
                apiVersions: ["*"]
                operations: ["*"]
                resources: ["*"]
        """)
        + extra
        + f"  validations:\n    - expression: {expression!r}\n"
    )


def test_match_conditions_and_variables(tmp_path):
    conditions = (
        "  matchConditions:\n    - name: jobsets-only\n      expression: \"request.kind.kind == 'JobSet'\"\n"
        "  variables:\n    - name: nodes\n      expression: object.spec.replicatedJobs[0].template.spec.parallelism\n"
    )
    result, _ = run(tmp_path, trainjob(), _policy_with("variables.nodes <= 1", extra=conditions) + "---\n" + binding())
    assert result.exit_code == 1 and result.stderr.count("denied request") == 1
    assert "JobSet team-a/demo" in result.stderr and "failed expression: variables.nodes <= 1" in result.stderr


def test_passed_through_objects_are_reported_at_their_own_place(tmp_path):
    policy = _policy_with("object.metadata.name.startsWith('team-')", extra="").replace(
        'resources: ["*"]', "resources: [configmaps]"
    )
    result, paths = run(tmp_path, limits(), policy + "---\n" + binding())
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"{paths[0]}:1:1: ConfigMap team-a/gpu-limits: ValidatingAdmissionPolicy 'gpu-cap' with binding "
        "'gpu-cap-binding' denied request: failed expression: object.metadata.name.startsWith('team-')"
    )


def test_update_rules_under_previous_see_the_old_object(tmp_path):
    grows = _policy_with("oldObject == null || object.data.maxGPUs >= oldObject.data.maxGPUs").replace(
        'operations: ["*"]', "operations: [UPDATE]"
    )
    old = tmp_path / "old"
    old.mkdir()
    (old / "limits.yaml").write_text(limits(gpus="8"))
    result, _ = run(
        tmp_path, limits(gpus="4"), grows + "---\n" + binding(), args=("--previous", str(old)), command="validate"
    )
    assert result.exit_code == 1 and "ConfigMap team-a/gpu-limits: ValidatingAdmissionPolicy" in result.stderr
    created, _ = run(tmp_path, limits(gpus="4"), grows + "---\n" + binding(), command="validate")
    assert created.exit_code == 0, created.stderr  # CREATE: an UPDATE-only rule does not apply


def test_bad_policy_input_fails_at_its_own_place(tmp_path):
    broken = _policy_with("object.spec.replicatedJobs.all(j, ")
    result, paths = run(tmp_path, trainjob(), broken + "---\n" + binding())
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"{paths[1]}:14:19: spec.validations[0].expression: compilation failed: ERROR: <input>:1:"
    )
    assert "spec.policyName" not in result.stderr  # its binding is not reported again
    unknown = PARAM_POLICY.replace("kind: ConfigMap", "kind: GPULimit")
    result, paths = run(tmp_path, trainjob(), unknown + "---\n" + binding(policy="gpu-cap-param"))
    assert result.exit_code == 1 and result.stderr.startswith(
        f"{paths[1]}:7:5: spec.paramKind: failed to find resource referenced by paramKind: 'v1, Kind=GPULimit'"
    )
    result, paths = run(tmp_path, trainjob(), binding(policy="nowhere"))
    assert result.exit_code == 1 and result.stderr.strip() == (
        f"{paths[1]}:6:15: spec.policyName: no ValidatingAdmissionPolicy 'nowhere' among the inputs or --policies"
    )


HOUSE = textwrap.dedent("""\
    policies:
      - name: gpu-per-node-cap
        match:
          kinds: [jobset.x-k8s.io/JobSet]
          namespaces: [team-a]
        rule: >-
          object.spec.replicatedJobs.all(j, j.template.spec.template.spec.containers.all(c,
            !has(c.resources.limits) || !('nvidia.com/gpu' in c.resources.limits) ||
            int(c.resources.limits['nvidia.com/gpu']) <= 8))
        message: at most 8 GPUs per node
    """)


def test_the_same_cap_as_a_house_rule(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".trainc.yaml").write_text(HOUSE)
    (tmp_path / "a.yaml").write_text(trainjob(gpus=16))
    (tmp_path / "b.yaml").write_text(trainjob(name="other", namespace="team-b", gpus=16))
    result = CliRunner().invoke(cli, ["build", "a.yaml", "b.yaml"])
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "a.yaml:1:1: JobSet team-a/demo: house rule 'gpu-per-node-cap' denied: at most 8 GPUs per node"
    )
    (tmp_path / "a.yaml").write_text(trainjob(gpus=8))
    assert CliRunner().invoke(cli, ["build", "a.yaml", "b.yaml"]).exit_code == 0


def test_a_house_rule_that_does_not_compile_fails_at_its_place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".trainc.yaml").write_text(
        HOUSE.replace("message: at most", "message: at most").replace(
            "int(c.resources.limits['nvidia.com/gpu']) <= 8))", "int(c.resources.limits['nvidia.com/gpu']) <= ))"
        )
    )
    (tmp_path / "a.yaml").write_text(trainjob(gpus=8))
    result = CliRunner().invoke(cli, ["build", "a.yaml"])
    assert result.exit_code == 1 and result.stderr.startswith(
        ".trainc.yaml:6:11: policies[0].rule: compilation failed: ERROR: <input>:"
    )


def test_no_policy_no_policy_modules():
    """A build without policies imports neither the admission evaluation nor the house rules' checks."""
    probe = (
        "import sys\nfrom trainc.cli import cli\ntry:\n    cli.main(sys.argv[1:], prog_name='trainc')\n"
        "except SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    from conftest import ROOT

    built = subprocess.run(
        [sys.executable, "-c", probe, "build", str(ROOT / "examples" / "torch-ddp.yaml")],
        capture_output=True,
        text=True,
        cwd=ROOT / "examples",
    )
    assert "kind: JobSet" in built.stdout
    assert "trainc.policy.vap" not in built.stderr.split()
    helped = subprocess.run([sys.executable, "-c", probe, "--help"], capture_output=True, text=True)
    assert "cel_expr_python" not in helped.stderr.split() and "trainc.k8s.celengine" not in helped.stderr.split()


def readme_house_rules() -> str:
    """The house rules of docs/guides/policies.md, as a .trainc.yaml."""
    from conftest import ROOT

    text = (ROOT / "docs" / "guides" / "policies.md").read_text()
    start = text.index("# .trainc.yaml\n")
    return text[start : text.index("```", start)]


RUNTIME_WITH_TEAM = textwrap.dedent("""\
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainingRuntime
    metadata:
      name: labelled
      namespace: team-a
    spec:
      mlPolicy:
        numNodes: 1
        torch: {}
      template:
        spec:
          replicatedJobs:
            - name: node
              template:
                metadata:
                  labels:
                    trainer.kubeflow.org/trainjob-ancestor-step: trainer
                spec:
                  template:
                    metadata:
                      labels: {team: vision}
                    spec:
                      containers:
                        - name: node
                          image: registry.example.com/torch:2
    """)


@pytest.mark.parametrize(
    ("change", "refused"),
    [
        ({}, None),
        ({"gpus": "16"}, "gpu-per-node-cap"),
        ({"image": "docker.io/me/train:1"}, "allowed-registries"),
        ({"runtime": "torch-distributed", "image": "registry.example.com/x:1"}, "team-label"),
        ({"queue": "spot", "priority": "high"}, "priority-per-queue"),
        ({"queue": "spot", "priority": "preemptible"}, None),
    ],
)
def test_the_readme_house_rules(tmp_path, monkeypatch, change, refused):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "platform" / "policies").mkdir(parents=True)
    (tmp_path / ".trainc.yaml").write_text(readme_house_rules())
    (tmp_path / "runtime.yaml").write_text(RUNTIME_WITH_TEAM)
    values = {
        "gpus": "8",
        "image": "registry.example.com/train:1",
        "runtime": "labelled",
        "queue": "prod-gpu",
        "priority": "high",
        **change,
    }
    (tmp_path / "job.yaml").write_text(
        textwrap.dedent(f"""\
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: TrainJob
        metadata:
          name: demo
          namespace: team-a
          labels:
            kueue.x-k8s.io/queue-name: {values["queue"]}
            kueue.x-k8s.io/priority-class: {values["priority"]}
        spec:
          runtimeRef:
            name: {values["runtime"]}
            kind: {"TrainingRuntime" if values["runtime"] == "labelled" else "ClusterTrainingRuntime"}
          trainer:
            image: {values["image"]}
            resourcesPerNode:
              limits:
                nvidia.com/gpu: {values["gpus"]}
        """)
    )
    result = CliRunner().invoke(cli, ["build", "runtime.yaml", "job.yaml"])
    if refused is None:
        assert result.exit_code == 0, result.stderr
    else:
        assert result.exit_code == 1
        assert [line.split("'")[1] for line in result.stderr.splitlines()] == [refused]
        assert result.stderr.startswith(f"job.yaml:1:1: JobSet team-a/demo: house rule '{refused}' denied: ")


def test_policy_paths_in_the_project_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "platform").mkdir()
    (tmp_path / "platform" / "cap.yaml").write_text(GPU_CAP + "---\n" + binding())
    (tmp_path / ".trainc.yaml").write_text("policy-paths: [platform]\n")
    (tmp_path / "job.yaml").write_text(trainjob(gpus=16))
    result = CliRunner().invoke(cli, ["validate", "job.yaml"])
    assert result.exit_code == 1 and "ValidatingAdmissionPolicy 'gpu-cap'" in result.stderr


def test_a_rendered_jobset_update_sees_the_jobset_the_previous_trainjob_renders(tmp_path):
    queue = "kueue.x-k8s.io/queue-name"
    same_queue = (
        _policy_with(f"object.metadata.labels[?'{queue}'] == oldObject.metadata.labels[?'{queue}']")
        .replace('resources: ["*"]', "resources: [jobsets]")
        .replace('operations: ["*"]', "operations: [UPDATE]")
    )
    queued = trainjob().replace("  namespace: team-a\n", f"  namespace: team-a\n  labels:\n    {queue}: small\n")
    old = tmp_path / "old"
    old.mkdir()
    (old / "job.yaml").write_text(queued)
    moved = queued.replace(f"{queue}: small", f"{queue}: large")
    result, paths = run(
        tmp_path, moved, same_queue + "---\n" + binding(), args=("--previous", str(old)), command="validate"
    )
    assert result.exit_code == 1 and result.stderr.startswith(
        f"{paths[0]}:1:1: JobSet team-a/demo: ValidatingAdmissionPolicy 'gpu-cap' with binding 'gpu-cap-binding' "
        "denied request: failed expression: object.metadata.labels[?"
    )
    same, _ = run(tmp_path, queued, same_queue + "---\n" + binding(), args=("--previous", str(old)), command="validate")
    assert same.exit_code == 0, same.stderr


# --- who applies: request.userInfo and authorizer checks (issue 22, findings 12 and 13) --------------------------

CONTROLLER = "system:serviceaccount:argocd:argocd-application-controller"
ONLY_CONTROLLER = _policy_with(f"request.userInfo.username == '{CONTROLLER}'").replace(
    'resources: ["*"]', "resources: [jobsets]"
)


@pytest.mark.parametrize("how", ["flag", "env", "config"])
def test_request_user_info_is_who_applies(tmp_path, monkeypatch, how):
    """'Only the GitOps controller creates JobSets' denied everything: userInfo was empty, with no way to say who
    applies. --as (TRAINC_AS, the config's `as`) says it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    denied, _ = run(tmp_path, trainjob(), ONLY_CONTROLLER + "---\n" + binding())
    assert denied.exit_code == 1 and f"failed expression: request.userInfo.username == '{CONTROLLER}'" in denied.stderr
    args, env = {"flag": ((f"--as={CONTROLLER}",), {}), "env": ((), {"TRAINC_AS": CONTROLLER}), "config": ((), {})}[how]
    if how == "config":
        (tmp_path / ".trainc.yaml").write_text(f"as: {CONTROLLER}\n")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    allowed, _ = run(tmp_path, trainjob(), ONLY_CONTROLLER + "---\n" + binding(), args=args)
    assert allowed.exit_code == 0, allowed.stderr


@pytest.mark.parametrize(
    "args, groups",
    [
        ((f"--as={CONTROLLER}",), ["system:serviceaccounts", "system:serviceaccounts:argocd", "system:authenticated"]),
        (("--as=alice",), ["system:authenticated"]),
        (("--as=alice", "--as-group=ml", "--as-group=ops"), ["ml", "ops", "system:authenticated"]),
        (("--as=system:anonymous",), []),
    ],
    ids=["service-account", "user", "groups", "anonymous"],
)
def test_the_groups_are_those_kubectl_as_gets(tmp_path, args, groups):
    """The impersonation filter's user info: a service account's groups, and system:authenticated."""
    policy = (
        _policy_with("false").replace('resources: ["*"]', "resources: [jobsets]")
        + "      messageExpression: \"request.userInfo.groups.join(',')\"\n"
    )
    result, _ = run(tmp_path, trainjob(), policy + "---\n" + binding(), args=args)
    assert result.exit_code == 1
    message = result.stderr.strip().splitlines()[0].rpartition("denied request: ")[2]
    assert message == (",".join(groups) or "failed expression: false")


def test_as_group_without_as_is_a_usage_error(tmp_path):
    result, _ = run(tmp_path, trainjob(), args=("--as-group=ml",))
    assert result.exit_code == 2 and "--as-group (TRAINC_AS_GROUPS, as-groups) needs --as" in result.stderr


CHECK = "authorizer.group('jobset.x-k8s.io').resource('jobsets').namespace(object.metadata.namespace).check('create')"


@pytest.mark.parametrize(
    "failure, effect",
    [
        (
            "Fail",
            "the cluster answers it, and under its failurePolicy Fail a check that errors there denies the request",
        ),
        ("Ignore", "its failurePolicy Ignore skips a check that errors, as here"),
    ],
)
def test_an_authorizer_check_without_rbac_objects_is_a_notice_at_the_expression(tmp_path, failure, effect):
    """A valid policy using authorizer was 'compilation failed' and failed every build: now the check is not
    evaluated, said once at its expression with what the failurePolicy makes of it, and the build goes on."""
    policy = _policy_with(f"{CHECK}.allowed()", failure).replace('resources: ["*"]', "resources: [jobsets]")
    result, paths = run(tmp_path, trainjob(), trainjob("other"), policy + "---\n" + binding())
    assert result.exit_code == 0, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"notice: {paths[2]}:14:19: spec.validations[0].expression: ValidatingAdmissionPolicy 'gpu-cap': not "
        "evaluated: its authorizer check needs the RBAC objects (Roles, ClusterRoles and their bindings) among the "
        f"inputs or --policies, and there are none; skipped here ({effect})"
    ]
    # what the check does not decide still is: the rest of the policy is evaluated
    mixed = policy.replace(f"{CHECK}.allowed()", f"object.metadata.name == 'demo' || {CHECK}.allowed()")
    denied, _ = run(tmp_path, trainjob("other"), mixed + "---\n" + binding())
    assert denied.exit_code == 0 and "not evaluated" in denied.stderr
    decided, _ = run(tmp_path, trainjob("demo"), mixed + "---\n" + binding())
    assert decided.exit_code == 0 and "not evaluated" not in decided.stderr


ROLE = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: jobset-editor
  labels: {LABELS}
rules:
  - apiGroups: [jobset.x-k8s.io]
    resources: [jobsets, "*/status"]
    verbs: [create, update]
  - apiGroups: [""]
    resources: [configmaps]
    resourceNames: [settings]
    verbs: ["*"]
  - nonResourceURLs: ["/metrics", "/debug/*"]
    verbs: [get]
"""
AGGREGATED = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ml-admin
aggregationRule:
  clusterRoleSelectors:
    - matchLabels: {ml.example.com/aggregate: "true"}
rules: []
"""


def rbac_binding(kind, name, role="jobset-editor", subject="kind: Group\n    name: ml", namespace="team-a"):
    where = f"\n  namespace: {namespace}" if kind == "RoleBinding" else ""
    return (
        f"apiVersion: rbac.authorization.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: {name}{where}\nroleRef:\n"
        f"  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: {role}\nsubjects:\n  - {subject}\n"
    )


def decision(tmp_path, check: str, *rbac: str, args=("--as=alice", "--as-group=ml")) -> str:
    """`allowed reason` of `check` for the JobSet team-a/demo, as a policy that always denies reports it."""
    policy = (
        _policy_with("false").replace('resources: ["*"]', "resources: [jobsets]")
        + f"      messageExpression: \"string({check}.allowed()) + ' ' + {check}.reason() + '.'\"\n"
    )
    rbac_file = tmp_path / "rbac.yaml"
    rbac_file.write_text("---\n".join(rbac))
    result, _ = run(tmp_path, trainjob(), policy + "---\n" + binding(), args=(*args, f"--policies={rbac_file}"))
    assert result.exit_code == 1, result.stderr
    return result.stderr.strip().splitlines()[0].rpartition("denied request: ")[2]


ROLE_PLAIN = ROLE.replace("{LABELS}", "{}")
SA = "kind: ServiceAccount\n    name: argocd-application-controller\n    namespace: argocd"


@pytest.mark.parametrize(
    "check, rbac, expected",
    [
        (
            CHECK,
            [ROLE_PLAIN, rbac_binding("ClusterRoleBinding", "ml-jobsets")],
            'true RBAC: allowed by ClusterRoleBinding "ml-jobsets" of ClusterRole "jobset-editor" to Group "ml".',
        ),
        (
            CHECK,
            [ROLE_PLAIN, rbac_binding("RoleBinding", "ml-jobsets")],
            'true RBAC: allowed by RoleBinding "ml-jobsets/team-a" of ClusterRole "jobset-editor" to Group "ml".',
        ),
        (CHECK, [ROLE_PLAIN, rbac_binding("RoleBinding", "ml-jobsets", namespace="team-b")], "false ."),
        (
            CHECK,
            [ROLE_PLAIN, rbac_binding("ClusterRoleBinding", "bob", subject="kind: User\n    name: bob")],
            "false .",
        ),
        (CHECK.replace("'create'", "'delete'"), [ROLE_PLAIN, rbac_binding("ClusterRoleBinding", "b")], "false ."),
        (
            CHECK.replace(".check", ".subresource('status').check"),
            [ROLE_PLAIN, rbac_binding("ClusterRoleBinding", "b")],
            'true RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "jobset-editor" to Group "ml".',
        ),
        (
            "authorizer.group('').resource('configmaps').namespace('team-a').name('settings').check('delete')",
            [ROLE_PLAIN, rbac_binding("ClusterRoleBinding", "b")],
            'true RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "jobset-editor" to Group "ml".',
        ),
        (
            "authorizer.group('').resource('configmaps').namespace('team-a').name('other').check('get')",
            [ROLE_PLAIN, rbac_binding("ClusterRoleBinding", "b")],
            "false .",
        ),
        (
            "authorizer.path('/debug/pprof').check('get')",
            [ROLE_PLAIN, rbac_binding("ClusterRoleBinding", "b")],
            'true RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "jobset-editor" to Group "ml".',
        ),
        ("authorizer.path('/healthz').check('get')", [ROLE_PLAIN, rbac_binding("ClusterRoleBinding", "b")], "false ."),
        (
            "authorizer.requestResource.check('create')",
            [ROLE_PLAIN, rbac_binding("RoleBinding", "b")],
            'true RBAC: allowed by RoleBinding "b/team-a" of ClusterRole "jobset-editor" to Group "ml".',
        ),
        (
            CHECK.replace("authorizer.", "authorizer.serviceAccount('argocd', 'argocd-application-controller')."),
            [ROLE_PLAIN, rbac_binding("RoleBinding", "ctl", subject=SA)],
            'true RBAC: allowed by RoleBinding "ctl/team-a" of ClusterRole "jobset-editor" to ServiceAccount '
            '"argocd-application-controller/argocd".',
        ),
        (
            CHECK,
            [
                ROLE.replace("{LABELS}", '{ml.example.com/aggregate: "true"}'),
                AGGREGATED,
                rbac_binding("ClusterRoleBinding", "admins", role="ml-admin"),
            ],
            'true RBAC: allowed by ClusterRoleBinding "admins" of ClusterRole "ml-admin" to Group "ml".',
        ),
        (CHECK, [ROLE_PLAIN, AGGREGATED, rbac_binding("ClusterRoleBinding", "admins", role="ml-admin")], "false ."),
    ],
    ids=[
        "cluster-role-binding",
        "role-binding",
        "role-binding-elsewhere",
        "other-user",
        "verb",
        "subresource",
        "resource-name",
        "other-resource-name",
        "non-resource-prefix",
        "non-resource-other",
        "request-resource",
        "service-account",
        "aggregated",
        "not-aggregated",
    ],
)
def test_authorizer_checks_are_answered_as_the_rbac_authorizer_answers(tmp_path, check, rbac, expected):
    assert decision(tmp_path, check, *rbac) == expected


def test_the_rbac_objects_among_the_inputs_answer_too(tmp_path):
    policy = _policy_with(f"{CHECK}.allowed()").replace('resources: ["*"]', "resources: [jobsets]")
    inputs = (trainjob(), policy + "---\n" + binding(), ROLE_PLAIN + "---\n" + rbac_binding("RoleBinding", "ml"))
    denied, _ = run(tmp_path, *inputs, args=("--as=alice",))
    assert denied.exit_code == 1 and f"failed expression: {CHECK}.allowed()" in denied.stderr
    allowed, _ = run(tmp_path, *inputs, args=("--as=alice", "--as-group=ml"))
    assert allowed.exit_code == 0, allowed.stderr
    assert "kind: RoleBinding" in allowed.stdout  # they are the app's objects: they pass through


def test_a_policys_expressions_compile_once_per_run_not_per_trainjob(tmp_path):
    from trainc.k8s import cel, celengine

    def compiled(count: int) -> int:
        celengine.compile.cache_clear()
        cel._verdicts.clear()  # the CRD rules' verdicts kept from an earlier run would spare their programs
        jobs = "---\n".join(trainjob(name=f"job-{index}") for index in range(count))
        result, _ = run(tmp_path, jobs, GPU_CAP + "---\n" + binding())
        assert result.exit_code == 0, result.stderr
        return celengine.compile.cache_info().misses  # programs made (the CRDs' rules' and the policy's)

    compiled(1)  # the bundled runtimes' rules, checked once per process
    assert compiled(12) == compiled(1) >= 2


_JOBSETS = '[{apiGroups: [jobset.x-k8s.io], apiVersions: ["*"], operations: [CREATE], resources: [jobsets]}]'


def _loaded(name: str, variables: str, validations: str, *extra_bindings: str):
    """(the admission, its objects) of the policy `name` over JobSets, bound as `name` and by `extra_bindings`."""
    import yaml

    from trainc.errors import Origin
    from trainc.policy import vap

    spec = f"matchConstraints:\n  resourceRules: {_JOBSETS}\nvariables:\n{variables}validations:\n{validations}"
    documents = [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": yaml.safe_load(spec),
        },
        *yaml.safe_load_all(binding(policy=name, name=name)),
        *(document for text in extra_bindings for document in yaml.safe_load_all(text)),
    ]
    found = [(Origin("policies.yaml", index), obj) for index, obj in enumerate(documents)]
    bindings, errors = vap.load(found, found)
    assert errors == []
    return bindings, [obj for _, obj in found]


def _admitted(bindings, objects, rules=()):
    """The outcome of admitting a JobSet of 7 replicas (under house `rules` too)."""
    from trainc.errors import Origin
    from trainc.policy import vap

    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "demo", "namespace": "team-a"},
        "spec": {"replicas": 7},
    }
    outcome = vap.Outcome()
    vap.Admission(bindings, objects, "default", rules).admit(vap.Subject(jobset, Origin("job.yaml")), outcome)
    return outcome


def _counted(monkeypatch) -> tuple[list, list]:
    """(binds, programs evaluated), recorded from now on."""
    from trainc.k8s import celengine

    binds, evaluated = [], []
    real_bind, real_evaluate = celengine.bind, celengine.evaluate
    monkeypatch.setattr(celengine, "bind", lambda data: binds.append(1) or real_bind(data))
    monkeypatch.setattr(
        celengine, "evaluate", lambda program, data: evaluated.append(program) or real_evaluate(program, data)
    )
    return binds, evaluated


def test_a_variable_is_evaluated_once_and_the_object_bound_again_only_for_its_readers(monkeypatch):
    """Converting the object to CEL values is most of an evaluation: the expressions that do not name `variables`
    share one binding with the other policies'; those that do are bound again only after a variable changed."""
    from trainc.k8s import celengine
    from trainc.policy import vap

    bindings, objects = _loaded(
        "sizes",
        "  - {name: a, expression: object.spec.replicas}\n"
        "  - {name: b, expression: object.spec.replicas * 2}\n"
        "  - {name: c, expression: variables.a + 1}\n",
        "  - {expression: object.spec.replicas < 100}\n"
        "  - {expression: variables.c < 5, messageExpression: \"'c is ' + string(variables.c)\"}\n"
        "  - {expression: variables.b < 10, messageExpression: \"'b is ' + string(variables.b)\"}\n",
        binding(policy="sizes", name="plain", actions="[Warn]"),
    )
    binds, evaluated = _counted(monkeypatch)
    outcome = _admitted(bindings, objects)
    assert [error.message.rpartition(": ")[2] for error in outcome.errors] == ["c is 8", "b is 14"]
    assert [notice.message.rpartition(": ")[2] for notice in outcome.notices] == ["c is 8", "b is 14"]
    for text in ("object.spec.replicas", "object.spec.replicas * 2", "variables.a + 1"):
        assert evaluated.count(celengine.compile(text, vap.NAMES)) == 2  # once for each binding
    # per binding: `c` once `a` and `b` have values, the validations once `c` has one; the rest read the first
    assert len(binds) == 1 + 2 * 2


def test_a_variable_no_validation_reads_is_never_evaluated(monkeypatch):
    """Upstream's variables are lazy (composition.go's lazy map): one read by no validation, directly or through
    another variable, is not evaluated, so neither charged nor failing; one read through another is."""
    from trainc.k8s import celengine
    from trainc.policy import vap

    bindings, objects = _loaded(
        "lazy",
        "  - {name: broken, expression: object.spec.missing.field > 1}\n"
        "  - {name: base, expression: object.spec.replicas}\n"
        "  - {name: doubled, expression: variables.base * 2}\n"
        "  - {name: unused, expression: object.spec.replicas + 100}\n",
        "  - {expression: variables.doubled < 10, messageExpression: \"'doubled is ' + string(variables.doubled)\"}\n",
    )
    assert bindings[0].policy.read == {"base", "doubled"}
    _, evaluated = _counted(monkeypatch)
    outcome = _admitted(bindings, objects)
    assert [error.message.rpartition(": ")[2] for error in outcome.errors] == ["doubled is 14"]  # no missing key
    for text in ("object.spec.missing.field > 1", "object.spec.replicas + 100"):
        assert celengine.compile(text, vap.NAMES) not in evaluated
    assert celengine.compile("variables.base * 2", vap.NAMES) in evaluated


def test_a_validation_reading_variables_otherwise_than_by_name_reads_them_all():
    bindings, _ = _loaded(
        "indexed",
        "  - {name: a, expression: object.spec.replicas}\n  - {name: b, expression: '1'}\n",
        "  - {expression: \"variables['a'] < 10\"}\n",
    )
    assert bindings[0].policy.read == {"a", "b"}


def _with_params(tmp_path, unparamed: str, maxima: tuple = ("5",)):
    """(bindings, objects, house rules): `capped` reads the `max` of every ConfigMap labelled `cap` in team-a,
    `plain` (no params) validates `unparamed`; one house rule on JobSets."""
    import yaml

    from trainc.errors import Origin
    from trainc.policy import house, vap

    (tmp_path / ".trainc.yaml").write_text(
        'policies:\n  - {name: small, match: {kinds: [JobSet]}, rule: "object.spec.replicas < 50"}\n'
    )
    rules, errors = house.load(str(tmp_path / ".trainc.yaml"))
    assert errors == []
    policy = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
    texts = [
        policy + "metadata: {name: capped}\nspec:\n  paramKind: {apiVersion: v1, kind: ConfigMap}\n"
        f"  matchConstraints: {{resourceRules: {_JOBSETS}}}\n"
        "  validations: [{expression: 'object.spec.replicas <= int(params.data.max)', message: too many}]\n",
        binding(policy="capped", name="capped", extra="  paramRef: {selector: {matchLabels: {cap: 'yes'}}}\n"),
        policy + "metadata: {name: plain}\nspec:\n"
        f"  matchConstraints: {{resourceRules: {_JOBSETS}}}\n"
        f"  validations: [{{expression: {unparamed!r}, message: plain refuses}}]\n",
        binding(policy="plain", name="plain"),
        *(
            f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cap-{index}, namespace: team-a, labels: {{cap: 'yes'}}}}\n"
            f"data: {{max: '{most}'}}\n"
            for index, most in enumerate(maxima)
        ),
    ]
    found = [(Origin("policies.yaml", index), yaml.safe_load(text)) for index, text in enumerate(texts)]
    bindings, errors = vap.load(found, found)
    assert errors == []
    return bindings, [obj for _, obj in found], rules


@pytest.mark.parametrize(
    "unparamed, maxima, binds, refusals",
    [
        # one binding serves the house rule, the policy without params and the first params object
        ("object.spec.replicas < 100", ("5",), 1, ["too many"]),
        ("object.spec.replicas < 100", ("5", "9"), 2, ["too many"]),  # the second params object is bound apart
        # a policy without params that names them reads null: the params policy is bound apart
        ("params == null", ("9",), 2, []),
        ("params != null", ("9",), 2, ["plain refuses"]),
    ],
)
def test_one_binding_of_the_object_serves_the_house_rules_and_the_policies(
    tmp_path, monkeypatch, unparamed, maxima, binds, refusals
):
    """Converting the object to CEL values is most of an evaluation: the house rules and the policies share one
    binding of it, with the first params object a policy reads, unless a policy without params names `params`."""
    bindings, objects, rules = _with_params(tmp_path, unparamed, maxima)
    counted, _ = _counted(monkeypatch)
    outcome = _admitted(bindings, objects, rules)
    assert [error.message.rpartition(": ")[2] for error in outcome.errors] == refusals
    assert len(counted) == binds


@pytest.mark.parametrize("by_labels", [True, False], ids=["with-an-object-selector", "without"])
def test_a_verdict_on_what_objects_share_is_kept_only_for_objects_alike(by_labels):
    """An admission keeps each binding's verdict on what the request shares with others (kind, namespace,
    operation, a Namespace's own labels, names where resourceNames are given), and without an objectSelector the
    bindings that take it: admitting many objects in one admission gives what admitting each in a fresh one
    gives."""
    import yaml

    from trainc.errors import Origin
    from trainc.policy import vap

    deny = "  validations: [{expression: 'false', message: refused}]\n"
    head = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
    texts = [
        head + "metadata: {name: by-namespace}\nspec:\n  matchConstraints:\n"
        "    namespaceSelector: {matchLabels: {tier: gated}}\n"
        "    resourceRules: [{apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*']}]\n" + deny,
        head + "metadata: {name: by-name}\nspec:\n  matchConstraints:\n"
        "    resourceRules: [{apiGroups: [''], apiVersions: ['*'], operations: ['*'], resources: [configmaps],"
        " resourceNames: [locked]}]\n" + deny,
        head + "metadata: {name: by-labels}\nspec:\n  matchConstraints:\n"
        "    objectSelector: {matchLabels: {frozen: 'yes'}}\n"
        "    resourceRules: [{apiGroups: ['*'], apiVersions: ['*'], operations: [UPDATE], resources: ['*']}]\n" + deny,
        *(binding(policy=name, name=name) for name in ("by-namespace", "by-name", "by-labels")),
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a, labels: {tier: gated}}\n",
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-b}\n",
    ]
    if not by_labels:
        texts = [text for text in texts if "by-labels" not in text]
    found = [(Origin("policies.yaml", index), yaml.safe_load(text)) for index, text in enumerate(texts)]
    bindings, errors = vap.load(found, found)
    assert errors == []
    objects = [obj for _, obj in found]
    subjects = []
    for namespace in ("team-a", "team-b", "team-c"):
        for name in ("locked", "open"):
            for labels in ({}, {"frozen": "yes"}):
                obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace}}
                obj["metadata"]["labels"] = labels
                subjects += [vap.Subject(obj, Origin(f"{namespace}.yaml")), vap.Subject(obj, None, (), obj)]
    subjects += [vap.Subject(obj, Origin("ns.yaml")) for obj in objects[-2:]]  # a Namespace: its own labels

    def said(outcome):
        return [error.message for error in outcome.errors]

    together = vap.Outcome()
    admission = vap.Admission(bindings, objects, "default")
    for subject in subjects:
        admission.admit(subject, together)
    alone = vap.Outcome()
    for subject in subjects:
        vap.Admission(bindings, objects, "default").admit(subject, alone)
    assert said(together) == said(alone)
    refused = {message.split(": ")[0] + " " + message.split("'")[1] for message in said(together)}
    assert refused >= {
        "ConfigMap team-a/open by-namespace",
        "ConfigMap team-b/locked by-name",
        *(["ConfigMap team-c/open by-labels"] if by_labels else []),
        "Namespace team-a by-namespace",
    }
    assert not any(message.startswith("Namespace team-b") for message in said(together))
    # team-a's 8 requests, the 12 on `locked`, the 6 updates of a frozen one, the Namespace team-a
    assert len(said(together)) == 8 + 12 + (6 if by_labels else 0) + 1


def test_params_are_found_by_place_as_a_scan_finds_them():
    """A binding's params are looked up by (namespace, name) in an index made once per kind, where each admitted
    object scanned every object of the param kind (thousands of ConfigMaps passed through made an admission
    quadratic): the same params in the same (input) order as the scan, by name, by selector, in the object's
    namespace, another one or any (a cluster-scoped kind), and none for a paramRef of another type."""
    import random

    from trainc.policy import vap

    draw = random.Random(2170)
    objects = []
    for index in range(300):
        metadata = {"name": draw.choice(["a", "b", "c", f"x{index}"])}
        if draw.random() < 0.8:
            metadata["namespace"] = draw.choice(["team-a", "team-b", "default"])
        if draw.random() < 0.5:
            metadata["labels"] = {"tier": draw.choice(["gold", "silver"])}
        objects.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata})
    objects += [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}} for name in ("n1", "n2", "n1")]
    admission = vap.Admission([], objects, "default")

    def scanned(group, kind, ref, namespace):  # generic.CollectParams read literally: every object, in order
        _, cluster = admission.resources.of(group, kind)
        where = None if cluster else ref.get("namespace") or namespace
        found = []
        for candidate in admission.params.get((group, kind), ()):
            metadata = candidate.get("metadata") or {}
            if where is not None and (metadata.get("namespace") or "default") != where:
                continue
            if ref.get("name") is not None:
                if metadata.get("name") == ref["name"]:
                    found.append(candidate)
            elif vap._selects(ref.get("selector"), metadata.get("labels") or {}):
                found.append(candidate)
        return found

    refs = [
        {"name": "a"},
        {"name": "b", "namespace": "team-b"},
        {"name": "x7"},
        {"selector": {"matchLabels": {"tier": "gold"}}},
        {"selector": {}, "namespace": "team-a"},
        {"name": 5},
        {"name": "a", "namespace": ["team-a"]},
    ]
    asked = 0
    for kind, ref, namespace in [
        (kind, ref, namespace)
        for kind in ("ConfigMap", "Namespace")
        for ref in [*refs, {"name": "n1"}]
        for namespace in ("team-a", "team-b", "default")
    ]:
        policy = vap.Policy.__new__(vap.Policy)
        policy.param_kind = ("", "v1", kind)
        binding = vap.Binding(None, "b", policy, ("Deny",), {**ref, "parameterNotFoundAction": "Allow"}, None)
        found = admission._params(binding, namespace)
        assert [id(each) for each in found] == [id(each) for each in scanned("", kind, ref, namespace)]
        asked += bool(found)
    assert asked > 10  # most lookups find params
