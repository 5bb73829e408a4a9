"""The lobby's consumer on a stream written before the protobuf contract: the recorded old log's
JSON messages (tests/fixtures/old_log), decoded byte for byte as they were published, settle the
classic match's pot and pay the 101 hand prizes and pot. The lobby's own tables have ids of its
own making, so each message's table id is pointed at the lobby table that plays that match."""

from __future__ import annotations

from dataclasses import replace

from lobby_helpers import Guest, chips_of
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity
from okeyplatform.contract import decode_envelope
from old_log import messages

from services.lobby.app import LobbyApp
from services.lobby.consumer import handle_event
from services.lobby.tables import FINISHED, PLAYING


async def _playing(app: LobbyApp, guest: Guest, options: TableOptions) -> tuple[str, list[Identity]]:
    players = [await guest() for _ in range(4)]
    card, _ = await app.open_table(players[0], options)
    for p in players[1:]:
        await app.join(p, card.table.table_id)
    assert (await app.table_card(players[0], card.table.table_id)).table.status == PLAYING
    return card.table.table_id, players


async def test_an_old_json_stream_settles_the_pot_and_pays_the_hand_prizes(app: LobbyApp, guest: Guest) -> None:
    classic, classic_players = await _playing(app, guest, TableOptions(game=Game.OKEY, stake=100))
    t101, players_101 = await _playing(app, guest, TableOptions(game=Game.OKEY101, rounds=3, stake=20, hand_prize=50))
    ours = {"old-classic": classic, "old-101": t101}
    changed = []
    for msg in messages():
        assert "Content-Type" not in msg.headers
        env = decode_envelope(msg.data, msg.headers)
        if await handle_event(app, replace(env, table_id=ours[env.table_id])):
            changed.append((env.table_id, env.kind))
    # the classic match's MatchEnded; two 101 hands with a prize (the second paid none) and its MatchEnded
    assert changed == [
        ("old-classic", "MatchEnded"),
        ("old-101", "HandEnded101"),
        ("old-101", "HandEnded101"),
        ("old-101", "MatchEnded"),
    ]
    # classic: winners 1 and 2 share the pot of 400 [C-SC-9]
    assert [await chips_of(app, p) for p in classic_players] == [900, 1100, 1100, 900]
    # 101: seat 0 took 50 from each of the others twice [O-DEAL-3] and won the pot of 80
    assert [await chips_of(app, p) for p in players_101] == [1360, 880, 880, 880]
    for tid, who in ((classic, classic_players[0]), (t101, players_101[0])):
        assert (await app.table_card(who, tid)).table.status == FINISHED
