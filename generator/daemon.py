"""``opgen daemon``: a resident renderer that ``opgen generate`` and ``opgen docs`` hand their run to.

A fresh ``opgen`` process spends about 0.2 s before it renders anything (the interpreter, pydantic and
the spec model, Jinja, markdown-it, the emitters). A daemon started once with ``opgen daemon start``
keeps them loaded: a later ``opgen generate`` (or ``docs``, with or without ``--check``) connects to
it, the daemon runs the command line's own code (:func:`generator.cli.main`: same lock, same outputs,
same messages) in the caller's working folder with the caller's ``OPGEN_*`` variables and umask, and
the caller prints the daemon's output and exits with its status. After one spec edit on a 1,000-spec
catalogue that is about 0.16-0.24 s instead of 0.30-0.41 s, 0.26-0.35 s instead of 0.48-0.58 s on a slower
machine (``python -m benchmarks.bench_generate``).

Staying correct:

* One daemon per generator checkout and Python environment (the socket's name hashes the generator
  folder, ``sys.prefix`` and the interpreter), so another checkout or virtualenv never reaches it.
* Before every run the daemon fingerprints its generator code, templates and library versions (the
  generator key of :mod:`generator.generate`); when anything changed since it started (an edit, a
  ``git pull``, an upgrade) it answers "stale" and exits, and the caller runs in-process.
* Any failure to reach it (no daemon, a stale socket, a crash mid-run, ``OPGEN_DAEMON=0``, not a POSIX
  system) makes the caller run in-process: the daemon only ever makes a run faster.
* The socket lives in a private folder (``$XDG_RUNTIME_DIR/opgen`` or ``<tmp>/opgen-<uid>``, mode 0700,
  owned by the user; ``OPGEN_DAEMON_DIR`` overrides it) and the daemon answers only its own user
  (``SO_PEERCRED``). It exits after ``--idle`` seconds without a request (default 1800).

This module imports only the standard library until the daemon itself starts: the client side runs
at the start of every ``opgen generate``.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import socket
import struct
import sys
import time
from pathlib import Path

PROTOCOL = 1
IDLE_DEFAULT = 1800.0  # seconds without a request before the daemon exits
MAX_IDLE = 7 * 86400.0
_MAX_REQUEST = 1 << 20
_MAX_SOCKET_PATH = 100  # bytes (sun_path holds 104-108 with its terminator, depending on the system)
_GENERATOR = Path(__file__).resolve().parent


class DaemonError(Exception):
    """A daemon command that cannot be carried out (message for the user)."""


# ---------------------------------------------------------------------------------------------
# Where the socket is


# The daemon's command (``python -c _BOOT GENERATOR IDLE FD``): this generator package, wherever the
# caller found it (an install, an editable install, a checkout on PYTHONPATH or in the working folder).
_BOOT = (
    "import importlib.util, os, sys\n"
    "spec = importlib.util.find_spec('generator')\n"
    "if spec is None or os.path.dirname(spec.origin or '') != sys.argv[1]:\n"
    "    sys.path.insert(0, os.path.dirname(sys.argv[1]))\n"
    "from generator import daemon\n"
    "sys.exit(daemon.serve(float(sys.argv[2]), int(sys.argv[3]), sys.argv[1]))\n"
)


def _private_dir(create: bool) -> str | None:
    """The folder of the sockets: private to the user (0700, owned, not a link); None when unsafe or
    (without ``create``) missing."""
    base = os.environ.get("OPGEN_DAEMON_DIR", "").strip()
    if not base:
        runtime = os.environ.get("XDG_RUNTIME_DIR", "").strip()
        if runtime and os.path.isdir(runtime):
            base = os.path.join(runtime, "opgen")
        else:
            import tempfile

            base = os.path.join(tempfile.gettempdir(), f"opgen-{os.getuid()}")
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(base, 0o700)
    try:
        st = os.lstat(base)
    except OSError:
        return None
    if not (st.st_mode & 0o170000 == 0o040000 and st.st_uid == os.getuid() and st.st_mode & 0o077 == 0):
        if create:
            raise DaemonError(f"{base} is not a private folder of this user (mode 0700, owned, not a link)")
        return None
    return base


def _name() -> str:
    """The socket's base name: this generator, this environment, this interpreter."""
    ident = f"{PROTOCOL}\0{_GENERATOR}\0{sys.prefix}\0{os.path.realpath(sys.executable)}"
    return hashlib.sha256(ident.encode()).hexdigest()[:16]


def socket_path(create: bool = False) -> str | None:
    """The daemon's socket for this generator and environment (None where it cannot be)."""
    if not hasattr(socket, "AF_UNIX") or not hasattr(os, "getuid"):
        return None
    folder = _private_dir(create)
    return None if folder is None else os.path.join(folder, _name() + ".sock")


# ---------------------------------------------------------------------------------------------
# Client side


def _exchange(path: str, request: dict, connect_timeout: float = 2.0) -> dict | None:
    """Send ``request``, return the reply; None when no daemon answers there."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(connect_timeout)
        try:
            sock.connect(path)
        except OSError:
            return None
        sock.settimeout(None)  # a run may take long (or wait for another run's lock)
        try:
            sock.sendall(json.dumps(request).encode() + b"\n")
            sock.shutdown(socket.SHUT_WR)
            chunks = []
            while True:
                chunk = sock.recv(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            return None
    try:
        reply = json.loads(b"".join(chunks))
    except ValueError:
        return None
    return reply if isinstance(reply, dict) else None


def _ask(request: dict) -> dict | None:
    """This generator's daemon's reply to ``request`` (None: no daemon, or no answer in this protocol)."""
    path = socket_path()
    if path is None or not os.path.exists(path):
        return None
    reply = _exchange(path, {"protocol": PROTOCOL, **request})
    return reply if reply is not None and reply.get("protocol") == PROTOCOL else None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def forward(specs: Path, out: Path, *, check: bool, only: str | None, verbose: bool) -> int | None:
    """Run ``opgen generate`` in the daemon when one serves this generator: its exit status, after
    printing its output; None when there is none (or it cannot take the run): run in-process."""
    if os.environ.get("OPGEN_DAEMON", "").strip() == "0":
        return None
    try:
        cwd = os.getcwd()
    except OSError:  # the working folder is gone: the in-process run says what that means
        return None
    request = {
        "command": "generate",
        "generator": str(_GENERATOR),
        "prefix": sys.prefix,
        "specs": os.path.abspath(specs),
        "out": os.path.abspath(out),
        "check": bool(check),
        "only": only,
        "verbose": bool(verbose),
        "cwd": cwd,
        "env": {k: v for k, v in os.environ.items() if k.startswith("OPGEN_")},
        "umask": _umask(),
    }
    reply = _ask(request)
    if reply is not None and reply.get("stale"):
        print("opgen: the daemon has stopped (the generator changed since it started); running here", file=sys.stderr)
        return None
    if reply is None or not isinstance(reply.get("status"), int):
        return None  # no daemon, a dead one, another generator's, or a crash: nothing was promised
    sys.stdout.write(reply.get("stdout", ""))
    sys.stdout.flush()
    sys.stderr.write(reply.get("stderr", ""))
    return reply["status"]


def status() -> dict | None:
    """The running daemon's description (pid, started, requests, idle), or None."""
    return _ask({"command": "status"})


def stop() -> bool:
    """Ask the running daemon to exit; whether one did."""
    reply = _ask({"command": "stop"})
    if reply is None:
        return False
    for _ in range(200):  # until it has released its socket (at most about 2 s)
        if not os.path.exists(reply["socket"]):
            break
        time.sleep(0.01)
    return True


def start(idle: float | None = None, timeout: float = 120.0) -> dict:
    """Start a daemon in the background (unless one runs) and wait until it serves: its status. ``idle``:
    seconds without a run before it exits (default ``IDLE_DEFAULT``)."""
    import subprocess

    idle = IDLE_DEFAULT if idle is None else idle
    if not 0 < idle <= MAX_IDLE:  # (also NaN)
        raise DaemonError(f"--idle must be a number of seconds in (0, {MAX_IDLE:g}], got {idle:g}")
    running = status()
    if running is not None:
        return {**running, "already": True}
    path = socket_path(create=True)
    if path is None:
        raise DaemonError("this system has no Unix sockets: opgen runs in-process only")
    if len(os.fsencode(path)) > _MAX_SOCKET_PATH:
        raise DaemonError(
            f"the socket path {path} is too long for a Unix socket: set OPGEN_DAEMON_DIR to a shorter folder"
        )
    read_end, write_end = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", _BOOT, str(_GENERATOR), str(idle), str(write_end)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write_end,),
            start_new_session=True,  # not in the caller's terminal session: Ctrl-C there leaves it running
            cwd="/",
        )
    finally:
        os.close(write_end)
    message = b""
    deadline = time.monotonic() + timeout
    with os.fdopen(read_end, "rb") as pipe:
        import select

        while time.monotonic() < deadline:
            ready, _, _ = select.select([pipe], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(pipe.fileno(), 4096)
            if not chunk:
                break
            message += chunk
    text = message.decode(errors="replace").strip()
    if text != "ready":
        if not text:
            try:
                text = f"it exited with status {proc.wait(timeout=1)} before serving"
            except subprocess.TimeoutExpired:
                proc.kill()
                text = f"no answer within {timeout:g} s"
        raise DaemonError(f"the daemon did not start: {text}")
    running = status()
    if running is None:
        raise DaemonError("the daemon started but does not answer")
    return running


# ---------------------------------------------------------------------------------------------
# Server side


class _Server:
    def __init__(self, idle: float):
        from generator import cli, generate

        self.cli, self.generate = cli, generate
        self.idle = idle
        self.started = time.time()
        self.requests = 0
        self.last_run = time.monotonic()  # (serving counts as one)
        self.key, self.known, self.trust = self._code_key({}, 0)
        _warm(generate)

    def _code_key(self, known: dict, trust: int) -> tuple[str, dict, int]:
        """The generator key (code, templates, library versions) and the fingerprints it read; the
        next look trusts stamps recorded before now (the file system's clock, read from a marker)."""
        marker = socket_path() + ".mark"
        with open(marker, "w") as handle:
            handle.write(str(os.getpid()))
        now = os.stat(marker).st_ctime_ns
        key, files = self.generate._generator_key(None, known, trust)
        return key, files, now

    def current(self) -> bool:
        """Whether the generator on disk is still the one this daemon loaded."""
        key, self.known, self.trust = self._code_key(self.known, self.trust)
        return key == self.key

    def describe(self) -> dict:
        return {
            "protocol": PROTOCOL,
            "pid": os.getpid(),
            "started": self.started,
            "requests": self.requests,
            "idle": self.idle,
            "socket": socket_path(),
            "generator": str(_GENERATOR),
            "python": sys.executable,
        }

    def run(self, request: dict) -> dict:
        """One ``opgen generate`` in the caller's folder, variables and umask; its output and status."""
        saved_env = {k: v for k, v in os.environ.items() if k.startswith("OPGEN_")}
        saved_cwd = os.getcwd()
        saved_umask = os.umask(int(request["umask"]) & 0o777)
        out, err = io.StringIO(), io.StringIO()
        try:
            for k in saved_env:
                del os.environ[k]
            os.environ.update({str(k): str(v) for k, v in request["env"].items() if str(k).startswith("OPGEN_")})
            os.chdir(request["cwd"])
            os.environ["OPGEN_DAEMON"] = "0"  # the run is this process's own
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = self.cli.main(_argv(request))  # the command line's own error handling too
                except SystemExit as exc:  # argparse
                    code = exc.code if isinstance(exc.code, int) else 1
                except Exception:  # noqa: BLE001 - reported to the caller as the in-process run would
                    import traceback

                    traceback.print_exc()
                    code = 1
        except OSError as exc:  # e.g. the caller's folder is gone
            err.write(f"opgen generate: {exc}\n")
            code = 1
        finally:
            os.umask(saved_umask)
            with contextlib.suppress(OSError):
                os.chdir(saved_cwd)
            for k in [k for k in os.environ if k.startswith("OPGEN_")]:
                del os.environ[k]
            os.environ.update(saved_env)
        return {"protocol": PROTOCOL, "status": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


class _Terminated(BaseException):
    """SIGTERM: leave the loop (not an ``Exception``: no handler on the way catches it)."""


def _warm(generate) -> None:
    """Load now what a run loads on first use: what rendering imports (``generate._preload``), what the
    example machinery, the schema and the commit import, every template compiled, the Markdown and MathML
    converters built."""
    import multiprocessing  # noqa: F401
    import subprocess  # noqa: F401

    import numpy  # noqa: F401
    import orjson  # noqa: F401

    import generator.kernels._common  # noqa: F401
    import generator.schema  # noqa: F401
    from generator.emit import site

    generate._preload()
    env = generate.environment()
    for name in env.list_templates(extensions=["j2"]):
        env.get_template(name)
    site.to_html("# warm\n\n*text* `code`\n\n| a |\n|---|\n| b |\n")
    site.mathml("x^{2}")


def _same_user(conn: socket.socket) -> bool:
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:  # the private folder is the only guard there
        return True
    pid, uid, gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return uid == os.getuid()


def _read_request(conn: socket.socket) -> dict | None:
    data = b""
    while b"\n" not in data and len(data) <= _MAX_REQUEST:
        chunk = conn.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    try:
        request = json.loads(data.split(b"\n", 1)[0])
    except ValueError:
        return None
    return request if isinstance(request, dict) and request.get("protocol") == PROTOCOL else None


def _argv(request: dict) -> list[str]:
    """The ``opgen`` command line of a generate request (built from its checked fields only)."""
    argv = [
        "docs" if request["only"] == "docs" else "generate",
        f"--specs={request['specs']}",
        f"--out={request['out']}",
    ]
    return argv + ["--check"] * request["check"] + ["--verbose"] * request["verbose"]


def _valid_generate(request: dict) -> bool:
    fields = {"specs": str, "out": str, "cwd": str, "env": dict, "umask": int, "check": bool, "verbose": bool}
    fields.update(generator=str, prefix=str)
    if not all(isinstance(request.get(k), t) for k, t in fields.items()):
        return False
    return request.get("only") in (None, "docs")


def _answer(server: _Server, conn: socket.socket) -> tuple[dict | None, bool]:
    """The reply to one connection (None: none) and whether the daemon leaves after it."""
    request = _read_request(conn) if _same_user(conn) else None
    command = None if request is None else request.get("command")
    if command == "status":
        return server.describe(), False
    if command == "stop":
        return server.describe(), True
    if command == "generate" and _valid_generate(request):
        if request["generator"] != str(_GENERATOR) or request["prefix"] != sys.prefix:
            return {"protocol": PROTOCOL, "other": True}, False  # another generator's socket name: not ours
        if not server.current():  # the generator changed on disk: the caller runs the new one
            return {"protocol": PROTOCOL, "stale": True}, True
        server.requests += 1
        try:
            return server.run(request), False
        finally:
            server.last_run = time.monotonic()
    return None, False


def serve(idle: float, ready_fd: int, generator: str) -> int:
    """The daemon's main loop (see ``_BOOT``): take the lock, bind the socket, write ``ready`` to ``FD``,
    then answer requests one at a time until idle, stopped or stale."""
    import fcntl

    ready = os.fdopen(ready_fd, "w")
    try:
        if str(_GENERATOR) != generator:
            raise DaemonError(f"this interpreter imports the generator from {_GENERATOR}, not {generator}")
        path = socket_path(create=True)
        if path is None:
            raise DaemonError("no private folder for the socket")
        lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DaemonError("another daemon is starting or running for this generator") from None
        server = _Server(idle)
        with contextlib.suppress(FileNotFoundError):
            if os.path.exists(path) and not os.path.islink(path):
                os.unlink(path)  # a socket left by a daemon that died (its lock is ours now)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(path)
        sock.listen(16)
    except Exception as exc:  # noqa: BLE001 - told to the starting command, which reports it
        ready.write(f"{exc}\n")
        ready.close()
        return 1
    ready.write("ready\n")
    ready.close()

    def terminate(signum, frame):
        raise _Terminated  # through a run too (which stops as an interrupted command would), then cleans up

    import signal

    signal.signal(signal.SIGTERM, terminate)
    server.last_run = time.monotonic()  # idle time counts from now
    try:
        while True:
            # Idle time counts from the last run (status and stop requests do not keep it alive).
            left = server.last_run + idle - time.monotonic()
            if left <= 0:
                return 0  # idle: nobody needs it any more
            sock.settimeout(left)
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(30)  # a caller that sends nothing (or reads nothing) cannot hold the daemon
                try:
                    reply, leave = _answer(server, conn)
                except Exception:  # noqa: BLE001 - a bad request: no answer, the caller runs in-process
                    continue
                if reply is not None:
                    with contextlib.suppress(OSError):
                        conn.sendall(json.dumps(reply).encode())
                if leave:
                    return 0
    except _Terminated:
        return 0
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)  # ours: the lock is held until the process exits
        with contextlib.suppress(OSError):
            os.unlink(path + ".mark")
        sock.close()
