// Generated from schema/openapi.json by scripts/generate.ts (openapi-typescript). Do not edit.
export interface paths {
    "/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Service health
         * @description The state of the database and the browser pool, the version, the regions served, and how sessions are isolated.
         */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sessions
         * @description The workspace's sessions in creation (ULID) order; cursors stay stable while sessions are created. No tokens in lists.
         */
        get: operations["sessions"];
        put?: never;
        /**
         * Create a browser session
         * @description Starts a Chromium for the key's workspace and answers 201 once it is RUNNING, with `connect_url` and `live_view_url`. `Idempotency-Key` (a UUID) is required: the same key and body within 24 hours replays the first answer with 200 and `Idempotent-Replayed: true`; the same key with another body is 422; while the first is in flight, 409 with `Retry-After`. Requests refused before they run (400, 401, 403, 429) and failures (503, 5xx) store nothing, so they can be retried with the same key. A workspace already holding its cap of live sessions (`VESSEL_WORKSPACE_MAX_SESSIONS`, or its own) gets 429 `workspace-session-limit` with `Retry-After`; a replay is never refused by the cap.
         */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a session
         * @description With freshly minted `connect_url` and `live_view_url` while it runs.
         */
        get: operations["session"];
        put?: never;
        post?: never;
        /**
         * Force-stop a session (dashboard)
         * @description For workspace owners and admins signed in to the dashboard. API keys get 403: they release with PATCH.
         */
        delete: operations["forceStopSession"];
        options?: never;
        head?: never;
        /**
         * Release a session
         * @description `{"status": "REQUEST_RELEASE"}` ends the session: its browser closes and its sockets close. 204, also for a session that already ended.
         */
        patch: operations["releaseSession"];
        trace?: never;
    };
    "/v1/sessions/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a session's events (long poll)
         * @description What happened to the session, oldest first: `session.running`, `session.released`, `session.timed_out`, `session.failed`, `live_view.opened`, `live_view.closed`, `live_view.done` (the person clicked Done), `cdp.connected`, `cdp.disconnected`. Pass the answer's `next_cursor` as `after` to read on. With `wait` (up to 30 s) an empty answer is held until a matching event arrives or the session ends, so waiting for Done needs no tight loop: `GET /v1/sessions/{id}/events?type=live_view.done&wait=30`.
         */
        get: operations["sessionEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/live-view": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Close a session's live views
         * @description Every `live_view_url` handed out so far stops working and open viewers are dropped (they are told why); the session keeps running. A new link comes from keepalive. API keys of the session's workspace, or its dashboard owners and admins.
         */
        delete: operations["revokeLiveViews"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}:keepalive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-mint a session's tokens
         * @description New `connect_url` and `live_view_url` (never past the session's hard end); also resets the idle countdown.
         */
        post: operations["keepaliveSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a session's logs (long poll)
         * @description What the session's pages did, in order: console messages, uncaught errors, navigations, network requests (never a body or a header; credential query values masked) and the CDP methods clients sent (names and times, never params). Captured by the node over its own connection unless the session was created with `logs: false`. Pass the answer's `next_cursor` as `cursor` (or a `seq` as `after`) to read on. With `wait` (up to 30 s) an empty answer is held while the session runs until an entry is written or the log ends: `GET /v1/sessions/{id}/logs?type=console,page_error&cursor=…&wait=30` follows a session. Kept `VESSEL_LOGS_RETENTION_DAYS` (7) after the session started; every read is audited (`session.logs.read`).
         */
        get: operations["sessionLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/recording": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Fetch a session's recording
         * @description The session's screen as an MP4 (H.264, variable frame rate), for sessions created with `recording: true` (or on a deployment recording by default), once the session has ended and the video is stored: 409 `recording-not-ready` with `Retry-After` before (the `recording.ready` event says when), 404 when there is none (not recorded, deleted, expired after `VESSEL_RECORDING_RETENTION_DAYS`, or failed: the detail says why). Served inline with `Accept-Ranges: bytes`: one `Range` gets 206 with exactly those bytes (a player seeks this way), a range past the end 416. Dashboard users reach it with their cookie (a `<video src>`). Every read is audited (`session.recording.read`).
         */
        get: operations["sessionRecording"];
        put?: never;
        post?: never;
        /**
         * Delete a session's recording
         * @description Deletes the video and its data key at once (at any status: one still being made is dropped). 204; 404 when there is none.
         */
        delete: operations["deleteRecording"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/har": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export a session's network log as HAR
         * @description HAR 1.2, built from the session's logs (so only for sessions whose logs are captured, within `VESSEL_LOGS_RETENTION_DAYS`): a page per document its tabs' main frames committed, an entry per request and per hop of a redirect (`redirectURL`), with status, timings (blocked, dns, connect, ssl, send, wait, receive), sizes, mime type and headers. Header names are kept; the values of credential headers (`Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`, …) and credential query values are `[redacted]`, by the same rule as the logs; bodies are never kept. A failed request has status 0 and `response._failure`. Audited (`session.har.read`).
         */
        get: operations["sessionHar"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/bundle": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download a session's evidence bundle (zip)
         * @description One zip of what Vessel keeps of the session, written as it is sent: `session.json` (the session as `GET /v1/sessions/{id}` shows it, without its URLs), `events.json` (its events, oldest first), `logs.ndjson` (its log entries, one JSON object a line), `session.har` (as `GET /v1/sessions/{id}/har`) and `recording.mp4` when it has a video. 409 `recording-not-ready` with `Retry-After` while its recording is still being written; a failed, deleted or expired recording is left out. Audited (`session.bundle.read`).
         */
        get: operations["sessionBundle"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/downloads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a session's downloads
         * @description Files the session's pages downloaded, oldest first. Chromium saves them in the session's own folder, whatever folder a CDP client asks for; together they may take at most `VESSEL_DOWNLOAD_MAX_BYTES` (a download that would pass it is cancelled and listed as `refused`). The list outlives the session; the files do not: fetch them before releasing it. The list envelope, always one page (`has_more: false`).
         */
        get: operations["sessionDownloads"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/downloads/{download_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Fetch a downloaded file
         * @description The file's bytes as an attachment (`application/octet-stream`, never rendered). Only completed downloads of a running session: 409 while it is still downloading or when it was refused, 410 once the session has ended.
         */
        get: operations["sessionDownload"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the files uploaded into a session
         * @description Oldest first. The list outlives the session; the files do not (`available`). The list envelope, always one page (`has_more: false`): a session holds at most `VESSEL_UPLOAD_MAX_FILES`.
         */
        get: operations["sessionFiles"];
        put?: never;
        /**
         * Upload a file into a running session
         * @description Puts a file into the session's own folder for its pages' file inputs (`multipart/form-data`, field `file`). The answer's `path` is accepted by `DOM.setFileInputFiles`, so by Puppeteer's `elementHandle.uploadFile(path)` (and chrome-remote-interface); no other path on the server is. Playwright needs no upload and must not be given the path: over `connectOverCDP` it reads `setInputFiles(path)` on the client's own machine and never sends the path, so pass the bytes instead, `setInputFiles(selector, { name, mimeType, buffer })`. All of a session's files together may take `VESSEL_UPLOAD_MAX_BYTES` and `VESSEL_UPLOAD_MAX_FILES`, uploads in progress included (413 beyond, with nothing kept); an upload that would leave the node's volume with less than `VESSEL_UPLOAD_MIN_FREE_BYTES` free is 507. Files go with the session when it ends.
         */
        post: operations["uploadSessionFile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/extensions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the workspace's extensions
         * @description The list envelope, always one page (`has_more: false`): a workspace holds few extensions (its quota).
         */
        get: operations["extensions"];
        put?: never;
        /**
         * Upload a browser extension
         * @description A zip of an unpacked Manifest V3 extension (manifest.json at its top, or in the one folder at its top), sent as the body (`application/zip`) or as `multipart/form-data` field `file`; at most 16 MiB zipped, 64 MiB and 2,000 entries unpacked. Its place in the workspace's quota is reserved first (409 extension-quota-exceeded), then it is checked and unpacked off the event loop (422 invalid-extension; 422 extension-permission-refused for a debugging or native channel such as `debugger`), stored encrypted, and loaded into the sessions created with its id in `extension_ids` (full Chromium, jailed browsers only: else 422 extensions-need-jail).
         */
        post: operations["uploadExtension"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/extensions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an extension */
        get: operations["extension"];
        put?: never;
        post?: never;
        /**
         * Delete an extension
         * @description Its key is destroyed with it. Sessions running with it keep it until they end; new sessions cannot ask for it.
         */
        delete: operations["deleteExtension"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List profiles
         * @description The workspace's profiles in creation (ULID) order; cursors stay stable while profiles are created.
         */
        get: operations["profiles"];
        put?: never;
        /**
         * Save a profile
         * @description Saves the cookies, localStorage and sessionStorage of a running session (`session_id`; the session keeps running), or imports a Playwright `storageState` (`storage_state`). Stored as a versioned, browser-independent document, encrypted with a key of its own. 413 `profile-too-large` over the deployment's limit.
         */
        post: operations["createProfile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a profile
         * @description Its label, source and counts; never its contents (see storage-state).
         */
        get: operations["profile"];
        put?: never;
        post?: never;
        /**
         * Delete a profile
         * @description The row goes, and with it the profile's data key: nothing of it can be decrypted any more. Sessions started from it keep running.
         */
        delete: operations["deleteProfile"];
        options?: never;
        head?: never;
        /** Rename a profile */
        patch: operations["updateProfile"];
        trace?: never;
    };
    "/v1/profiles/{id}:save": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Save a session into a profile
         * @description Replaces the profile's cookies and storage with those of a running session of the workspace, keeping its id and label.
         */
        post: operations["saveProfile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles/{id}/storage-state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export a profile (Playwright storageState)
         * @description The profile's cookies and per-origin localStorage in Playwright's `storageState` shape (`browser.newContext({ storageState })` takes it as is), plus per-origin `sessionStorage`. It holds the secrets in the clear: the call is audited (`profile.export`) before anything is decrypted, and the answer is marked `Cache-Control: no-store`.
         */
        get: operations["profileStorageState"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List credentials
         * @description The workspace's credentials in creation order, without secrets. API keys need `credentials:use` or `credentials:manage`.
         */
        get: operations["credentials"];
        put?: never;
        /**
         * Store a credential
         * @description Stores a login for the server to fill into sessions, sealed under a data key of its own. Secret values (username, password, TOTP secret) are write-only: no answer, log line or audit entry ever holds them. API keys need the scope `credentials:manage`; people must be owners or admins.
         */
        post: operations["createCredential"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credentials/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a credential
         * @description Its name, origins, username hint and last use; never a secret.
         */
        get: operations["credential"];
        put?: never;
        post?: never;
        /**
         * Delete a credential
         * @description The row goes, and with it its data key: its secrets cannot be decrypted any more.
         */
        delete: operations["deleteCredential"];
        options?: never;
        head?: never;
        /**
         * Change a credential
         * @description Renames it, changes its origins, or replaces secrets (those not named are kept; `totp_secret: null` removes it). Secret values (username, password, TOTP secret) are write-only: no answer, log line or audit entry ever holds them. API keys need the scope `credentials:manage`; people must be owners or admins.
         */
        patch: operations["updateCredential"];
        trace?: never;
    };
    "/v1/sessions/{id}/credentials/{credential_id}/fill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fill a credential into a session
         * @description The server types the credential into the session's active tab through its own connection to the browser, so the secrets never reach the caller or its CDP socket. Only when the tab's top-level origin is one of the credential's origins (else 422 `credential-origin-mismatch`), and only into the top document (never a frame). Without selectors the fields are found by their autocomplete tokens (`username`, `current-password`, `one-time-code`) or `type=password`; a TOTP code is computed on the server. Audited as `credential.fill`. API keys need the scope `credentials:use`.
         */
        post: operations["fillCredential"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhooks */
        get: operations["webhooks"];
        put?: never;
        /**
         * Create a webhook
         * @description Events of the workspace's sessions are POSTed to `url` as `{"type", "timestamp", "data"}`, signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The answer holds the signing `secret`, shown this once. At most 20 per workspace. A URL whose deliveries the server would refuse (loopback, private or metadata addresses unless `VESSEL_WEBHOOK_ALLOW` opens them) answers 422 `webhook-address-refused`.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook
         * @description Never its secret.
         */
        get: operations["webhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook
         * @description With its secret and its deliveries.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Change a webhook
         * @description Its url, events or description; `enabled: false` stops deliveries, `enabled: true` turns a disabled webhook back on.
         */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/v1/webhooks/{id}:rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook's secret
         * @description A new secret, shown this once. For 24 hours the previous one signs too (two `v1,` signatures), so receivers can switch without a gap.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}:test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Queues a `webhook.test` event (`data`: `webhook_id`, `message`) for this webhook, sent at once and retried like any other.
         */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a webhook's deliveries
         * @description Newest first: each event sent or to be sent, its status, attempts, and the last attempt's answer.
         */
        get: operations["webhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{delivery_id}:retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry a delivery
         * @description Sends it again now, with the same `webhook-id` and body, whatever its status.
         */
        post: operations["retryWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspace/network-policy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the workspace's network rules
         * @description What the workspace's sessions may reach, within what the node allows (its `VESSEL_EGRESS_ALLOW` and the blocked ranges).
         */
        get: operations["networkPolicy"];
        /**
         * Set the workspace's network rules
         * @description Replaces them (`{allow: [], deny: []}` removes them). They only narrow the node's policy; deny beats allow; an empty allow list allows whatever the node allows. Running sessions of the workspace take them within seconds. A refused connection shows in the session's network log with `failure: "blocked-by-policy"` and the `rule`. At most 100 rules per list, 255 characters each.
         */
        put: operations["setNetworkPolicy"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspace": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the workspace's name and limits
         * @description Any member, or a key of the workspace. `limits` are its own values (null: the deployment's default), `effective` what applies.
         */
        get: operations["workspaceSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Rename the workspace or change its limits
         * @description Workspace owners, within what the deployment grants (`owner_bounds`; a value sent back unchanged is always accepted); organization admins within the hard bounds (max_sessions 1–10000, max_session_seconds 60–86400, queue_weight 1–1000, rate_limit_per_minute 1–100000). Above an owner's bound: 403 with `field`, `bound` and `setting` members. Absent fields are unchanged, null puts a limit back to the deployment's default. Admins, members and API keys: 403. New sessions take the new limits at once (a key's cached limits on another node within a minute); running sessions keep theirs.
         */
        patch: operations["updateWorkspaceSettings"];
        trace?: never;
    };
    "/v1/dashboard/ws/{slug}/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a workspace's API keys
         * @description Revoked keys stay listed, with their revocation time, for 90 days. Dashboard surface: a signed-in member of the workspace, by `Authorization: Bearer <dashboard access token>` or the dashboard's cookie. API keys are refused with 403.
         */
        get: operations["apiKeys"];
        put?: never;
        /**
         * Create an API key
         * @description The response carries the whole key in `secret`, once. Dashboard surface: a signed-in owner or admin of the workspace, by `Authorization: Bearer <dashboard access token>` or the dashboard's cookie. API keys are refused with 403.
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dashboard/ws/{slug}/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Immediate: the key fails authentication from the next request on, on every node. Idempotent. With `end_sessions=true`, every live session the key started ends too (`RELEASED`, end reason `api_key_revoked`; its CDP and live-view sockets close with 4403 and its tokens are refused), also when the key was revoked already. Dashboard surface: a signed-in owner or admin of the workspace, by `Authorization: Bearer <dashboard access token>` or the dashboard's cookie. API keys are refused with 403.
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dashboard/ws/{slug}/audit-log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a workspace's audit log
         * @description One entry per authenticated call, denied ones included, newest first. Filter by `key_prefix`, `action`, `actor_user_id`, `target` and time; `changes_only=true` leaves reads out. Dashboard surface: a signed-in owner or admin of the workspace, by `Authorization: Bearer <dashboard access token>` or the dashboard's cookie. API keys are refused with 403.
         */
        get: operations["auditLog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dashboard/ws/{slug}/claim": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Claim an ownerless workspace
         * @description An organization admin becomes the owner of a workspace that has no owner (for example `default` on a data folder from before its first start named one). A workspace with an owner answers 409. Dashboard users only; API keys are refused with 403.
         */
        post: operations["claimWorkspace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description An RFC 9457 problem document. */
        Problem: {
            /**
             * Format: uri
             * @description `{base_url}/errors/<slug>`; GET it for a description.
             */
            type: string;
            title: string;
            status: number;
            detail: string;
            /** @description The request path. */
            instance: string;
            /** @description Reference for the server log. */
            request_id?: string;
            /** @description For validation failures: each offending field. */
            errors?: {
                field: string;
                message: string;
            }[];
        };
        ApiKey: {
            /** @description The ULID inside the key. */
            id: string;
            label: string;
            /** @description `vs_<id>`: everything left of the dot. Shown in lists and in the audit log. */
            prefix: string;
            created_at: string;
            created_by_user_id: string | null;
            /** @description Updated at most once a minute. */
            last_used_at: string | null;
            revoked_at: string | null;
            revoked_by_user_id: string | null;
            /** @description What the key may do beyond sessions and profiles: `credentials:use` (fill), `credentials:manage`. */
            scopes: string[];
        };
        ApiKeyList: {
            items: components["schemas"]["ApiKey"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        AuditEntry: {
            id: string;
            /** @description `vs_<id>` of the API key that made the call; null for dashboard users. */
            key_prefix: string | null;
            /** @description The dashboard user who made the call; null for API keys. */
            actor_user_id: string | null;
            /** @description For example `session.create`. */
            action: string;
            /** @description Identifier of the resource acted on; for `auth.refused.summary`, how many refused calls the entry stands for. */
            target: string | null;
            /** @description The status the call answered with; denied calls are recorded too. */
            http_status: number;
            /** @description The request's id, as in the server log, its `X-Request-Id` answer header and problem documents. */
            request_id: string | null;
            /** @description The `X-Request-Id` the client sent, if it was 1–128 letters, digits or `._:+/=-`; only for correlation, never the request's id. */
            client_request_id: string | null;
            /** @description The caller's address. */
            ip: string | null;
            /** @description ISO 8601. */
            created_at: string;
        };
        AuditEntryList: {
            items: components["schemas"]["AuditEntry"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        ClaimedWorkspace: {
            id: string;
            slug: string;
            name: string;
            created_at: string;
            /**
             * @description The caller's role in it now: OWNER.
             * @enum {string}
             */
            role: "OWNER" | "ADMIN" | "MEMBER";
        };
        CreatedApiKey: {
            /** @description The ULID inside the key. */
            id: string;
            label: string;
            /** @description `vs_<id>`: everything left of the dot. Shown in lists and in the audit log. */
            prefix: string;
            created_at: string;
            created_by_user_id: string | null;
            /** @description Updated at most once a minute. */
            last_used_at: string | null;
            revoked_at: string | null;
            revoked_by_user_id: string | null;
            /** @description What the key may do beyond sessions and profiles: `credentials:use` (fill), `credentials:manage`. */
            scopes: string[];
            /** @description The whole key, `vs_<id>.<secret>`. Shown once: store it now. */
            secret: string;
        };
        Credential: {
            /** @description `cred_<ULID>` */
            id: string;
            name: string;
            /** @description The top-level origins it may be filled into. */
            origins: string[];
            /** @description The username masked for people (`al•••@example.com`); the username itself is never returned. */
            username_hint: string;
            /** @description Whether it holds a TOTP secret (codes are computed on the server at each fill). */
            has_totp: boolean;
            created_at: string;
            updated_at: string;
            /** @description When it was last filled into a session. */
            last_used_at: string | null;
        };
        CredentialFill: {
            /** @description The fields typed into, in order; empty when the page's top document has none. */
            filled: ("username" | "password" | "totp")[];
            /** @description The top-level origin of the tab that was filled. */
            origin: string;
        };
        CredentialList: {
            items: components["schemas"]["Credential"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        Download: {
            /** @description Chromium's id for the download (a UUID). */
            id: string;
            /** @description The file name the site suggested. */
            name: string;
            /** @enum {string} */
            state: "in_progress" | "completed" | "canceled" | "refused";
            /** @description Size when completed; bytes received so far otherwise. */
            bytes: number;
            /** @description Why it was refused (the size cap, for example). */
            reason: string | null;
            started_at: string;
            ended_at: string | null;
            /** @description Whether GET …/downloads/{download_id} serves it now: completed, and the session still running. */
            available: boolean;
        };
        DownloadList: {
            items: components["schemas"]["Download"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        Extension: {
            /** @description `ext_<ULID>` */
            id: string;
            /** @description The manifest's name. */
            name: string;
            /** @description The manifest's version. */
            version: string;
            /** @description The zip's size. */
            size_bytes: number;
            /** @description Hex SHA-256 of the zip as uploaded. */
            sha256: string;
            created_at: string;
        };
        ExtensionList: {
            items: components["schemas"]["Extension"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        /** @description HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): its `log` with `pages` and `entries`. */
        Har: {
            log: {
                /** @constant */
                version: "1.2";
                creator: {
                    name: string;
                    version: string;
                };
                pages: ({
                    id: string;
                    startedDateTime: string;
                    title: string;
                    pageTimings: {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                })[];
                entries: ({
                    pageref?: string;
                    startedDateTime: string;
                    time: number;
                    request: {
                        method: string;
                        url: string;
                        headers: {
                            name: string;
                            value: string;
                        }[];
                    } & {
                        [key: string]: unknown;
                    };
                    response: {
                        status: number;
                        headers: {
                            name: string;
                            value: string;
                        }[];
                        redirectURL: string;
                    } & {
                        [key: string]: unknown;
                    };
                    timings: {
                        send: number;
                        wait: number;
                        receive: number;
                    } & {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                })[];
            } & {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        Health: {
            /**
             * @description `ok` when the database answers and browsers can be launched.
             * @enum {string}
             */
            status: "ok" | "degraded";
            version: string;
            /** @description Regions this deployment serves. */
            regions: string[];
            database: {
                /** @enum {string} */
                status: "ok" | "unavailable";
                /** @enum {string} */
                kind: "postgres" | "pglite";
                latency_ms: number | null;
            };
            browser_pool: {
                /** @enum {string} */
                state: "ready" | "unavailable";
                capacity: number;
                in_use: number;
                warm: number;
            };
            /** @description How sessions are kept from this node and from each other (docs/threat-model.md). */
            isolation: {
                /**
                 * @description `jail`: every browser runs in its own jail (bubblewrap: no view of this node's files or processes, no network but its egress listener). `none`: the kernel or the configuration (`VESSEL_BROWSER_JAIL`) does not allow it.
                 * @enum {string}
                 */
                level: "jail" | "none";
                /**
                 * @description Whether clients' CDP commands are judged by the method policy (`off` only in isolation tests).
                 * @enum {string}
                 */
                cdp_policy: "on" | "off";
            };
        };
        NetworkPolicy: {
            /** @description Allowed destinations (normalised: lower-case ASCII names, canonical addresses). Empty: whatever the node allows. */
            allow: string[];
            /** @description Refused destinations; deny beats allow. */
            deny: string[];
            /** @description When the rules were last set; null when the workspace has none. */
            updated_at: string | null;
        };
        Profile: {
            /** @description `prof_<ULID>` */
            profile_id: string;
            label: string;
            /** @description The session it was last saved from; null when imported (or that session was deleted). */
            source_session_id: string | null;
            /** @description Version of the stored profile document (docs/profile-format.md). */
            format_version: number;
            /** @description Size of the profile document, which the deployment's limit applies to. */
            size_bytes: number;
            cookie_count: number;
            /** @description Origins with localStorage or sessionStorage. */
            origin_count: number;
            /** @description localStorage and sessionStorage items of all origins. */
            key_count: number;
            created_at: string;
            /** @description When its state was last saved (or its label changed). */
            updated_at: string;
        };
        ProfileList: {
            items: components["schemas"]["Profile"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        Session: {
            /** @description `ses_<ULID>` */
            id: string;
            /** @enum {string} */
            status: "QUEUED" | "PENDING" | "RUNNING" | "REQUEST_RELEASE" | "RELEASED" | "TIMED_OUT" | "FAILED";
            end_reason: ("client_release" | "force_stop" | "timeout" | "idle_timeout" | "browser_crash" | "node_shutdown" | "launch_failed" | "api_key_revoked" | "queue_timeout") | null;
            region: string;
            created_at: string;
            started_at: string | null;
            /** @description The hard end: creation plus `timeout_seconds` (at most the session limit, VESSEL_MAX_SESSION_SECONDS). */
            expires_at: string;
            ended_at: string | null;
            timeout_seconds: number;
            idle_timeout_seconds: number | null;
            profile_id: string | null;
            live_view: {
                interactive: boolean;
                instructions: string | null;
                /** @description People watching the live view now (on the node that runs the session). */
                viewers: number;
            };
            /** @description Your own labels, as given at create. */
            metadata: {
                [key: string]: string;
            };
            /** @description The browser settings given at create, or null. */
            browser: {
                /** @description The size of every tab (innerWidth × innerHeight), 200–3840 each. */
                viewport?: {
                    width: number;
                    height: number;
                    /** @description Device pixels per CSS pixel (default 1). */
                    device_scale_factor?: number;
                    /** @description Emulate a phone: mobile viewport rules and touch. */
                    mobile?: boolean;
                };
                /** @description navigator.userAgent and the User-Agent header (at most 512 characters). */
                user_agent?: string;
                /** @description navigator.language(s), Accept-Language and Intl's default locale. */
                locale?: string;
                /** @description Intl's time zone and every Date. */
                timezone?: string;
                /** @description What navigator.geolocation reports (the permission is granted). */
                geolocation?: {
                    latitude: number;
                    longitude: number;
                    /** @description Metres (default 10). */
                    accuracy?: number;
                };
            } | null;
            /** @description Extensions loaded into this session. */
            extension_ids: string[];
            /** @description Whether the session's logs are captured (GET …/logs). */
            logs: boolean;
            /** @description Whether the session's screen is recorded (GET …/recording once it ends). */
            recording: boolean;
            /** @description This session's own network rules, narrowing the workspace's (GET /v1/workspace/network-policy) and the node's: `{allow, deny}` of host names, `*.` patterns, addresses and CIDRs with optional `:port`. A bad rule → 422 `invalid-network-rule`. */
            network_policy?: {
                /**
                 * @description Destinations allowed, of those the node allows: host names (`example.com`), their subdomains (`*.example.com`), IP addresses or CIDRs (`10.1.0.0/16`), each with an optional `:port` (`[2001:db8::1]:443` for IPv6). Empty: whatever the node allows.
                 * @default []
                 */
                allow: string[];
                /**
                 * @description Destinations refused, in the same forms; deny beats allow. A CIDR is checked against the addresses a name resolves to.
                 * @default []
                 */
                deny: string[];
            };
            /** @description With no free browser (or the workspace at its session cap), wait in the admission queue up to this long (at most 3600): the answer is then 202 QUEUED with `queue_position`. 0 (the default): refused at once (503/429). */
            queue_timeout_seconds?: number;
            /** @description Within its workspace, a queued session with a higher priority (−10…10, default 0) starts first; then the oldest. */
            priority?: number;
            /** @description While QUEUED: its place in the admission queue's fair order (1 = next to start); null otherwise. */
            queue_position: number | null;
            /** @description `wss://<host>/cdp?token=<JWT>` for any CDP client, valid until the session ends. Only in single-session answers while RUNNING. */
            connect_url: string | null;
            /** @description `https://<host>/?token=<JWT>`, valid about 5 minutes; re-mint with keepalive. */
            live_view_url: string | null;
        };
        SessionEvent: {
            /** @description `evt_<ULID>`: events sort by id. */
            id: string;
            session_id: string;
            /** @description For example `live_view.done`. */
            type: string;
            created_at: string;
            /** @description Details by type: an end's `reason`, a viewer's `viewer_id`, a CDP client count. */
            data: {
                [key: string]: unknown;
            };
        };
        SessionEventList: {
            items: components["schemas"]["SessionEvent"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        SessionFile: {
            /** @description `file_<32 hex>` */
            id: string;
            /** @description The file's name as the page sees it (the uploaded name, made safe). */
            name: string;
            size: number;
            /** @description Hex SHA-256 of the bytes stored. */
            sha256: string;
            /** @description Where the file is in the session's own folder: give it to `DOM.setFileInputFiles` or Puppeteer's `uploadFile(path)`. Not to Playwright, which reads a path on its own machine: give it a buffer. */
            path: string;
            uploaded_at: string;
            /** @description Whether the file is still there (the session runs); files go with the session. */
            available: boolean;
        };
        SessionFileList: {
            items: components["schemas"]["SessionFile"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        SessionList: {
            items: components["schemas"]["Session"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        /** @description One entry, its fields beside `seq`, `type` and `at` (snake_case). console: `level`, `text`, `source_url`, `line`, `column`, `page_url`. page_error: `message`, `stack`, `source_url`, `line`, `column`, `page_url`. navigation: `url`, `frame_id`, `main_frame`, `same_document`. network: `method`, `url`, `resource_type`, `status`, `status_text`, `mime_type`, `response_bytes`, `request_bytes`, `started_at`, `duration_ms`, `failure`, `from_cache`, `page_url`. cdp: `method`, `duration_ms` (null: never answered), `refused` (the policy refused it). logs.truncated: `reason`, `max_entries`, `max_bytes`. */
        SessionLogEntry: {
            /** @description 1, 2, 3, … in the order the entries were recorded. */
            seq: number;
            /** @description `console`, `page_error`, `navigation`, `network`, `cdp`, or `logs.truncated` (the log reached its bounds; nothing follows). */
            type: string;
            /** @description When it was recorded (for `network`, when the request finished; `started_at` is when it began). */
            at: string;
        } & {
            [key: string]: unknown;
        };
        SessionLogList: {
            items: components["schemas"]["SessionLogEntry"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        StorageState: {
            cookies: {
                name: string;
                value: string;
                domain: string;
                path: string;
                /** @default -1 */
                expires: number;
                /** @default false */
                httpOnly: boolean;
                /** @default false */
                secure: boolean;
                /** @enum {string} */
                sameSite?: "Strict" | "Lax" | "None";
                partitionKey?: string;
                _crHasCrossSiteAncestor?: boolean;
            }[];
            origins: {
                origin: string;
                localStorage: {
                    name: string;
                    value: string;
                }[];
                sessionStorage?: {
                    name: string;
                    value: string;
                }[];
            }[];
        };
        StorageStateExport: {
            cookies: {
                name: string;
                value: string;
                domain: string;
                path: string;
                /** @description Unix seconds; -1 for a session cookie. */
                expires: number;
                httpOnly: boolean;
                secure: boolean;
                /** @enum {string} */
                sameSite: "Strict" | "Lax" | "None";
                /** @description Top-level site of a partitioned (CHIPS) cookie. */
                partitionKey?: string;
                _crHasCrossSiteAncestor?: boolean;
            }[];
            origins: {
                origin: string;
                localStorage: {
                    name: string;
                    value: string;
                }[];
                /** @description Vessel's addition to Playwright's shape (Playwright ignores it). */
                sessionStorage: {
                    name: string;
                    value: string;
                }[];
            }[];
        };
        UpdateWorkspaceSettingsInput: {
            /** @description The workspace's display name (1–100 characters). */
            name?: string;
            /** @description Most live sessions at once, cluster-wide. null = back to the deployment's default; absent = unchanged. */
            max_sessions?: number | null;
            /** @description The longest a session may live, in seconds. null = back to the deployment's default; absent = unchanged. */
            max_session_seconds?: number | null;
            /** @description The workspace's share of each turn of the admission queue (organization admins only may raise it above 1). null = back to the deployment's default; absent = unchanged. */
            queue_weight?: number | null;
            /** @description API requests per minute per key. null = back to the deployment's default; absent = unchanged. */
            rate_limit_per_minute?: number | null;
        };
        Webhook: {
            /** @description `whk_<ULID>` */
            id: string;
            url: string;
            /** @description Of session.queued, session.started, session.running, session.released, session.timed_out, session.failed, live_view.done, download.completed, recording.ready. */
            events: string[];
            description: string | null;
            /** @description false: nothing is sent (turned off, or disabled after failing for 3 days: see disabled_reason). */
            enabled: boolean;
            disabled_at: string | null;
            disabled_reason: string | null;
            /** @description After a rotation: until then the previous secret signs too. */
            previous_secret_expires_at: string | null;
            created_at: string;
            updated_at: string;
        };
        WebhookDelivery: {
            /** @description `msg_<ULID>`: the `webhook-id` header, the same on every attempt. */
            id: string;
            webhook_id: string;
            /** @description The event type, for example `session.released` (or `webhook.test`). */
            event: string;
            /** @description The session event it announces. */
            event_id: string | null;
            /**
             * @description `refused`: the egress policy refused the URL's address (see last_error).
             * @enum {string}
             */
            status: "pending" | "delivered" | "failed" | "refused";
            attempts: number;
            next_attempt_at: string | null;
            last_attempt_at: string | null;
            /** @description The HTTP status of the last attempt, or null when it got no answer. */
            last_response_code: number | null;
            last_error: string | null;
            created_at: string;
        };
        WebhookDeliveryList: {
            items: components["schemas"]["WebhookDelivery"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        WebhookList: {
            items: components["schemas"]["Webhook"][];
            next_cursor: string | null;
            has_more: boolean;
        };
        WebhookWithSecret: {
            /** @description `whk_<ULID>` */
            id: string;
            url: string;
            /** @description Of session.queued, session.started, session.running, session.released, session.timed_out, session.failed, live_view.done, download.completed, recording.ready. */
            events: string[];
            description: string | null;
            /** @description false: nothing is sent (turned off, or disabled after failing for 3 days: see disabled_reason). */
            enabled: boolean;
            disabled_at: string | null;
            disabled_reason: string | null;
            /** @description After a rotation: until then the previous secret signs too. */
            previous_secret_expires_at: string | null;
            created_at: string;
            updated_at: string;
            /** @description `whsec_<base64 of 32 bytes>`: shown only in this answer. Verify each delivery's `webhook-signature` with it. */
            secret: string;
        };
        /** @description What applies to its next session: its own value, else the deployment's default. */
        WorkspaceEffectiveLimits: {
            /** @description Most live sessions at once, cluster-wide (null: no cap). */
            max_sessions: number | null;
            /** @description The longest a session may live, in seconds. */
            max_session_seconds: number | null;
            /** @description Its share of each turn of the admission queue. */
            queue_weight: number | null;
            /** @description API requests per minute per key. */
            rate_limit_per_minute: number | null;
        };
        /** @description The workspace's own values; null = the deployment's default applies. */
        WorkspaceLimits: {
            /** @description Most live sessions at once, cluster-wide (null: no cap). */
            max_sessions: number | null;
            /** @description The longest a session may live, in seconds. */
            max_session_seconds: number | null;
            /** @description Its share of each turn of the admission queue. */
            queue_weight: number | null;
            /** @description API requests per minute per key. */
            rate_limit_per_minute: number | null;
        };
        /** @description The most an owner may set each limit to (what the deployment grants; null: only the hard bound). Organization admins may go up to the hard bounds. */
        WorkspaceOwnerBounds: {
            /** @description Most live sessions at once, cluster-wide (null: no cap). */
            max_sessions: number | null;
            /** @description The longest a session may live, in seconds. */
            max_session_seconds: number | null;
            /** @description Its share of each turn of the admission queue. */
            queue_weight: number | null;
            /** @description API requests per minute per key. */
            rate_limit_per_minute: number | null;
        };
        WorkspaceSettings: {
            id: string;
            slug: string;
            name: string;
            created_at: string;
            limits: components["schemas"]["WorkspaceLimits"];
            effective: components["schemas"]["WorkspaceEffectiveLimits"];
            owner_bounds: components["schemas"]["WorkspaceOwnerBounds"];
        };
        WorkspaceSettingsInput: {
            id: string;
            slug: string;
            name: string;
            created_at: string;
            limits: components["schemas"]["WorkspaceLimits"];
            effective: components["schemas"]["WorkspaceEffectiveLimits"];
            owner_bounds: components["schemas"]["WorkspaceOwnerBounds"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessions: {
        parameters: {
            query?: {
                /** @description How many items to return, 1–100 (default 20). */
                limit?: number;
                /** @description Opaque: the `next_cursor` of the previous page. Omit it for the first page. */
                cursor?: string;
                status?: "QUEUED" | "PENDING" | "RUNNING" | "REQUEST_RELEASE" | "RELEASED" | "TIMED_OUT" | "FAILED";
                /** @description Only sessions whose metadata has every one of these keys with exactly this value (`metadata[team]=qa&metadata[run]=42`). */
                metadata?: {
                    [key: string]: string;
                };
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description A UUID, one per logical request. */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A region this deployment serves (GET /v1/health lists them). */
                    region: string;
                    /** @description Start from a saved profile of this workspace. */
                    profile_id?: string;
                    /** @description When the session is released (PATCH REQUEST_RELEASE), save its state back into `profile_id` (required with it). */
                    save_profile_on_release?: boolean;
                    live_view?: {
                        /**
                         * @description Let the viewer use mouse and keyboard.
                         * @default false
                         */
                        interactive?: boolean;
                        /** @description Shown to the person in the live view. */
                        instructions?: string;
                    };
                    /** @description Hard end, in seconds. At most the session limit (VESSEL_MAX_SESSION_SECONDS, 1800 unless the deployment or the workspace sets another, never above 86400), which is also the default. */
                    timeout_seconds?: number;
                    /** @description Release the session after this long without a CDP client (default 300; at most the session limit). */
                    idle_timeout_seconds?: number;
                    /** @description An upstream proxy for this session's traffic. */
                    proxy?: {
                        /** @description Your HTTP proxy (`http://host:port`): the session's traffic leaves through it, after the egress policy has judged each destination. */
                        server: string;
                        username?: string;
                        /** @description Never returned, logged or stored. */
                        password?: string;
                    };
                    /** @description Capture the session's console messages, page errors, navigations, network requests and CDP methods (GET …/logs). Default: the deployment's `VESSEL_LOGS` (on). */
                    logs?: boolean;
                    /** @description Your own labels: at most 16 keys ([a-z0-9_.-]{1,64}) to strings of at most 512 characters. */
                    metadata?: {
                        [key: string]: string;
                    };
                    /** @description Browser settings for this session: they hold in every tab, frame and worker it opens, whichever CDP client connects. */
                    browser?: {
                        /** @description The size of every tab (innerWidth × innerHeight), 200–3840 each. */
                        viewport?: {
                            width: number;
                            height: number;
                            /** @description Device pixels per CSS pixel (default 1). */
                            device_scale_factor?: number;
                            /** @description Emulate a phone: mobile viewport rules and touch. */
                            mobile?: boolean;
                        };
                        /** @description navigator.userAgent and the User-Agent header (at most 512 characters). */
                        user_agent?: string;
                        /** @description navigator.language(s), Accept-Language and Intl's default locale. */
                        locale?: string;
                        /** @description Intl's time zone and every Date. */
                        timezone?: string;
                        /** @description What navigator.geolocation reports (the permission is granted). */
                        geolocation?: {
                            latitude: number;
                            longitude: number;
                            /** @description Metres (default 10). */
                            accuracy?: number;
                        };
                    };
                    /** @description Extensions of this workspace (POST /v1/extensions) to load into this session only; needs full Chromium (else 422 extensions-unsupported). Each id once. */
                    extension_ids?: string[];
                    /** @description Record the session's screen into a video (GET …/recording once it ends). Default: the deployment's `VESSEL_RECORDING` (off). */
                    recording?: boolean;
                    /**
                     * Format: uri
                     * @description Open this address in the session's first tab as it starts (not waited for; the egress policy judges it like any navigation).
                     */
                    start_url?: string;
                    /** @description This session's own network rules, narrowing the workspace's (GET /v1/workspace/network-policy) and the node's: `{allow, deny}` of host names, `*.` patterns, addresses and CIDRs with optional `:port`. A bad rule → 422 `invalid-network-rule`. */
                    network_policy?: {
                        /**
                         * @description Destinations allowed, of those the node allows: host names (`example.com`), their subdomains (`*.example.com`), IP addresses or CIDRs (`10.1.0.0/16`), each with an optional `:port` (`[2001:db8::1]:443` for IPv6). Empty: whatever the node allows.
                         * @default []
                         */
                        allow?: string[];
                        /**
                         * @description Destinations refused, in the same forms; deny beats allow. A CIDR is checked against the addresses a name resolves to.
                         * @default []
                         */
                        deny?: string[];
                    };
                    /** @description With no free browser (or the workspace at its session cap), wait in the admission queue up to this long (at most 3600): the answer is then 202 QUEUED with `queue_position`. 0 (the default): refused at once (503/429). */
                    queue_timeout_seconds?: number;
                    /** @description Within its workspace, a queued session with a higher priority (−10…10, default 0) starts first; then the oldest. */
                    priority?: number;
                };
            };
        };
        responses: {
            /** @description Replay of the first answer for this Idempotency-Key (`Idempotent-Replayed: true`). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Success */
            201: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Queued (`queue_timeout_seconds` > 0 and no free browser, or the workspace at its cap): `status` QUEUED with `queue_position`, `Location` the session. It becomes RUNNING as soon as a browser frees anywhere (event `session.started`), or ends TIMED_OUT `queue_timeout`. A replay answers the session as it is now. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description `idempotency-key-missing`: Idempotency-Key missing; `idempotency-key-invalid`: Idempotency-Key invalid; `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `idempotency-key-in-use`: Idempotency-Key in use */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `idempotency-key-reused`: Idempotency-Key reused; `unknown-region`: Unknown region; `profile-unreadable`: Profile unreadable; `extensions-unsupported`: Extensions unsupported; `extensions-need-jail`: Extensions need the jail; `extension-permission-refused`: Extension permission refused; `invalid-extension`: Invalid extension */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `workspace-session-limit`: Workspace session limit; `queue-full`: Admission queue full; `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `insufficient-capacity`: Insufficient capacity */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    session: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    forceStopSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success (no body) */
            204: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    releaseSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    status: "REQUEST_RELEASE";
                };
            };
        };
        responses: {
            /** @description Success (no body) */
            204: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessionEvents: {
        parameters: {
            query?: {
                /** @description Only events after this one: pass the previous answer's `next_cursor`. Omit it to read from the start. */
                after?: string;
                /** @description Only these types, comma-separated (session.queued, session.started, session.running, session.released, session.timed_out, session.failed, live_view.opened, live_view.closed, live_view.done, cdp.connected, cdp.disconnected, cdp.refused, egress.refused, download.started, download.completed, download.canceled, download.refused, file.uploaded, recording.ready, recording.failed). */
                type?: string;
                /** @description At most this many events (1–100, default 100). */
                limit?: number;
                /** @description Long poll: when no event matches yet, hold the answer up to this many seconds (0–30) until one does or the session ends. */
                wait?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionEventList"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    revokeLiveViews: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success (no body) */
            204: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    keepaliveSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict`: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessionLogs: {
        parameters: {
            query?: {
                /** @description Only these types, comma-separated (console, page_error, navigation, network, cdp); `logs.truncated` always comes too. Default: every type but `cdp` (name it to read the CDP methods). */
                type?: string;
                /** @description Only entries after this `seq`. */
                after?: number;
                /** @description Opaque: the `next_cursor` of the previous answer (it wins over `after`). Omit both to read from the start. */
                cursor?: string;
                /** @description At most this many entries (1–1000, default 100). */
                limit?: number;
                /** @description Long poll: when no entry matches yet, hold the answer up to this many seconds (0–30) until one does or the session's log ends. */
                wait?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionLogList"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessionRecording: {
        parameters: {
            query?: {
                /** @description Dashboard users may name the session's workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: {
                /** @description `bytes=first-last`, `bytes=first-` or `bytes=-suffix`. */
                range?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                };
            };
            /** @description One byte range of the video. */
            206: {
                headers: {
                    /** @description `bytes first-last/size` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": string;
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `recording-not-ready`: Recording not ready */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `range-not-satisfiable`: Range not satisfiable */
            416: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteRecording: {
        parameters: {
            query?: {
                /** @description Dashboard users may name the session's workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success (no body) */
            204: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessionHar: {
        parameters: {
            query?: {
                /** @description Dashboard users may name the session's workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Har"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessionBundle: {
        parameters: {
            query?: {
                /** @description Dashboard users may name the session's workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/zip": string;
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `recording-not-ready`: Recording not ready */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessionDownloads: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DownloadList"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessionDownload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                download_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict`: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `gone`: Gone */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessionFiles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionFileList"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    uploadSessionFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description The file; its name (the part's filename) is what the page sees.
                     */
                    file: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionFile"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict`: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `gone`: Gone */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `too-many-files`: Too many files; `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `insufficient-storage`: Insufficient storage */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    extensions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExtensionList"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    uploadExtension: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description The zip (or send it as the whole body, `Content-Type: application/zip`).
                     */
                    file: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Extension"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `extension-quota-exceeded`: Extension quota exceeded */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `invalid-extension`: Invalid extension; `extension-permission-refused`: Extension permission refused; `extensions-need-jail`: Extensions need the jail */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    extension: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Extension"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteExtension: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success (no body) */
            204: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    profiles: {
        parameters: {
            query?: {
                /** @description How many items to return, 1–100 (default 20). */
                limit?: number;
                /** @description Opaque: the `next_cursor` of the previous page. Omit it for the first page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProfileList"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A name for people, 1–100 characters. */
                    label: string;
                    /** @description Save from this running session of the workspace (cookies, localStorage, sessionStorage). */
                    session_id?: string;
                    /** @description Or import a Playwright `storageState` document (per-origin `sessionStorage` may be added). */
                    storage_state?: components["schemas"]["StorageState"];
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Profile"];
                };
            };
            /** @description `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict`: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `profile-too-large`: Profile too large; `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    profile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Profile"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteProfile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success (no body) */
            204: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateProfile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A name for people, 1–100 characters. */
                    label: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Profile"];
                };
            };
            /** @description `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    saveProfile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The running session whose state replaces the profile's. */
                    session_id: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Profile"];
                };
            };
            /** @description `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict`: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `profile-too-large`: Profile too large; `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    profileStorageState: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StorageStateExport"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `profile-unreadable`: Profile unreadable */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    credentials: {
        parameters: {
            query?: {
                /** @description How many items to return, 1–100 (default 20). */
                limit?: number;
                /** @description Opaque: the `next_cursor` of the previous page. Omit it for the first page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CredentialList"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createCredential: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A name for people and agents, unique in the workspace (1–100 characters); `fill_credential` accepts it. */
                    name: string;
                    /** @description The top-level origins the credential may be filled into, e.g. `https://login.example.com`. */
                    origins: string[];
                    /** @description The username. Write-only: never returned. */
                    username: string;
                    /** @description The password. Write-only: never returned. */
                    password: string;
                    /** @description The base32 secret of the site's authenticator setup (RFC 6238: 6 digits, 30 s, SHA-1). Write-only: never returned. */
                    totp_secret?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Credential"];
                };
            };
            /** @description `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict`: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    credential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Credential"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success (no body) */
            204: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A name for people and agents, unique in the workspace (1–100 characters); `fill_credential` accepts it. */
                    name?: string;
                    /** @description The top-level origins the credential may be filled into, e.g. `https://login.example.com`. */
                    origins?: string[];
                    /** @description A new username. Write-only: never returned. */
                    username?: string;
                    /** @description A new password. Write-only: never returned. */
                    password?: string;
                    /** @description A new TOTP secret; null removes it. Write-only: never returned. */
                    totp_secret?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Credential"];
                };
            };
            /** @description `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict`: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `credential-unreadable`: Credential unreadable */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    fillCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                credential_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A CSS selector of the username field in the page's top document (default: found by its autocomplete token). */
                    username_selector?: string;
                    /** @description A CSS selector of the password field in the page's top document (default: found by its autocomplete token). */
                    password_selector?: string;
                    /** @description A CSS selector of the one-time code field in the page's top document (default: found by its autocomplete token). */
                    totp_selector?: string;
                    /**
                     * @description Submit the form once filled (default false).
                     * @default false
                     */
                    submit?: boolean;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CredentialFill"];
                };
            };
            /** @description `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict`: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `credential-origin-mismatch`: Credential origin mismatch; `credential-unreadable`: Credential unreadable */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    webhooks: {
        parameters: {
            query?: {
                /** @description How many items to return, 1–100 (default 20). */
                limit?: number;
                /** @description Opaque: the `next_cursor` of the previous page. Omit it for the first page. */
                cursor?: string;
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: {
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Where events are POSTed: an absolute http(s) URL. Checked against the webhook address policy (`VESSEL_WEBHOOK_ALLOW`) when set and at each delivery. */
                    url: string;
                    /** @description The events sent to it: session.queued, session.started, session.running, session.released, session.timed_out, session.failed, live_view.done, download.completed, recording.ready. */
                    events: ("session.queued" | "session.started" | "session.running" | "session.released" | "session.timed_out" | "session.failed" | "live_view.done" | "download.completed" | "recording.ready")[];
                    /** @description Your own note. */
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookWithSecret"];
                };
            };
            /** @description `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict`: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `webhook-address-refused`: Webhook address refused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    webhook: {
        parameters: {
            query?: {
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: {
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success (no body) */
            204: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: {
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Where events are POSTed: an absolute http(s) URL. Checked against the webhook address policy (`VESSEL_WEBHOOK_ALLOW`) when set and at each delivery. */
                    url?: string;
                    /** @description The events sent to it: session.queued, session.started, session.running, session.released, session.timed_out, session.failed, live_view.done, download.completed, recording.ready. */
                    events?: ("session.queued" | "session.started" | "session.running" | "session.released" | "session.timed_out" | "session.failed" | "live_view.done" | "download.completed" | "recording.ready")[];
                    /** @description Your own note; null removes it. */
                    description?: string | null;
                    /** @description false stops deliveries; true turns a disabled endpoint back on. */
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `webhook-address-refused`: Webhook address refused */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: {
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookWithSecret"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    testWebhook: {
        parameters: {
            query?: {
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            202: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict`: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    webhookDeliveries: {
        parameters: {
            query?: {
                /** @description How many items to return, 1–100 (default 20). */
                limit?: number;
                /** @description Opaque: the `next_cursor` of the previous page. Omit it for the first page. */
                cursor?: string;
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    retryWebhookDelivery: {
        parameters: {
            query?: {
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path: {
                id: string;
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            202: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict`: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    networkPolicy: {
        parameters: {
            query?: {
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NetworkPolicy"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    setNetworkPolicy: {
        parameters: {
            query?: {
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Destinations allowed, of those the node allows: host names (`example.com`), their subdomains (`*.example.com`), IP addresses or CIDRs (`10.1.0.0/16`), each with an optional `:port` (`[2001:db8::1]:443` for IPv6). Empty: whatever the node allows.
                     * @default []
                     */
                    allow?: string[];
                    /**
                     * @description Destinations refused, in the same forms; deny beats allow. A CIDR is checked against the addresses a name resolves to.
                     * @default []
                     */
                    deny?: string[];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NetworkPolicy"];
                };
            };
            /** @description `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `invalid-network-rule`: Invalid network rule */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    workspaceSettings: {
        parameters: {
            query?: {
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceSettings"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    updateWorkspaceSettings: {
        parameters: {
            query?: {
                /** @description Dashboard users name the workspace (slug); API keys act in their own. */
                workspace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateWorkspaceSettingsInput"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceSettingsInput"];
                };
            };
            /** @description `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    apiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    label: string;
                    /** @description Granted to the key: `credentials:use`, `credentials:manage`; none by default. */
                    scopes?: ("credentials:use" | "credentials:manage")[];
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedApiKey"];
                };
            };
            /** @description `validation-failed`: Validation failed; `malformed-json`: Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `payload-too-large`: Payload too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unsupported-media-type`: Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    revokeApiKey: {
        parameters: {
            query?: {
                /** @description `true`: also end the live sessions this key started (default `false`: they run on until they end). */
                end_sessions?: "true" | "false";
            };
            header?: never;
            path: {
                slug: string;
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success (no body) */
            204: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    auditLog: {
        parameters: {
            query?: {
                /** @description How many items to return, 1–100 (default 20). */
                limit?: number;
                /** @description Opaque: the `next_cursor` of the previous page. Omit it for the first page. */
                cursor?: string;
                /** @description Only calls made with this API key: its prefix `vs_<id>`. */
                key_prefix?: string;
                /** @description Only this action, for example `session.create`. */
                action?: string;
                /** @description Only calls made by this dashboard user. */
                actor_user_id?: string;
                /** @description Only calls on this resource, for example a session id or an API key id. */
                target?: string;
                /** @description Only entries created at or after this time (inclusive). */
                since?: string;
                /** @description Only entries created before this time (exclusive). */
                until?: string;
                /** @description `true`: leave reads out (lists, gets, exports, event and log reads; see READ_ACTION_SUFFIXES), so the changes stand out. */
                changes_only?: "true" | "false";
            };
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditEntryList"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    claimWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClaimedWorkspace"];
                };
            };
            /** @description `validation-failed`: Validation failed */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `unauthenticated`: Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `forbidden`: Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `not-found`: Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `conflict`: Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `rate-limited`: Too many requests */
            429: {
                headers: {
                    /** @description The caller's quota, for example `"default";q=600;w=60` (draft-ietf-httpapi-ratelimit-headers-11). */
                    "RateLimit-Policy"?: string;
                    /** @description What is left of it: `"default";r=<remaining>;t=<seconds until the window resets>` (draft-ietf-httpapi-ratelimit-headers-11). */
                    RateLimit?: string;
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `internal-error`: Internal server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
