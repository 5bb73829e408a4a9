"""Generate the Python code for protos/okey/v1 (run ``python -m okeytools.protogen``), and keep
the API's compatibility baseline (``python -m okeytools.protogen --baseline``).

The baseline, ``protos/baseline.binpb``, is a committed buf image of the published API: the tests
run ``buf breaking`` against it, so a breaking change fails them until the baseline is updated on
purpose. ``--baseline`` refreshes it after compatible additions and refuses a breaking change;
``--baseline --accept-breaking`` records one deliberately."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROTOS = ROOT / "protos"
OUT = ROOT / "libs" / "okeyproto"
BASELINE = PROTOS / "baseline.binpb"
TOOLS = ROOT / ".tools"


BUF_PACKAGE = "@bufbuild/buf@1"


def buf_path() -> str | None:
    """The buf CLI when it is here: on PATH, else npm's (@bufbuild/buf) in .tools/; None when neither."""
    found = shutil.which("buf")
    if found:
        return found
    local = TOOLS / "node_modules" / ".bin" / "buf"
    return str(local) if local.exists() else None


def install_buf(timeout_s: float = 600) -> None:
    """npm's @bufbuild/buf into .tools/ (the tests' setup does this before their first test)."""
    TOOLS.mkdir(exist_ok=True)
    subprocess.run(
        ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(TOOLS), BUF_PACKAGE],
        check=True,
        timeout=timeout_s,
    )


def buf() -> str:
    """The buf CLI (:func:`buf_path`), installed from npm first when it is missing."""
    found = buf_path()
    if found is None:
        install_buf()
        found = buf_path()
        if found is None:
            raise FileNotFoundError(f"npm installed {BUF_PACKAGE} into {TOOLS}, but there is no buf in it")
    return found


def breaking(protos: Path = PROTOS, against: Path = BASELINE) -> subprocess.CompletedProcess[str]:
    """``buf breaking`` of the protos in ``protos`` against the image ``against``."""
    if not against.exists():
        raise FileNotFoundError(f"{against} is missing: run `python -m okeytools.protogen --baseline` and commit it")
    return subprocess.run(
        [buf(), "breaking", str(protos), "--against", str(against)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def write_baseline(accept_breaking: bool = False, out: Path = BASELINE) -> None:
    """Build the protos into the baseline image; refuses a breaking change unless ``accept_breaking``."""
    if out.exists() and not accept_breaking:
        got = breaking(against=out)
        if got.returncode != 0:
            raise SystemExit(
                "the protos break the baseline (below); fix them, or record the break on purpose with "
                "`python -m okeytools.protogen --baseline --accept-breaking`\n" + got.stdout + got.stderr
            )
    subprocess.run([buf(), "build", str(PROTOS), "--exclude-source-info", "-o", str(out)], check=True, timeout=300)


def generate(out: Path = OUT) -> list[Path]:
    """Run protoc (from grpcio-tools) over every proto file; returns the files written."""
    import grpc_tools
    from grpc_tools import protoc

    include = Path(grpc_tools.__file__).parent / "_proto"
    files = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    out.mkdir(parents=True, exist_ok=True)
    args = [
        "protoc",
        f"-I{PROTOS}",
        f"-I{include}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *files,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed: " + " ".join(args))
    for pkg in {Path(f).parent for f in files}:
        for part in [pkg, *pkg.parents]:
            if str(part) != ".":
                init = out / part / "__init__.py"
                if not init.exists():
                    init.write_text("")
    return sorted(p for p in out.rglob("*") if p.is_file() and p.suffix in (".py", ".pyi"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m okeytools.protogen", description="Generate libs/okeyproto, or update the API baseline."
    )
    parser.add_argument("--baseline", action="store_true", help="write protos/baseline.binpb instead of the code")
    parser.add_argument(
        "--accept-breaking", action="store_true", help="with --baseline: record a breaking change on purpose"
    )
    args = parser.parse_args(argv)
    if args.accept_breaking and not args.baseline:
        parser.error("--accept-breaking goes with --baseline")
    if args.baseline:
        write_baseline(accept_breaking=args.accept_breaking)
        print(BASELINE.relative_to(ROOT))
        return 0
    for path in generate():
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
