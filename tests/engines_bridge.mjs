// Firefox for tests/engines.py: Debian's firefox-esr driven by npm puppeteer-core over WebDriver BiDi
// (no geckodriver, nothing downloaded). Reads one JSON command per line on stdin, answers one JSON line
// on stdout: {value} or {error}. argv[2]: {executablePath, proxyPort, downloads}.
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";

const config = JSON.parse(process.argv[2]);
const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: config.executablePath,
  headless: true,
  timeout: 180_000, // the launch (puppeteer's default, 30 s, is too short on a busy 2-core machine)
  protocolTimeout: 600_000,
  // A release Firefox ignores services.settings.server (below) unless this is set.
  env: { ...process.env, MOZ_REMOTE_SETTINGS_DEVTOOLS: "1" },
  extraPrefsFirefox: {
    // Everything but 127.0.0.1 goes to the test's refusing proxy (localhost is never proxied by default).
    "network.proxy.type": 1,
    "network.proxy.http": "127.0.0.1", "network.proxy.http_port": config.proxyPort,
    "network.proxy.ssl": "127.0.0.1", "network.proxy.ssl_port": config.proxyPort,
    "network.proxy.no_proxies_on": "127.0.0.1",
    // Downloads land in the test's folder without a dialog.
    "browser.download.folderList": 2,
    "browser.download.dir": config.downloads,
    "browser.download.useDownloadDir": true,
    "browser.download.always_ask_before_handling_new_types": false,
    "browser.download.start_downloads_in_tmp_dir": false,
    // Firefox's own background traffic (remote settings, updates, telemetry, safe browsing, captive portal
    // checks) would reach the proxy as if the page had asked: none of it runs.
    "services.settings.server": "data:,#remote-settings-dummy/v1",
    "network.connectivity-service.enabled": false,
    "network.captive-portal-service.enabled": false,
    "browser.safebrowsing.malware.enabled": false,
    "browser.safebrowsing.phishing.enabled": false,
    "browser.safebrowsing.downloads.enabled": false,
    "browser.safebrowsing.provider.mozilla.updateURL": "",
    "app.update.disabledForTesting": true,
    "app.normandy.enabled": false,
    "datareporting.healthreport.uploadEnabled": false,
    "datareporting.policy.dataSubmissionEnabled": false,
    "toolkit.telemetry.server": "",
    "extensions.update.enabled": false,
    "extensions.getAddons.cache.enabled": false,
    "extensions.blocklist.enabled": false,
    "media.gmp-manager.url": "",
    "browser.region.network.url": "",
    "browser.search.update": false,
    "network.dns.disablePrefetch": true,
    "network.prefetch-next": false,
  },
});
let context = null;
let page = null;

const call = (fn, args) => page.evaluate(`(${fn})(...${JSON.stringify(args)})`);

const ops = {
  version: () => browser.version(),
  async open({ url, init }) {
    if (context) await context.close();
    context = await browser.createBrowserContext();
    page = await context.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    if (init) await page.evaluateOnNewDocument(init);
    await page.goto(url, { waitUntil: "domcontentloaded", timeout: 120_000 });
  },
  js: ({ fn, args }) => call(fn, args),
  press: ({ key }) => page.keyboard.press(key),
  async click({ fn, args }) {
    const handle = await page.evaluateHandle(`(${fn})(...${JSON.stringify(args)})`);
    const el = handle.asElement();
    if (!el) throw new Error(`${fn.slice(0, 120)} returned no element`);
    await el.click();
  },
  async close() {
    if (context) await context.close();
    context = page = null;
  },
  async quit() {
    await browser.close();
    process.exit(0);
  },
};

const say = (answer) => process.stdout.write(`${JSON.stringify(answer)}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const { op, ...args } = JSON.parse(line);
  try {
    const value = await ops[op](args);
    say({ value: value === undefined ? null : value });
  } catch (err) {
    say({ error: String((err && err.stack) || err).slice(0, 2000) });
  }
}
await browser.close();
