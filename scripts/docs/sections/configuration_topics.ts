// README "Configuration": the topics of docs/configuration.md, each with its settings' count and
// those production needs set (src/config/schema.ts `.meta({ topic, production })`).
import { anchor } from "../anchors.ts";
import { by_topic, setting_name } from "./settings.ts";

export const document = "README.md";

export function render(): string {
  return [
    "| Topic | Settings | Production needs |",
    "| --- | ---: | --- |",
    ...[...by_topic()]
      .filter(([, settings]) => settings.length > 0)
      .map(([topic, settings]) => {
        const needed = settings.filter((s) => s.production !== undefined).map(setting_name);
        return `| [${topic}](docs/configuration.md#${anchor(topic)}) | ${settings.length} | ${needed.join(", ")} |`;
      }),
  ].join("\n");
}
