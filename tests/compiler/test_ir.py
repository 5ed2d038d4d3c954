"""The JobSet-tree accessors: readers never add levels to what they read; `ensure_*` creates them for writers."""

from trainc.compiler import ir


def test_readers_never_create_levels():
    rjob = {"name": "node", "template": {"spec": {}}}
    assert ir.job_spec(rjob) == {}
    assert ir.pod_template(rjob) == {}
    assert ir.pod_spec(rjob) == {}
    assert ir.containers(rjob) == []
    assert rjob == {"name": "node", "template": {"spec": {}}}


def test_readers_see_null_levels_as_empty():
    rjob = {"template": {"spec": {"template": None}}}
    assert ir.pod_spec(rjob) == {} and ir.containers(rjob) == []


def test_ensure_creates_the_missing_levels_and_returns_the_stored_dict():
    rjob = {"name": "node"}
    ir.ensure_pod_spec(rjob)["volumes"] = []
    assert rjob == {"name": "node", "template": {"spec": {"template": {"spec": {"volumes": []}}}}}
    assert ir.ensure_pod_template(rjob) is rjob["template"]["spec"]["template"]
    assert ir.pod_spec(rjob) is rjob["template"]["spec"]["template"]["spec"]
