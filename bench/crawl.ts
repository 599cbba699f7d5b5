/**
 * Bulk extract job throughput, end to end, on a local fixture site generated on the fly.
 *
 *   npx node bench/crawl.ts [--pages 10000] [--page-kb 100] [--api article]
 *
 * A Quarry server runs as its own process over a fresh data directory; the fixture site (the
 * test fixture server, one route per page) runs in this process and generates deterministic
 * article pages of about `--page-kb` KiB. One job of `--pages` URLs with `crawlDelay=0` (robots.txt
 * served and obeyed) is created over HTTP; its record is polled every 100 ms. Printed: pages/s
 * from creation to completion and between page 1,000 and the last, and the server's RSS at page
 * 1,000 and at the last page (the memory target is about their difference).
 * Targets (issue 5): ≥ 500 pages/s; RSS growth ≤ 100 MiB from page 1,000 to page 10,000.
 */
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { respond, startFixtureServer } from '../test/support/fixture-server.ts';
import { tempDir } from '../test/support/temp-dir.ts';
import { mib, quarryCli, startServer } from './support/server.ts';
import { seededRandom } from './support/queries.ts';
import { printTarget } from './support/targets.ts';

const WORDS = (
  'quarry lake valley herald restoration council swimmers summer water report town river bridge ' +
  'market school museum harbour station garden festival library mayor budget railway forest ' +
  'village century stone workers engineers visitors heritage ecology season weather history'
).split(' ');

/** Paragraph blocks shared by every page; a page picks some by its index. */
function paragraphs(count: number): string[] {
  const next = seededRandom(42);
  return Array.from({ length: count }, () => {
    const words = Array.from({ length: 90 }, () => WORDS[Math.floor(next() * WORDS.length)]);
    return `<p>${words.join(' ')}.</p>`;
  });
}

/** A page generator: an article of about `kib` KiB for page `i` (navigation, body, footer). */
function pageMaker(kib: number): (i: number) => string {
  const blocks = paragraphs(400);
  const nav = `<nav>${Array.from({ length: 60 }, (_, i) => `<a href="/section/${i}">Section ${i}</a>`).join(' ')}</nav>`;
  const footer = `<footer>${Array.from({ length: 40 }, (_, i) => `<a href="/about/${i}">About ${i}</a>`).join(' ')}</footer>`;
  const perParagraph = blocks[0].length;
  const wanted = Math.max(1, Math.round((kib * 1024 - nav.length - footer.length - 800) / perParagraph));
  return (i) => {
    const body: string[] = [];
    for (let k = 0; k < wanted; k++) body.push(blocks[(i * 7 + k * 13) % blocks.length]);
    return (
      '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
      `<title>Bench article ${i} | The Bench Herald</title>` +
      `<meta property="og:title" content="Bench article ${i}"><meta property="og:type" content="article">` +
      `<meta name="author" content="Reporter ${i % 50}"></head><body>${nav}` +
      `<article><h1>Bench article ${i}</h1><time datetime="2024-03-05T09:30:00Z">5 March 2024</time>` +
      `${body.join('')}</article>${footer}</body></html>`
    );
  };
}

interface Sample {
  at: number;
  processed: number;
  rss: number;
  /** CPU time used by the server process so far (all threads), ms. */
  serverCpu: number;
  /** CPU time used by this process (fixture site and polling) so far, ms. */
  siteCpu: number;
}

/** CPU time (user + system, all threads) of a process, ms, from /proc (clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

export async function benchCrawl(pages: number, pageKib: number, api: string): Promise<void> {
  const dir = tempDir('quarry-bench-crawl-');
  const site = await startFixtureServer();
  const makePage = pageMaker(pageKib);
  const pageSize = Buffer.byteLength(makePage(0));
  for (let i = 0; i < pages; i++) {
    site.route(`/article/${i}`, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(makePage(i));
    });
  }
  site.route('/robots.txt', respond.text('User-agent: *\nDisallow: /private/\n'));
  const token = quarryCli(['token', 'create', '--unlimited'], dir.path).trim();
  const server = await startServer(dir.path, {
    env: { QUARRY_ALLOW_PRIVATE_NETWORK: '1', LOG_LEVEL: 'warn' },
  });
  try {
    const urls = Array.from({ length: pages }, (_, i) => site.url(`/article/${i}`)).join(' ');
    const startedAt = performance.now();
    const created = await fetch(`${server.url}/v3/bulk`, {
      method: 'POST',
      body: new URLSearchParams({ token, name: 'bench', apiUrl: `/v3/${api}`, urls, crawlDelay: '0' }),
    });
    if (created.status !== 200) throw new Error(`job creation failed: ${await created.text()}`);
    const samples: Sample[] = [];
    let status = 0;
    let record: Record<string, number> = {};
    while (status !== 9 && status !== 10) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const res = await fetch(`${server.url}/v3/bulk?token=${token}&name=bench`);
      const job = (
        (await res.json()) as { jobs: Array<Record<string, number> & { jobStatus: { status: number } }> }
      ).jobs[0];
      status = job.jobStatus.status;
      record = job;
      samples.push({
        at: performance.now(),
        processed: job.pageProcessSuccesses,
        rss: server.rss(),
        serverCpu: processCpuMs(server.pid),
        siteCpu: ownCpuMs(),
      });
    }
    const doneAt = performance.now();
    const at1k = samples.find((s) => s.processed >= Math.min(1_000, pages)) ?? samples[0];
    const last = samples[samples.length - 1];
    const seconds = (doneAt - startedAt) / 1000;
    const steady = (last.processed - at1k.processed) / ((last.at - at1k.at) / 1000);
    console.log(
      `crawl: ${pages} pages of ${(pageSize / 1024).toFixed(0)} KiB, api ${api}, crawlDelay 0, robots.txt obeyed` +
        ` (npx node bench/crawl.ts --pages ${pages} --page-kb ${pageKib} --api ${api})`,
    );
    console.log(
      `  status ${status}, processed ${record.pageProcessSuccesses}, objects ${record.objectsFound}, crawl attempts ${record.pageCrawlAttempts}`,
    );
    console.log(
      `  end to end        ${(record.pageProcessSuccesses / seconds).toFixed(0).padStart(6)} pages/s  (${seconds.toFixed(1)} s, target ≥ 500 pages/s)`,
    );
    console.log(`  from page ${at1k.processed} on   ${steady.toFixed(0).padStart(6)} pages/s`);
    const pagesMeasured = Math.max(1, last.processed - at1k.processed);
    const serverMs = (last.serverCpu - at1k.serverCpu) / pagesMeasured;
    const siteMs = (last.siteCpu - at1k.siteCpu) / pagesMeasured;
    console.log(
      `  CPU per page      server ${serverMs.toFixed(2)} ms (all threads), fixture site + polling ${siteMs.toFixed(2)} ms` +
        ` → at most ${(2000 / (serverMs + siteMs)).toFixed(0)} pages/s on 2 otherwise idle cores`,
    );
    console.log(
      `  load average at the end ${os.loadavg()[0].toFixed(2)} (other processes share the 2 cores)`,
    );
    console.log(
      `  server RSS at page ${at1k.processed}: ${mib(at1k.rss)}; at page ${last.processed}: ${mib(last.rss)}`,
    );
    console.log(
      `  RSS growth        ${mib(last.rss - at1k.rss)}  (target ≤ 100 MiB); peak ${mib(server.peakRss())}`,
    );
    printTarget({
      name: 'crawl pages/s (issue 5)',
      value: record.pageProcessSuccesses / seconds,
      bound: 'min',
      limit: 500,
      unit: 'pages/s',
    });
    printTarget({
      name: 'crawl RSS growth (issue 5)',
      value: (last.rss - at1k.rss) / 2 ** 20,
      bound: 'max',
      limit: 100,
      unit: 'MiB',
    });
  } finally {
    await server.stop();
    await site.close();
    dir.remove();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      pages: { type: 'string', default: '10000' },
      'page-kb': { type: 'string', default: '100' },
      api: { type: 'string', default: 'article' },
    },
  });
  await benchCrawl(Number(values.pages), Number(values['page-kb']), values.api);
}
