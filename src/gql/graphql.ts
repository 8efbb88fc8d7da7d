/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type BrowserPoolState =
  | 'READY'
  | 'UNAVAILABLE';

export type DatabaseKind =
  | 'PGLITE'
  | 'POSTGRES';

export type DependencyStatus =
  | 'OK'
  | 'UNAVAILABLE';

export type HealthStatus =
  | 'DEGRADED'
  | 'OK';

export type HealthQueryVariables = Exact<{ [key: string]: never; }>;


export type HealthQuery = { health: { status: HealthStatus, version: string, regions: Array<string>, database: { status: DependencyStatus, kind: DatabaseKind, latencyMs: number | null }, browserPool: { state: BrowserPoolState, capacity: number, inUse: number, warm: number } } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const HealthDocument = new TypedDocumentString(`
    query Health {
  health {
    status
    version
    regions
    database {
      status
      kind
      latencyMs
    }
    browserPool {
      state
      capacity
      inUse
      warm
    }
  }
}
    `) as unknown as TypedDocumentString<HealthQuery, HealthQueryVariables>;