import OpenAI from 'openai';

/**
 * The openai client, reading a refusal's body as OpenAI-compatible servers write it. The client
 * takes the reason only from `{"error": …}`; SGLang and older vLLM answer `{"object": "error",
 * "message": …}` and FastAPI servers `{"detail": …}`, which it reported as "400 status code (no
 * body)". A JSON body without `error` is read as the error itself.
 */
export class Client extends OpenAI {
  protected override makeStatusError(status: number, error: object, message: string | undefined, headers: Headers) {
    const body = typeof error === 'object' && error !== null && !('error' in error) ? { error } : error;
    return super.makeStatusError(status, body, message, headers);
  }
}
