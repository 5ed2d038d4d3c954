"""`trainc build` prints the whole app: other documents as their original text, in kubectl-apply order."""

from __future__ import annotations

import json
import shutil
import subprocess

import yaml
from conftest import GOLDEN, need
from helpers import run, trainjob, write

from helpers import build
from trainc.output.manifests import dump
from trainc.errors import InputErrors
from trainc.formats import source, yamltext


def objects(stream: str) -> list:
    return [data for _, data in source.load_text(stream, "out")]


def identities(stream: str) -> list:
    return [(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in objects(stream)]


def manifest(kind: str, name: str, namespace: str | None = None, api_version: str = "v1", extra: str = "") -> str:
    where = f"\n  namespace: {namespace}" if namespace else ""
    return f"apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}{where}\n{extra}"


# One of each rank: kustomize's legacy order puts them in this order, the rendered JobSet after the
# rest, and webhooks last.
APP = {
    "webhook.yaml": manifest("ValidatingWebhookConfiguration", "guard", api_version="admissionregistration.k8s.io/v1"),
    "queue.yaml": manifest("LocalQueue", "q", "team-a", "kueue.x-k8s.io/v1beta2", "spec:\n  clusterQueue: cq\n"),
    "deploy.yaml": manifest("Deployment", "board", "team-a", "apps/v1"),
    "pvc.yaml": manifest("PersistentVolumeClaim", "data", "team-a"),
    "svc.yaml": manifest("Service", "board", "team-a"),
    "cms.yaml": manifest("ConfigMap", "b", "team-a") + "---\n" + manifest("ConfigMap", "a", "team-a"),
    "secret.yaml": manifest("Secret", "token", "team-a"),
    "sa.yaml": manifest("ServiceAccount", "trainer", "team-a"),
    "crd.yaml": manifest("CustomResourceDefinition", "things.example.com", api_version="apiextensions.k8s.io/v1"),
    "ns.yaml": manifest("Namespace", "team-a"),
    "job.yaml": trainjob(),
}
ORDER = [
    ("Namespace", "", "team-a"),
    ("CustomResourceDefinition", "", "things.example.com"),
    ("ServiceAccount", "team-a", "trainer"),
    ("ConfigMap", "team-a", "a"),
    ("ConfigMap", "team-a", "b"),
    ("Secret", "team-a", "token"),
    ("Service", "team-a", "board"),
    ("PersistentVolumeClaim", "team-a", "data"),
    ("Deployment", "team-a", "board"),
    ("LocalQueue", "team-a", "q"),
    ("JobSet", "team-a", "demo"),
    ("ValidatingWebhookConfiguration", "", "guard"),
]


def test_order_is_kustomizes_legacy_order_whatever_the_file_order(tmp_path):
    for name, text in APP.items():
        write(tmp_path, name, text)
    forward = run("build", *APP, cwd=tmp_path)
    backward = run("build", *reversed(APP), cwd=tmp_path)
    assert forward.returncode == 0, forward.stderr
    assert identities(forward.stdout) == ORDER
    assert backward.stdout == forward.stdout


def test_order_matches_kubectl_kustomize(tmp_path):
    """kustomize (v5, in kubectl) reads the stream and orders it the same way (the rendered JobSet aside)."""
    need(shutil.which("kubectl") is not None, "kubectl (with kustomize) is not installed")
    for name, text in APP.items():
        write(tmp_path, name, text)
    built = run("build", *APP, cwd=tmp_path)
    write(tmp_path, "k/all.yaml", built.stdout)
    write(tmp_path, "k/kustomization.yaml", "resources:\n- all.yaml\n")
    result = subprocess.run(["kubectl", "kustomize", str(tmp_path / "k")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    theirs = [identity for identity in identities(result.stdout) if identity[0] != "JobSet"]
    assert theirs == [identity for identity in ORDER if identity[0] != "JobSet"]


TRICKY = (
    "%YAML 1.1\n---\n"
    + manifest("ConfigMap", "directive", "team-a")  # directives: written from data
    + "--- # a comment on the marker\n"
    + manifest("ConfigMap", "marker-comment", "team-a", extra="data:\n  on: yes\n")
    + "--- {apiVersion: v1, kind: ConfigMap, metadata: {name: on-marker, namespace: team-a}}\n"
    + "...\n---\n"
    + manifest("ConfigMap", "crlf", "team-a", extra="data:\n  n: 0644\n").replace("\n", "\r\n")
    + "---\n"
    + manifest("ConfigMap", "no-newline", "team-a").rstrip("\n")
)


def test_original_text_is_kept_and_reads_back_as_the_same_objects(tmp_path):
    write(tmp_path, "tricky.yaml", TRICKY)
    write(tmp_path, "job.yaml", trainjob())
    result = run("build", "tricky.yaml", "job.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    read = {o["metadata"]["name"]: o for o in objects(result.stdout)}
    for _, data in source.load_text(TRICKY, "tricky.yaml"):
        assert read[data["metadata"]["name"]] == data
    assert "--- # a comment on the marker" not in result.stdout and "# a comment on the marker\n" in result.stdout
    assert "%YAML" not in result.stdout
    assert len(list(yaml.safe_load_all(result.stdout))) == 6  # libyaml reads the stream too


def test_kubectl_reads_the_passed_through_text(tmp_path):
    """kubectl's reader (go-yaml, through kustomize) finds the same objects in the stream."""
    need(shutil.which("kubectl") is not None, "kubectl (with kustomize) is not installed")
    write(tmp_path, "tricky.yaml", TRICKY)
    write(tmp_path, "job.yaml", trainjob())
    write(tmp_path, "k/all.yaml", run("build", "tricky.yaml", "job.yaml", cwd=tmp_path).stdout)
    write(tmp_path, "k/kustomization.yaml", "resources:\n- all.yaml\n")
    result = subprocess.run(["kubectl", "kustomize", str(tmp_path / "k")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert sorted(name for _, _, name in identities(result.stdout)) == [
        "crlf",
        "demo",
        "directive",
        "marker-comment",
        "no-newline",
        "on-marker",
    ]


def test_trainer_only_is_the_rendered_objects_alone(tmp_path):
    write(tmp_path, "app.yaml", manifest("ConfigMap", "x", "team-a") + "---\n" + trainjob())
    result = run("build", "--trainer-only", "app.yaml", cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == dump(build([str(tmp_path / "app.yaml")]).documents())


def test_runtimes_pass_through_only_when_asked(tmp_path):
    runtime = (GOLDEN / "audit-jobset-passthrough-defaults" / "runtime.yaml").read_text()
    job = (GOLDEN / "audit-jobset-passthrough-defaults" / "trainjob.yaml").read_text()
    write(tmp_path, "runtime.yaml", runtime)
    write(tmp_path, "job.yaml", job)

    def kinds(*args):
        return [o["kind"] for o in objects(run("build", *args, "job.yaml", cwd=tmp_path).stdout)]

    assert kinds("runtime.yaml") == ["JobSet"]
    assert kinds("--runtimes", "runtime.yaml", "--include-runtimes") == ["JobSet"]  # --runtimes: never
    assert kinds("runtime.yaml", "--include-runtimes") == ["ClusterTrainingRuntime", "JobSet"]
    listed = json.loads(
        run("build", "-o", "json", "--include-runtimes", "runtime.yaml", "job.yaml", cwd=tmp_path).stdout
    )
    assert listed["items"][0] == yaml.safe_load(runtime)  # as written, not as defaulted for the compiler


def test_uncompiled_trainer_kind_passes_through_with_a_notice(tmp_path):
    case = GOLDEN / "passthrough-optimizationjob" / "trainjob.yaml"
    result = run("build", str(case))
    assert result.returncode == 0, result.stderr
    assert result.stdout == (GOLDEN / "passthrough-optimizationjob" / "expected.out.yaml").read_text()
    assert result.stderr == (
        f"notice: {case}: trainer.kubeflow.org/v1alpha1 OptimizationJob team-a/lr-search: trainc does not compile "
        "this Trainer kind; passed through unchanged\n"
    )
    only = run("build", "--trainer-only", str(case))
    assert "OptimizationJob" not in only.stdout and "not output (--trainer-only)" in only.stderr


def test_duplicate_objects_are_refused_in_any_file_order(tmp_path):
    write(tmp_path, "a.yaml", manifest("ConfigMap", "x", "team-a"))
    write(tmp_path, "b.yaml", "# again\n" + manifest("ConfigMap", "x", "team-a", api_version="v1"))
    write(tmp_path, "job.yaml", trainjob())
    line = "b.yaml:5:9: metadata.name: ConfigMap team-a/x is defined twice (first in a.yaml:4:9)\n"
    for order in (("a.yaml", "b.yaml"), ("b.yaml", "a.yaml")):
        result = run("build", *order, "job.yaml", cwd=tmp_path)
        assert (result.returncode, result.stdout, result.stderr) == (1, "", line)


def test_an_object_the_build_renders_too_is_refused(tmp_path):
    write(tmp_path, "app.yaml", trainjob() + "---\n" + manifest("JobSet", "demo", "team-a", "jobset.x-k8s.io/v1alpha2"))
    result = run("build", "app.yaml", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "app.yaml:15:9: metadata.name: JobSet team-a/demo is also rendered for TrainJob team-a/demo\n"
    )


def test_objects_kubectl_apply_cannot_take_are_refused_positioned(tmp_path):
    write(tmp_path, "app.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: x-\n---\nfoo: bar\n")
    result = run("build", "app.yaml", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        "app.yaml:4:3: metadata.name: required for kubectl apply: a non-empty string",
        "app.yaml:6:1: apiVersion: required for kubectl apply: a non-empty string",
    ]


def test_json_output_is_a_kubectl_list(tmp_path):
    write(
        tmp_path,
        "app.yaml",
        manifest("ConfigMap", "x", "team-a", extra='data:\n  html: "<b>&</b>"\n  r: "0.5"\n') + "---\n" + trainjob(),
    )
    result = run("build", "-o", "json", "app.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    assert list(listed) == ["apiVersion", "items", "kind", "metadata"]
    assert (listed["apiVersion"], listed["kind"], listed["metadata"]) == ("v1", "List", {"resourceVersion": ""})
    assert listed["items"] == objects(run("build", "app.yaml", cwd=tmp_path).stdout)
    assert result.stdout.startswith('{\n    "apiVersion": "v1",\n    "items": [\n        {\n')
    assert '"html": "\\u003cb\\u003e\\u0026\\u003c/b\\u003e"' in result.stdout and result.stdout.endswith("}\n")


def test_json_numbers_are_written_as_go_writes_them():
    from trainc.formats.jsonlist import _float

    assert [_float(v) for v in (0.5, 1e-7, 1.5e-7, 1e20, 1e21, 123456789.125, -3e-5)] == [
        "0.5",
        "1e-7",
        "1.5e-7",
        "100000000000000000000",
        "1e+21",
        "123456789.125",
        "-0.00003",
    ]


def test_o_is_the_output_format(tmp_path):
    write(tmp_path, "job.yaml", trainjob())
    result = run("build", "job.yaml", "-o", "rendered", cwd=tmp_path)
    assert result.returncode == 2 and not (tmp_path / "rendered").exists()
    assert "-o is the output format (yaml|json); use --output-dir DIR to write files" in result.stderr
    both = run("build", "job.yaml", "-o", "json", "--output-dir", "out", cwd=tmp_path)
    assert both.returncode == 2 and not (tmp_path / "out").exists()


def test_no_documents_is_an_error_unless_allowed(tmp_path):
    (tmp_path / "none").mkdir()
    write(tmp_path, "blank/a.yaml", "# nothing yet\n")
    write(tmp_path, "blank/b.yaml", "---\n")
    advice = (
        "an empty render would make a GitOps sync prune everything the app deployed; pass --allow-empty if "
        "the app is meant to be empty\n"
    )
    for path, found in (("none", "no *.yaml, *.yml or *.json files in none"), ("blank", "no documents in blank")):
        result = run("build", path, cwd=tmp_path)
        assert (result.returncode, result.stdout, result.stderr) == (1, "", f"Error: {found}: {advice}")
        allowed = run("build", "--allow-empty", path, cwd=tmp_path)
        assert (allowed.returncode, allowed.stdout, allowed.stderr) == (0, "", "")


def test_documents_without_objects_are_not_empty(tmp_path):
    """A MultiKueue-only app renders nothing, yet has documents: its emptiness is meant, not a wrong path."""
    result = run("build", str(GOLDEN / "kueue-multikueue" / "trainjob.yaml"))
    assert (result.returncode, result.stdout) == (0, "")


def test_ttl_jobsets_get_the_gitops_notice():
    result = run(
        "build",
        *(
            str(p)
            for p in sorted((GOLDEN / "kueue-runtime-suspend-overwritten").glob("*.yaml"))
            if not p.name.endswith(".out.yaml")
        ),
    )
    assert result.returncode == 0, result.stderr
    notices = [line for line in result.stderr.splitlines() if "ttlSecondsAfterFinished" in line]
    assert len(notices) == 1 and "deletes itself 30s after it finishes" in notices[0]
    assert "creates it again and the training runs again" in notices[0]
    assert notices[0].endswith("see docs/routes/ci.md#self-deleting-jobsets-under-gitops")  # a docs page


def test_document_spans_number_documents_as_load_text():
    text = "# head\n---\na: 1\n# tail\n---\n\n---\nb: 2\n"
    spans = yamltext.document_spans(text)
    assert [text[start:end] for start, end in spans] == ["# head\n---\na: 1\n# tail\n", "---\n\n", "---\nb: 2\n"]
    assert [origin.index for origin, _ in source.load_text(text, "x")] == [0, 2]


def test_a_file_of_many_documents_is_cut_once_however_many_pass_through(tmp_path, monkeypatch):
    """2000 ConfigMaps in one file pass through as written, each its own document of the text: the file is cut into
    its documents once (cutting it again for each was quadratic), and each keeps its comment."""
    from trainc.formats import blockyaml

    text = "".join(
        f"---\n# config {i}\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\n" for i in range(2000)
    )
    write(tmp_path, "many.yaml", text)
    cuts = []
    real = blockyaml.spans
    monkeypatch.setattr(blockyaml, "spans", lambda text: cuts.append(len(text)) or real(text))
    out = build([str(tmp_path / "many.yaml")], runtime_paths=()).manifests.yaml()
    assert cuts == [len(text)] and out.count("kind: ConfigMap") == 2000 and "# config 1999\n" in out


def test_select_reports_every_bad_object_at_once(tmp_path):
    write(tmp_path, "a.yaml", "kind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\n")
    try:
        build([str(tmp_path / "a.yaml")], runtime_paths=())  # the run's output step is select
    except InputErrors as errors:
        assert [e.render().partition(": ")[2] for e in errors.errors] == [
            "apiVersion: required for kubectl apply: a non-empty string",
            "metadata: required for kubectl apply: a mapping with the object's name",
        ]
    else:
        raise AssertionError("select accepted objects without apiVersion or metadata")
