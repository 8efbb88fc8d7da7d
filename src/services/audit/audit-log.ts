import type { z } from "zod";
import type { AuditEntry } from "../../generated/prisma/client.ts";
import { queryAuditEntries, type AuditQuery } from "./audit.ts";
import { requireWorkspaceRole } from "../../kernel/authz.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import type { Page } from "../../kernel/pagination.ts";
import { prismaOf } from "../../kernel/support.ts";

/** Dashboard: a workspace's audit log, newest first (owners and admins; API keys get 403, spec 5.1). */
export async function auditLog(ctx: ServiceContext, query: z.output<typeof AuditQuery>): Promise<Page<AuditEntry>> {
  const ws = await requireWorkspaceRole(ctx, ["OWNER", "ADMIN"], "read the audit log");
  return queryAuditEntries(prismaOf(ctx), ws.id, query);
}
