/*
 * Preloaded into an awb child (`node --import ./bench/mem-sampler.mjs`) when
 * BENCH_MEM_TRACE=1: samples memory every 100 ms and writes the timeline to
 * $BENCH_MEM_TRACE_FILE as JSON lines at exit, so a high peak RSS can be
 * split into V8 heap spaces (large strings live in large_object_space) and
 * off-heap buffers. Sampling is cheap; nothing is written while awb runs.
 */
import { writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const out = process.env.BENCH_MEM_TRACE_FILE;
if (out) {
  const t0 = performance.now();
  const samples = [];
  const mb = (x) => Math.round(x / 1e5) / 10;
  const sample = () => {
    const m = process.memoryUsage();
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, mb(s.space_used_size)]));
    const heap = getHeapStatistics();
    samples.push({
      t: Math.round(performance.now() - t0),
      rss: mb(m.rss),
      heapUsed: mb(m.heapUsed),
      heapTotal: mb(m.heapTotal),
      external: mb(m.external),
      arrayBuffers: mb(m.arrayBuffers),
      lo: spaces.large_object_space,
      newLo: spaces.new_large_object_space,
      old: spaces.old_space,
      newSpace: spaces.new_space,
      // V8's own malloc'd memory (compiler zones and the like): outside the heap and the buffers.
      malloced: mb(heap.malloced_memory),
      physical: mb(heap.total_physical_size),
    });
  };
  setInterval(sample, 100).unref();
  process.on('exit', () => {
    sample();
    writeFileSync(out, samples.map((s) => JSON.stringify(s)).join('\n') + '\n');
  });
}
