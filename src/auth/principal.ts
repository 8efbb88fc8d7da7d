/** Who is calling. Workspace scope of a key comes from its record, never from the request. */
export type Principal =
  | {
      kind: "apiKey";
      keyId: string;
      keyPrefix: string;
      workspaceId: string;
      rateLimitPerMinute: number;
      /** The workspace's own cap on live sessions (null: the deployment's), read with the key (session-cap.ts). */
      maxSessions: number | null;
      /** What the key may do beyond sessions and profiles (scopes.ts); empty for most keys. */
      scopes: readonly string[];
    }
  | { kind: "user"; userId: string; email: string };
