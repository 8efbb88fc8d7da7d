import type { PreparedExtensions } from "./prepared-extensions.ts";

/** What the extensions domain adds to every node's long-lived parts (see AppDeps in src/kernel/context.ts). */
declare module "../../kernel/context.ts" {
  interface AppDeps {
    /** The extensions this node has checked and unpacked, ready to copy into a session (prepared-extensions.ts). */
    extensions: PreparedExtensions;
  }
}
