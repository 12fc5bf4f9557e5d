/**
 * Running the provider: the framework's settings, an in-process app for tests (`build_app`), and
 * `serve()`, which `main.ts serve` calls (store, keys, background jobs, start and stop). The
 * handler chain and the endpoints are listed in src/http/routes.ts.
 */
import { watch_attributes } from "./attribute_watch.ts";
import { apply_configured_upstreams } from "../oidc/federation/configured.ts";
import { fileURLToPath } from "node:url";
import { Fw, type FwConfig } from "../fw/index.ts";
import { load_static, type StaticFile } from "../http/endpoints/ops/static.ts";
import { build_items } from "../http/routes.ts";
import { DEMO_PATHS, follow_issuer, seed_demo as create_demo_data } from "../oidc/ops/demo.ts";
import { json_log, type Log, type Provider } from "../oidc/provider.ts";
import { configure_argon2, warm_dummy_hash } from "../platform/passwords.ts";
import { is_compiled_executable } from "../platform/runtime.ts";
import { open_store } from "../store/open.ts";
import type { Store } from "../store/types.ts";
import type { Config } from "./config.ts";
import { embedded_assets } from "./embedded/assets.ts";
import { create_provider } from "./provider.ts";
import { at_rest_warnings } from "./at_rest.ts";
import { theme_static_files, themed_templates } from "./theme.ts";
import { start_purge } from "./purge.ts";
import { start_backups, type BackupLoop } from "./backup/schedule.ts";
import { start_tracing, with_trace_ids } from "./tracing/index.ts";
import type { ToolEnv } from "../store/backup.ts";
import { record_event } from "../oidc/audit.ts";
import { settle_password_reset_requests } from "../oidc/accounts/password_reset.ts";
import { create_transport, mail_off_warning, WITHOUT_MAIL } from "./mail/outbox.ts";
import { mail_sender } from "./mail/transport.ts";
import { start_mail_worker, type MailWorker, type MailWorkerOptions } from "./mail/worker.ts";
import type { OutboxLoop } from "./outbox_loop.ts";
import { start_webhook_worker, type WebhookWorkerOptions } from "./webhooks/worker.ts";
import { start_ldap, type LdapListener } from "./ldap_listener.ts";

export const VIEWS_DIR = fileURLToPath(new URL("../../views", import.meta.url).href);

/**
 * The page templates and static files. Read from views/ and static/ by default; a single
 * executable passes them embedded (Fw.read_templates / load_static at build time).
 */
export type Assets = { templates: Record<string, string>; static_files: Map<string, StaticFile> };

/** The assets embedded in the compiled executable, or else the views/ and static/ folders. */
export function load_assets(): Assets {
  return embedded_assets() ?? { templates: Fw.read_templates(VIEWS_DIR), static_files: load_static() };
}

export function fw_config(idp: Provider, templates: Record<string, string> = Fw.read_templates(VIEWS_DIR)): FwConfig {
  // IDP_THEME_DIR: the operator's templates over ours (theme.ts).
  const views = new Fw.ViewEngine({ templates: themed_templates(templates, idp.config.brand.theme_dir) });
  return {
    port: idp.config.port,
    hostname: idp.config.host,
    router: { path_cache_size: idp.config.router.path_cache_size },
    body_limit: idp.config.body_limit,
    idle_timeout: idp.config.idle_timeout_seconds,
    // No request of the protocol needs more (an authorization request has about 20).
    max_params: 100,
    views,
    log: idp.log,
  };
}

/** The provider as an in-process app: `app.fetch(request)` without a server. */
export function build_app(idp: Provider, assets: Assets = load_assets()) {
  return Fw.build(fw_config(idp, assets.templates), build_items(idp, with_theme_static(idp, assets.static_files)));
}

/** Our static files and the theme's (under theme/, theme.ts); the brand's are added by the static endpoint. */
function with_theme_static(idp: Provider, files: Map<string, StaticFile>): Map<string, StaticFile> {
  return new Map([...files, ...theme_static_files(idp.config.brand.theme_dir)]);
}

export type ServeOptions = {
  /** On an empty database, outside production, create the demo user and application (demo.ts) and print how to use them. */
  seed_demo?: boolean;
  /** An open store (the caller keeps ownership: stop() does not close it). */
  store?: Store;
  /** Overrides config.port (0 = any free port). */
  port?: number;
  now?: () => number;
  log?: Log;
  /** Templates and static files (default: read from views/ and static/). */
  assets?: Assets;
  /** Where the human-readable start messages go (default stdout). */
  out?: (text: string) => void;
  /** The mail worker's timing (default: mail/worker.ts DEFAULT_MAIL_WORKER); tests poll and retry faster. */
  mail_worker?: Partial<MailWorkerOptions>;
  /** The webhook worker's timing (default: webhooks/worker.ts DEFAULT_WEBHOOK_WORKER); tests poll and retry faster. */
  webhook_worker?: Partial<WebhookWorkerOptions>;
  /**
   * This process is worker `index` (from 1) of `count` under `idp serve --workers` (workers.ts):
   * it shares the port (SO_REUSEPORT), labels its metrics, and only worker 1 purges and prints
   * the start hints.
   */
  worker?: { index: number; count: number };
  /** The environment the scheduled backups run with (PATH for pg_dump): the process's by default. */
  env?: ToolEnv;
  /**
   * The command that runs this program (main.ts sets it through the CLI): the scheduled backups
   * run `idp backup` with it in a process of their own. Without it (a server started in-process)
   * they run in this process.
   */
  program?: readonly string[];
};

/** `ldap`: the LDAP listeners' addresses (`host:port`) and open connections, null when off (IDP_LDAP_LISTEN, IDP_LDAPS_LISTEN). */
export type Served = { url: string; provider: Provider; ldap: Pick<LdapListener, "plain" | "ldaps" | "connections"> | null; stop(): Promise<void> };

/** Opens the store (migrating it), loads the keys and starts the server. */
export async function serve(config: Config, options: ServeOptions = {}): Promise<Served> {
  const out = options.out ?? ((text: string) => void process.stdout.write(text));
  // Traces when the OTLP environment asks for them (tracing/index.ts): first, so every span has its place.
  const tracing = await start_tracing(config, options.log ?? json_log);
  const log = tracing === null ? (options.log ?? json_log) : with_trace_ids(options.log ?? json_log, tracing.tracing);
  const owned = options.store === undefined;
  let store: Store;
  try {
    // Workers share one SQLite file: each holds the write lock only for the SQL of its writes (deferred_writes).
    store = options.store ?? (await open_store(config.database_url, { migrate: true, max: config.database_pool_size, deferred_writes: options.worker !== undefined }));
  } catch (error) {
    await tracing?.stop();
    throw error;
  }
  // With traces on, each store call inside a request is a span (tracing/wrap.ts).
  if (tracing !== null) store = tracing.wrap_store(store);
  let ldap: LdapListener | null = null;
  try {
    let mail_worker: MailWorker | null = null;
    let webhook_worker: OutboxLoop | null = null;
    const idp = await create_provider(config, {
      store,
      log,
      ...(options.now ? { now: options.now } : {}),
      on_mail_queued: () => mail_worker?.wake(),
      on_webhook_queued: () => webhook_worker?.wake(),
      ...(options.assets ? { mail_templates: options.assets.templates } : {}),
    });
    const worker = options.worker;
    if (worker !== undefined) idp.metrics.label_every_sample("worker", String(worker.index));
    const demo_moved = await follow_issuer(idp);
    // Upstream identity providers declared in the config file (oidc/federation/configured.ts).
    await apply_configured_upstreams(idp);
    const password_hashing = configure_argon2(config.argon2.impl);
    await warm_dummy_hash(config.argon2);

    // The LDAP directory (ldap_listener.ts), before the HTTP server: a certificate that cannot be
    // read or an address in use stops the start with nothing left running. One process serves it
    // (worker 1 of --workers): the port is not shared.
    ldap = worker === undefined || worker.index === 1 ? await start_ldap(idp, log) : null;
    const assets = options.assets ?? load_assets();
    const running = Fw.start(
      { ...fw_config(idp, assets.templates), port: options.port ?? config.port, reuse_port: worker !== undefined },
      build_items(idp, with_theme_static(idp, assets.static_files)),
    );
    // Discovery and the JWKS are answered by Bun natively (when nothing logs every request);
    // the JWKS answer is recomputed whenever the keys change.
    idp.keys.on_change(() => running.refresh_native().catch((error) => log({ level: "error", msg: "native routes not refreshed", error: String(error) })));
    await running.native_ready;
    // Attribute definitions changed elsewhere reach discovery's native answer within one interval.
    const attribute_watch = watch_attributes(
      idp,
      () => running.refresh_native(),
      config.keys_poll_seconds * 1000,
      (error) => log({ level: "error", msg: "attribute definitions not refreshed", error: String(error) }),
    );
    // Keys rotated by another instance (or `idp keys rotate`) are picked up within one interval.
    // Keys due under IDP_KEY_ROTATION_DAYS are rotated by the first instance that notices.
    idp.keys.start_polling(
      config.keys_poll_seconds * 1000,
      (error) => log({ level: "error", msg: "key refresh failed", error: String(error) }),
      (rotated) => {
        log({ level: "info", msg: "signing keys rotated on schedule", active: Object.fromEntries(rotated), rotation_days: config.key_rotation_days });
        record_event(idp, { type: "keys_rotated", outcome: "success", details: { active: Object.fromEntries(rotated), reason: "schedule" } }).catch((error) =>
          log({ level: "error", msg: "audit event not written", type: "keys_rotated", error: String(error) }),
        );
      },
    );
    // One purger is enough: the workers share one database, and on SQLite a second purge pass
    // would only wait for the first one's write lock.
    const purge = worker === undefined || worker.index === 1 ? start_purge(idp, { interval_seconds: config.purge_interval_seconds }) : null;
    // Scheduled backups (IDP_BACKUP_DIR): worker 1 asks; several instances on one database share
    // each run through the store's claim (backup/schedule.ts).
    const backups: BackupLoop | null =
      config.backup.dir !== undefined && (worker === undefined || worker.index === 1)
        ? start_backups(idp, config.backup.dir, { env: options.env ?? (process.env as ToolEnv), ...(options.program ? { program: options.program } : {}) })
        : null;
    // Delivers the outbox (mail/worker.ts); none when mail is off (production without SMTP).
    const transport = create_transport(config, log);
    if (transport !== null) mail_worker = start_mail_worker(idp, transport, mail_sender(config.mail_from ?? "idp@localhost", idp.brand.name), options.mail_worker);
    // Delivers the webhooks (webhooks/worker.ts).
    webhook_worker = start_webhook_worker(idp, options.webhook_worker);
    // Mail off is legitimate, but what it turns off should not go unnoticed (one line, not one per worker).
    if (mail_off_warning(config) !== null && (worker === undefined || worker.index === 1)) {
      log({ level: "warn", msg: "mail is off", reason: "production mode without IDP_SMTP_URL", unavailable: [...WITHOUT_MAIL], fix: "set IDP_SMTP_URL and IDP_MAIL_FROM" });
    }
    log({
      level: "info",
      msg: "listening",
      url: running.url,
      issuer: config.issuer,
      database: store.kind,
      password_hashing,
      ...(worker ? { worker: worker.index, pid: process.pid } : {}),
    });
    if (demo_moved !== null) log({ level: "info", msg: "demo client follows the issuer", redirect_uri: demo_moved });
    // Data at rest left exposed (at_rest.ts), once per start: `idp config check` prints the same.
    if (worker === undefined || worker.index === 1) for (const warning of at_rest_warnings(config)) log({ level: "warn", msg: warning });
    if (worker === undefined || worker.index === 1) await print_start_hints(idp, running.url, options.seed_demo === true, out, demo_moved !== null);
    return {
      url: running.url,
      provider: idp,
      ldap: ldap === null ? null : { plain: ldap.plain, ldaps: ldap.ldaps, connections: ldap.connections },
      /** Graceful: no new background work, stop accepting, let in-flight requests finish, close the store. */
      async stop() {
        log({ level: "info", msg: "stopping", grace_seconds: config.shutdown_grace_seconds });
        idp.keys.stop_polling();
        attribute_watch.stop();
        const purging = purge?.stop();
        const backing_up = backups?.stop();
        await Promise.all([running.stop(config.shutdown_grace_seconds * 1000), ldap?.stop()]);
        await purging;
        await backing_up;
        // Forgot-password requests answered already but still looking up or queueing their mail.
        await settle_password_reset_requests();
        // After the server: a request in its grace period may still queue mail (delivered by the next start).
        await mail_worker?.stop();
        await webhook_worker?.stop();
        if (owned) await store.close();
        // Last: the spans of the requests that finished in the grace period go out too.
        await tracing?.stop();
        log({ level: "info", msg: "stopped" });
      },
    };
  } catch (error) {
    await ldap?.stop();
    if (owned) await store.close();
    await tracing?.stop();
    throw error;
  }
}

/**
 * How the operator runs the admin CLI: the compiled executable, or from the repository through
 * the package's `idp` bin (bin/idp.mjs), which works right after `npm install` without Bun on
 * the PATH.
 */
const CLI = is_compiled_executable() ? "idp" : "npx idp";

/** On an empty database, tell the operator how to add a user and a client (or seed a demo). */
async function print_start_hints(idp: Provider, listening: string, seed_demo: boolean, out: (text: string) => void, demo_moved = false): Promise<void> {
  const [users, clients] = await Promise.all([idp.store.list_users({ limit: 1 }), idp.store.list_clients({ limit: 1 })]);
  const issuer = idp.config.issuer;
  const ready = `\nOpenID Provider ready at ${issuer} (listening on ${listening})\nDiscovery: ${issuer}/.well-known/openid-configuration\n\n`;
  if (users.length > 0 && clients.length > 0) {
    if (demo_moved) out(`${ready}The demo application now redirects to ${issuer}${DEMO_PATHS.callback}: open ${issuer}${DEMO_PATHS.start} to sign in.\n\n`);
    return;
  }
  const demo = seed_demo ? await create_demo_data(idp) : null;
  if (demo !== null) {
    out(
      ready +
        `Demo data created (empty database, development mode):\n  user:   ${demo.username} / ${demo.password}\n  client: ${demo.client_id} (public, PKCE), redirect URI ${demo.redirect_uri}\n\n` +
        `Open ${demo.url} to sign in to the demo application.\nYour account page (password, two-step verification): ${issuer}/account\n\n` +
        `Add your own users and applications with the CLI:\n  ${CLI} users add alice --password-stdin\n` +
        `  ${CLI} clients add --name App --redirect-uri https://app.example.com/callback\n\n`,
    );
    return;
  }
  if (seed_demo && idp.config.production) out("Production mode: no demo data is created.\n");
  out(
    ready +
      `The database has ${users.length === 0 ? "no users" : "users"} and ${clients.length === 0 ? "no clients" : "clients"} yet. Add them with the CLI:\n` +
      (users.length === 0 ? `  ${CLI} users add alice --password-stdin\n` : "") +
      (clients.length === 0 ? `  ${CLI} clients add --name App --redirect-uri https://app.example.com/callback\n` : "") +
      `\n`,
  );
}
