/**
 * `idp export [--out FILE] [--include-keys]`: users (password hashes, TOTP secrets, passkeys,
 * recovery codes, links to upstream accounts), groups and memberships, clients, upstreams,
 * resource servers, SAML service providers, protected applications and LDAP service accounts,
 * as one JSON document (app/transfer/format.ts); `idp import` (import.ts) reads it back.
 */
import { export_document, export_text, row_counts, write_export_file } from "../app/transfer/export.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { command, type ArgsOf, type CommandSpec, type OptionSpecs } from "./spec.ts";
import { VERSION } from "./version.ts";

const EXPORT = {
  summary: "write users, groups, clients, upstreams and the rest of the configuration data as JSON, for idp import",
  options: {
    out: { type: "string", value: "FILE", help: "the file to write (refused if it exists; written 0600); standard output without it" },
    include_keys: { type: "boolean", help: "the signing keys too (as stored: sealed with IDP_SECRET_KEY when it is set); the importing server then signs as this one" },
  },
  notes: `The file holds, as stored: users with their password hashes, TOTP secrets, recovery code
hashes, passkeys and links to upstream accounts; groups and their members; clients (secret
hashes); upstreams (client secrets encrypted with IDP_SECRET_KEY); resource servers; SAML service
providers; protected applications; LDAP service accounts and POSIX numbers. Keep it like the
database.

Not exported: sessions, tokens, codes, consents and other short-lived rows (users sign in
again), rate-limit counters, the mail queue and the audit log; signing keys only with
--include-keys (without them the importing server keeps its own keys, and relying parties see a
new JWKS). Import with idp import FILE.`,
} as const satisfies CommandSpec<OptionSpecs>;

async function run_export(ctx: CliContext, { flags }: ArgsOf<typeof EXPORT>): Promise<void> {
  const config = ctx.config();
  const document = await export_document(await ctx.store(), {
    include_keys: flags.include_keys,
    issuer: config.issuer,
    idp_version: VERSION,
    now: Math.floor(Date.now() / 1000),
  });
  const counts = row_counts(document);
  await ctx.audit({ type: "data_exported", details: { rows: counts, include_keys: flags.include_keys === true } });
  const text = export_text(document);
  if (flags.out === undefined) {
    ctx.io.stdout(text);
    return;
  }
  const out = flags.out;
  try {
    write_export_file(out, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(code === "EEXIST" ? `${out} exists: give a new file` : `cannot write ${out}: ${(error as Error).message}`);
  }
  ctx.emit({ file: out, rows: counts }, (write) => {
    write(`Exported to ${out} (mode 0600):\n`);
    for (const [table, count] of Object.entries(counts)) write(`  ${table.padEnd(24)} ${count}\n`);
  });
}

/** `idp export`. */
export const export_command = command(EXPORT, run_export);
