// Decision record 0273 (docs/decisions/0273-pothos-without-plugin-prisma.md): where would
// @pothos/plugin-prisma apply? It pays where a GraphQL object type is a table's row and its fields
// are columns and relations that a resolver may load with the parent's query (prismaObject,
// t.relation, the `query` spread into a findMany). This walks the built schema and counts, for each
// object type that has a same-purpose Prisma model, the fields that are that model's columns under
// the same name, the fields that are something else (renamed, computed, minted, read from the
// running node), and the fields whose type is another table-backed type (the relations the plugin
// would batch). It also counts the root fields that go through a service (`audited(`) and the
// GraphQL files that reach Prisma's client themselves.
//
//   npx tsx bench/decision-pothos-prisma.ts
import fs from "node:fs";
import path from "node:path";
import { getNamedType, isObjectType, type GraphQLObjectType } from "graphql";
import { Prisma } from "../src/generated/prisma/client.ts";
import { schema } from "../src/graphql/schema.ts";

/** GraphQL object type → the Prisma model it presents (same name, or the model behind a renamed one). */
const modelOf: Record<string, string> = {
  Session: "Session",
  SessionEvent: "SessionEvent",
  SessionLogEntry: "SessionLogEntry",
  RecordingInfo: "Recording",
  Profile: "Profile",
  ApiKey: "ApiKey",
  CreatedApiKey: "ApiKey",
  AuditEntry: "AuditEntry",
  Workspace: "Workspace",
  Member: "Membership",
  Invitation: "Invitation",
  Extension: "Extension",
  Webhook: "WebhookEndpoint",
  WebhookWithSecret: "WebhookEndpoint",
  WebhookDelivery: "WebhookDelivery",
  Me: "User",
};

function columnsOf(model: string): Set<string> {
  const fields = (Prisma as unknown as Record<string, Record<string, string> | undefined>)[`${model}ScalarFieldEnum`];
  if (!fields) throw new Error(`no model ${model}`);
  return new Set(Object.keys(fields));
}

const objectTypes = Object.values(schema.getTypeMap()).filter(
  (t): t is GraphQLObjectType => isObjectType(t) && !t.name.startsWith("__") && !["Query", "Mutation", "Subscription"].includes(t.name),
);
let columnFields = 0;
let otherFields = 0;
let relationFields = 0;
const row = (cells: [string, string, number | string, number | string, number | string, number | string], rest: string) =>
  `${cells[0].padEnd(20)} ${cells[1].padEnd(16)} ${cells
    .slice(2)
    .map((c, i) => String(c).padStart([6, 8, 6, 10][i]!))
    .join(" ")}  ${rest}`;
console.log(row(["GraphQL type", "model", "fields", "columns", "other", "relations"], "not a column under its name"));
for (const type of objectTypes) {
  const model = modelOf[type.name];
  if (!model) continue;
  const columns = columnsOf(model);
  const fields = Object.values(type.getFields());
  const asColumn = fields.filter((field) => columns.has(field.name));
  const relations = fields.filter((field) => modelOf[getNamedType(field.type).name] !== undefined);
  const others = fields.filter((field) => !columns.has(field.name));
  columnFields += asColumn.length;
  otherFields += others.length;
  relationFields += relations.length;
  const names = others.map((x) => x.name).join(", ");
  console.log(row([type.name, model, fields.length, asColumn.length, others.length, relations.length], names));
}
const backed = objectTypes.filter((t) => modelOf[t.name]).length;
console.log(`\nobject types: ${objectTypes.length}, presenting a table: ${backed}, not a table: ${objectTypes.length - backed}`);
console.log(
  `fields of table-backed types: ${columnFields + otherFields}; a column under its own name: ${columnFields}; other: ${otherFields}; ` +
    `relations to another table-backed type: ${relationFields}`,
);

const dir = path.join(import.meta.dirname, "../src/graphql");
const files = [...fs.readdirSync(dir), ...fs.readdirSync(path.join(dir, "types")).map((x) => `types/${x}`)].filter((x) => x.endsWith(".ts"));
const text = (file: string) => fs.readFileSync(path.join(dir, file), "utf8");
const roots = files.reduce((n, file) => n + (text(file).match(/builder\.(queryField|mutationField|subscriptionField)\(/g)?.length ?? 0), 0);
const throughServices = files.reduce((n, file) => n + (text(file).match(/\baudited\(/g)?.length ?? 0), 0);
const reachPrisma = files.filter((file) => /\.prisma\b|prismaOf\(|\$queryRaw|\$executeRaw/.test(text(file)));
const which = reachPrisma.length ? ` (${reachPrisma.join(", ")})` : "";
console.log(`root fields declared: ${roots}; calls through a service (audited): ${throughServices}`);
console.log(`GraphQL files that reach Prisma's client: ${reachPrisma.length}${which}`);
