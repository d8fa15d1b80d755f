import { chromium } from 'playwright-core';
const ctx = await chromium.launchPersistentContext('/tmp/report2-prof', { executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox','--disable-gpu','--disable-background-networking','--disable-component-update','--no-first-run'], viewport: { width: 1280, height: 900 } });
for (let k = 0; k < 3; k++) {
const p = await ctx.newPage();
await p.goto(process.argv[2]!);
await p.waitForSelector('body[data-ready="1"]', { state: 'attached' });
console.log(await p.evaluate(`performance.getEntriesByType('mark').map(m => m.name + ' ' + m.startTime.toFixed(0)).join(', ') + ' dcl ' + performance.getEntriesByType('navigation')[0].domContentLoadedEventStart.toFixed(0) + ' ' + performance.getEntriesByType('paint').map(m => m.name + ' ' + m.startTime.toFixed(0)).join(', ')`));
await p.close();
}
await ctx.close();
