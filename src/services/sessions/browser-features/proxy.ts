import { defineFeature } from "./feature.ts";

/**
 * `proxy`: the session's traffic leaves through the customer's own HTTP proxy, after the egress
 * policy. It lives only in this process's memory, on the browser's egress route, for as long as the
 * browser does; a lease given back unused forgets it (browser/pool/lease.ts), so a spare stays clean.
 */
export const upstreamProxy = defineFeature({
  name: "upstream proxy",
  reads: ["proxy"],
  phase: "leased",
  dirtiesSpare: false,
  wanted: ({ input }) => input.proxy !== undefined,
  apply: ({ input, lease }) => {
    if (input.proxy && lease.egress) lease.egress.upstream = { ...input.proxy };
  },
});
