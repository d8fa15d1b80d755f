import type { ClientOptions } from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { DeadPolicy, HealthPolicy } from './health.js';
import type { EndpointRole, KeySource, SentSettings } from './faults.js';
import type { JoinedText } from './http/json-bytes.js';

export interface PoolOptions {
  /** Base URLs, e.g. http://host:8000/v1; requests go to the one with the fewest in flight. */
  urls: string[];
  apiKey: string;
  model: string;
  /** Per HTTP attempt, the whole reply included. */
  timeoutMs: number;
  /** Retries per request (429 with Retry-After, 5xx, resets, timeouts), on any endpoint. */
  maxRetries: number;
  /** A reply larger than this is a failed attempt. */
  maxReplyBytes: number;
  /** A reply that sends nothing for this long once it has started is a failed attempt. */
  idleMs?: number;
  /** Ask for server-sent events; `idleMs` is then the longest silence allowed between chunks. */
  stream?: boolean;
  health?: HealthPolicy;
  /** When the run stops because no endpoint can be reached. */
  dead?: DeadPolicy;
  /** Whose endpoints these are, for the faults. */
  role: EndpointRole;
  /** Where the key came from, for a rejected key's fault. */
  key?: KeySource;
  /** The settings every request carries, for the fault of a refusal they cause. */
  sent?: SentSettings;
  /** Pace each endpoint to the rate limits its replies state (limiter.ts), `concurrency` (-c) its most attempts at once; undefined: no pacing. */
  pacing?: { concurrency: number };
}

/** A message as awb sends it: a role and plain text, whole or in pieces sent as one string. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | JoinedText;
}

/**
 * The request body of one chat completion, without the model (the pool's),
 * its messages plain text. Extra fields (e.g. from --extra-body) pass through.
 */
export type ChatRequest = Omit<ChatCompletionCreateParamsNonStreaming, 'model' | 'messages'> & { messages: ChatMessage[] } & Record<
    string,
    unknown
  >;

/**
 * A chat request as the pool sends it (its model and, with --stream, the stream fields added),
 * encoded once by EndpointPool.encode: a row in flight holds these bytes, which every attempt
 * sends again, rather than the texts they were built from.
 */
export interface ChatBody {
  readonly json: Uint8Array;
}

export interface ChatResult {
  completion: ChatCompletion;
  endpoint: string;
  latencyMs: number;
  /** Streamed requests: time to the first content or reasoning token. */
  ttftMs?: number;
  /** Streamed requests: completion tokens per second after the first token. */
  decodeTokensPerS?: number;
  /** Answered by the Batch API (--batch), billed at its discount; latency is then 0: a batch has none per request. */
  batch?: true;
}

/** How a client reaches an endpoint: its base URL, the URL's query (a key, on some gateways) and the key. */
export type Connection = Pick<ClientOptions, 'baseURL' | 'defaultQuery' | 'apiKey'>;

/** Where --batch goes (EndpointPool.batchTarget): the first base URL, as the pool reaches it and as shown, and the model. */
export interface BatchTarget {
  connection: Connection;
  /** As shown (no credentials): recorded in the batch state and in rows as their endpoint. */
  endpoint: string;
  model: string;
}

export interface EndpointStats {
  requests: number;
  failures: number;
}
