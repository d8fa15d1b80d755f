import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { invocation, type InvocationContext } from '../../../src/commands/shared/invocation.js';

/*
 * The values npm 11 gives a program npx runs, as observed: the script is the
 * .bin link in ~/.npm/_npx/<hash>/node_modules, whose package.json lists the
 * specs given (`_npx.packages`); --package specs are in npm_config_package too.
 */
const folder = '/root/.npm/_npx/ea72d5d68b67c930';
const script = `${folder}/node_modules/.bin/awb`;

function underNpx(packages: string[] | undefined, env: NodeJS.ProcessEnv = {}): string {
  const files: Record<string, string> = packages
    ? { [`${folder}/package.json`]: JSON.stringify({ dependencies: {}, _npx: { packages } }) }
    : {};
  const c: InvocationContext = {
    script,
    cwd: '/work/ci',
    env: { PATH: '/usr/bin', npm_command: 'exec', npm_lifecycle_event: 'npx', ...env },
    realpath: () => undefined,
    readText: (p) => files[p],
  };
  return invocation(c);
}

describe('the invocation printed under npx repeats the package the user ran', () => {
  it('npx agentworldbench stays as it is', () => {
    assert.equal(underNpx(['agentworldbench']), 'npx agentworldbench');
  });

  it('a pinned version, a tarball or a git spec is repeated with --package, quoted for the shell', () => {
    assert.equal(underNpx(['agentworldbench@0.1.0']), 'npx --package agentworldbench@0.1.0 awb');
    assert.equal(underNpx(['./agentworldbench-0.1.0.tgz']), 'npx --package ./agentworldbench-0.1.0.tgz awb');
    assert.equal(underNpx(['github:me/awb#fix it']), "npx --package 'github:me/awb#fix it' awb");
    assert.equal(underNpx(['a@1', 'b@2']), 'npx --package a@1 --package b@2 awb');
  });

  it('without npx folder to read, npm_config_package says what --package gave; with neither, the package name', () => {
    assert.equal(underNpx(undefined, { npm_config_package: './awb.tgz' }), 'npx --package ./awb.tgz awb');
    assert.equal(underNpx(undefined, { npm_config_package: 'x@1\n\ny@2' }), 'npx --package x@1 --package y@2 awb');
    assert.equal(underNpx(undefined), 'npx agentworldbench');
  });

  it('npx --yes (npm_config_yes=true, as npm 11 sets it) is kept, for an npm config of yes=false', () => {
    assert.equal(underNpx(['agentworldbench'], { npm_config_yes: 'true' }), 'npx --yes agentworldbench');
    assert.equal(underNpx(['agentworldbench@0.1.0'], { npm_config_yes: 'true' }), 'npx --yes --package agentworldbench@0.1.0 awb');
    assert.equal(underNpx(['agentworldbench'], { npm_config_yes: '' }), 'npx agentworldbench');
  });

  it('a folder whose package.json is not npm’s falls back to the variable', () => {
    const c: InvocationContext = {
      script,
      cwd: '/',
      env: { npm_config_package: 'agentworldbench@0.2.0' },
      realpath: () => undefined,
      readText: () => '{not json',
    };
    assert.equal(invocation(c), 'npx --package agentworldbench@0.2.0 awb');
  });
});
