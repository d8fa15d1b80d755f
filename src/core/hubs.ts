/** The hubs the dataset comes from (`--source`): a module of its own, so `--help` loads no dataset code. */
export const HUB_SOURCES = ['huggingface', 'modelscope'] as const;
export type HubKind = (typeof HUB_SOURCES)[number];
