/**
 * An MCP server's elicitation (`mcpServer/elicitation/request`), asked in the UI above the
 * composer. Form mode asks the requested schema's fields one at a time (the composer's text
 * answers; numbers, booleans and enum choices are checked and converted, a required field is
 * asked again until given); URL mode shows the address and Enter reports it done. Esc declines.
 */
import { visibleLine, visibleText } from "../common/terminal-text.js";
import type { Prompt } from "./questions.js";
import { type Style, wrapLine } from "./style.js";
import { type ElicitationParams, isRecord } from "./wire.js";

export interface ElicitationRequest {
  serverName: string;
  mode: "form" | "url";
  message: string;
  requestedSchema?: Record<string, unknown>;
  url?: string;
}

export type ElicitationResponse = {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
};

/** The request in one of its modes; null when malformed (a URL request without its URL). */
export function parseElicitation(params: ElicitationParams): ElicitationRequest | null {
  const { serverName, mode, message, requestedSchema, url } = params;
  if (typeof serverName !== "string" || typeof message !== "string") return null;
  if (mode === "url") return typeof url === "string" ? { serverName, mode, message, url } : null;
  if (mode !== "form") return null;
  return { serverName, mode, message, requestedSchema: isRecord(requestedSchema) ? requestedSchema : {} };
}

interface Field {
  name: string;
  title: string;
  type: "string" | "number" | "integer" | "boolean";
  description: string;
  required: boolean;
  choices: string[] | null;
}

/** The form's fields, from a flat object schema (MCP elicitation schemas have primitive fields). */
function fieldsOf(schema: Record<string, unknown> | undefined): Field[] {
  const properties = isRecord(schema?.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  return Object.entries(properties).flatMap(([name, property]) => {
    if (!isRecord(property)) return [];
    const type = String(property.type ?? "string");
    const oneOf = property.oneOf;
    const choices = Array.isArray(property.enum)
      ? property.enum.map(String)
      : Array.isArray(oneOf)
        ? oneOf.map((option: unknown) => String(isRecord(option) ? option.const : undefined))
        : null;
    const field: Field = {
      name,
      title: typeof property.title === "string" ? property.title : name,
      type: type === "number" || type === "integer" || type === "boolean" ? type : "string",
      description: typeof property.description === "string" ? property.description : "",
      required: required.has(name),
      choices,
    };
    return [field];
  });
}

export class ElicitationPrompt implements Prompt {
  private readonly fields: Field[];
  private index = 0;
  private problem = "";
  private readonly content: Record<string, unknown> = {};

  constructor(
    private readonly request: ElicitationRequest,
    private readonly resolve: (response: ElicitationResponse) => void,
  ) {
    this.fields = request.mode === "form" ? fieldsOf(request.requestedSchema) : [];
  }

  /** Takes the answer to the current field; true once the form is sent. */
  answer(text: string): boolean {
    const field = this.fields[this.index];
    if (field) {
      const value = this.convert(field, text.trim());
      if (value === undefined) return false;
      if (value !== null) this.content[field.name] = value;
      this.index++;
      this.problem = "";
      if (this.index < this.fields.length) return false;
    }
    this.resolve(
      this.request.mode === "form" ? { action: "accept", content: this.content } : { action: "accept" },
    );
    return true;
  }

  decline(): void {
    this.resolve({ action: "decline" });
  }

  /** The typed value for the field; null to leave an optional field out; undefined to ask again. */
  private convert(field: Field, text: string): unknown {
    if (text === "") {
      if (!field.required) return null;
      this.problem = `${field.title} is required`;
      return undefined;
    }
    if (field.choices) {
      const picked = /^\d+$/.test(text) ? field.choices[Number(text) - 1] : undefined;
      const choice = picked ?? field.choices.find((option) => option === text);
      if (choice !== undefined) return choice;
      this.problem = `pick one of: ${field.choices.join(", ")}`;
      return undefined;
    }
    if (field.type === "boolean") {
      if (/^(y|yes|true)$/i.test(text)) return true;
      if (/^(n|no|false)$/i.test(text)) return false;
      this.problem = "answer y or n";
      return undefined;
    }
    if (field.type === "number" || field.type === "integer") {
      const number = Number(text);
      if (Number.isFinite(number) && (field.type === "number" || Number.isInteger(number))) return number;
      this.problem = `${field.title} must be ${field.type === "integer" ? "a whole number" : "a number"}`;
      return undefined;
    }
    return text;
  }

  rows(style: Style, width: number): string[] {
    // The MCP server wrote all of it: shown visibly (a URL's escapes too, so it reads as sent).
    const { serverName, message, url } = this.request;
    const lines = [
      style.bold(style.yellow(`${visibleLine(serverName)} asks`)),
      ...visibleText(message).split("\n"),
    ];
    const field = this.fields[this.index];
    if (this.request.mode === "url") {
      lines.push(`Open ${style.cyan(visibleLine(url ?? "?"))}`);
      lines.push(style.dim("Enter when done · Esc declines"));
    } else if (field) {
      const kind = field.choices ? "choice" : field.type;
      const position = `${this.index + 1}/${this.fields.length}`;
      lines.push(
        `${style.bold(visibleLine(field.title))} ${style.dim(`(${kind}${field.required ? ", required" : ""}, ${position})`)}${field.description ? ` ${visibleLine(field.description)}` : ""}`,
      );
      field.choices?.forEach((choice, i) => {
        lines.push(`  ${style.bold(String(i + 1))}. ${visibleLine(choice)}`);
      });
      if (this.problem) lines.push(style.red(visibleLine(this.problem)));
      lines.push(style.dim("type the value and press Enter · Esc declines"));
    } else lines.push(style.dim("Enter accepts · Esc declines"));
    return lines.flatMap((line) => wrapLine(line, width));
  }
}
