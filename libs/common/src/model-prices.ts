import { z } from 'zod';

/** USD per million tokens of one model; cache prices default to the input price when not given. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export type ModelPrices = Record<string, ModelPrice>;

const perMillion = z.number().finite().min(0).max(100_000);
const priceSchema = z.strictObject({
  input: perMillion,
  output: perMillion,
  cacheRead: perMillion.optional(),
  cacheWrite: perMillion.optional(),
});
const modelName = z.string().min(1).max(200);

/** Built in so the default model is priced out of the box (list prices, USD per million tokens); MODEL_PRICES wins. */
export const DEFAULT_MODEL_PRICES: ModelPrices = {
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  // The offline summarizer runs in-process: its calls are counted, at no cost.
  local: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

/**
 * MODEL_PRICES: a JSON object from model name to `{input, output, cacheRead?, cacheWrite?}` in USD per million tokens,
 * e.g. `{"llama3.2":{"input":0,"output":0},"gpt-4o-mini":{"input":0.15,"output":0.6,"cacheRead":0.075}}`.
 * Throws an Error saying what is wrong; merged over DEFAULT_MODEL_PRICES.
 */
export function parseModelPrices(text: string | undefined): ModelPrices {
  if (text === undefined || text.trim() === '') return { ...DEFAULT_MODEL_PRICES };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('must be a JSON object: {"<model>":{"input":<USD per 1M tokens>,"output":<USD per 1M tokens>}}');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error('must be a JSON object keyed by model name');
  const out: ModelPrices = { ...DEFAULT_MODEL_PRICES };
  for (const [model, value] of Object.entries(json)) {
    if (!modelName.safeParse(model).success) throw new Error('model names must be 1–200 characters');
    const parsed = priceSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue.path.length ? `.${issue.path.join('.')}` : '';
      throw new Error(
        `${JSON.stringify(model)}${where}: ${issue.message} ` +
          '(prices are USD per million tokens: input, output, cacheRead?, cacheWrite?)',
      );
    }
    const p = parsed.data;
    out[model] = {
      input: p.input,
      output: p.output,
      cacheRead: p.cacheRead ?? p.input,
      cacheWrite: p.cacheWrite ?? p.input,
    };
  }
  return out;
}
