"""One table of kinds (k8s/identity.py): the scope that decides who gets a namespace (k8s/namespaced.py), the
resource and scope admission policies match on (policy/vap.py), and the identity an update replaces agree."""

from __future__ import annotations

import pytest
import yaml
from conftest import SHARED, need

from trainc.k8s import identity, namespaced

CRDS = SHARED / "oracle" / "crds"
# the kinds the two tables once disagreed on, each cluster-scoped upstream
CLUSTER_KINDS = [
    ("kueue.x-k8s.io/v1alpha1", "Cohort", "cohorts"),
    ("scheduling.volcano.sh/v1beta1", "Queue", "queues"),
    ("kueue.x-k8s.io/v1alpha1", "Topology", "topologies"),
    ("kueue.x-k8s.io/v1beta1", "AdmissionCheck", "admissionchecks"),
    ("kueue.x-k8s.io/v1beta1", "MultiKueueCluster", "multikueueclusters"),
    ("kueue.x-k8s.io/v1beta1", "ProvisioningRequestConfig", "provisioningrequestconfigs"),
]


def _object(api_version: str, kind: str, **metadata) -> dict:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x", **metadata}}


@pytest.mark.parametrize(("api_version", "kind", "resource"), CLUSTER_KINDS)
def test_a_cluster_scoped_kind_is_one_on_every_route(api_version, kind, resource):
    obj = _object(api_version, kind)
    group = api_version.rpartition("/")[0]
    assert not namespaced.takes_namespace(obj)  # build gives it no namespace
    assert identity.Resources().of(group, kind) == (resource, True)  # a policy matches it as cluster-scoped
    assert identity.identity(_object(api_version, kind, namespace="team-a"), "default") == (group, kind, "", "x")


def test_a_namespaced_kind_and_an_unknown_one_take_the_namespace():
    assert namespaced.takes_namespace(_object("kueue.x-k8s.io/v1beta1", "LocalQueue"))
    assert identity.identity(_object("v1", "ConfigMap"), "team-a") == ("", "ConfigMap", "team-a", "x")
    assert identity.Resources().of("example.com", "Widget") == ("widgets", False)  # as a RESTMapper guesses
    assert namespaced.takes_namespace(_object("example.com/v1", "Widget"))


def test_the_table_agrees_with_every_upstream_crd():
    """Plural and scope of each CRD of the validation oracle (unmodified upstream CRDs) are the table's."""
    need(CRDS.is_dir(), f"the upstream CRDs ({CRDS}) are not beside this checkout")
    crds = [
        crd
        for path in sorted(CRDS.glob("*.yaml"))
        for crd in yaml.load_all(path.read_text(), yaml.CSafeLoader)
        if crd and crd.get("kind") == "CustomResourceDefinition"
    ]
    assert len(crds) >= 15
    for crd in crds:
        spec = crd["spec"]
        key = (spec["group"], spec["names"]["kind"])
        assert identity.KINDS.get(key) == (spec["names"]["plural"], spec["scope"] == "Cluster"), key


def test_crds_among_the_inputs_add_their_kinds():
    crd = {
        "kind": "CustomResourceDefinition",
        "spec": {"group": "example.com", "scope": "Cluster", "names": {"kind": "Widget", "plural": "widgetz"}},
    }
    assert identity.Resources([crd]).of("example.com", "Widget") == ("widgetz", True)
