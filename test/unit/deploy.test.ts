import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { loadConfig } from "../../src/config.ts";
import { settings } from "../../src/settings.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

/**
 * The deployment files (deploy/) against the code: they parse, their probes answer on a real app,
 * their ports are the server's, the drain fits in the grace period, and every variable they set is
 * a documented setting whose value the configuration accepts.
 */

const root = fileURLToPath(new URL("../..", import.meta.url));
const k8sDir = path.join(root, "deploy", "kubernetes");
const reference = fs.readFileSync(path.join(root, "docs", "configuration.md"), "utf8");

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const manifests: Array<{ file: string; doc: Doc }> = fs
  .readdirSync(k8sDir)
  .filter((f) => /\.ya?ml$/.test(f))
  .flatMap((file) =>
    parseAllDocuments(fs.readFileSync(path.join(k8sDir, file), "utf8")).map((d) => {
      if (d.errors.length > 0) throw new Error(`${file}: ${d.errors.map((e) => e.message).join("; ")}`);
      return { file, doc: d.toJS() as Doc };
    }),
  );
const ofKind = (kind: string) => manifests.filter((m) => m.doc.kind === kind).map((m) => m.doc);
const deployment = ofKind("Deployment")[0]!;
const pod = deployment.spec.template.spec;
const container = pod.containers[0];
const env: Array<{ name: string; value?: string; valueFrom?: unknown }> = container.env ?? [];
const secret = ofKind("Secret")[0]!;
const defaults = loadConfig({}, "/nonexistent");

describe("deploy/kubernetes", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ startBrowsers: false });
  });
  afterAll(async () => app?.stop());

  it("parses: every document is a Kubernetes object, and there is one of each kind we ship", () => {
    expect(manifests.length).toBeGreaterThanOrEqual(4);
    for (const { file, doc } of manifests) {
      expect(doc.apiVersion, file).toEqual(expect.any(String));
      expect(doc.kind, file).toEqual(expect.any(String));
      expect(doc.metadata?.name, file).toBe("vessel");
    }
    expect(manifests.map((m) => m.doc.kind).sort()).toEqual(["Deployment", "PodDisruptionBudget", "Secret", "Service"]);
  });

  it("serves on the server's own port, and the Service and the probes point at it", () => {
    const ports: Array<{ name: string; containerPort: number }> = container.ports;
    expect(ports).toEqual([{ name: "http", containerPort: defaults.port }]);
    expect(env.find((e) => e.name === "PORT")?.value).toBe(String(defaults.port));
    const service = ofKind("Service")[0]!;
    expect(service.spec.ports.map((p: { targetPort: string }) => p.targetPort)).toEqual(["http"]);
    for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
      expect(container[probe]?.httpGet?.port, probe).toBe("http");
    }
    const dockerfile = fs.readFileSync(path.join(root, "deploy", "Dockerfile"), "utf8");
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${defaults.port}$`, "m"));
    expect(dockerfile).toMatch(new RegExp(`PORT=${defaults.port}\\b`));
  });

  it("listens on every interface of the container, where the node's own default is loopback alone", () => {
    expect(defaults.host).toBe("127.0.0.1");
    const dockerfile = fs.readFileSync(path.join(root, "deploy", "Dockerfile"), "utf8");
    expect(dockerfile).toMatch(/^ENV .*\bVESSEL_HOST=0\.0\.0\.0\b/m);
    expect(env.find((e) => e.name === "VESSEL_HOST")?.value).toBe("0.0.0.0");
  });

  it("probes paths that answer 200 on a running app; readiness is the one that turns 503 when draining", async () => {
    for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
      const res = await fetch(`${app.url}${container[probe].httpGet.path}`);
      expect(res.status, probe).toBe(200);
    }
    expect(container.readinessProbe.httpGet.path).toBe("/readyz");
    expect(container.livenessProbe.httpGet.path).toBe("/healthz");
    await app.app.drain(0);
    expect((await fetch(`${app.url}${container.readinessProbe.httpGet.path}`)).status).toBe(503);
    expect((await fetch(`${app.url}${container.livenessProbe.httpGet.path}`)).status).toBe(200);
  });

  it("gives the drain time to finish: preStop + VESSEL_DRAIN_SECONDS < terminationGracePeriodSeconds", () => {
    const drain = Number(env.find((e) => e.name === "VESSEL_DRAIN_SECONDS")?.value ?? defaults.drainSeconds);
    const preStop = container.lifecycle?.preStop?.exec?.command as string[] | undefined;
    const pause = preStop?.[0] === "sleep" ? Number(preStop[1]) : 0;
    expect(drain).toBeGreaterThan(0);
    expect(pause + drain).toBeLessThan(pod.terminationGracePeriodSeconds);
    // Rollouts never take a pod away before its replacement is ready; evictions go one at a time.
    expect(deployment.spec.strategy.rollingUpdate).toMatchObject({ maxUnavailable: 0 });
    const pdb = ofKind("PodDisruptionBudget")[0]!;
    expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(ofKind("Service")[0]!.spec.selector).toEqual(deployment.spec.selector.matchLabels);
  });

  it("sets only documented settings (helpers only to build another value), with values the configuration accepts", () => {
    const documented = new Set(settings.map((s) => s.env));
    const helpers = new Set(env.filter((e) => env.some((o) => o.value?.includes(`$(${e.name})`))).map((e) => e.name));
    const names = [...env.map((e) => e.name).filter((n) => !helpers.has(n)), ...Object.keys(secret.stringData)];
    for (const name of names) {
      expect(documented.has(name), `${name} is not a setting in src/config.ts`).toBe(true);
      expect(reference, `${name} is not in docs/configuration.md`).toContain(`\`${name}\``);
    }
    // The values as a pod would see them (field references and the secret's placeholders filled in).
    const values: Record<string, string> = { POD_IP: "10.1.2.3", VESSEL_NODE_ID: "vessel-7d9f-abcde" };
    for (const e of env) if (e.value !== undefined) values[e.name] = e.value.replace(/\$\((\w+)\)/g, (_, v: string) => values[v] ?? "");
    Object.assign(values, secret.stringData, { VESSEL_MASTER_KEY: Buffer.alloc(32, 7).toString("base64") });
    const config = loadConfig(values, "/nonexistent");
    expect(config.internalUrl).toBe("http://10.1.2.3:8080");
    expect(config.nodeId).toBe("vessel-7d9f-abcde");
  });

  it("copies every npm workspace's manifest before npm ci, which installs the workspaces too", () => {
    const dockerfile = fs.readFileSync(path.join(root, "deploy", "Dockerfile"), "utf8");
    const workspaces = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { workspaces?: string[] }).workspaces ?? [];
    expect(workspaces).toContain("clients/typescript");
    const ci = dockerfile.indexOf("RUN npm ci");
    for (const ws of workspaces) {
      const copy = dockerfile.indexOf(`COPY ${ws}/package.json ${ws}/`);
      expect(copy, ws).toBeGreaterThan(-1);
      expect(copy, ws).toBeLessThan(ci);
    }
  });

  it("runs as a non-root user under tini, with the Chromium policy and entry point that exist", () => {
    const dockerfile = fs.readFileSync(path.join(root, "deploy", "Dockerfile"), "utf8");
    expect(dockerfile).toMatch(/^USER 10001$/m);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
    expect(dockerfile).toContain('CMD ["node", "--import", "tsx", "src/main.ts"]');
    expect(fs.existsSync(path.join(root, "src", "main.ts"))).toBe(true);
    const policy = /^COPY (\S+) \/etc\/chromium\/policies\/managed\/vessel\.json$/m.exec(dockerfile)?.[1];
    expect(policy).toBeDefined();
    const parsed = JSON.parse(fs.readFileSync(path.join(root, policy!), "utf8")) as { URLBlocklist: string[] };
    expect(parsed.URLBlocklist).toEqual(expect.arrayContaining(["file://*", "chrome://*"]));
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  it("jails every browser: bubblewrap and perl (the jail's forwarder) in the image, the jail required, and the pod settings it needs", () => {
    const dockerfile = fs.readFileSync(path.join(root, "deploy", "Dockerfile"), "utf8");
    const installed = /apt-get install[^&]*/.exec(dockerfile)?.[0] ?? "";
    expect(installed).toMatch(/\bbubblewrap\b/);
    expect(installed).toMatch(/\bperl-base\b/);
    // Recordings: Debian's ffmpeg encodes them (jailed the same way).
    expect(installed).toMatch(/\bffmpeg\b/);
    expect(dockerfile).toMatch(/^ENV .*\bVESSEL_BROWSER_JAIL=required\b/m);
    expect(env.find((e) => e.name === "VESSEL_BROWSER_JAIL")?.value).toBe("required");
    // User namespaces and mounts inside them (seccomp), a fresh /proc (unmasked, so in a user namespace of the pod's own).
    expect(pod.securityContext.seccompProfile).toEqual({ type: "Unconfined" });
    expect(pod.securityContext.appArmorProfile).toEqual({ type: "Unconfined" });
    expect(container.securityContext.procMount).toBe("Unmasked");
    expect(pod.hostUsers).toBe(false);
    // …and still nothing more: non-root, no capability, no privilege escalation.
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
    expect(container.securityContext.privileged).toBeUndefined();
    expect(container.securityContext.capabilities.add).toBeUndefined();
  });
});
