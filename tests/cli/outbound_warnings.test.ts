/**
 * A URL the provider will call but the outbound fence would refuse is said when the operator
 * registers it (oidc/outbound/preflight.ts, cli/outbound.ts), naming IDP_OUTBOUND_ALLOW_HTTP or
 * IDP_OUTBOUND_ALLOW: a `warning:` line on stderr, the command still succeeds, stdout (JSON
 * included) is unchanged. Hosts here are literals, localhost or a `.invalid` name, so no test
 * depends on the network's DNS.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

const ALLOW_HTTP = "set IDP_OUTBOUND_ALLOW_HTTP=true to let the provider call http URLs, or register an https one";
const ALLOW = "add the host or its address range to IDP_OUTBOUND_ALLOW if the provider should call it";
const client = (...flags: string[]) => ["clients", "add", "--name", "App", "--redirect-uri", "https://rp.example.com/cb", ...flags];
const warnings = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("warning: "));

describe("idp clients add|update", () => {
  test("an http backchannel_logout_uri and a private jwks_uri are warnings naming the setting; the client is added", async () => {
    const result = await box.run(
      client("--backchannel-logout-uri", "http://localhost:9000/bc", "--auth-method", "private_key_jwt", "--jwks-uri", "https://10.0.0.5/jwks", "--json"),
    );
    expect(result.code).toBe(0);
    expect(result.json<{ backchannel_logout_uri: string }>().backchannel_logout_uri).toBe("http://localhost:9000/bc");
    expect(warnings(result.stderr)).toEqual([
      `warning: jwks_uri "https://10.0.0.5/jwks": the provider will not call it: the host is not a public address (private); ${ALLOW}`,
      `warning: backchannel_logout_uri "http://localhost:9000/bc": the provider will not call it: scheme http: is not allowed (outbound.allow_http is off); ${ALLOW_HTTP}`,
    ]);
  });

  test("with http allowed, a name resolving to loopback is a warning naming IDP_OUTBOUND_ALLOW; allow-listed, nothing is said", async () => {
    const http = await box.run(client("--backchannel-logout-uri", "http://localhost:9000/bc"), { env: { IDP_OUTBOUND_ALLOW_HTTP: "true" } });
    expect(http.code).toBe(0);
    const [line] = warnings(http.stderr);
    expect(line).toStartWith('warning: backchannel_logout_uri "http://localhost:9000/bc": the provider will not call it: address ');
    expect(line).toContain("is loopback");
    expect(line).toEndWith(ALLOW);
    const allowed = await box.run(client("--backchannel-logout-uri", "http://localhost:9000/bc"), {
      env: { IDP_OUTBOUND_ALLOW_HTTP: "true", IDP_OUTBOUND_ALLOW: "127.0.0.0/8,::1" },
    });
    expect([allowed.code, allowed.stderr]).toEqual([0, ""]);
    expect((await box.run(client("--backchannel-logout-uri", "https://93.184.215.14/bc"))).stderr).toBe("");
  });

  test("a name that does not resolve is not refused: a warning that it could not be checked", async () => {
    const result = await box.run(client("--backchannel-logout-uri", "https://rp.invalid/bc"));
    expect(result.code).toBe(0);
    expect(warnings(result.stderr)).toEqual([
      expect.stringMatching(
        /^warning: backchannel_logout_uri "https:\/\/rp\.invalid\/bc": could not be checked now \(.+\); the provider calls it only if it resolves to public addresses, or to ones IDP_OUTBOUND_ALLOW covers$/,
      ),
    ]);
  });

  test("update says it again for the client's URLs", async () => {
    const { client_id } = (await box.run(client("--backchannel-logout-uri", "http://127.0.0.1:9000/bc", "--json"))).json<{ client_id: string }>();
    const updated = await box.run(["clients", "update", client_id, "--require-2fa", "on"]);
    expect(updated.code).toBe(0);
    expect(warnings(updated.stderr)).toEqual([
      `warning: backchannel_logout_uri "http://127.0.0.1:9000/bc": the provider will not call it: scheme http: is not allowed (outbound.allow_http is off); ${ALLOW_HTTP}`,
    ]);
  });
});

describe("idp upstreams add", () => {
  test("an upstream whose issuer or endpoints the fence would refuse is added, with a warning for each", async () => {
    const oidc = await box.run(["upstreams", "add", "corp", "--issuer", "http://127.0.0.1:9100", "--client-id", "idp", "--json"]);
    expect(oidc.code).toBe(0);
    expect(oidc.json<{ name: string }>().name).toBe("corp");
    expect(warnings(oidc.stderr)).toEqual([
      `warning: issuer "http://127.0.0.1:9100": the provider will not call it: scheme http: is not allowed (outbound.allow_http is off); ${ALLOW_HTTP}`,
    ]);
    const oauth2 = await box.run(
      [
        "upstreams",
        "add",
        "legacy",
        "--kind",
        "oauth2",
        "--client-id",
        "idp",
        "--authorization-endpoint",
        "https://10.1.2.3/authorize",
        "--token-endpoint",
        "https://10.1.2.3/token",
        "--userinfo-endpoint",
        "https://[fd00::1]/me",
      ],
      { env: { IDP_OUTBOUND_ALLOW: "10.0.0.0/8" } },
    );
    expect(oauth2.code).toBe(0);
    // The authorization endpoint is the browser's to reach, not the provider's: never warned about.
    expect(warnings(oauth2.stderr)).toEqual([
      `warning: userinfo_endpoint "https://[fd00::1]/me": the provider will not call it: the host is not a public address (unique_local); ${ALLOW}`,
    ]);
  });
});
