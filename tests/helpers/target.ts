/**
 * Where an end-to-end OpenID flow suite gets its provider, so ONE suite runs against the dev
 * server and against the compiled executable (README.md, "Connect an application"). Chosen by IDP_E2E_TARGET:
 *
 *   (unset), "in-process"   serve() in the test process (tests/helpers/provider.ts)
 *   "dev"                   `bun run main.ts serve` (`deno run … main.ts serve` on Deno) as a separate process
 *   "binary:/path/to/idp"   the compiled executable as a separate process
 *   "deno"                  `deno task idp serve` (deno.json): Deno, with the permissions
 *                           scripts/deno/permissions.ts computes, as README "Running on Deno" says
 *
 * The two process targets run from a fresh temporary directory with their own SQLite file and
 * are seeded through the executable's own CLI (subprocess.ts). A suite written against
 * E2eProvider only (no store, no clock) works with all three; .ci/run runs every tests/e2e file
 * that calls start_target() against the binary.
 */
import type { ClientMetadata } from "../../src/store/types.ts";
import { start_provider } from "./provider.ts";
import { join } from "node:path";
import { idp_command, ROOT } from "./spawn.ts";
import { start_subprocess_provider } from "./subprocess.ts";

/** What an end-to-end suite may use of a provider: HTTP, one seeded user and client, more clients. */
export type E2eProvider = {
  url: string;
  issuer: string;
  /** alice, with a full profile; her password is `password`. */
  user: { id: string; username: string };
  password: string;
  /** A confidential client_secret_basic client redirecting to REDIRECT_URI. */
  client: { client_id: string };
  secret: string;
  /** Registers another client (redirect URI REDIRECT_URI unless given); secret null for public ones. */
  add_client(metadata: ClientMetadata): Promise<{ client: { client_id: string }; secret: string | null }>;
  stop(): Promise<void>;
};

/** The command that starts the target, or null for the in-process provider. */
export function target_command(target: string | undefined = process.env.IDP_E2E_TARGET): string[] | null {
  if (target === undefined || target === "" || target === "in-process") return null;
  if (target === "dev") return idp_command();
  if (target.startsWith("binary:") && target.length > "binary:".length) return [target.slice("binary:".length)];
  if (target === "deno") return [join(ROOT, "node_modules", ".bin", "deno"), "task", "--quiet", "--config", join(ROOT, "deno.json"), "idp"];
  throw new Error(`IDP_E2E_TARGET="${target}": expected in-process, dev, deno or binary:/path/to/idp`);
}

/**
 * Starts the provider the environment asks for. `env`: settings as an operator writes them
 * (IDP_* variables), given to the process, or read by the in-process provider's configuration;
 * `issuer_host`: the issuer's host name (the server listens on 127.0.0.1 all the same).
 */
export async function start_target(options: { env?: Record<string, string>; issuer_host?: string } = {}): Promise<E2eProvider> {
  const command = target_command();
  return command === null ? start_provider(options) : start_subprocess_provider(command, options);
}
