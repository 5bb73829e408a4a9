"""The whole-stack handle the resilience tests get from the ``stack`` fixture (conftest.py)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path

from okeyplatform.auth import issue_token
from okeytools.embedded import EmbeddedNats, EmbeddedPostgres
from okeytools.stack import Stack


@dataclass
class ResilienceStack:
    stack: Stack
    postgres: EmbeddedPostgres
    nats: EmbeddedNats
    log_dir: Path

    @property
    def database_url(self) -> str:
        return self.postgres.url

    @property
    def nats_url(self) -> str:
        return self.nats.url

    @property
    def gateway(self) -> str:
        return self.stack.address("gateway")

    @property
    def http(self) -> str:
        return f"http://{self.stack.http_address}"

    def address(self, name: str) -> str:
        return self.stack.address(name)

    @staticmethod
    def token(subject: str | None = None, role: str = "player") -> str:
        return issue_token(subject or f"res-{uuid.uuid4().hex[:8]}", role)

    def ensure_up(self) -> None:
        if not self.postgres.running:
            self.postgres.start()
        if not self.nats.running:
            self.nats.start()
        for name in self.stack.services:
            if not self.stack.procs[name].running:
                self.stack.stop_one(name)  # closes the old log handle
                self.stack.start_one(name)

    def log_tail(self, name: str, limit: int = 3000) -> str:
        path = self.log_dir / f"{name}.log"
        try:
            return path.read_text(errors="replace")[-limit:]
        except OSError:
            return ""
