/**
 * Assembling and running the provider: the handler chain and endpoints of one provider
 * (`build_items`), an in-process app for tests (`build_app`), and `serve()`, which `main.ts serve`
 * calls.
 */
import { join } from "node:path";
import { Fw, type Context, type HttpError, type Item, type FwConfig } from "../fw/index.ts";
import { embedded_assets } from "./embedded/assets.ts";
import type { Config } from "./config.ts";
import { configure_argon2, warm_dummy_hash } from "../platform/passwords.ts";
import { seed_demo as create_demo_data } from "../oidc/demo.ts";
import { Account } from "../http/endpoints/account/home.ts";
import { AccountGrants } from "../http/endpoints/account/grants.ts";
import { AccountLogin } from "../http/endpoints/account/login.ts";
import { AccountPassword } from "../http/endpoints/account/password.ts";
import { AccountTotp } from "../http/endpoints/account/totp.ts";
import { Authorize } from "../http/endpoints/oauth/authorize.ts";
import { Consent } from "../http/endpoints/interaction/consent.ts";
import { Demo } from "../http/endpoints/demo/start.ts";
import { DemoCallback, type Backchannel } from "../http/endpoints/demo/callback.ts";
import { RevokePreflight, TokenPreflight, UserinfoPreflight } from "../http/endpoints/oauth/preflight.ts";
import { Discovery } from "../http/endpoints/oidc/discovery.ts";
import { Healthz, Readyz } from "../http/endpoints/ops/health.ts";
import { Jwks } from "../http/endpoints/oidc/jwks.ts";
import { Login } from "../http/endpoints/interaction/login.ts";
import { Logout } from "../http/endpoints/oidc/logout.ts";
import { LogoutConfirm } from "../http/endpoints/oidc/logout_confirm.ts";
import { MetricsEndpoint } from "../http/endpoints/ops/metrics.ts";
import { Register } from "../http/endpoints/registration/register.ts";
import { RegisterDelete } from "../http/endpoints/registration/delete.ts";
import { RegisterRead } from "../http/endpoints/registration/read.ts";
import { RegisterUpdate } from "../http/endpoints/registration/update.ts";
import { Static, load_static, type StaticFile } from "../http/endpoints/ops/static.ts";
import { Introspect } from "../http/endpoints/oauth/introspect.ts";
import { Revoke } from "../http/endpoints/oauth/revoke.ts";
import { Token } from "../http/endpoints/oauth/token.ts";
import { TwoFactor } from "../http/endpoints/interaction/two_factor.ts";
import { Userinfo } from "../http/endpoints/oidc/userinfo.ts";
import { OAuthError, PageError } from "../oidc/errors.ts";
import { PATHS } from "../oidc/metadata.ts";
import { MetricsHandler } from "../oidc/metrics.ts";
import { layout_values } from "../http/pages/layout.ts";
import { ProtocolHandler } from "../http/middleware/protocol.ts";
import { create_provider, json_log, type Log, type Provider } from "../oidc/provider.ts";
import { start_purge } from "./purge.ts";
import { RateLimitHandler } from "../http/middleware/rate_limit.ts";
import { RegistrationHandler } from "../http/middleware/registration.ts";
import { SecurityHeadersHandler } from "../http/middleware/security_headers.ts";
import { open_store } from "../store/open.ts";
import type { Store } from "../store/types.ts";
import { UnavailableHandler } from "../http/middleware/unavailable.ts";

export const VIEWS_DIR = join(import.meta.dir, "../../views");

/**
 * The page templates and static files. Read from views/ and static/ by default; a single
 * executable passes them embedded (Fw.read_templates / load_static at build time).
 */
export type Assets = { templates: Record<string, string>; static_files: Map<string, StaticFile> };

/** The assets embedded in the compiled executable, or else the views/ and static/ folders. */
export function load_assets(): Assets {
  return embedded_assets() ?? { templates: Fw.read_templates(VIEWS_DIR), static_files: load_static() };
}

/** Plain words for the error page; never a stack. */
function error_words(error: HttpError): { heading: string; message: string } {
  if (error instanceof PageError) return { heading: error.title, message: error.message };
  if (error instanceof OAuthError) return { heading: "The request could not be completed", message: error.message };
  switch (error.status) {
    case 404:
      return { heading: "Page not found", message: "There is nothing at this address. Check the link, or go back to the application you came from." };
    case 405:
      return { heading: "This page cannot be used that way", message: error.message };
    case 429:
      return { heading: "Too many attempts", message: "Please wait a little and try again." };
    case 503:
      return { heading: "Temporarily unavailable", message: "The sign-in service is busy or under maintenance. Please try again in a moment." };
    default:
      return error.status >= 500
        ? { heading: "Something went wrong on our side", message: "We could not complete your request. Please try again; if it keeps happening, contact support." }
        : { heading: "The request could not be completed", message: error.message };
  }
}

function error_page(idp: Provider) {
  return (error: HttpError, context: Context): string => {
    const words = error_words(error);
    const values = { ...layout_values(idp, words.heading), ...words, code: error.code, status: error.status, request_id: context.state.request_id ?? null };
    const views = context.app.views;
    if (views?.has("error")) return views.render("error", values);
    return `<!doctype html><title>${Fw.escape_html(words.heading)}</title><h1>${Fw.escape_html(words.heading)}</h1><p>${Fw.escape_html(words.message)}</p>`;
  };
}

/** The handlers (outermost first), then one instance of every endpoint, bound to `idp`. */
export function build_items(idp: Provider, static_files: Map<string, StaticFile> = load_static()): Item[] {
  const handlers: Item[] = [new Fw.RequestIdHandler()];
  if (idp.config.log_requests) handlers.push(new Fw.LoggingHandler());
  // Outside the error handler: counts error responses with their status.
  if (idp.config.metrics_token !== undefined) handlers.push(new MetricsHandler(idp.metrics));
  handlers.push(
    new SecurityHeadersHandler(idp.secure),
    new Fw.ErrorHandler({ html: error_page(idp) }),
    // Inside the error handler, so the 503 it raises for a database outage is rendered there.
    new UnavailableHandler(idp.config.request_timeout_seconds * 1000),
    new ProtocolHandler([PATHS.token, PATHS.userinfo, PATHS.revoke, PATHS.introspect]),
  );
  if (idp.config.registration !== "off") handlers.push(new RegistrationHandler());
  // Inside the protocol and registration handlers: a 429 keeps their CORS and no-store headers.
  if (idp.config.rate_limits.enabled) handlers.push(new RateLimitHandler(idp));
  const endpoints: Item[] = [
    Discovery(idp),
    Jwks(idp),
    Authorize(idp),
    Login(idp),
    TwoFactor(idp),
    Consent(idp),
    Logout(idp),
    LogoutConfirm(idp),
    Token(idp),
    TokenPreflight(idp),
    Revoke(idp),
    RevokePreflight(idp),
    Introspect(idp),
    Userinfo(idp),
    UserinfoPreflight(idp),
    // Dynamic registration (RFC 7591, RFC 7592) is not mounted at all when it is off.
    ...(idp.config.registration === "off" ? [] : [Register(idp), RegisterRead(idp), RegisterUpdate(idp), RegisterDelete(idp)]),
    Healthz(idp),
    Readyz(idp),
    // Off (404) unless a token protects it.
    ...(idp.config.metrics_token === undefined ? [] : [MetricsEndpoint(idp, idp.config.metrics_token)]),
    // The account page: profile, password, two-step verification, applications allowed.
    Account(idp),
    AccountLogin(idp),
    AccountPassword(idp),
    AccountTotp(idp),
    AccountGrants(idp),
    // The built-in demo relying party, in development mode only.
    ...(idp.config.production ? [] : [Demo(idp), DemoCallback(idp, backchannel(idp, static_files))]),
    Static(idp, static_files),
  ];
  return [...handlers, ...endpoints];
}

/** The provider's own endpoints, answered in-process (built on first use): the demo's /token and /userinfo calls. */
function backchannel(idp: Provider, static_files: Map<string, StaticFile>): Backchannel {
  let app: ReturnType<typeof Fw.build> | undefined;
  return (request) => (app ??= Fw.build({ body_limit: idp.config.body_limit, log: idp.log }, build_items(idp, static_files))).fetch(request);
}

export function fw_config(idp: Provider, templates: Record<string, string> = Fw.read_templates(VIEWS_DIR)): FwConfig {
  const views = new Fw.ViewEngine({ templates });
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
  return Fw.build(fw_config(idp, assets.templates), build_items(idp, assets.static_files));
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
};

export type Served = { url: string; provider: Provider; stop(): Promise<void> };

/** Opens the store (migrating it), loads the keys and starts the server. */
export async function serve(config: Config, options: ServeOptions = {}): Promise<Served> {
  const out = options.out ?? ((text: string) => void process.stdout.write(text));
  const log = options.log ?? json_log;
  const owned = options.store === undefined;
  const store = options.store ?? (await open_store(config.database_url, { migrate: true, max: config.database_pool_size }));
  try {
    const idp = await create_provider(config, { store, log, ...(options.now ? { now: options.now } : {}) });
    const password_hashing = configure_argon2(config.argon2.impl);
    await warm_dummy_hash(config.argon2);

    const assets = options.assets ?? load_assets();
    const running = Fw.start({ ...fw_config(idp, assets.templates), port: options.port ?? config.port }, build_items(idp, assets.static_files));
    // Discovery and the JWKS are answered by Bun natively (when nothing logs every request);
    // the JWKS answer is recomputed whenever the keys change.
    idp.keys.on_change(() => running.refresh_native().catch((error) => log({ level: "error", msg: "native routes not refreshed", error: String(error) })));
    await running.native_ready;
    // Keys rotated by another instance (or `idp keys rotate`) are picked up within one interval.
    idp.keys.start_polling(config.keys_poll_seconds * 1000, (error) => log({ level: "error", msg: "key refresh failed", error: String(error) }));
    const purge = start_purge(idp, { interval_seconds: config.purge_interval_seconds });
    log({ level: "info", msg: "listening", url: running.url, issuer: config.issuer, database: store.kind, password_hashing });
    await print_start_hints(idp, running.url, options.seed_demo === true, out);
    return {
      url: running.url,
      provider: idp,
      /** Graceful: no new background work, stop accepting, let in-flight requests finish, close the store. */
      async stop() {
        log({ level: "info", msg: "stopping", grace_seconds: config.shutdown_grace_seconds });
        idp.keys.stop_polling();
        const purging = purge.stop();
        await running.stop(config.shutdown_grace_seconds * 1000);
        await purging;
        if (owned) await store.close();
        log({ level: "info", msg: "stopped" });
      },
    };
  } catch (error) {
    if (owned) await store.close();
    throw error;
  }
}

/** How the operator runs the admin CLI: the compiled executable, or from the repository. */
const CLI = Bun.isStandaloneExecutable ? "idp" : "bun run main.ts";

/** On an empty database, tell the operator how to add a user and a client (or seed a demo). */
async function print_start_hints(idp: Provider, listening: string, seed_demo: boolean, out: (text: string) => void): Promise<void> {
  const [users, clients] = await Promise.all([idp.store.list_users({ limit: 1 }), idp.store.list_clients({ limit: 1 })]);
  const issuer = idp.config.issuer;
  const ready = `\nOpenID Provider ready at ${issuer} (listening on ${listening})\nDiscovery: ${issuer}/.well-known/openid-configuration\n\n`;
  if (users.length > 0 && clients.length > 0) return;
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
