#!/usr/bin/env node
// Peer baseline for svc's engine-bench (crates/svc-bench/src/bin/engine_bench.rs):
// what a user would write instead of a `static` scrap, a Node program that
// fetches the page and extracts from it with a browserless DOM library:
//
//   undici request (keep-alive) -> parse (cheerio | linkedom | happy-dom) -> extract -> JSON
//
// The extraction is the static scrap's: the text of every `li`, as a JSON
// array (`JSON.stringify` like svc's `returnData`). Each library at its best
// as far as we found: `--processes` worker processes (2: one per core of the
// bench machine), each with `--inflight` runs in flight over one undici
// Agent with keep-alive; happy-dom parses into one window per process
// (`DOMParser` of a shared `Window`: a new `Window` per page costs several
// times more).
//
// `--mode fetch` (default) is the fetch-parse-extract loop; `--mode parse`
// fetches the page once and then only parses and extracts (the library alone).
//
// Prints one JSON object on stdout: the sequential latencies (one process,
// one run at a time), the concurrent phase's latencies, its wall time and the
// CPU time the workers used during it (process.cpuUsage), failures, and the
// last run's data. Progress goes to stderr.
//
//   npm ci
//   node peer.js --url http://127.0.0.1:PORT/items/50 --library cheerio --runs 1000
//   (optional: --mode parse --processes 2 --inflight 2 --warmup 50 --sequential 20 --expected 50)
'use strict';

const { fork } = require('child_process');

function parseArgs(argv) {
  const opts = {
    url: null,
    library: 'cheerio',
    mode: 'fetch',
    processes: 2,
    inflight: 2,
    warmup: 50,
    sequential: 20,
    runs: 1000,
    expected: 50,
    worker: 0,
  };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '');
    const value = argv[i + 1];
    if (!(key in opts)) throw new Error(`unknown option --${key}`);
    opts[key] = typeof opts[key] === 'number' ? Number(value) : value;
    i++;
  }
  if (!opts.url) throw new Error('--url is required');
  if (!['cheerio', 'linkedom', 'happy-dom'].includes(opts.library)) throw new Error(`unknown library ${opts.library}`);
  if (!['fetch', 'parse'].includes(opts.mode)) throw new Error(`unknown mode ${opts.mode}`);
  return opts;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

// ------------------------------------------------------------------ worker

/// The library's parse and extraction: html -> JSON of the items' texts.
function extractor(library) {
  switch (library) {
    case 'cheerio': {
      const cheerio = require('cheerio');
      return (html) => {
        const $ = cheerio.load(html);
        return JSON.stringify($('li').toArray().map((li) => $(li).text()));
      };
    }
    case 'linkedom': {
      const { parseHTML } = require('linkedom');
      return (html) => {
        const { document } = parseHTML(html);
        return JSON.stringify([...document.querySelectorAll('li')].map((li) => li.textContent));
      };
    }
    case 'happy-dom': {
      const { Window } = require('happy-dom');
      const window = new Window({
        settings: {
          disableJavaScriptEvaluation: true,
          disableJavaScriptFileLoading: true,
          disableCSSFileLoading: true,
          disableIframePageLoading: true,
          disableComputedStyleRendering: true,
        },
      });
      const parser = new window.DOMParser();
      return (html) => {
        const document = parser.parseFromString(html, 'text/html');
        return JSON.stringify([...document.querySelectorAll('li')].map((li) => li.textContent));
      };
    }
  }
  throw new Error(library);
}

async function worker(opts) {
  const { Agent, request } = require('undici');
  const extract = extractor(opts.library);
  const agent = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000, connections: opts.inflight });
  const fetchPage = async () => {
    const { statusCode, body } = await request(opts.url, { dispatcher: agent });
    const html = await body.text();
    if (statusCode !== 200) throw new Error(`HTTP ${statusCode}`);
    return html;
  };
  const held = opts.mode === 'parse' ? await fetchPage() : null;
  const check = (json) => {
    const items = JSON.parse(json);
    if (items.length !== opts.expected || items[0] !== 'Item 0' || items[opts.expected - 1] !== `Item ${opts.expected - 1}`) {
      throw new Error(`unexpected data: ${json.slice(0, 200)}`);
    }
    return json;
  };
  // In `parse` mode each run still yields to the event loop, as a program
  // that gets its pages from somewhere does: happy-dom finishes each
  // document's loading in tasks, which pile up in a loop that never yields.
  const yieldNow = () => new Promise(setImmediate);
  const oneRun =
    opts.mode === 'parse'
      ? async () => {
          const json = check(extract(held));
          await yieldNow();
          return json;
        }
      : async () => check(extract(await fetchPage()));

  let data = null;
  let failures = 0;
  let firstFailure = null;
  const timed = async (latencies) => {
    const t0 = now();
    try {
      data = await oneRun();
      latencies.push(now() - t0);
    } catch (e) {
      failures += 1;
      firstFailure = firstFailure || String(e && e.stack ? e.stack : e);
    }
  };

  for (let i = 0; i < opts.warmup; i++) await oneRun();
  process.send({ type: 'ready' });
  process.on('message', async (message) => {
    if (message.type === 'sequential') {
      const latencies = [];
      for (let i = 0; i < message.runs; i++) await timed(latencies);
      process.send({ type: 'sequential', latencies });
    } else if (message.type === 'go') {
      const latencies = [];
      let left = message.runs;
      const cpu0 = process.cpuUsage();
      const lane = async () => {
        while (left > 0) {
          left -= 1;
          await timed(latencies);
        }
      };
      await Promise.all(Array.from({ length: opts.mode === 'parse' ? 1 : opts.inflight }, lane));
      const cpu = process.cpuUsage(cpu0);
      process.send({ type: 'done', latencies, cpuMs: (cpu.user + cpu.system) / 1000, failures, firstFailure, data });
    } else if (message.type === 'exit') {
      await agent.close();
      process.exit(0);
    }
  });
}

// ------------------------------------------------------------------ parent

function once(child, type) {
  return new Promise((resolve, reject) => {
    const onMessage = (message) => {
      if (message.type === type) {
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message);
      }
    };
    const onExit = (code) => reject(new Error(`worker exited (${code}) before '${type}'`));
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

async function parent(opts) {
  const args = process.argv.slice(2);
  const workers = [];
  for (let i = 0; i < opts.processes; i++) {
    workers.push(fork(__filename, [...args, '--worker', String(i + 1)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  }
  await Promise.all(workers.map((w) => once(w, 'ready')));
  process.stderr.write(`${opts.library} (${opts.mode}): ${opts.sequential} sequential runs\n`);
  workers[0].send({ type: 'sequential', runs: opts.sequential });
  const sequential = (await once(workers[0], 'sequential')).latencies;
  process.stderr.write(`${opts.library} (${opts.mode}): ${opts.runs} runs, ${opts.processes} processes x ${opts.inflight} in flight\n`);
  const shares = workers.map((_, i) => Math.floor(opts.runs / workers.length) + (i < opts.runs % workers.length ? 1 : 0));
  const done = workers.map((w) => once(w, 'done'));
  // The markers let engine-bench read its own CPU time (the fixture) over this phase.
  process.stderr.write('PHASE concurrent\n');
  const t0 = now();
  workers.forEach((w, i) => w.send({ type: 'go', runs: shares[i] }));
  const results = await Promise.all(done);
  const wallMs = now() - t0;
  process.stderr.write('PHASE end\n');
  workers.forEach((w) => w.send({ type: 'exit' }));
  await Promise.all(workers.map((w) => new Promise((resolve) => (w.exitCode !== null ? resolve() : w.on('exit', resolve)))));
  const out = {
    library: opts.library,
    mode: opts.mode,
    processes: opts.processes,
    inflight: opts.inflight,
    runs: opts.runs,
    sequential,
    concurrent: results.flatMap((r) => r.latencies),
    wallMs,
    cpuMs: results.reduce((sum, r) => sum + r.cpuMs, 0),
    failures: results.reduce((sum, r) => sum + r.failures, 0),
    firstFailure: results.map((r) => r.firstFailure).find((f) => f) || null,
    data: results.map((r) => r.data).find((d) => d) || null,
    node: process.version,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}

const opts = parseArgs(process.argv.slice(2));
(opts.worker ? worker(opts) : parent(opts)).catch((e) => {
  process.stderr.write(`peer: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
