#!/usr/bin/env node
// Peer baseline for svc's crawl-bench (crates/svc-bench/src/bin/crawl_bench.rs):
// the same crawl of the same 106-page catalog (an index, 5 listings of 20
// items, 100 detail pages), done with Crawlee: CheerioCrawler (HTTP + cheerio,
// no browser) or PuppeteerCrawler (puppeteer-core on the system Chromium,
// headless). Listing pages enqueue their items (label `detail`, with the
// listing's number as user data) and the next listing (label `list`); detail
// pages give one record {title, price, from}. The records are put in the
// order svc's crawls give (breadth-first in the order pages were enqueued:
// each request carries its enqueue path) and checked: 100 records, "Lamp 1"
// to "Lamp 100".
//
// Crawlee's configuration for this job (its best we found, see
// docs/benchmarks.md): storage in memory only (`persistStorage: false`, no
// metadata files), no session pool or per-session cookies (one local site),
// minConcurrency = maxConcurrency = --concurrency (no slow autoscaling start
// on a crawl of a few seconds), the pool's idle poll at 50 ms instead of
// 500 ms, logging at WARNING; PuppeteerCrawler also without fingerprint
// injection, one browser for the whole crawl (not retired after 100 pages),
// headless, the records read with one `page.evaluate` per page.
//
// One process runs `--warmup` unmeasured crawls, then `--rounds` measured
// ones, each with a new crawler (a new request queue; PuppeteerCrawler
// launches its browser inside `run()`, and the time to the launched browser
// is reported apart). Prints one JSON object on stdout.
//
//   PUPPETEER_SKIP_DOWNLOAD=1 npm ci
//   node peer.js --url http://127.0.0.1:PORT/ --crawler cheerio|puppeteer
//     [--concurrency 2 --rounds 5 --warmup 1 --chromium /usr/bin/chromium]
'use strict';

const os = require('os');
const path = require('path');
const fs = require('fs');

// No storage directory of Crawlee's in the working directory, should anything
// still reach the disk.
const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crawlee-peer-'));
process.env.CRAWLEE_STORAGE_DIR = storageDir;

const { CheerioCrawler, PuppeteerCrawler, Configuration, log } = require('crawlee');
const { MemoryStorage } = require('@crawlee/memory-storage');
const puppeteer = require('puppeteer-core');

log.setLevel(log.LEVELS.WARNING);

const EXPECTED = 100;

function parseArgs(argv) {
  const opts = {
    url: null,
    crawler: null,
    concurrency: 2,
    rounds: 5,
    warmup: 1,
    chromium: '/usr/bin/chromium',
    // 1: Crawlee's defaults (storage on disk, session pool, autoscaling from
    // 1 up to --concurrency, fingerprints, browser retired after 100 pages),
    // to compare with the configuration above.
    defaults: 0,
  };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '');
    const value = argv[i + 1];
    if (!(key in opts)) throw new Error(`unknown option --${key}`);
    opts[key] = typeof opts[key] === 'number' ? Number(value) : value;
    i++;
  }
  if (!opts.url) throw new Error('--url is required');
  if (!['cheerio', 'puppeteer'].includes(opts.crawler)) throw new Error('--crawler cheerio|puppeteer');
  return opts;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Breadth-first order of enqueueing, as svc's: depth, then the path of
// enqueue positions from the start page.
function byEnqueueOrder(a, b) {
  if (a.order.length !== b.order.length) return a.order.length - b.order.length;
  for (let i = 0; i < a.order.length; i++) {
    if (a.order[i] !== b.order[i]) return a.order[i] - b.order[i];
  }
  return 0;
}

// The `transformRequestFunction` of one page's enqueueLinks calls: each
// request gets its label, the page's user data and its enqueue path. `next`
// numbers the links of one page across its calls.
function tagger(parentOrder, label, data) {
  return (next) => (request) => {
    request.label = label;
    request.userData = { ...data, label, order: [...parentOrder, next.i++] };
    return request;
  };
}

function commonOptions(opts, records) {
  if (opts.defaults) {
    // Crawlee's defaults, but for the concurrency's upper bound.
    return {
      maxConcurrency: opts.concurrency,
      maxRequestRetries: 0,
      failedRequestHandler({ request }, error) {
        records.failed.push(`${request.url}: ${error && error.message}`);
      },
    };
  }
  return {
    minConcurrency: opts.concurrency,
    maxConcurrency: opts.concurrency,
    useSessionPool: false,
    persistCookiesPerSession: false,
    maxRequestRetries: 0,
    autoscaledPoolOptions: { maybeRunIntervalSecs: 0.05 },
    statusMessageLoggingInterval: 3600,
    failedRequestHandler({ request }, error) {
      records.failed.push(`${request.url}: ${error && error.message}`);
    },
  };
}

function config(opts) {
  // A configuration per crawler: its own storage, so that each crawl starts
  // with an empty request queue.
  if (opts.defaults) {
    const localDataDirectory = fs.mkdtempSync(path.join(storageDir, 'crawl-'));
    return new Configuration({ storageClientOptions: { localDataDirectory } });
  }
  return new Configuration({
    persistStorage: false,
    purgeOnStart: true,
    storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }),
  });
}

async function cheerioCrawl(opts) {
  const records = { items: [], failed: [] };
  const crawler = new CheerioCrawler(
    {
      ...commonOptions(opts, records),
      async requestHandler({ request, $, enqueueLinks }) {
        const order = request.userData.order || [];
        if (request.label === 'detail') {
          records.items.push({
            order,
            item: { title: $('h1').text(), price: $('.price').text(), from: request.userData.listing },
          });
          return;
        }
        const listing = new URL(request.loadedUrl || request.url).searchParams.get('page');
        const next = { i: 0 };
        const tag = tagger(order, 'detail', { listing });
        await enqueueLinks({ selector: 'a.item', transformRequestFunction: tag(next) });
        const tagNext = tagger(order, 'list', {});
        await enqueueLinks({ selector: 'a.next', transformRequestFunction: tagNext(next) });
      },
    },
    config(opts),
  );
  return run(crawler, opts, records, null);
}

async function puppeteerCrawl(opts) {
  const records = { items: [], failed: [] };
  const marks = { launched: null };
  const crawler = new PuppeteerCrawler(
    {
      ...commonOptions(opts, records),
      launchContext: {
        launcher: puppeteer,
        // The flags of bench/puppeteer-peer (`--no-sandbox`: the bench runs as root).
        launchOptions: {
          executablePath: opts.chromium,
          headless: true,
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        },
      },
      browserPoolOptions: {
        ...(opts.defaults ? {} : { useFingerprints: false, retireBrowserAfterPageCount: 100000 }),
        postLaunchHooks: [
          () => {
            marks.launched = marks.launched || now();
          },
        ],
      },
      async requestHandler({ request, page, enqueueLinks }) {
        const order = request.userData.order || [];
        if (request.label === 'detail') {
          const item = await page.evaluate(() => ({
            title: document.querySelector('h1').textContent,
            price: document.querySelector('.price').textContent,
          }));
          records.items.push({ order, item: { ...item, from: request.userData.listing } });
          return;
        }
        const listing = new URL(request.loadedUrl || request.url).searchParams.get('page');
        const next = { i: 0 };
        const tag = tagger(order, 'detail', { listing });
        await enqueueLinks({ selector: 'a.item', transformRequestFunction: tag(next) });
        const tagNext = tagger(order, 'list', {});
        await enqueueLinks({ selector: 'a.next', transformRequestFunction: tagNext(next) });
      },
    },
    config(opts),
  );
  return run(crawler, opts, records, marks);
}

async function run(crawler, opts, records, marks) {
  const t0 = now();
  const stats = await crawler.run([{ url: opts.url, label: 'start', userData: { label: 'start', order: [] } }]);
  const t1 = now();
  records.items.sort(byEnqueueOrder);
  const items = records.items.map((r) => r.item);
  const titles = items.map((i) => i.title);
  const expected = Array.from({ length: EXPECTED }, (_, k) => `Lamp ${k + 1}`);
  if (JSON.stringify(titles) !== JSON.stringify(expected)) {
    throw new Error(`expected Lamp 1..${EXPECTED} in order, got ${titles.length}: ${titles.slice(0, 5)} (failed: ${records.failed.slice(0, 3)})`);
  }
  if (items[0].from !== '1' || items[EXPECTED - 1].from !== '5' || items[0].price !== '1.00') {
    throw new Error(`unexpected records: ${JSON.stringify(items[0])} ${JSON.stringify(items[EXPECTED - 1])}`);
  }
  return {
    wallMs: t1 - t0,
    launchMs: marks && marks.launched ? marks.launched - t0 : null,
    requests: stats.requestsFinished,
    failed: stats.requestsFailed,
  };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const crawl = opts.crawler === 'cheerio' ? cheerioCrawl : puppeteerCrawl;
  for (let i = 0; i < opts.warmup; i++) await crawl(opts);
  const rounds = [];
  for (let i = 0; i < opts.rounds; i++) {
    // Marks for crawl-bench, which reads the CPU time of this process tree
    // at each (the pause lets it read before this process goes on or exits).
    console.error('MARK start');
    await sleep(100);
    rounds.push(await crawl(opts));
    console.error('MARK end');
    await sleep(100);
  }
  const version = (name) => require(`${name}/package.json`).version;
  process.stdout.write(
    JSON.stringify({
      crawler: opts.crawler === 'cheerio' ? 'CheerioCrawler' : 'PuppeteerCrawler',
      crawleeVersion: version('crawlee'),
      puppeteerVersion: version('puppeteer-core'),
      nodeVersion: process.version,
      concurrency: opts.concurrency,
      rounds,
    }) + '\n',
  );
  fs.rmSync(storageDir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  fs.rmSync(storageDir, { recursive: true, force: true });
  process.exit(1);
});
