import type { DownloadFault } from '../../../../src/core/download/index.js';

const hub = 'https://hf-mirror.example';
const repo = 'Qwen/AgentWorldBench';
const download = { step: 'download', path: 'mcp_test.jsonl' } as const;
const list = { step: 'list', repo } as const;

export const DOWNLOAD_SAMPLES: { [K in DownloadFault['kind']]: Extract<DownloadFault, { kind: K }> } = {
  'hub-url-invalid': { kind: 'hub-url-invalid', setting: 'HF_ENDPOINT', value: 'hf-mirror.com' },
  'hub-url-not-http': { kind: 'hub-url-not-http', setting: 'option', url: 'ftp://hub.example' },
  'hub-url-credentials': { kind: 'hub-url-credentials', setting: 'MODELSCOPE_ENDPOINT', url: hub, tokenVar: 'MODELSCOPE_API_TOKEN' },
  'hub-url-query': { kind: 'hub-url-query', setting: 'MODELSCOPE_DOMAIN', url: hub },
  'hub-token-malformed': { kind: 'hub-token-malformed', source: 'HF_TOKEN' },
  'revision-invalid': { kind: 'revision-invalid', revision: '../x' },
  'repo-invalid': { kind: 'repo-invalid', repo: 'nope', example: repo },
  'offline-no-copy': { kind: 'offline-no-copy', repo, revision: 'main', where: '/cache/datasets--Qwen--AgentWorldBench' },
  'domains-not-in-dataset': {
    kind: 'domains-not-in-dataset',
    domains: ['chess'],
    repo,
    revision: 'main',
    available: ['mcp', 'search', 'terminal'],
  },
  'hub-has-no-test-files': { kind: 'hub-has-no-test-files', repo, revision: 'main' },
  'hub-revision-not-found': { kind: 'hub-revision-not-found', hub, repo, revision: 'nope' },
  'hub-file-not-found': { kind: 'hub-file-not-found', hub, repo, revision: 'main', file: 'mcp_test.jsonl' },
  'hub-repo-not-found': { kind: 'hub-repo-not-found', hub, repo },
  'hub-not-found': { kind: 'hub-not-found', hub, repo, revision: 'main', url: `${hub}/api/datasets/${repo}/revision/main` },
  'hub-access-denied': { kind: 'hub-access-denied', hubKind: 'huggingface', hub, repo, status: 401, doing: list, tokenSource: 'HF_TOKEN' },
  'hub-rate-limited': { kind: 'hub-rate-limited', hub, doing: download },
  'hub-http-error': { kind: 'hub-http-error', hub, status: 502, doing: download },
  'hub-redirect-failed': {
    kind: 'hub-redirect-failed',
    host: 'https://cdn.example',
    hub,
    file: 'mcp_test.jsonl',
    status: 403,
    doing: download,
  },
  'hub-unreachable': { kind: 'hub-unreachable', hubKind: 'huggingface', hub, isDefault: false, code: 'ECONNREFUSED', doing: list },
  'hub-connection-broke': { kind: 'hub-connection-broke', hub, code: 'ECONNRESET', doing: download },
  'hub-stalled': { kind: 'hub-stalled', hub, seconds: 30, doing: download },
  'hub-oversize': { kind: 'hub-oversize', hub, limit: 33554432, doing: list },
  'hub-unexpected-answer': { kind: 'hub-unexpected-answer', hubKind: 'modelscope', hub, doing: list },
  'hub-not-success': { kind: 'hub-not-success', hub, doing: list },
  'hub-stream-failed': { kind: 'hub-stream-failed', hub, doing: download, detail: 'terminated' },
  'hub-no-commit': { kind: 'hub-no-commit', hub, repo, revision: 'main' },
  'hub-no-file-list': { kind: 'hub-no-file-list', hub },
  'hub-too-many-files': { kind: 'hub-too-many-files', hub, repo, max: 100000 },
  'hub-listing-unsafe': { kind: 'hub-listing-unsafe', hub, what: { field: 'size', path: 'mcp_test.jsonl' }, value: '-1' },
  'hub-bad-revision': { kind: 'hub-bad-revision', hub, path: 'mcp_test.jsonl', value: '"../x"' },
  'hub-file-missing': { kind: 'hub-file-missing', hub, repo, commit: 'a'.repeat(40), path: 'mcp_test.jsonl' },
  'hub-file-too-big': { kind: 'hub-file-too-big', hub, path: 'mcp_test.jsonl', size: 5_000_000_000, cap: 2_147_483_648 },
  'hub-wrong-range': { kind: 'hub-wrong-range', hub, path: 'mcp_test.jsonl', offset: 1024 },
  'hub-file-longer': { kind: 'hub-file-longer', hub, path: 'mcp_test.jsonl', size: 2048 },
  'hub-file-damaged': { kind: 'hub-file-damaged', hub, path: 'mcp_test.jsonl', size: 2048, written: 1000, tries: 3 },
};
