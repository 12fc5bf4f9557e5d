// README: the webhook event catalogue, from src/oidc/webhooks/events.ts.
import { webhook_event_catalogue } from "../../../src/oidc/webhooks/events.ts";

export const document = "README.md";

export function render(): string {
  return [
    "| webhook event | audit events it stands for |",
    "| --- | --- |",
    ...webhook_event_catalogue().map(
      ({ type, sources }) => `| \`${type}\` | ${sources.map((s) => `\`${s.replace(/ \(.*\)$/, "")}\`${s.includes("(") ? s.slice(s.indexOf(" ")) : ""}`).join(", ")} |`,
    ),
  ].join("\n");
}
