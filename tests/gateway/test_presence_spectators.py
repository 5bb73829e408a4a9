"""Issue 44.5, spectators on the presence board, without a network or a clock of its own: a
spectator's watch lists its table in the player's account from its first message; the board
counts a table's distinct spectators over the live replicas (a dead replica's go with it); the
wire stays as it was for players who watch nothing, and an older replica's account still reads."""

from __future__ import annotations

import json

from okey.v1 import table_service_pb2 as pb
from okeyplatform.auth import Identity
from okeyplatform.presence import Beat, Board, PlayerPresence, State, decode, encode_beats, encode_player

from services.gateway.app import Caller
from services.gateway.presence import Presence

WATCH = "/okey.v1.TableService/Watch"


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def ms(self) -> int:
        return int(self.t * 1000)

    def advance(self, seconds: float) -> None:
        self.t += seconds


def _spectator(p: Presence, player: str, table_id: str, answered: bool = True) -> object:
    """A spectator's watch (no seat) of ``player``; ``answered``: its table's first message came."""
    w = p.watch(Caller(Identity(player, "player"), "203.0.113.1"), WATCH, pb.WatchRequest(table_id=table_id))
    if answered:
        w.item(pb.WatchResponse(snapshot=pb.SeatView(table_id=table_id, version=3)).SerializeToString())
    return w


# ------------------------------------------------------------------ the wire


def test_an_account_that_watches_nothing_is_encoded_as_before_and_an_older_one_reads() -> None:
    plain = PlayerPresence("ali", State.ONLINE, at_ms=5)
    assert "watching" not in plain.to_json()  # the beat costs nothing more for those who watch none
    assert plain.encode() == b'{"player":"ali","state":"ONLINE","at_ms":5}'
    watching = PlayerPresence("ali", State.ONLINE, at_ms=5, watching=("t1", "t2"))
    assert watching.to_json()["watching"] == ["t1", "t2"]
    assert PlayerPresence.from_json(json.loads(watching.encode())) == watching
    # an older replica's account (no field) and a field that is not a list of ids
    assert PlayerPresence.from_json({"player": "ali", "state": "ONLINE", "at_ms": 5}) == plain
    odd = {"player": "ali", "state": "ONLINE", "at_ms": 5, "watching": ["t1", 3, "", "t1", None]}
    assert PlayerPresence.from_json(odd) == PlayerPresence("ali", State.ONLINE, at_ms=5, watching=("t1",))
    assert PlayerPresence.from_json({**odd, "watching": "t1"}) == plain
    subject, body = encode_player("r1", watching)
    change = decode(subject, body)
    assert change is not None and getattr(change, "presence", None) == watching
    ((subject, body),) = encode_beats("r1", 9, 1, [watching.encode()])
    beat = decode(subject, body)
    assert isinstance(beat, Beat) and beat.players == [watching]


# ------------------------------------------------------------------ the board


def test_the_board_counts_distinct_spectators_of_a_table_over_every_live_replica() -> None:
    board = Board("a", now=0)
    board.apply("a", PlayerPresence("ali", State.ONLINE, at_ms=1, watching=("t1",)), now=0)
    board.apply("b", PlayerPresence("ali", State.ONLINE, at_ms=2, watching=("t1", "t2")), now=0)  # two tabs
    board.apply_beat(Beat.of("c", 3, 1, [PlayerPresence("can", State.AT_TABLE, "t9", (("t9", 0),), 3, ("t1",))]), 0)
    assert (board.spectators("t1"), board.spectators("t2"), board.spectators("t9")) == (2, 1, 0)
    assert board.spectators("t1", excluding="ali") == 1 and board.spectators("t1", excluding="nobody") == 2
    board.apply("a", PlayerPresence("ali", State.ONLINE, at_ms=4), now=1)  # ali stops watching on a
    assert board.spectators("t1") == 2  # still watching through b
    board.apply_beat(Beat.of("b", 5, 2, []), now=1)  # b's beat lists ali no more: a change missed, mended
    assert (board.spectators("t1"), board.spectators("t2")) == (1, 0)
    board.apply_beat(Beat.of("b", 6, 3, [PlayerPresence("ayse", State.ONLINE, at_ms=6, watching=("t1",))]), now=2)
    assert board.spectators("t1") == 2
    assert board.expire(now=4.5) == ["c"]  # c unheard of for 3 s: can goes with it
    assert board.spectators("t1") == 1
    assert board.expire(now=5.5) == ["b"]
    assert board.spectators("t1") == 0 and board._spectators == {}  # nothing left behind


def test_going_offline_ends_a_players_watching_and_a_new_account_replaces_the_old() -> None:
    board = Board("a", now=0)
    board.apply("b", PlayerPresence("ali", State.ONLINE, at_ms=1, watching=("t1",)), now=0)
    board.apply("b", PlayerPresence("ali", State.AT_TABLE, "t2", (("t2", 1),), 2, ("t3",)), now=0)
    assert (board.spectators("t1"), board.spectators("t3")) == (0, 1)
    board.apply("b", PlayerPresence("ali", State.OFFLINE, at_ms=3, watching=("t3",)), now=0)
    assert board.spectators("t3") == 0


# ------------------------------------------------------------------ this replica


def test_a_spectators_watch_counts_from_its_first_message_until_its_last_one_closes() -> None:
    clock = Clock()
    p = Presence("a", None, None, clock, clock.ms)
    refused = _spectator(p, "ali", "t1", answered=False)  # the table refused it: never counted
    assert p.spectators("t1") == 0 and p.tracker.presence("ali").watching == ()
    refused.close()  # type: ignore[attr-defined]
    one = _spectator(p, "ali", "t1")
    two = _spectator(p, "ali", "t1")
    other = _spectator(p, "ayse", "t1")
    assert p.spectators("t1") == 2 and p.spectators("t1", excluding="ayse") == 1
    assert p.tracker.presence("ali").watching == ("t1",) and p.tracker.spectators() == 3
    assert p.lookup(["ali"]) == [{"playerId": "ali", "state": "ONLINE", "tableId": ""}]
    one.close()  # type: ignore[attr-defined]
    one.close()  # type: ignore[attr-defined]  # a second close is nothing
    assert p.spectators("t1") == 2
    two.close()  # type: ignore[attr-defined]
    other.close()  # type: ignore[attr-defined]
    assert p.spectators("t1") == 0 and p.tracker.spectators() == 0


def test_a_seats_watch_is_not_a_spectators_and_only_one_sees_their_own_table() -> None:
    clock = Clock()
    p = Presence("a", None, None, clock, clock.ms)
    w = p.watch(Caller(Identity("ali", "player"), "203.0.113.1"), WATCH, pb.WatchRequest(table_id="t1", seat=2))
    w.item(pb.WatchResponse(snapshot=pb.SeatView(table_id="t1", version=3, seats=[pb.SeatPublic(seat=2)])))
    _spectator(p, "ali", "t2")
    assert p.spectators("t1") == 0 and p.spectators("t2") == 1
    assert p.lookup(["ali"], asker="ali") == [{"playerId": "ali", "state": "AT_TABLE", "tableId": "t1"}]
    assert p.lookup(["ali"], asker="ayse") == [{"playerId": "ali", "state": "AT_TABLE", "tableId": ""}]
    assert p.lookup(["ali"]) == [{"playerId": "ali", "state": "AT_TABLE", "tableId": ""}]
