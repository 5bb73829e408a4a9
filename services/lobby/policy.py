"""The house's limits and the lobby's calendar, shared by every subdomain: how much and how often
(``Limits``), the Turkish day the daily quotas count in, and the dates a refusal shows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone

__all__ = [
    "Limits",
    "TURKEY",
    "FOREVER",
    "utcnow",
    "next_day_start",
    "grant_day",
    "quotas",
    "later",
    "when",
    "banned_text",
]

TURKEY = timezone(timedelta(hours=3), "TRT")  # the day of the daily chips; Turkey keeps +03:00 all year
FOREVER = datetime(9999, 12, 31, tzinfo=UTC)


@dataclass(frozen=True)
class Limits:
    daily_chips: int = 1000
    max_stake: int = 1_000_000
    token_ttl_s: int = 15 * 60  # a player's access token; RefreshSession gives the next one
    refresh_ttl_s: int = 30 * 86400  # a refresh token unused this long ends its session
    # A refresh token used again this soon after its first use is taken for two tabs of one
    # browser renewing at once (their storage reaches each other late), not for a stolen copy:
    # that call gets ABORTED REFRESH_RACED and no tokens, and nothing is revoked. Later, a second
    # use ends the session (REFRESH_REUSED).
    refresh_race_s: float = 10.0
    # A sensitive change (an e-mail linked or removed, a link code, a password, a device unlinked,
    # sign-out everywhere, the account deleted) needs a proof this recent behind the caller's
    # token (Reauthenticate: this device's credential or the password), not a bearer token alone.
    reauth_s: int = 5 * 60
    # Failed e-mail logins (issue 39.4), counted per (e-mail, address), per address, and per
    # e-mail over every address that the account has never signed in from; each lock doubles
    # from a minute up to an hour, and a count an hour old starts again.
    login_failures_per_address: int = 5
    login_failures_per_email: int = 20
    login_failures_from_address: int = 50
    message_max: int = 200
    flood_window: timedelta = timedelta(seconds=10)
    flood_max: int = 5  # messages per window
    repeat_window: timedelta = timedelta(seconds=60)
    repeat_max: int = 2  # the same message this often per repeat window
    # Quick emotes at a table (issue 44.6), counted apart from text: this many per window.
    emote_window: timedelta = timedelta(seconds=10)
    emote_max: int = 3
    details_max: int = 500
    # Reports one player files per Turkish day (issue 39.6; 0: no limit): past it, RESOURCE_EXHAUSTED
    # TOO_MANY_REPORTS, so one account cannot flood the moderators' queue.
    reports_per_day: int = 20
    mute_max_minutes: int = 30 * 24 * 60
    ban_max_minutes: int = 365 * 24 * 60
    max_open_tables: int = 3  # tables a player opened that are waiting or being played at once
    tournaments_per_player: int = 5  # tournaments a player is registered in that have not ended
    # Sock puppets [issue 15.7], per Turkish day (0: no limit). A device id is what the client
    # says; an address is the gateway's (x-okey-client-addr): calls without one (internal ones,
    # tests) are limited per device only. Many players share a NAT, so an address gets more.
    accounts_per_device: int = 3  # new guest accounts
    accounts_per_address: int = 10
    grants_per_device: int = 1  # daily chip grants (at sign-in and by ClaimDailyChips)
    grants_per_address: int = 5
    # Friends (issue 44.3), per player (0: no limit for the per-day ones): friends on a list;
    # outgoing requests not yet answered; requests sent and table invitations sent a Turkish day
    # (lobby_quotas); players blocked; the same friend invited to the same table again only
    # after invite_repeat_window; a friend request to the same player again (after a cancel or a
    # decline) only after friend_request_repeat_window (0: at once), so that one sender cannot
    # fill another's notifications with a day of requests.
    friends_max: int = 200
    pending_max: int = 50
    friend_requests_per_day: int = 30
    friend_request_repeat_window: timedelta = timedelta(hours=24)
    blocks_max: int = 500
    invites_per_day: int = 100
    invite_repeat_window: timedelta = timedelta(seconds=60)
    # Notifications (issue 44.4): the newest notification_max of a player, none older than
    # notification_keep_days; WatchNotifications streams one player may hold open on one lobby
    # process (TOO_MANY_STREAMS past it).
    notification_max: int = 100
    notification_keep_days: int = 14
    notification_streams_max: int = 5
    # Watching (issue 44.5): the most spectators a table takes at once (the gateway counts them).
    spectators_max: int = 50


def utcnow() -> datetime:
    return datetime.now(UTC)


def next_day_start(now: datetime) -> datetime:
    """When the next daily chips may be claimed: midnight in Turkey."""
    local = now.astimezone(TURKEY)
    return datetime.combine(local.date() + timedelta(days=1), time(0), TURKEY).astimezone(UTC)


def grant_day(now: datetime) -> date:
    return now.astimezone(TURKEY).date()


def quotas(limits: Limits, what: str, device: str, address: str) -> list[tuple[str, str, int]]:
    """The daily quotas ``what`` ("accounts" or "grants") takes from: the device's, then the
    address's (that order, always: the rows are locked in it). A limit of 0 is none."""
    per_device, per_address = (
        (limits.accounts_per_device, limits.accounts_per_address)
        if what == "accounts"
        else (limits.grants_per_device, limits.grants_per_address)
    )
    out = []
    if per_device > 0 and device:
        out.append((f"{what}:device", device, per_device))
    if per_address > 0 and address:
        out.append((f"{what}:address", address, per_address))
    return out


def later(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def when(t: datetime) -> str:
    return t.astimezone(TURKEY).strftime("%d.%m.%Y %H:%M")


def banned_text(until: datetime) -> str:
    if until >= FOREVER:
        return "Hesabın kalıcı olarak yasaklandı. (You are banned.)"
    return f"Hesabın {when(until)} tarihine kadar yasaklı. (You are banned until then.)"
