"""A service process runs with the collector tuned for a long-lived service: the thresholds of
``okeyplatform.aioloop.GC_THRESHOLDS`` and its code frozen out of the collector's way. Checked
in a process of its own, started the way every service starts (``run_service``), so the test
process's collector is left as it is."""

from __future__ import annotations

import json
import subprocess
import sys

from okeyplatform.aioloop import GC_THRESHOLDS

_PROBE = """
import gc, json, sys
from okeyplatform.host import run_service

def make():
    print(json.dumps({"threshold": gc.get_threshold(), "frozen": gc.get_freeze_count()}), flush=True)
    raise OSError("probe done")  # run_service reports it and returns 2, as for a port in use

sys.exit(run_service("probe", make))
"""


def test_a_service_process_runs_with_the_tuned_collector_and_its_code_frozen() -> None:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert tuple(seen["threshold"]) == GC_THRESHOLDS != (700, 10, 10)
    assert seen["frozen"] > 10_000  # the modules, classes and functions imported before the loop
