import type { AuditWriter } from "./audit-writer.ts";
import type { RefusalAudit } from "./audit-refusals.ts";

/** What the audit domain adds to every node's long-lived parts (see AppDeps in src/kernel/context.ts). */
declare module "../../kernel/context.ts" {
  interface AppDeps {
    audit: AuditWriter;
    /** Calls refused at authentication, audited within limits (audit-refusals.ts). */
    refusals: RefusalAudit;
  }
}
