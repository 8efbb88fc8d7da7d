import { lexicographicSortSchema } from "graphql";
import { builder } from "./builder.ts";
import { refuseUnstorableArguments } from "./text-arguments.ts";
import "./types/api-key.ts";
import "./types/audit.ts";
import "./types/credential.ts";
import "./types/auth.ts";
import "./types/download.ts";
import "./types/extension.ts";
import "./types/health.ts";
import "./types/invitation.ts";
import "./types/member.ts";
import "./types/profile.ts";
import "./types/recording.ts";
import "./types/session.ts";
import "./types/session-origin.ts";
import "./types/session-event.ts";
import "./types/session-export.ts";
import "./types/session-file.ts";
import "./types/session-log.ts";
import "./types/user.ts";
import "./types/webhook.ts";
import "./types/network-policy.ts";
import "./types/workspace-settings.ts";
import "./types/workspace.ts";

/**
 * Sorted so the printed schema (schema/schema.graphql) does not churn with import order; every
 * field's arguments pass the text rule before its resolver runs.
 */
export const schema = refuseUnstorableArguments(lexicographicSortSchema(builder.toSchema()));
