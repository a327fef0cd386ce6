// The test door (CONTRIBUTING.md, "The test door"): the one list of what tests and benches may
// reach in host/src beyond what other folders use. A folder's door exports only what another folder
// imports; a name it exports for tests alone, and a file inside a folder that a test imports
// directly, is written here, so the surface that exists for tests is seen and kept small.
// test/architecture/surface.test.ts fails on a name or file missing here and on an entry that is
// no longer needed.

/** Names a top-level door exports that only tests import (door -> names). */
export const DOOR_NAMES_FOR_TESTS: ReadonlyMap<string, readonly string[]> = new Map([
  ['approval/index.ts', ['AnsweredElsewhere', 'PendingApproval']],
  ['cli/index.ts', ['runCli', 'commands', 'CommandEntry', 'EXIT', 'Command', 'UsageError']],
  ['errors/index.ts', ['isToolgateErrorCode']],
  ['manifest/index.ts', ['decodeOutput', 'sandboxSpecFor', 'describeHost']],
  ['own-sockets/index.ts', ['ownListenerCount']],
  ['pipeline/index.ts', ['PipelineLogger']],
  ['plugin/index.ts', ['PluginError']],
  ['policy/index.ts', ['mountPolicies', 'createPolicyLoader', 'PolicyController', 'PolicyConfigError', 'defaultPolicyServices', 'setDefaultPolicyServices', 'PolicyEvents', 'PolicyEvent', 'verifyAuditText', 'GENESIS', 'redactText']],
  ['registry/index.ts', ['satisfies', 'maxSatisfying', 'writeTar', 'readTar', 'digestOf', 'CapabilitySet', 'diffCapabilities', 'parseCeiling', 'ceilingViolations', 'hostCovered', 'signedStatement', 'keyIdOf', 'generateSigningKey', 'packageFromDir', 'packageFromTgz', 'packageToTgz', 'IndexFile', 'OCI_MEDIA', 'OCI_ANNOTATIONS', 'LockEntry', 'installedManifestDir']],
  ['sandbox/index.ts', ['SandboxLimits', 'matchHost']],
  ['server/index.ts', ['ServerClosingError', 'createMcpServer', 'StdioSession', 'InsecureBindError', 'RpcError', 'HttpSidecar', 'checkHost', 'checkOrigin', 'checkToken', 'allowedHostsFor', 'ConcurrencyLimit', 'sanitizeName', 'EXPORT_NAME_RE']],
  ['tool/index.ts', ['ToolChange']],
]);

/**
 * Files inside a folder (not its index.ts) that a test or a bench imports directly: a unit test of
 * one file's rules, or a hostile case that needs a seam the door does not offer.
 */
export const INNER_FILES_FOR_TESTS: readonly string[] = [
  'cli/command.ts',
  'cli/commands/audit-verify.ts',
  'cli/commands/inspect.ts',
  'cli/commands/registry-install.ts',
  'cli/commands/registry-keygen.ts',
  'cli/commands/registry-list.ts',
  'cli/commands/registry-pack.ts',
  'cli/commands/registry-publish.ts',
  'cli/commands/registry-trust.ts',
  'cli/commands/registry-uninstall.ts',
  'cli/commands/registry-verify.ts',
  'cli/dispatch.ts',
  'cli/runtime.ts',
  'manifest/describe.ts',
  'manifest/errors.ts',
  'manifest/load.ts',
  'manifest/module-file.ts',
  'manifest/parse-cache.ts',
  'manifest/parse.ts',
  'pipeline/async.ts',
  'pipeline/json-copy.ts',
  'policy/glob.ts',
  'policy/metrics.ts',
  'policy/values.ts',
  'registry/manifest-adapter.ts',
  'registry/screen.ts',
  'manifest/notice-limit.ts',
  'pipeline/clock.ts',
  'registry/store-lock.ts',
  'registry/word-diff.ts',
  'sandbox/channel.ts',
  'sandbox/http/read-capped.ts',
  'sandbox/http/warm.ts',
  'sandbox/hyper-serve.ts',
  'sandbox/in-thread.ts',
  'sandbox/module/cache.ts',
  'sandbox/module/code.ts',
  'sandbox/module/host-imports.ts',
  'sandbox/module/prepare.ts',
  'sandbox/wasi/errors.ts',
  'sandbox/wasi/host-file.ts',
  'sandbox/wasi/imports.ts',
  'sandbox/worker/component-runner.ts',
  'server/call-client.ts',
  'server/http-guard.ts',
  'server/modern-http.ts',
  'server/rpc-shape.ts',
  'server/sdk-ajv.ts',
  'server/stdio-era.ts',
  'server/stdio-transport.ts',
  'server/stdio.ts',
  'tool/validation.ts',
  'ui/views.ts',
];
