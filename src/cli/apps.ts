/**
 * `idp apps add|list|show|update|remove`: protected applications, served behind a reverse proxy
 * that asks the provider before each request (forward authentication, `/forward-auth`). Rules in
 * oidc/admin/apps.ts; how an application and its rules are written in oidc/forward_auth/apps.ts.
 */
import { in_cookie_domain } from "../config/schema.ts";
import { AdminError } from "../oidc/admin/errors.ts";
import { create_app, remove_app, update_app, type AppInput } from "../oidc/admin/apps.ts";
import { format_rule, host_name } from "../oidc/forward_auth/apps.ts";
import { APP_CALLBACK_PATH } from "../oidc/forward_auth/paths.ts";
import type { ProtectedAppRow } from "../store/types.ts";
import { must, type CliContext } from "./context.ts";
import { CliError, UsageError } from "./errors.ts";
import { format_time, write_record, write_table } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";

/** The flag each field of the rules is given with, for their refusals. */
const FLAGS: Record<string, string> = { name: "NAME", url: "--url", allowed_groups: "--allowed-group", rules: "--rule" };

function cli_error(error: unknown): unknown {
  if (!(error instanceof AdminError)) return error;
  if (error.error !== "invalid_request") return new CliError(error.message);
  const field = error.errors[0]?.field ?? "";
  return new CliError(`${FLAGS[field] ?? field}: ${error.errors[0]?.message ?? error.message}`);
}

/** The application as printed: rules in their text form, times in ISO 8601. */
function shown(app: ProtectedAppRow) {
  return {
    name: app.name,
    url: app.url,
    allowed_groups: app.allowed_groups.length === 0 ? "any signed-in user" : app.allowed_groups.join(" "),
    require_2fa: app.require_2fa,
    rules: app.rules.map(format_rule),
    created_at: format_time(app.created_at),
    updated_at: format_time(app.updated_at),
  };
}

/** A line on stderr when forward authentication is off, or the application is reached through its callback (outside the cookie domain). */
function warn_cookie_domain(ctx: CliContext, app: ProtectedAppRow): void {
  const domain = ctx.config().forward_auth.cookie_domain;
  if (domain === undefined) ctx.io.stderr("warning: IDP_FORWARD_AUTH_COOKIE_DOMAIN is not set: forward authentication stays off until it is\n");
  else if (!in_cookie_domain(host_name(app.host), domain)) {
    ctx.io.stderr(
      `note: ${host_name(app.host)} is not in IDP_FORWARD_AUTH_COOKIE_DOMAIN (${domain}): it gets a cookie of its own through its callback, so its proxy must route ${app.url.slice(0, app.url.indexOf("//"))}//${app.host}${APP_CALLBACK_PATH} to the provider (deploy/forward-auth/)\n`,
    );
  }
}

const WHO = {
  allowed_group: { type: "string", value: "G", multiple: true, help: "only members of one of these groups may open it (repeatable; * or none: any signed-in user)" },
  require_2fa: { type: "boolean", help: "a second factor in the session for every path" },
  rule: {
    type: "string",
    value: "PREFIX=GROUPS[+2fa]",
    multiple: true,
    help: "who may open the paths under PREFIX: groups (comma-separated) or *, +2fa for a second factor (repeatable)",
  },
} as const satisfies OptionSpecs;

const ADD = {
  summary: "register an application behind the reverse proxy",
  positionals: ["name"],
  options: { url: { type: "string", value: "URL", required: true, help: "where it is served: https://app.example.com, optionally with a path" }, ...WHO },
} as const satisfies CommandSpec<OptionSpecs>;

/** `--allowed-group` as given: `*` alone is "any signed-in user", as no group at all is. */
function groups_of(flags: string[]): string[] {
  const names = flags.flatMap((value) => value.split(",")).map((name) => name.trim());
  if (names.includes("*")) {
    if (names.length > 1) throw new UsageError("--allowed-group *: any signed-in user, with no other group");
    return [];
  }
  return names;
}

async function add(ctx: CliContext, { flags, positionals }: ArgsOf<typeof ADD>): Promise<void> {
  const [name] = positionals as [string];
  const input: AppInput = { url: flags.url, allowed_groups: groups_of(flags.allowed_group), require_2fa: flags.require_2fa, rules: flags.rule };
  let app: ProtectedAppRow;
  try {
    app = await create_app(await ctx.store(), name, input, Math.floor(Date.now() / 1000));
  } catch (error) {
    throw cli_error(error);
  }
  await ctx.audit({ type: "protected_app_created", details: { app: app.name, url: app.url } });
  warn_cookie_domain(ctx, app);
  ctx.emit(app, (write) => write(`Registered application ${app.name} at ${app.url} (${shown(app).allowed_groups}${app.require_2fa ? ", with a second factor" : ""}).\n`));
}

const LIST = { summary: "list the protected applications" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const apps = await (await ctx.store()).list_protected_apps();
  ctx.emit(apps, (write) => {
    if (apps.length === 0) return write("No applications.\n");
    write_table(
      write,
      ["name", "url", "groups", "2fa", "rules"],
      apps.map((app) => [app.name, app.url, app.allowed_groups.length === 0 ? "*" : app.allowed_groups.join(","), app.require_2fa, app.rules.length]),
    );
  });
}

const SHOW = { summary: "show a protected application and its rules", positionals: ["name"] } as const satisfies CommandSpec<OptionSpecs>;

async function show(ctx: CliContext, { positionals }: ArgsOf<typeof SHOW>): Promise<void> {
  const [name] = positionals as [string];
  const app = must(await (await ctx.store()).get_protected_app(name), `no application "${name}"`);
  ctx.emit(app, (write) => write_record(write, shown(app)));
}

const UPDATE = {
  summary: "change an application: the fields given replace the stored ones",
  positionals: ["name"],
  options: {
    url: { type: "string", value: "URL", help: "a new address (its rules must lie under its path)" },
    allowed_group: WHO.allowed_group,
    require_2fa: { type: "string", value: "on|off", help: "a second factor for every path, or not" },
    rule: { ...WHO.rule, help: "replaces every rule (repeatable)" },
    clear_rules: { type: "boolean", help: "remove every rule" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function update(ctx: CliContext, { flags, positionals }: ArgsOf<typeof UPDATE>): Promise<void> {
  const [name] = positionals as [string];
  if (flags.require_2fa !== undefined && flags.require_2fa !== "on" && flags.require_2fa !== "off")
    throw new CliError(`--require-2fa "${flags.require_2fa}" is not one of on, off`);
  if (flags.clear_rules && flags.rule.length > 0) throw new UsageError("--clear-rules and --rule: give one");
  const input: AppInput = {
    url: flags.url,
    allowed_groups: flags.allowed_group.length === 0 ? undefined : groups_of(flags.allowed_group),
    require_2fa: flags.require_2fa === undefined ? undefined : flags.require_2fa === "on",
    rules: flags.clear_rules ? [] : flags.rule.length === 0 ? undefined : flags.rule,
  };
  if (Object.values(input).every((value) => value === undefined))
    throw new UsageError("apps update needs a change: --url, --allowed-group, --require-2fa, --rule or --clear-rules");
  let app: ProtectedAppRow;
  try {
    app = await update_app(await ctx.store(), name, input, Math.floor(Date.now() / 1000));
  } catch (error) {
    throw cli_error(error);
  }
  const changed = Object.entries(input).flatMap(([field, value]) => (value === undefined ? [] : [field]));
  await ctx.audit({ type: "protected_app_updated", details: { app: app.name, changed } });
  if (input.url !== undefined) warn_cookie_domain(ctx, app);
  ctx.emit(app, (write) => write(`Updated application ${app.name}: ${changed.join(", ")}.\n`));
}

const REMOVE = { summary: "remove a protected application: the proxy's checks for it are refused from now on", positionals: ["name"] } as const satisfies CommandSpec<OptionSpecs>;

async function remove(ctx: CliContext, { positionals }: ArgsOf<typeof REMOVE>): Promise<void> {
  const [name] = positionals as [string];
  try {
    await remove_app(await ctx.store(), name);
  } catch (error) {
    throw cli_error(error);
  }
  await ctx.audit({ type: "protected_app_deleted", details: { app: name } });
  ctx.emit({ removed: true, name }, (write) => write(`Removed application ${name}; the proxy's checks for its address are refused from now on.\n`));
}

/** The sub-commands, in the order the help lists them. */
export const apps_commands: Record<string, Command> = {
  add: command(ADD, add),
  list: command(LIST, list),
  show: command(SHOW, show),
  update: command(UPDATE, update),
  remove: command(REMOVE, remove),
};
