/**
 * The provider: what the rules and endpoints of one running identity provider share. Endpoints
 * are made per provider (factories taking a Provider), so several providers can run in one
 * process; src/app/provider.ts makes one.
 */
import type { Config } from "../config/schema.ts";
import type { SettingSource } from "../config/settings.ts";
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

/** One setting as the console's settings page shows it: its value with secrets masked (undefined: unset), and its source. */
export type SettingReport = { path: string; env: string | null; value: unknown; source: SettingSource };

/**
 * The running instance as the console's dashboard and settings pages show it, made by the
 * composition root (app/provider.ts) with what `idp --version` and `idp config check` use.
 */
export interface About {
  /** package.json's version, as `idp --version` prints it. */
  readonly version: string;
  /** The warnings `idp config check` prints, worked out at each call (the files' modes can change). */
  warnings(): string[];
  /** Every setting in the schema's order, secrets masked as `idp config check` masks them. */
  readonly settings: readonly SettingReport[];
}

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
  /** Wakes this instance's webhook worker after deliveries were queued (oidc/webhooks/fan_out.ts); absent without one. */
  readonly wake_webhooks?: () => void;
  /** The version, the configuration's warnings and each setting's source (the console's dashboard and settings). */
  readonly about: About;
}

/** JSON lines on stdout with a timestamp. */
export const json_log: Log = (line) => {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`);
};
