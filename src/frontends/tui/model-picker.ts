/**
 * `/model`, as Codex's: a picker of the server's models (`model/list`), then, for a model that
 * offers more than one reasoning effort, a second picker of its efforts with its default marked.
 * Esc on the second step goes back to the models (as they were left); Esc on the first changes
 * nothing. The choice rides on the next turn/start (`model`, `effort`).
 */
import { Picker, type PickerItem } from "./picker.js";
import { METHOD_NOT_FOUND, RpcCallError } from "./rpc-client.js";
import type { Transcript } from "./transcript.js";
import { isRecord } from "./wire.js";

/** What /model needs of the app (slash-commands.ts's host has it all). */
export interface ModelPickerHost {
  readonly transcript: Transcript;
  thread: { model: string; effort: string | null } | null;
  readonly options: { settings: { model?: string | undefined; effort?: string | undefined } };
  rpc(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  openPicker(picker: Picker): void;
}

/** One `model/list` entry, the fields used here. */
interface ListedModel {
  model: string;
  description: string;
  efforts: { effort: string; description: string }[];
  defaultEffort: string | null;
}

/** Codex's names for the efforts; an effort it does not name shows as sent. */
const EFFORT_LABELS: Record<string, string> = {
  none: "None",
  minimal: "Minimal",
  low: "Low",
  medium: "Medium",
  high: "High",
  xhigh: "Extra high",
};

/**
 * Sets the model (and the effort: `undefined` leaves it as it was, `null` drops it for the
 * server's default) for the following turns; the status line shows them at once.
 */
export function setModel(app: ModelPickerHost, model: string, effort?: string | null): void {
  if (!app.thread) return;
  app.options.settings.model = model;
  app.thread.model = model;
  if (effort !== undefined) {
    app.options.settings.effort = effort ?? undefined;
    app.thread.effort = effort;
  }
  const suffix = effort ? ` with ${effort} reasoning effort` : "";
  app.transcript.notice(`model set to ${model}${suffix} (from the next turn)`);
}

/** The server's models in a picker; a server without model/list: `/model NAME`. */
export async function openModelPicker(app: ModelPickerHost): Promise<void> {
  const current = app.thread?.model;
  let listed: Record<string, unknown>;
  try {
    listed = await app.rpc("model/list", { limit: 100 });
  } catch (error) {
    if (!(error instanceof RpcCallError && error.code === METHOD_NOT_FOUND)) throw error;
    app.transcript.notice(`model ${current ?? "?"}\nthis server does not list its models: /model NAME`);
    return;
  }
  const models = parseModels(listed.data);
  if (models.length === 0) {
    app.transcript.notice(`model ${current ?? "?"}\nthe server lists no models: /model NAME`);
    return;
  }
  const items: PickerItem[] = models.map((entry) => ({
    label: entry.model,
    // tscodex's descriptions start with the model's name: no need to say it twice.
    detail: entry.description.startsWith(`${entry.model}: `)
      ? entry.description.slice(entry.model.length + 2)
      : entry.description,
    value: entry.model,
    current: entry.model === current,
  }));
  const byName = new Map(models.map((entry) => [entry.model, entry]));
  const modelPicker: Picker = new Picker("Select Model and Effort", items, (name) => {
    const chosen = byName.get(name);
    if (!chosen || chosen.efforts.length <= 1) {
      // Nothing to choose: the model's one effort, or none for a model that does not reason.
      setModel(app, name, chosen?.efforts[0]?.effort ?? null);
      return;
    }
    app.openPicker(effortPicker(app, chosen, () => app.openPicker(modelPicker)));
  });
  app.openPicker(modelPicker);
}

/** The second step: `model`'s efforts, its default marked; `back` (Esc) returns to the models. */
function effortPicker(app: ModelPickerHost, model: ListedModel, back: () => void): Picker {
  const thread = app.thread;
  // The thread's effort is current only on its own model; null there means the model's default.
  const currentEffort =
    thread && thread.model === model.model ? (thread.effort ?? model.defaultEffort) : undefined;
  const items: PickerItem[] = model.efforts.map(({ effort, description }) => ({
    label: `${EFFORT_LABELS[effort] ?? effort}${effort === model.defaultEffort ? " (default)" : ""}`,
    detail: description,
    value: effort,
    current: effort === currentEffort,
    preferred: effort === model.defaultEffort,
  }));
  return new Picker(
    `Select Reasoning Level for ${model.model}`,
    items,
    (effort) => setModel(app, model.model, effort),
    back,
    "back",
  );
}

/** model/list's `data`, entries without a model name left out. */
function parseModels(data: unknown): ListedModel[] {
  if (!Array.isArray(data)) return [];
  return data.flatMap((raw: unknown) => {
    if (!isRecord(raw) || typeof raw.model !== "string") return [];
    const efforts = Array.isArray(raw.supportedReasoningEfforts)
      ? raw.supportedReasoningEfforts.flatMap((option: unknown) =>
          isRecord(option) && typeof option.reasoningEffort === "string"
            ? [
                {
                  effort: option.reasoningEffort,
                  description: typeof option.description === "string" ? option.description : "",
                },
              ]
            : [],
        )
      : [];
    return [
      {
        model: raw.model,
        description: typeof raw.description === "string" ? raw.description : "",
        efforts,
        defaultEffort: typeof raw.defaultReasoningEffort === "string" ? raw.defaultReasoningEffort : null,
      },
    ];
  });
}
