/**
 * Request bodies of /v1/responses and /v1/chat/completions: a parse boundary, checked with zod.
 * Loose objects: fields we do not use (temperature, user, reasoning, …) are accepted and ignored.
 */
import { z } from "zod";

const jsonSchema = z.record(z.string(), z.unknown());
const toolName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[a-zA-Z0-9_-]+$/, "tool names take letters, digits, `_` and `-` only");

// --- Responses ---------------------------------------------------------------------------

const responsesPart = z.union([
  z.looseObject({ type: z.enum(["input_text", "output_text", "text"]), text: z.string() }),
  z.looseObject({
    type: z.literal("input_image"),
    image_url: z.union([z.string(), z.looseObject({ url: z.string() })]),
  }),
  z.looseObject({ type: z.literal("refusal"), refusal: z.string() }),
]);

const responsesMessage = z.looseObject({
  type: z.literal("message").optional(),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: z.union([z.string(), z.array(responsesPart)]),
});

const responsesInputItem = z.union([
  responsesMessage,
  z.looseObject({
    type: z.literal("function_call"),
    call_id: z.string().min(1),
    name: z.string().min(1),
    arguments: z.string(),
  }),
  z.looseObject({
    type: z.literal("function_call_output"),
    call_id: z.string().min(1),
    output: z.union([z.string(), z.array(responsesPart)]),
  }),
  // Reasoning items a client echoes back carry nothing the thread needs.
  z.looseObject({ type: z.literal("reasoning") }),
]);

const responsesTool = z.looseObject({
  type: z.literal("function"),
  name: toolName,
  description: z.string().nullish(),
  parameters: jsonSchema.nullish(),
  strict: z.boolean().nullish(),
});

const toolChoice = z.union([
  z.enum(["auto", "none", "required"]),
  z.looseObject({ type: z.literal("function"), name: z.string().optional() }),
  z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) }),
]);

const textFormat = z.union([
  z.looseObject({ type: z.literal("text") }),
  z.looseObject({ type: z.literal("json_object") }),
  z.looseObject({
    type: z.literal("json_schema"),
    name: z.string().optional(),
    schema: jsonSchema,
    strict: z.boolean().nullish(),
  }),
]);

export const responsesRequestSchema = z.looseObject({
  model: z.string().optional(),
  input: z.union([z.string(), z.array(responsesInputItem)]),
  instructions: z.string().nullish(),
  tools: z.array(responsesTool).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  previous_response_id: z.string().min(1).nullish(),
  store: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  background: z.boolean().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  text: z.looseObject({ format: textFormat.optional() }).nullish(),
});

export type ResponsesRequest = z.output<typeof responsesRequestSchema>;
export type ResponsesPart = z.output<typeof responsesPart>;

// --- Chat completions --------------------------------------------------------------------

const chatPart = z.union([
  z.looseObject({ type: z.literal("text"), text: z.string() }),
  z.looseObject({ type: z.literal("image_url"), image_url: z.looseObject({ url: z.string() }) }),
]);
const chatContent = z.union([z.string(), z.array(chatPart)]);

const chatToolCall = z.looseObject({
  id: z.string().min(1),
  type: z.literal("function").optional(),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});

const chatMessage = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("system"), content: chatContent }),
  z.looseObject({ role: z.literal("developer"), content: chatContent }),
  z.looseObject({ role: z.literal("user"), content: chatContent }),
  z.looseObject({
    role: z.literal("assistant"),
    content: chatContent.nullish(),
    tool_calls: z.array(chatToolCall).nullish(),
  }),
  z.looseObject({ role: z.literal("tool"), tool_call_id: z.string().min(1), content: chatContent }),
]);

const chatTool = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: toolName,
    description: z.string().nullish(),
    parameters: jsonSchema.nullish(),
  }),
});

export const chatRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(chatMessage).min(1, "messages must not be empty"),
  tools: z.array(chatTool).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  response_format: z
    .union([
      z.looseObject({ type: z.literal("text") }),
      z.looseObject({ type: z.literal("json_object") }),
      z.looseObject({
        type: z.literal("json_schema"),
        json_schema: z.looseObject({ name: z.string().optional(), schema: jsonSchema }),
      }),
    ])
    .nullish(),
});

export type ChatRequest = z.output<typeof chatRequestSchema>;
export type ChatPart = z.output<typeof chatPart>;
