/** What can go wrong in endpoints/ that the user can fix, as data; worded in src/commands/words/endpoints.ts. */
export type EndpointFault = never;
