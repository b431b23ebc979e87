"""`opgen daemon`: runs handed to a resident renderer give the in-process run's output and status; any
doubt (a changed generator, a dead daemon, an unsafe socket folder, OPGEN_DAEMON=0) means in-process.

Each test runs a private copy of the generator (its own socket name) with its own socket folder, so a
developer's daemon is never involved and no daemon outlives its test."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.test_generate import tree

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="Unix sockets only")


class Tool:
    """``opgen`` from a copy of the generator, with a private socket folder."""

    def __init__(self, root: Path):
        self.root = root
        shutil.copytree(REPO / "generator", root / "generator", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "templates", root / "templates", ignore=shutil.ignore_patterns("__pycache__"))
        # short, whatever the temporary folder's path: a socket's path holds at most about 100 bytes
        self.sockets = Path(tempfile.mkdtemp(prefix="opgen-test-", dir="/tmp" if os.path.isdir("/tmp") else None))
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("OPGEN_")}
        self.env.update(PYTHONPATH=str(root), OPGEN_DAEMON_DIR=str(self.sockets))

    def __call__(self, *args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
        if args[:2] == ("daemon", "start") and "--idle" not in args:
            args = (*args, "--idle", "300")  # a daemon a failed test leaves behind goes by itself
        return subprocess.run(
            [sys.executable, "-m", "generator.cli", *args],
            capture_output=True,
            text=True,
            env={**self.env, **(env or {})},
            cwd=cwd or self.root,
            timeout=300,
        )

    def served(self) -> int | None:
        """Runs the daemon has served (None: not running)."""
        status = self("daemon", "status")
        if status.returncode == 3:
            return None
        assert status.returncode == 0, status.stderr
        return int(status.stdout.split(", ")[1].split()[0])

    def pid(self) -> int:
        return int(self("daemon", "status").stdout.split("pid ")[1].split(",")[0])

    def stop(self) -> None:
        self("daemon", "stop")


@pytest.fixture
def tool(tmp_path):
    tool = Tool(tmp_path / "tool")
    yield tool
    tool.stop()
    shutil.rmtree(tool.sockets, ignore_errors=True)


def _specs(tmp_path: Path) -> Path:
    specs = tmp_path / "specs"
    shutil.copytree(REPO / "specs", specs)
    return specs


def test_runs_through_the_daemon_give_the_in_process_output(tool, tmp_path):
    specs = _specs(tmp_path)
    started = tool("daemon", "start")
    assert started.returncode == 0, started.stderr
    assert "started" in started.stdout and tool.served() == 0
    assert "already running" in tool("daemon", "start").stdout

    via = tool("generate", "--specs", str(specs), "--out", str(tmp_path / "via"))
    assert via.returncode == 0, via.stderr
    assert tool.served() == 1  # the run was the daemon's
    alone = tool("generate", "--specs", str(specs), "--out", str(tmp_path / "alone"), env={"OPGEN_DAEMON": "0"})
    assert alone.returncode == 0, alone.stderr
    assert tool.served() == 1  # OPGEN_DAEMON=0: in-process
    assert tree(tmp_path / "via") == tree(tmp_path / "alone")

    # one edit, then docs only, then --check: the daemon's and the in-process outputs stay identical
    spec = specs / "elu_backward.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("summary:\n  zh: ", "summary:\n  zh: 修改 ", 1), "utf-8")
    for extra in ([], ["--check"]):
        for out, env in (("via", {}), ("alone", {"OPGEN_DAEMON": "0"})):
            run = tool("generate", *extra, "--specs", str(specs), "--out", str(tmp_path / out), env=env)
            assert run.returncode == 0, run.stderr
    assert tree(tmp_path / "via") == tree(tmp_path / "alone")
    assert "修改" in (tmp_path / "via" / "docs" / "README.md").read_text(encoding="utf-8")
    assert tool.served() == 3

    # relative paths are the caller's, and so is the output: the same text as in-process
    (tmp_path / "via" / "docs" / "README.md").write_text("hand edit\n", encoding="utf-8")
    checks = [
        tool("docs", "--check", "--specs", "specs", "--out", "via", cwd=tmp_path, env=env)
        for env in ({}, {"OPGEN_DAEMON": "0"})
    ]
    assert [c.returncode for c in checks] == [1, 1]
    assert checks[0].stderr == checks[1].stderr and "stale: via/docs/README.md" in checks[0].stderr
    assert tool.served() == 4

    assert tool("daemon", "stop").stdout.strip() == "opgen daemon: stopped"
    assert tool.served() is None and not list(tool.sockets.glob("*.sock"))
    assert tool("daemon", "stop").stdout.strip() == "opgen daemon: not running"


def test_spec_errors_come_back_with_the_in_process_text_and_status(tool, tmp_path):
    specs = _specs(tmp_path)
    spec = specs / "elu_backward.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("snake: elu_backward", "snake: 7elu"), "utf-8")
    assert tool("daemon", "start").returncode == 0
    runs = [
        tool("generate", "--specs", "specs", "--out", "out", cwd=tmp_path, env=env)
        for env in ({}, {"OPGEN_DAEMON": "0"})
    ]
    assert tool.served() == 1
    assert [r.returncode for r in runs] == [1, 1]
    assert runs[0].stderr == runs[1].stderr
    assert runs[0].stderr.startswith("specs/elu_backward.yaml:") and "snake" in runs[0].stderr
    assert not (tmp_path / "out").exists()  # nothing half-written, by either


def test_a_changed_generator_is_never_served_stale(tool, tmp_path):
    specs = _specs(tmp_path)
    assert tool("daemon", "start").returncode == 0
    assert tool("generate", "--specs", str(specs), "--out", str(tmp_path / "out")).returncode == 0
    assert tool.served() == 1
    template = tool.root / "templates" / "docs" / "index.md.j2"
    template.write_text(template.read_text(encoding="utf-8") + "\n<!-- changed -->\n", encoding="utf-8")
    run = tool("generate", "--specs", str(specs), "--out", str(tmp_path / "out"))
    assert run.returncode == 0, run.stderr
    assert "the daemon has stopped (the generator changed" in run.stderr
    assert "<!-- changed -->" in (tmp_path / "out" / "docs" / "README.md").read_text(encoding="utf-8")
    assert tool.served() is None  # it saw the change, left, and the caller rendered in-process


def test_a_dead_daemon_means_in_process_and_a_fresh_start(tool, tmp_path):
    specs = _specs(tmp_path)
    assert tool("daemon", "start").returncode == 0
    os.kill(tool.pid(), signal.SIGKILL)
    for _ in range(100):
        if tool.served() is None:
            break
        time.sleep(0.05)
    assert list(tool.sockets.glob("*.sock"))  # left behind by the killed daemon
    run = tool("generate", "--specs", str(specs), "--out", str(tmp_path / "out"))
    assert run.returncode == 0, run.stderr
    assert tool("daemon", "start").returncode == 0  # takes the stale socket's place
    assert "up to date" in tool("generate", "--specs", str(specs), "--out", str(tmp_path / "out")).stdout
    assert tool.served() == 1


def test_idle_daemon_exits_and_removes_its_socket(tool):
    assert tool("daemon", "start", "--idle", "0.5").returncode == 0
    for _ in range(100):
        if tool.served() is None:
            break
        time.sleep(0.05)
    assert tool.served() is None and not list(tool.sockets.glob("*.sock"))
    for idle in ("0", "-1", "nan", "inf"):
        bad = tool("daemon", "start", "--idle", idle)
        assert bad.returncode == 1 and "--idle must be" in bad.stderr and tool.served() is None


def test_an_unsafe_socket_folder_is_refused(tool, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    env = {"OPGEN_DAEMON_DIR": str(shared)}
    start = tool("daemon", "start", env=env)
    assert start.returncode == 1 and "not a private folder" in start.stderr
    assert tool("daemon", "status", env=env).returncode == 3
    run = tool("generate", "--specs", str(_specs(tmp_path)), "--out", str(tmp_path / "out"), env=env)
    assert run.returncode == 0, run.stderr  # no daemon there: in-process
    assert not list(shared.iterdir())


def test_sigterm_stops_the_daemon_cleanly(tool):
    assert tool("daemon", "start").returncode == 0
    os.kill(tool.pid(), signal.SIGTERM)
    for _ in range(100):
        if not list(tool.sockets.glob("*.sock")):
            break
        time.sleep(0.05)
    assert not list(tool.sockets.glob("*.sock")) and tool.served() is None


def test_a_request_from_another_generator_is_declined(tool, tmp_path):
    from generator import daemon

    assert tool("daemon", "start").returncode == 0
    [path] = tool.sockets.glob("*.sock")
    request = {
        "protocol": daemon.PROTOCOL,
        "command": "generate",
        "generator": str(REPO / "generator"),  # this checkout's, not the daemon's copy
        "prefix": sys.prefix,
        "specs": str(_specs(tmp_path)),
        "out": str(tmp_path / "out"),
        "check": False,
        "only": None,
        "verbose": False,
        "cwd": str(tmp_path),
        "env": {},
        "umask": 0o022,
    }
    assert daemon._exchange(str(path), request) == {"protocol": daemon.PROTOCOL, "other": True}
    assert not (tmp_path / "out").exists() and tool.served() == 0
    request["generator"] = str(tool.root / "generator")
    reply = daemon._exchange(str(path), request)
    assert reply["status"] == 0 and (tmp_path / "out" / "docs" / "README.md").is_file() and tool.served() == 1
    # junk is answered with nothing, and the daemon keeps serving
    assert daemon._exchange(str(path), {"protocol": daemon.PROTOCOL, "command": "generate", "specs": 1}) is None
    assert daemon._exchange(str(path), {"protocol": 99, "command": "status"}) is None
    assert tool.served() == 1


def test_a_socket_path_too_long_is_refused_clearly(tool, tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True, mode=0o700)
    deep.chmod(0o700)
    start = tool("daemon", "start", env={"OPGEN_DAEMON_DIR": str(deep)})
    assert start.returncode == 1 and "too long for a Unix socket" in start.stderr and "OPGEN_DAEMON_DIR" in start.stderr
    run = tool(
        "generate",
        "--specs",
        str(_specs(tmp_path)),
        "--out",
        str(tmp_path / "out"),
        env={"OPGEN_DAEMON_DIR": str(deep)},
    )
    assert run.returncode == 0, run.stderr
