/*
 * The floor `awb score` is measured against: the least any reader of a
 * judged file must do, reading it line by line (split on \n only, as awb
 * does) and JSON.parse-ing every line. Plain JavaScript, no tsx, no
 * dependencies, so the figure is Node's own cost.
 */
import { createReadStream } from 'node:fs';

let pending = [];
let rows = 0;
const parse = (buf) => {
  if (buf.length === 0) return;
  JSON.parse(buf.toString('utf8'));
  rows++;
};
for await (const chunk of createReadStream(process.argv[2], { highWaterMark: 1 << 20 })) {
  let from = 0;
  for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
    let buf = chunk.subarray(from, nl);
    if (pending.length) {
      pending.push(buf);
      buf = Buffer.concat(pending);
      pending = [];
    }
    parse(buf);
    from = nl + 1;
  }
  if (from < chunk.length) pending.push(chunk.subarray(from));
}
if (pending.length) parse(Buffer.concat(pending));
process.stdout.write(`${rows} rows\n`);
