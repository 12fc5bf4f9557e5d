/**
 * One call through the outbound fence (src/oidc/outbound/fetch.ts) under Deno, for
 * tests/runtime/outbound.test.ts: `outbound.ts URL` with the permissions the test gives; prints
 * `{status, body}` or `{error: {kind, reason}}` and the fence's log lines.
 */
import { load_config } from "../../../src/app/config.ts";
import { OutboundError, outbound_fetch } from "../../../src/oidc/outbound/fetch.ts";
import type { Provider } from "../../../src/oidc/provider.ts";

const logs: Record<string, unknown>[] = [];
const config = load_config({ IDP_OUTBOUND_ALLOW_HTTP: "true", IDP_OUTBOUND_ALLOW: "127.0.0.1/32" });
const idp = { config, log: (line: Record<string, unknown>) => logs.push(line) } as unknown as Provider;
try {
  const answer = await outbound_fetch(idp, Deno.args[0]!, { purpose: "jwks_uri" });
  console.log(JSON.stringify({ status: answer.status, body: new TextDecoder().decode(answer.body), logs }));
} catch (error) {
  if (!(error instanceof OutboundError)) throw error;
  console.log(JSON.stringify({ error: { kind: error.kind, reason: error.reason }, logs }));
}
