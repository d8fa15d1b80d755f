/**
 * `npm run docs`: writes the parts of the docs that are declared elsewhere, between their markers:
 *   <!-- generated:options CMD -->   the options of awb CMD, from its entry in src/commands/commands.ts
 *   <!-- generated:exit-codes -->    the exit codes, from EXIT_MEANING in src/commands/words/words.ts
 *   <!-- generated:exit-codes 0 1 2 3 130 -->   only those codes
 *   <!-- generated:gate-outcomes -->  the gate's outcomes and their exit codes, from GATE_OUTCOMES in the same file
 * each block ending at `<!-- /generated -->`. With --check it writes nothing and fails, naming the files, when
 * a block differs from what the tables give (npm test runs it so).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../src/commands/commands.js';
import type { AnyCommand, OptionTable } from '../src/commands/shared/option-table.js';
import { GATE_OUTCOMES, exitCodes } from '../src/commands/words/words.js';

const ROOT = new URL('..', import.meta.url);
const FILES = ['README.md', 'docs/commands.md', 'docs/running.md', 'docs/ci-gate.md'];
const BLOCK = /(<!-- generated:([a-z-]+)([^>]*?) -->\n)[\s\S]*?(<!-- \/generated -->)/g;

/** Each command's options (the table loads them only for the command that runs). */
const OPTIONS = new Map<string, OptionTable>(await Promise.all(COMMANDS.map(async (c) => [c.name, await c.options()] as const)));

/** Text for a markdown table cell: pipes escaped, on one line. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function optionsTable(cmd: AnyCommand): string {
  const rows: string[][] = cmd.operands.map((o) => [`\`${o.name}\``, 'required', cell(o.help)]);
  for (const spec of Object.values(OPTIONS.get(cmd.name)!)) {
    const fallback = spec.default !== undefined ? `\`${spec.default}\`` : spec.required ? 'required' : '';
    const choices = spec.choices ? ` (one of: ${spec.choices.map((c) => `\`${c}\``).join(', ')})` : '';
    rows.push([`\`${spec.flags}\`${spec.repeat ? ' (repeatable)' : ''}`, fallback, cell(spec.help) + choices]);
  }
  return [
    `| ${cmd.operands.length ? 'operand or option' : 'option'} | default | meaning |`,
    '| --- | --- | --- |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

function exitCodeList(only: number[]): string {
  const codes = exitCodes().filter(({ code }) => !only.length || only.includes(code));
  const missing = only.filter((c) => !codes.some(({ code }) => code === c));
  if (missing.length) throw new Error(`no exit code ${missing.join(', ')} in EXIT`);
  return codes.map(({ code, meaning }) => `- \`${code}\`: ${meaning}.`).join('\n');
}

/** The gate's outcomes as a table, in the order the gate ranks them (GATE_OUTCOMES' own). */
function gateOutcomes(): string {
  return [
    '| Code | Outcome (`gate.outcome`) | What it means | What to do |',
    '| ---: | --- | --- | --- |',
    ...Object.entries(GATE_OUTCOMES).map(([o, g]) => `| ${g.exit} | \`${o}\` | ${cell(g.means)} | ${cell(g.todo)} |`),
  ].join('\n');
}

function block(kind: string, args: string[]): string {
  if (kind === 'exit-codes') return exitCodeList(args.map(Number));
  if (kind === 'gate-outcomes') return gateOutcomes();
  if (kind === 'options') {
    const cmd = COMMANDS.find((c) => c.name === args[0]);
    if (!cmd) throw new Error(`no command "${args[0]}" in src/commands/commands.ts`);
    return optionsTable(cmd);
  }
  throw new Error(`unknown generated block "${kind}"`);
}

/** The file with every generated block as the tables give it. */
export function generated(text: string): string {
  return text.replace(BLOCK, (_, open: string, kind: string, rest: string, close: string) => {
    const args = rest.trim().split(/\s+/).filter(Boolean);
    return `${open}\n${block(kind, args)}\n\n${close}`;
  });
}

/** Every command has its options block in docs/commands.md. */
function missingCommands(doc: string): string[] {
  return COMMANDS.filter((c) => !doc.includes(`<!-- generated:options ${c.name} -->`)).map((c) => c.name);
}

const check = process.argv.includes('--check');
const stale: string[] = [];
for (const file of FILES) {
  const path = fileURLToPath(new URL(file, ROOT));
  const text = await readFile(path, 'utf8');
  const next = generated(text);
  if (file === 'docs/commands.md' && missingCommands(text).length)
    stale.push(`${file} (no options block for ${missingCommands(text).join(', ')})`);
  if (next === text) continue;
  if (check) stale.push(file);
  else await writeFile(path, next);
}
if (stale.length) {
  console.error(`docs: ${stale.join(', ')} differ from the command and exit-code tables: run \`npm run docs\``);
  process.exitCode = 1;
}
