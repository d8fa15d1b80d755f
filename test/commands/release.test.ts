/*
 * The release workflow (issue 51 item 4): a version tag publishes that version with npm provenance, after the
 * tests. Its shell steps are run here as the runner runs them, the publish itself is only read (it needs the registry).
 */
import assert from 'node:assert/strict';
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { tempDirs } from '../support/dataset.js';
import { parseYaml, runScript } from '../support/workflow.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const temps = tempDirs('release');
after(() => temps.cleanup());

interface Workflow {
  on: { push: { tags: string[] } };
  permissions: Record<string, string>;
  jobs: {
    publish: { steps: Array<{ name?: string; uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string> }> };
  };
}

describe('.github/workflows/release.yml', () => {
  it('on a version tag: the tests, then npm publish --provenance with the OIDC token, the version checked against the tag', async () => {
    const wf = parseYaml(await readFile(join(ROOT, '.github/workflows/release.yml'), 'utf8')) as Workflow;
    assert.deepEqual(wf.on.push.tags, ['v*']);
    assert.equal(wf.permissions['id-token'], 'write');
    const steps = wf.jobs.publish.steps;
    const at = (pattern: RegExp) => steps.findIndex((s) => pattern.test(s.run ?? ''));
    const publish = at(/^npm publish --provenance\b/);
    assert.ok(publish > at(/^npm test$/) && at(/^npm test$/) > at(/^npm ci\b/) && at(/^npm ci\b/) >= 0, JSON.stringify(steps));
    assert.equal(steps[publish]!.env?.NODE_AUTH_TOKEN, '${{ secrets.NPM_TOKEN }}');
    assert.equal(steps.find((s) => s.uses?.startsWith('actions/setup-node@'))?.with?.['registry-url'], 'https://registry.npmjs.org');

    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const dir = await temps.make();
    await copyFile(join(ROOT, 'package.json'), join(dir, 'package.json'));
    const step = (name: string, env: Record<string, string>) =>
      runScript(steps.find((s) => s.name === name)!.run!, { cwd: dir, env, bin: dir });
    // The tag must name package.json's version: another tag publishes nothing.
    assert.equal((await step('Tag and version agree', { GITHUB_REF_NAME: `v${pkg.version}` })).code, 0);
    assert.notEqual((await step('Tag and version agree', { GITHUB_REF_NAME: 'v99.0.0' })).code, 0);
    // Provenance is verified against the repository package.json names: the one the workflow runs in.
    const named = await step('Name this repository in package.json', { GITHUB_REPOSITORY: 'someone/agentworldbench' });
    assert.equal(named.code, 0, named.stderr);
    const repo = (JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { repository: unknown }).repository;
    assert.deepEqual(repo, { type: 'git', url: 'git+https://github.com/someone/agentworldbench.git' });
  });
});
