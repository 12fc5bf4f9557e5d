/**
 * What a command runs with: the I/O of the process (or of a test), the configuration, and the
 * store, opened on first use and closed by `run_cli` when the command ends.
 */
import { ConfigError, load_config, type Config } from "../app/config.ts";
import { configure_argon2 } from "../platform/passwords.ts";
import { open_store } from "../store/open.ts";
import type { NewAuditEvent, Store } from "../store/types.ts";
import { fan_out } from "../oidc/webhooks/fan_out.ts";
import { CliError } from "./errors.ts";
import { write_json, type Writer } from "./output.ts";

/** How long an admin command waits for SQLite's write lock. */
export const CLI_BUSY_TIMEOUT_MS = 30_000;

export type CliIo = {
  /** Standard input: the whole text, or a reader called only by commands that need it. */
  stdin: string | (() => Promise<string>);
  stdout: Writer;
  stderr: Writer;
  env: Record<string, string | undefined>;
  /** Ends a running `serve` (main.ts aborts it on SIGINT/SIGTERM; tests abort it directly). */
  signal?: AbortSignal;
  /**
   * The command that runs this program again (executable and arguments), for the workers of
   * `idp serve --workers N`; main.ts sets it. In-process callers (tests) have none.
   */
  self?: readonly string[];
  /** The command that runs this program, without arguments: the server runs `idp backup` with it (app/backup/schedule.ts). */
  program?: readonly string[];
};

export class CliContext {
  private cached_config: Config | undefined;
  private opened: Promise<Store> | undefined;

  constructor(
    readonly io: CliIo,
    /** `--json`: print one machine-readable document instead of text. */
    readonly json = false,
  ) {}

  /** Parsed once; raises ConfigError (printed by run_cli) when invalid. */
  config(overrides: Record<string, unknown> = {}): Config {
    if (Object.keys(overrides).length > 0) return with_argon2(load_config(this.io.env, overrides));
    this.cached_config ??= with_argon2(load_config(this.io.env));
    return this.cached_config;
  }

  /** The store of the configured database, with pending migrations applied. */
  store(options: { migrate?: boolean } = {}): Promise<Store> {
    if (!this.opened) {
      const config = this.config();
      // SQLite: a running server under load holds the write lock nearly all the time (group
      // commit), and this process polls for it. A command may wait: 30 s, not the server's 5 s
      // (bench/RESULTS.md, "Group commit and other processes").
      this.opened = open_store(config.database_url, { max: config.database_pool_size, migrate: options.migrate ?? true, busy_timeout: CLI_BUSY_TIMEOUT_MS });
    }
    return this.opened;
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (!opened) return;
    try {
      await (await opened).close();
    } catch {
      // The store failed to open: the command already reported that error.
    }
  }

  /** Reads stdin (for --password-stdin), without the trailing newline. */
  async read_stdin(): Promise<string> {
    const raw = typeof this.io.stdin === "string" ? this.io.stdin : await this.io.stdin();
    return raw.replace(/\r?\n$/, "");
  }

  /** Prints `value` as JSON with --json, or runs `human` to print text. */
  emit(value: unknown, human: (write: Writer) => void): void {
    if (this.json) write_json(this.io.stdout, value);
    else human(this.io.stdout);
  }

  /** Records an admin action. Best effort: the action already happened, so a failure only warns. */
  async audit(event: Omit<NewAuditEvent, "outcome"> & { outcome?: string }): Promise<void> {
    try {
      const store = await this.store();
      const recorded = await store.add_audit_event({ outcome: "success", ...event, details: { via: "cli", ...(event.details ?? {}) } });
      // A running server's webhook worker delivers what this queues within its poll interval.
      await fan_out(store, recorded, recorded.at);
    } catch (error) {
      this.io.stderr(`warning: could not record audit event ${event.type}: ${(error as Error).message}\n`);
    }
  }
}

/** Raises a CliError (exit 1) unless `value` is present. */
export function must<T>(value: T | null | undefined, message: string): T {
  if (value === null || value === undefined) throw new CliError(message);
  return value;
}

/** Applies the configured argon2id implementation before the command hashes anything. */
function with_argon2(config: Config): Config {
  try {
    configure_argon2(config.argon2.impl);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return config;
}
