import type { z } from "zod";

/**
 * One operation of the API, declared once for both transports (the catalogue is
 * src/services/operations.ts): its id (the REST operationId and the GraphQL root field), the action
 * its audit entries carry, the service's input schema where it has one, and the one service function
 * both transports call. REST routes and GraphQL root fields name the declaration they serve, so the
 * parity test can check that both reach the same function, not merely share a name.
 */
export interface Operation<Run extends (...args: never[]) => unknown = (...args: never[]) => unknown> {
  readonly id: string;
  readonly action: string;
  readonly input?: z.ZodType;
  readonly run: Run;
}

type Declarations = Record<string, { action: string; input?: z.ZodType; run: (...args: never[]) => unknown }>;

/** Names each declaration by its key. */
export function catalogue<D extends Declarations>(declarations: D): { readonly [K in keyof D]: D[K] & { readonly id: K & string } } {
  return Object.fromEntries(Object.entries(declarations).map(([id, d]) => [id, { id, ...d }])) as never;
}
