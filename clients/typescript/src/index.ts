/**
 * svc's TypeScript client: the types generated from svc's OpenAPI document
 * (`schema.d.ts`, by openapi-typescript; do not edit it) over openapi-fetch,
 * and a thin hand-written layer for what a generator does badly: a client
 * from `SVC_BASE_URL` and the `svc_` API key in `SVC_API_KEY`, triggering a run
 * and waiting for its end, iterating over every page of a list.
 *
 * ```ts
 * import { fromEnv, triggerAndWait, pages } from "svc-client";
 * const svc = fromEnv();
 * for await (const scrap of pages((query) => svc.GET("/api/scraps", { params: { query } }))) {
 *   const row = await triggerAndWait(svc, scrap.id, { timeoutMs: 120_000 });
 *   console.log(scrap.title, row.statusDetail, row.length);
 * }
 * ```
 */
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, paths };
export type Schemas = components["schemas"];
export type HistoryRow = Schemas["HistoryRowView"];
export type ErrorBody = Schemas["ErrorBody"];
/** An openapi-fetch client typed by svc's document: `svc.GET("/api/scraps", ...)`. */
export type SvcClient = Client<paths>;

/** Where `fromEnv` points without `SVC_BASE_URL`: a local `svc server`. */
export const DEFAULT_URL = "http://127.0.0.1:8080";
/** The longest `wait` the trigger route takes, in seconds. */
export const MAX_SERVER_WAIT = 120;

/** An error answer of svc: its HTTP status and, from the error body, `code` and `message`. */
export class SvcError extends Error {
  readonly code: string | undefined;
  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
  ) {
    super(`HTTP ${status} ${body?.code}: ${body?.message}`);
    this.name = "SvcError";
    this.code = body?.code;
  }
}

/** The data of an openapi-fetch answer (`undefined` for 204); throws `SvcError` for an error answer. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.error !== undefined || !answer.response.ok) {
    throw new SvcError(answer.response.status, answer.error as ErrorBody | undefined);
  }
  return answer.data as T;
}

/** A client for `baseUrl` that sends `apiKey` (an `svc_` key, or a session token) as its bearer. */
export function createSvcClient(options: { baseUrl: string; apiKey: string; fetch?: typeof fetch }): SvcClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: options.fetch,
  });
}

/** A client for `SVC_BASE_URL` (default `DEFAULT_URL`) with the API key in `SVC_API_KEY`. */
export function fromEnv(env: Record<string, string | undefined> = process.env): SvcClient {
  const apiKey = env.SVC_API_KEY;
  if (!apiKey) {
    throw new Error("SVC_API_KEY is not set: an svc API key (svc_ and 40 characters)");
  }
  return createSvcClient({ baseUrl: env.SVC_BASE_URL || DEFAULT_URL, apiKey });
}

export interface WaitOptions {
  /** How long to wait for the run's end in all, in milliseconds (default 120 000). */
  timeoutMs?: number;
  /** Between two looks at a run still going, in milliseconds (default 1 000). */
  pollMs?: number;
  /** The most seconds the trigger request waits on the server (default and at most 120). */
  maxServerWait?: number;
}

/**
 * Triggers a run of the scrap and resolves to its history row once the run
 * has ended. The trigger waits on the server first (`wait`); a run still
 * going then is polled until `timeoutMs`, after which it rejects (the run
 * goes on). Needs the scopes `svc:scraps:run` and `svc:history:read`.
 */
export async function triggerAndWait(svc: SvcClient, scrapId: string, options: WaitOptions = {}): Promise<HistoryRow> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  const wait = Math.max(0, Math.min(Math.floor(timeoutMs / 1000), options.maxServerWait ?? MAX_SERVER_WAIT, MAX_SERVER_WAIT));
  const answer = await svc.POST("/api/scraps/worker/{id}", { params: { path: { id: scrapId }, query: { wait } } });
  const body = ok(answer);
  if (answer.response.status === 200) {
    return body as HistoryRow;
  }
  const historyId = (body as Schemas["TriggerAccepted"]).historyId;
  for (;;) {
    const row = ok(await svc.GET("/api/historys/{id}", { params: { path: { id: historyId } } }));
    if (row.finishedAt != null) {
      return row;
    }
    if (Date.now() >= deadline) {
      throw new Error(`run ${historyId} had not ended after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1000));
  }
}

/** One page of a list: svc's list answer. */
export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  perPage: number;
}

/**
 * Every item of a paged list, page after page. `fetchPage` asks for one page
 * with the generated client, e.g.
 * `(query) => svc.GET("/api/historys", { params: { query: { ...query, scrap } } })`.
 */
export async function* pages<T>(
  fetchPage: (query: { page: number; perPage: number }) => Promise<{ data?: Page<T>; error?: unknown; response: Response }>,
  perPage = 100,
): AsyncGenerator<T> {
  let seen = 0;
  for (let page = 1; ; page++) {
    const body = ok(await fetchPage({ page, perPage }));
    yield* body.data;
    seen += body.data.length;
    if (body.data.length === 0 || seen >= body.total) {
      return;
    }
  }
}
