"""Generate the Python code for protos/okey/v1 (run ``python -m okeytools.protogen``)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROTOS = ROOT / "protos"
OUT = ROOT / "libs" / "okeyproto"


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


if __name__ == "__main__":
    for path in generate():
        print(path.relative_to(ROOT))
    sys.exit(0)
