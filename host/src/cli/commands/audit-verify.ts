// `toolgate audit verify FILE`: checks the audit log's hash chain. Exit 0 with the record count
// when intact; exit 1 naming the first line that was edited, deleted, inserted or moved.
import { resolve } from 'node:path';
import { verifyAuditFile } from '../../policy/index.js';
import { EXIT, type CliIO, type Command, type ExitCode } from '../command.js';
import { parseFlags, UsageError } from '../usage.js';
import { messageOf } from '../../errors/index.js';

const HELP = `Usage: toolgate audit verify FILE [--json]

Checks the hash chain of an audit log written by the audit-log policy. Every record links to the
hash of the one before it, so an edited, deleted, inserted or reordered line breaks the chain at
that line. (Lines cut off the end leave a shorter valid chain; keep the last hash elsewhere if
that matters.)

--json prints {"file", "ok", "records"} and, when broken, "line" and "reason", on one line.

Exit status: 0 intact (prints the number of records), 1 broken (names the line), 2 usage error
or unreadable file.`;

export const auditVerifyCommand: Command = {
  path: ['audit', 'verify'],
  summary: "check an audit log's hash chain (edits, deletions, reordering)",
  help: HELP,
  async run(argv: string[], io: CliIO): Promise<ExitCode> {
    const { values, positionals } = parseFlags(
      argv,
      { json: { type: 'boolean', default: false } },
      { min: 1, max: 1, what: 'FILE' },
    );
    const path = resolve(io.cwd, positionals[0] as string);
    let result;
    try {
      result = await verifyAuditFile(path);
    } catch (err) {
      throw new UsageError(`cannot read ${path}: ${messageOf(err)}`);
    }
    if (values.json === true) {
      const broken = result.ok ? {} : { line: result.line, reason: result.reason };
      io.stdout(`${JSON.stringify({ file: path, ok: result.ok, records: result.count, ...broken })}\n`);
      return result.ok ? EXIT.ok : EXIT.failed;
    }
    if (result.ok) {
      io.stdout(`${path}: intact, ${result.count} record${result.count === 1 ? '' : 's'}\n`);
      return EXIT.ok;
    }
    io.stdout(
      `${path}: line ${result.line}: ${result.reason} (${result.count} record${result.count === 1 ? '' : 's'} before it are intact)\n`,
    );
    return EXIT.failed;
  },
};
