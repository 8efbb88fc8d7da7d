import { navigateFirstPage } from "../../../browser/cdp/pipe/page-info.ts";
import { defineFeature } from "./feature.ts";

/**
 * `start_url`: opened in the first tab after the answer's own work (not waited for): the client may
 * connect at once and find the page loading. A visited site leaves its history, cookies and storage.
 */
export const startUrl = defineFeature({
  name: "start URL",
  reads: ["start_url"],
  phase: "running",
  dirtiesSpare: true,
  wanted: ({ input }) => Boolean(input.start_url),
  apply: ({ ctx, input, session, lease }) => {
    void navigateFirstPage(lease.cdp, input.start_url!).catch((err: unknown) =>
      ctx.log.warn({ sessionId: session.id, err: (err as Error)?.message }, "could not open the session's start URL"),
    );
  },
});
