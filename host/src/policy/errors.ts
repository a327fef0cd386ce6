// Configuration errors of a policy set: each names the file, the entry and the key path.

export class PolicyConfigError extends Error {
  readonly file: string;
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = 'PolicyConfigError';
    this.file = file;
  }
}
