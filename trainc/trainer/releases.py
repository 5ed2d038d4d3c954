"""The Kubeflow Trainer releases trainc renders for: one record per release, one field per behavior that differs.

A project pins its release (`trainer-version` in `.trainc.yaml`) so that upgrading trainc never changes a
rendered object until the pin changes; the code that owns a behavior asks the run's release for its switch
(`pipeline.Context.release`; the unit's `release` for the webhook rules), so the releases differ in these fields
and nowhere else. `trainc diff --base-trainer-version` renders both and says what the upgrade does to the
objects in the cluster (docs/guides/upgrading.md).

v2.4's code is newer than the upstream revision the rest of trainc was read against (UPSTREAM-BEHAVIOR.md
§14): its fields come from the v2.4.0 release notes and the PR texts named beside each one.

A run's release is `engine.Options.trainer_version` (DEFAULT when none): it travels in the compile context, so
forked build workers render for it too, and nothing here changes while trainc runs.
"""

from __future__ import annotations

from ..errors import Record


class Release(Record):
    name: str
    # kubeflow/trainer #4029 (issue #4028): the MPI launcher also gets Open MPI 5's PRTE_MCA_* env, and those
    # names are reserved as the OMPI_MCA_* ones are.
    prte_env: bool
    # #4301 (issue #4030): the TrainJob's image also reaches the MPI node containers (command and args do not).
    image_on_mpi_nodes: bool
    # #4394: the longest runtime replicatedJobs[].name the API accepts (None: only the JobSet's own limits).
    replicated_job_name_max: int | None
    # the release note: an MPI TrainJob suspended before the upgrade cannot resume after it.
    note: str = ""


RELEASES = (
    Release("v2.3", prte_env=False, image_on_mpi_nodes=False, replicated_job_name_max=None),
    Release(
        "v2.4",
        prte_env=True,
        image_on_mpi_nodes=True,
        replicated_job_name_max=20,
        note="suspended MPI TrainJobs created before the upgrade cannot resume after it (their JobSets are "
        "immutable and would need the PRTE_MCA_* env)",
    ),
)
NAMES = tuple(release.name for release in RELEASES)
DEFAULT = RELEASES[-1]  # the newest


def named(name: str) -> Release:
    """The release called `name`; raises ValueError naming the supported ones."""
    for release in RELEASES:
        if release.name == name:
            return release
    raise ValueError(f"{name!r} is not a Kubeflow Trainer release trainc renders for (supported: {', '.join(NAMES)})")
