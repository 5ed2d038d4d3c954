"""Start the planned pods as process groups, as the JobSet and Job controllers would, and stop them all.

A replicated job starts once its `dependsOn` hold (`Ready`: every pod running;
`Complete`: every Job succeeded), its pods `parallelism` at a time per Job. A pod
runs its init containers in order, then its containers together (sidecars
beside them); it succeeds when every container exits 0. The JobSet is Complete
when its successPolicy holds, and Failed as soon as a pod fails (no Job retries
or JobSet restarts are replayed: a local run wants the first failure). Either way,
and on timeout or Ctrl-C, every pod still running is stopped: SIGTERM to its
process group, SIGKILL after GRACE_SECONDS, as the kubelet kills a container's cgroup.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from contextlib import suppress
from dataclasses import dataclass

from .plan import Container, Plan, Pod, inside

GRACE_SECONDS = 5.0
POLL_SECONDS = 0.1
COMPLETED = ("Completed", "AllJobsCompleted", "jobset completed successfully")
FAILED = ("Failed", "FailedJobs", "jobset failed due to one or more job failures")


@dataclass
class Outcome:
    state: str  # "Complete", "Failed", "TimedOut" or "Interrupted"
    jobset: dict  # the JobSet with the status its controller would write


class Runner:
    def __init__(self, plan: Plan, logs=None, progress=None, keep_logs: bool = False):
        self.plan = plan
        self.logs = logs or sys.stdout.buffer
        self.progress = progress or (lambda line: print(f"trainc run: {line}", file=sys.stderr, flush=True))
        self.keep_logs = keep_logs
        self.events: queue.Queue = queue.Queue()
        self.phase: dict[str, str] = {}  # pod: Pending, Running, Succeeded, Failed
        self.groups: dict[int, subprocess.Popen] = {}
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        labels = [self._label(pod, c) for job in plan.jobs for pod in job.pods for c in pod.containers]
        self.width = max(map(len, labels), default=0)

    def run(self, timeout: float | None = None) -> Outcome:
        deadline = None if timeout is None else time.monotonic() + timeout
        started: set[str] = set()
        state = "Running"
        # Ctrl-C only sets a flag the loop reads each tick: a KeyboardInterrupt raised wherever the main thread
        # happens to be (inside a queue's or a thread start's lock) could leave that lock held, and the run hung
        interrupted = threading.Event()
        main = threading.current_thread() is threading.main_thread()
        before = signal.signal(signal.SIGINT, lambda number, frame: interrupted.set()) if main else None
        try:
            while state == "Running":
                if interrupted.is_set():
                    raise KeyboardInterrupt
                self._start_ready(started)
                with suppress(queue.Empty):  # no pod changed phase in this tick: look at the state anyway
                    pod, phase, detail = self.events.get(timeout=POLL_SECONDS)
                    self.phase[pod.name] = phase
                    self.progress(f"pod {pod.name} {detail}")
                state = self._state()
                if state == "Running" and deadline is not None and time.monotonic() > deadline:
                    self.progress(f"timed out after {timeout:g}s: stopping every pod")
                    state = "TimedOut"
        except KeyboardInterrupt:  # the flag, or Ctrl-C off the main thread (its caller's)
            self.progress("interrupted: stopping every pod")
            state = "Interrupted"
        finally:
            self._stop_all()
            if main:
                signal.signal(signal.SIGINT, before)
        return Outcome(state, self._jobset(state))

    def _start_ready(self, started: set) -> None:
        for job in self.plan.jobs:
            if not all(self._holds(name, status) for name, status in job.depends_on):
                continue
            for pods in job.jobs:
                running = sum(self.phase.get(p.name) in ("Pending", "Running") for p in pods)
                for pod in pods:
                    if running >= job.parallelism:
                        break
                    if pod.name not in started:
                        started.add(pod.name)
                        self.phase[pod.name] = "Pending"
                        running += 1
                        thread = threading.Thread(target=self._run_pod, args=(pod,), daemon=True)
                        self.threads.append(thread)
                        thread.start()

    def _holds(self, name: str, status: str) -> bool:
        job = next(j for j in self.plan.jobs if j.name == name)
        wanted = ("Succeeded",) if status == "Complete" else ("Running", "Succeeded")
        return all(self.phase.get(pod.name) in wanted for pod in job.pods)

    def _state(self) -> str:
        if any(phase == "Failed" for phase in self.phase.values()):
            return "Failed"
        policy = self.plan.jobset["spec"].get("successPolicy") or {}
        targets = policy.get("targetReplicatedJobs") or [job.name for job in self.plan.jobs]
        done = [
            all(self.phase.get(p.name) == "Succeeded" for p in pods)
            for job in self.plan.jobs
            if job.name in targets
            for pods in job.jobs
        ]
        if any(done) if policy.get("operator") == "Any" else all(done):
            return "Complete"
        return "Running"

    def _run_pod(self, pod: Pod) -> None:
        try:
            self._run_containers(pod)
        except Exception as exc:  # anything: a pod thread that ends unreported leaves the run waiting forever
            self.events.put((pod, "Failed", f"could not start: {exc}"))

    def _run_containers(self, pod: Pod) -> None:
        """Init containers in order, then the rest together; report Running, then how it ended."""
        os.makedirs(pod.tmpdir, exist_ok=True)
        for directory in pod.dirs:
            os.makedirs(directory, exist_ok=True)
        for path, (content, mode) in pod.files.items():
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if not inside(os.path.realpath(os.path.dirname(path)), os.path.realpath(pod.workdir)):
                raise OSError(f"{path} leads outside the pod's directory (a symbolic link a kept run left there)")
            if os.path.lexists(path):  # a --keep directory from an earlier run: its files may be read-only
                os.unlink(path)
            with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600), "wb") as handle:
                handle.write(content)
            os.chmod(path, mode)
        sidecars = []
        for container in pod.containers:
            if container.kind == "sidecar":
                sidecars.append(self._start(pod, container))
            elif container.kind == "init":
                code = self._wait(self._start(pod, container))
                if code != 0:
                    self._finish(sidecars)
                    self.events.put((pod, "Failed", f"init container {container.name} exited {code}"))
                    return
        mains = [(container, self._start(pod, container)) for container in pod.containers if container.kind == "main"]
        if any(process is None for _, process in mains):
            self._finish([process for _, process in mains] + sidecars)
            self.events.put((pod, "Failed", "stopped before it started"))
            return
        self.events.put((pod, "Running", f"started (pid {', '.join(str(p.pid) for _, p in mains)})"))
        codes = [(container.name, self._wait(process)) for container, process in mains]
        self._finish(sidecars)
        failed = [f"{name} exited {code}" for name, code in codes if code != 0]
        self.events.put((pod, "Failed" if failed else "Succeeded", "; ".join(failed) or "succeeded (exit 0)"))

    def _start(self, pod: Pod, container: Container) -> subprocess.Popen | None:
        with self.lock:
            if self.stopping.is_set():
                return None
            # a pod's own /tmp (torchrun and pip leave files there), removed with the run's directory
            env = {**os.environ, "HOSTNAME": pod.name, "TMPDIR": pod.tmpdir, **container.env}
            process = subprocess.Popen(
                container.argv,
                cwd=container.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            self.groups[process.pid] = process
        log = None
        if self.keep_logs:  # not through a link a kept run left there (if so, the pod fails; its process is stopped)
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
            log = open(os.open(os.path.join(pod.workdir, f"{container.name}.log"), flags, 0o644), "wb")
        reader = threading.Thread(target=self._copy, args=(process, self._label(pod, container), log), daemon=True)
        self.threads.append(reader)
        reader.start()
        return process

    def _label(self, pod: Pod, container: Container) -> str:
        mains = [c for c in pod.containers if c.kind == "main"]
        return pod.name if mains == [container] else f"{pod.name}/{container.name}"

    def _copy(self, process: subprocess.Popen, label: str, log) -> None:
        prefix = f"{label:<{self.width}} | ".encode()
        for line in iter(process.stdout.readline, b""):
            if log is not None:
                log.write(line)
            with self.lock, suppress(OSError):  # stdout went away (`| head`): keep draining, so the pod never blocks
                self.logs.write(prefix + (line if line.endswith(b"\n") else line + b"\n"))
                self.logs.flush()
        process.stdout.close()
        if log is not None:
            log.close()

    def _wait(self, process: subprocess.Popen | None) -> int:
        if process is None:
            return -signal.SIGTERM
        code = process.wait()
        self._kill(process, signal.SIGKILL)  # what the container left behind goes with it
        return code

    def _finish(self, processes) -> None:
        """SIGTERM each process group, SIGKILL what is left after one grace period, and wait for each process."""
        processes = [process for process in processes if process is not None]
        for process in processes:
            self._kill(process, signal.SIGTERM)
        end = time.monotonic() + GRACE_SECONDS
        for process in processes:
            with suppress(subprocess.TimeoutExpired):  # past the grace period: killed below
                process.wait(max(0.0, end - time.monotonic()))
        for process in processes:
            self._kill(process, signal.SIGKILL)
            process.wait()

    def _kill(self, process: subprocess.Popen, sig: int) -> None:
        with suppress(ProcessLookupError, PermissionError):  # the group is gone already
            os.killpg(process.pid, sig)

    def _stop_all(self) -> None:
        """SIGTERM every process group, SIGKILL what is left after the grace period, then wait for every thread."""
        main = threading.current_thread() is threading.main_thread()
        interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None  # a second Ctrl-C waits too
        with self.lock:
            self.stopping.set()
            processes = list(self.groups.values())
        self._finish(processes)
        end = time.monotonic() + GRACE_SECONDS
        for thread in self.threads:  # a log reader waits only for a process that left its group (a daemon)
            thread.join(max(0.0, end - time.monotonic()))
        if main:
            signal.signal(signal.SIGINT, interrupt)

    def _jobset(self, state: str) -> dict:
        """The JobSet with the status its controller would report: conditions and per-job counts."""
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        status: dict = {}
        condition = {"Complete": COMPLETED, "Failed": FAILED}.get(state)
        if condition is not None:
            kind, reason, message = condition
            status["conditions"] = [
                {"type": kind, "status": "True", "lastTransitionTime": now, "reason": reason, "message": message}
            ]
        finished = condition is not None  # the JobSet controller deletes the Jobs still active
        status["replicatedJobsStatus"] = [self._counts(job, finished) for job in self.plan.jobs]
        return {**self.plan.jobset, "status": status}

    def _counts(self, job, finished: bool) -> dict:
        counts = {"name": job.name, "ready": 0, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0}
        for pods in job.jobs:
            phases = [self.phase.get(pod.name) for pod in pods]
            if "Failed" in phases:
                counts["failed"] += 1
            elif all(phase == "Succeeded" for phase in phases):
                counts["succeeded"] += 1
            elif not finished and any(phases):
                counts["active"] += 1
                counts["ready"] += all(phase in ("Running", "Succeeded") for phase in phases)
        return counts
