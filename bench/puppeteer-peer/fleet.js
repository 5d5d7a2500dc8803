#!/usr/bin/env node
// Peer for svc's fleet-bench (crates/svc-bench/src/bin/fleet_bench.rs): a
// fleet of jobs (distinct pages on distinct hosts), all due at once, done
// the way a plain puppeteer-core program does them with the isolation a
// multi-tenant service owes: per job a new browser context, a new page,
// goto, evaluate, close the context; `--concurrency` jobs at a time, on one
// browser launched with puppeteer's own defaults.
//
//   node fleet.js --jobs jobs.json [--warmupJobs warm.json] --concurrency 4 \
//     --chromium /usr/lib/chromium/chromium-headless-shell
//
// jobs.json: [{"url": "...", "first": "text of the first item", "items": 50}, ...];
// warm.json: jobs of the same shape run one by one, unmeasured, first.
// Prints one JSON object on stdout; `PHASE <name>` markers go to stderr
// (fleet-bench reads them to attribute memory samples to a phase).
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

const EXTRACTION = "[...document.querySelectorAll('li')].map(li => li.textContent)";

function parseArgs(argv) {
  const opts = { jobs: null, warmupJobs: null, concurrency: 4, chromium: '/usr/lib/chromium/chromium-headless-shell' };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in opts)) throw new Error(`unknown option --${key}`);
    opts[key] = typeof opts[key] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
  }
  if (!opts.jobs) throw new Error('--jobs is required');
  return opts;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

async function oneJob(browser, job) {
  const context = await browser.createBrowserContext();
  let items;
  try {
    const page = await context.newPage();
    const response = await page.goto(job.url, { waitUntil: 'load', timeout: 60_000 });
    if (!response || !response.ok()) throw new Error(`HTTP ${response && response.status()}`);
    items = await page.evaluate(EXTRACTION);
  } finally {
    await context.close();
  }
  if (!Array.isArray(items) || items.length !== job.items || items[0] !== job.first) {
    throw new Error(`${job.url}: expected ${job.items} items from "${job.first}", got ${JSON.stringify(items && items.slice(0, 1))} (${items && items.length})`);
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const jobs = JSON.parse(fs.readFileSync(opts.jobs, 'utf8'));
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peer-fleet-'));
  const browser = await puppeteer.launch({ executablePath: opts.chromium, headless: true, userDataDir, args: ['--no-sandbox'] });
  const out = { engine: 'puppeteer-core', puppeteerVersion: require('puppeteer-core/package.json').version };
  try {
    out.browserVersion = await browser.version();
    const warmup = opts.warmupJobs ? JSON.parse(fs.readFileSync(opts.warmupJobs, 'utf8')) : [];
    for (const job of warmup) await oneJob(browser, job);
    process.stderr.write('PHASE fleet\n');
    const finishedMs = [];
    const runMs = [];
    const failures = [];
    let next = 0;
    const started = now();
    const worker = async () => {
      while (next < jobs.length) {
        const job = jobs[next++];
        const t0 = now();
        try {
          await oneJob(browser, job);
          runMs.push(now() - t0);
          finishedMs.push(now() - started);
        } catch (e) {
          failures.push(String(e && e.message ? e.message : e));
        }
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    out.totalMs = now() - started;
    out.finishedMs = finishedMs;
    out.runMs = runMs;
    out.failures = failures;
    process.stderr.write('PHASE done\n');
  } finally {
    await browser.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  process.stderr.write(`fleet peer failed: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
