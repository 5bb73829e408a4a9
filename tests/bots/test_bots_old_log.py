"""The bots on a stream written before the protobuf contract: every message of the recorded old
log calls the same seats it called when the bots kept their own table of event names and seat
fields (bc48906's ``_SEAT_FIELD``, kept here as the reference), and so does the new envelope of
the same stored event."""

from __future__ import annotations

import json
from typing import Any

from okeyplatform.contract import decode_envelope, encode_envelope, nats_headers
from old_log import messages, stored

from services.bots.app import seats_to_consider

# bc48906's services/bots/app.py, as it decided whom an event calls.
_OLD_SEAT_FIELD = {
    "TileDiscarded": "next_seat",
    "TileDrawn": "seat",
    "TurnTimedOut": "seat",
    "TurnedToOkey": "seat",
    "PairsDeclared": "seat",
    "IndicatorShown": "seat",
    "PenaltyApplied": "seat",
    "AutopilotEnded": "seat",
    "TileReturned": "seat",
    "MeldsOpened": "seat",
    "TileAdded": "seat",
    "OkeyTaken": "seat",
}


def _old_seats_to_consider(event: dict[str, Any]) -> tuple[list[int], bool]:
    kind = event.get("type")
    if kind == "HandStarted":
        starter = event.get("starter")
        return ([starter] if isinstance(starter, int) else []), True
    name = _OLD_SEAT_FIELD.get(str(kind))
    if name is None:
        return [], False
    seat = event.get(name)
    return ([seat] if isinstance(seat, int) and seat >= 0 else []), False


def test_the_bots_call_the_same_seats_from_an_old_json_stream_and_from_the_new_envelope() -> None:
    old = messages()
    log = stored()
    assert len(old) == len(log) > 200
    called = 0
    for msg, st in zip(old, log, strict=True):
        want = _old_seats_to_consider(json.loads(msg.data)["event"])
        assert "Content-Type" not in msg.headers  # as that relay published it
        assert seats_to_consider(decode_envelope(msg.data, msg.headers)) == want, msg.data[:120]
        assert seats_to_consider(decode_envelope(encode_envelope(st), nats_headers(st))) == want
        called += bool(want[0])
    assert called > 200  # the log's turns, timeouts and 101 openings all call a seat
    kinds = {json.loads(m.data)["event"]["type"] for m in old}
    assert {"TurnTimedOut", "AutopilotEnded", "MeldsOpened", "TileAdded", "HandStarted"} <= kinds
