"""A throw-away PostgreSQL cluster for tests and benchmarks (initdb + pg_ctl, ~1 s).

PostgreSQL refuses to run as root, so as root the cluster runs as the ``postgres``
user (``runuser``). ``TEST_DATABASE_URL`` (a server URL whose user may CREATE DATABASE)
skips starting one. :func:`start_cluster` raises :class:`Unavailable` with the reason
when no server can be had, so callers can skip loudly.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg


class Unavailable(RuntimeError):
    """No PostgreSQL server could be started or reached; the message says why."""


def _bin_dir() -> Path | None:
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version_key)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _version_key(path: str) -> int:
    part = Path(path).parent.parent.name
    return int(part) if part.isdigit() else 0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    url: str  # server URL (database "postgres")
    directory: Path | None = None
    _run_as: list[str] = field(default_factory=list)
    _bin: Path | None = None

    def stop(self) -> None:
        if self.directory is None or self._bin is None:
            return
        subprocess.run(
            [
                *self._run_as,
                str(self._bin / "pg_ctl"),
                "-D",
                str(self.directory / "data"),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
            capture_output=True,
            check=False,
            timeout=60,
        )
        shutil.rmtree(self.directory, ignore_errors=True)
        self.directory = None

    def database_url(self, name: str) -> str:
        return self.url.rsplit("/", 1)[0] + "/" + name

    async def new_database(self) -> str:
        """A fresh empty database on the server; returns its URL."""
        name = "t_" + uuid.uuid4().hex[:12]
        conn = await asyncpg.connect(self.url)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        return self.database_url(name)

    async def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        conn = await asyncpg.connect(self.url)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()


def start_cluster(options: str = "") -> Cluster:
    """Start a cluster on 127.0.0.1 (or use ``TEST_DATABASE_URL``); raise Unavailable.

    ``options``: more server settings (``-c name=value ...``), e.g. for a benchmark."""
    if os.environ.get("TEST_DATABASE_URL"):
        return Cluster(os.environ["TEST_DATABASE_URL"])
    bin_dir = _bin_dir()
    if bin_dir is None or not (bin_dir / "pg_ctl").exists():
        raise Unavailable(
            "no PostgreSQL server binaries (initdb/pg_ctl) found; install postgresql-15"
            " (apt-get install -y postgresql-15) or set TEST_DATABASE_URL"
        )
    run_as: list[str] = []
    directory = Path(tempfile.mkdtemp(prefix="burkozel-pg-"))
    if os.geteuid() == 0:
        # PostgreSQL refuses to run as root.
        if shutil.which("runuser") is None:
            raise Unavailable("running as root and runuser is missing to start PostgreSQL")
        try:
            shutil.chown(directory, user="postgres", group="postgres")
        except (LookupError, OSError) as exc:
            raise Unavailable(f"running as root and no usable 'postgres' user: {exc}") from None
        directory.chmod(0o700)
        run_as = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    data = directory / "data"
    commands = [
        [
            str(bin_dir / "initdb"),
            "-D",
            str(data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
            "-E",
            "UTF8",
            "--locale",
            "C",
        ],
        [
            str(bin_dir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(directory / "log"),
            "-o",
            f"-h 127.0.0.1 -p {port} -k {directory} -c fsync=off -c synchronous_commit=off"
            " -c full_page_writes=off -c max_connections=200 " + options,
            "-w",
            "-t",
            "30",
            "start",
        ],
    ]
    for command in commands:
        done = subprocess.run(
            [*run_as, *command], capture_output=True, text=True, check=False, timeout=120
        )
        if done.returncode != 0:
            log = (directory / "log").read_text() if (directory / "log").exists() else ""
            shutil.rmtree(directory, ignore_errors=True)
            raise Unavailable(
                f"{Path(command[0]).name} failed ({done.returncode}):"
                f" {(done.stderr or done.stdout).strip()[-500:]} {log[-500:]}"
            )
    return Cluster(f"postgresql://postgres@127.0.0.1:{port}/postgres", directory, run_as, bin_dir)
