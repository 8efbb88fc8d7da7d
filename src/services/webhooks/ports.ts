import type { WebhookDispatcher } from "./webhook-dispatcher.ts";

/** What the webhooks domain adds to every node's long-lived parts (see AppDeps in src/kernel/context.ts). */
declare module "../../kernel/context.ts" {
  interface AppDeps {
    /** This node's sender of webhook deliveries (absent in scripts, which send none). */
    webhooks?: WebhookDispatcher;
  }
}
