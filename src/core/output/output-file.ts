import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { basename, dirname, resolve, sep } from 'node:path';
import { createFolders, isStream, missingFolders, readJsonFile, writeAtomically } from '../files.js';
import { fail, fileError } from '../errors.js';
import type { FileErrorCode } from '../rows/index.js';
import { manifestPathFor, manifestSchema, type Manifest, type ManifestSettings } from '../schemas/index.js';

/**
 * Whether the output `path` holds rows to resume; a folder there is refused, in the words of the
 * `option` that named it. A stream (`/dev/stdout`, a FIFO; isStream) never does: it cannot be read back.
 */
export async function isNonEmptyFile(path: string, option = '--output'): Promise<boolean> {
  try {
    if (await isStream(path)) return false;
    const st = await stat(path);
    if (st.isDirectory()) throw fail({ kind: 'output-is-folder', path, option });
    return st.size > 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw fileError(path, err);
  }
}

/** The longest file name the usual file systems take, in bytes (ext4, XFS, Btrfs, tmpfs, APFS). */
const NAME_MAX = 255;
/** What the longest name awb writes beside an output adds to it: the manifest's temporary file (writeAtomically). */
const LONGEST_BESIDE = '.manifest.json.awb-4194304-0123456789ab.tmp';
/** The longest output name that leaves room for the files awb keeps beside it. */
export const LONGEST_OUTPUT_NAME = NAME_MAX - LONGEST_BESIDE.length;

/**
 * Checks, creating nothing, that an output file named by `option` can be written: a path that
 * cannot (a folder itself, under a file, in a folder awb may not write) is a user error before any
 * request is sent or any input read. Returns the folders to make for it (createFolders).
 */
export async function checkOutputPath(path: string, option = '--output'): Promise<string[]> {
  // Neither names a file: "" (an unset variable in a script) would write beside the current folder's name.
  if (path.trim() === '') throw fail({ kind: 'output-empty', option });
  if (path.endsWith('/') || path.endsWith(sep)) throw fail({ kind: 'output-ends-in-separator', path, option });
  const name = Buffer.byteLength(basename(path));
  if (name > NAME_MAX) throw fail({ kind: 'output-name-too-long', path });
  if (name > LONGEST_OUTPUT_NAME) throw fail({ kind: 'output-beside-too-long', path, option });
  const dir = dirname(resolve(path));
  const missing = await missingFolders(dir, { name: option, takes: 'file' });
  await isNonEmptyFile(path, option); // refuses a folder given as the file
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  // Where the file is made (the nearest folder that exists), or the file itself, must take writes.
  const target = exists ? path : missing.length ? dirname(missing[0]!) : dir;
  await access(target, constants.W_OK).catch((err: unknown) => {
    throw cannotWrite(path, option, target, err);
  });
  return missing;
}

/** Creates the folder of an output file named by `option`, once checkOutputPath has passed it. */
export async function ensureOutputDir(path: string, option = '--output'): Promise<void> {
  await createFolders(await checkOutputPath(path, option));
}

/** The errors that say an output cannot be written there; ENOENT: no file can be made there (/proc). */
const UNWRITABLE: readonly string[] = ['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENAMETOOLONG', 'ENOSPC', 'ENOENT'] satisfies FileErrorCode[];

/**
 * An output awb cannot write: what the user gave (`path`, named by `option`), and why
 * (`at`, the file or folder the system refused, with `err`).
 */
export function cannotWrite(path: string, option: string, at: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code && UNWRITABLE.includes(code)
    ? fail({ kind: 'output-unwritable', path, option, at, code: code as FileErrorCode })
    : fileError(at, err);
}

/** `use`: what the manifest is read for (a broken one is said in its terms). */
export function readManifest(output: string, use: 'resume' | 'merge' = 'resume'): Promise<Manifest | undefined> {
  return readJsonFile(manifestPathFor(output), manifestSchema, use);
}

/**
 * Written whole to a temporary file and renamed, so a reader never sees half a manifest. A stream
 * output (isStream) has none: `/dev/null.manifest.json` would land in /dev, and nothing resumes a stream.
 */
export async function writeManifest(output: string, manifest: Manifest): Promise<void> {
  if (await isStream(output)) return;
  const path = manifestPathFor(output);
  await writeAtomically(path, `${JSON.stringify(manifest, null, 2)}\n`).catch((err: unknown) => {
    throw fileError(path, err);
  });
}

/** Human-readable differences between the settings an output was made with and the ones asked for now. */
export function settingsDifferences(before: ManifestSettings, now: ManifestSettings): string[] {
  const diffs: string[] = [];
  const keys = new Set([...Object.keys(before), ...Object.keys(now)]) as Set<keyof ManifestSettings>;
  for (const k of keys) {
    const a = stable(before[k]);
    const b = stable(now[k]);
    if (a !== b) diffs.push(`${k}: was ${a ?? 'unset'}, now ${b ?? 'unset'}`);
  }
  return diffs;
}

/** JSON with sorted keys, so `{a,b}` and `{b,a}` compare equal. */
function stable(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : 1)))
      : v,
  );
}
