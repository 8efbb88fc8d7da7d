import type { Profile, Vessel } from "./index.ts";

type Run = { vessel: Vessel; args: string[]; io: { out(text: string): void }; json: boolean };

/** A size as people read it: bytes below 1 KiB (335 B, not "1 KiB"), then KiB and MiB with one decimal. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, "")} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, "")} MiB`;
}

const table = (rows: string[][]): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
};

function profileRows(profiles: Profile[]): string {
  if (profiles.length === 0) return "No profiles.";
  return table([
    ["ID", "LABEL", "COOKIES", "ORIGINS", "KEYS", "SIZE", "UPDATED"],
    ...profiles.map((p) => [
      p.profile_id,
      p.label,
      String(p.cookie_count),
      String(p.origin_count),
      String(p.key_count),
      formatSize(p.size_bytes),
      p.updated_at,
    ]),
  ]);
}

/** `vessel profiles …` (cli.ts's command table holds them). */
export const profileCommands = {
  "profiles list": {
    usage: "vessel profiles list",
    summary: "List the workspace's saved profiles.",
    async run({ vessel, io, json }: Run) {
      const profiles: Profile[] = [];
      for await (const p of vessel.profiles.list()) profiles.push(p);
      io.out(json ? JSON.stringify(profiles, null, 2) : profileRows(profiles));
    },
  },
  "profiles delete": {
    usage: "vessel profiles delete <id>",
    summary: "Delete a profile (its encryption key is destroyed with it).",
    args: ["id"],
    async run({ vessel, args, io, json }: Run) {
      await vessel.profiles.delete(args[0]!);
      io.out(json ? JSON.stringify({ id: args[0], deleted: true }, null, 2) : `Deleted ${args[0]}.`);
    },
  },
  "profiles export": {
    usage: "vessel profiles export <id>",
    summary: "Print a profile as a Playwright storageState document (JSON; it holds the logins in the clear).",
    args: ["id"],
    async run({ vessel, args, io }: Run) {
      io.out(JSON.stringify(await vessel.profiles.exportStorageState(args[0]!), null, 2));
    },
  },
};
