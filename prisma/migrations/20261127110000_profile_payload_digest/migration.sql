-- The SHA-256 of each profile's payload, kept by the database itself whenever the payload is
-- written (any INSERT, any UPDATE that sets it): a session start from a profile whose payload this
-- node holds (src/services/profiles/sealed-cache.ts) compares it instead of hashing ~150 KiB on
-- every read (about 2 ms of the embedded database's thread).
ALTER TABLE "profiles" ADD COLUMN "ciphertext_sha256" BYTEA;

CREATE FUNCTION "vessel_profile_digest"() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
  NEW."ciphertext_sha256" := sha256(NEW."ciphertext");
  RETURN NEW;
END;
$$;

CREATE TRIGGER "profiles_ciphertext_sha256"
BEFORE INSERT OR UPDATE OF "ciphertext", "ciphertext_sha256" ON "profiles"
FOR EACH ROW EXECUTE FUNCTION "vessel_profile_digest"();

UPDATE "profiles" SET "ciphertext_sha256" = sha256("ciphertext");
