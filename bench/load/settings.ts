/** The knobs of every scenario, from the environment (bench/README.md lists them). */
export type Settings = {
  /** Virtual users running flows at once. */
  concurrency: number;
  /** Seconds of load (per database for `sustained`, in total for the others). */
  duration_s: number;
  /** Users seeded; virtual user n signs in as user n mod USERS. */
  users: number;
  /** Driver-side timeout of one request (ms): longer than the server's 15 s request deadline. */
  timeout_ms: number;
};

const int = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
};

export function settings(defaults: Partial<Settings> = {}): Settings {
  return {
    concurrency: int("CONCURRENCY", defaults.concurrency ?? 32),
    duration_s: int("DURATION", defaults.duration_s ?? 60),
    users: int("USERS", defaults.users ?? 32),
    timeout_ms: int("TIMEOUT_MS", defaults.timeout_ms ?? 20_000),
  };
}

/** The run's shape in one line, for the results. */
export function describe_settings(s: Settings): string {
  const argon2 = process.env.ARGON2 === "fast" ? "argon2id 1 MiB, t=1 (ARGON2=fast)" : "argon2id at the provider's defaults (19 MiB, t=2)";
  return `${s.concurrency} virtual users (each its own cookie jar) over ${s.users} accounts, ${s.duration_s} s, ${argon2}, request rate limits off (IDP_RATE_LIMITS=false), purge off for the run (IDP_PURGE_INTERVAL_SECONDS=86400).`;
}
