// The TypeScript client against a running svc server. Run by the api
// suite's `clients::the_typescript_client_lists_triggers_reads_and_is_refused`
// (compiled by tsc, then `node --test`), which starts the server and sets,
// besides SVC_BASE_URL and SVC_API_KEY (a key with every scope): SVC_TEST_SCRAPS
// (the ids of the organization's scraps, comma-separated), SVC_TEST_RUN_SCRAP
// (a scrap whose run returns three items), SVC_TEST_READ_ONLY_KEY (a key
// holding only svc:scraps:read) and SVC_TEST_REPORT (a file for what the
// tests saw, which the Rust test checks against the server).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { after, test } from "node:test";

import { DEFAULT_URL, type HistoryRow, SvcError, fromEnv, pages, triggerAndWait } from "../src/index.js";

const env = process.env as Record<string, string>;
const report: Record<string, unknown> = {};
after(() => writeFileSync(env.SVC_TEST_REPORT, JSON.stringify(report)));

const svc = fromEnv();
const runScrap = env.SVC_TEST_RUN_SCRAP;
let waited: HistoryRow | undefined;

test("fromEnv needs the key", () => {
  assert.throws(() => fromEnv({ SVC_BASE_URL: env.SVC_BASE_URL }), /SVC_API_KEY/);
  assert.ok(fromEnv({ SVC_API_KEY: "svc_x" }));
  assert.equal(DEFAULT_URL, "http://127.0.0.1:8080");
});

test("pages lists every scrap", async () => {
  const first = await svc.GET("/api/scraps", { params: { query: { page: 1, perPage: 2 } } });
  assert.equal(first.response.status, 200);
  assert.deepEqual([first.data?.total, first.data?.data.length], [3, 2]);
  const ids: string[] = [];
  for await (const scrap of pages((query) => svc.GET("/api/scraps", { params: { query } }), 2)) {
    ids.push(scrap.id);
  }
  assert.deepEqual([...ids].sort(), env.SVC_TEST_SCRAPS.split(",").sort());
  report.scraps = ids;
});

test("triggerAndWait resolves to the ended run", async () => {
  const row = await triggerAndWait(svc, runScrap, { timeoutMs: 60_000 });
  assert.deepEqual([row.statusDetail, row.length], ["success", 3]);
  assert.equal(typeof row.finishedAt, "string");
  report.run = row.id;
  report.data = JSON.parse(row.data);
  waited = row;
  // Without the server's wait: polled until it ends.
  const polled = await triggerAndWait(svc, runScrap, { timeoutMs: 60_000, pollMs: 200, maxServerWait: 0 });
  assert.deepEqual([polled.statusDetail, polled.length], ["success", 3]);
  assert.notEqual(polled.id, row.id);
  report.polledRun = polled.id;
});

test("history reads the runs", async () => {
  assert.ok(waited, "the trigger test ran first");
  const one = await svc.GET("/api/historys/{id}", { params: { path: { id: waited.id } } });
  assert.deepEqual(one.data, waited);
  const ids: string[] = [];
  for await (const row of pages(
    (query) => svc.GET("/api/historys", { params: { query: { ...query, scrap: runScrap } } }),
    1,
  )) {
    ids.push(row.id);
  }
  assert.deepEqual(ids, [report.polledRun, waited.id], "newest first, one a page");
});

test("a missing scope is 403", async () => {
  const readOnly = fromEnv({ SVC_BASE_URL: env.SVC_BASE_URL, SVC_API_KEY: env.SVC_TEST_READ_ONLY_KEY });
  let listed = 0;
  for await (const _ of pages((query) => readOnly.GET("/api/scraps", { params: { query } }))) {
    listed++;
  }
  assert.equal(listed, 3, "it may list scraps");
  const refused = await triggerAndWait(readOnly, runScrap, { timeoutMs: 5_000 }).catch((e: unknown) => e);
  assert.ok(refused instanceof SvcError, String(refused));
  // The generated call gives the same answer as a value.
  const answer = await readOnly.POST("/api/scraps/worker/{id}", { params: { path: { id: runScrap } } });
  assert.deepEqual([answer.response.status, answer.error?.code], [403, "INSUFFICIENT_SCOPE"]);
  report.forbidden = { status: refused.status, code: refused.code };
});
