"""Structured logs: structlog, JSON lines outside a terminal, key-value pairs in one."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

import structlog
from opentelemetry import trace

__all__ = ["configure_logging", "get_logger", "add_trace_ids"]

_configured = False


def configure_logging(service: str, level: str | None = None, json_logs: bool | None = None) -> None:
    """Configure structlog once per process. ``OKEY_LOG_LEVEL`` and ``OKEY_LOG_FORMAT``
    (``json`` or ``console``) override the defaults."""
    global _configured
    lvl = (level or os.environ.get("OKEY_LOG_LEVEL", "INFO")).upper()
    fmt = os.environ.get("OKEY_LOG_FORMAT")
    if json_logs is None:
        json_logs = fmt == "json" if fmt else not sys.stderr.isatty()
    renderer: Any = structlog.processors.JSONRenderer() if json_logs else structlog.dev.ConsoleRenderer()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            add_trace_ids,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, lvl, logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    structlog.contextvars.bind_contextvars(service=service)
    _configured = True


def add_trace_ids(_logger: Any, _method: str, event_dict: Any) -> Any:
    """The current span's ``trace_id`` and ``span_id`` on the line, when there is a valid span
    (an incoming trace context counts even with tracing off: the line still finds its trace)."""
    sc = trace.get_current_span().get_span_context()
    if sc.is_valid:
        event_dict.setdefault("trace_id", f"{sc.trace_id:032x}")
        event_dict.setdefault("span_id", f"{sc.span_id:016x}")
    return event_dict


def get_logger(**bound: Any) -> Any:
    return structlog.get_logger().bind(**bound)
