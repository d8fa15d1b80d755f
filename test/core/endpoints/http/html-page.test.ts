/* An error body that is a web page (a proxy in front of the API), shown as its gist (the runs: test/commands/stage/error-bodies.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { htmlPageGist } from '../../../../src/core/endpoints/http/client.js';

it('a page without a title is its text without tags; a body that is no page is kept as it is', () => {
  assert.equal(
    htmlPageGist(504, '<!DOCTYPE html><html><body><style>p{}</style><p>Gateway   Timeout</p></body></html>'),
    'Gateway Timeout (an HTML page: a proxy or web server in front of the API answered)',
  );
  assert.equal(htmlPageGist(500, 'upstream <b>failed</b>'), 'upstream <b>failed</b>');
});
