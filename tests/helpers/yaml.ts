/**
 * A YAML reader for the block style deploy/ is written in (compose.yaml, kubernetes/*.yaml), so
 * the tests read those files on any runtime without a YAML package: documents split by `---`,
 * block mappings and sequences (a sequence may sit at its key's indentation), plain, 'single'
 * and "double" quoted scalars, comments. Scalars follow YAML 1.2's core schema (null, true/false,
 * integers and decimals; everything else a string). Anything else — flow collections other than
 * `[]` and `{}`, block scalars, anchors, tags, tabs — is refused with the line, never guessed.
 * tests/deploy_container.test.ts checks it against Bun's YAML parser on the same files.
 */
export type Yaml = null | boolean | number | string | Yaml[] | { [key: string]: Yaml };

type Line = { indent: number; text: string; number: number };

/** Strips a comment: `#` at the start or after a space, outside quotes. */
function strip_comment(text: string): string {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== null) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || text[i - 1] === " ")) return text.slice(0, i).trimEnd();
  }
  return text.trimEnd();
}

function lines_of(document: string, first_line: number): Line[] {
  const lines: Line[] = [];
  document.split("\n").forEach((raw, i) => {
    if (/^\s*\t/.test(raw)) throw new Error(`yaml line ${first_line + i}: a tab in the indentation`);
    const text = strip_comment(raw);
    if (text.trim() === "") return;
    const indent = text.length - text.trimStart().length;
    lines.push({ indent, text: text.trimStart(), number: first_line + i });
  });
  return lines;
}

function scalar(text: string, line: number): Yaml {
  if (text.startsWith('"')) {
    if (!text.endsWith('"') || text.length < 2) throw new Error(`yaml line ${line}: unterminated "string"`);
    return JSON.parse(text) as string;
  }
  if (text.startsWith("'")) {
    if (!text.endsWith("'") || text.length < 2) throw new Error(`yaml line ${line}: unterminated 'string'`);
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (text === "[]") return [];
  if (text === "{}") return {};
  if (/^[[{|>&*!%@`]/.test(text)) throw new Error(`yaml line ${line}: "${text}" is outside the subset this reader knows`);
  if (text === "null" || text === "~") return null;
  if (text === "true" || text === "false") return text === "true";
  if (/^[-+]?\d+$/.test(text) || /^[-+]?(\d+\.\d*|\.\d+)$/.test(text)) return Number(text);
  return text;
}

/** `key: rest` (rest may be empty), or null when the text is not a mapping entry. */
function entry(text: string): { key: string; rest: string } | null {
  const quoted = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')\s*:(?:\s+|$)(.*)$/.exec(text);
  if (quoted) return { key: scalar(quoted[1]!, 0) as string, rest: quoted[2]! };
  const plain = /^([^\s"'#\-[{][^:]*?|-[^\s:][^:]*?)\s*:(?:\s+(.*))?$/.exec(text);
  return plain ? { key: plain[1]!, rest: plain[2] ?? "" } : null;
}

const is_item = (line: Line) => line.text === "-" || line.text.startsWith("- ");

class Reader {
  constructor(
    private lines: Line[],
    private at = 0,
  ) {}

  done(): boolean {
    return this.at >= this.lines.length;
  }

  /** The block (mapping, sequence or scalar line) that starts at the current line, indented `indent`. */
  block(indent: number): Yaml {
    const line = this.lines[this.at]!;
    if (line.indent !== indent) throw new Error(`yaml line ${line.number}: expected indentation ${indent}, found ${line.indent}`);
    if (is_item(line)) return this.sequence(indent);
    if (entry(line.text) !== null) return this.mapping(indent);
    this.at++;
    return scalar(line.text, line.number);
  }

  /** The value after `key:` on a line indented `indent`: on the same line, or the block below. */
  private value(rest: string, indent: number, number: number): Yaml {
    if (rest !== "") return scalar(rest, number);
    const next = this.lines[this.at];
    if (next === undefined) return null;
    if (next.indent > indent) return this.block(next.indent);
    // A sequence may sit at the same indentation as its key.
    if (next.indent === indent && is_item(next)) return this.sequence(indent);
    return null;
  }

  private mapping(indent: number): Yaml {
    const map: { [key: string]: Yaml } = {};
    while (!this.done()) {
      const line = this.lines[this.at]!;
      if (line.indent < indent || (line.indent === indent && is_item(line))) break;
      if (line.indent > indent) throw new Error(`yaml line ${line.number}: unexpected indentation`);
      const found = entry(line.text);
      if (found === null) throw new Error(`yaml line ${line.number}: expected "key: value", found "${line.text}"`);
      if (Object.hasOwn(map, found.key)) throw new Error(`yaml line ${line.number}: the key ${found.key} is repeated`);
      this.at++;
      map[found.key] = this.value(found.rest, indent, line.number);
    }
    return map;
  }

  private sequence(indent: number): Yaml {
    const list: Yaml[] = [];
    while (!this.done()) {
      const line = this.lines[this.at]!;
      if (line.indent !== indent || !is_item(line)) break;
      const rest = line.text.slice(1).trimStart();
      if (rest === "") {
        this.at++;
        list.push(this.value("", indent, line.number));
        continue;
      }
      // "- key: value" opens a mapping whose keys line up after the dash.
      const inner = indent + (line.text.length - rest.length);
      this.lines[this.at] = { indent: inner, text: rest, number: line.number };
      list.push(this.block(inner));
    }
    return list;
  }
}

/** Every document of a YAML stream, in order (an empty document is left out). */
export function parse_yaml_documents(text: string): Yaml[] {
  const documents: Yaml[] = [];
  let first_line = 1;
  for (const part of text.split(/^---[ \t]*$/m)) {
    const lines = lines_of(part, first_line);
    first_line += part.split("\n").length - 1;
    if (lines.length === 0) continue;
    const reader = new Reader(lines);
    documents.push(reader.block(lines[0]!.indent));
    if (!reader.done()) throw new Error(`yaml: content after the document's end near line ${first_line}`);
  }
  return documents;
}

/** The one document of a YAML file. */
export function parse_yaml(text: string): Yaml {
  const documents = parse_yaml_documents(text);
  if (documents.length !== 1) throw new Error(`yaml: expected one document, found ${documents.length}`);
  return documents[0]!;
}
