"""Issue 43.2: a client nobody here wrote. The TypeScript example of docs/api.md, on code that
``buf generate`` makes with ``@bufbuild/protoc-gen-es`` v2 from protos/, runs in Node 20 with
``@connectrpc/connect-node`` over Connect (JSON) and gRPC-Web (binary) against the whole stack:
it signs in as a guest, opens a table with bots, reads a refusal's reason from its ErrorInfo,
draws, discards and watches until a bot has moved. ``buf curl --protocol connect`` and
``--protocol grpcweb`` make the same unary calls."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from google.rpc import error_details_pb2
from okeycore.options import OPTION_SPECS
from okeytools.stack import Stack
from tools_setup import buf_tool, connect_es

ROOT = Path(__file__).resolve().parents[2]
API_DOC = ROOT / "docs" / "api.md"
ERROR_DETAILS = Path(error_details_pb2.__file__).with_name("error_details.proto")
BUF_GEN = """version: v2
plugins:
  - local: protoc-gen-es
    out: gen
    opt: [target=ts, import_extension=js]
"""
TSCONFIG = {
    "compilerOptions": {
        "target": "es2022",
        "module": "nodenext",
        "moduleResolution": "nodenext",
        "strict": True,
        "skipLibCheck": True,
        "types": ["node"],
        "outDir": "out",
    },
    "include": ["play.ts", "gen/**/*.ts"],
}


def example() -> str:
    """The worked example of docs/api.md: the ``ts`` block after ``<!-- example: play.ts -->``."""
    text = API_DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- example: play\.ts -->\s*```ts\n(.*?)```", text, re.S)
    assert found, "docs/api.md has no <!-- example: play.ts --> block"
    return found.group(1)


@pytest.fixture(scope="module")
def services(make_module_stack: Callable[..., Stack]) -> Stack:
    env = {"OKEY_TIMEOUT_GRACE_MS": "300", "OKEY_RATE_LIMIT": "1000", "OKEY_RATE_BURST": "1000"}
    return make_module_stack(("table", "lobby", "bots", "gateway"), env=env, label="generated", private_nats=True)


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 120) -> str:
    got = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert got.returncode == 0, f"{' '.join(cmd)}: {got.stdout}\n{got.stderr}"
    return got.stdout


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A TypeScript project as a client team would have it: generated code, the example, built."""
    tools = connect_es()
    work = tmp_path_factory.mktemp("ts-client")
    (work / "node_modules").symlink_to(tools / "node_modules", target_is_directory=True)
    (work / "package.json").write_text('{"type": "module"}\n')
    (work / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    (work / "buf.gen.yaml").write_text(BUF_GEN)
    googleapis = work / "googleapis" / "google" / "rpc"
    googleapis.mkdir(parents=True)
    shutil.copy(ERROR_DETAILS, googleapis / "error_details.proto")
    (work / "play.ts").write_text(example())
    env = {**os.environ, "PATH": f"{tools / 'node_modules' / '.bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    buf = buf_tool()
    _run([buf, "generate", str(ROOT / "protos")], work, env)
    _run([buf, "generate", "googleapis", "--path", "googleapis/google/rpc/error_details.proto"], work, env)
    assert (work / "gen" / "okey" / "v1" / "table_service_pb.ts").exists()
    _run([str(tools / "node_modules" / ".bin" / "tsc"), "-p", "."], work, env, timeout=240)
    return work


@pytest.mark.parametrize("protocol", ["connect", "grpcweb"])
def test_the_typescript_example_plays_a_turn_with_a_generated_client(
    services: Stack, client: Path, protocol: str
) -> None:
    env = {**os.environ, "OKEY_URL": f"http://{services.http_address}", "OKEY_PROTOCOL": protocol}
    out = _run(["node", "out/play.js"], client, env, timeout=120)
    result = json.loads(out.strip().splitlines()[-1])
    assert result["refusal"] in ("MUST_DRAW_FIRST", "ALREADY_DREW"), result  # read from the ErrorInfo
    assert result["drew"] is True
    assert result["botMoved"] != result["seat"] and result["move"] in ("tileDrawn", "tileDiscarded"), result


def _curl(services: Stack, protocol: str, method: str, data: dict[str, object], token: str = "") -> dict[str, object]:
    cmd = [buf_tool(), "curl", "--schema", str(ROOT / "protos"), "--protocol", protocol, "--data", json.dumps(data)]
    if token:
        cmd += ["-H", f"Authorization: Bearer {token}"]
    got = subprocess.run(
        [*cmd, f"http://{services.http_address}/okey.v1.{method}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if got.returncode != 0:
        return {"error": json.loads(got.stderr[got.stderr.index("{") :])}
    return dict(json.loads(got.stdout))


@pytest.mark.parametrize("protocol", ["connect", "grpcweb"])
def test_buf_curl_makes_the_same_calls(services: Stack, protocol: str) -> None:
    guest = _curl(services, protocol, "LobbyService/SignInGuest", {"displayName": f"Curl {protocol}"})
    token = str(guest["token"])
    assert token and guest["refreshToken"], guest
    opened = _curl(
        services, protocol, "LobbyService/OpenTable", {"options": {"game": "GAME_OKEY"}, "fillWithBots": True}, token
    )
    table = dict(opened["table"])  # type: ignore[call-overload]
    seat = int(opened.get("seat", 0))  # type: ignore[call-overload]
    view = _curl(services, protocol, "TableService/GetView", {"tableId": table["tableId"], "seat": seat}, token)
    assert view["view"]["tableId"] == table["tableId"]  # type: ignore[index]
    # a move for a seat that is not ours: refused with its reason in the ErrorInfo
    other = {"tableId": table["tableId"], "seat": (seat + 1) % 4, "commandId": "curl-1", "draw": {}}
    refused = _curl(services, protocol, "TableService/Act", other, token)
    error = dict(refused["error"])  # type: ignore[call-overload]
    assert error["code"] == "permission_denied", error
    [detail] = error["details"]
    assert detail["type"] == "google.rpc.ErrorInfo", detail
    value = detail["value"]
    info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))
    assert info.reason == "NOT_YOUR_SEAT" and info.domain == "okey.v1"
    # no token: unauthenticated, in the protocol's shape
    anonymous = _curl(services, protocol, "TableService/Act", other)
    assert dict(anonymous["error"])["code"] == "unauthenticated", anonymous  # type: ignore[call-overload]
    # ... but the rules' option spec needs none (docs/api.md, "Table options")
    spec = _curl(services, protocol, "TableService/GetOptionSpec", {})
    assert [o["name"] for o in spec["options"]] == [s.name for s in OPTION_SPECS], spec  # type: ignore[attr-defined]
