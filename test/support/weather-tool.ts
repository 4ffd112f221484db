/** The client tool the proxy tests hand to the model: the client runs it, not the proxy. */
export const WEATHER = {
  type: "function" as const,
  name: "get_weather",
  description: "Current weather in a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};
