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
    }
  | { kind: "user"; userId: string; email: string };
