/** What can go wrong in endpoints/ that the user can fix, as data; worded in src/commands/words/stage/endpoints.ts. */
export type EndpointFault =
  /**
   * A request that counts more than the endpoint's whole tokens limit (rate-limit.ts, neverFits): no wait makes room for it.
   * `promptFits`: the prompt with a usual completion would fit, so what the server adds for max_tokens pushes it over.
   */
  { kind: 'request-over-token-limit'; endpoint: string; tokens: number; limit: number; promptTokens: number; promptFits: boolean };
