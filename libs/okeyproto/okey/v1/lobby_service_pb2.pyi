import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from okey.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TableVisibility(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TABLE_VISIBILITY_UNSPECIFIED: _ClassVar[TableVisibility]
    TABLE_VISIBILITY_PUBLIC: _ClassVar[TableVisibility]
    TABLE_VISIBILITY_PRIVATE: _ClassVar[TableVisibility]

class LobbyTableStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LOBBY_TABLE_STATUS_UNSPECIFIED: _ClassVar[LobbyTableStatus]
    LOBBY_TABLE_STATUS_WAITING: _ClassVar[LobbyTableStatus]
    LOBBY_TABLE_STATUS_STARTING: _ClassVar[LobbyTableStatus]
    LOBBY_TABLE_STATUS_PLAYING: _ClassVar[LobbyTableStatus]
    LOBBY_TABLE_STATUS_FINISHED: _ClassVar[LobbyTableStatus]
    LOBBY_TABLE_STATUS_CANCELLED: _ClassVar[LobbyTableStatus]

class ReportReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REPORT_REASON_UNSPECIFIED: _ClassVar[ReportReason]
    REPORT_REASON_ABUSE: _ClassVar[ReportReason]
    REPORT_REASON_PERSONAL_INFO: _ClassVar[ReportReason]
    REPORT_REASON_ADVERTISING: _ClassVar[ReportReason]
    REPORT_REASON_COLLUSION: _ClassVar[ReportReason]
    REPORT_REASON_STALLING: _ClassVar[ReportReason]
    REPORT_REASON_OTHER: _ClassVar[ReportReason]

class ReportStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REPORT_STATUS_UNSPECIFIED: _ClassVar[ReportStatus]
    REPORT_STATUS_OPEN: _ClassVar[ReportStatus]
    REPORT_STATUS_RESOLVED: _ClassVar[ReportStatus]

class ReportAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REPORT_ACTION_UNSPECIFIED: _ClassVar[ReportAction]
    REPORT_ACTION_DISMISS: _ClassVar[ReportAction]
    REPORT_ACTION_WARN: _ClassVar[ReportAction]
    REPORT_ACTION_MUTE: _ClassVar[ReportAction]
    REPORT_ACTION_BAN: _ClassVar[ReportAction]

class Avatar(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AVATAR_UNSPECIFIED: _ClassVar[Avatar]
    AVATAR_TULIP: _ClassVar[Avatar]
    AVATAR_TEA: _ClassVar[Avatar]
    AVATAR_CAT: _ClassVar[Avatar]
    AVATAR_FISH: _ClassVar[Avatar]
    AVATAR_SUN: _ClassVar[Avatar]
    AVATAR_MOON: _ClassVar[Avatar]
    AVATAR_STAR: _ClassVar[Avatar]
    AVATAR_ANCHOR: _ClassVar[Avatar]
    AVATAR_KITE: _ClassVar[Avatar]
    AVATAR_OWL: _ClassVar[Avatar]
    AVATAR_FOX: _ClassVar[Avatar]
    AVATAR_LEAF: _ClassVar[Avatar]

class SettlementStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SETTLEMENT_STATUS_UNSPECIFIED: _ClassVar[SettlementStatus]
    SETTLEMENT_STATUS_HELD: _ClassVar[SettlementStatus]
    SETTLEMENT_STATUS_SETTLED: _ClassVar[SettlementStatus]
    SETTLEMENT_STATUS_REFUNDED: _ClassVar[SettlementStatus]

class Emote(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EMOTE_UNSPECIFIED: _ClassVar[Emote]
    EMOTE_KOLAY_GELSIN: _ClassVar[Emote]
    EMOTE_BOL_SANS: _ClassVar[Emote]
    EMOTE_TEBRIKLER: _ClassVar[Emote]
    EMOTE_CAY: _ClassVar[Emote]
    EMOTE_HADI_BAKALIM: _ClassVar[Emote]
    EMOTE_EYVALLAH: _ClassVar[Emote]
    EMOTE_GECMIS_OLSUN: _ClassVar[Emote]
    EMOTE_IYI_OYUNLAR: _ClassVar[Emote]

class NotificationKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NOTIFICATION_KIND_UNSPECIFIED: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_FRIEND_REQUEST: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_FRIEND_ACCEPTED: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_TABLE_INVITE: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_TABLE_STARTING: _ClassVar[NotificationKind]

class TournamentFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_FORMAT_UNSPECIFIED: _ClassVar[TournamentFormat]
    TOURNAMENT_FORMAT_KNOCKOUT: _ClassVar[TournamentFormat]
    TOURNAMENT_FORMAT_SWISS: _ClassVar[TournamentFormat]

class TournamentStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_STATUS_UNSPECIFIED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_REGISTERING: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_RUNNING: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_FINISHED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_CANCELLED: _ClassVar[TournamentStatus]

class TieBreak(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIE_BREAK_UNSPECIFIED: _ClassVar[TieBreak]
    TIE_BREAK_SCORE: _ClassVar[TieBreak]
    TIE_BREAK_OPPONENTS: _ClassVar[TieBreak]
    TIE_BREAK_FIRSTS: _ClassVar[TieBreak]
TABLE_VISIBILITY_UNSPECIFIED: TableVisibility
TABLE_VISIBILITY_PUBLIC: TableVisibility
TABLE_VISIBILITY_PRIVATE: TableVisibility
LOBBY_TABLE_STATUS_UNSPECIFIED: LobbyTableStatus
LOBBY_TABLE_STATUS_WAITING: LobbyTableStatus
LOBBY_TABLE_STATUS_STARTING: LobbyTableStatus
LOBBY_TABLE_STATUS_PLAYING: LobbyTableStatus
LOBBY_TABLE_STATUS_FINISHED: LobbyTableStatus
LOBBY_TABLE_STATUS_CANCELLED: LobbyTableStatus
REPORT_REASON_UNSPECIFIED: ReportReason
REPORT_REASON_ABUSE: ReportReason
REPORT_REASON_PERSONAL_INFO: ReportReason
REPORT_REASON_ADVERTISING: ReportReason
REPORT_REASON_COLLUSION: ReportReason
REPORT_REASON_STALLING: ReportReason
REPORT_REASON_OTHER: ReportReason
REPORT_STATUS_UNSPECIFIED: ReportStatus
REPORT_STATUS_OPEN: ReportStatus
REPORT_STATUS_RESOLVED: ReportStatus
REPORT_ACTION_UNSPECIFIED: ReportAction
REPORT_ACTION_DISMISS: ReportAction
REPORT_ACTION_WARN: ReportAction
REPORT_ACTION_MUTE: ReportAction
REPORT_ACTION_BAN: ReportAction
AVATAR_UNSPECIFIED: Avatar
AVATAR_TULIP: Avatar
AVATAR_TEA: Avatar
AVATAR_CAT: Avatar
AVATAR_FISH: Avatar
AVATAR_SUN: Avatar
AVATAR_MOON: Avatar
AVATAR_STAR: Avatar
AVATAR_ANCHOR: Avatar
AVATAR_KITE: Avatar
AVATAR_OWL: Avatar
AVATAR_FOX: Avatar
AVATAR_LEAF: Avatar
SETTLEMENT_STATUS_UNSPECIFIED: SettlementStatus
SETTLEMENT_STATUS_HELD: SettlementStatus
SETTLEMENT_STATUS_SETTLED: SettlementStatus
SETTLEMENT_STATUS_REFUNDED: SettlementStatus
EMOTE_UNSPECIFIED: Emote
EMOTE_KOLAY_GELSIN: Emote
EMOTE_BOL_SANS: Emote
EMOTE_TEBRIKLER: Emote
EMOTE_CAY: Emote
EMOTE_HADI_BAKALIM: Emote
EMOTE_EYVALLAH: Emote
EMOTE_GECMIS_OLSUN: Emote
EMOTE_IYI_OYUNLAR: Emote
NOTIFICATION_KIND_UNSPECIFIED: NotificationKind
NOTIFICATION_KIND_FRIEND_REQUEST: NotificationKind
NOTIFICATION_KIND_FRIEND_ACCEPTED: NotificationKind
NOTIFICATION_KIND_TABLE_INVITE: NotificationKind
NOTIFICATION_KIND_TABLE_STARTING: NotificationKind
TOURNAMENT_FORMAT_UNSPECIFIED: TournamentFormat
TOURNAMENT_FORMAT_KNOCKOUT: TournamentFormat
TOURNAMENT_FORMAT_SWISS: TournamentFormat
TOURNAMENT_STATUS_UNSPECIFIED: TournamentStatus
TOURNAMENT_STATUS_REGISTERING: TournamentStatus
TOURNAMENT_STATUS_RUNNING: TournamentStatus
TOURNAMENT_STATUS_FINISHED: TournamentStatus
TOURNAMENT_STATUS_CANCELLED: TournamentStatus
TIE_BREAK_UNSPECIFIED: TieBreak
TIE_BREAK_SCORE: TieBreak
TIE_BREAK_OPPONENTS: TieBreak
TIE_BREAK_FIRSTS: TieBreak

class PlayerProfile(_message.Message):
    __slots__ = ("player_id", "display_name", "chips", "next_daily_chips_at", "muted_until", "banned_until", "warnings", "created_at", "deleted", "staff_role", "daily_chips_reason", "daily_chips_limit", "avatar")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    NEXT_DAILY_CHIPS_AT_FIELD_NUMBER: _ClassVar[int]
    MUTED_UNTIL_FIELD_NUMBER: _ClassVar[int]
    BANNED_UNTIL_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    STAFF_ROLE_FIELD_NUMBER: _ClassVar[int]
    DAILY_CHIPS_REASON_FIELD_NUMBER: _ClassVar[int]
    DAILY_CHIPS_LIMIT_FIELD_NUMBER: _ClassVar[int]
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    chips: int
    next_daily_chips_at: _timestamp_pb2.Timestamp
    muted_until: _timestamp_pb2.Timestamp
    banned_until: _timestamp_pb2.Timestamp
    warnings: int
    created_at: _timestamp_pb2.Timestamp
    deleted: bool
    staff_role: str
    daily_chips_reason: str
    daily_chips_limit: int
    avatar: Avatar
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., chips: _Optional[int] = ..., next_daily_chips_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., muted_until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., banned_until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., warnings: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., deleted: _Optional[bool] = ..., staff_role: _Optional[str] = ..., daily_chips_reason: _Optional[str] = ..., daily_chips_limit: _Optional[int] = ..., avatar: _Optional[_Union[Avatar, str]] = ...) -> None: ...

class SetAvatarRequest(_message.Message):
    __slots__ = ("avatar",)
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    avatar: Avatar
    def __init__(self, avatar: _Optional[_Union[Avatar, str]] = ...) -> None: ...

class SetAvatarResponse(_message.Message):
    __slots__ = ("profile",)
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    profile: PlayerProfile
    def __init__(self, profile: _Optional[_Union[PlayerProfile, _Mapping]] = ...) -> None: ...

class SignInGuestRequest(_message.Message):
    __slots__ = ("display_name", "device_id", "device_secret")
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    DEVICE_SECRET_FIELD_NUMBER: _ClassVar[int]
    display_name: str
    device_id: str
    device_secret: str
    def __init__(self, display_name: _Optional[str] = ..., device_id: _Optional[str] = ..., device_secret: _Optional[str] = ...) -> None: ...

class SignInGuestResponse(_message.Message):
    __slots__ = ("player", "token", "token_expires_at", "device_id", "chips_granted", "device_secret", "returning", "refresh_token", "refresh_expires_at", "device_ref")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOKEN_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    CHIPS_GRANTED_FIELD_NUMBER: _ClassVar[int]
    DEVICE_SECRET_FIELD_NUMBER: _ClassVar[int]
    RETURNING_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REFRESH_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    DEVICE_REF_FIELD_NUMBER: _ClassVar[int]
    player: PlayerProfile
    token: str
    token_expires_at: _timestamp_pb2.Timestamp
    device_id: str
    chips_granted: int
    device_secret: str
    returning: bool
    refresh_token: str
    refresh_expires_at: _timestamp_pb2.Timestamp
    device_ref: str
    def __init__(self, player: _Optional[_Union[PlayerProfile, _Mapping]] = ..., token: _Optional[str] = ..., token_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., device_id: _Optional[str] = ..., chips_granted: _Optional[int] = ..., device_secret: _Optional[str] = ..., returning: _Optional[bool] = ..., refresh_token: _Optional[str] = ..., refresh_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., device_ref: _Optional[str] = ...) -> None: ...

class LinkEmailRequest(_message.Message):
    __slots__ = ("email", "password")
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    email: str
    password: str
    def __init__(self, email: _Optional[str] = ..., password: _Optional[str] = ...) -> None: ...

class LinkEmailResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ChangePasswordRequest(_message.Message):
    __slots__ = ("current_password", "new_password")
    CURRENT_PASSWORD_FIELD_NUMBER: _ClassVar[int]
    NEW_PASSWORD_FIELD_NUMBER: _ClassVar[int]
    current_password: str
    new_password: str
    def __init__(self, current_password: _Optional[str] = ..., new_password: _Optional[str] = ...) -> None: ...

class ChangePasswordResponse(_message.Message):
    __slots__ = ("token", "token_expires_at", "refresh_token", "refresh_expires_at")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOKEN_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REFRESH_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    token: str
    token_expires_at: _timestamp_pb2.Timestamp
    refresh_token: str
    refresh_expires_at: _timestamp_pb2.Timestamp
    def __init__(self, token: _Optional[str] = ..., token_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., refresh_token: _Optional[str] = ..., refresh_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SignInEmailRequest(_message.Message):
    __slots__ = ("email", "password")
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    email: str
    password: str
    def __init__(self, email: _Optional[str] = ..., password: _Optional[str] = ...) -> None: ...

class SignInEmailResponse(_message.Message):
    __slots__ = ("signed_in",)
    SIGNED_IN_FIELD_NUMBER: _ClassVar[int]
    signed_in: SignInGuestResponse
    def __init__(self, signed_in: _Optional[_Union[SignInGuestResponse, _Mapping]] = ...) -> None: ...

class CreateLinkCodeRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CreateLinkCodeResponse(_message.Message):
    __slots__ = ("code", "expires_at")
    CODE_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    code: str
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, code: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SignInWithLinkCodeRequest(_message.Message):
    __slots__ = ("code",)
    CODE_FIELD_NUMBER: _ClassVar[int]
    code: str
    def __init__(self, code: _Optional[str] = ...) -> None: ...

class SignInWithLinkCodeResponse(_message.Message):
    __slots__ = ("signed_in",)
    SIGNED_IN_FIELD_NUMBER: _ClassVar[int]
    signed_in: SignInGuestResponse
    def __init__(self, signed_in: _Optional[_Union[SignInGuestResponse, _Mapping]] = ...) -> None: ...

class ListDevicesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class Device(_message.Message):
    __slots__ = ("device_ref", "created_at", "last_used_at", "current")
    DEVICE_REF_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_AT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    device_ref: str
    created_at: _timestamp_pb2.Timestamp
    last_used_at: _timestamp_pb2.Timestamp
    current: bool
    def __init__(self, device_ref: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_used_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., current: _Optional[bool] = ...) -> None: ...

class ListDevicesResponse(_message.Message):
    __slots__ = ("devices", "email", "next_page_token")
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    devices: _containers.RepeatedCompositeFieldContainer[Device]
    email: str
    next_page_token: str
    def __init__(self, devices: _Optional[_Iterable[_Union[Device, _Mapping]]] = ..., email: _Optional[str] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class UnlinkEmailRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UnlinkEmailResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReauthenticateRequest(_message.Message):
    __slots__ = ("device_secret", "password")
    DEVICE_SECRET_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    device_secret: str
    password: str
    def __init__(self, device_secret: _Optional[str] = ..., password: _Optional[str] = ...) -> None: ...

class ReauthenticateResponse(_message.Message):
    __slots__ = ("token", "token_expires_at", "proof_expires_at")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOKEN_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    PROOF_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    token: str
    token_expires_at: _timestamp_pb2.Timestamp
    proof_expires_at: _timestamp_pb2.Timestamp
    def __init__(self, token: _Optional[str] = ..., token_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., proof_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SignOutEverywhereRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SignOutEverywhereResponse(_message.Message):
    __slots__ = ("token", "token_expires_at", "refresh_token", "refresh_expires_at")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOKEN_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REFRESH_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    token: str
    token_expires_at: _timestamp_pb2.Timestamp
    refresh_token: str
    refresh_expires_at: _timestamp_pb2.Timestamp
    def __init__(self, token: _Optional[str] = ..., token_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., refresh_token: _Optional[str] = ..., refresh_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class UnlinkDeviceRequest(_message.Message):
    __slots__ = ("device_ref",)
    DEVICE_REF_FIELD_NUMBER: _ClassVar[int]
    device_ref: str
    def __init__(self, device_ref: _Optional[str] = ...) -> None: ...

class UnlinkDeviceResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RefreshSessionRequest(_message.Message):
    __slots__ = ("refresh_token",)
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    refresh_token: str
    def __init__(self, refresh_token: _Optional[str] = ...) -> None: ...

class RefreshSessionResponse(_message.Message):
    __slots__ = ("token", "token_expires_at", "refresh_token", "refresh_expires_at")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOKEN_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REFRESH_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    token: str
    token_expires_at: _timestamp_pb2.Timestamp
    refresh_token: str
    refresh_expires_at: _timestamp_pb2.Timestamp
    def __init__(self, token: _Optional[str] = ..., token_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., refresh_token: _Optional[str] = ..., refresh_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetPlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class GetPlayerResponse(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: PlayerProfile
    def __init__(self, player: _Optional[_Union[PlayerProfile, _Mapping]] = ...) -> None: ...

class SignOutRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SignOutResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClaimDailyChipsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClaimDailyChipsResponse(_message.Message):
    __slots__ = ("granted", "balance", "next_claim_at")
    GRANTED_FIELD_NUMBER: _ClassVar[int]
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    NEXT_CLAIM_AT_FIELD_NUMBER: _ClassVar[int]
    granted: int
    balance: int
    next_claim_at: _timestamp_pb2.Timestamp
    def __init__(self, granted: _Optional[int] = ..., balance: _Optional[int] = ..., next_claim_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetChipsRequest(_message.Message):
    __slots__ = ("limit",)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int
    def __init__(self, limit: _Optional[int] = ...) -> None: ...

class ChipEntry(_message.Message):
    __slots__ = ("kind", "amount", "balance_after", "table_id", "time")
    KIND_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    BALANCE_AFTER_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    kind: str
    amount: int
    balance_after: int
    table_id: str
    time: _timestamp_pb2.Timestamp
    def __init__(self, kind: _Optional[str] = ..., amount: _Optional[int] = ..., balance_after: _Optional[int] = ..., table_id: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetChipsResponse(_message.Message):
    __slots__ = ("balance", "entries")
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    balance: int
    entries: _containers.RepeatedCompositeFieldContainer[ChipEntry]
    def __init__(self, balance: _Optional[int] = ..., entries: _Optional[_Iterable[_Union[ChipEntry, _Mapping]]] = ...) -> None: ...

class TableRule(_message.Message):
    __slots__ = ("option", "value", "label")
    OPTION_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    option: str
    value: str
    label: str
    def __init__(self, option: _Optional[str] = ..., value: _Optional[str] = ..., label: _Optional[str] = ...) -> None: ...

class LobbySeat(_message.Message):
    __slots__ = ("seat", "player_id", "display_name", "bot", "left", "avatar")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    display_name: str
    bot: bool
    left: bool
    avatar: Avatar
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., bot: _Optional[bool] = ..., left: _Optional[bool] = ..., avatar: _Optional[_Union[Avatar, str]] = ...) -> None: ...

class LobbyTable(_message.Message):
    __slots__ = ("table_id", "game", "options", "rules", "stake", "visibility", "status", "seats", "seats_taken", "seat_count", "creator_id", "invite_code", "created_at", "pot", "practice", "quote", "tournament_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEATS_TAKEN_FIELD_NUMBER: _ClassVar[int]
    SEAT_COUNT_FIELD_NUMBER: _ClassVar[int]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    INVITE_CODE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    PRACTICE_FIELD_NUMBER: _ClassVar[int]
    QUOTE_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game: _common_pb2.Game
    options: _common_pb2.TableOptions
    rules: _containers.RepeatedCompositeFieldContainer[TableRule]
    stake: int
    visibility: TableVisibility
    status: LobbyTableStatus
    seats: _containers.RepeatedCompositeFieldContainer[LobbySeat]
    seats_taken: int
    seat_count: int
    creator_id: str
    invite_code: str
    created_at: _timestamp_pb2.Timestamp
    pot: int
    practice: bool
    quote: PotQuote
    tournament_id: str
    def __init__(self, table_id: _Optional[str] = ..., game: _Optional[_Union[_common_pb2.Game, str]] = ..., options: _Optional[_Union[_common_pb2.TableOptions, _Mapping]] = ..., rules: _Optional[_Iterable[_Union[TableRule, _Mapping]]] = ..., stake: _Optional[int] = ..., visibility: _Optional[_Union[TableVisibility, str]] = ..., status: _Optional[_Union[LobbyTableStatus, str]] = ..., seats: _Optional[_Iterable[_Union[LobbySeat, _Mapping]]] = ..., seats_taken: _Optional[int] = ..., seat_count: _Optional[int] = ..., creator_id: _Optional[str] = ..., invite_code: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., pot: _Optional[int] = ..., practice: _Optional[bool] = ..., quote: _Optional[_Union[PotQuote, _Mapping]] = ..., tournament_id: _Optional[str] = ...) -> None: ...

class PotQuote(_message.Message):
    __slots__ = ("stake", "people", "bots", "pot", "max_win", "hand_prize", "practice")
    STAKE_FIELD_NUMBER: _ClassVar[int]
    PEOPLE_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    MAX_WIN_FIELD_NUMBER: _ClassVar[int]
    HAND_PRIZE_FIELD_NUMBER: _ClassVar[int]
    PRACTICE_FIELD_NUMBER: _ClassVar[int]
    stake: int
    people: int
    bots: int
    pot: int
    max_win: int
    hand_prize: int
    practice: bool
    def __init__(self, stake: _Optional[int] = ..., people: _Optional[int] = ..., bots: _Optional[int] = ..., pot: _Optional[int] = ..., max_win: _Optional[int] = ..., hand_prize: _Optional[int] = ..., practice: _Optional[bool] = ...) -> None: ...

class QuotePotRequest(_message.Message):
    __slots__ = ("options", "fill_with_bots")
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    FILL_WITH_BOTS_FIELD_NUMBER: _ClassVar[int]
    options: _common_pb2.TableOptions
    fill_with_bots: bool
    def __init__(self, options: _Optional[_Union[_common_pb2.TableOptions, _Mapping]] = ..., fill_with_bots: _Optional[bool] = ...) -> None: ...

class QuotePotResponse(_message.Message):
    __slots__ = ("quote",)
    QUOTE_FIELD_NUMBER: _ClassVar[int]
    quote: PotQuote
    def __init__(self, quote: _Optional[_Union[PotQuote, _Mapping]] = ...) -> None: ...

class SettlementLine(_message.Message):
    __slots__ = ("code", "amount", "count", "hand")
    CODE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    code: str
    amount: int
    count: int
    hand: int
    def __init__(self, code: _Optional[str] = ..., amount: _Optional[int] = ..., count: _Optional[int] = ..., hand: _Optional[int] = ...) -> None: ...

class SettlementSeat(_message.Message):
    __slots__ = ("seat", "player_id", "bot", "left", "paid_in", "hand_prizes", "payout", "refund", "net", "why")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    PAID_IN_FIELD_NUMBER: _ClassVar[int]
    HAND_PRIZES_FIELD_NUMBER: _ClassVar[int]
    PAYOUT_FIELD_NUMBER: _ClassVar[int]
    REFUND_FIELD_NUMBER: _ClassVar[int]
    NET_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    bot: bool
    left: bool
    paid_in: int
    hand_prizes: int
    payout: int
    refund: int
    net: int
    why: _containers.RepeatedCompositeFieldContainer[SettlementLine]
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., bot: _Optional[bool] = ..., left: _Optional[bool] = ..., paid_in: _Optional[int] = ..., hand_prizes: _Optional[int] = ..., payout: _Optional[int] = ..., refund: _Optional[int] = ..., net: _Optional[int] = ..., why: _Optional[_Iterable[_Union[SettlementLine, _Mapping]]] = ...) -> None: ...

class Settlement(_message.Message):
    __slots__ = ("table_id", "status", "stake", "people", "bots", "pot", "paid_out", "to_house", "refunded", "seats", "why", "updated_at")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    PEOPLE_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    PAID_OUT_FIELD_NUMBER: _ClassVar[int]
    TO_HOUSE_FIELD_NUMBER: _ClassVar[int]
    REFUNDED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    status: SettlementStatus
    stake: int
    people: int
    bots: int
    pot: int
    paid_out: int
    to_house: int
    refunded: int
    seats: _containers.RepeatedCompositeFieldContainer[SettlementSeat]
    why: _containers.RepeatedCompositeFieldContainer[SettlementLine]
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, table_id: _Optional[str] = ..., status: _Optional[_Union[SettlementStatus, str]] = ..., stake: _Optional[int] = ..., people: _Optional[int] = ..., bots: _Optional[int] = ..., pot: _Optional[int] = ..., paid_out: _Optional[int] = ..., to_house: _Optional[int] = ..., refunded: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SettlementSeat, _Mapping]]] = ..., why: _Optional[_Iterable[_Union[SettlementLine, _Mapping]]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetSettlementRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class GetSettlementResponse(_message.Message):
    __slots__ = ("settlement", "balance")
    SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    settlement: Settlement
    balance: int
    def __init__(self, settlement: _Optional[_Union[Settlement, _Mapping]] = ..., balance: _Optional[int] = ...) -> None: ...

class OpenTableRequest(_message.Message):
    __slots__ = ("options", "visibility", "seat", "fill_with_bots")
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FILL_WITH_BOTS_FIELD_NUMBER: _ClassVar[int]
    options: _common_pb2.TableOptions
    visibility: TableVisibility
    seat: int
    fill_with_bots: bool
    def __init__(self, options: _Optional[_Union[_common_pb2.TableOptions, _Mapping]] = ..., visibility: _Optional[_Union[TableVisibility, str]] = ..., seat: _Optional[int] = ..., fill_with_bots: _Optional[bool] = ...) -> None: ...

class OpenTableResponse(_message.Message):
    __slots__ = ("table", "seat")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    table: LobbyTable
    seat: int
    def __init__(self, table: _Optional[_Union[LobbyTable, _Mapping]] = ..., seat: _Optional[int] = ...) -> None: ...

class ListTablesRequest(_message.Message):
    __slots__ = ("game", "include_playing", "page_size", "page_token")
    GAME_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_PLAYING_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game: _common_pb2.Game
    include_playing: bool
    page_size: int
    page_token: str
    def __init__(self, game: _Optional[_Union[_common_pb2.Game, str]] = ..., include_playing: _Optional[bool] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTablesResponse(_message.Message):
    __slots__ = ("tables", "next_page_token")
    TABLES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[LobbyTable]
    next_page_token: str
    def __init__(self, tables: _Optional[_Iterable[_Union[LobbyTable, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListMyTablesRequest(_message.Message):
    __slots__ = ("limit",)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int
    def __init__(self, limit: _Optional[int] = ...) -> None: ...

class ListMyTablesResponse(_message.Message):
    __slots__ = ("tables",)
    TABLES_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[LobbyTable]
    def __init__(self, tables: _Optional[_Iterable[_Union[LobbyTable, _Mapping]]] = ...) -> None: ...

class ListRoomsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListRoomsResponse(_message.Message):
    __slots__ = ("rooms",)
    ROOMS_FIELD_NUMBER: _ClassVar[int]
    rooms: _containers.RepeatedCompositeFieldContainer[Room]
    def __init__(self, rooms: _Optional[_Iterable[_Union[Room, _Mapping]]] = ...) -> None: ...

class Room(_message.Message):
    __slots__ = ("game", "stake", "people_playing", "people_waiting", "tables_waiting")
    GAME_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    PEOPLE_PLAYING_FIELD_NUMBER: _ClassVar[int]
    PEOPLE_WAITING_FIELD_NUMBER: _ClassVar[int]
    TABLES_WAITING_FIELD_NUMBER: _ClassVar[int]
    game: _common_pb2.Game
    stake: int
    people_playing: int
    people_waiting: int
    tables_waiting: int
    def __init__(self, game: _Optional[_Union[_common_pb2.Game, str]] = ..., stake: _Optional[int] = ..., people_playing: _Optional[int] = ..., people_waiting: _Optional[int] = ..., tables_waiting: _Optional[int] = ...) -> None: ...

class GetTableCardRequest(_message.Message):
    __slots__ = ("table_id", "invite_code")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    INVITE_CODE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    invite_code: str
    def __init__(self, table_id: _Optional[str] = ..., invite_code: _Optional[str] = ...) -> None: ...

class GetTableCardResponse(_message.Message):
    __slots__ = ("table",)
    TABLE_FIELD_NUMBER: _ClassVar[int]
    table: LobbyTable
    def __init__(self, table: _Optional[_Union[LobbyTable, _Mapping]] = ...) -> None: ...

class JoinTableRequest(_message.Message):
    __slots__ = ("table_id", "invite_code", "seat")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    INVITE_CODE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    invite_code: str
    seat: int
    def __init__(self, table_id: _Optional[str] = ..., invite_code: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class JoinTableResponse(_message.Message):
    __slots__ = ("table", "seat", "started")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    table: LobbyTable
    seat: int
    started: bool
    def __init__(self, table: _Optional[_Union[LobbyTable, _Mapping]] = ..., seat: _Optional[int] = ..., started: _Optional[bool] = ...) -> None: ...

class LeaveTableRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class LeaveTableResponse(_message.Message):
    __slots__ = ("table", "forfeited")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    table: LobbyTable
    forfeited: int
    def __init__(self, table: _Optional[_Union[LobbyTable, _Mapping]] = ..., forfeited: _Optional[int] = ...) -> None: ...

class QuickPlayRequest(_message.Message):
    __slots__ = ("options",)
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    options: _common_pb2.TableOptions
    def __init__(self, options: _Optional[_Union[_common_pb2.TableOptions, _Mapping]] = ...) -> None: ...

class QuickPlayResponse(_message.Message):
    __slots__ = ("table", "seat", "opened", "started", "returned_to_seat")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OPENED_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    RETURNED_TO_SEAT_FIELD_NUMBER: _ClassVar[int]
    table: LobbyTable
    seat: int
    opened: bool
    started: bool
    returned_to_seat: str
    def __init__(self, table: _Optional[_Union[LobbyTable, _Mapping]] = ..., seat: _Optional[int] = ..., opened: _Optional[bool] = ..., started: _Optional[bool] = ..., returned_to_seat: _Optional[str] = ...) -> None: ...

class FillWithBotsRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class FillWithBotsResponse(_message.Message):
    __slots__ = ("table",)
    TABLE_FIELD_NUMBER: _ClassVar[int]
    table: LobbyTable
    def __init__(self, table: _Optional[_Union[LobbyTable, _Mapping]] = ...) -> None: ...

class ChatMessage(_message.Message):
    __slots__ = ("message_id", "table_id", "player_id", "display_name", "text", "sent_at", "emote", "avatar")
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SENT_AT_FIELD_NUMBER: _ClassVar[int]
    EMOTE_FIELD_NUMBER: _ClassVar[int]
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    message_id: int
    table_id: str
    player_id: str
    display_name: str
    text: str
    sent_at: _timestamp_pb2.Timestamp
    emote: Emote
    avatar: Avatar
    def __init__(self, message_id: _Optional[int] = ..., table_id: _Optional[str] = ..., player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., text: _Optional[str] = ..., sent_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., emote: _Optional[_Union[Emote, str]] = ..., avatar: _Optional[_Union[Avatar, str]] = ...) -> None: ...

class SendMessageRequest(_message.Message):
    __slots__ = ("table_id", "text")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    text: str
    def __init__(self, table_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class SendMessageResponse(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: ChatMessage
    def __init__(self, message: _Optional[_Union[ChatMessage, _Mapping]] = ...) -> None: ...

class SendEmoteRequest(_message.Message):
    __slots__ = ("table_id", "emote")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    EMOTE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    emote: Emote
    def __init__(self, table_id: _Optional[str] = ..., emote: _Optional[_Union[Emote, str]] = ...) -> None: ...

class SendEmoteResponse(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: ChatMessage
    def __init__(self, message: _Optional[_Union[ChatMessage, _Mapping]] = ...) -> None: ...

class ListMessagesRequest(_message.Message):
    __slots__ = ("table_id", "after_message_id", "limit")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    after_message_id: int
    limit: int
    def __init__(self, table_id: _Optional[str] = ..., after_message_id: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class ListMessagesResponse(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[ChatMessage]
    def __init__(self, messages: _Optional[_Iterable[_Union[ChatMessage, _Mapping]]] = ...) -> None: ...

class MutePlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class MutePlayerResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UnmutePlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class UnmutePlayerResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReportPlayerRequest(_message.Message):
    __slots__ = ("player_id", "reason", "details", "message_ids", "table_id")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_IDS_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    reason: ReportReason
    details: str
    message_ids: _containers.RepeatedScalarFieldContainer[int]
    table_id: str
    def __init__(self, player_id: _Optional[str] = ..., reason: _Optional[_Union[ReportReason, str]] = ..., details: _Optional[str] = ..., message_ids: _Optional[_Iterable[int]] = ..., table_id: _Optional[str] = ...) -> None: ...

class ReportPlayerResponse(_message.Message):
    __slots__ = ("report_id",)
    REPORT_ID_FIELD_NUMBER: _ClassVar[int]
    report_id: int
    def __init__(self, report_id: _Optional[int] = ...) -> None: ...

class PlayerReport(_message.Message):
    __slots__ = ("report_id", "reporter_id", "reporter_name", "player_id", "player_name", "reason", "details", "message_ids", "table_id", "status", "created_at", "context", "earlier_reports", "action", "duration_minutes", "note", "resolved_by", "resolved_at", "reporters")
    REPORT_ID_FIELD_NUMBER: _ClassVar[int]
    REPORTER_ID_FIELD_NUMBER: _ClassVar[int]
    REPORTER_NAME_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_IDS_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    EARLIER_REPORTS_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    DURATION_MINUTES_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_BY_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_AT_FIELD_NUMBER: _ClassVar[int]
    REPORTERS_FIELD_NUMBER: _ClassVar[int]
    report_id: int
    reporter_id: str
    reporter_name: str
    player_id: str
    player_name: str
    reason: ReportReason
    details: str
    message_ids: _containers.RepeatedScalarFieldContainer[int]
    table_id: str
    status: ReportStatus
    created_at: _timestamp_pb2.Timestamp
    context: _containers.RepeatedCompositeFieldContainer[ChatMessage]
    earlier_reports: int
    action: ReportAction
    duration_minutes: int
    note: str
    resolved_by: str
    resolved_at: _timestamp_pb2.Timestamp
    reporters: int
    def __init__(self, report_id: _Optional[int] = ..., reporter_id: _Optional[str] = ..., reporter_name: _Optional[str] = ..., player_id: _Optional[str] = ..., player_name: _Optional[str] = ..., reason: _Optional[_Union[ReportReason, str]] = ..., details: _Optional[str] = ..., message_ids: _Optional[_Iterable[int]] = ..., table_id: _Optional[str] = ..., status: _Optional[_Union[ReportStatus, str]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., context: _Optional[_Iterable[_Union[ChatMessage, _Mapping]]] = ..., earlier_reports: _Optional[int] = ..., action: _Optional[_Union[ReportAction, str]] = ..., duration_minutes: _Optional[int] = ..., note: _Optional[str] = ..., resolved_by: _Optional[str] = ..., resolved_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reporters: _Optional[int] = ...) -> None: ...

class ListReportsRequest(_message.Message):
    __slots__ = ("include_resolved", "limit", "page_size", "page_token")
    INCLUDE_RESOLVED_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    include_resolved: bool
    limit: int
    page_size: int
    page_token: str
    def __init__(self, include_resolved: _Optional[bool] = ..., limit: _Optional[int] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListReportsResponse(_message.Message):
    __slots__ = ("reports", "next_page_token")
    REPORTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    reports: _containers.RepeatedCompositeFieldContainer[PlayerReport]
    next_page_token: str
    def __init__(self, reports: _Optional[_Iterable[_Union[PlayerReport, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ResolveReportRequest(_message.Message):
    __slots__ = ("report_id", "action", "duration_minutes", "note")
    REPORT_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    DURATION_MINUTES_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    report_id: int
    action: ReportAction
    duration_minutes: int
    note: str
    def __init__(self, report_id: _Optional[int] = ..., action: _Optional[_Union[ReportAction, str]] = ..., duration_minutes: _Optional[int] = ..., note: _Optional[str] = ...) -> None: ...

class ResolveReportResponse(_message.Message):
    __slots__ = ("report",)
    REPORT_FIELD_NUMBER: _ClassVar[int]
    report: PlayerReport
    def __init__(self, report: _Optional[_Union[PlayerReport, _Mapping]] = ...) -> None: ...

class DeleteAccountRequest(_message.Message):
    __slots__ = ("confirm_name",)
    CONFIRM_NAME_FIELD_NUMBER: _ClassVar[int]
    confirm_name: str
    def __init__(self, confirm_name: _Optional[str] = ...) -> None: ...

class DeleteAccountResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BanPlayerRequest(_message.Message):
    __slots__ = ("player_id", "duration_minutes", "reason")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DURATION_MINUTES_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    duration_minutes: int
    reason: str
    def __init__(self, player_id: _Optional[str] = ..., duration_minutes: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class BanPlayerResponse(_message.Message):
    __slots__ = ("banned_until",)
    BANNED_UNTIL_FIELD_NUMBER: _ClassVar[int]
    banned_until: _timestamp_pb2.Timestamp
    def __init__(self, banned_until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class UnbanPlayerRequest(_message.Message):
    __slots__ = ("player_id", "reason")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    reason: str
    def __init__(self, player_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class UnbanPlayerResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GrantRoleRequest(_message.Message):
    __slots__ = ("player_id", "role", "reason")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    role: str
    reason: str
    def __init__(self, player_id: _Optional[str] = ..., role: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class GrantRoleResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RevokeRoleRequest(_message.Message):
    __slots__ = ("player_id", "reason")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    reason: str
    def __init__(self, player_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RevokeRoleResponse(_message.Message):
    __slots__ = ("role",)
    ROLE_FIELD_NUMBER: _ClassVar[int]
    role: str
    def __init__(self, role: _Optional[str] = ...) -> None: ...

class StaffMember(_message.Message):
    __slots__ = ("player_id", "display_name", "role", "granted_by", "granted_at")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    GRANTED_BY_FIELD_NUMBER: _ClassVar[int]
    GRANTED_AT_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    role: str
    granted_by: str
    granted_at: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., role: _Optional[str] = ..., granted_by: _Optional[str] = ..., granted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListStaffRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListStaffResponse(_message.Message):
    __slots__ = ("staff",)
    STAFF_FIELD_NUMBER: _ClassVar[int]
    staff: _containers.RepeatedCompositeFieldContainer[StaffMember]
    def __init__(self, staff: _Optional[_Iterable[_Union[StaffMember, _Mapping]]] = ...) -> None: ...

class AdjustChipsRequest(_message.Message):
    __slots__ = ("player_id", "amount", "reason")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    amount: int
    reason: str
    def __init__(self, player_id: _Optional[str] = ..., amount: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class AdjustChipsResponse(_message.Message):
    __slots__ = ("balance",)
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    balance: int
    def __init__(self, balance: _Optional[int] = ...) -> None: ...

class AuditEntry(_message.Message):
    __slots__ = ("audit_id", "time", "actor_id", "actor_role", "action", "target_id", "reason", "detail")
    AUDIT_ID_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    ACTOR_ID_FIELD_NUMBER: _ClassVar[int]
    ACTOR_ROLE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    audit_id: int
    time: _timestamp_pb2.Timestamp
    actor_id: str
    actor_role: str
    action: str
    target_id: str
    reason: str
    detail: str
    def __init__(self, audit_id: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., actor_id: _Optional[str] = ..., actor_role: _Optional[str] = ..., action: _Optional[str] = ..., target_id: _Optional[str] = ..., reason: _Optional[str] = ..., detail: _Optional[str] = ...) -> None: ...

class ListAuditLogRequest(_message.Message):
    __slots__ = ("limit", "target_id")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    limit: int
    target_id: str
    def __init__(self, limit: _Optional[int] = ..., target_id: _Optional[str] = ...) -> None: ...

class ListAuditLogResponse(_message.Message):
    __slots__ = ("entries",)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[AuditEntry]
    def __init__(self, entries: _Optional[_Iterable[_Union[AuditEntry, _Mapping]]] = ...) -> None: ...

class FoundPlayer(_message.Message):
    __slots__ = ("player_id", "display_name", "friend", "request_pending", "avatar")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    FRIEND_FIELD_NUMBER: _ClassVar[int]
    REQUEST_PENDING_FIELD_NUMBER: _ClassVar[int]
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    friend: bool
    request_pending: bool
    avatar: Avatar
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., friend: _Optional[bool] = ..., request_pending: _Optional[bool] = ..., avatar: _Optional[_Union[Avatar, str]] = ...) -> None: ...

class FindPlayersRequest(_message.Message):
    __slots__ = ("prefix",)
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    prefix: str
    def __init__(self, prefix: _Optional[str] = ...) -> None: ...

class FindPlayersResponse(_message.Message):
    __slots__ = ("players",)
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    players: _containers.RepeatedCompositeFieldContainer[FoundPlayer]
    def __init__(self, players: _Optional[_Iterable[_Union[FoundPlayer, _Mapping]]] = ...) -> None: ...

class Friend(_message.Message):
    __slots__ = ("player_id", "display_name", "since", "table", "avatar")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    since: _timestamp_pb2.Timestamp
    table: LobbyTable
    avatar: Avatar
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., table: _Optional[_Union[LobbyTable, _Mapping]] = ..., avatar: _Optional[_Union[Avatar, str]] = ...) -> None: ...

class FriendRequest(_message.Message):
    __slots__ = ("player_id", "display_name", "sent_at", "avatar")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SENT_AT_FIELD_NUMBER: _ClassVar[int]
    AVATAR_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    sent_at: _timestamp_pb2.Timestamp
    avatar: Avatar
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., sent_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., avatar: _Optional[_Union[Avatar, str]] = ...) -> None: ...

class BlockedPlayer(_message.Message):
    __slots__ = ("player_id", "display_name", "since")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    since: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SendFriendRequestRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class SendFriendRequestResponse(_message.Message):
    __slots__ = ("accepted",)
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    accepted: bool
    def __init__(self, accepted: _Optional[bool] = ...) -> None: ...

class AcceptFriendRequestRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class AcceptFriendRequestResponse(_message.Message):
    __slots__ = ("friend",)
    FRIEND_FIELD_NUMBER: _ClassVar[int]
    friend: Friend
    def __init__(self, friend: _Optional[_Union[Friend, _Mapping]] = ...) -> None: ...

class DeclineFriendRequestRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class DeclineFriendRequestResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CancelFriendRequestRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class CancelFriendRequestResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RemoveFriendRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class RemoveFriendResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BlockPlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class BlockPlayerResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UnblockPlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class UnblockPlayerResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListFriendsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListFriendsResponse(_message.Message):
    __slots__ = ("friends", "incoming", "outgoing", "blocked", "friends_max", "pending_max")
    FRIENDS_FIELD_NUMBER: _ClassVar[int]
    INCOMING_FIELD_NUMBER: _ClassVar[int]
    OUTGOING_FIELD_NUMBER: _ClassVar[int]
    BLOCKED_FIELD_NUMBER: _ClassVar[int]
    FRIENDS_MAX_FIELD_NUMBER: _ClassVar[int]
    PENDING_MAX_FIELD_NUMBER: _ClassVar[int]
    friends: _containers.RepeatedCompositeFieldContainer[Friend]
    incoming: _containers.RepeatedCompositeFieldContainer[FriendRequest]
    outgoing: _containers.RepeatedCompositeFieldContainer[FriendRequest]
    blocked: _containers.RepeatedCompositeFieldContainer[BlockedPlayer]
    friends_max: int
    pending_max: int
    def __init__(self, friends: _Optional[_Iterable[_Union[Friend, _Mapping]]] = ..., incoming: _Optional[_Iterable[_Union[FriendRequest, _Mapping]]] = ..., outgoing: _Optional[_Iterable[_Union[FriendRequest, _Mapping]]] = ..., blocked: _Optional[_Iterable[_Union[BlockedPlayer, _Mapping]]] = ..., friends_max: _Optional[int] = ..., pending_max: _Optional[int] = ...) -> None: ...

class InviteToTableRequest(_message.Message):
    __slots__ = ("player_id", "table_id")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    table_id: str
    def __init__(self, player_id: _Optional[str] = ..., table_id: _Optional[str] = ...) -> None: ...

class InviteToTableResponse(_message.Message):
    __slots__ = ("notification",)
    NOTIFICATION_FIELD_NUMBER: _ClassVar[int]
    notification: Notification
    def __init__(self, notification: _Optional[_Union[Notification, _Mapping]] = ...) -> None: ...

class JoinFriendRequest(_message.Message):
    __slots__ = ("player_id", "invite_code")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    INVITE_CODE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    invite_code: str
    def __init__(self, player_id: _Optional[str] = ..., invite_code: _Optional[str] = ...) -> None: ...

class JoinFriendResponse(_message.Message):
    __slots__ = ("table", "seat", "started")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    table: LobbyTable
    seat: int
    started: bool
    def __init__(self, table: _Optional[_Union[LobbyTable, _Mapping]] = ..., seat: _Optional[int] = ..., started: _Optional[bool] = ...) -> None: ...

class Notification(_message.Message):
    __slots__ = ("notification_id", "kind", "from_player_id", "from_display_name", "table", "created_at", "expires_at", "expired", "read")
    NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    FROM_PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRED_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    notification_id: int
    kind: NotificationKind
    from_player_id: str
    from_display_name: str
    table: LobbyTable
    created_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    expired: bool
    read: bool
    def __init__(self, notification_id: _Optional[int] = ..., kind: _Optional[_Union[NotificationKind, str]] = ..., from_player_id: _Optional[str] = ..., from_display_name: _Optional[str] = ..., table: _Optional[_Union[LobbyTable, _Mapping]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expired: _Optional[bool] = ..., read: _Optional[bool] = ...) -> None: ...

class ListNotificationsRequest(_message.Message):
    __slots__ = ("before_notification_id", "limit", "unread_only")
    BEFORE_NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    UNREAD_ONLY_FIELD_NUMBER: _ClassVar[int]
    before_notification_id: int
    limit: int
    unread_only: bool
    def __init__(self, before_notification_id: _Optional[int] = ..., limit: _Optional[int] = ..., unread_only: _Optional[bool] = ...) -> None: ...

class ListNotificationsResponse(_message.Message):
    __slots__ = ("notifications", "unread")
    NOTIFICATIONS_FIELD_NUMBER: _ClassVar[int]
    UNREAD_FIELD_NUMBER: _ClassVar[int]
    notifications: _containers.RepeatedCompositeFieldContainer[Notification]
    unread: int
    def __init__(self, notifications: _Optional[_Iterable[_Union[Notification, _Mapping]]] = ..., unread: _Optional[int] = ...) -> None: ...

class MarkNotificationsReadRequest(_message.Message):
    __slots__ = ("notification_ids", "up_to_notification_id")
    NOTIFICATION_IDS_FIELD_NUMBER: _ClassVar[int]
    UP_TO_NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    notification_ids: _containers.RepeatedScalarFieldContainer[int]
    up_to_notification_id: int
    def __init__(self, notification_ids: _Optional[_Iterable[int]] = ..., up_to_notification_id: _Optional[int] = ...) -> None: ...

class MarkNotificationsReadResponse(_message.Message):
    __slots__ = ("unread",)
    UNREAD_FIELD_NUMBER: _ClassVar[int]
    unread: int
    def __init__(self, unread: _Optional[int] = ...) -> None: ...

class WatchNotificationsRequest(_message.Message):
    __slots__ = ("after_notification_id",)
    AFTER_NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    after_notification_id: int
    def __init__(self, after_notification_id: _Optional[int] = ...) -> None: ...

class WatchNotificationsResponse(_message.Message):
    __slots__ = ("notification", "unread")
    NOTIFICATION_FIELD_NUMBER: _ClassVar[int]
    UNREAD_FIELD_NUMBER: _ClassVar[int]
    notification: Notification
    unread: int
    def __init__(self, notification: _Optional[_Union[Notification, _Mapping]] = ..., unread: _Optional[int] = ...) -> None: ...

class AuthorizeWatchRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class AuthorizeWatchResponse(_message.Message):
    __slots__ = ("spectators_max",)
    SPECTATORS_MAX_FIELD_NUMBER: _ClassVar[int]
    spectators_max: int
    def __init__(self, spectators_max: _Optional[int] = ...) -> None: ...

class TournamentSpec(_message.Message):
    __slots__ = ("name", "options", "size", "min_players", "starts_at", "entry_fee", "prize_percent", "format", "swiss_rounds", "advance_per_table", "tie_breaks")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    STARTS_AT_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FEE_FIELD_NUMBER: _ClassVar[int]
    PRIZE_PERCENT_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    SWISS_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    ADVANCE_PER_TABLE_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAKS_FIELD_NUMBER: _ClassVar[int]
    name: str
    options: _common_pb2.TableOptions
    size: int
    min_players: int
    starts_at: _timestamp_pb2.Timestamp
    entry_fee: int
    prize_percent: _containers.RepeatedScalarFieldContainer[int]
    format: TournamentFormat
    swiss_rounds: int
    advance_per_table: int
    tie_breaks: _containers.RepeatedScalarFieldContainer[TieBreak]
    def __init__(self, name: _Optional[str] = ..., options: _Optional[_Union[_common_pb2.TableOptions, _Mapping]] = ..., size: _Optional[int] = ..., min_players: _Optional[int] = ..., starts_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., entry_fee: _Optional[int] = ..., prize_percent: _Optional[_Iterable[int]] = ..., format: _Optional[_Union[TournamentFormat, str]] = ..., swiss_rounds: _Optional[int] = ..., advance_per_table: _Optional[int] = ..., tie_breaks: _Optional[_Iterable[_Union[TieBreak, str]]] = ...) -> None: ...

class TournamentEntry(_message.Message):
    __slots__ = ("player_id", "display_name", "seed", "place", "match_points", "score", "opponents", "firsts", "out_in_round", "withdrew", "prize")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    MATCH_POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    FIRSTS_FIELD_NUMBER: _ClassVar[int]
    OUT_IN_ROUND_FIELD_NUMBER: _ClassVar[int]
    WITHDREW_FIELD_NUMBER: _ClassVar[int]
    PRIZE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    seed: int
    place: int
    match_points: int
    score: int
    opponents: int
    firsts: int
    out_in_round: int
    withdrew: bool
    prize: int
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., seed: _Optional[int] = ..., place: _Optional[int] = ..., match_points: _Optional[int] = ..., score: _Optional[int] = ..., opponents: _Optional[int] = ..., firsts: _Optional[int] = ..., out_in_round: _Optional[int] = ..., withdrew: _Optional[bool] = ..., prize: _Optional[int] = ...) -> None: ...

class TournamentTable(_message.Message):
    __slots__ = ("round", "index", "table_id", "player_ids", "finished", "places", "scores")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    PLACES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    round: int
    index: int
    table_id: str
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    finished: bool
    places: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., index: _Optional[int] = ..., table_id: _Optional[str] = ..., player_ids: _Optional[_Iterable[str]] = ..., finished: _Optional[bool] = ..., places: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class TournamentRound(_message.Message):
    __slots__ = ("round", "tables", "ended")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    round: int
    tables: _containers.RepeatedCompositeFieldContainer[TournamentTable]
    ended: bool
    def __init__(self, round: _Optional[int] = ..., tables: _Optional[_Iterable[_Union[TournamentTable, _Mapping]]] = ..., ended: _Optional[bool] = ...) -> None: ...

class Tournament(_message.Message):
    __slots__ = ("tournament_id", "spec", "status", "registered", "pool", "prizes", "round", "rounds", "standings", "rounds_played", "registered_me", "my_table_id", "version", "created_at", "started_at", "finished_at", "cancelled_reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    PRIZES_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_ME_FIELD_NUMBER: _ClassVar[int]
    MY_TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    spec: TournamentSpec
    status: TournamentStatus
    registered: int
    pool: int
    prizes: _containers.RepeatedScalarFieldContainer[int]
    round: int
    rounds: int
    standings: _containers.RepeatedCompositeFieldContainer[TournamentEntry]
    rounds_played: _containers.RepeatedCompositeFieldContainer[TournamentRound]
    registered_me: bool
    my_table_id: str
    version: int
    created_at: _timestamp_pb2.Timestamp
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    cancelled_reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., spec: _Optional[_Union[TournamentSpec, _Mapping]] = ..., status: _Optional[_Union[TournamentStatus, str]] = ..., registered: _Optional[int] = ..., pool: _Optional[int] = ..., prizes: _Optional[_Iterable[int]] = ..., round: _Optional[int] = ..., rounds: _Optional[int] = ..., standings: _Optional[_Iterable[_Union[TournamentEntry, _Mapping]]] = ..., rounds_played: _Optional[_Iterable[_Union[TournamentRound, _Mapping]]] = ..., registered_me: _Optional[bool] = ..., my_table_id: _Optional[str] = ..., version: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., cancelled_reason: _Optional[str] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ("status", "limit")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    status: TournamentStatus
    limit: int
    def __init__(self, status: _Optional[_Union[TournamentStatus, str]] = ..., limit: _Optional[int] = ...) -> None: ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ("tournaments",)
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[Tournament]
    def __init__(self, tournaments: _Optional[_Iterable[_Union[Tournament, _Mapping]]] = ...) -> None: ...

class GetTournamentRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class GetTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class RegisterTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "entry_fee")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FEE_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    entry_fee: int
    def __init__(self, tournament_id: _Optional[str] = ..., entry_fee: _Optional[int] = ...) -> None: ...

class RegisterTournamentResponse(_message.Message):
    __slots__ = ("tournament", "balance")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    balance: int
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ..., balance: _Optional[int] = ...) -> None: ...

class UnregisterTournamentRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class UnregisterTournamentResponse(_message.Message):
    __slots__ = ("tournament", "balance")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    balance: int
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ..., balance: _Optional[int] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("spec", "tournament_id")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    spec: TournamentSpec
    tournament_id: str
    def __init__(self, spec: _Optional[_Union[TournamentSpec, _Mapping]] = ..., tournament_id: _Optional[str] = ...) -> None: ...

class CreateTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class CancelTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class CancelTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...
