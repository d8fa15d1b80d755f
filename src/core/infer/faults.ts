/** What can go wrong in infer/ that the user can fix, as data; worded in src/commands/words/infer.ts. */
export type InferFault = never;
