// chrome-remote-interface ships no types; the tests use this much of it.
declare module "chrome-remote-interface" {
  interface Client {
    send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<Record<string, unknown>>;
    close(): Promise<void>;
  }
  function CDP(options: { target: string; local?: boolean }): Promise<Client>;
  export default CDP;
}
