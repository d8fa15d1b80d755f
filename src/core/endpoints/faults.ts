/** What can go wrong in endpoints/ that the user can fix, as data; worded in src/commands/words/stage/endpoints.ts. */

/** Whose endpoint it is: the world model's (infer), the judge's, the Batch API's route (--batch), or one `awb models` lists. */
export type EndpointRole = 'world model' | 'judge' | 'batch' | 'models';

/** Where the API key came from, for the words of a rejected key: `option` is the option that gives one. */
export type KeySource = { option: string } & (
  | { from: 'option' }
  | { from: 'env'; variable: string }
  /** No key: `emptyOption` when the option was given empty, `emptyVariables` the variables set but empty. */
  | { from: 'none'; variables: readonly string[]; emptyOption?: true; emptyVariables: readonly string[] }
);

/** The settings sent with every request, for the words of a refusal they cause (settings-refused). */
export interface SentSettings {
  maxTokens?: number;
  extraBody?: Record<string, unknown>;
}

/**
 * A setting refused as such: a token budget's name the server does not take (awb sends the budget under both), or a
 * temperature other than the only one the model takes (`only`: that one, when the server says it).
 */
export type RefusedSetting = { name: 'max_tokens' | 'max_completion_tokens' } | { name: 'temperature'; only?: number };

/**
 * A request over the model's context because of its completion budget, as the server's refusal gives the numbers: the
 * context (`context`), the prompt's tokens when it says them exactly, and the budget it read (`budget`) when it says it.
 */
export interface BudgetOverContext {
  context: number;
  prompt?: number;
  budget?: number;
}

/** An endpoint as faults name it: whose it is and its URL as shown (no credentials). */
interface At {
  role: EndpointRole;
  endpoint: string;
}

export type EndpointFault =
  /**
   * A request that counts more than the endpoint's whole tokens limit (rate-limit.ts, neverFits): no wait makes room for it.
   * `promptFits`: the prompt with a usual completion would fit, so what the server adds for max_tokens pushes it over.
   */
  | { kind: 'request-over-token-limit'; endpoint: string; tokens: number; limit: number; promptTokens: number; promptFits: boolean }
  /** 401. `key`: undefined where the command gave no source (the Batch API's route). */
  | (At & { kind: 'key-rejected'; key?: KeySource })
  /** 403, with the server's reason. */
  | (At & { kind: 'access-refused'; said: string })
  /** OpenAI's 429 insufficient_quota: no wait ends it. */
  | (At & { kind: 'no-quota'; said: string })
  /** A chat request answered 404 (or 400 naming the model). `served`: the models the endpoint lists, when it answered. */
  | (At & { kind: 'unknown-model'; model: string; status: number; said: string; served?: readonly string[] })
  /** The preflight's models list does not have the model, and a one-token request for it was not answered (`said`: its refusal). */
  | (At & { kind: 'model-not-served'; model: string; served: readonly string[]; said?: string })
  /** The models check answered with a page that is not JSON. */
  | (At & { kind: 'models-not-json'; said: string })
  /** The models list has no route (404, 405): the preflight passes it, `awb models` has nothing to show. */
  | (At & { kind: 'models-route-missing'; status: number })
  /** The models check failed otherwise (`status`: the HTTP status, when one came). */
  | (At & { kind: 'models-check-failed'; said: string; status?: number })
  /** The preflight could not connect. `code`: the system error (ECONNREFUSED, EPROTO, …). */
  | (At & { kind: 'endpoint-unreachable'; code?: string })
  /** The preflight's connection was taken but the models check never answered (tried twice). */
  | (At & { kind: 'endpoint-silent'; seconds: number })
  /** Every endpoint (`several`) kept failing to connect during the run. */
  | (At & { kind: 'endpoints-dead'; several: boolean; causes: readonly string[]; seconds: number })
  /** The same refusal for request after request and nothing answered: the settings, not the rows. */
  | (At & { kind: 'settings-refused'; count: number; reason: string; sent: SentSettings; setting?: RefusedSetting })
  /**
   * The same refusal for request after request, nothing answered, each a prompt that fits the model's context pushed over it by
   * the completion budget (--max-tokens): the numbers of the last one (`over`) and the budget sent.
   */
  | (At & { kind: 'budget-over-context'; count: number; reason: string; over: BudgetOverContext; sent: SentSettings })
  /** The same server failure (5xx) or hang-up for request after request and nothing answered. */
  | (At & { kind: 'failures-repeated'; count: number; reason: string; failure: 'status' | 'connection'; stream: boolean })
  /** The Batch API's route cannot be reached, or is not offered (404/405), or failed. */
  | { kind: 'batch-unreachable'; endpoint: string; said: string }
  | { kind: 'batch-unsupported'; endpoint: string; status: number; said: string }
  | { kind: 'batch-failed'; endpoint: string; said: string }
  /** The batch state beside the output records batches for another model or endpoint. */
  | {
      kind: 'batch-state-elsewhere';
      path: string;
      recorded: { model: string; endpoint: string };
      given: { model: string; endpoint: string };
    }
  /** The batch state records batches whose requests were made with other settings. */
  | { kind: 'batch-settings-changed'; path: string; differences: readonly string[] }
  /** One request is larger than a batch file may be. `what`: the row it is for. */
  | { kind: 'batch-request-too-large'; what: string; bytes: number; limit: number }
  /** A batch failed as a whole: none of its requests ran. */
  | { kind: 'batch-failed-whole'; id: string; lines: number; why: string; file: string }
  /** The Batch API does not know a batch the state records (404). */
  | { kind: 'batch-not-found'; endpoint: string; id: string; path: string }
  /** A downloaded results file without one readable line. `problem`: undefined when the line is no JSON object. */
  | { kind: 'batch-results-unreadable'; path: string; line: number; field?: string; problem?: string };

/** A request no wait lets through an endpoint's tokens limit. */
export type OverTokenLimit = Extract<EndpointFault, { kind: 'request-over-token-limit' }>;

/** A preflight that set an endpoint aside rather than stopping the run: why, and how many endpoints are left. */
export interface SetAside {
  fault: Extract<EndpointFault, { kind: 'endpoint-unreachable' | 'endpoint-silent' }>;
  left: number;
}

/** What endpoints tell without stopping anything, as data; worded in src/commands/words/stage/endpoints.ts (ENDPOINT_NOTICES). */
export type EndpointNotice =
  | ({ kind: 'endpoint-set-aside' } & SetAside)
  /** The models list leaves the model out, yet a one-token request for it was answered: the run goes on with it. */
  | (At & { kind: 'model-unlisted'; model: string; listed: readonly string[] })
  /** Whole (unstreamed) replies given up on under way, at Ctrl-C: a server that notices no closed connection goes on generating them. */
  | { kind: 'replies-abandoned'; role: EndpointRole; count: number }
  /** Replies that were no chat completion (cut JSON or stream, a proxy's page in a 200, a generation the server aborted): asked again. */
  | { kind: 'malformed-replies-retried'; role: EndpointRole; count: number }
  /** Streamed answers kept after their stream stalled or broke past the finish reason, before the usage chunk: no token usage. */
  | { kind: 'usage-lost'; count: number }
  /** --batch: requests no batch's results held (rows changed since, or left out, or unreadable), asked online at the online price. */
  | { kind: 'asked-online'; count: number }
  /** `awb models`: the list is empty. */
  | (At & { kind: 'no-models-listed' })
  /** `awb models`: names the endpoint lists but refuses (a server pinned to one model); `said`: a refusal's reason. */
  | (At & { kind: 'listed-names-refused'; refused: readonly string[]; listed: number; said: string });
