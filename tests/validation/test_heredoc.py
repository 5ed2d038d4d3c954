"""The unquoted-heredoc lint: which heredocs bash expands, and the warning validate and build print."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner
from conftest import GOLDEN, need
from helpers import environment, has_torch, status_of

from trainc import authoring
from trainc.cli import cli
from trainc.validation.heredoc import expanded_heredocs


@pytest.mark.parametrize(
    ("script", "found"),
    [
        ("cat <<EOM\necho $HOME\nEOM\n", [(1, "EOM", 2)]),
        ("\nread -r -d '' SCRIPT << EOM\n\nprint(`id`)\nEOM\nprintf '%s' \"$SCRIPT\"", [(2, "EOM", 4)]),
        ("cat <<-EOM\n\tok\n\t$x\n\tEOM\n$after", [(1, "EOM", 3)]),
        ("cat <<EOM\nno expansion here\nEOM\n$after", []),
        ("cat <<'EOM'\n$HOME\nEOM\n", []),
        ('cat <<"EOM"\n$HOME\nEOM\n', []),
        ("cat <<\\EOM\n$HOME\nEOM\n", []),
        ("cat <<E'O'M\n$HOME\nEOM\n", []),
        ("cat <<<$HOME", []),
        ("cat <<A <<'B'\n$a\nA\n$b\nB\n", [(1, "A", 2)]),
        ("cat <<'B' <<A\n$b\nB\n$a\nA\n", [(1, "A", 4)]),
        ("cat <<'PY'\nx = 1 << shift\n$y\nshift\nPY\n", []),  # a quoted body is not shell: no operator in it counts
        ("cat <<EOM\n$unterminated", [(1, "EOM", 2)]),
    ],
)
def test_expanded_heredocs(script, found):
    assert expanded_heredocs(script) == found


def test_validate_and_build_warn_about_the_sdk_heredoc():
    """The SDK's TrainJob: a warning at the backtick's position inside the double-quoted scalar (escapes and
    folding undone), exit 0, and build's output unchanged."""
    case = GOLDEN / "sdk-torch-yaml-image"
    warning = (
        f"warning: {case}/trainjob.yaml:16:14: spec.trainer.command[2]: $ or a backtick in an unquoted "
        "heredoc (<<EOM, opened at 14:31), which bash expands before the code runs; quote the delimiter "
        "(<<'EOM') to keep the code as written"
    )
    result = CliRunner().invoke(cli, ["validate", str(case / "trainjob.yaml")])
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [warning, "valid: 1 TrainJob, 0 runtimes"]
    result = CliRunner().invoke(cli, ["build", str(case / "trainjob.yaml")])
    assert result.exit_code == 0
    assert result.stdout == (case / "expected.out.yaml").read_text()
    assert warning in result.stderr.splitlines()


def train():
    print("$HOME `id`")


def test_authored_trainjobs_do_not_warn(tmp_path):
    (tmp_path / "job.yaml").write_text(authoring.to_yaml(authoring.custom_trainer(train, name="clean")))
    result = CliRunner().invoke(cli, ["validate", str(tmp_path / "job.yaml")])
    assert result.exit_code == 0
    assert result.stderr == "valid: 1 TrainJob, 0 runtimes\n"


def test_bash_does_rewrite_the_sdk_heredoc(tmp_path):
    """What the warning says, shown with `trainc run` on the SDK's own TrainJob: bash stops at a backtick in the
    code, the script file comes out empty, and torchrun runs that: the job completes having trained nothing."""
    need(has_torch(), "torch not installed (pip install torch==2.13.0)")
    job = GOLDEN / "sdk-torch-yaml-image" / "trainjob.yaml"  # not the expected output beside it
    result = subprocess.run(
        [sys.executable, "-m", "trainc", "run", str(job)],
        capture_output=True,
        text=True,
        env=environment(),
        cwd=tmp_path,
        timeout=120,
    )
    assert result.stderr.startswith("warning: ")
    assert 'ddp-cpu-node-0-0 | bash: line 2: bad substitution: no closing "`" in `")' in result.stdout
    assert (tmp_path / "sdk-generate.py").read_text() == ""
    assert "epoch 0" not in result.stdout
    assert result.returncode == 0
    assert status_of(result.stdout)["conditions"][0]["type"] == "Complete"


BLOCK_JOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: block
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    command:
      - bash
      - -c
      - {style}
        read -r -d '' SCRIPT << EOM

        def train():
            print("start")

            print(f"home: $HOME")
        EOM
        python -c "$SCRIPT"
"""


@pytest.mark.parametrize(
    ("style", "position"),
    [
        ("|", "18:27: spec.trainer.command[2]: $ or a backtick in an unquoted heredoc (<<EOM, opened at 13:30)"),
        ("|-", "18:27: spec.trainer.command[2]: $ or a backtick in an unquoted heredoc (<<EOM, opened at 13:30)"),
        (">", "18:27: spec.trainer.command[2]: $ or a backtick in an unquoted heredoc (<<EOM, opened at 13:30)"),
        (">+", "18:27: spec.trainer.command[2]: $ or a backtick in an unquoted heredoc (<<EOM, opened at 13:30)"),
    ],
)
def test_warning_points_into_a_block_scalar(tmp_path, style, position):
    """The issue's case: a block scalar at 12:9, the `$` on the file's line 18, not "12:9 ... its line 5"."""
    (tmp_path / "job.yaml").write_text(BLOCK_JOB.format(style=style))
    result = CliRunner().invoke(cli, ["validate", "--format", "github", str(tmp_path / "job.yaml")])
    assert result.exit_code == 0, result.output
    assert f"warning: {tmp_path}/job.yaml:{position}" in result.stderr
    line, column = position.split(":")[:2]
    assert f"::warning file={tmp_path}/job.yaml,line={line},col={column}::" in result.stdout


@pytest.mark.parametrize(
    "scalar",
    [
        '"cat <<EOM\\n  \\\\\n  x $HOME\\nEOM"',  # escapes and an escaped line break
        "'cat <<EOM\n\n      x $HOME''s\n\n      EOM'",  # folding: the empty lines are the newlines
        "cat <<EOM\n\n      x $HOME\n\n      EOM",  # plain, folded the same way
    ],
)
def test_positions_inside_flow_scalars_are_the_files(tmp_path, scalar):
    from trainc.formats import position, source

    text = f"a:\n  b:\n    - {scalar}\n"
    ((origin, document),) = source.load_text(text, "f.yaml")
    value = document["a"]["b"][0]
    found = position.in_value(origin, ("a", "b", 0), value, value.index("$"))
    lines = text.split("\n")
    assert lines[found[0] - 1][found[1] - 1 :].startswith("$HOME"), (value, found)
    assert position.in_value(origin, ("a", "b", 0), value + "x", 0) is None  # another string: not mapped


def test_the_unquoted_one_of_two_heredocs_on_a_line_is_named(tmp_path):
    text = BLOCK_JOB.format(style="|").split("      - |\n")[0] + (
        "      - |\n        cat <<'A' <<B\n        quoted $x\n        A\n        open $y\n        B\n"
    )
    (tmp_path / "job.yaml").write_text(text)
    result = CliRunner().invoke(cli, ["validate", str(tmp_path / "job.yaml")])
    assert result.stderr.startswith(
        f"warning: {tmp_path}/job.yaml:16:14: spec.trainer.command[2]: $ or a backtick in "
        "an unquoted heredoc (<<B, opened at 13:19)"
    )


@pytest.mark.parametrize("indicator", ["|", "|-", "|+", ">", ">-", ">+"])
def test_every_character_of_a_block_scalar_maps_to_itself(indicator):
    """Folded and literal blocks with leading and inner empty lines, more-indented and blank-led lines."""
    from trainc.formats import position, source

    body = [
        "",
        "    first words",
        "    second line",
        "",
        "",
        "      more indented",
        "    back",
        "   ",
        "    last $x",
        "",
    ]
    text = f"a:\n  b: {indicator}\n" + "\n".join(body) + "\nc: 1\n"
    ((origin, document),) = source.load_text(text, "f.yaml")
    value = document["a"]["b"]
    lines = text.split("\n")
    for offset, char in enumerate(value.rstrip("\n")):  # (the breaks chomping keeps at the end are not mapped)
        line, column = position.in_value(origin, ("a", "b"), value, offset)
        if char not in " \n":
            assert lines[line - 1][column - 1] == char, (offset, value)


def test_text_not_mapped_falls_back_to_the_field(tmp_path):
    (tmp_path / "job.yaml").write_bytes(BLOCK_JOB.format(style="|").replace("\n", "\r\n").encode())
    result = CliRunner().invoke(cli, ["validate", str(tmp_path / "job.yaml")])
    assert result.stderr.startswith(
        f"warning: {tmp_path}/job.yaml:12:9: spec.trainer.command[2]: line 1 opens an "
        "unquoted heredoc (<<EOM) and its line 6 holds $"
    )
