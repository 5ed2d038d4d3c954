"""The HTML page of `summary --format html` and `diff --format html` (trainc/review/page.py) in a real headless
Chromium (Debian's `chromium`, installed by .ci/run): it loads with no console message, its DOM holds the job
table, the capacity table and the SVG charts, and it fetches nothing. Each test keeps its screenshot in its
tmp_path (`summary.png`, `diff.png`), for a look after a run (pytest's --basetemp chooses where)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from conftest import ROOT, need

from helpers import run

CASE = ("tests/cost-case/queues.yaml", "tests/cost-case/runtime.yaml", "tests/cost-case/trainjobs.yaml")
BASE = "tests/cost-case/base"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def chromium(page, tmp_path, *flags: str) -> subprocess.CompletedProcess:
    need(os.access(CHROMIUM, os.X_OK), "chromium is not installed")
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--enable-logging=stderr",
            "--v=0",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1200,2400",
            *flags,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )


def console(stderr: str) -> list[str]:
    """What the page said on its console (errors among them), as Chromium logs it to stderr."""
    return [line for line in stderr.splitlines() if "CONSOLE" in line]


def page(tmp_path, *args, name: str) -> tuple:
    result = run(*args, "--format", "html", cwd=ROOT)
    path = tmp_path / f"{name}.html"
    path.write_text(result.stdout)
    return result, path


@pytest.mark.parametrize(("command", "expected_exit"), [("summary", 0), ("diff", 1)])
def test_the_page_loads_in_chromium_with_its_tables_and_charts(tmp_path, command, expected_exit):
    result, path = page(tmp_path, command, *CASE, "--base", BASE, name=command)
    assert result.returncode == expected_exit, result.stderr
    loaded = chromium(path, tmp_path, "--dump-dom")
    assert loaded.returncode == 0, loaded.stderr
    assert console(loaded.stderr) == []
    dom = loaded.stdout
    assert '<table id="jobs">' in dom and "<code>team-a/llm</code>" in dom and "175.87 USD" in dom
    assert '<table id="capacity">' in dom and "<td>h100</td>" in dom
    assert dom.count('<svg xmlns="http://www.w3.org/2000/svg" class="chart"') == 4  # GPUs, CPU, memory, cost
    assert dom.count('class="bar"') == 2 * 4 and dom.count('class="base"') == 2 * 4
    assert '<table id="cost-delta">' in dom
    if command == "diff":
        assert '<table id="objects">' in dom and "the cluster will refuse this update" in dom
    shot = tmp_path / f"{command}.png"
    assert chromium(path, tmp_path, f"--screenshot={shot}").returncode == 0
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_a_console_error_is_seen(tmp_path):
    """The check above can fail: a page that logs an error is caught by it."""
    path = tmp_path / "bad.html"
    path.write_text("<!DOCTYPE html><html><body><script>console.error('broken chart')</script></body></html>")
    assert any("broken chart" in line for line in console(chromium(path, tmp_path, "--dump-dom").stderr))


def test_the_page_is_self_contained_and_deterministic(tmp_path):
    first = page(tmp_path, "diff", *CASE, "--base", BASE, name="first")[1].read_text()
    second = page(tmp_path, "diff", *CASE, "--base", BASE, name="second")[1].read_text()
    assert first == second
    assert not re.search(r"<script|<link|<img|<iframe|\bsrc=|@import|url\(", first)
    assert set(re.findall(r"https?://[^\"' )]+", first)) == {"http://www.w3.org/2000/svg"}  # a namespace, not fetched
