// README: every rate-limit counter, from src/oidc/limits/counters.ts, with its settings' defaults from the schema.
import { ENV_KEYS } from "../../../src/app/config.ts";
import { ConfigSchema } from "../../../src/config/schema.ts";
import { COUNTERS, type Amount, type Counter } from "../../../src/oidc/limits/counters.ts";

export const document = "README.md";

const DEFAULTS = ConfigSchema.parse({});
const ENV_OF = new Map(Object.entries(ENV_KEYS).map(([env, path]) => [path, env]));

/** A duration in seconds as people read it: "900 s (15 min)". */
function duration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds} s (${seconds / 3600} h)`;
  if (seconds % 60 === 0) return `${seconds} s (${seconds / 60} min)`;
  return `${seconds} s`;
}

/** A limit or a window: its default, then the setting that changes it (and its variable), or "fixed". */
function amount(value: Amount, show: (n: number) => string): string {
  const fallback = value.of(DEFAULTS);
  const shown = `\`${show(fallback)}\`${fallback === 0 ? " (off)" : ""}`;
  if (value.setting === null) return `${shown}, fixed`;
  const env = ENV_OF.get(value.setting);
  return `${shown}: \`${value.setting}\`${env === undefined ? "" : ` (\`${env}\`)`}`;
}

/** True when the limit's setting may be 0 (no counting at all). */
function accepts_zero(limit: Amount): boolean {
  if (limit.setting === null) return false;
  const [group, name] = limit.setting.split(".") as [string, string];
  return ConfigSchema.safeParse({ [group]: { [name]: 0 } }).success;
}

const key = (counter: Counter) => `\`${counter.prefix}:\` SHA-256(${counter.parts.join(", ")})`;

export function render(): string {
  const counters = Object.entries(COUNTERS) as [string, Counter][];
  const switched = counters.filter(([, c]) => c.switch !== null).map(([name]) => `\`${name}\``);
  const zero_off = counters.filter(([, c]) => accepts_zero(c.limit)).map(([name]) => `\`${name}\``);
  return [
    "| counter | counts | protects | key | limit (default: setting) | window (default: setting) | past the limit |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...counters.map(([name, c]) => `| \`${name}\` | ${c.counts} | ${c.protects} | ${key(c)} | ${amount(c.limit, String)} | ${amount(c.window, duration)} | ${c.over} |`),
    "",
    `Off with \`IDP_RATE_LIMITS=off\` (\`rate_limits.enabled\`): ${switched.join(", ")}. A limit set to 0 turns its counter off; only these accept 0: ${zero_off.join(", ")}.`,
  ].join("\n");
}
