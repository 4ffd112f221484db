/**
 * Terminal colours, off when `NO_COLOR` is set (any value) or the terminal is dumb. Every
 * styled string goes through one Style so a colourless UI has no SGR code at all.
 */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  italic(text: string): string;
  inverse(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const plain = (text: string) => text;

export function colourWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined) return false;
  return env.TERM !== "dumb";
}

export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    return {
      enabled,
      bold: plain,
      dim: plain,
      italic: plain,
      inverse: plain,
      red: plain,
      green: plain,
      yellow: plain,
      cyan: plain,
      magenta: plain,
    };
  }
  return {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    italic: sgr(3, 23),
    inverse: sgr(7, 27),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
    magenta: sgr(35, 39),
  };
}

const ANSI = new RegExp(`${"\u001b"}\\[[0-9;?]*[A-Za-z]`, "g");
const LEADING_ANSI = new RegExp(`^${"\u001b"}\\[[0-9;?]*[A-Za-z]`);

/** The columns a string takes once its escape codes are removed. */
export function visibleWidth(text: string): number {
  return text.includes("\x1b") ? text.replace(ANSI, "").length : text.length;
}

/**
 * Breaks one styled line into rows of at most `width` columns. Escape codes do not count, and
 * the style active at a break is reopened on the next row, so colours survive wrapping.
 */
export function wrapLine(line: string, width: number): string[] {
  if (width < 1) return [line];
  if (visibleWidth(line) <= width) return [line];
  const rows: string[] = [];
  let row = "";
  let columns = 0;
  let active = "";
  for (let i = 0; i < line.length; ) {
    if (line[i] === "\x1b") {
      const match = LEADING_ANSI.exec(line.slice(i, i + 16));
      if (match) {
        row += match[0];
        active = match[0] === "\x1b[0m" || /\[(22|23|27|39)m$/.test(match[0]) ? "" : active + match[0];
        i += match[0].length;
        continue;
      }
    }
    if (columns === width) {
      rows.push(active ? `${row}\x1b[0m` : row);
      row = active;
      columns = 0;
    }
    row += line[i];
    columns++;
    i++;
  }
  rows.push(row);
  return rows;
}
