import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { evaluateArithmetic } from "./calculator.js";

/** Deterministic weather lookup: the same city always gets the same made-up report. */
export const getWeather = tool(
  ({ city }) => {
    const conditions = ["sunny", "cloudy", "rainy", "windy", "foggy"];
    let hash = 0;
    for (const ch of city.toLowerCase()) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
    const temperature = 5 + (hash % 25);
    return `It is ${conditions[hash % conditions.length]} and ${temperature}°C in ${city}.`;
  },
  {
    name: "get_weather",
    description: "Get the current weather for a city.",
    schema: z.object({ city: z.string().describe("The city name, for example Paris") }),
  },
);

/** Evaluates an arithmetic expression without `eval`. */
export const calculator = tool(({ expression }) => String(evaluateArithmetic(expression)), {
  name: "calculator",
  description: "Evaluate an arithmetic expression with + - * / and parentheses.",
  schema: z.object({ expression: z.string().describe("For example (2 + 3) * 4") }),
});

/** Counts the words and characters of a text. */
export const wordCount = tool(
  ({ text }) => {
    const words = text.trim() === "" ? 0 : text.trim().split(/\s+/).length;
    return `The text has ${words} words and ${text.length} characters.`;
  },
  {
    name: "word_count",
    description: "Count the words and characters of a text.",
    schema: z.object({ text: z.string() }),
  },
);

export const tools = [getWeather, calculator, wordCount];
