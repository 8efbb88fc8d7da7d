// har-schema ships no types: its JSON schemas (draft-06) by name (`har`, `log`, `entry`, …).
declare module "har-schema" {
  const schemas: Record<string, object>;
  export default schemas;
}
