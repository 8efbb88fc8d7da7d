import { RegionsDocument } from "@gql/graphql.ts";
import { useQuery } from "../lib/hooks.ts";
import { CodeBlock } from "./code-block.tsx";
import { CopyButton } from "./ui.tsx";

/**
 * The curl that starts a session, as a user pastes it into a stock shell: the key itself when the
 * page holds it (a new key, while shown) or `$VESSEL_API_KEY`, a region this deployment serves, and an
 * Idempotency-Key from the kernel (`uuidgen` is not installed on stock Debian). It records the screen, so
 * the session's page shows what the code did.
 */
export function startSessionCurl(origin: string, apiKey: string, region: string): string {
  return `curl -X POST ${origin}/v1/sessions \\
  -H "Authorization: Bearer ${apiKey}" \\
  -H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid)" \\
  -H "content-type: application/json" \\
  -d '{"region": "${region}", "recording": true}'`;
}

/**
 * `copyButton: false` where the snippet sits next to another Copy button (the new key's dialog): one
 * "Copy" there, for the key; the command is selected and copied from its box.
 */
export function StartSessionCurl({ apiKey, small, copyButton = true }: { apiKey?: string; small?: boolean; copyButton?: boolean }) {
  const regions = useQuery(RegionsDocument, {});
  const region = regions.data?.health.regions[0] ?? "us-east1";
  const text = startSessionCurl(location.origin, apiKey ?? "$VESSEL_API_KEY", region);
  return (
    <div className="snippet">
      <CodeBlock label="curl command that starts a session" small={small}>
        {text}
      </CodeBlock>
      {copyButton ? <CopyButton text={text} label="Copy command" /> : null}
    </div>
  );
}
