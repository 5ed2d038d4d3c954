"""The admission policies' cost: `trainc build` of bench.py's TrainJobs with five ValidatingAdmissionPolicies
(and their bindings and params, under --policies) against the same build with none (goal <= 1.5x).

The five are what a platform team writes: a GPU-per-node cap (variables), allowed image registries (params
from a ConfigMap per namespace), a replica cap with a messageExpression, a namespaceSelector-scoped memory
rule over the Namespaces under --policies, and a matchConditions-gated check on every passed-through and
rendered object's name. All allow the generated jobs, so the build completes and every policy is evaluated.
Usage: python bench/policies.py [--jobs N] [--repeat R] [--trainc PATH] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench  # noqa: E402  (bench.py beside this file: the same generator and timing)

JOBSETS = """\
  matchConstraints:
    resourceRules:
      - apiGroups: [jobset.x-k8s.io]
        apiVersions: ["*"]
        operations: [CREATE, UPDATE]
        resources: [jobsets]
"""


def policy(name: str, body: str, actions: str = "[Deny]", binding: str = "") -> str:
    return (
        f"apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n"
        f"  name: {name}\nspec:\n{body}---\n"
        f"apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n"
        f"  name: {name}\nspec:\n  policyName: {name}\n  validationActions: {actions}\n{binding}---\n"
    )


POLICIES = (
    policy(
        "gpu-per-node-cap",
        JOBSETS
        + """\
  variables:
    - name: containers
      expression: "object.spec.replicatedJobs.map(j, j.template.spec.template.spec.containers).map(cs, cs)"
  validations:
    - expression: >-
        object.spec.replicatedJobs.all(j, j.template.spec.template.spec.containers.all(c,
          !has(c.resources) || !has(c.resources.limits) || !('nvidia.com/gpu' in c.resources.limits) ||
          int(c.resources.limits['nvidia.com/gpu']) <= 8))
      message: at most 8 GPUs per node
""",
    )
    + policy(
        "allowed-registries",
        "  paramKind: {apiVersion: v1, kind: ConfigMap}\n"
        + JOBSETS
        + """\
  validations:
    - expression: >-
        object.spec.replicatedJobs.all(j, j.template.spec.template.spec.containers.all(c,
          params.data.registries.split(',').exists(r, c.image.startsWith(r))))
      messageExpression: "'images must come from ' + params.data.registries"
""",
        binding="  paramRef: {name: registries, parameterNotFoundAction: Deny}\n",
    )
    + policy(
        "replica-cap",
        JOBSETS
        + """\
  validations:
    - expression: object.spec.replicatedJobs.all(j, j.replicas * j.template.spec.parallelism <= 64)
      messageExpression: "'at most 64 pods, not ' + string(object.spec.replicatedJobs.size())"
""",
    )
    + policy(
        "memory-requested",
        JOBSETS.replace(
            "  matchConstraints:\n",
            "  matchConstraints:\n    namespaceSelector: {matchLabels: {memory-policy: strict}}\n",
        )
        + """\
  validations:
    - expression: >-
        object.spec.replicatedJobs.all(j, j.template.spec.template.spec.containers.all(c,
          !has(c.resources) || !has(c.resources.limits) || !has(c.resources.limits.memory) ||
          quantity(c.resources.limits.memory).compareTo(quantity('2Ti')) <= 0))
      message: at most 2Ti of memory per container
""",
        actions="[Warn]",
    )
    + policy(
        "names",
        """\
  matchConstraints:
    resourceRules:
      - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}
  matchConditions:
    - name: named
      expression: has(object.metadata.name)
  validations:
    - expression: size(object.metadata.name) <= 63 && object.metadata.name.matches('^[a-z0-9-]+$')
      message: names are DNS labels
""",
        actions="[Audit]",
    )
)


def params() -> str:
    registries = "pytorch/,ghcr.io/,docker.io/,registry.,busybox:,python:"
    found = []
    for namespace in bench.NAMESPACES:
        strict = "  labels: {memory-policy: strict}\n" if namespace.endswith(("0", "2", "4")) else ""
        found.append(
            f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {namespace}\n{strict}---\n"
            f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: registries\n  namespace: {namespace}\n"
            f'data:\n  registries: "{registries}"\n---\n'
        )
    return "".join(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000, help="TrainJobs (default 1000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement; the best counts (default 5)")
    parser.add_argument("--seed", type=int, default=bench.SEED)
    parser.add_argument("--trainc", help="trainc executable (default: the one beside this Python, else PATH)")
    parser.add_argument("--keep", action="store_true", help="keep the generated directory and print its path")
    options = parser.parse_args()
    trainc = bench.trainc_command(options.trainc)
    work = Path(tempfile.mkdtemp(prefix="trainc-bench-policies-"))
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    try:
        inputs, policies = work / "inputs", work / "policies"
        bench.generate(inputs, options.jobs, options.seed)
        policies.mkdir()
        (policies / "policies.yaml").write_text(POLICIES)
        (policies / "params.yaml").write_text(params())
        plain = [*trainc, "build", str(inputs)]
        checked = [*trainc, "build", "--policies", str(policies), str(inputs)]
        _, _, first = bench.run(checked, env)
        if first.stdout != bench.run(plain, env)[2].stdout:
            sys.exit("the policies changed the output")
        warnings = first.stderr.count("warning: ")
        notices = first.stderr.count(": audit: ")
        best = bench.interleaved({"none": plain, "policies": checked}, options.repeat, env)
        print(
            f"trainc build with 5 ValidatingAdmissionPolicies: {options.jobs} TrainJobs (seed {options.seed}); "
            f"best of {options.repeat}, {os.cpu_count()} CPUs"
        )
        print(f"{'step':<44} {'wall':>10} {'CPU':>10}")
        print(bench.row(f"trainc build, {options.jobs} TrainJobs", best["none"], options.jobs))
        print(bench.row("  with --policies (5 policies)", best["policies"], options.jobs))
        print(f"  ({warnings} Warn and {notices} Audit verdicts printed)")
        print(bench.ratio("policies / none (wall)", best["policies"][0] / best["none"][0], 1.5))
        print(bench.ratio("policies / none (CPU)", best["policies"][1] / best["none"][1], 1.5))
    finally:
        if options.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
