import type { z } from "zod";
import type { AuditEntry } from "../generated/prisma/client.ts";
import { queryAuditEntries, type AuditQuery } from "./audit.ts";
import { requireWorkspaceRole } from "./authz.ts";
import type { ServiceContext } from "./context.ts";
import type { Page } from "./pagination.ts";
import { prismaOf } from "./support.ts";

/** Dashboard: a workspace's audit log, newest first (owners and admins; API keys get 403, spec 5.1). */
export async function auditLog(ctx: ServiceContext, slug: string, query: z.output<typeof AuditQuery>): Promise<Page<AuditEntry>> {
  const ws = await requireWorkspaceRole(ctx, slug, ["OWNER", "ADMIN"], "read the audit log");
  return queryAuditEntries(prismaOf(ctx), ws.id, query);
}
