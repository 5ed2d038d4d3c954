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
import checks  # noqa: E402  (checks.py beside it: the five policies, their params and Namespaces)


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
        (policies / "policies.yaml").write_text(checks.POLICIES)
        (policies / "params.yaml").write_text(checks.params(bench.NAMESPACES))
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
