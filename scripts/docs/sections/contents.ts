// README: the table of contents, from README's own `##` and `###` headings (GitHub's anchors).
import { anchor, headings_of } from "../anchors.ts";
import { read_readme } from "../generate.ts";

export const document = "README.md";

export function render(): string {
  return headings_of(read_readme())
    .filter(({ level }) => level === 2 || level === 3)
    .map(({ level, title }) => `${level === 2 ? "" : "  "}- [${title.replace(/`/g, "")}](#${anchor(title)})`)
    .join("\n");
}
