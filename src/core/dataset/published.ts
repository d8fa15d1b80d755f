import type { Domain } from '../domains.js';

/** The judge behind every published number; scores from another judge are not on the same scale. */
export const PUBLISHED_JUDGE = 'gpt-5.2-2025-12-11';
export const PUBLISHED_SOURCE = 'AgentWorldBench leaderboard, official README (QwenLM/Qwen-AgentWorld)';

export interface PublishedRow {
  model: string;
  /** Normalized 0-100 per domain, as printed (two decimals). */
  scores: Record<Domain, number>;
  /** The leaderboard's Overall: the mean of the seven domain scores (macro). */
  overall: number;
}

// Columns as published: MCP, Search, Term., SWE, Android, Web, OS, Overall.
// Kept verbatim, including one inconsistency: the 397B-A17B row's domains
// average to 58.76 while its Overall reads 58.71.
const TABLE: Array<[string, ...number[]]> = [
  ['GPT-5.4', 70.1, 37.26, 53.69, 66.29, 60.0, 51.8, 68.58, 58.25],
  ['Claude Opus 4.8', 54.93, 35.14, 59.18, 64.1, 61.5, 54.66, 66.62, 56.59],
  ['Claude Opus 4.6', 69.9, 29.3, 57.51, 64.55, 61.74, 51.42, 70.2, 57.8],
  ['Gemini 3.1 Pro', 59.07, 30.21, 52.47, 59.07, 61.4, 52.83, 66.92, 54.57],
  ['Claude Sonnet 4.6', 70.0, 28.79, 56.98, 64.52, 58.03, 50.78, 63.17, 56.04],
  ['DeepSeek-V4-Pro', 63.27, 27.61, 51.26, 59.44, 55.17, 50.32, 63.7, 52.97],
  ['GLM-5.1', 67.6, 22.46, 47.32, 52.07, 59.1, 51.5, 59.13, 51.31],
  ['Kimi K2.6', 65.23, 27.48, 52.54, 58.77, 58.93, 50.2, 60.8, 53.42],
  ['MiniMax-M2.7', 55.82, 27.3, 41.62, 37.44, 52.4, 50.52, 57.73, 46.12],
  ['Qwen3.5-35B-A3B', 57.87, 25.98, 46.13, 47.58, 53.18, 47.1, 56.27, 47.73],
  ['Qwen3.5-397B-A17B', 68.31, 30.81, 55.3, 64.44, 54.9, 48.55, 60.85, 54.74],
  ['Qwen3.6-Plus', 55.28, 21.94, 50.58, 59.08, 57.65, 50.78, 60.33, 50.81],
  ['Qwen-AgentWorld-35B-A3B', 64.79, 36.69, 53.96, 65.63, 58.17, 49.55, 65.92, 56.39],
  ['Qwen-AgentWorld-397B-A17B', 68.24, 37.82, 57.73, 68.49, 60.2, 50.98, 67.89, 58.71],
];

export const PUBLISHED: readonly PublishedRow[] = TABLE.map(([model, mcp, search, terminal, swe, android, web, os, overall]) => ({
  model,
  scores: { mcp: mcp!, search: search!, terminal: terminal!, swe: swe!, android: android!, web: web!, os: os! },
  overall: overall!,
}));
