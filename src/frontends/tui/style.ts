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

export { visibleWidth, wrapLine } from "./wrap.js";
