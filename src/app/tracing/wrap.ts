/**
 * The child spans that come from wrapping a whole object rather than a call site, while traces
 * are on: every store call (a client span `store.<method>`, OpenTelemetry's database semantic
 * conventions: `db.system.name`, `db.operation.name`, never the arguments), and every argon2id
 * hash and verification (`password.hash`, `password.verify`), through `argon2_impl`, the one
 * object every one of them goes through (platform/passwords.ts; tests spy on it the same way).
 * As for every child span (oidc/ops/tracing.ts), only calls made inside a request make spans.
 */
import type { SpanAttributes, Tracing } from "../../oidc/ops/tracing.ts";
import { argon2_impl } from "../../platform/passwords.ts";
import type { Store } from "../../store/types.ts";

/** `store` behind a Proxy that runs each method in a span. */
export function traced_store(store: Store, tracing: Tracing): Store {
  const system = store.kind === "sqlite" ? "sqlite" : "postgresql";
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      let method = wrapped.get(key);
      if (method === undefined) {
        const name = `store.${String(key)}`;
        const attributes: SpanAttributes = { "db.system.name": system, "db.operation.name": String(key) };
        const call = value as (...args: unknown[]) => unknown;
        method = (...args: unknown[]) => tracing.span(name, attributes, () => call.apply(target, args), "client");
        wrapped.set(key, method);
      }
      return method;
    },
  });
}

const NONE: SpanAttributes = {};

/** Wraps argon2id's hash and verify in spans; returns what puts them back. */
export function trace_password_hashing(tracing: Tracing): () => void {
  const { hash, verify } = argon2_impl;
  argon2_impl.hash = (password, params) => tracing.span("password.hash", NONE, () => hash(password, params), "internal");
  argon2_impl.verify = (password, stored) => tracing.span("password.verify", NONE, () => verify(password, stored), "internal");
  return () => {
    argon2_impl.hash = hash;
    argon2_impl.verify = verify;
  };
}
