/**
 * `idp keys list|rotate|revoke`: the signing keys in the store (key material is never printed).
 * Both go through KeyRing, which first brings the store to a signing state (an active and a
 * published next key per configured alg), exactly as a starting server would.
 */
import type { Config } from "../app/config.ts";
import { ALGS, is_alg } from "../oidc/keys/algs.ts";
import { AdminError } from "../oidc/admin/errors.ts";
import { revoke_signing_key, rotate_signing_keys } from "../oidc/admin/keys.ts";
import { KeyRing, type KeyInfo } from "../oidc/keys/keyring.ts";
import type { CliContext } from "./context.ts";
import { CliError, UsageError } from "./errors.ts";
import { format_time, write_table, type Writer } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";

async function load_ring(ctx: CliContext, config: Config): Promise<KeyRing> {
  // A retired key stays published while any token it signed may still be presented.
  const retire_after_seconds = Math.max(config.tokens.id_token_ttl, config.tokens.access_token_ttl);
  return KeyRing.load(await ctx.store(), { algs: config.signing_algs, retire_after_seconds, openssl: config.openssl, secret_key: config.federation.secret_key });
}

function write_keys(write: Writer, keys: readonly KeyInfo[]): void {
  write_table(
    write,
    ["kid", "alg", "status", "created", "activated", "retire at"],
    keys.map((k) => [k.kid, k.alg, k.status, format_time(k.created_at), format_time(k.activated_at), format_time(k.retire_at)]),
  );
}

const LIST = { summary: "list the signing keys: active, next (published) and retired (never key material)" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const keys = (await load_ring(ctx, ctx.config())).list();
  ctx.emit(keys, (write) => write_keys(write, keys));
}

const ROTATE = {
  summary: "make the published next key active and prepare a new next key",
  options: { alg: { type: "string", value: ALGS.join("|"), help: "rotate this algorithm's keys only (default: every one of IDP_SIGNING_ALGS)" } },
} as const satisfies CommandSpec<OptionSpecs>;

async function rotate(ctx: CliContext, { flags }: ArgsOf<typeof ROTATE>): Promise<void> {
  const alg = flags.alg;
  if (alg !== undefined && !is_alg(alg)) throw new UsageError(`--alg "${alg}" is not one of ${ALGS.join(", ")}`);
  const config = ctx.config();
  if (alg !== undefined && !config.signing_algs.includes(alg)) {
    throw new CliError(`--alg ${alg} is not configured (IDP_SIGNING_ALGS=${config.signing_algs.join(",")})`);
  }
  const ring = await load_ring(ctx, config);
  let active: Record<string, string>;
  try {
    active = await rotate_signing_keys(ring, config.signing_algs, alg);
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.message);
    throw error;
  }
  const rotated = Object.entries(active);
  await ctx.audit({ type: "keys_rotated", details: { active } });
  const keys = ring.list();
  ctx.emit({ rotated: active, keys }, (write) => {
    for (const [a, kid] of rotated) write(`${a}: ${kid} now signs.\n`);
    write("Running servers pick up the change within seconds; retired keys stay in the JWKS until their tokens expire.\n\n");
    write_keys(write, keys);
  });
}

const REVOKE = {
  summary: "revoke a compromised key at once: it leaves the JWKS, its tokens are refused; an active key hands signing to the next key first",
  positionals: ["kid"],
} as const satisfies CommandSpec<OptionSpecs>;

async function revoke(ctx: CliContext, { positionals }: ArgsOf<typeof REVOKE>): Promise<void> {
  const kid = positionals[0]!;
  const config = ctx.config();
  const ring = await load_ring(ctx, config);
  let done: Awaited<ReturnType<typeof revoke_signing_key>>;
  try {
    done = await revoke_signing_key(ring, kid);
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.message);
    throw error;
  }
  await ctx.audit({ type: "key_revoked", details: { kid, alg: done.revoked.alg, status: done.revoked.status, active: done.active } });
  const keys = ring.list();
  ctx.emit({ ...done, keys }, (write) => {
    write(`${kid} (${done.revoked.alg}, ${done.revoked.status}) is revoked: it left the JWKS and tokens signed with it are refused.\n`);
    for (const [a, active] of Object.entries(done.active)) write(`${a}: ${active} signs.\n`);
    write(`Running servers pick up the change within IDP_KEYS_POLL_SECONDS (${config.keys_poll_seconds} s).\n\n`);
    write_keys(write, keys);
  });
}

/** The sub-commands, in the order the help lists them. */
export const keys_commands: Record<string, Command> = { list: command(LIST, list), rotate: command(ROTATE, rotate), revoke: command(REVOKE, revoke) };
