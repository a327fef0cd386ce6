// Configuration errors of a policy set: each names the file, the entry and the key path.
import { ToolgateError } from '../errors/index.js';

export class PolicyConfigError extends ToolgateError<'POLICY_CONFIG'> {
  readonly file: string;
  constructor(file: string, message: string) {
    super('POLICY_CONFIG', `${file}: ${message}`);
    this.file = file;
  }
}
