"""Structured logs: structlog, JSON lines outside a terminal, key-value pairs in one.

One rule for every line a process writes, decided here (:func:`json_logs`): our structlog lines,
and everything that goes through the standard ``logging`` module (uvicorn's own lines, asyncio,
grpc, the embedded servers' wrappers), warnings and an uncaught exception, all in the same format
[issue 41.3]."""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import structlog
from opentelemetry import trace

__all__ = ["configure_logging", "get_logger", "add_trace_ids", "json_logs", "fatal"]

_configured = False


def json_logs(stream: Any = None, environ: Mapping[str, str] | None = None) -> bool:
    """The one rule: ``OKEY_LOG_FORMAT`` (``json`` or ``console``) when set, else JSON unless the
    stream the lines go to (standard error) is a terminal."""
    env = os.environ if environ is None else environ
    fmt = env.get("OKEY_LOG_FORMAT", "").strip().lower()
    if fmt in ("json", "console"):
        return fmt == "json"
    stream = sys.stderr if stream is None else stream
    try:
        return not stream.isatty()
    except (AttributeError, ValueError):  # no stream, or a closed one: not a person's terminal
        return True


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def configure_logging(service: str, level: str | None = None, json_logs: bool | None = None) -> None:
    """Configure structlog and the standard ``logging`` module once per process, in the format
    :func:`json_logs` picks. ``OKEY_LOG_LEVEL`` and ``OKEY_LOG_FORMAT`` (``json`` or ``console``)
    override the defaults. Other libraries' lines (through ``logging``) are written from WARNING
    up (or from ``OKEY_LOG_LEVEL`` when higher), as Python would without configuration."""
    global _configured
    lvl_name = (level or os.environ.get("OKEY_LOG_LEVEL", "INFO")).upper()
    lvl = getattr(logging, lvl_name, logging.INFO)
    as_json = _rule(json_logs)
    renderer: Any = (
        structlog.processors.JSONRenderer() if as_json else structlog.dev.ConsoleRenderer(colors=_isatty(sys.stderr))
    )
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        add_trace_ids,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[
            *shared,
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(lvl),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    structlog.contextvars.bind_contextvars(service=service)
    # The standard library's loggers: the same processors and renderer, one handler on the root
    # (uvicorn is told to add none of its own, and propagates here).
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.StackInfoRenderer(),
                structlog.processors.format_exc_info,
                renderer,
            ],
        )
    )
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(max(lvl, logging.WARNING))
    logging.captureWarnings(True)  # a warning is a line of the py.warnings logger, not raw stderr
    sys.excepthook = _log_uncaught
    threading.excepthook = _log_uncaught_in_thread
    _configured = True


def _rule(given: bool | None) -> bool:
    return json_logs() if given is None else given


def _log_uncaught(kind: type[BaseException], value: BaseException, tb: Any) -> None:
    """An exception nothing caught, as one log line (its traceback in ``exception``)."""
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, value, tb)
        return
    structlog.get_logger().critical("uncaught_exception", exc_info=(kind, value, tb))


def _log_uncaught_in_thread(args: threading.ExceptHookArgs) -> None:
    if args.exc_value is None or issubclass(args.exc_type, SystemExit):
        return
    thread = args.thread.name if args.thread is not None else ""
    structlog.get_logger().critical(
        "uncaught_exception", thread=thread, exc_info=(args.exc_type, args.exc_value, args.exc_traceback)
    )


def fatal(service: str, message: str) -> None:
    """The one line a service writes when it cannot start or go on (a bad setting, a port in
    use): ``okey <service>: message`` on a terminal, a JSON line (``event`` ``fatal``) otherwise,
    by the same rule as every other line. Written at once, before or after logging is set up."""
    if json_logs():
        import json

        line = json.dumps(
            {
                "service": service,
                "error": message,
                "event": "fatal",
                "level": "error",
                "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            }
        )
    else:
        line = f"okey {service}: {message}"
    print(line, flush=True, file=sys.stderr)


def add_trace_ids(_logger: Any, _method: str, event_dict: Any) -> Any:
    """The current span's ``trace_id`` and ``span_id`` on the line, when there is a valid span
    (an incoming trace context counts even with tracing off: the line still finds its trace)."""
    sc = trace.get_current_span().get_span_context()
    if sc.is_valid:
        event_dict.setdefault("trace_id", f"{sc.trace_id:032x}")
        event_dict.setdefault("span_id", f"{sc.span_id:016x}")
    return event_dict


def get_logger(**bound: Any) -> Any:
    """A logger with ``bound`` on every line. Lazy: made before :func:`configure_logging` (at a
    module's import, say), it still writes in the configured format."""
    return structlog.get_logger(**bound)
