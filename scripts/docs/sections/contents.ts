// README: the table of contents, from README's own `##` and `###` headings (GitHub's anchors).
import { read_readme } from "../generate.ts";

/** GitHub's heading anchor: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
export function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");
}

export function render(): string {
  const lines: string[] = [];
  let fenced = false;
  for (const line of read_readme().split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    const match = /^(##|###) (.+)$/.exec(line);
    if (match === null) continue;
    const [, level, title] = match as unknown as [string, string, string];
    lines.push(`${level === "##" ? "" : "  "}- [${title.replace(/`/g, "")}](#${anchor(title)})`);
  }
  return lines.join("\n");
}
