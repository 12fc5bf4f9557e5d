/**
 * The provider: what the rules and endpoints of one running identity provider share. Endpoints
 * are made per provider (factories taking a Provider), so several providers can run in one
 * process; src/app/provider.ts makes one.
 */
import type { Config } from "../config/schema.ts";
import type { Store } from "../store/types.ts";
import type { Brand } from "./ui/brand.ts";
import type { KeyRing } from "./keys/keyring.ts";
import type { Mail } from "./mail.ts";
import type { Metrics } from "./ops/metrics.ts";

/** The OpenID Provider Metadata as served (discovery/metadata.ts builds it). */
export type Discovery = {
  readonly document: Record<string, unknown>;
  /** The JSON body, serialized once. */
  readonly body: string;
  /** A strong ETag (RFC 9110 §8.8.3) of the body. */
  readonly etag: string;
};

export type LogLine = Record<string, unknown>;
export type Log = (line: LogLine) => void;

export interface Provider {
  readonly config: Config;
  readonly store: Store;
  readonly keys: KeyRing;
  /** Current unix time in seconds; tests inject a clock. */
  now(): number;
  /** Structured log: one JSON object a line, never secrets. */
  readonly log: Log;
  /** The discovery document, computed once (it only depends on config and key algs). */
  readonly discovery: Discovery;
  /** True when the issuer is https: cookies are Secure and pages send HSTS. */
  readonly secure: boolean;
  /** This instance's counters (served at /metrics when IDP_METRICS_TOKEN is set). */
  readonly metrics: Metrics;
  /** Outgoing mail through the outbox (mail.ts); `enabled` false when it cannot be delivered. */
  readonly mail: Mail;
  /** The operator's name, logo, favicon, colours and stylesheet (brand.ts), read at start. */
  readonly brand: Brand;
}

/** JSON lines on stdout with a timestamp. */
export const json_log: Log = (line) => {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`);
};
