// Every table whose rows hold something sealed under the master key, described once for
// master-key rotation (master-key-rotation.ts walks them with rotateSealedRows).
import { rewrapDataKey } from "../../crypto/data-keys.ts";
import { open, seal } from "../../crypto/envelope.ts";
import type { MasterKey } from "../../crypto/master-key.ts";
import { rewrapDataKey as rewrapProfileKey } from "../../crypto/profile-crypto.ts";
import { rewrapRecordingKey } from "../../crypto/recording-crypto.ts";
import { rewrapLogKey } from "../../crypto/session-log-crypto.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { credentialKeyAad } from "../credentials/credential-secrets.ts";
import { extensionKeyAad } from "../extensions/extensions.ts";
import { queuedInputAad } from "../sessions/queue/enqueue.ts";
import { openSecret, secretAad } from "../webhooks/webhook-secrets.ts";
import type { SealedKeyRows } from "./sealed-key-rows.ts";

const bytes = (b: Buffer) => new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) as Uint8Array<ArrayBuffer>;
const outside = (ids: string[]) => ({ masterKeyId: { notIn: ids } });

/** Profiles: the wrapped data key; no payload is touched. */
export const profileKeys = (prisma: PrismaClient): SealedKeyRows => ({
  page: async (keyId, after, take) =>
    (
      await prisma.profile.findMany({ where: { id: { gt: after }, masterKeyId: keyId }, select: { id: true, wrappedKey: true }, orderBy: { id: "asc" }, take })
    ).map((r) => ({ id: r.id, sealed: r.wrappedKey })),
  reseal: (current, next, id, sealed) => rewrapProfileKey(current, next, id, sealed),
  swap: async (id, wrappedKey, from, to) =>
    (await prisma.profile.updateMany({ where: { id, masterKeyId: from }, data: { wrappedKey, masterKeyId: to } })).count,
  countUnder: (keyId) => prisma.profile.count({ where: { masterKeyId: keyId } }),
  countOutside: (ids) => prisma.profile.count({ where: outside(ids) }),
});

/** Token-signing keys: the sealed private key itself, bound to its kid (the AAD of src/auth/signing-keys.ts). */
export const signingKeys = (prisma: PrismaClient): SealedKeyRows => {
  const aad = (kid: string) => `signing_keys:${kid}`;
  return {
    page: async (keyId, after, take) =>
      (
        await prisma.signingKey.findMany({
          where: { id: { gt: after }, masterKeyId: keyId },
          select: { id: true, privateKeyEncrypted: true },
          orderBy: { id: "asc" },
          take,
        })
      ).map((r) => ({
        id: r.id,
        sealed: r.privateKeyEncrypted,
      })),
    reseal: (current: MasterKey, next: MasterKey, id, sealed) => {
      const plain = open(current.key, sealed, aad(id));
      try {
        return bytes(seal(next.key, plain, aad(id)));
      } finally {
        plain.fill(0);
      }
    },
    swap: async (id, privateKeyEncrypted, from, to) =>
      (await prisma.signingKey.updateMany({ where: { id, masterKeyId: from }, data: { privateKeyEncrypted, masterKeyId: to } })).count,
    countUnder: (keyId) => prisma.signingKey.count({ where: { masterKeyId: keyId } }),
    countOutside: (ids) => prisma.signingKey.count({ where: outside(ids) }),
  };
};

/** Sessions' log keys; no entry is touched. */
export const sessionLogKeys = (prisma: PrismaClient): SealedKeyRows => ({
  page: async (keyId, after, take) =>
    (
      await prisma.sessionLogKey.findMany({
        where: { sessionId: { gt: after }, masterKeyId: keyId },
        select: { sessionId: true, wrappedKey: true },
        orderBy: { sessionId: "asc" },
        take,
      })
    ).map((r) => ({
      id: r.sessionId,
      sealed: r.wrappedKey,
    })),
  reseal: (current, next, id, sealed) => rewrapLogKey(current, next, id, sealed),
  swap: async (sessionId, wrappedKey, from, to) =>
    (await prisma.sessionLogKey.updateMany({ where: { sessionId, masterKeyId: from }, data: { wrappedKey, masterKeyId: to } })).count,
  countUnder: (keyId) => prisma.sessionLogKey.count({ where: { masterKeyId: keyId } }),
  countOutside: (ids) => prisma.sessionLogKey.count({ where: outside(ids) }),
});

/** Recordings' data keys; no chunk is touched. */
export const recordingKeys = (prisma: PrismaClient): SealedKeyRows => ({
  page: async (keyId, after, take) =>
    (
      await prisma.recording.findMany({
        where: { sessionId: { gt: after }, masterKeyId: keyId },
        select: { sessionId: true, wrappedKey: true },
        orderBy: { sessionId: "asc" },
        take,
      })
    ).map((r) => ({
      id: r.sessionId,
      sealed: r.wrappedKey,
    })),
  reseal: (current, next, id, sealed) => rewrapRecordingKey(current, next, id, sealed),
  swap: async (sessionId, wrappedKey, from, to) =>
    (await prisma.recording.updateMany({ where: { sessionId, masterKeyId: from }, data: { wrappedKey, masterKeyId: to } })).count,
  countUnder: (keyId) => prisma.recording.count({ where: { masterKeyId: keyId } }),
  countOutside: (ids) => prisma.recording.count({ where: outside(ids) }),
});

/** Extensions' data keys; no zip is touched. */
export const extensionKeys = (prisma: PrismaClient): SealedKeyRows => ({
  page: async (keyId, after, take) =>
    (
      await prisma.extension.findMany({
        where: { id: { gt: after }, masterKeyId: keyId },
        select: { id: true, wrappedKey: true },
        orderBy: { id: "asc" },
        take,
      })
    ).map((r) => ({ id: r.id, sealed: r.wrappedKey })),
  reseal: (current, next, id, sealed) => rewrapDataKey(current, next, extensionKeyAad(id), sealed),
  swap: async (id, wrappedKey, from, to) =>
    (await prisma.extension.updateMany({ where: { id, masterKeyId: from }, data: { wrappedKey, masterKeyId: to } })).count,
  countUnder: (keyId) => prisma.extension.count({ where: { masterKeyId: keyId } }),
  countOutside: (ids) => prisma.extension.count({ where: outside(ids) }),
});

/** Credentials' data keys; no sealed secret is touched. */
export const credentialKeys = (prisma: PrismaClient): SealedKeyRows => ({
  page: async (keyId, after, take) =>
    (
      await prisma.credential.findMany({
        where: { id: { gt: after }, masterKeyId: keyId },
        select: { id: true, wrappedKey: true },
        orderBy: { id: "asc" },
        take,
      })
    ).map((r) => ({ id: r.id, sealed: r.wrappedKey })),
  reseal: (current, next, id, sealed) => rewrapDataKey(current, next, credentialKeyAad(id), sealed),
  swap: async (id, wrappedKey, from, to) =>
    (await prisma.credential.updateMany({ where: { id, masterKeyId: from }, data: { wrappedKey, masterKeyId: to } })).count,
  countUnder: (keyId) => prisma.credential.count({ where: { masterKeyId: keyId } }),
  countOutside: (ids) => prisma.credential.count({ where: outside(ids) }),
});

/**
 * Queued sessions' inputs (the create as asked, its proxy password too), sealed themselves, bound to
 * the session id: a session waiting through a rotation must still open under the key its node runs with.
 */
export const queuedInputs = (prisma: PrismaClient): SealedKeyRows => ({
  page: async (keyId, after, take) =>
    (
      await prisma.sessionQueueEntry.findMany({
        where: { sessionId: { gt: after }, masterKeyId: keyId },
        select: { sessionId: true, input: true },
        orderBy: { sessionId: "asc" },
        take,
      })
    ).map((r) => ({ id: r.sessionId, sealed: r.input })),
  reseal: (current, next, id, sealed) => {
    const plain = open(current.key, sealed, queuedInputAad(id));
    try {
      return bytes(seal(next.key, plain, queuedInputAad(id)));
    } finally {
      plain.fill(0);
    }
  },
  swap: async (sessionId, input, from, to) =>
    (await prisma.sessionQueueEntry.updateMany({ where: { sessionId, masterKeyId: from }, data: { input, masterKeyId: to } })).count,
  countUnder: (keyId) => prisma.sessionQueueEntry.count({ where: { masterKeyId: keyId } }),
  countOutside: (ids) => prisma.sessionQueueEntry.count({ where: outside(ids) }),
});

/** Webhook endpoints' signing secrets (sealed themselves, bound to the endpoint's id). */
export const webhookSecrets = (prisma: PrismaClient): SealedKeyRows => ({
  page: async (keyId, after, take) =>
    (
      await prisma.webhookEndpoint.findMany({
        where: { id: { gt: after }, masterKeyId: keyId },
        select: { id: true, secret: true },
        orderBy: { id: "asc" },
        take,
      })
    ).map((r) => ({ id: r.id, sealed: r.secret })),
  reseal: (current, next, id, sealed) => resealSecret(current, next, id, sealed),
  swap: async (id, secret, from, to) =>
    (await prisma.webhookEndpoint.updateMany({ where: { id, masterKeyId: from }, data: { secret, masterKeyId: to } })).count,
  countUnder: (keyId) => prisma.webhookEndpoint.count({ where: { masterKeyId: keyId } }),
  countOutside: (ids) => prisma.webhookEndpoint.count({ where: outside(ids) }),
});

/** The previous secrets still signing after a rotation (their own master-key id column). */
export const webhookPreviousSecrets = (prisma: PrismaClient): SealedKeyRows => ({
  page: async (keyId, after, take) =>
    (
      await prisma.webhookEndpoint.findMany({
        where: { id: { gt: after }, previousMasterKeyId: keyId },
        select: { id: true, previousSecret: true },
        orderBy: { id: "asc" },
        take,
      })
    ).flatMap((r) => (r.previousSecret ? [{ id: r.id, sealed: r.previousSecret }] : [])),
  reseal: (current, next, id, sealed) => resealSecret(current, next, id, sealed),
  swap: async (id, previousSecret, from, to) =>
    (await prisma.webhookEndpoint.updateMany({ where: { id, previousMasterKeyId: from }, data: { previousSecret, previousMasterKeyId: to } })).count,
  countUnder: (keyId) => prisma.webhookEndpoint.count({ where: { previousMasterKeyId: keyId } }),
  countOutside: (ids) => prisma.webhookEndpoint.count({ where: { previousMasterKeyId: { notIn: ids, not: null } } }),
});

function resealSecret(current: MasterKey, next: MasterKey, id: string, sealed: Uint8Array): Uint8Array<ArrayBuffer> {
  const plain = openSecret(current, id, sealed);
  try {
    return bytes(seal(next.key, plain, secretAad(id)));
  } finally {
    plain.fill(0);
  }
}
