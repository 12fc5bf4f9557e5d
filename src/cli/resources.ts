/**
 * `idp resources add|list|show|remove`: resource servers (RFC 8707 resource indicators). A client
 * names one with `resource` at /authorize and /token and gets an access token audience-restricted
 * to it, with the scopes it accepts; `--format jwt` makes those tokens RFC 9068 JWTs (opaque by
 * default). Rules in oidc/admin/resources.ts.
 */
import type { ResourceServerRow } from "../store/types.ts";
import { AdminError } from "../oidc/admin/errors.ts";
import { create_resource_server, remove_resource_server, resource_ttl_of, scope_list } from "../oidc/admin/resources.ts";
import { must, type CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { format_time, write_record, write_table } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";

function shown(row: ResourceServerRow) {
  return { ...row, created_at: format_time(row.created_at), updated_at: format_time(row.updated_at) };
}

const ADD = {
  summary: "register a resource server: an absolute URI without fragment",
  positionals: ["uri"],
  options: {
    scope: { type: "string", value: "S", multiple: true, required: true, help: "a scope the resource accepts (repeatable or space-separated)" },
    format: { type: "string", value: "opaque|jwt", help: "jwt: RFC 9068 JWT access tokens; opaque (default): checked by introspection" },
    ttl: { type: "string", value: "SECONDS", help: "access token lifetime, 60 to 86400 seconds (default IDP_ACCESS_TOKEN_TTL)" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function add(ctx: CliContext, { flags, positionals }: ArgsOf<typeof ADD>): Promise<void> {
  const [uri] = positionals as [string];
  let row: ResourceServerRow;
  try {
    // --scope may list several values in one (space-separated) or repeat.
    const input = { uri, scopes: scope_list(flags.scope), access_token_format: flags.format, access_token_ttl: resource_ttl_of(flags.ttl) };
    row = await create_resource_server(await ctx.store(), input, Math.floor(Date.now() / 1000));
  } catch (error) {
    if (error instanceof AdminError) {
      const field = error.errors[0]?.field;
      const flag = field === "scopes" ? "--scope" : field === "access_token_format" ? "--format" : field === "access_token_ttl" ? "--ttl" : "URI";
      throw new CliError(error.error === "conflict" ? error.message : `${flag}: ${error.errors[0]?.message ?? error.message}`);
    }
    throw error;
  }
  await ctx.audit({ type: "resource_created", details: { uri: row.uri, scopes: row.scopes, access_token_format: row.access_token_format } });
  ctx.emit(row, (write) => write(`Registered resource ${row.uri} (${row.access_token_format} access tokens; scopes ${row.scopes.join(" ")}).\n`));
}

const LIST = { summary: "list the resource servers" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const rows = await (await ctx.store()).list_resource_servers();
  ctx.emit(rows, (write) => {
    if (rows.length === 0) return write("No resources.\n");
    write_table(
      write,
      ["uri", "format", "scopes", "ttl", "created"],
      rows.map((r) => [r.uri, r.access_token_format, r.scopes.join(" "), r.access_token_ttl ?? "default", format_time(r.created_at)]),
    );
  });
}

const SHOW = { summary: "show a resource server", positionals: ["uri"] } as const satisfies CommandSpec<OptionSpecs>;

async function show(ctx: CliContext, { positionals }: ArgsOf<typeof SHOW>): Promise<void> {
  const [uri] = positionals as [string];
  const row = must(await (await ctx.store()).get_resource_server(uri), `no resource "${uri}"`);
  ctx.emit(row, (write) => write_record(write, { ...shown(row), scopes: row.scopes.join(" "), access_token_ttl: row.access_token_ttl ?? "default (IDP_ACCESS_TOKEN_TTL)" }));
}

const REMOVE = {
  summary: "remove a resource server; requests naming it get invalid_target (tokens issued stay valid until they expire)",
  positionals: ["uri"],
} as const satisfies CommandSpec<OptionSpecs>;

async function remove(ctx: CliContext, { positionals }: ArgsOf<typeof REMOVE>): Promise<void> {
  const [uri] = positionals as [string];
  try {
    await remove_resource_server(await ctx.store(), uri);
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.message);
    throw error;
  }
  await ctx.audit({ type: "resource_deleted", details: { uri } });
  // Tokens already issued for it stay valid until they expire (or are revoked); new requests naming it get invalid_target.
  ctx.emit({ removed: true, uri }, (write) => write(`Removed resource ${uri}; requests naming it now get invalid_target.\n`));
}

/** The sub-commands, in the order the help lists them. */
export const resources_commands: Record<string, Command> = { add: command(ADD, add), list: command(LIST, list), show: command(SHOW, show), remove: command(REMOVE, remove) };
