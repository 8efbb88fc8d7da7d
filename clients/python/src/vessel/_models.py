# Generated from schema/openapi.json by scripts/generate.ts (scripts/python-models.ts). Do not edit.
"""The API's resources as dataclasses, field for field as the wire has them (snake_case, ISO times)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Sequence, TypedDict

SessionStatus = Literal["QUEUED", "PENDING", "RUNNING", "REQUEST_RELEASE", "RELEASED", "TIMED_OUT", "FAILED"]
SessionEndReason = Literal["client_release", "force_stop", "timeout", "idle_timeout", "browser_crash", "node_shutdown", "launch_failed", "api_key_revoked", "queue_timeout"]
DownloadState = Literal["in_progress", "completed", "canceled", "refused"]
CredentialFillFilled = Literal["username", "password", "totp"]


@dataclass(frozen=True)
class SessionLiveView:
    """The API's SessionLiveView resource."""

    interactive: bool
    instructions: str | None
    #: People watching the live view now (on the node that runs the session).
    viewers: int

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SessionLiveView:
        return cls(
            interactive=data["interactive"],
            instructions=data["instructions"],
            viewers=data["viewers"],
        )


@dataclass(frozen=True)
class SessionBrowserViewport:
    """The size of every tab (innerWidth × innerHeight), 200–3840 each."""

    width: int
    height: int
    #: Device pixels per CSS pixel (default 1).
    device_scale_factor: float | None = None
    #: Emulate a phone: mobile viewport rules and touch.
    mobile: bool | None = None

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SessionBrowserViewport:
        return cls(
            width=data["width"],
            height=data["height"],
            device_scale_factor=data.get("device_scale_factor"),
            mobile=data.get("mobile"),
        )


@dataclass(frozen=True)
class SessionBrowserGeolocation:
    """What navigator.geolocation reports (the permission is granted)."""

    latitude: float
    longitude: float
    #: Metres (default 10).
    accuracy: float | None = None

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SessionBrowserGeolocation:
        return cls(
            latitude=data["latitude"],
            longitude=data["longitude"],
            accuracy=data.get("accuracy"),
        )


@dataclass(frozen=True)
class SessionBrowser:
    """Browser settings for this session: they hold in every tab, frame and worker it opens, whichever CDP client connects."""

    #: The size of every tab (innerWidth × innerHeight), 200–3840 each.
    viewport: SessionBrowserViewport | None = None
    #: navigator.userAgent and the User-Agent header (at most 512 characters).
    user_agent: str | None = None
    #: navigator.language(s), Accept-Language and Intl's default locale.
    locale: str | None = None
    #: Intl's time zone and every Date.
    timezone: str | None = None
    #: What navigator.geolocation reports (the permission is granted).
    geolocation: SessionBrowserGeolocation | None = None

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SessionBrowser:
        return cls(
            viewport=None if data.get("viewport") is None else SessionBrowserViewport.from_wire(data["viewport"]),
            user_agent=data.get("user_agent"),
            locale=data.get("locale"),
            timezone=data.get("timezone"),
            geolocation=None if data.get("geolocation") is None else SessionBrowserGeolocation.from_wire(data["geolocation"]),
        )


@dataclass(frozen=True)
class SessionNetworkPolicy:
    """This session's own network rules, narrowing the workspace's (GET /v1/workspace/network-policy) and the node's: `{allow, deny}` of host names, `*.` patterns, addresses and CIDRs with optional `:port`. A bad rule → 422 `invalid-network-rule`."""

    #: Destinations allowed, of those the node allows: host names (`example.com`), their subdomains (`*.example.com`), IP addresses or CIDRs (`10.1.0.0/16`), each with an optional `:port` (`[2001:db8::1]:443` for IPv6). Empty: whatever the node allows.
    allow: list[str]
    #: Destinations refused, in the same forms; deny beats allow. A CIDR is checked against the addresses a name resolves to.
    deny: list[str]

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SessionNetworkPolicy:
        return cls(
            allow=data["allow"],
            deny=data["deny"],
        )


@dataclass(frozen=True)
class Session:
    """The API's Session resource."""

    #: `ses_<ULID>`
    id: str
    status: SessionStatus
    end_reason: SessionEndReason | None
    region: str
    created_at: str
    started_at: str | None
    #: The hard end: creation plus `timeout_seconds` (at most the session limit, VESSEL_MAX_SESSION_SECONDS).
    expires_at: str
    ended_at: str | None
    timeout_seconds: int
    idle_timeout_seconds: int | None
    profile_id: str | None
    live_view: SessionLiveView
    #: Your own labels, as given at create.
    metadata: dict[str, str]
    #: The browser settings given at create, or null.
    browser: SessionBrowser | None
    #: Extensions loaded into this session.
    extension_ids: list[str]
    #: Whether the session's logs are captured (GET …/logs).
    logs: bool
    #: Whether the session's screen is recorded (GET …/recording once it ends).
    recording: bool
    #: While QUEUED: its place in the admission queue's fair order (1 = next to start); null otherwise.
    queue_position: int | None
    #: `wss://<host>/cdp?token=<JWT>` for any CDP client, valid until the session ends. Only in single-session answers while RUNNING.
    connect_url: str | None
    #: `https://<host>/?token=<JWT>`, valid about 5 minutes; re-mint with keepalive.
    live_view_url: str | None
    #: This session's own network rules, narrowing the workspace's (GET /v1/workspace/network-policy) and the node's: `{allow, deny}` of host names, `*.` patterns, addresses and CIDRs with optional `:port`. A bad rule → 422 `invalid-network-rule`.
    network_policy: SessionNetworkPolicy | None = None
    #: With no free browser (or the workspace at its session cap), wait in the admission queue up to this long (at most 3600): the answer is then 202 QUEUED with `queue_position`. 0 (the default): refused at once (503/429).
    queue_timeout_seconds: int | None = None
    #: Within its workspace, a queued session with a higher priority (−10…10, default 0) starts first; then the oldest.
    priority: int | None = None

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Session:
        return cls(
            id=data["id"],
            status=data["status"],
            end_reason=data["end_reason"],
            region=data["region"],
            created_at=data["created_at"],
            started_at=data["started_at"],
            expires_at=data["expires_at"],
            ended_at=data["ended_at"],
            timeout_seconds=data["timeout_seconds"],
            idle_timeout_seconds=data["idle_timeout_seconds"],
            profile_id=data["profile_id"],
            live_view=SessionLiveView.from_wire(data["live_view"]),
            metadata=data["metadata"],
            browser=None if data["browser"] is None else SessionBrowser.from_wire(data["browser"]),
            extension_ids=data["extension_ids"],
            logs=data["logs"],
            recording=data["recording"],
            network_policy=None if data.get("network_policy") is None else SessionNetworkPolicy.from_wire(data["network_policy"]),
            queue_timeout_seconds=data.get("queue_timeout_seconds"),
            priority=data.get("priority"),
            queue_position=data["queue_position"],
            connect_url=data["connect_url"],
            live_view_url=data["live_view_url"],
        )


@dataclass(frozen=True)
class SessionEvent:
    """The API's SessionEvent resource."""

    #: `evt_<ULID>`: events sort by id.
    id: str
    session_id: str
    #: For example `live_view.done`.
    type: str
    created_at: str
    #: Details by type: an end's `reason`, a viewer's `viewer_id`, a CDP client count.
    data: dict[str, Any]

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SessionEvent:
        return cls(
            id=data["id"],
            session_id=data["session_id"],
            type=data["type"],
            created_at=data["created_at"],
            data=data["data"],
        )


@dataclass(frozen=True)
class Profile:
    """The API's Profile resource."""

    #: `prof_<ULID>`
    profile_id: str
    label: str
    #: The session it was last saved from; null when imported (or that session was deleted).
    source_session_id: str | None
    #: Version of the stored profile document (docs/profile-format.md).
    format_version: int
    #: Size of the profile document, which the deployment's limit applies to.
    size_bytes: int
    cookie_count: int
    #: Origins with localStorage or sessionStorage.
    origin_count: int
    #: localStorage and sessionStorage items of all origins.
    key_count: int
    created_at: str
    #: When its state was last saved (or its label changed).
    updated_at: str

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Profile:
        return cls(
            profile_id=data["profile_id"],
            label=data["label"],
            source_session_id=data["source_session_id"],
            format_version=data["format_version"],
            size_bytes=data["size_bytes"],
            cookie_count=data["cookie_count"],
            origin_count=data["origin_count"],
            key_count=data["key_count"],
            created_at=data["created_at"],
            updated_at=data["updated_at"],
        )


@dataclass(frozen=True)
class Download:
    """The API's Download resource."""

    #: Chromium's id for the download (a UUID).
    id: str
    #: The file name the site suggested.
    name: str
    state: DownloadState
    #: Size when completed; bytes received so far otherwise.
    bytes: int
    #: Why it was refused (the size cap, for example).
    reason: str | None
    started_at: str
    ended_at: str | None
    #: Whether GET …/downloads/{download_id} serves it now: completed, and the session still running.
    available: bool

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Download:
        return cls(
            id=data["id"],
            name=data["name"],
            state=data["state"],
            bytes=data["bytes"],
            reason=data["reason"],
            started_at=data["started_at"],
            ended_at=data["ended_at"],
            available=data["available"],
        )


@dataclass(frozen=True)
class SessionLogEntry:
    """One entry, its fields beside `seq`, `type` and `at` (snake_case). console: `level`, `text`, `source_url`, `line`, `column`, `page_url`. page_error: `message`, `stack`, `source_url`, `line`, `column`, `page_url`. navigation: `url`, `frame_id`, `main_frame`, `same_document`. network: `method`, `url`, `resource_type`, `status`, `status_text`, `mime_type`, `response_bytes`, `request_bytes`, `started_at`, `duration_ms`, `failure`, `from_cache`, `page_url`. cdp: `method`, `duration_ms` (null: never answered), `refused` (the policy refused it). logs.truncated: `reason`, `max_entries`, `max_bytes`."""

    #: 1, 2, 3, … in the order the entries were recorded.
    seq: int
    #: `console`, `page_error`, `navigation`, `network`, `cdp`, or `logs.truncated` (the log reached its bounds; nothing follows).
    type: str
    #: When it was recorded (for `network`, when the request finished; `started_at` is when it began).
    at: str
    #: The fields beside those above, by name.
    fields: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SessionLogEntry:
        return cls(
            seq=data["seq"],
            type=data["type"],
            at=data["at"],
            fields={k: v for k, v in data.items() if k not in ("seq", "type", "at")},
        )


@dataclass(frozen=True)
class SessionFile:
    """The API's SessionFile resource."""

    #: `file_<32 hex>`
    id: str
    #: The file's name as the page sees it (the uploaded name, made safe).
    name: str
    size: int
    #: Hex SHA-256 of the bytes stored.
    sha256: str
    #: Where the file is in the session's own folder: give it to `DOM.setFileInputFiles` or Puppeteer's `uploadFile(path)`. Not to Playwright, which reads a path on its own machine: give it a buffer.
    path: str
    uploaded_at: str
    #: Whether the file is still there (the session runs); files go with the session.
    available: bool

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SessionFile:
        return cls(
            id=data["id"],
            name=data["name"],
            size=data["size"],
            sha256=data["sha256"],
            path=data["path"],
            uploaded_at=data["uploaded_at"],
            available=data["available"],
        )


@dataclass(frozen=True)
class Extension:
    """The API's Extension resource."""

    #: `ext_<ULID>`
    id: str
    #: The manifest's name.
    name: str
    #: The manifest's version.
    version: str
    #: The zip's size.
    size_bytes: int
    #: Hex SHA-256 of the zip as uploaded.
    sha256: str
    created_at: str

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Extension:
        return cls(
            id=data["id"],
            name=data["name"],
            version=data["version"],
            size_bytes=data["size_bytes"],
            sha256=data["sha256"],
            created_at=data["created_at"],
        )


@dataclass(frozen=True)
class Credential:
    """The API's Credential resource."""

    #: `cred_<ULID>`
    id: str
    name: str
    #: The top-level origins it may be filled into.
    origins: list[str]
    #: The username masked for people (`al•••@example.com`); the username itself is never returned.
    username_hint: str
    #: Whether it holds a TOTP secret (codes are computed on the server at each fill).
    has_totp: bool
    created_at: str
    updated_at: str
    #: When it was last filled into a session.
    last_used_at: str | None

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Credential:
        return cls(
            id=data["id"],
            name=data["name"],
            origins=data["origins"],
            username_hint=data["username_hint"],
            has_totp=data["has_totp"],
            created_at=data["created_at"],
            updated_at=data["updated_at"],
            last_used_at=data["last_used_at"],
        )


@dataclass(frozen=True)
class CredentialFill:
    """The API's CredentialFill resource."""

    #: The fields typed into, in order; empty when the page's top document has none.
    filled: list[CredentialFillFilled]
    #: The top-level origin of the tab that was filled.
    origin: str

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> CredentialFill:
        return cls(
            filled=data["filled"],
            origin=data["origin"],
        )


class CreateSessionOptions(TypedDict, total=False):
    """The options of ``vessel.sessions.create`` beside its region, as the API declares them."""

    #: Start from a saved profile of this workspace.
    profile_id: str
    #: When the session is released (PATCH REQUEST_RELEASE), save its state back into `profile_id` (required with it).
    save_profile_on_release: bool
    live_view: Mapping[str, Any]
    #: Hard end, in seconds. At most the session limit (VESSEL_MAX_SESSION_SECONDS, 1800 unless the deployment or the workspace sets another, never above 86400), which is also the default.
    timeout_seconds: int
    #: Release the session after this long without a CDP client (default 300; at most the session limit).
    idle_timeout_seconds: int
    #: An upstream proxy for this session's traffic.
    proxy: Mapping[str, Any]
    #: Capture the session's console messages, page errors, navigations, network requests and CDP methods (GET …/logs). Default: the deployment's `VESSEL_LOGS` (on).
    logs: bool
    #: Your own labels: at most 16 keys ([a-z0-9_.-]{1,64}) to strings of at most 512 characters.
    metadata: Mapping[str, str]
    #: Browser settings for this session: they hold in every tab, frame and worker it opens, whichever CDP client connects.
    browser: Mapping[str, Any]
    #: Extensions of this workspace (POST /v1/extensions) to load into this session only; needs full Chromium (else 422 extensions-unsupported). Each id once.
    extension_ids: Sequence[str]
    #: Record the session's screen into a video (GET …/recording once it ends). Default: the deployment's `VESSEL_RECORDING` (off).
    recording: bool
    #: Open this address in the session's first tab as it starts (not waited for; the egress policy judges it like any navigation).
    start_url: str
    #: This session's own network rules, narrowing the workspace's (GET /v1/workspace/network-policy) and the node's: `{allow, deny}` of host names, `*.` patterns, addresses and CIDRs with optional `:port`. A bad rule → 422 `invalid-network-rule`.
    network_policy: Mapping[str, Any]
    #: With no free browser (or the workspace at its session cap), wait in the admission queue up to this long (at most 3600): the answer is then 202 QUEUED with `queue_position`. 0 (the default): refused at once (503/429).
    queue_timeout_seconds: int
    #: Within its workspace, a queued session with a higher priority (−10…10, default 0) starts first; then the oldest.
    priority: int
