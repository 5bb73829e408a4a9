"""Presence without a network or a clock of its own: one replica's tracker (states and their
expiry), the board merged from several replicas (the best state wins, a silent replica dies with
its players, a beat mends a missed change), and who tells the table a seat is vacant [D-11]."""

from __future__ import annotations

import asyncio
import json

from okey.v1 import table_service_pb2 as pb
from okeyplatform.auth import Identity
from okeyplatform.presence import (
    BEAT_CHUNK,
    Beat,
    Board,
    Change,
    PlayerPresence,
    State,
    decode,
    encode_beats,
    encode_player,
    player_subject,
)

from services.gateway.app import Caller
from services.gateway.presence import GRACE_S, Presence, Tracker


class Clock:
    """Monotonic seconds and unix ms that move only when told."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def ms(self) -> int:
        return int(self.t * 1000)

    def advance(self, seconds: float) -> None:
        self.t += seconds


def _tracker(clock: Clock) -> tuple[Tracker, list[PlayerPresence]]:
    told: list[PlayerPresence] = []
    return Tracker(told.append, clock, clock.ms), told


# ------------------------------------------------------------------ one replica's players


def test_a_call_makes_a_player_online_then_away_after_a_minute_then_offline_after_five() -> None:
    clock = Clock()
    tracker, told = _tracker(clock)
    tracker.call("ali")
    assert [(p.player, p.state) for p in told] == [("ali", State.ONLINE)]
    clock.advance(59.9)
    tracker.tick()
    tracker.call("ali")  # another call while ONLINE tells nothing new
    assert len(told) == 1
    clock.advance(60.1)
    tracker.tick()
    assert told[-1].state is State.AWAY and told[-1].at_ms == clock.ms()
    clock.advance(239.8)
    tracker.tick()
    assert told[-1].state is State.AWAY
    clock.advance(0.3)
    tracker.tick()
    assert told[-1].state is State.OFFLINE and len(tracker) == 0  # forgotten once OFFLINE
    assert tracker.held() == []


def test_an_open_stream_keeps_a_player_online_and_closing_the_last_with_no_call_is_offline() -> None:
    clock = Clock()
    tracker, told = _tracker(clock)
    one, two = tracker.opened("ayse"), tracker.opened("ayse")
    clock.advance(3600)
    tracker.tick()
    assert [p.state for p in told] == [State.ONLINE]  # an hour with streams open: still ONLINE
    tracker.closed(one)
    tracker.closed(one)  # closing twice counts once
    assert [p.state for p in told] == [State.ONLINE]
    tracker.closed(two)
    assert told[-1].state is State.OFFLINE and len(tracker) == 0


def test_closing_the_last_stream_after_a_recent_call_leaves_the_player_online_then_away() -> None:
    clock = Clock()
    tracker, told = _tracker(clock)
    stream = tracker.opened("can")
    clock.advance(30)
    tracker.call("can")
    clock.advance(10)
    tracker.closed(stream)
    assert told[-1].state is State.ONLINE
    clock.advance(49)
    tracker.tick()
    assert told[-1].state is State.ONLINE  # 59 s after the call
    clock.advance(2)
    tracker.tick()
    assert told[-1].state is State.AWAY  # 61 s after it


def test_a_watch_of_a_seat_is_at_table_from_its_first_message_and_the_latest_seat_names_the_table() -> None:
    clock = Clock()
    tracker, told = _tracker(clock)
    first = tracker.opened("deniz")
    assert told[-1].state is State.ONLINE and told[-1].seats == ()
    tracker.seated(first, "t1", 2)
    assert (told[-1].state, told[-1].table_id, told[-1].seats) == (State.AT_TABLE, "t1", (("t1", 2),))
    second = tracker.opened("deniz")
    tracker.seated(second, "t2", 0)
    assert (told[-1].table_id, told[-1].seats) == ("t2", (("t1", 2), ("t2", 0)))
    tracker.closed(second)
    assert (told[-1].state, told[-1].table_id, told[-1].seats) == (State.AT_TABLE, "t1", (("t1", 2),))
    tracker.closed(first)
    assert told[-1].state is State.OFFLINE and told[-1].seats == ()


# ------------------------------------------------------------------ the merged board


def _p(player: str, state: State, at_ms: int, *seats: tuple[str, int]) -> PlayerPresence:
    return PlayerPresence(player, state, seats[-1][0] if seats else "", tuple(seats), at_ms)


def test_the_best_state_of_every_live_replica_wins() -> None:
    board = Board("a", now=0)
    assert board.state_of("ali") == (State.OFFLINE, "")  # nobody has heard of ali
    board.apply("b", _p("ali", State.AWAY, 1), now=0)
    assert board.state_of("ali") == (State.AWAY, "")
    board.apply("c", _p("ali", State.ONLINE, 2), now=0)
    assert board.state_of("ali") == (State.ONLINE, "")
    board.apply("a", _p("ali", State.AT_TABLE, 3, ("t9", 1)), now=0)
    assert board.state_of("ali") == (State.AT_TABLE, "t9")
    board.apply("a", _p("ali", State.OFFLINE, 4), now=0)
    assert board.state_of("ali") == (State.ONLINE, "")  # c's still holds
    board.apply("d", _p("ali", State.AT_TABLE, 5, ("t7", 0)), now=0)
    board.apply("b", _p("ali", State.AT_TABLE, 6, ("t8", 0)), now=0)
    assert board.state_of("ali") == (State.AT_TABLE, "t8")  # of two AT_TABLE, the later
    assert board.live == ["a", "b", "c", "d"]


def test_a_replica_silent_for_three_seconds_is_dead_and_its_players_go_offline_with_it() -> None:
    board = Board("a", now=0)
    board.apply_beat(Beat.of("b", 5_000, 1, (_p("ali", State.ONLINE, 1), _p("can", State.AWAY, 1))), now=0)
    board.apply_beat(Beat.of("c", 5_000, 1, (_p("can", State.ONLINE, 1),)), now=0)
    assert board.state_of("ali") == (State.ONLINE, "") and board.state_of("can") == (State.ONLINE, "")
    board.apply_beat(Beat.of("c", 6_000, 2, (_p("can", State.ONLINE, 1),)), now=1.0)
    assert board.expire(now=2.9) == []
    assert board.expire(now=3.0) == ["b"]  # b's last word came at 0
    assert board.state_of("ali") == (State.OFFLINE, "")
    assert board.state_of("can") == (State.ONLINE, "")  # c holds can still
    assert board.expire(now=100.0) == ["c"]
    assert board.live == ["a"]  # a board's own replica never dies


def test_a_beat_replaces_what_the_board_held_so_a_missed_change_is_mended() -> None:
    board = Board("a", now=0)
    board.apply("b", _p("ali", State.ONLINE, 1), now=0)
    board.apply("b", _p("can", State.ONLINE, 1), now=0)
    # b's change "can OFFLINE" was lost (NATS core is at most once); its next beat lists ali only
    board.apply_beat(Beat.of("b", 2_000, 7, (_p("ali", State.AWAY, 2),)), now=1)
    assert board.state_of("can") == (State.OFFLINE, "")
    assert board.state_of("ali") == (State.AWAY, "")


def test_a_beat_in_parts_replaces_the_list_only_once_every_part_has_come() -> None:
    board = Board("a", now=0)
    board.apply("b", _p("old", State.ONLINE, 1), now=0)
    players = [_p(f"p{i}", State.ONLINE, 1) for i in range(BEAT_CHUNK + 5)]
    parts = [decode(s, body) for s, body in encode_beats("b", 9_000, 3, players)]
    assert len(parts) == 2 and all(isinstance(p, Beat) for p in parts)
    board.apply_beat(parts[0], now=1)  # type: ignore[arg-type]
    assert board.state_of("old") == (State.ONLINE, "")  # not replaced by half a list
    board.apply_beat(parts[1], now=1)  # type: ignore[arg-type]
    assert board.state_of("old") == (State.OFFLINE, "")
    assert board.state_of(f"p{BEAT_CHUNK + 4}") == (State.ONLINE, "")


def test_messages_travel_as_json_and_what_cannot_be_read_is_skipped() -> None:
    p = _p("a.b c*", State.AT_TABLE, 42, ("t1", 3))
    subject, body = encode_player("gw-1", p)
    assert subject == player_subject("a.b c*") == "okey.presence.player.a%2Eb%20c%2A"  # one token, no wildcard
    assert json.loads(body) == {
        "player": "a.b c*",
        "state": "AT_TABLE",
        "table_id": "t1",
        "seats": [["t1", 3]],
        "at_ms": 42,
        "replica": "gw-1",
    }
    assert decode(subject, body) == Change("gw-1", p)
    for bad in (b"", b"[]", b"{}", b'{"replica":"x","player":"p","state":"HAPPY","at_ms":1}', b"\xff"):
        assert decode(subject, bad) is None
    assert decode("okey.presence.replica.x", b'{"replica":"x","at_ms":1,"seq":1,"part":2,"parts":2}') is None


def test_D_11_the_last_watch_of_a_seat_closing_anywhere_makes_it_vacant_until_one_opens_again() -> None:
    board = Board("a", now=0)
    board.apply("a", _p("ali", State.AT_TABLE, 10, ("t1", 0)), now=0)
    board.apply("b", _p("ali", State.AT_TABLE, 11, ("t1", 0)), now=0)
    board.apply("a", _p("ali", State.OFFLINE, 20), now=1)
    assert board.vacancies == {}  # b still holds a watch of the seat
    board.apply("b", _p("ali", State.ONLINE, 30), now=2)
    (v,) = board.vacancies.values()
    assert (v.seat, v.player, v.holder, v.since_ms, v.seen, v.died) == (("t1", 0), "ali", "b", 30, 2, False)
    board.apply("a", _p("ali", State.AT_TABLE, 40, ("t1", 0)), now=3)
    assert board.vacancies == {}
    board.apply_beat(Beat.of("c", 50, 1, (_p("can", State.AT_TABLE, 45, ("t2", 1)),)), now=3)
    assert board.expire(now=6) == ["b", "c"]
    (v,) = board.vacancies.values()  # c died holding can's seat: vacant at once, since c's last beat
    assert (v.seat, v.holder, v.since_ms, v.died) == (("t2", 1), "c", 50, True)


# ------------------------------------------------------------------ who tells the table [D-11]


class FakeTable:
    """What a table service would be told: every ActRequest, each answered at once."""

    def __init__(self) -> None:
        self.got: list[pb.ActRequest] = []

    async def __call__(self, req: pb.ActRequest) -> pb.ActResponse:
        self.got.append(req)
        return pb.ActResponse(version=len(self.got))

    def told(self) -> list[tuple[str, int, bool, str]]:
        return [(r.table_id, r.seat, r.set_connection.connected, r.command_id) for r in self.got]


def _presence(replica: str, clock: Clock, table: FakeTable) -> Presence:
    return Presence(replica, "nats://unused", table, clock, clock.ms)


async def _settle(p: Presence) -> None:
    for _ in range(20):
        if p.notifier is None or not p.notifier._inflight:
            return
        await asyncio.sleep(0)


def _watch(p: Presence, player: str, table_id: str, seat: int, disconnected: bool = False, version: int = 5) -> object:
    caller = Caller(Identity(player, "player"), "203.0.113.1")
    w = p.watch(caller, "/okey.v1.TableService/Watch", pb.WatchRequest(table_id=table_id, seat=seat))
    view = pb.SeatView(table_id=table_id, version=version, seats=[pb.SeatPublic(seat=seat, disconnected=disconnected)])
    w.item(pb.WatchResponse(snapshot=view).SerializeToString())
    return w


async def test_D_11_the_replica_that_held_the_watch_tells_the_table_after_the_grace_unless_it_reopens() -> None:
    clock, table = Clock(), FakeTable()
    a = _presence("a", clock, table)
    w = _watch(a, "ali", "t1", 2)
    assert a.lookup(["ali"], asker="ali") == [{"playerId": "ali", "state": "AT_TABLE", "tableId": "t1"}]
    w.close()  # type: ignore[attr-defined]
    closed_ms = clock.ms()
    clock.advance(GRACE_S - 0.1)
    _watch(a, "ali", "t1", 2).close()  # type: ignore[attr-defined]  # a watch opened within the grace: no signal
    reopened_ms = clock.ms()
    clock.advance(GRACE_S - 0.1)
    a.tick()
    await _settle(a)
    assert table.told() == []
    clock.advance(0.1)
    a.tick()
    await _settle(a)
    assert table.told() == [("t1", 2, False, f"presence:disconnected:{reopened_ms}")]
    assert reopened_ms != closed_ms
    a.tick()
    await _settle(a)
    assert len(table.got) == 1  # told once


async def test_D_11_a_watch_that_sees_its_seat_disconnected_tells_the_table_it_is_back_once_per_version() -> None:
    clock, table = Clock(), FakeTable()
    a = _presence("a", clock, table)
    _watch(a, "ali", "t1", 1, disconnected=True, version=9)
    await _settle(a)
    assert table.told() == [("t1", 1, True, "presence:connected:v9")]
    w = _watch(a, "ali", "t1", 1, disconnected=False, version=10)
    await _settle(a)
    assert len(table.got) == 1  # a view that says connected asks for nothing
    w.item(pb.WatchResponse(view=pb.SeatView(version=1, seats=[pb.SeatPublic(seat=1, disconnected=True)])))  # type: ignore[attr-defined]
    await _settle(a)
    assert len(table.got) == 1  # older than the answer the table gave (version 1): already told
    w.item(pb.WatchResponse(view=pb.SeatView(version=12, seats=[pb.SeatPublic(seat=1, disconnected=True)])))  # type: ignore[attr-defined]
    await _settle(a)
    assert table.told()[-1] == ("t1", 1, True, "presence:connected:v12")


async def test_D_11_a_watch_that_saw_its_match_end_tells_the_table_nothing_when_it_closes() -> None:
    clock, table = Clock(), FakeTable()
    a = _presence("a", clock, table)
    ended = _watch(a, "ali", "t-over", 0)
    ended.item(pb.WatchResponse(view=pb.SeatView(version=90, phase=pb.PHASE_MATCH_OVER)))  # type: ignore[attr-defined]
    ended.close()  # type: ignore[attr-defined]
    _watch(a, "ayse", "t-on", 1).close()  # type: ignore[attr-defined]  # the same, before any end
    clock.advance(GRACE_S)
    a.tick()
    await _settle(a)
    assert table.told() == [("t-on", 1, False, f"presence:disconnected:{int((clock.t - GRACE_S) * 1000)}")]
    assert a.board.vacancies == {}


async def test_D_11_a_dead_replicas_seats_are_told_at_once_by_the_lowest_live_replica_alone() -> None:
    clock = Clock()
    tables = {r: FakeTable() for r in "abc"}
    boards = {r: _presence(r, clock, tables[r]) for r in "ab"}
    for p in boards.values():
        p._echo_at = 1e12  # the bus delivers (their own beats come back)
        p.on_message(*next(encode_beats("c", 77_000, 1, [_p("ali", State.AT_TABLE, 70_000, ("t3", 2))])))
        p.on_message(*next(encode_beats("a" if p.replica == "b" else "b", 77_000, 1, [])))
    clock.advance(2.9)
    for p in boards.values():
        p.on_message(*next(encode_beats("a" if p.replica == "b" else "b", 79_900, 2, [])))
        p.tick()
    assert all(p.board.state_of("ali") == (State.AT_TABLE, "t3") for p in boards.values())
    clock.advance(0.1)  # c unheard of for 3 s
    for p in boards.values():
        p.tick()
        await _settle(p)
        assert p.board.state_of("ali") == (State.OFFLINE, "")
    assert tables["a"].told() == [("t3", 2, False, "presence:disconnected:77000")]
    assert tables["b"].told() == []  # b is not the lowest live replica


async def test_D_11_a_vacancy_whose_holder_dies_before_telling_is_told_by_the_lowest_live_replica() -> None:
    clock, table = Clock(), FakeTable()
    a = _presence("a", clock, table)
    a._echo_at = 1e12
    a.on_message(*encode_player("b", _p("ali", State.AT_TABLE, 5, ("t4", 0))))
    a.on_message(*encode_player("b", _p("ali", State.OFFLINE, 6)))  # b closed the watch, then died
    clock.advance(GRACE_S)
    a.tick()
    await _settle(a)
    assert table.told() == []  # b's to tell, and b is not known dead yet
    clock.advance(1.0)
    a.tick()
    await _settle(a)
    assert table.told() == [("t4", 0, False, "presence:disconnected:6")]  # the same id b would have used


async def test_a_replica_that_hears_nothing_on_the_bus_kills_nobody() -> None:
    clock, table = Clock(), FakeTable()
    a = _presence("a", clock, table)
    a.on_message(*next(encode_beats("b", 1, 1, [_p("ali", State.AT_TABLE, 1, ("t5", 0))])))
    clock.advance(10)  # neither b's beats nor a's own came back: a's connection is down, not b
    a.tick()
    await _settle(a)
    assert a.board.live == ["a", "b"] and table.told() == []
    a.on_message(*next(encode_beats("a", 2, 1, [])))  # a's own beat comes back
    a.tick()
    assert a.board.live == ["a", "b"]  # b gets a fresh three seconds
    clock.advance(3)
    a.on_message(*next(encode_beats("a", 3, 2, [])))
    a.tick()
    await _settle(a)
    assert a.board.live == ["a"] and table.told() == [("t5", 0, False, "presence:disconnected:1")]


def test_a_services_token_and_a_caller_without_one_are_nobodys_presence() -> None:
    clock = Clock()
    p = Presence("a", None, None, clock, clock.ms)
    p.call(Caller(Identity("bots", "service"), "10.0.0.1"))
    p.call(Caller(None, "10.0.0.1"))
    p.watch(Caller(Identity("bots", "service"), "10.0.0.1"), "/okey.v1.TableService/Watch", b"")
    assert len(p.tracker) == 0 and p.board.players_of("a") == {}
    p.call(Caller(Identity("mod", "moderator"), "10.0.0.1"))
    assert p.lookup(["mod", "bots"]) == [
        {"playerId": "mod", "state": "ONLINE", "tableId": ""},
        {"playerId": "bots", "state": "OFFLINE", "tableId": ""},
    ]
