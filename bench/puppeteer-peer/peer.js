#!/usr/bin/env node
// Peer baseline for svc's run-bench (crates/svc-bench/src/bin/run_bench.rs):
// the same extraction of the same fixture page, done the way a plain
// puppeteer-core program does it, with per-run isolation:
//
//   new browser context -> new page -> goto -> evaluate -> close context
//
// on one browser (the system Chromium). Measures `--sequential` runs one
// after the other, then `--runs` runs with `--concurrency` workers. Prints one
// JSON object on stdout; progress and `PHASE <name>` markers go to stderr
// (run-bench reads the markers to attribute memory samples to a phase).
//
//   npm install            # puppeteer-core only; it downloads no browser
//   node peer.js --url http://127.0.0.1:PORT/items --sequential 20 --runs 200
//   (optional: --concurrency 4 --warmup 3 --pauseMs 0 --chromium /usr/bin/chromium --disableFeatures A,B
//    --extraArgs '--flag-a --flag-b')
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

const EXTRACTION = "[...document.querySelectorAll('li')].map(li => li.textContent)";
const EXPECTED_LENGTH = 50;

function parseArgs(argv) {
  const opts = {
    url: null,
    sequential: 20,
    runs: 200,
    concurrency: 4,
    warmup: 3,
    // Idle time between two sequential runs (0: back to back).
    pauseMs: 0,
    chromium: '/usr/bin/chromium',
    expected: EXPECTED_LENGTH,
    // Extra Chromium features to disable (puppeteer merges them with its own).
    disableFeatures: '',
    // Extra Chromium flags, separated by spaces (e.g. --disable-remote-fonts).
    extraArgs: '',
  };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '');
    const value = argv[i + 1];
    if (!(key in opts)) throw new Error(`unknown option --${key}`);
    opts[key] = typeof opts[key] === 'number' ? Number(value) : value;
    i++;
  }
  if (!opts.url) throw new Error('--url is required');
  return opts;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

async function oneRun(browser, url, expected, phases) {
  const t0 = now();
  const context = await browser.createBrowserContext();
  const t1 = now();
  let items;
  let t2, t3, t4;
  try {
    const page = await context.newPage();
    t2 = now();
    const response = await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
    t3 = now();
    if (!response || !response.ok()) throw new Error(`HTTP ${response && response.status()}`);
    items = await page.evaluate(EXTRACTION);
    t4 = now();
  } finally {
    await context.close();
  }
  const t5 = now();
  if (!Array.isArray(items) || items.length !== expected) {
    throw new Error(`expected ${expected} items, got ${items && items.length}`);
  }
  if (phases) {
    phases.context.push(t1 - t0);
    phases.newPage.push(t2 - t1);
    phases.goto.push(t3 - t2);
    phases.evaluate.push(t4 - t3);
    phases.close.push(t5 - t4);
  }
  return t5 - t0;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peer-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: opts.chromium,
    headless: true,
    userDataDir,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(opts.disableFeatures ? [`--disable-features=${opts.disableFeatures}`] : []),
      ...opts.extraArgs.split(' ').filter((flag) => flag !== ''),
    ],
  });
  const out = { engine: 'puppeteer-core', puppeteerVersion: require('puppeteer-core/package.json').version };
  try {
    out.browserVersion = await browser.version();
    for (let i = 0; i < opts.warmup; i++) await oneRun(browser, opts.url, opts.expected, null);

    process.stderr.write('PHASE sequential\n');
    const phases = { context: [], newPage: [], goto: [], evaluate: [], close: [] };
    const sequential = [];
    for (let i = 0; i < opts.sequential; i++) {
      sequential.push(await oneRun(browser, opts.url, opts.expected, phases));
      if (opts.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, opts.pauseMs));
    }
    out.sequential = { latenciesMs: sequential, phasesMs: phases };

    process.stderr.write('PHASE concurrent\n');
    const latencies = [];
    let next = 0;
    const started = now();
    const worker = async () => {
      while (next < opts.runs) {
        next++;
        latencies.push(await oneRun(browser, opts.url, opts.expected, null));
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    out.concurrent = { runs: latencies.length, concurrency: opts.concurrency, totalMs: now() - started, latenciesMs: latencies };
    process.stderr.write('PHASE done\n');
  } finally {
    await browser.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  process.stderr.write(`peer failed: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
