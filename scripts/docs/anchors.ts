/**
 * GitHub's heading anchors, for the documents' tables of contents (sections/contents.ts) and for
 * the tests that check a link's `#anchor` names a heading that exists (tests/docs/paths.test.ts,
 * tests/docs/production_checklist.test.ts).
 */

/** GitHub's heading anchor: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
export function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");
}

/** The headings of a Markdown text outside fenced code, in order: level and title. */
export function headings_of(markdown: string): { level: number; title: string }[] {
  const out: { level: number; title: string }[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const m = fenced ? null : /^(#{1,6}) (.+)$/.exec(line);
    if (m) out.push({ level: m[1]!.length, title: m[2]!.trim() });
  }
  return out;
}

/** Every anchor GitHub gives the headings of a Markdown text; a repeated heading gets `-1`, `-2`… */
export function anchors_of(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const { title } of headings_of(markdown)) {
    const base = anchor(title);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}
