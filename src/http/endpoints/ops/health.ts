/**
 * Health checks for orchestrators: /healthz (the process answers: liveness) and /readyz (the
 * database answers and keys are loaded: readiness, 503 otherwise so traffic goes elsewhere).
 */
import { Fw } from "../../../fw/index.ts";
import type { Provider } from "../../../oidc/provider.ts";

export const Healthz = (_idp: Provider) =>
  class Healthz extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = "GET /healthz";
    call() {
      this.response.headers.set("cache-control", "no-store");
      return this.json({ status: "ok" });
    }
  };

export const Readyz = (idp: Provider) =>
  class Readyz extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = "GET /readyz";
    async call() {
      this.response.headers.set("cache-control", "no-store");
      let database = "ok";
      try {
        await idp.store.ping();
      } catch {
        database = "unavailable";
      }
      const keys = idp.keys.signing_algs().length > 0 ? "ok" : "unavailable";
      const ready = database === "ok" && keys === "ok";
      return this.json({ status: ready ? "ready" : "unavailable", database, keys }, ready ? 200 : 503);
    }
  };
