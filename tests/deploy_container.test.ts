/**
 * deploy/compose.yaml and deploy/kubernetes/: the container deployments README "Container"
 * describes, read as data. They run the image as `npm run image` builds it (its name, its
 * user, its port, /data), set only real settings (ENV_KEYS), keep the root file system read-only
 * without privileges, and probe paths that answer on a real server. `kubectl kustomize` (offline)
 * accepts the Kubernetes folder where kubectl is installed.
 */
import { afterAll, beforeAll, describe, expect, test } from "./helpers/test_api.ts";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { DATA_DIR, IMAGE_NAME, USER } from "../scripts/image/names.ts";
import { ENV_KEYS } from "../src/app/config.ts";
import { ConfigSchema } from "../src/config/schema.ts";
import { start_provider, type TestProvider } from "./helpers/provider.ts";
import { parse_yaml, parse_yaml_documents } from "./helpers/yaml.ts";

const DEPLOY = join(import.meta.dirname, "..", "deploy");
const KUBERNETES = join(DEPLOY, "kubernetes");
const read = (path: string) => readFileSync(join(DEPLOY, path), "utf8");
const PORT = ConfigSchema.parse({}).port;

// biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below
type Doc = any;
const yaml_files = ["compose.yaml", ...readdirSync(KUBERNETES).map((name) => `kubernetes/${name}`)];
const manifests: Doc[] = readdirSync(KUBERNETES)
  .filter((name) => name !== "kustomization.yaml")
  .flatMap((name) => parse_yaml_documents(read(`kubernetes/${name}`)));
const of_kind = (kind: string): Doc => {
  const found = manifests.filter((m) => m.kind === kind);
  expect(found).toHaveLength(1);
  return found[0];
};

/** Every variable a list of settings names is a setting. */
function expect_settings(names: string[]): void {
  expect(names.filter((name) => !Object.hasOwn(ENV_KEYS, name))).toEqual([]);
}

describe("the YAML reader of these tests", () => {
  const bun_yaml = (globalThis as { Bun?: { YAML?: { parse(text: string): unknown } } }).Bun?.YAML;
  test.skipIf(bun_yaml === undefined)("reads every deploy/ file as Bun's YAML parser does", () => {
    for (const file of yaml_files) {
      const text = read(file);
      const theirs = bun_yaml!.parse(text);
      expect([file, parse_yaml_documents(text)]).toEqual([file, Array.isArray(theirs) && text.includes("\n---") ? theirs : [theirs]]);
    }
  });

  test("refuses what it does not know rather than guessing", () => {
    expect(() => parse_yaml("a: [1, 2]\n")).toThrow("outside the subset");
    expect(() => parse_yaml("a: |\n  text\n")).toThrow("outside the subset");
    expect(() => parse_yaml("a: 1\na: 2\n")).toThrow("repeated");
    expect(parse_yaml("a:\n- 1\n- 'x'\nb:\n  c: \"3000\" # c\n  d: 10.0.0.0/8\n")).toEqual({ a: [1, "x"], b: { c: "3000", d: "10.0.0.0/8" } });
  });
});

describe("deploy/compose.yaml", () => {
  const compose: Doc = parse_yaml(read("compose.yaml"));
  const idp = compose.services.idp;

  test("runs the image read-only, without capabilities or new privileges, /data on a volume", () => {
    expect(idp.image).toBe(`${IMAGE_NAME}:latest`);
    expect(idp.read_only).toBe(true);
    expect(idp.cap_drop).toEqual(["ALL"]);
    expect(idp.security_opt).toContain("no-new-privileges:true");
    expect(idp.volumes).toEqual([`idp-data:${DATA_DIR}`]);
    expect(Object.keys(compose.volumes)).toEqual(["idp-data"]);
    // Published on the host's loopback only: the TLS proxy is the way in.
    expect(idp.ports).toEqual([`127.0.0.1:${PORT}:${idp.environment.PORT}`]);
  });

  test("sets real settings, as strings; the secrets come from a file that git ignores", () => {
    expect_settings(Object.keys(idp.environment));
    for (const value of Object.values(idp.environment)) expect(typeof value).toBe("string");
    expect(idp.environment.DATABASE_URL).toBe(`sqlite:${DATA_DIR}/idp.sqlite`);
    expect(idp.env_file).toBe("idp.env");
    expect(readFileSync(join(DEPLOY, "..", ".gitignore"), "utf8").split("\n")).toContain("deploy/idp.env");
    // The one proxy trusted is the network's gateway, where the host's proxy comes from.
    expect(idp.environment.IDP_TRUSTED_PROXIES).toBe(compose.networks.default.ipam.config[0].gateway);
  });
});

describe("deploy/kubernetes", () => {
  const deployment = of_kind("Deployment");
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const env: { name: string; value?: string; valueFrom?: Doc }[] = container.env;

  test("the Deployment runs this version's image as its non-root user, read-only, without privileges", () => {
    expect(pod.containers).toHaveLength(1);
    expect(container.image).toBe(`${IMAGE_NAME}:${pkg.version}`);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: USER.uid, runAsGroup: USER.gid, fsGroup: USER.gid });
    expect(container.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.ports).toEqual([{ name: "http", containerPort: PORT }]);
  });

  test("probes: liveness on /healthz, readiness on /readyz, on the container's port", () => {
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(container.startupProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
  });

  test("real settings, as strings; IDP_SECRET_KEY from the Secret", () => {
    expect_settings(env.map((e) => e.name));
    for (const e of env.filter((e) => e.valueFrom === undefined)) expect(typeof e.value).toBe("string");
    expect(env.find((e) => e.name === "DATABASE_URL")!.value).toBe(`sqlite:${DATA_DIR}/idp.sqlite`);
    const secret = of_kind("Secret");
    const ref = env.find((e) => e.name === "IDP_SECRET_KEY")!.valueFrom.secretKeyRef;
    expect(ref).toEqual({ name: secret.metadata.name, key: "IDP_SECRET_KEY" });
    expect(Object.keys(secret.stringData)).toEqual(["IDP_SECRET_KEY"]);
    // The example key is refused at start: it cannot end up in production by mistake.
    expect(ConfigSchema.safeParse({ federation: { secret_key: secret.stringData.IDP_SECRET_KEY } }).success).toBe(false);
  });

  test("/data on the PersistentVolumeClaim, one pod at a time (ReadWriteOnce, Recreate)", () => {
    const pvc = of_kind("PersistentVolumeClaim");
    expect(container.volumeMounts).toEqual([{ name: "data", mountPath: DATA_DIR }]);
    expect(pod.volumes).toEqual([{ name: "data", persistentVolumeClaim: { claimName: pvc.metadata.name } }]);
    expect(pvc.spec.accessModes).toEqual(["ReadWriteOnce"]);
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy.type).toBe("Recreate");
  });

  test("the Service selects the pods and targets their port; kustomization lists every file but the Secret", () => {
    const service = of_kind("Service");
    expect(service.spec.selector).toEqual(deployment.spec.template.metadata.labels);
    expect(deployment.spec.selector.matchLabels).toEqual(deployment.spec.template.metadata.labels);
    expect(service.spec.ports.map((p: Doc) => p.targetPort)).toEqual(["http"]);
    const kustomization: Doc = parse_yaml(read("kubernetes/kustomization.yaml"));
    const files = readdirSync(KUBERNETES).filter((name) => name !== "kustomization.yaml" && name !== "secret.yaml");
    expect([...kustomization.resources].sort()).toEqual(files.sort());
  });

  const kubectl = (process.env.PATH ?? "").split(delimiter).some((dir) => existsSync(join(dir, "kubectl")));
  if (!kubectl) console.warn("kubectl not installed: skipping `kubectl kustomize deploy/kubernetes`");
  test.skipIf(!kubectl)("`kubectl kustomize` (offline) accepts the folder", () => {
    const result = spawnSync("kubectl", ["kustomize", KUBERNETES], { encoding: "utf8", timeout: 30_000 });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(
      parse_yaml_documents(result.stdout)
        .map((m: Doc) => m.kind)
        .sort(),
    ).toEqual(["Deployment", "PersistentVolumeClaim", "Service"]);
  });
});

describe("the probes' paths on a real server", () => {
  let t: TestProvider;
  beforeAll(async () => {
    t = await start_provider();
  });
  afterAll(() => t?.stop());

  test("every probe of the Deployment answers 200", async () => {
    const container = of_kind("Deployment").spec.template.spec.containers[0];
    const paths = ["livenessProbe", "readinessProbe", "startupProbe"].map((probe) => container[probe].httpGet.path as string);
    for (const path of new Set(paths)) expect([path, (await fetch(`${t.url}${path}`)).status]).toEqual([path, 200]);
  });
});
