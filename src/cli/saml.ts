/**
 * `idp saml add|list|show|update|remove`: SAML 2.0 service providers (oidc/saml/). A service
 * provider is registered from its metadata (a file, or a URL fetched through the outbound fence)
 * and given our metadata URL; rules in oidc/admin/saml.ts.
 */
import { readFileSync } from "node:fs";
import { AdminError } from "../oidc/admin/errors.ts";
import { create_saml_service_provider, fetch_sp_metadata, SAML_SIGN_MODES, service_provider_view, update_saml_service_provider, type SamlSettings } from "../oidc/admin/saml.ts";
import { NAMEID_FORMAT_NAMES } from "../oidc/saml/names.ts";
import { stored_sp_metadata, type SpMetadata } from "../oidc/saml/sp_metadata.ts";
import type { SamlServiceProviderRow } from "../store/types.ts";
import { must, type CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { format_time, write_record, write_table } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";

/** The options add and update share. */
const SETTINGS = {
  metadata_file: { type: "string", value: "FILE", help: "the service provider's SAML metadata, from a file (- for standard input)" },
  metadata_url: { type: "string", value: "URL", help: "the service provider's SAML metadata, fetched from its URL through the outbound fence" },
  name: { type: "string", value: "N", help: "the name shown to users and in the audit log (default: the entityID)" },
  nameid_format: {
    type: "string",
    value: NAMEID_FORMAT_NAMES.join("|"),
    help: "the NameID it gets: persistent (default; opaque, stable, its own), email, transient (new at each sign-in) or unspecified (the username)",
  },
  attribute: { type: "string", value: "NAME=CLAIM", multiple: true, help: "an extra attribute carrying a user claim, e.g. employeeType=groups (repeatable)" },
  allowed_group: { type: "string", value: "G", multiple: true, help: "only members of this group may sign in to it (repeatable; the group must exist)" },
  idp_initiated: { type: "boolean", help: "allow sign-ins started here, without a request from it (unsolicited responses)" },
  sign: { type: "string", value: SAML_SIGN_MODES.join("|"), help: "what is signed: the Assertion (default), the Response, or both" },
  encrypt: { type: "boolean", help: "encrypt the (signed) Assertion to the encryption certificate of its metadata (AES-256-GCM, RSA-OAEP)" },
} as const satisfies OptionSpecs;

/** The entityIDs are URIs: a positional argument names one. */
const ENTITY = ["entity-id"] as const;

function attribute_map(entries: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of entries) {
    const at = entry.lastIndexOf("=");
    if (at <= 0 || at === entry.length - 1) throw new CliError(`--attribute must be NAME=CLAIM (employeeType=groups), not "${entry}"`);
    out[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return out;
}

/** The metadata named by --metadata-file or --metadata-url; null when neither is given. */
async function read_metadata(
  ctx: CliContext,
  flags: { metadata_file?: string | undefined; metadata_url?: string | undefined },
): Promise<{ xml: string; url: string | null } | null> {
  if (flags.metadata_file !== undefined && flags.metadata_url !== undefined) throw new CliError("give --metadata-file or --metadata-url, not both");
  // "-": standard input, which needs no read permission for a file (Deno's task grants none for the command line's).
  if (flags.metadata_file === "-") return { xml: await ctx.read_stdin(), url: null };
  if (flags.metadata_file !== undefined) {
    try {
      return { xml: readFileSync(flags.metadata_file, "utf8"), url: null };
    } catch (error) {
      throw new CliError(`cannot read ${flags.metadata_file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  if (flags.metadata_url !== undefined) {
    const store = await ctx.store();
    // The fence logs to the running server's log; here its refusal reaches the operator as the error.
    const context = { config: ctx.config(), store, log: () => {}, now: () => Math.floor(Date.now() / 1000) };
    try {
      return { xml: await fetch_sp_metadata(context, flags.metadata_url), url: flags.metadata_url };
    } catch (error) {
      throw cli_error(error);
    }
  }
  return null;
}

/** An AdminError as the CLI says it: the option it is about. */
function cli_error(error: unknown): unknown {
  if (!(error instanceof AdminError)) return error;
  const field = error.errors[0]?.field;
  const flag =
    field === "metadata"
      ? "metadata"
      : field === "metadata_url"
        ? "--metadata-url"
        : field === "attributes"
          ? "--attribute"
          : field === "allowed_groups"
            ? "--allowed-group"
            : field
              ? `--${field.replace(/_/g, "-")}`
              : null;
  return new CliError(error.error === "invalid_request" && flag !== null ? `${flag}: ${error.errors[0]?.message ?? error.message}` : error.message);
}

/** What `--json` and `show` print: the registration with our metadata URL, never the salt. */
function view(ctx: CliContext, row: SamlServiceProviderRow, metadata: SpMetadata) {
  return service_provider_view({ config: ctx.config() }, row, metadata);
}

function summary(write: (text: string) => void, shown: ReturnType<typeof view>): void {
  write(`  assertion consumer service: ${shown.assertion_consumer_services.join(", ")}\n`);
  write(`  NameID ${shown.nameid_format}; signed: ${shown.sign}; encrypted: ${shown.encrypt ? "yes" : "no"}; IdP-initiated: ${shown.idp_initiated ? "on" : "off"}`);
  write(`${shown.allowed_groups.length > 0 ? `; groups: ${shown.allowed_groups.join(", ")}` : ""}\n`);
  write(`Give the service provider our metadata: ${shown.idp_metadata_url}\n`);
}

const ADD = {
  summary: "register a SAML service provider from its metadata (--metadata-file or --metadata-url)",
  options: SETTINGS,
} as const satisfies CommandSpec<OptionSpecs>;

async function add(ctx: CliContext, { flags }: ArgsOf<typeof ADD>): Promise<void> {
  const metadata = must(await read_metadata(ctx, flags), "give the service provider's metadata: --metadata-file FILE or --metadata-url URL");
  const settings: SamlSettings = {
    name: flags.name,
    nameid_format: flags.nameid_format,
    sign: flags.sign,
    ...(flags.attribute.length > 0 ? { attributes: attribute_map(flags.attribute) } : {}),
    ...(flags.allowed_group.length > 0 ? { allowed_groups: flags.allowed_group } : {}),
    ...(flags.idp_initiated ? { idp_initiated: true } : {}),
    ...(flags.encrypt ? { encrypt: true } : {}),
  };
  let created: Awaited<ReturnType<typeof create_saml_service_provider>>;
  try {
    created = await create_saml_service_provider(await ctx.store(), { metadata_xml: metadata.xml, metadata_url: metadata.url, ...settings }, Math.floor(Date.now() / 1000));
  } catch (error) {
    throw cli_error(error);
  }
  const shown = view(ctx, created.row, created.metadata);
  await ctx.audit({ type: "saml_sp_created", details: { entity_id: shown.entity_id, nameid_format: shown.nameid_format, sign: shown.sign, idp_initiated: shown.idp_initiated } });
  ctx.emit(shown, (write) => {
    write(`Registered SAML service provider ${shown.entity_id} (${shown.name}).\n`);
    summary(write, shown);
  });
}

const UPDATE = {
  summary: "change a service provider: new metadata, or the settings given",
  positionals: ENTITY,
  options: {
    ...SETTINGS,
    attribute: { ...SETTINGS.attribute, help: "replaces the extra attributes (repeatable)" },
    allowed_group: { ...SETTINGS.allowed_group, help: "replaces the allowed groups (repeatable)" },
    idp_initiated: { type: "boolean", help: "allow sign-ins started here" },
    no_idp_initiated: { type: "boolean", help: "refuse sign-ins started here (only requests from it)" },
    no_encrypt: { type: "boolean", help: "send the Assertion signed but not encrypted" },
    clear_attributes: { type: "boolean", help: "remove every extra attribute" },
    clear_allowed_groups: { type: "boolean", help: "let every user sign in to it" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function update(ctx: CliContext, { flags, positionals }: ArgsOf<typeof UPDATE>): Promise<void> {
  const [entity_id] = positionals as [string];
  if (flags.idp_initiated && flags.no_idp_initiated) throw new CliError("give --idp-initiated or --no-idp-initiated, not both");
  if (flags.encrypt && flags.no_encrypt) throw new CliError("give --encrypt or --no-encrypt, not both");
  if (flags.clear_attributes && flags.attribute.length > 0) throw new CliError("give --attribute or --clear-attributes, not both");
  if (flags.clear_allowed_groups && flags.allowed_group.length > 0) throw new CliError("give --allowed-group or --clear-allowed-groups, not both");
  const metadata = await read_metadata(ctx, flags);
  const settings: SamlSettings = {
    name: flags.name,
    nameid_format: flags.nameid_format,
    sign: flags.sign,
    ...(flags.attribute.length > 0 ? { attributes: attribute_map(flags.attribute) } : flags.clear_attributes ? { attributes: {} } : {}),
    ...(flags.allowed_group.length > 0 ? { allowed_groups: flags.allowed_group } : flags.clear_allowed_groups ? { allowed_groups: [] } : {}),
    ...(flags.idp_initiated ? { idp_initiated: true } : flags.no_idp_initiated ? { idp_initiated: false } : {}),
    ...(flags.encrypt ? { encrypt: true } : flags.no_encrypt ? { encrypt: false } : {}),
  };
  let updated: Awaited<ReturnType<typeof update_saml_service_provider>>;
  try {
    updated = await update_saml_service_provider(
      await ctx.store(),
      entity_id,
      { ...(metadata === null ? {} : { metadata_xml: metadata.xml, metadata_url: metadata.url }), ...settings },
      Math.floor(Date.now() / 1000),
    );
  } catch (error) {
    throw cli_error(error);
  }
  const shown = view(ctx, updated.row, updated.metadata);
  const changed = [...(metadata === null ? [] : ["metadata"]), ...Object.entries(settings).flatMap(([key, value]) => (value === undefined ? [] : [key]))];
  await ctx.audit({ type: "saml_sp_updated", details: { entity_id, changed } });
  ctx.emit(shown, (write) => {
    write(`Updated SAML service provider ${entity_id} (${changed.length > 0 ? changed.join(", ") : "nothing changed"}).\n`);
    summary(write, shown);
  });
}

const LIST = { summary: "list the SAML service providers" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const rows = await (await ctx.store()).list_saml_service_providers();
  const shown = rows.map((row) => view(ctx, row, stored_sp_metadata(row.metadata_xml)));
  ctx.emit(shown, (write) => {
    if (rows.length === 0) return write("No SAML service providers.\n");
    write_table(
      write,
      ["entity id", "name", "nameid", "sign", "idp-initiated", "groups", "created"],
      shown.map((sp) => [sp.entity_id, sp.name, sp.nameid_format, sp.sign, sp.idp_initiated ? "on" : "off", sp.allowed_groups.join(" ") || "all", format_time(sp.created_at)]),
    );
  });
}

const SHOW = { summary: "show a SAML service provider", positionals: ENTITY } as const satisfies CommandSpec<OptionSpecs>;

async function show(ctx: CliContext, { positionals }: ArgsOf<typeof SHOW>): Promise<void> {
  const [entity_id] = positionals as [string];
  const row = must(await (await ctx.store()).get_saml_service_provider(entity_id), `no SAML service provider "${entity_id}"`);
  const shown = view(ctx, row, stored_sp_metadata(row.metadata_xml));
  ctx.emit(shown, (write) =>
    write_record(write, {
      ...shown,
      assertion_consumer_services: shown.assertion_consumer_services.join(" "),
      attributes:
        Object.entries(shown.attributes)
          .map(([name, claim]) => `${name}=${claim}`)
          .join(" ") || "(standard only)",
      allowed_groups: shown.allowed_groups.join(" ") || "(everyone)",
      metadata_url: shown.metadata_url ?? "(from a file)",
      created_at: format_time(shown.created_at),
      updated_at: format_time(shown.updated_at),
    }),
  );
}

const REMOVE = { summary: "remove a SAML service provider; its users can no longer sign in to it", positionals: ENTITY } as const satisfies CommandSpec<OptionSpecs>;

async function remove(ctx: CliContext, { positionals }: ArgsOf<typeof REMOVE>): Promise<void> {
  const [entity_id] = positionals as [string];
  if (!(await (await ctx.store()).delete_saml_service_provider(entity_id))) throw new CliError(`no SAML service provider "${entity_id}"`);
  await ctx.audit({ type: "saml_sp_deleted", details: { entity_id } });
  ctx.emit({ removed: true, entity_id }, (write) => write(`Removed SAML service provider ${entity_id}.\n`));
}

/** The sub-commands, in the order the help lists them. */
export const saml_commands: Record<string, Command> = {
  add: command(ADD, add),
  list: command(LIST, list),
  show: command(SHOW, show),
  update: command(UPDATE, update),
  remove: command(REMOVE, remove),
};
