/**
 * In-process metrics of one instance, in the Prometheus text exposition format (version 0.0.4).
 * Prometheus scrapes every instance and sums; nothing here is shared through the store.
 *
 * - `idp_http_requests_total{route,method,status}` and
 *   `idp_http_request_duration_seconds{route,method}` (histogram), recorded by the HTTP layer (src/http/middleware/metrics.ts).
 *   The label is the route pattern (`/interaction/:id/login`), never the raw path, so the number
 *   of series stays bounded whatever clients send; unrouted requests are `route="unmatched"`.
 * - `idp_logins_total{outcome}`: password checks at the login page (success, failure).
 * - `idp_tokens_issued_total{grant_type}`: successful token responses by grant.
 * - `idp_forward_auth_checks_total{outcome}`: answers of the forward-auth check (allowed, sign_in:
 *   not signed in or a second factor missing, denied: outside the application's groups, refused:
 *   no registered application, or a request the check does not take).
 * - `idp_mail_sent_total`, `idp_mail_failed_total{outcome}` (failed attempts: `retry` scheduled
 *   another, `failed` was the last) and `idp_mail_queued` (messages waiting in the outbox, shared
 *   by all instances, as this instance's worker last counted them).
 * - `idp_webhook_deliveries_total{outcome}` (attempts: `sent`, `retry` scheduled another,
 *   `failed` was the last) and `idp_webhook_queued` (deliveries waiting, all instances, as this
 *   instance's worker last counted them): oidc/webhooks/deliver.ts.
 * - `idp_users_foreign_password_hashes`: users whose password hash still comes from another
 *   provider (an import, oidc/foreign_import/), counted in the store at each scrape; it falls as
 *   they sign in and their hash becomes argon2id (signin/password.ts).
 * - `idp_backups_total{outcome}` (success, failure) and `idp_backup_last_success_timestamp_seconds`:
 *   the scheduled backups this instance ran (app/backup/schedule.ts; 0: none yet).
 */

/** Upper bounds (seconds) of the latency histogram: from a cached page to a slow argon2id login. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type LoginOutcome = "success" | "failure";

/** How a forward-auth check ended (http/endpoints/forward_auth/check.ts). */
export const FORWARD_AUTH_OUTCOMES = ["allowed", "sign_in", "denied", "refused"] as const;
export type ForwardAuthOutcome = (typeof FORWARD_AUTH_OUTCOMES)[number];

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

type Histogram = { labels: string; buckets: number[]; sum: number; count: number };

/** Prometheus label value escaping: backslash, double quote and newline. */
function label(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function number(value: number): string {
  return Number.isFinite(value) ? String(value) : value > 0 ? "+Inf" : "-Inf";
}

/** How a webhook delivery attempt ended (oidc/webhooks/deliver.ts). */
export const WEBHOOK_OUTCOMES = ["sent", "retry", "failed"] as const;
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly durations = new Map<string, Histogram>();
  private readonly logins: Record<LoginOutcome, number> = { success: 0, failure: 0 };
  private readonly tokens = new Map<string, number>();
  private readonly forward_auth_checks: Record<ForwardAuthOutcome, number> = { allowed: 0, sign_in: 0, denied: 0, refused: 0 };
  private readonly started_at = Date.now() / 1000;
  private mail = { sent: 0, retry: 0, failed: 0, queued: 0 };
  private webhooks = { sent: 0, retry: 0, failed: 0, queued: 0 };
  private backups = { success: 0, failure: 0, last_success: 0 };
  private foreign_hashes = 0;
  /** Labels put on every sample (`worker="2"` under `idp serve --workers N`), already rendered. */
  private constant = "";

  /**
   * Adds a label to every sample: each worker of `idp serve --workers N` counts on its own, and a
   * scrape reaches whichever worker accepted the connection, so its series must not mix with the
   * other workers' (Prometheus would see counters jump back and forth).
   */
  label_every_sample(name: string, value: string): void {
    this.constant += `${name}="${label(value)}",`;
  }

  /** One answered request. `route` is the matched pattern, or undefined when nothing matched. */
  request(route: string | undefined, method: string, status: number, seconds: number): void {
    const labels = `route="${label(route ?? "unmatched")}",method="${KNOWN_METHODS.has(method) ? method : "other"}"`;
    const key = `${labels},status="${status}"`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    let histogram = this.durations.get(labels);
    if (histogram === undefined) {
      histogram = { labels, buckets: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.durations.set(labels, histogram);
    }
    for (let i = 0; i < DURATION_BUCKETS.length; i++) if (seconds <= DURATION_BUCKETS[i]!) histogram.buckets[i]!++;
    histogram.sum += seconds;
    histogram.count++;
  }

  /** A password check at the login page. */
  login(outcome: LoginOutcome): void {
    this.logins[outcome]++;
  }

  /** A successful token response (the grant type is one the token endpoint accepted). */
  token_issued(grant_type: string): void {
    this.tokens.set(grant_type, (this.tokens.get(grant_type) ?? 0) + 1);
  }

  /** A forward-auth check's answer. */
  forward_auth(outcome: ForwardAuthOutcome): void {
    this.forward_auth_checks[outcome]++;
  }

  /** A message the mail server accepted. */
  mail_sent(): void {
    this.mail.sent++;
  }

  /** A failed delivery attempt: another is scheduled ("retry") or the message ended "failed". */
  mail_failed(outcome: "retry" | "failed"): void {
    this.mail[outcome]++;
  }

  /** Messages waiting in the outbox (queued or being sent). */
  mail_queued(count: number): void {
    this.mail.queued = count;
  }

  /** A webhook delivery attempt: received (2xx), failed with another scheduled, or failed for good. */
  webhook_delivery(outcome: WebhookOutcome): void {
    this.webhooks[outcome]++;
  }

  /** Webhook deliveries waiting (queued or being sent). */
  webhook_queued(count: number): void {
    this.webhooks.queued = count;
  }

  /** Users still on a foreign password hash (store.count_foreign_password_hashes, read at the scrape). */
  foreign_password_hashes(count: number): void {
    this.foreign_hashes = count;
  }

  /** A scheduled backup this instance ran, started at `at` (unix seconds). */
  backup(outcome: "success" | "failure", at: number): void {
    this.backups[outcome]++;
    if (outcome === "success") this.backups.last_success = Math.max(this.backups.last_success, at);
  }

  /** The exposition text. */
  render(): string {
    const lines: string[] = [];
    const family = (name: string, type: string, help: string) => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);

    family("idp_http_requests_total", "counter", "HTTP requests answered, by route pattern, method and status.");
    for (const [labels, count] of this.requests) lines.push(`idp_http_requests_total{${labels}} ${count}`);

    family("idp_http_request_duration_seconds", "histogram", "Time to produce the response, by route pattern and method.");
    for (const h of this.durations.values()) {
      for (const [i, le] of DURATION_BUCKETS.entries()) lines.push(`idp_http_request_duration_seconds_bucket{${h.labels},le="${le}"} ${h.buckets[i]}`);
      lines.push(`idp_http_request_duration_seconds_bucket{${h.labels},le="+Inf"} ${h.count}`);
      lines.push(`idp_http_request_duration_seconds_sum{${h.labels}} ${number(h.sum)}`);
      lines.push(`idp_http_request_duration_seconds_count{${h.labels}} ${h.count}`);
    }

    family("idp_logins_total", "counter", "Password checks at the login page, by outcome.");
    for (const outcome of ["success", "failure"] as const) lines.push(`idp_logins_total{outcome="${outcome}"} ${this.logins[outcome]}`);

    family("idp_tokens_issued_total", "counter", "Successful token responses, by grant type.");
    for (const [grant, count] of this.tokens) lines.push(`idp_tokens_issued_total{grant_type="${label(grant)}"} ${count}`);

    family("idp_forward_auth_checks_total", "counter", "Forward-auth checks answered, by outcome (allowed, sign_in, denied, refused).");
    for (const outcome of FORWARD_AUTH_OUTCOMES) lines.push(`idp_forward_auth_checks_total{outcome="${outcome}"} ${this.forward_auth_checks[outcome]}`);

    family("idp_mail_sent_total", "counter", "Mail messages the mail server accepted.");
    lines.push(`idp_mail_sent_total ${this.mail.sent}`);
    family("idp_mail_failed_total", "counter", "Failed mail delivery attempts, by outcome (retry: another attempt is scheduled; failed: given up).");
    for (const outcome of ["retry", "failed"] as const) lines.push(`idp_mail_failed_total{outcome="${outcome}"} ${this.mail[outcome]}`);
    family("idp_mail_queued", "gauge", "Mail messages waiting in the outbox (all instances), as last counted by this instance.");
    lines.push(`idp_mail_queued ${this.mail.queued}`);

    family("idp_webhook_deliveries_total", "counter", "Webhook delivery attempts, by outcome (sent; retry: another attempt is scheduled; failed: given up).");
    for (const outcome of WEBHOOK_OUTCOMES) lines.push(`idp_webhook_deliveries_total{outcome="${outcome}"} ${this.webhooks[outcome]}`);
    family("idp_webhook_queued", "gauge", "Webhook deliveries waiting in the outbox (all instances), as last counted by this instance.");
    lines.push(`idp_webhook_queued ${this.webhooks.queued}`);
    family("idp_users_foreign_password_hashes", "gauge", "Users whose password hash was imported from another provider and is not yet replaced by argon2id.");
    lines.push(`idp_users_foreign_password_hashes ${this.foreign_hashes}`);

    family("idp_backups_total", "counter", "Scheduled backups this instance ran, by outcome.");
    for (const outcome of ["success", "failure"] as const) lines.push(`idp_backups_total{outcome="${outcome}"} ${this.backups[outcome]}`);
    family("idp_backup_last_success_timestamp_seconds", "gauge", "Start time of the last scheduled backup this instance wrote, unix seconds (0: none yet).");
    lines.push(`idp_backup_last_success_timestamp_seconds ${this.backups.last_success}`);

    family("process_start_time_seconds", "gauge", "Start time of the process since the unix epoch in seconds.");
    lines.push(`process_start_time_seconds ${number(Math.floor(this.started_at))}`);
    if (this.constant !== "") {
      const extra = this.constant;
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (line.startsWith("#")) continue;
        const brace = line.indexOf("{");
        const space = line.indexOf(" ");
        lines[i] =
          brace !== -1 && brace < space ? `${line.slice(0, brace + 1)}${extra}${line.slice(brace + 1)}` : `${line.slice(0, space)}{${extra.slice(0, -1)}}${line.slice(space)}`;
      }
    }
    return `${lines.join("\n")}\n`;
  }
}
