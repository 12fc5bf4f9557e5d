/**
 * `idp clients add|list|show|remove|rotate-secret`: relying parties registered by the operator.
 * A client secret is 256-bit random, printed once and stored only as its SHA-256 hash.
 */
import { random_id, random_token, sha256 } from "../oidc/crypto/secrets.ts";
import type { ClientMetadata, ClientRow, Store } from "../store/types.ts";
import { expect_positionals, parse_args } from "./args.ts";
import { client_metadata, SECRET_AUTH_METHODS } from "./client_metadata.ts";
import { must, type CliContext, type SubCommand } from "./context.ts";
import { CliError } from "./errors.ts";
import { format_time, secret_notice, write_record, write_table } from "./output.ts";

/** What the CLI shows of a client: its metadata and dates, never a secret or token hash. */
export type PublicClient = ClientMetadata & {
  client_id: string;
  client_id_issued_at: number;
  client_secret_expires_at: number;
  has_secret: boolean;
  resource_server: boolean;
  created_at: number;
  updated_at: number;
};

export function public_client(client: ClientRow): PublicClient {
  return {
    client_id: client.client_id,
    ...client.metadata,
    // Always shown: whether this client may introspect other clients' access tokens.
    resource_server: client.metadata.resource_server === true,
    has_secret: client.client_secret_hash !== null,
    client_id_issued_at: client.client_id_issued_at,
    client_secret_expires_at: client.client_secret_expires_at,
    created_at: client.created_at,
    updated_at: client.updated_at,
  };
}

async function find_client(store: Store, client_id: string): Promise<ClientRow> {
  return must(await store.get_client(client_id), `no client "${client_id}"`);
}

function auth_method_of(client: ClientRow): string {
  return client.metadata.token_endpoint_auth_method ?? "client_secret_basic";
}

async function add(ctx: CliContext, argv: string[]): Promise<void> {
  const { flags, positionals } = parse_args(argv, {
    name: { type: "string" },
    redirect_uri: { type: "string", multiple: true },
    post_logout_redirect_uri: { type: "string", multiple: true },
    auth_method: { type: "string" },
    grant_type: { type: "string", multiple: true },
    scope: { type: "string" },
    application_type: { type: "string" },
    skip_consent: { type: "boolean" },
    jwks_uri: { type: "string" },
    jwks_json: { type: "string" },
    resource_server: { type: "boolean" },
    backchannel_logout_uri: { type: "string" },
  });
  expect_positionals(positionals, []);
  const metadata = client_metadata({
    name: flags.name,
    redirect_uris: flags.redirect_uri,
    post_logout_redirect_uris: flags.post_logout_redirect_uri,
    auth_method: flags.auth_method,
    grant_types: flags.grant_type,
    scope: flags.scope,
    application_type: flags.application_type,
    skip_consent: flags.skip_consent,
    jwks_uri: flags.jwks_uri,
    jwks_json: flags.jwks_json,
    resource_server: flags.resource_server,
    backchannel_logout_uri: flags.backchannel_logout_uri,
  });
  const secret = SECRET_AUTH_METHODS.has(metadata.token_endpoint_auth_method ?? "") ? random_token(32) : null;
  const store = await ctx.store();
  const now = Math.floor(Date.now() / 1000);
  const client = await store.create_client({
    client_id: random_id(),
    client_secret_hash: secret === null ? null : sha256(secret),
    client_secret_expires_at: 0,
    client_id_issued_at: now,
    metadata,
  });
  await ctx.audit({ type: "client_registered", client_id: client.client_id, details: { client_name: metadata.client_name ?? null } });

  // Shaped like a registration response (RFC 7591 §3.2.1): the secret appears here and nowhere else.
  const shown = public_client(client);
  ctx.emit(secret === null ? shown : { ...shown, client_secret: secret }, (write) => {
    write(`Created client ${metadata.client_name}.\n\n`);
    write_record(write, secret === null ? { client_id: client.client_id } : { client_id: client.client_id, client_secret: secret });
    if (secret === null) write(`\nPublic client (${auth_method_of(client)}): no secret; it must use PKCE.\n`);
    else secret_notice(write, "client secret");
  });
}

async function list(ctx: CliContext, argv: string[]): Promise<void> {
  const { positionals } = parse_args(argv, {});
  expect_positionals(positionals, []);
  const clients = await (await ctx.store()).list_clients();
  ctx.emit(clients.map(public_client), (write) => {
    if (clients.length === 0) return write("No clients.\n");
    write_table(
      write,
      ["client_id", "name", "auth method", "grant types", "created"],
      clients.map((c) => [c.client_id, c.metadata.client_name, auth_method_of(c), (c.metadata.grant_types ?? []).join(","), format_time(c.created_at)]),
    );
  });
}

async function show(ctx: CliContext, argv: string[]): Promise<void> {
  const { positionals } = parse_args(argv, {});
  const [client_id] = expect_positionals(positionals, ["client_id"]) as [string];
  const client = public_client(await find_client(await ctx.store(), client_id));
  ctx.emit(client, (write) =>
    write_record(write, {
      ...client,
      client_id_issued_at: format_time(client.client_id_issued_at),
      client_secret_expires_at: client.client_secret_expires_at === 0 ? "never" : format_time(client.client_secret_expires_at),
      created_at: format_time(client.created_at),
      updated_at: format_time(client.updated_at),
    }),
  );
}

async function remove(ctx: CliContext, argv: string[]): Promise<void> {
  const { positionals } = parse_args(argv, {});
  const [client_id] = expect_positionals(positionals, ["client_id"]) as [string];
  const store = await ctx.store();
  const client = await find_client(store, client_id);
  if (!(await store.delete_client(client.client_id))) throw new CliError(`no client "${client_id}"`);
  await ctx.audit({ type: "client_deleted", client_id: client.client_id, details: { client_name: client.metadata.client_name ?? null } });
  ctx.emit({ removed: true, client_id: client.client_id }, (write) =>
    write(`Removed client ${client.client_id} (${client.metadata.client_name ?? "unnamed"}) with its grants and tokens.\n`),
  );
}

async function rotate_secret(ctx: CliContext, argv: string[]): Promise<void> {
  const { positionals } = parse_args(argv, {});
  const [client_id] = expect_positionals(positionals, ["client_id"]) as [string];
  const store = await ctx.store();
  const client = await find_client(store, client_id);
  const method = auth_method_of(client);
  if (!SECRET_AUTH_METHODS.has(method)) {
    throw new CliError(`client "${client_id}" authenticates with ${method} and has no secret to rotate`);
  }
  const secret = random_token(32);
  // The old secret stops working at once: there is one hash per client, no overlap window.
  const updated = must(await store.update_client(client.client_id, { client_secret_hash: sha256(secret), client_secret_expires_at: 0 }), `no client "${client_id}"`);
  await ctx.audit({ type: "client_secret_rotated", client_id: client.client_id });
  ctx.emit({ client_id: updated.client_id, client_secret: secret, client_secret_expires_at: 0 }, (write) => {
    write(`New secret for client ${updated.client_id}; the previous secret no longer works.\n\n`);
    write_record(write, { client_id: updated.client_id, client_secret: secret });
    secret_notice(write, "client secret");
  });
}

/** The sub-commands, in the order the help lists them. */
export const clients_commands: Record<string, SubCommand> = { add, list, show, remove, "rotate-secret": rotate_secret };
